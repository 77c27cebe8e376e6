"""Inspect AI logs, for real: the shipped PrimeBench task run by Inspect with its
``mockllm`` model (a made-up completion per epoch) over generated question and key
files writes a ``.eval`` log; ``benchboard submit run.eval`` (a real process) reads it
with Inspect's reader and submits one result per epoch to the real web server."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

pytest.importorskip(
    "inspect_ai", reason="inspect_ai is not installed (the inspect extra: pip install -e '.[dev]')"
)

from .apikit import KEY, OWNER, ROOT, Api, output, serve, submit

QUESTIONS = 20


@pytest.fixture
async def web(tmp_path: Path) -> AsyncIterator[Api]:
    async for one in serve(tmp_path):
        yield one


#: Inspect in a process of its own (its event loop leaves streams for the garbage
#: collector, which the suite's warning filters would blame on the next test): the
#: shipped task, mockllm answering each epoch with the completions given.
EVAL = """
import json, sys
from inspect_ai import eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from bot.evals.tasks import primebench

folder, outputs = sys.argv[1], json.loads(sys.argv[2])
def completion(text):
    made = ModelOutput.from_content(model="mockllm/model", content=text)
    # with its usage given, mockllm counts no tokens (tiktoken would download a file)
    made.usage = ModelUsage(input_tokens=100, output_tokens=60, total_tokens=160)
    return made
model = get_model("mockllm/model", custom_outputs=[completion(o) for o in outputs])
task = primebench(questions=folder + "/Q.json", key=folder + "/key.txt")
[log] = eval(task, model=model, epochs=len(outputs), log_dir=folder + "/logs", display="none")
print(json.dumps({"status": log.status, "location": log.location,
                  "mean": log.results.scores[0].metrics["mean"].value if log.results else None}))
"""


async def run_inspect(folder: Path, outputs: list[str]) -> Path:
    """The shipped task over generated files, run by Inspect with mockllm: the log."""
    questions = {
        f"Question_{i}": {"question": f"Q{i}?", **{f"option_{o}": f"o{o}" for o in range(1, 5)}}
        for i in range(1, QUESTIONS + 1)
    }
    (folder / "Q.json").write_text(json.dumps(questions))
    (folder / "key.txt").write_bytes(KEY)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", EVAL, str(folder), json.dumps(outputs),
        cwd=folder, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 180)
    assert proc.returncode == 0, err.decode()[-3000:]
    done = json.loads(out.decode().strip().splitlines()[-1])
    assert done["status"] == "success", err.decode()[-3000:]
    # Inspect scored each epoch with Benchboard's own scorer, too
    assert done["mean"] == pytest.approx((16 + 0) / 2)
    return Path(done["location"])


async def test_an_inspect_log_is_submitted_one_result_per_epoch(web: Api, tmp_path: Path) -> None:
    # epoch 1: 19 right, 1 wrong (19 - 3 = 16; all 20 right would be a copy of the
    # public key, held for review); epoch 2: 15 right, 5 wrong (15 - 15 = 0)
    path = await run_inspect(tmp_path, [output(19), output(15)])
    assert path.suffix == ".eval"
    # (read by the CLI process only: Inspect's reader leaves an event loop behind it)
    code, out, err = await submit(str(path), "--server", web.base, "--publish", token=web.token)
    assert code == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("epoch 1: primebench #") and "score 16" in lines[0]
    assert lines[1].startswith("epoch 2: primebench #") and "score 0" in lines[1]
    assert all(f"{web.base}/r/" in line for line in lines)

    mine = await web.services.store.history(OWNER)
    assert sorted(s.score for s in mine) == [0, 16]
    assert {(s.model, s.mode, s.visibility.value) for s in mine} == {
        ("mockllm/model", "default", "published")
    }
    # the same log again: the same submissions (its eval id and epoch are the keys)
    code, out, _ = await submit(str(path), "--server", web.base, "--publish", token=web.token)
    assert code == 0 and out.count("sent before") == 2
    assert len(await web.services.store.history(OWNER)) == 2
    # the log as the API's file: read by the server, the same submissions again (200)
    status, data = await post_log(web, path.read_bytes(), path.name)
    assert status == 200, data
    assert sorted(s["final_score"] for s in data["submissions"]) == [0, 16]
    assert {s["id"] for s in data["submissions"]} == {s.id for s in mine}
    assert len(await web.services.store.history(OWNER)) == 2


async def test_a_log_sent_to_the_api_is_one_submission_per_epoch(web: Api, tmp_path: Path) -> None:
    path = await run_inspect(tmp_path, [output(19), output(15)])
    status, data = await post_log(web, path.read_bytes(), path.name, model="named-here")
    assert status == 201, data
    shown = data["submissions"]
    assert [(s["final_score"], s["model"], s["published"]) for s in shown] == [
        (16, "named-here", True),
        (0, "named-here", True),
    ]
    status, data = await post_log(web, b"PK\x03\x04 not really a zip", "broken.eval")
    assert status == 422 and data["error"]["code"] == "invalid_log", data
    assert "broken.eval" in data["error"]["message"]


async def post_log(web: Api, data: bytes, name: str, **fields: str) -> tuple[int, Any]:
    form = aiohttp.FormData()
    form.add_field("publish", "true")
    for field, value in fields.items():
        form.add_field(field, value)
    form.add_field("output", data, filename=name, content_type="application/zip")
    async with web.session.post(
        web.base + "/api/v1/submissions", data=form, headers=web.auth()
    ) as r:
        return r.status, await r.json()


async def test_a_file_that_is_not_a_log_is_refused_in_one_line(tmp_path: Path) -> None:
    fake = tmp_path / "run.eval"
    fake.write_bytes(b"not a zip")
    code, out, err = await submit(
        str(fake), "--server", "http://127.0.0.1:9", token="bb_" + "z" * 43
    )
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "run.eval" in err


#: Any of the shipped tasks run by Inspect with mockllm answering every call the same.
EVAL_TASK = """
import json, sys
from inspect_ai import eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from bot.evals import tasks

folder, name, args, answer = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
made = ModelOutput.from_content(model="mockllm/model", content=answer)
made.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
model = get_model("mockllm/model", custom_outputs=[made] * 20)
[log] = eval(getattr(tasks, name)(**args), model=model, log_dir=folder + "/logs",
             display="none")
print(json.dumps({"status": log.status, "location": log.location}))
"""


async def run_task(folder: Path, name: str, args: dict[str, Any], answer: str) -> Path:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", EVAL_TASK, str(folder), name, json.dumps(args), answer,
        cwd=folder, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 180)
    assert proc.returncode == 0, err.decode()[-3000:]
    done = json.loads(out.decode().strip().splitlines()[-1])
    assert done["status"] == "success", err.decode()[-3000:]
    return Path(done["location"])


async def test_a_natory_run_in_inspect_is_an_attempt_at_its_target(
    web: Api, tmp_path: Path
) -> None:
    path = await run_task(tmp_path, "natory", {"target": 13}, "So:\n3^(1+1)+(3+1)")
    status, data = await post_log(web, path.read_bytes(), path.name, mode="default")
    assert status == 201, data
    (shown,) = data["submissions"]
    assert shown["target"] == 13 and shown["benchmark"] == "natory"
    assert shown["expression"] == "3^(1+1)+(3+1)" and shown["published"] is True


async def test_zerobench_in_inspect_sends_each_question_with_its_image(
    web: Api, tmp_path: Path
) -> None:
    from scoring.runs import Image

    image = Image("image/png", b"\x89PNG\r\n\x1a\nnot a real picture").data_url()
    questions = tmp_path / "questions.jsonl"
    questions.write_text(
        json.dumps({"question_id": "1", "question_text": "How many?", "images": [image]})
        + "\n"
        + json.dumps({"question_id": "2", "question_text": "Which colour?"})
        + "\n"
    )
    await web.services.store.save_key(
        "zerobench", json.dumps({"1": "7", "2": "blue"}).encode(), source="test"
    )
    path = await run_task(tmp_path, "zerobench", {"questions": str(questions)}, "It is {7}")
    status, data = await post_log(web, path.read_bytes(), path.name, mode="default")
    assert status == 201, data
    (shown,) = data["submissions"]
    assert shown["benchmark"] == "zerobench"
    assert shown["main"]["pass_at_1"] == pytest.approx(0.5), shown


#: The text a shipped task sends first, built as ``inspect eval`` builds it.
FIRST_PROMPT = """
import sys
from bot.evals import tasks

[message] = tasks.benchmark_task(sys.argv[1]).dataset[0].input
print("".join(part.text for part in message.content if hasattr(part, "text")))
"""


async def test_natorys_task_sends_the_days_target_an_admin_chose(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from bot.core import challenges
    from scoring import registry

    natory = registry.get("natory")
    day = datetime.now(UTC).date()
    seeded = challenges.of_day(tmp_path / "data", natory, day, "benchboard").target
    chosen = 4321 if seeded != 4321 else 1234
    challenges.set_target(tmp_path / "data", natory, day, str(chosen))  # /natory set
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", FIRST_PROMPT, "natory", cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "BENCHBOARD_DATA_DIR": "data"},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode == 0, err.decode()[-3000:]
    sent = out.decode()
    assert str(chosen) in sent and str(seeded) not in sent, sent


async def test_a_benchmark_defined_by_data_is_a_task_by_its_name(tmp_path: Path) -> None:
    """``inspect eval benchboard/benchmark -T name=NAME`` for a benchmark added with
    ``benchboard benchmark add``: read from the bot's database, as the CLI reads it."""
    from tests.cli.test_cli import run_cli

    (tmp_path / "tiny.toml").write_text(
        'name = "tinymcq"\ntitle = "TinyMCQ"\nkind = "choice"\noptions = 5\n'
        'points = { right = 2, wrong = -1, none = 0 }\nprompt = "Answer as Q:O."\n'
        'key = "1:3\\n2:1\\n"\n'
    )
    added = run_cli("benchmark", "add", "tiny.toml", cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    (tmp_path / "q.txt").write_text("1. What?\n2. Which?\n")
    script = (
        "from bot.evals import tasks\n"
        "[message] = tasks.benchmark(name='tinymcq', questions='q.txt').dataset[0].input\n"
        "print(''.join(part.text for part in message.content if hasattr(part, 'text')))\n"
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "BENCHBOARD_DATA_DIR": "data"},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode == 0, err.decode()[-3000:]
    assert out.decode() == "1. What?\n2. Which?\nAnswer as Q:O.\n"

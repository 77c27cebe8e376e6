"""``benchboard eval``, run as a user would (a subprocess), against a local server that
speaks the OpenAI chat-completions API over real HTTP: never a real provider."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from scoring import natory
from scoring import primebench as pb
from storage import Store
from tests.cli.test_cli import _env as cli_env
from tests.cli.test_cli import key_bytes, make_key, questions_bytes, run_cli, run_cli_async
from tests.runs.fakeai import FakeAI, providers_toml

KEY = make_key()
PB_ANSWERS = [
    "Let me work through these.\n" + "".join(f"{q}:{o}\n" for q, o in list(KEY.items())[:50]),
    "1:1\n2:2\n3:3\nI am not sure about the rest.\n",
]


@pytest.fixture
async def fake() -> AsyncIterator[FakeAI]:
    async with FakeAI(models=("m1",), key="sk-local") as server:
        yield server


@pytest.fixture
def workdir(tmp_path: Path, fake: FakeAI) -> Path:
    (tmp_path / "A.txt").write_bytes(key_bytes(KEY))
    (tmp_path / "Q.json").write_bytes(questions_bytes(KEY))
    done = run_cli(
        "data", "load", "primebench", "--key", "A.txt", "--questions", "Q.json", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    (tmp_path / "providers.toml").write_text(providers_toml(fake.base_url, retries=3))
    return tmp_path


def _env(workdir: Path, **more: str) -> dict[str, str]:
    return {
        "BENCHBOARD_PROVIDERS": str(workdir / "providers.toml"),
        "LOCAL_AI_KEY": "sk-local",
        "BENCHBOARD_NATORY_SEED": "test-seed",
        **more,
    }


def _answers(answers: list[str]) -> Any:
    given = iter(answers)
    return lambda request: next(given)


async def test_primebench_attempts_are_scored_as_pastes_with_cost_and_latency(
    workdir: Path, fake: FakeAI
) -> None:
    fake.answer = _answers(PB_ANSWERS)
    fake.faults = ["429", "500"]  # tried again
    code, out, err = await run_cli_async(
        "eval", "primebench", "--model", "local/m1", "--attempts", "2", "--json",
        cwd=workdir, env=_env(workdir),
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["benchmark"] == "primebench" and data["model"] == "local/m1"
    assert fake.statuses.count(429) == 1 and fake.statuses.count(500) == 1
    key = pb.BENCHMARK.load_key(key_bytes(KEY))
    pasted = [pb.BENCHMARK.score(a, key).to_json() for a in PB_ANSWERS]
    got = sorted(data["attempts"], key=lambda a: a["final_score"])
    want = sorted(pasted, key=lambda p: p["final_score"])
    for attempt, paste in zip(got, want, strict=True):
        assert {k: attempt[k] for k in paste} == paste
        assert attempt["input_tokens"] > 0 and attempt["output_tokens"] > 0
        assert attempt["cost_usd"] == pytest.approx(
            (attempt["input_tokens"] * 1.0 + attempt["output_tokens"] * 2.0) / 1e6
        )
        assert attempt["latency_s"] > 0
    # the request held Q.json and the official prompt, byte-exact
    sent = [r for r in fake.requests if r["model"] == "m1"][-1]
    parts = sent["messages"][0]["content"]
    assert [p["text"] for p in parts] == [questions_bytes(KEY).decode(), pb.PROMPT]


async def test_natory_reads_the_expression_out_of_prose_and_publishes(
    workdir: Path, fake: FakeAI
) -> None:
    fake.answer = _answers(["Let me think.\n\nThe answer is:\n2*(11-1)+1"] * 2)
    code, out, err = await run_cli_async(
        "eval", "natory", "--model", "local/m1", "--attempts", "2", "--target", "21",
        "--publish", "--json", cwd=workdir, env=_env(workdir),
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["target"] == 21
    for attempt in data["attempts"]:
        assert attempt["valid"] is True and attempt["finalScore"] > 0
        assert attempt["cost_usd"] > 0 and attempt["latency_s"] > 0
        assert attempt["submission_id"]
    store = await Store.open(workdir / "data" / "benchboard.sqlite3")
    try:
        sub = await store.get_submission(data["attempts"][0]["submission_id"])
        assert sub is not None and sub.origin == "benchboard" and sub.verified
        assert sub.visibility == "published" and sub.model == "local/m1"
        assert sub.extra["cost"] == pytest.approx(data["attempts"][0]["cost_usd"])
        assert sub.extra["run"]["latency_s"] == data["attempts"][0]["latency_s"]
    finally:
        await store.close()
    assert natory.BENCHMARK.name == data["benchmark"]


@pytest.mark.parametrize(
    ("case", "says"),
    [
        ("unknown_model", "provider local lists no model 'nope'"),
        ("no_key", "provider local: the variable LOCAL_AI_KEY"),
        ("wrong_key", "provider local: the API key in LOCAL_AI_KEY was refused (401)"),
        ("dead", "provider local: failed 4 times (last: unreachable)"),
        ("failing", "provider local: failed 4 times (last: 500)"),
    ],
)
async def test_failures_end_with_a_plain_line_naming_the_provider(
    workdir: Path, fake: FakeAI, case: str, says: str
) -> None:
    env = _env(workdir)
    model = "local/m1"
    if case == "unknown_model":
        model = "local/nope"
    elif case == "no_key":
        env["LOCAL_AI_KEY"] = ""
    elif case == "wrong_key":
        env["LOCAL_AI_KEY"] = "sk-wrong"
    elif case == "dead":
        (workdir / "providers.toml").write_text(providers_toml("http://127.0.0.1:9/v1"))
    elif case == "failing":
        fake.faults = ["500"] * 20
    code, out, err = await run_cli_async(
        "eval", "natory", "--model", model, "--target", "21", cwd=workdir, env=env
    )
    assert code == 2 and out == ""
    assert says in err and "Traceback" not in err
    assert len(err.strip().splitlines()) <= 2


def _ctrl_c_as_in_a_terminal() -> None:
    """In the child before it runs: Ctrl-C's default, as a terminal gives it. A test run
    started in the background by a shell without job control (``cmd &`` in a script)
    ignores SIGINT, and a child inherits that: the eval would never see Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


async def test_an_eval_stopped_with_ctrl_c_leaves_nothing_for_the_bot_to_run(
    workdir: Path, fake: FakeAI
) -> None:
    # its attempts were queued in the database the bot works from: stopped, they are
    # cancelled, not taken over and paid for by the bot once their leases lapse
    fake.delay = 30.0
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "eval", "natory", "--model", "local/m1", "--attempts",
        "2", "--target", "21", "--publish", cwd=workdir, env=cli_env(workdir, _env(workdir)),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        preexec_fn=_ctrl_c_as_in_a_terminal,
    )  # fmt: skip
    for _ in range(600):
        if fake.in_flight >= 2:
            break
        await asyncio.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    await asyncio.wait_for(proc.communicate(), 30)
    store = await Store.open(workdir / "data" / "benchboard.sqlite3")
    try:
        run = await store.get_run(1)
        attempts = await store.run_attempts(1)
    finally:
        await store.close()
    assert run.state == "cancelled" and [a.state for a in attempts] == ["cancelled"] * 2

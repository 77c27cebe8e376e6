"""``inspect eval benchboard/NAME``, as the README runs it: Inspect finds Benchboard's
tasks by those names (through the ``benchboard`` entry point) and runs them.

Inspect prefixes a task's name with the installed top-level package that defines it;
the tasks were defined in ``bot``, so ``benchboard/primebench`` named nothing and
``inspect eval`` said "No inspect tasks were found". Run here by name through
Inspect's own ``eval`` (what its command line calls), with ``mockllm`` answering: its
command line would count tokens with tiktoken, which downloads a file.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli import _env, key_bytes, make_key, questions_bytes

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip(
    "inspect_ai", reason="inspect_ai is not installed (the inspect extra: pip install -e '.[dev]')"
)

EVAL = """
import json, sys
from inspect_ai import eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

name, args, text = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
made = ModelOutput.from_content(model="mockllm/model", content=text)
made.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
model = get_model("mockllm/model", custom_outputs=[made])
logs = eval(name, model=model, task_args=args, log_dir="logs", display="none")
print(json.dumps([{"status": log.status, "task": log.eval.task,
                   "mean": log.results.scores[0].metrics["mean"].value
                   if log.results and log.results.scores else None} for log in logs]))
"""


def _packages(tmp_path: Path) -> str:
    """A folder holding this checkout's packages and nothing else. Inspect prefixes the
    tasks with ``benchboard/`` when the distribution it finds for ``benchboard`` is an
    installed one; the checkout itself on the path would be found first through the
    ``benchboard.egg-info`` an editable install leaves there, which records no install.
    (The checkout's code is what runs; the installed distribution names it.)"""
    folder = tmp_path / "packages"
    folder.mkdir()
    for name in ("benchboard", "bot", "scoring", "storage"):
        (folder / name).symlink_to(ROOT / name)
    return str(folder)


def run(tmp_path: Path, name: str, args: dict[str, str], text: str) -> list[dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-c", EVAL, name, json.dumps(args), text],
        cwd=tmp_path,
        env=_env(tmp_path, {"PYTHONPATH": _packages(tmp_path)}),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip(), f"no task found by the name {name}: {done.stderr[-3000:]}"
    found: list[dict[str, object]] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


@pytest.mark.parametrize("task", ["benchboard/primebench", "benchboard/benchmark"])
def test_the_readme_task_names_run(tmp_path: Path, task: str) -> None:
    key = make_key()
    (tmp_path / "Q.json").write_bytes(questions_bytes(key))
    (tmp_path / "A.txt").write_bytes(key_bytes(key))
    args = {"questions": "Q.json", "key": "A.txt"}
    if task == "benchboard/benchmark":
        args["name"] = "primebench"
    # every answer right but the first (wrong): 103 - 3
    answers = "".join(f"{q}:{o if q > 1 else o % 4 + 1}\n" for q, o in key.items())
    [log] = run(tmp_path, task, args, answers)
    assert log == {"status": "success", "task": task, "mean": 100.0}

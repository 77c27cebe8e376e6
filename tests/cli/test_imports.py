"""What ``benchboard score`` imports: the chosen scorer and what it needs, nothing else.

Structural, not timed: ``python -X importtime`` lists every module a process imports,
and scoring a file with ``--key`` must load neither Telegram, the database, the
network, pydantic (the settings), charts nor the other benchmarks' scorers.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli import _env

#: Modules (and their submodules) the scoring path must not load.
HEAVY = (
    "telegram",
    "aiosqlite",
    "sqlite3",
    "_sqlite3",
    "httpx",
    "aiohttp",
    "pydantic",
    "pydantic_core",
    "pydantic_settings",
    "matplotlib",
    "numpy",
    "asyncio",
    "storage",
    "bot.core",
    "bot.telegram",
    "bot.settings",
    "scoring.zerobench",
    "scoring.natory",
)


def imported(*args: str, cwd: Path) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bot", *args],
        cwd=cwd,
        capture_output=True,
        env=_env(cwd),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    names = set()
    for line in done.stderr.decode().splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    assert "argparse" in names  # the listing is read right
    return names


def heavy(names: set[str]) -> list[str]:
    return sorted(n for n in names if any(n == h or n.startswith(h + ".") for h in HEAVY))


@pytest.mark.parametrize("output", [["--json"], []], ids=["json", "text"])
def test_score_with_a_key_loads_only_its_scorer(tmp_path: Path, output: list[str]) -> None:
    key = tmp_path / "A.txt"
    key.write_text("".join(f"{q}:{q % 4 + 1}\n" for q in range(1, 105)))
    answers = tmp_path / "out.txt"
    answers.write_text("".join(f"{q}:1\n" for q in range(1, 105)) + "0 no answer here\n")
    names = imported(
        "score", str(answers), "-b", "primebench", "--key", str(key), *output, cwd=tmp_path
    )
    assert "scoring.primebench.scorer" in names
    assert heavy(names) == []
    # a line that may be a tag line (it starts with a letter): the bot's tag reader
    # too, which blanks tag lines as the bot does, and nothing more
    answers.write_text("".join(f"{q}:1\n" for q in range(1, 105)) + "no answer here\n")
    names = imported(
        "score", str(answers), "-b", "primebench", "--key", str(key), *output, cwd=tmp_path
    )
    assert heavy(names) == ["bot.core", "bot.core.tags"]


#: What detecting the benchmark adds (no ``--benchmark``): the bot's own reading of a
#: message (its tags and classify) and every scorer's recogniser. Still no database,
#: Telegram, settings or network.
DETECTION = ("bot.core", "bot.core.classify", "bot.core.tags")


def test_detecting_the_benchmark_loads_no_database_nor_telegram(tmp_path: Path) -> None:
    key = tmp_path / "A.txt"
    key.write_text("1:2\n2:3\n")
    answers = tmp_path / "out.txt"
    answers.write_text("#think\nmodel: **GPT-5.5**\n1:2\n2:3\n")
    names = imported("score", str(answers), "--key", str(key), "--json", cwd=tmp_path)
    assert "scoring.primebench.scorer" in names
    assert {"bot.core.classify", "scoring.zerobench.benchmark", "scoring.natory.benchmark"} <= names
    light = [n for n in heavy(names) if n not in DETECTION]
    light = [n for n in light if not n.startswith(("scoring.zerobench", "scoring.natory"))]
    assert light == []


def test_the_lists_catch_a_heavy_import(tmp_path: Path) -> None:
    """The check itself: a command that does read settings shows pydantic."""
    names = imported("natory", "today", "--json", cwd=tmp_path)
    assert "pydantic_settings" in heavy(names)

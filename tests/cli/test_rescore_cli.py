"""``benchboard rescore BENCHMARK``: the bot's /rescore from the command line, against a
database a natory-v1 bot left."""

from __future__ import annotations

import asyncio
from pathlib import Path

from storage import Store
from tests.bot.core.test_rescore_natory import store_v1

from .test_compare_cli import run


async def _fill(path: Path) -> None:
    store = await Store.open(path)
    try:
        await store_v1(store)
    finally:
        await store.close()


async def _scores(path: Path) -> list[tuple[str, float]]:
    store = await Store.open(path)
    try:
        return [(r.model, r.best) for r in (await store.leaderboard("natory")).rows]
    finally:
        await store.close()


def test_rescore_moves_stored_v1_attempts_to_v2(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    db = data / "benchboard.sqlite3"
    asyncio.run(_fill(db))
    env = {"BENCHBOARD_DATA_DIR": str(data)}
    done = run("rescore", "natory", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Natory: 5 of 5 submissions re-scored to natory-v2 (no key)")
    before, after = done.stdout.split("top after:")
    assert "1. Padder · default · 43" in before and "4. Wild · default · -20441" in before
    assert "3. Padder · default · 0" in after and "4. Wild · default · -100" in after
    assert asyncio.run(_scores(db)) == [
        ("Honest", 17.0),
        ("Echo", 12.0),
        ("Padder", 0.0),
        ("Wild", -100.0),
    ]
    again = run("rescore", "natory", cwd=tmp_path, env=env)
    assert again.returncode == 0
    assert again.stdout.strip() == "Natory: no stored submission needs re-scoring"


def test_rescore_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    env = {"BENCHBOARD_DATA_DIR": str(tmp_path / "data")}
    missing = run("rescore", "natory", cwd=tmp_path, env=env)
    assert missing.returncode == 2 and "no database at" in missing.stderr
    unknown = run("rescore", "banana", cwd=tmp_path, env=env)
    assert unknown.returncode == 2
    assert "no benchmark 'banana': one of primebench, zerobench, natory" in unknown.stderr

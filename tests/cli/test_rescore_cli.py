"""``benchboard rescore BENCHMARK``: the bot's /rescore from the command line, against a
database a natory-v1 bot left."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from storage import Store
from tests.bot.core.test_rescore_natory import store_v1
from tests.storage.conftest import pg_database
from tests.storage.pg import pg_schema_url

from .test_compare_cli import ROOT, run

__all__ = ["pg_database"]


async def _fill(path: Path | str) -> None:
    store = await Store.open(path)
    try:
        await store_v1(store)
    finally:
        await store.close()


async def _scores(path: Path | str) -> list[tuple[str, float]]:
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


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The test's database, as BENCHBOARD_DB names it: a file, or a PostgreSQL URL."""
    if request.param == "sqlite":
        yield str(tmp_path / "data" / "benchboard.sqlite3")
        return
    with pg_schema_url(request.getfixturevalue("pg_database")) as url:
        yield url


def test_a_rescore_waits_for_the_one_another_process_runs(database: str, tmp_path: Path) -> None:
    """A re-score runs one at a time across processes: ``benchboard rescore`` started
    while another process (the bot) re-scores the benchmark waits for it to end, then
    does what is left."""
    (tmp_path / "data").mkdir()
    asyncio.run(_fill(database))

    async def hold(take: bool) -> None:
        store = await Store.open(database)
        try:
            if take:
                assert await store.take_lease("rescore.natory", "the bot", ttl_ms=120_000)
            else:
                await store.drop_lease("rescore.natory", "the bot")
        finally:
            await store.close()

    asyncio.run(hold(True))
    full = {k: v for k, v in os.environ.items() if not k.startswith("BENCHBOARD_")}
    full.update(BENCHBOARD_DB=database, BENCHBOARD_DATA_DIR=str(tmp_path / "data"))
    full.update(PYTHONPATH=str(ROOT))
    cli = subprocess.Popen(
        [sys.executable, "-m", "bot", "rescore", "natory"],
        cwd=tmp_path, env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        time.sleep(5)
        assert cli.poll() is None, cli.communicate()  # waiting, nothing re-scored
        assert asyncio.run(_scores(database))[0] == ("Padder", 43.0)
        asyncio.run(hold(False))  # the bot's re-score ended
        out, err = cli.communicate(timeout=60)
    finally:
        if cli.poll() is None:
            cli.kill()
    assert cli.returncode == 0, err
    assert out.startswith("Natory: 5 of 5 submissions re-scored to natory-v2")
    assert err == "waiting for the re-score of natory that another process runs…\n"

"""``benchboard db port``: SQLite into PostgreSQL, verified; a non-empty target refused."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from storage import Store
from tests.storage.conftest import pg_database
from tests.storage.helpers import PRIME, Maker, answers, key_bytes
from tests.storage.pg import pg_schema_url

__all__ = ["pg_database"]


@pytest.fixture
def pg_url(pg_database: str) -> Iterator[str]:
    with pg_schema_url(pg_database) as url:
        yield url


async def _fill(path: Path) -> None:
    async with await Store.open(path) as store:
        key = await store.save_key("primebench", key_bytes(1), source="t")
        make = Maker(key=PRIME.load_key(key_bytes(1)), key_id=key.id)
        for q in range(1, 6):
            sub = await store.record_submission(make(answers(q % 4 + 1)))
            await store.publish(sub.id)


def test_port_copies_verifies_and_refuses_a_non_empty_target(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "bb.sqlite3"
    asyncio.run(_fill(source))
    assert main(["db", "port", "--from", str(source), "--to", pg_url]) == 0
    out = capsys.readouterr().out
    assert "submissions: 5 rows (5 copied now)" in out and "verified" in out
    # again from the same source: resumed, nothing new
    assert main(["db", "port", "--from", str(source), "--to", pg_url]) == 0
    assert "resumed" in capsys.readouterr().out
    other = tmp_path / "other.sqlite3"
    asyncio.run(_fill(other))
    assert main(["db", "port", "--from", str(other), "--to", pg_url]) == 2
    assert "not empty" in capsys.readouterr().err
    assert main(["db", "port", "--from", str(other), "--to", pg_url, "--force"]) == 0


def test_port_to_a_database_that_does_not_exist_says_so_in_one_line(
    tmp_path: Path, pg_database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "bb.sqlite3"
    asyncio.run(_fill(source))
    missing = pg_database.rsplit("/", 1)[0] + "/benchboard_no_such_db"
    started = time.monotonic()
    assert main(["db", "port", "--from", str(source), "--to", missing]) == 2
    assert time.monotonic() - started < 5
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert 'the database "benchboard_no_such_db" does not exist' in lines[0]
    assert "createdb" in lines[0] and "benchboard_no_such_db" in lines[0]

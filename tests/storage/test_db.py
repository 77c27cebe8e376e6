"""The connection seam: ``run`` in one trip or one trip per statement, errors, closing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from storage import StorageError, StoreUnavailable
from storage.db import Conn, Database


def three_reads(conn: Conn) -> list[Any]:
    out = [conn.execute("SELECT COUNT(*) FROM benchmarks").fetchone()]
    cursor = conn.execute("SELECT 1 UNION ALL SELECT 2 ORDER BY 1")
    out.append(cursor.fetchall())
    cursor.close()
    out.append(conn.execute("SELECT name FROM benchmarks WHERE id = ?", (1,)).fetchone())
    return out


@pytest.mark.parametrize("per_statement", [False, True])
async def test_run_gives_the_same_answers_in_one_trip_or_one_per_statement(
    tmp_path: Path, per_statement: bool
) -> None:
    db = await Database.open(tmp_path / "db.sqlite3", per_statement=per_statement)
    try:
        assert db.per_statement is per_statement
        async with db.write() as s:
            await s.execute("INSERT INTO benchmarks (name) VALUES ('primebench')")
        before = db.trips
        assert await db.run(three_reads) == [(1,), [(1,), (2,)], ("primebench",)]
        assert db.trips - before == (3 if per_statement else 1)
        async with db.read() as s:  # inside a session: Session.run
            assert (await s.run(three_reads))[2] == ("primebench",)
    finally:
        await db.close()


@pytest.mark.parametrize("per_statement", [False, True])
async def test_errors_in_work_are_storage_errors(tmp_path: Path, per_statement: bool) -> None:
    db = await Database.open(tmp_path / "db.sqlite3", per_statement=per_statement)
    try:
        with pytest.raises(StorageError, match="no such table"):
            await db.run(lambda conn: conn.execute("SELECT * FROM nowhere").fetchall())
        assert await db.run(lambda conn: conn.execute("SELECT 7").fetchone()) == (7,)
    finally:
        await db.close()
    with pytest.raises(StoreUnavailable):
        await db.run(lambda conn: conn.execute("SELECT 1").fetchone())


async def test_a_failed_write_is_rolled_back(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "db.sqlite3")
    try:
        with pytest.raises(RuntimeError):
            async with db.write() as s:
                await s.execute("INSERT INTO benchmarks (name) VALUES ('gone')")
                raise RuntimeError
        async with db.read() as s:
            assert await s.one("SELECT COUNT(*) FROM benchmarks") == (0,)
    finally:
        await db.close()

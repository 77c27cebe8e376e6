"""The connection seam: ``run`` in one trip (the reader connection) or one trip per
statement, a write's BEGIN before its first statement, errors, closing."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
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


def _insert_two(conn: Conn) -> int:
    conn.execute("INSERT INTO benchmarks (name) VALUES ('a')")
    conn.execute("INSERT INTO benchmarks (name) VALUES ('b')")
    return 2


# The first statement of a write transaction, as each Session method sends it, and what
# it returns.
FIRSTS = {
    "execute": (
        lambda s: s.execute("INSERT INTO benchmarks (name) VALUES ('a')"),
        lambda got: got.rowcount == 1 and got.lastrowid == 1,
    ),
    "executemany": (
        lambda s: s.executemany("INSERT INTO benchmarks (name) VALUES (?)", [("a",), ("b",)]),
        lambda got: got == 2,
    ),
    "all": (
        lambda s: s.all("INSERT INTO benchmarks (name) VALUES ('a') RETURNING id"),
        lambda got: [tuple(r) for r in got] == [(1,)],
    ),
    "one": (
        lambda s: s.one("INSERT INTO benchmarks (name) VALUES ('a') RETURNING name"),
        lambda got: tuple(got) == ("a",),
    ),
    "run": (lambda s: s.run(_insert_two), lambda got: got == 2),
}


@pytest.mark.parametrize("per_statement", [False, True])
@pytest.mark.parametrize("first", sorted(FIRSTS))
async def test_a_write_begins_with_its_first_statement(
    tmp_path: Path, first: str, per_statement: bool
) -> None:
    path = tmp_path / "db.sqlite3"
    db = await Database.open(path, per_statement=per_statement)
    other = sqlite3.connect(path, timeout=0)
    send, check = FIRSTS[first]
    try:
        before = db.trips
        async with db.write() as s:
            assert s.in_transaction
            assert check(await send(s))
            # the transaction took the write lock before its first statement ran
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("INSERT INTO benchmarks (name) VALUES ('other')")
            await s.execute("INSERT INTO benchmarks (name) VALUES ('c')")
        trips = db.trips - before
        if first != "run":  # BEGIN, the two statements, COMMIT
            assert trips == 4
        other.execute("INSERT INTO benchmarks (name) VALUES ('other')")  # committed: free
        other.commit()
        async with db.read() as s:
            names = [r[0] for r in await s.all("SELECT name FROM benchmarks ORDER BY id")]
        assert names[-2:] == ["c", "other"]
    finally:
        other.close()
        await db.close()


async def test_an_empty_write_sends_nothing(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "db.sqlite3")
    try:
        before = db.trips
        async with db.write() as s:
            assert s.in_transaction
        assert db.trips == before
    finally:
        await db.close()


async def test_a_failed_first_statement_leaves_no_transaction(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "db.sqlite3")
    try:
        with pytest.raises(StorageError):
            async with db.write() as s:
                await s.execute("INSERT INTO no_such_table VALUES (1)")
        async with db.write() as s:  # begins anew: nothing was left open
            await s.execute("INSERT INTO benchmarks (name) VALUES ('after')")
        async with db.read() as s:
            assert await s.one("SELECT COUNT(*) FROM benchmarks") == (1,)
    finally:
        await db.close()


# --- single statements beside each other ----------------------------------------------


def _slow_count(started: list[float], seconds: float) -> Callable[[Conn], Any]:
    """A work function that notes when it ran, holds the database thread a moment, and
    counts the benchmarks."""

    def work(conn: Conn) -> Any:
        started.append(time.monotonic())
        time.sleep(seconds)
        return conn.execute("SELECT COUNT(*) FROM benchmarks").fetchone()[0]

    return work


@pytest.mark.parametrize("per_statement", [False, True])
async def test_a_single_session_makes_one_trip(tmp_path: Path, per_statement: bool) -> None:
    db = await Database.open(tmp_path / "db.sqlite3", per_statement=per_statement)
    try:
        async with db.single() as s:
            assert await s.one("SELECT 1") == (1,)
            with pytest.raises(RuntimeError, match="one trip"):
                await s.one("SELECT 2")
    finally:
        await db.close()


async def test_single_statements_are_queued_together_not_one_after_each_answer(
    tmp_path: Path,
) -> None:
    """Twenty single statements at once take twenty database calls in a row: each is
    queued before the one ahead of it is answered (read() sessions would queue each
    only once the last one's answer reached the event loop)."""
    db = await Database.open(tmp_path / "db.sqlite3")
    try:
        started: list[float] = []
        queued_before_answer = 0

        async def one() -> None:
            nonlocal queued_before_answer
            async with db.single() as s:
                queued_before_answer += db.in_flight > 1
                await s.run(_slow_count(started, 0.002))

        await asyncio.gather(*(one() for _ in range(20)))
        assert len(started) == 20
        assert queued_before_answer >= 19
    finally:
        await db.close()


async def test_a_single_statement_never_runs_inside_another_sessions_transaction(
    tmp_path: Path,
) -> None:
    db = await Database.open(tmp_path / "db.sqlite3")
    try:
        order: list[str] = []
        in_write = asyncio.Event()
        release = asyncio.Event()

        async def writer() -> None:
            async with db.write() as s:
                await s.execute("INSERT INTO benchmarks (name) VALUES ('primebench')")
                in_write.set()
                await release.wait()  # the transaction stays open a while
                order.append("commit")

        async def reader() -> int:
            await in_write.wait()
            async with db.single() as s:
                row = await s.one("SELECT COUNT(*) FROM benchmarks")
            order.append("read")
            assert row is not None
            return int(row[0])

        write = asyncio.create_task(writer())
        read = asyncio.create_task(reader())
        await in_write.wait()
        await asyncio.sleep(0.05)
        waited = not read.done()  # waiting for the write, not reading its uncommitted row
        release.set()
        await write
        assert waited
        assert await read == 1  # the committed row, read after the commit
        assert order == ["commit", "read"]
    finally:
        await db.close()


async def test_a_session_waits_for_the_singles_queued_before_it_and_goes_first(
    tmp_path: Path,
) -> None:
    """A write begins only once the single statements queued before it are answered,
    and single statements that come while it waits go after it (it does not starve)."""
    db = await Database.open(tmp_path / "db.sqlite3")
    try:
        started: list[float] = []
        events: list[str] = []

        async def single(name: str, seconds: float) -> None:
            async with db.single() as s:
                await s.run(_slow_count(started, seconds))
            events.append(name)

        async def write() -> None:
            async with db.write() as s:
                events.append("write begins")
                await s.execute("INSERT INTO benchmarks (name) VALUES ('primebench')")
            events.append("write ends")

        early = [asyncio.create_task(single(f"early {n}", 0.02)) for n in range(3)]
        await asyncio.sleep(0)  # the early ones are queued
        writing = asyncio.create_task(write())
        await asyncio.sleep(0)  # the write waits for them
        late = [asyncio.create_task(single(f"late {n}", 0)) for n in range(3)]
        await asyncio.gather(*early, writing, *late)
        # (each ``run`` works in a worker thread, its statement on the database thread:
        # the early ones may end in any order, but all before the write)
        assert sorted(events[:3]) == ["early 0", "early 1", "early 2"]
        assert events[3:5] == ["write begins", "write ends"]
        assert sorted(events[5:]) == ["late 0", "late 1", "late 2"]
    finally:
        await db.close()


# --- run on the reader connection (aiosqlite's public API only) ------------------------


async def test_run_reads_what_is_committed_and_never_writes(tmp_path: Path) -> None:
    """``Database.run`` works on a read-only connection of its own: it sees each write
    once committed (not a write transaction's rows before), does not wait for a write
    transaction to end, and refuses to write."""
    db = await Database.open(tmp_path / "db.sqlite3")
    try:
        count = "SELECT COUNT(*) FROM benchmarks"
        async with db.write() as s:
            await s.execute("INSERT INTO benchmarks (name) VALUES ('a')")
            # inside an open write: run answers at once, with the committed state
            seen = await asyncio.wait_for(
                db.run(lambda conn: conn.execute(count).fetchone()), timeout=10
            )
            assert seen == (0,)
        assert await db.run(lambda conn: conn.execute(count).fetchone()) == (1,)
        with pytest.raises(StorageError, match="readonly"):
            await db.run(lambda conn: conn.execute("DELETE FROM benchmarks").rowcount)
        assert await db.run(lambda conn: conn.execute(count).fetchone()) == (1,)
    finally:
        await db.close()


async def test_close_waits_for_a_run_under_way(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "db.sqlite3")
    started: list[float] = []
    running = asyncio.create_task(db.run(_slow_count(started, 0.2)))
    await asyncio.sleep(0.05)  # under way (or queued on the reader's thread)
    await db.close()
    assert running.done() and await running == 0
    with pytest.raises(StoreUnavailable):
        await db.run(lambda conn: conn.execute("SELECT 1").fetchone())


def test_storage_uses_no_private_aiosqlite_attribute() -> None:
    """Only aiosqlite's public API: none of its private calls anywhere in storage/
    (``Database._conn`` is our aiosqlite connection: only public names after it)."""
    import re

    root = Path(__file__).resolve().parents[2] / "storage"
    private = re.compile(r"\._execute\b|\bconn\._conn\b|\._conn\._\w|\._tx\.|_connection\b")
    found = []
    for path in root.rglob("*.py"):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if private.search(line):
                found.append(f"{path.name}:{n}: {line.strip()}")
    assert not found, found

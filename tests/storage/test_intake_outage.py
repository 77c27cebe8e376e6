"""Done-marks that cannot be committed (the database locked elsewhere, as it is away in
an outage) are kept and committed once it answers, with those finished meanwhile; a
store closing while they still fail leaves them unfinished (handled again after the
start) and says so, without raising."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from storage import Store
from tests.storage.helpers import FakeClock


def body(update_id: int) -> str:
    return json.dumps({"update_id": update_id, "message": {"text": str(update_id)}})


def unfinished(db_path: Path) -> list[int]:
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as con:
        rows = con.execute("SELECT update_id FROM intake WHERE done_at IS NULL ORDER BY 1")
        return [int(r[0]) for r in rows]


@pytest.mark.sqlite_only
async def test_marks_that_fail_are_committed_once_the_database_answers(
    db_path: Path, clock: FakeClock
) -> None:
    store = await Store.open(db_path, clock=clock, busy_timeout_ms=50)
    holder = sqlite3.connect(db_path, isolation_level=None)
    try:
        await store.admit([(u, body(u)) for u in range(1, 11)])
        holder.execute("BEGIN IMMEDIATE")  # the write lock is elsewhere: commits fail
        first = store.finish_soon(1)
        store.finish_soon(2)
        await asyncio.sleep(0.6)  # a first commit failed, and a retry
        store.finish_soon(3)  # finished meanwhile: goes with them
        assert not first.done()
        holder.execute("ROLLBACK")
        await asyncio.wait_for(asyncio.shield(first), 10)
        assert unfinished(db_path) == list(range(4, 11))
        await store.finish(4)  # the next marks commit at once again
        assert unfinished(db_path) == list(range(5, 11))
    finally:
        holder.close()
        await store.close()


@pytest.mark.sqlite_only
async def test_closing_while_marks_fail_leaves_them_unfinished(
    db_path: Path, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    store = await Store.open(db_path, clock=clock, busy_timeout_ms=50)
    holder = sqlite3.connect(db_path, isolation_level=None)
    try:
        await store.admit([(u, body(u)) for u in range(1, 4)])
        holder.execute("BEGIN IMMEDIATE")
        store.finish_soon(1)
        await asyncio.sleep(0.2)
        await asyncio.wait_for(store.close(), 10)  # does not wait for the lock forever
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert unfinished(db_path) == [1, 2, 3]
    assert "done-marks not committed before closing" in caplog.text

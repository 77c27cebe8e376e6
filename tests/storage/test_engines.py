"""What the engine layer adds: SQL translation, several stores on one database (as
several bot instances have), PostgreSQL's migrations."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from storage import SCHEMA_VERSION, LimitReached, SchemaError, Store
from storage.migrations import Migration
from tests.storage.helpers import FakeClock, Maker, answers


def test_statements_are_translated_once_for_postgresql() -> None:
    pytest.importorskip("psycopg")
    from storage.engines.postgres import to_pg

    sql = "SELECT '?%' || x FROM t WHERE a = ? AND b IS NOT ? AND c IS NOT NULL AND +d >= ?"
    assert to_pg(sql) == (
        "SELECT '?%%' || x FROM t WHERE a = %s AND b IS DISTINCT FROM %s "
        "AND c IS NOT NULL AND d >= %s"
    )
    assert to_pg("SELECT a + b, runs + ? FROM t") == "SELECT a + b, runs + %s FROM t"
    assert to_pg(sql) is to_pg(sql)  # cached


def body(update_id: int) -> str:
    return json.dumps({"update_id": update_id})


async def test_two_instances_admit_each_update_once(db_path: Path, clock: FakeClock) -> None:
    one = await Store.open(db_path, clock=clock)
    two = await Store.open(db_path, clock=clock)
    try:
        batches = [[(u, body(u)) for u in range(start, start + 40)] for start in range(0, 400, 40)]
        admitted = await asyncio.gather(
            *(store.admit(batch) for batch in batches for store in (one, two))
        )
        ids = [u for got in admitted for u in got]
        assert sorted(ids) == list(range(400))  # each update admitted by exactly one
    finally:
        await one.close()
        await two.close()


async def test_two_instances_share_the_daily_allowance(
    db_path: Path, clock: FakeClock, make: Maker, store: Store
) -> None:
    other = await Store.open(db_path, clock=clock)
    try:
        subs = [await store.record_submission(make(answers(q))) for q in range(1, 9)]
        outcomes = await asyncio.gather(
            *(
                (store if i % 2 else other).publish_within(sub.id, daily_limit=3)
                for i, sub in enumerate(subs)
            ),
            return_exceptions=True,
        )
        published = [o for o in outcomes if not isinstance(o, BaseException)]
        assert len(published) == 3
        assert all(isinstance(o, LimitReached) for o in outcomes if isinstance(o, BaseException))
        assert await other.published_today(1) == 3
        board = await other.leaderboard("primebench")
        assert sum(row.runs for row in board.rows) == 3
    finally:
        await other.close()


async def test_the_same_message_from_two_instances_is_stored_once(
    db_path: Path, clock: FakeClock, make: Maker, store: Store
) -> None:
    other = await Store.open(db_path, clock=clock)
    try:
        sub = make(answers(1, 2, 3))
        got = await asyncio.gather(store.record_submission(sub), other.record_submission(sub))
        assert sorted(s.created for s in got) == [False, True]
        assert got[0].id == got[1].id
    finally:
        await other.close()


@pytest.mark.postgresql_only
async def test_postgresql_migrates_once_to_the_latest(
    db_path: Path, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from storage.engines import pg_schema

    await (await Store.open(db_path)).close()
    async with await Store.open(db_path) as store:  # nothing twice
        assert await store.schema_version() == SCHEMA_VERSION
    # a later SQLite step that is not shared and has no PostgreSQL text stops it
    step = Migration(SCHEMA_VERSION + 1, "test: sqlite only", "SELECT 1")
    monkeypatch.setattr(pg_schema, "MIGRATIONS", (*pg_schema.MIGRATIONS, step))
    monkeypatch.setattr(pg_schema, "LATEST", step.version)
    with pytest.raises(SchemaError, match="no PostgreSQL version"):
        await Store.open(db_path)


def test_every_step_after_the_baseline_has_a_postgresql_text() -> None:
    pytest.importorskip("psycopg")
    from storage.engines import pg_schema
    from storage.migrations import MIGRATIONS

    for step in MIGRATIONS[pg_schema.BASELINE_VERSION :]:
        assert pg_schema.step_sql(step.version)


async def test_a_transaction_that_lost_a_deadlock_is_run_again_on_postgresql(
    store: Store, engine: str
) -> None:
    from storage import DatabaseLocked
    from storage.db import Session

    tries = 0

    async def work(s: Session) -> int:
        nonlocal tries
        tries += 1
        await s.execute(
            "INSERT INTO bans (user_id, banned_by, banned_at) VALUES (?, 1, 1)", (tries,)
        )
        if tries == 1:
            raise DatabaseLocked("deadlock detected (as PostgreSQL reports it)")
        return tries

    if engine == "sqlite":  # writers never deadlock there: once, the error as it is
        with pytest.raises(DatabaseLocked):
            await store.db.retrying(work)
        return
    assert await store.db.retrying(work) == 2
    assert [b.user_id for b in await store.bans()] == [2]  # the first try rolled back

"""The durable intake: updates kept from arrival until handled, each once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from storage import Store
from storage.intake import LEASE_MS, IntakeEntry
from tests.storage.helpers import FakeClock
from tests.storage.pg import query_one


def body(update_id: int) -> str:
    return json.dumps({"update_id": update_id, "message": {"text": str(update_id)}})


async def test_admit_keeps_each_update_once(store: Store) -> None:
    assert await store.admit([(1, body(1)), (2, body(2))]) == [1, 2]
    # a redelivery (and a repeat inside one batch) is not new
    assert await store.admit([(2, body(2)), (3, body(3)), (3, body(3))]) == [3]
    assert [(e.update_id, json.loads(e.body)["update_id"]) for e in await store.unfinished()] == [
        (1, 1),
        (2, 2),
        (3, 3),
    ]
    assert await store.admit([]) == []


async def test_a_batch_is_admitted_and_finished_in_one_trip_each(store: Store) -> None:
    # a getUpdates batch (at most 100) is one statement: a transaction of its own
    before = store.db.trips
    assert await store.admit([(u, body(u)) for u in range(1, 101)]) == list(range(1, 101))
    assert store.db.trips - before == 1
    before = store.db.trips
    await asyncio.gather(*(store.finish(u) for u in range(1, 101)))
    assert store.db.trips - before == 1
    assert await store.unfinished() == []


async def test_finished_updates_are_not_unfinished_after_a_restart(
    db_path: Path, clock: FakeClock
) -> None:
    store = await Store.open(db_path, clock=clock)
    await store.admit([(u, body(u)) for u in range(1, 1201)])
    # finishing many at once is group-committed, and every caller waits for its own
    await asyncio.gather(*(store.finish(u) for u in range(1, 1201) if u % 3))
    await store.close()
    store = await Store.open(db_path, clock=clock)
    try:
        assert [e.update_id for e in await store.unfinished()] == list(range(3, 1201, 3))
        # finishing twice is harmless; a finished update admitted again is not new
        await store.finish(1)
        assert await store.admit([(1, body(1))]) == []
    finally:
        await store.close()


async def test_updates_finished_soon_are_gathered_and_committed_by_closing(
    db_path: Path, clock: FakeClock
) -> None:
    """finish_soon does not wait: the ids finished after one another are gathered into
    one UPDATE, and closing the store commits what is gathered."""
    store = await Store.open(db_path, clock=clock)
    await store.admit([(u, body(u)) for u in range(1, 201)])
    before = store.db.trips
    for u in range(1, 51):
        store.finish_soon(u)
    await asyncio.sleep(0)  # the finisher is gathering
    for u in range(51, 101):
        task = store.finish_soon(u)
    await task
    assert store.db.trips - before == 1
    for u in range(101, 150):
        store.finish_soon(u)
    await store.close()  # commits them at once
    store = await Store.open(db_path, clock=clock)
    try:
        assert [e.update_id for e in await store.unfinished()] == list(range(150, 201))
    finally:
        await store.close()


async def test_prune_forgets_only_old_finished_updates(store: Store, clock: FakeClock) -> None:
    await store.admit([(1, body(1)), (2, body(2))])
    await store.finish(1)
    clock.advance(days=2)
    await store.admit([(3, body(3))])
    await store.finish(3)
    assert await store.prune_intake(older_than_ms=86_400_000) == 1  # 1: old and done
    assert [e.update_id for e in await store.unfinished()] == [2]
    assert await store.admit([(1, body(1))]) == [1]  # forgotten: new again


# --- leases: several instances share the intake as a work queue --------------------------

LEASE_S = LEASE_MS / 1000


def ids(entries: list[IntakeEntry]) -> list[int]:
    return [e.update_id for e in entries]


async def test_the_admitting_instance_holds_its_updates_until_the_lease_lapses(
    db_path: Path, clock: FakeClock
) -> None:
    one = await Store.open(db_path, clock=clock)
    two = await Store.open(db_path, clock=clock)
    try:
        assert one.instance != two.instance
        assert await one.admit([(u, body(u)) for u in (1, 2, 3)]) == [1, 2, 3]
        # the insert was the claim: the admitting store holds them, live
        assert one.held == {1, 2, 3}
        assert query_one(db_path, "SELECT count(*) FROM intake WHERE owner IS NOT NULL")[0] == 3
        clock.advance(seconds=LEASE_S - 0.5)
        assert await two.claim_lapsed() == []
        # lapsed (the admitting instance stopped renewing): another takes them, oldest
        # first, and the first learns at its next renewal that they are not its own now
        clock.advance(seconds=1)
        taken = await two.claim_lapsed()
        assert ids(taken) == [1, 2, 3] and json.loads(taken[0].body)["update_id"] == 1
        assert two.held == {1, 2, 3}
        assert await one.claim_lapsed() == []  # taken back by nobody else: live again
        assert await one.renew() == 0 and one.held == set()
        assert await two.renew() == 3
    finally:
        await one.close()
        await two.close()


async def test_renewing_keeps_the_updates_being_handled(db_path: Path, clock: FakeClock) -> None:
    one = await Store.open(db_path, clock=clock)
    two = await Store.open(db_path, clock=clock)
    try:
        await one.admit([(u, body(u)) for u in range(1, 6)])
        await one.finish(2)  # marked done: no longer held, never taken
        assert one.held == {1, 3, 4, 5}
        for _ in range(5):  # renewed within each lease: never lapses
            clock.advance(seconds=LEASE_S * 0.75)
            assert await one.renew() == 4
            assert await two.claim_lapsed() == []
        # renewing nothing held is no statement at all
        idle = await Store.open(db_path, clock=clock)
        before = idle.db.trips
        assert await idle.renew() == 0 and idle.db.trips == before
        await idle.close()
        # the instance died: after one lease the others take what it held, not what is done
        clock.advance(seconds=LEASE_S + 0.001)
        assert ids(await two.claim_lapsed()) == [1, 3, 4, 5]
        assert await two.claim_lapsed() == []  # claimed: live, two's
    finally:
        await one.close()
        await two.close()


async def test_an_instance_does_not_take_again_what_it_still_holds(
    store: Store, clock: FakeClock
) -> None:
    """Its own lapsed lease (a stalled event loop) is renewed by a claim, not handed out
    a second time in the same process."""
    await store.admit([(1, body(1)), (2, body(2))])
    clock.advance(seconds=LEASE_S * 2)
    assert await store.claim_lapsed() == []
    assert store.held == {1, 2}
    async with store.db.read() as s:
        row = await s.one("SELECT min(lease_until) FROM intake")
    assert row is not None and row[0] > store._now_ms()  # renewed by the claim


async def test_claims_take_a_batch_and_two_instances_at_once_take_each_update_once(
    db_path: Path, clock: FakeClock
) -> None:
    dead = await Store.open(db_path, clock=clock)
    await dead.admit([(u, body(u)) for u in range(1, 401)])
    dead._held.clear()  # as if the process had died: its leases are never renewed or released
    await dead.close()
    clock.advance(seconds=LEASE_S + 1)
    one = await Store.open(db_path, clock=clock)
    two = await Store.open(db_path, clock=clock)
    try:
        assert ids(await one.claim_lapsed(limit=50)) == list(range(1, 51))
        rounds = [await asyncio.gather(one.claim_lapsed(), two.claim_lapsed()) for _ in range(6)]
        taken = [u for pair in rounds for got in pair for u in ids(got)]
        assert sorted(taken) == list(range(51, 401))  # each by exactly one of them
        assert one.held | two.held == set(range(1, 401)) and not one.held & two.held
    finally:
        await one.close()
        await two.close()


async def test_a_stopping_instance_releases_what_it_holds(db_path: Path, clock: FakeClock) -> None:
    one = await Store.open(db_path, clock=clock)
    two = await Store.open(db_path, clock=clock)
    try:
        await one.admit([(u, body(u)) for u in (1, 2, 3, 4)])
        await one.release([2])  # given up by hand: another takes it at once
        assert one.held == {1, 3, 4}
        assert ids(await two.claim_lapsed()) == [2]
        await one.finish(3)
        await one.close()  # 1 and 4 unfinished: released, not left to lapse
        assert ids(await two.claim_lapsed()) == [1, 4]
        assert two.held == {1, 2, 4}
    finally:
        await one.close()
        await two.close()


@pytest.mark.postgresql_only
async def test_a_starting_instance_on_postgresql_takes_only_lapsed_leases(
    db_path: Path, clock: FakeClock
) -> None:
    running = await Store.open(db_path, clock=clock)
    dead = await Store.open(db_path, clock=clock)
    try:
        await dead.admit([(u, body(u)) for u in (1, 2, 3)])
        dead._held.clear()  # it died
        clock.advance(seconds=LEASE_S + 1)
        await running.admit([(u, body(u)) for u in (4, 5, 6)])  # live, being handled
        async with running.db.write() as s:  # a row kept before leases: no lease
            await s.execute(
                "INSERT INTO intake (update_id, body, received_at) VALUES (?, ?, 0)", (7, body(7))
            )
        starting = await Store.open(db_path, clock=clock)
        try:
            assert ids(await starting.claim_at_start()) == [1, 2, 3, 7]
            assert starting.held == {1, 2, 3, 7}
            assert await running.renew() == 3  # still the running instance's own
        finally:
            await starting.close()
    finally:
        await running.close()
        await dead.close()


@pytest.mark.sqlite_only
async def test_a_starting_process_on_sqlite_takes_every_unfinished_update(
    db_path: Path, clock: FakeClock
) -> None:
    """SQLite is one process's: the one before is gone, its live leases with it."""
    dead = await Store.open(db_path, clock=clock)
    await dead.admit([(u, body(u)) for u in (1, 2, 3)])
    await dead.finish(2)
    dead._held.clear()  # SIGKILLed: nothing released
    await dead.close()
    starting = await Store.open(db_path, clock=clock)
    try:
        assert ids(await starting.claim_at_start()) == [1, 3]
        assert starting.held == {1, 3}
        assert await starting.claim_at_start() == []  # held now, not handed out twice
    finally:
        await starting.close()


async def test_looking_for_lapsed_leases_is_one_indexed_statement(
    store: Store, engine: str
) -> None:
    """The look every instance makes every second reads the lapsed leases from their
    index, not the live ones or the table."""
    await store.admit([(u, body(u)) for u in range(1, 50)])
    for u in range(1, 40):
        await store.finish(u)
    before = store.db.trips
    assert await store.claim_lapsed() == []
    assert store.db.trips - before == 1
    explain = "EXPLAIN QUERY PLAN" if engine == "sqlite" else "EXPLAIN"
    async with store.db.read() as s:
        if engine == "postgresql":
            await s.execute("SET enable_seqscan = off")  # a tiny table: as if large
        plan = await s.all(
            f"{explain} SELECT update_id FROM intake "
            "WHERE done_at IS NULL AND lease_until < ? ORDER BY lease_until, update_id LIMIT ?",
            (0, 100),
        )
        if engine == "postgresql":
            await s.execute("RESET enable_seqscan")
    detail = " ".join(str(r[-1]) for r in plan)
    assert "intake_leases" in detail, detail
    assert "TEMP B-TREE" not in detail and "Sort" not in detail, detail  # read in order


@pytest.mark.postgresql_only
async def test_a_renewal_waits_for_no_row_lock(
    store: Store, clock: FakeClock, db_path: Path
) -> None:
    """A row locked by another statement (a done mark, a claim) is skipped, not waited
    for (waiting could deadlock with that statement), and stays held."""
    import psycopg

    await store.admit([(1, body(1)), (2, body(2))])
    clock.advance(seconds=LEASE_S / 2)
    async with await psycopg.AsyncConnection.connect(str(db_path)) as other:
        await other.execute("SELECT 1 FROM intake WHERE update_id = 1 FOR UPDATE")
        assert await asyncio.wait_for(store.renew(), 5) == 2
        await other.rollback()
    assert store.held == {1, 2}
    async with store.db.read() as s:
        rows = await s.all("SELECT update_id, lease_until FROM intake ORDER BY update_id")
    start = store._now_ms() - LEASE_MS // 2
    assert [tuple(r) for r in rows] == [(1, start + LEASE_MS), (2, start + LEASE_MS * 3 // 2)]
    assert await store.renew() == 2  # renewed this time

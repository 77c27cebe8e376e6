"""The durable intake: updates kept from arrival until handled, each once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from storage import Store
from tests.storage.helpers import FakeClock


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

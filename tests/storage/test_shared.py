"""State the instances of one bot share: awaited replies, job claims, the send rate,
announcements."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from storage import Store
from tests.storage.helpers import FakeClock


async def test_an_awaited_reply_is_seen_by_another_instance_and_taken_once(
    db_path: Path, clock: FakeClock, store: Store
) -> None:
    other = await Store.open(db_path, clock=clock)
    try:
        await store.expect_input("model", "42", '{"sub": 7}', ttl_ms=60_000)
        assert await other.awaited_input("model", "42") == '{"sub": 7}'
        taken = await asyncio.gather(
            store.take_input("model", "42", '{"sub": 7}'),
            other.take_input("model", "42", '{"sub": 7}'),
        )
        assert sorted(taken) == [False, True]
        assert await store.awaited_input("model", "42") is None
        await store.expect_input("model", "42", "x", ttl_ms=1000)
        clock.advance(seconds=2)
        assert await other.awaited_input("model", "42") is None  # expired
    finally:
        await other.close()


@pytest.mark.sqlite_only
async def test_an_awaited_reply_on_sqlite_is_read_from_the_table_once(
    db_path: Path, clock: FakeClock, store: Store
) -> None:
    """The bot asks with every submission whether a reply (an opened challenge) is
    awaited: on SQLite, one process's database, the store reads the table once and keeps
    it up to date with its writes (no trip each time), and gives the table's answers,
    across a restart too."""
    # the first read of the table overlaps a write: it is not kept, the write is seen
    await asyncio.gather(
        store.awaited_input("challenge", "7"),
        store.expect_input("challenge", "7", "a", ttl_ms=60_000),
        store.awaited_input("challenge", "7"),
    )
    assert await store.awaited_input("challenge", "7") == "a"
    reads = 0

    async def awaited(key: str) -> str | None:
        nonlocal reads
        before = store.db.trips
        value = await store.awaited_input("challenge", key)
        reads += store.db.trips - before
        return value

    assert await awaited("8") is None
    await store.expect_input("challenge", "8", "b", ttl_ms=1000)
    assert await awaited("8") == "b"
    assert not await store.take_input("challenge", "7", "other")
    assert await awaited("7") == "a"
    assert await store.take_input("challenge", "7", "a")
    assert await awaited("7") is None
    assert reads == 0
    clock.advance(seconds=2)
    assert await store.awaited_input("challenge", "8") is None  # expired
    await store.expect_input("model", "9", "c", ttl_ms=60_000)
    await store.close()
    again = await Store.open(db_path, clock=clock)  # a restart
    try:
        assert await again.awaited_input("model", "9") == "c"
        assert await again.awaited_input("challenge", "7") is None
        assert await again.awaited_input("challenge", "8") is None
    finally:
        await again.close()


async def test_a_scheduled_run_is_claimed_by_one_instance(
    db_path: Path, clock: FakeClock, store: Store
) -> None:
    others = [await Store.open(db_path, clock=clock) for _ in range(3)]
    try:
        claims = await asyncio.gather(
            *(
                s.claim_run("nightly-backup", "2026-03-01", ttl_ms=86_400_000)
                for s in [store, *others]
            )
        )
        assert sorted(claims) == [False, False, False, True]
        assert await store.claim_run("nightly-backup", "2026-03-02", ttl_ms=86_400_000)
    finally:
        for other in others:
            await other.close()


async def test_a_choice_kept_by_one_instance_is_read_by_another(
    db_path: Path, clock: FakeClock, store: Store
) -> None:
    other = await Store.open(db_path, clock=clock)
    try:
        await store.keep_choice("challenge_target", "natory:2026-03-01", 6256)
        await store.keep_choice("challenge_target", "natory:2026-03-02", 17)
        await store.keep_choice("challenge_target", "natory:2026-03-01", 7919)  # changed
        await store.claim_run("nightly-backup", "2026-03-01", ttl_ms=1000)  # another kind
        assert await other.choices("challenge_target") == {
            "natory:2026-03-01": 7919,
            "natory:2026-03-02": 17,
        }
        assert await other.choices("challenge") == {}  # a kind is matched whole
    finally:
        await other.close()


async def test_the_send_schedule_spaces_calls_across_instances(
    db_path: Path, clock: FakeClock, store: Store
) -> None:
    other = await Store.open(db_path, clock=clock)
    try:
        slots = await asyncio.gather(
            *(
                s.reserve_send("overall", interval_ms=50, now_ms=1_000_000)
                for s in [store, other] * 10
            )
        )
        assert sorted(slots) == [1_000_000 + 50 * i for i in range(20)]
        # an idle schedule starts again at the caller's time
        assert await other.reserve_send("overall", interval_ms=50, now_ms=2_000_000) == 2_000_000
    finally:
        await other.close()


@pytest.mark.postgresql_only  # one SQLite instance: announcements go nowhere
async def test_announcements_reach_every_instance(
    db_path: Path, clock: FakeClock, store: Store, engine: str
) -> None:
    other = await Store.open(db_path, clock=clock)
    try:
        heard: list[str] = []
        got = asyncio.Event()

        def hear(topic: str) -> None:
            heard.append(topic)
            got.set()

        await other.on_announcement(hear)
        assert store.shared and other.shared
        await store.announce("keys")
        await asyncio.wait_for(got.wait(), 5)
        assert heard == ["keys"]
    finally:
        await other.close()


async def test_a_lease_has_one_holder_across_instances_and_lapses_unrenewed(
    db_path: Path, clock: FakeClock, store: Store
) -> None:
    """Two instances take one lease at once: one holds it, renews it, and the other
    gets it only once the holder stopped renewing (died) and it lapsed."""
    other = await Store.open(db_path, clock=clock)
    try:
        taken = await asyncio.gather(
            store.take_lease("rescore.x", "a", ttl_ms=1000),
            other.take_lease("rescore.x", "b", ttl_ms=1000),
        )
        assert sorted(taken) == [False, True]
        holder, waiter = (store, other) if taken[0] else (other, store)
        first, second = ("a", "b") if taken[0] else ("b", "a")
        clock.advance(seconds=0.8)
        assert await holder.take_lease("rescore.x", first, ttl_ms=1000)  # renewed
        clock.advance(seconds=0.8)
        assert not await waiter.take_lease("rescore.x", second, ttl_ms=1000)
        await waiter.drop_lease("rescore.x", second)  # not theirs: nothing happens
        assert not await waiter.take_lease("rescore.x", second, ttl_ms=1000)
        assert await store.take_lease("other", "c", ttl_ms=1000)  # leases are by name
        clock.advance(seconds=1.5)  # the holder died: its lease lapsed
        assert await waiter.take_lease("rescore.x", second, ttl_ms=1000)
        assert not await holder.take_lease("rescore.x", first, ttl_ms=1000)
        await waiter.drop_lease("rescore.x", second)
        assert await holder.take_lease("rescore.x", first, ttl_ms=1000)
    finally:
        await other.close()


async def test_notices_are_kept_once_per_change_and_each_taken_once(
    db_path: Path, clock: FakeClock, store: Store
) -> None:
    """A re-score's notices are kept with the scores they compare with forgotten, once
    (a second maker of the same change keeps none); two senders take each once."""
    other = await Store.open(db_path, clock=clock)
    try:
        await store.keep_scores_before("primebench", "{}")
        notices = [(u, f'{{"n": {u}}}') for u in (7, 8, 9)]
        kept = await asyncio.gather(
            store.queue_notices("primebench", "b1", notices, owner="a", lease_ms=1000,
                                keep_ms=60_000),
            other.queue_notices("primebench", "b2", notices, owner="b", lease_ms=1000,
                                keep_ms=60_000),
        )  # fmt: skip
        assert sorted(kept) == [False, True]
        batch = "b1" if kept[0] else "b2"
        assert await other.notice_batches() == [batch]
        assert not await other.take_lease(f"notices.{batch}", "c", ttl_ms=1000)  # its maker's
        assert await store.queued_notices(batch) == [7, 8, 9]
        taken = await asyncio.gather(
            *(s.take_notice(batch, u) for u in (7, 8, 9) for s in (store, other))
        )
        assert sorted(t for t in taken if t is not None) == [n for _, n in notices]
        assert await store.end_notices(batch)
        assert await other.notice_batches() == []
        assert await store.scores_before("primebench") is None
    finally:
        await other.close()

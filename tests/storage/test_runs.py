"""Benchboard's runs queue: attempts claimed with a lease, finished once, taken over
after an instance dies; cancelling; costs; sponsorships; the benchboard mark."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

from storage import Store
from storage.runs import AttemptDone, NewRun
from tests.storage.helpers import FakeClock, Maker, answers


def _run(**kw: object) -> NewRun:
    base: dict[str, object] = {
        "benchmark": "natory", "model": "local/m1", "mode": "default", "attempts": 2,
        "origin": "chat", "target": 21, "requested_by": 7,
    }  # fmt: skip
    base.update(kw)
    return NewRun(**base)  # type: ignore[arg-type]


async def test_attempts_are_claimed_once_and_finish_the_run(store: Store) -> None:
    run = await store.add_run(_run())
    assert run.created and run.state == "queued"
    first = await store.claim_attempt()
    second = await store.claim_attempt()
    assert first is not None and second is not None
    assert {first[1].n, second[1].n} == {1, 2} and first[0].id == run.id
    assert await store.claim_attempt() is None  # both held
    assert await store.finish_attempt(first[1].id, AttemptDone(score=3, cost_usd=0.5))
    assert not await store.finish_attempt(first[1].id, AttemptDone(score=9))  # once
    assert (await store.get_run(run.id)).state == "queued"
    assert await store.finish_attempt(second[1].id, AttemptDone(error="provider local: 500"))
    done = await store.get_run(run.id)
    assert done.state == "done" and done.finished_at is not None
    attempts = await store.run_attempts(run.id)
    assert [a.state for a in attempts] == ["done", "failed"]
    assert attempts[0].score == 3 and attempts[1].error == "provider local: 500"


async def test_a_dead_instances_attempt_is_taken_after_its_lease(
    db_path: Path, clock: FakeClock
) -> None:
    one = await Store.open(db_path, clock=clock)
    two = await Store.open(db_path, clock=clock)
    try:
        run = await one.add_run(_run(attempts=1))
        claimed = await one.claim_attempt(lease_ms=1000)
        assert claimed is not None
        assert await two.claim_attempt() is None  # live lease
        clock.advance(seconds=0.5)
        assert await one.renew_attempts([claimed[1].id], lease_ms=1000) == 1
        clock.advance(seconds=0.8)
        assert await two.claim_attempt() is None  # renewed
        clock.advance(seconds=5)  # one died: its lease lapsed
        taken = await two.claim_attempt()
        assert taken is not None and taken[1].id == claimed[1].id
        # the dead one's late answer is not recorded over the new owner's
        assert not await one.finish_attempt(claimed[1].id, AttemptDone(score=1))
        assert await two.finish_attempt(claimed[1].id, AttemptDone(score=2))
        assert (await two.run_attempts(run.id))[0].score == 2
    finally:
        await one.close()
        await two.close()


async def test_two_instances_claiming_at_once_take_different_attempts(
    db_path: Path, clock: FakeClock
) -> None:
    stores = [await Store.open(db_path, clock=clock) for _ in range(3)]
    try:
        await stores[0].add_run(_run(attempts=5))
        got = await asyncio.gather(*(s.claim_attempt() for s in stores for _ in range(3)))
        ids = [c[1].id for c in got if c is not None]
        assert len(ids) == 5 and len(set(ids)) == 5
    finally:
        for s in stores:
            await s.close()


async def test_cancelling_stops_what_is_not_finished(store: Store) -> None:
    run = await store.add_run(_run(attempts=3))
    claimed = await store.claim_attempt()
    assert claimed is not None
    assert await store.cancel_run(run.id) == 3
    assert not await store.finish_attempt(claimed[1].id, AttemptDone(score=1))
    assert (await store.get_run(run.id)).state == "cancelled"
    assert await store.claim_attempt() is None


async def test_a_dedupe_key_queues_a_run_once(store: Store) -> None:
    first = await store.add_run(_run(dedupe="daily:natory:2026-12-02:local/m1", origin="daily"))
    again = await store.add_run(_run(dedupe="daily:natory:2026-12-02:local/m1", origin="daily"))
    assert first.created and not again.created and again.id == first.id
    assert len(await store.run_attempts(first.id)) == 2


async def test_costs_by_user_and_by_day(store: Store, clock: FakeClock) -> None:
    start = clock.now
    run = await store.add_run(_run())
    for cost in (0.25, 0.5):
        claimed = await store.claim_attempt()
        assert claimed is not None
        await store.finish_attempt(claimed[1].id, AttemptDone(cost_usd=cost))
    assert await store.spent_since(7, start) == 0.75
    assert await store.spent_since(8, start) == 0
    clock.advance(seconds=1)
    assert await store.runs_cost(start, clock.now) == [("chat", "local/m1", 2, 0.75, 0)]
    assert run.id


async def test_the_benchboard_mark_is_on_the_submission_and_its_board_row(
    store: Store, make: Maker
) -> None:
    sub = await store.record_submission(
        make(answers(1, 2, 3), user_id=0, chat_id=0, message_id=-(1 << 40))
    )
    assert sub.origin is None
    await store.mark_benchboard(sub.id)
    await store.publish(sub.id)
    found = await store.get_submission(sub.id)
    assert found is not None and found.origin == "benchboard" and found.verified
    board = await store.leaderboard("primebench")
    assert board.rows[0].benchboard and board.rows[0].mark == "benchboard"


async def test_sponsorships_are_kept_once_and_refunded_once(store: Store) -> None:
    kept = await store.add_sponsorship(
        user_id=5, benchmark="natory", target=21, name="Ada", link="https://ada.example",
        stars=50, charge_id="ch-1",
    )  # fmt: skip
    again = await store.add_sponsorship(
        user_id=5, benchmark="natory", target=21, name="Ada", link=None, stars=50,
        charge_id="ch-1",
    )  # fmt: skip
    assert kept.created and not again.created and again.id == kept.id
    assert await store.sponsors("natory", 21) == []  # shown once its runs are queued
    await store.add_run(_run(origin="sponsor", sponsorship_id=kept.id))
    assert [s.name for s in await store.sponsors("natory", 21)] == ["Ada"]
    assert await store.refund_sponsorship(kept.id)
    assert not await store.refund_sponsorship(kept.id)
    assert await store.sponsors("natory", 21) == []


async def test_a_start_on_sqlite_takes_what_the_previous_process_left(
    db_path: Path, clock: FakeClock, engine: str
) -> None:
    one = await Store.open(db_path, clock=clock)
    await one.add_run(_run(attempts=1))
    assert await one.claim_attempt() is not None
    await one.close()  # (as if it died: the lease is still its own)
    two = await Store.open(db_path, clock=clock)
    try:
        released = await two.reclaim_at_start()
        taken = await two.claim_attempt()
        if engine == "sqlite":
            assert released == 1 and taken is not None
        else:  # another instance may be running it: its lease stands
            assert released == 0 and taken is None
    finally:
        await two.close()


async def test_paid_runs_do_not_use_the_chat_budget(store: Store, clock: FakeClock) -> None:
    start = clock.now
    await store.add_run(_run(origin="sponsor", attempts=1))
    claimed = await store.claim_attempt()
    assert claimed is not None
    await store.finish_attempt(claimed[1].id, AttemptDone(cost_usd=1.0))
    assert await store.spent_since(7, start) == 0


async def test_a_runs_cards_are_sent_once_and_a_dead_senders_are_sent_after_its_lease(
    db_path: Path, clock: FakeClock, engine: str
) -> None:
    one = await Store.open(db_path, clock=clock)
    two = await Store.open(db_path, clock=clock)
    try:
        run = await one.add_run(_run(chat_id=7))
        for sub in (101, 102):
            claimed = await one.claim_attempt()
            assert claimed is not None
            await one.finish_attempt(claimed[1].id, AttemptDone(submission_id=sub, score=1))
        since = clock.now - timedelta(hours=1)
        [(found, attempts)] = await two.unsent_cards(since)
        assert found.id == run.id and [a.submission_id for a in attempts] == [101, 102]
        first, second = (a.id for a in attempts)
        assert await one.claim_card(first, lease_ms=1000)
        assert not await two.claim_card(first, lease_ms=1000)  # one is sending it
        assert await two.claim_card(second, lease_ms=1000)
        await two.card_sent(second)
        assert await two.unsent_cards(since) == []  # one sent, one being sent
        clock.advance(seconds=5)  # one died before its send: its claim lapsed
        [(_, left)] = await two.unsent_cards(since)
        assert [a.id for a in left] == [first]
        assert not await one.claim_card(second, lease_ms=1000)  # sent: never again
        await one.claim_card(first, lease_ms=60_000)
        await one.close()  # (as if it died: its claim stands)
        three = await Store.open(db_path, clock=clock)
        try:
            released = await three.release_cards_at_start()
            left_now = await three.unsent_cards(since)
            if engine == "sqlite":  # its process is gone: sent by this one at once
                assert released == 1 and [[a.id for a in b] for _, b in left_now] == [[first]]
            else:  # another instance may be sending it: its claim stands
                assert released == 0 and left_now == []
        finally:
            await three.close()
    finally:
        await two.close()


async def test_an_attempt_given_back_keeps_what_its_answered_calls_made(
    store: Store, clock: FakeClock
) -> None:
    run = await store.add_run(_run(attempts=1))
    claimed = await store.claim_attempt()
    assert claimed is not None and claimed[1].kept is None
    kept = AttemptDone(input_tokens=10, output_tokens=4, cost_usd=0.25, transcript='{"kept": 1}')
    await store.release_attempt(claimed[1].id, after_ms=1000, kept=kept)
    assert await store.claim_attempt() is None  # not before its wait is over
    assert await store.spent_today(7) == 0.25  # paid for: counted at once
    clock.advance(seconds=2)
    again = await store.claim_attempt()
    assert again is not None and again[1].kept == '{"kept": 1}' and again[1].cost_usd == 0.25
    await store.finish_attempt(again[1].id, AttemptDone(score=1, cost_usd=0.5, transcript="{}"))
    [done] = await store.run_attempts(run.id)
    assert done.cost_usd == 0.5 and await store.spent_today(7) == 0.5

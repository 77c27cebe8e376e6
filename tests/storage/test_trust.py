"""The trust room: answer sets found by their band hashes (bounded, other users only),
indexed by the database when published or held, held results with the admins'
decisions, notice opt-outs, published scores."""

from __future__ import annotations

import asyncio
from typing import Any

from storage import Store
from storage.trust import EXTRA
from tests.storage.helpers import FakeClock, Maker
from tests.storage.test_boards import options_scoring


async def _private(
    store: Store, make: Maker, user_id: int, model: str = "M", kept: Any = None
) -> int:
    """A private submission; ``kept``: what the copy check keeps in its ``extra``."""
    extra = None if kept is None else {EXTRA: kept, "provider_note": 1}
    sub = await store.record_submission(
        make(options_scoring(make, 5, 1), user_id=user_id, model=model, extra=extra)
    )
    return sub.id


def _kept(answers: str, *bands: int) -> dict[str, Any]:
    return {"answers": answers, "bands": list(bands), "flag": {"reason": "key"}}


async def test_published_answer_sets_are_found_by_band_hash_of_other_users(
    store: Store, make: Maker
) -> None:
    a = await _private(store, make, 1, kept=_kept("1,2,3", 11, 22, 33, 33))
    b = await _private(store, make, 2, kept=_kept("1,2,4", 11, 44))
    c = await _private(store, make, 3)  # nothing kept: nothing indexed
    odd = await _private(store, make, 5, kept={"answers": 7, "bands": [99]})  # not a set
    bad = await _private(store, make, 6, kept=_kept("1,2,5", 99, "99", 1.5, 2**64))  # 64-bit
    for sub_id in (a, b, c, odd, bad):
        await store.publish(sub_id)
    await store.withdraw(b, 2)
    await store.publish(b)  # published again: indexed once
    private = await _private(store, make, 4, kept=_kept("9,9,9", 11))  # never published
    found = await store.candidates("primebench", [11, 22, 99], user_id=3)
    assert [(f.submission_id, f.user_id, f.answers, f.hits) for f in found] == [
        (a, 1, "1,2,3", 2),
        (b, 2, "1,2,4", 1),
        (bad, 6, "1,2,5", 1),
    ]
    # the asker's own answer sets are never candidates; bounded per hash and in all
    assert [f.submission_id for f in await store.candidates("primebench", [11], user_id=1)] == [b]
    assert len(await store.candidates("primebench", [11], user_id=3, per_band=1)) == 1
    assert len(await store.candidates("primebench", [11, 22], user_id=3, limit=1)) == 1
    assert await store.candidates("primebench", [], user_id=3) == []
    assert await store.candidates("nosuch", [11], user_id=3) == []
    assert await store.recent_answers("primebench") == ["1,2,5", "1,2,4", "1,2,3"]
    assert private


async def test_checks_asking_at_once_share_a_trip_and_each_gets_its_own_candidates(
    store: Store, make: Maker
) -> None:
    """Reads of candidates asked while one is out go together in one statement; each
    gets what it would alone (its own hashes, user, bounds and page, in its order)."""
    for user in range(1, 9):
        bands = [100 + b for b in range(user % 4 + 1)] + [200 + user]
        sub_id = await _private(store, make, user, kept=_kept(f"{user},1,2", *bands))
        await store.publish(sub_id)
    asked: list[dict[str, Any]] = [
        {"bands": [100 + b for b in range(n % 5)] + [200 + n, 7], "user_id": n % 9}
        | ({"limit": 2, "offset": n % 3} if n % 2 else {})
        | ({"per_band": 1} if n % 7 == 3 else {})
        for n in range(40)
    ]
    alone = [await store.candidates("primebench", **a) for a in asked]
    assert sum(1 for found in alone if len(found) > 1) > 10  # a test of the order too
    trips = store.db.trips
    together = await asyncio.gather(*(store.candidates("primebench", **a) for a in asked))
    assert list(together) == alone
    assert store.db.trips - trips < len(asked) / 4


async def test_a_held_result_stays_off_the_boards_until_released_or_rejected(
    store: Store, make: Maker, clock: FakeClock
) -> None:
    held = await _private(store, make, 5, "Copy", kept=_kept("1,1", 7))
    other = await _private(store, make, 6, "Copy2")
    sub = await store.get_submission(held)
    assert sub is not None
    flag = await store.hold(sub, '{"reason": "key"}')
    assert flag.state == "held" and flag.submission.id == held and flag.reason.startswith("{")
    again = await store.hold(sub, "{}")  # held once: the first time stands
    assert again.held_at == flag.held_at and again.reason == flag.reason
    clock.advance(minutes=1)
    sub2 = await store.get_submission(other)
    assert sub2 is not None
    await store.hold(sub2, '{"reason": "copy"}')
    assert (await store.leaderboard("primebench")).rows == ()
    listed, total = await store.held_results()
    assert total == 2 and [f.submission.id for f in listed] == [other, held]  # newest first
    assert (await store.held_results(chat_id=sub.chat_id, limit=1, offset=1))[1] == 2
    assert (await store.held_results(chat_id=-999))[1] == 0
    # the held answer set is a candidate for later checks
    assert [f.submission_id for f in await store.candidates("primebench", [7], user_id=9)] == [held]

    await store.publish(held)
    assert await store.decide(held, "released", by=1) is True
    assert await store.decide(held, "rejected", by=1) is False  # decided already
    await store.reject(other)
    assert await store.decide(other, "rejected", by=1) is True
    flag = await store.flag_of(held)
    assert flag is not None and flag.state == "released" and flag.decided_by == 1
    assert [r.model for r in (await store.leaderboard("primebench")).rows] == ["Copy"]
    assert (await store.held_results())[1] == 0
    rejected = await store.get_submission(other)
    assert rejected is not None and rejected.visibility.value == "hidden"
    assert await store.flag_of(123456) is None


async def test_notices_opt_out_and_published_scores(store: Store, make: Maker) -> None:
    assert await store.notices_off([1, 2]) == set()
    await store.set_notices(1, False)
    await store.set_notices(2, False)
    await store.set_notices(2, True)
    assert await store.notices_off([1, 2, 3]) == {1}
    a = await _private(store, make, 1)
    await _private(store, make, 2)  # private: not among the published
    await store.publish(a)
    scores = await store.published_scores("primebench")
    assert list(scores.ids) == [a] and list(scores.users) == [1]
    assert list(scores.scores) == [(await store.get_submission(a)).score]  # type: ignore[union-attr]
    assert await store.models_of([a, a, 999]) == {a: "M"}


async def test_indexing_a_published_answer_set_costs_no_trip(store: Store, make: Maker) -> None:
    """The database indexes the answer set itself (a trigger), in the publishing
    statement's transaction: publishing a checked result takes the trips of any other."""
    plain = await _private(store, make, 1, "Plain")
    checked = await _private(store, make, 2, "Checked", kept=_kept("1,2,3", 5, 6))
    trips = []
    for sub_id in (plain, checked):
        before = store.db.trips
        await store.publish(sub_id)
        trips.append(store.db.trips - before)
    assert trips[0] == trips[1]
    assert [c.submission_id for c in await store.candidates("primebench", [6], user_id=9)] == [
        checked
    ]

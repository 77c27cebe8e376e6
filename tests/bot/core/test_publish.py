"""Publishing and withdrawing, straight through ``bot.core.submissions`` on a real
store: the daily limit refuses the next one (checked in the publication's own
transaction), a withdrawn result leaves the boards, mode and model are fixed once
published."""

from __future__ import annotations

import asyncio

import pytest

from bot.core import boards, submissions
from bot.core.errors import DailyLimit, UserError
from bot.core.services import Services
from storage import Store, Visibility
from tests.storage.helpers import FakeClock

from .conftest import BOTH, DAILY_LIMIT, engine_free
from .usecases import Submitter, answer_text

ENGINES = BOTH


async def test_the_daily_limit_refuses_the_next_publication(
    services: Services, store: Store
) -> None:
    post = Submitter(services)
    subs = [await post.submit(answer_text(10 + i, model=f"M{i}")) for i in range(DAILY_LIMIT + 1)]
    left = [(await submissions.publish(services, s)).left for s in subs[:DAILY_LIMIT]]
    assert left == list(range(DAILY_LIMIT - 1, -1, -1))
    assert await submissions.allowance(services, 1) == (0, DAILY_LIMIT)
    with pytest.raises(DailyLimit) as refused:
        await submissions.publish(services, subs[-1])
    assert refused.value.key == "limit_reached" and refused.value.limit == DAILY_LIMIT
    assert (await store.get_submission(subs[-1].id)).visibility is Visibility.PRIVATE  # type: ignore[union-attr]
    assert await store.published_today(1) == DAILY_LIMIT
    # someone else's allowance is their own
    other = await post.submit(answer_text(5, model="M"), user_id=2)
    assert (await submissions.publish(services, other)).left == DAILY_LIMIT - 1


@engine_free
async def test_the_limit_counts_a_day_of_the_store_clock(
    services: Services, store: Store, clock: FakeClock
) -> None:
    post = Submitter(services)
    for i in range(DAILY_LIMIT):
        await post.published(10, model=f"M{i}")
    late = await post.submit(answer_text(9, model="Late"))
    with pytest.raises(DailyLimit):
        await submissions.publish(services, late)
    clock.advance(days=1)
    done = await submissions.publish(services, late)
    assert done.submission.visibility is Visibility.PUBLISHED and done.left == DAILY_LIMIT - 1


async def test_withdrawn_and_published_again_counts_once(services: Services) -> None:
    post = Submitter(services)
    subs = [await post.published(10 + i, model=f"M{i}") for i in range(DAILY_LIMIT)]
    await submissions.withdraw(services, subs[0].id, 1)
    again = await submissions.publish(services, await submissions.owned(services, subs[0].id, 1))
    assert again.submission.visibility is Visibility.PUBLISHED and again.left == 0
    with pytest.raises(DailyLimit):
        await submissions.publish(services, await post.submit(answer_text(3, model="New")))


async def test_concurrent_presses_publish_exactly_the_allowance(
    services: Services, store: Store
) -> None:
    post = Submitter(services)
    subs = [await post.submit(answer_text(10 + i, model=f"M{i}")) for i in range(DAILY_LIMIT + 3)]
    outcomes = await asyncio.gather(
        *(submissions.publish(services, s) for s in subs), return_exceptions=True
    )
    refused = [o for o in outcomes if isinstance(o, DailyLimit)]
    assert len(refused) == 3
    assert sum(isinstance(o, submissions.Published) for o in outcomes) == DAILY_LIMIT
    assert await store.published_today(1) == DAILY_LIMIT
    assert (await store.leaderboard("primebench")).total == DAILY_LIMIT


@engine_free
async def test_publishing_needs_a_mode_and_a_model(services: Services, store: Store) -> None:
    post = Submitter(services)
    nameless = await post.submit(answer_text(12, mode="think"))
    assert nameless.model is None
    with pytest.raises(UserError) as refused:
        await submissions.publish(services, nameless)
    assert refused.value.key == "need_mode_model"
    assert await store.published_today(1) == 0  # a refusal uses nothing of the day
    named = await submissions.set_model(services, nameless.id, "Late Name")
    done = await submissions.publish(services, named)
    assert done.submission.model == "Late Name" and done.left == DAILY_LIMIT - 1
    # once published, the model and mode stay; publishing again changes nothing
    for change in (submissions.set_model(services, named.id, "Other"),
                   submissions.set_mode(services, done.submission, "tools")):  # fmt: skip
        with pytest.raises(UserError) as fixed:
            await change
        assert fixed.value.key == "fixed_once_published"
    again = await submissions.publish(services, done.submission)
    assert again.already and await store.published_today(1) == 1
    with pytest.raises(UserError) as gone:
        await submissions.set_mode(services, nameless, "sideways")
    assert gone.value.key == "gone"


@engine_free
async def test_equal_answers_are_one_run(services: Services) -> None:
    post = Submitter(services)
    first = await post.published(20, model="Twin")
    second = await post.submit(answer_text(20, model="Twin"))
    done = await submissions.publish(services, second)
    assert done.twin == first.id
    row = (await services.store.leaderboard("primebench")).rows[0]
    assert row.runs == 1 and row.submission_id == first.id


async def test_a_withdrawn_result_leaves_the_boards(services: Services) -> None:
    post = Submitter(services)
    best = await post.published(40, model="Alpha", user_id=1)
    await post.published(30, model="Alpha", user_id=1)
    await post.published(35, model="Beta", user_id=2)
    query = boards.BoardQuery("primebench", "g", None, 0, 0)
    before = (await boards.page(services, query, chat_id=-100, user_id=1)).board.rows
    assert [(r.model, r.best, r.runs) for r in before] == [("Alpha", 40, 2), ("Beta", 35, 1)]
    withdrawn = await submissions.withdraw(services, best.id, 1)
    assert withdrawn.visibility is Visibility.WITHDRAWN
    for scope in ("g", "c", "u"):
        scoped = boards.BoardQuery("primebench", scope, None, 0, 0)
        shown = await boards.page(services, scoped, chat_id=-100, user_id=1)
        assert best.id not in {r.submission_id for r in shown.board.rows}
    after = (await boards.page(services, query, chat_id=-100, user_id=1)).board.rows
    assert [(r.model, r.best, r.runs) for r in after] == [("Beta", 35, 1), ("Alpha", 30, 1)]
    with pytest.raises(UserError) as twice:
        await submissions.withdraw(services, best.id, 1)
    assert twice.value.key == "already_withdrawn" and twice.value.values == {"id": best.id}
    # it can be edited again, and published again (the same day: counted once)
    assert submissions.editable(withdrawn)
    back = await submissions.publish(services, withdrawn)
    assert back.submission.visibility is Visibility.PUBLISHED
    assert (await services.store.leaderboard("primebench")).rows[0].best == 40


@engine_free
async def test_only_the_owner_withdraws(services: Services) -> None:
    post = Submitter(services)
    sub = await post.published(10, user_id=1)
    for submission_id, user_id, key in ((sub.id, 2, "not_yours"), (sub.id + 99, 1, "not_found")):
        with pytest.raises(UserError) as refused:
            await submissions.withdraw(services, submission_id, user_id)
        assert refused.value.key == key
    assert (await services.store.get_submission(sub.id)).visibility is Visibility.PUBLISHED  # type: ignore[union-attr]


@engine_free
async def test_a_shared_link_opens_published_results_and_ones_own(services: Services) -> None:
    post = Submitter(services)
    private = await post.submit(answer_text(4, model="P"), user_id=1)
    published = await post.published(5, model="Q", user_id=1)
    assert (await submissions.shared(services, published.id, 2)).id == published.id
    assert (await submissions.shared(services, private.id, 1)).id == private.id
    with pytest.raises(UserError) as refused:
        await submissions.shared(services, private.id, 2)
    assert refused.value.key == "not_found"


@engine_free
async def test_a_hidden_result_is_not_published_again_by_its_owner(
    services: Services, store: Store
) -> None:
    """A stale Publish button (a second card of the same submission) pressed after an
    admin hid the result: the owner is told, as for every other refused press."""
    post = Submitter(services)
    sub = await post.published(10)
    await store.hide(sub.id)
    with pytest.raises(UserError) as refused:
        await submissions.publish(services, await submissions.owned(services, sub.id, 1))
    assert refused.value.key == "gone"
    found = await store.get_submission(sub.id)
    assert found is not None and found.visibility is Visibility.HIDDEN

"""The daily challenge benchmark (Natory) through the use cases on a real store: a
result is scored against its target (the day's when it names none), the same
simplified expression earns the first-with-it bonus once, a result that misses the
target is never published, and its web board's rows are the chat board's."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.core import admin, challenges, submissions, submit, webboards
from bot.core.errors import UserError
from bot.core.services import Services
from bot.render.webviews import WebQuery
from scoring import registry
from storage import Visibility

from .conftest import BOT_ADMIN, BOTH, engine_free
from .usecases import Submitter

ENGINES = BOTH
NATORY = registry.get("natory")
ALPHA = "#natory #default\ntarget: 6256\nmodel: Alpha\ncost: $0.02\nlatency: 4s\n2*sopfr(6)^5+6"
BETA = "#natory #think\ntarget: 6256\nmodel: Beta\ncost: 0.001\n(2*sopfr(6)^5+6)"
SLOW = "#natory #think\ntarget: 6256\nmodel: Beta\nlatency: 3200ms\n2*5^5+6"


async def published(post: Submitter, text: str, user_id: int) -> float:
    sub = await post.submit(text, user_id=user_id)
    done = await submissions.publish(post.services, sub)
    assert done.submission.visibility is Visibility.PUBLISHED
    return sub.score


async def test_a_result_is_scored_against_its_target(services: Services) -> None:
    post = Submitter(services)
    first = await post.submit(ALPHA, user_id=1)
    assert first.score == 138.0 and first.record["target"] == 6256
    assert dict(first.extra) == {"target": 6256, "cost": 0.02, "latency": 4.0}
    await submissions.publish(services, first)
    # the same simplified expression again: no first-with-it bonus
    assert await published(post, BETA, 2) == 133.0
    assert await published(post, SLOW, 2) == 46.0
    board, targets = await challenges.board(services, NATORY, 6256)
    assert [(r.rank, r.model, r.mode, r.best, r.mean, r.attempts) for r in board.rows] == [
        (1, "Alpha", "default", 138.0, 138.0, 1), (2, "Beta", "think", 133.0, 89.5, 2)
    ]  # fmt: skip
    assert board.rows[0].best_expression == "2 * sopfr(6)^5 + 6" and targets == ()
    _, every = await challenges.board(services, NATORY, None)
    assert every == ((6256, 3),)


async def test_the_web_board_is_the_chat_board(services: Services) -> None:
    post = Submitter(services)
    for text, user_id in ((ALPHA, 1), (BETA, 2), (SLOW, 2)):
        await published(post, text, user_id)
    chat, _ = await challenges.board(services, NATORY, None)
    web = await webboards.board(services, WebQuery("natory"))
    assert [(r.rank, r.model, r.mode, r.values["score"], r.values["mean"], r.values["attempts"])
            for r in web.rows] == [
        (r.rank, r.model, r.mode, r.best, r.mean, r.attempts) for r in chat.rows
    ]  # fmt: skip
    assert [(r.values["cost"], r.values["latency"]) for r in web.rows] == [
        (r.mean_cost, r.mean_latency) for r in chat.rows
    ]
    assert web.rows[0].cells["cost"] == "$0.02" and web.rows[0].cells["latency"] == "4 s"
    assert [c.key for c in web.columns] == ["mean", "score", "attempts", "cost", "latency"]
    assert {(p.label, p.mode) for p in web.chart} == {("Alpha", "default"), ("Beta", "think")}
    comparison = await challenges.comparison(services, NATORY)
    assert [r.model for r in comparison.rows] == [r.model for r in chat.rows]


@engine_free
async def test_a_result_that_misses_its_target_is_not_published(services: Services) -> None:
    post = Submitter(services)
    miss = await post.submit("#natory\ntarget: 6256\nmodel: Off\n2*5^5+7", user_id=1)
    assert miss.score == 0.0
    with pytest.raises(UserError) as refused:
        await submissions.publish(services, miss)
    assert refused.value.key == "not_publishable" and refused.value.values == {"id": miss.id}
    assert await services.store.published_today(1) == 0
    board, _ = await challenges.board(services, NATORY, 6256)
    assert board.rows == ()


@engine_free
async def test_without_a_target_the_days_is_used(services: Services) -> None:
    today = challenges.today(services.settings, NATORY).target
    sub, _ = await submit.submit(services, text=f"#natory\nmodel: T\n{today}", user_id=1,
                                 chat_id=-1, message_id=1)  # fmt: skip
    assert sub.record["target"] == today and sub.extra["target"] == today


@engine_free
@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("#natory\ntarget: 6256\ncost: -1\n2*5^5+6", "bad_cost", "-1"),
        ("#natory\ntarget: 6256\nlatency: soon\n2*5^5+6", "bad_latency", "soon"),
        ("#natory\ntarget: 12x\n2*5^5+6", "bad_target", "12x"),
    ],
)
async def test_bad_challenge_fields_are_refused(
    services: Services, text: str, key: str, value: str
) -> None:
    with pytest.raises(UserError) as refused:
        await submit.submit(services, text=text, user_id=1, chat_id=-1, message_id=1)
    assert refused.value.key == key and refused.value.values == {"value": value}
    assert await services.store.count_history(1) == 0


@engine_free
def test_a_typed_target() -> None:
    assert challenges.target(NATORY, "6256") == 6256
    with pytest.raises(UserError) as refused:
        challenges.target(NATORY, "<x>" * 20)
    assert refused.value.key == "daily_bad_target"
    assert refused.value.values == {"word": ("<x>" * 20)[:40], "command": "natory"}


@engine_free
async def test_a_bot_admin_chooses_the_days_target(services: Services) -> None:
    bot_admin = admin.Actor(BOT_ADMIN, BOT_ADMIN, False, True, False)
    challenge, day = await admin.set_challenge_target(services, bot_admin, NATORY, ["7777"])
    assert challenge.target == 7777 and day == datetime.now(UTC).date().isoformat()
    assert challenges.today(services.settings, NATORY).target == 7777
    sub, _ = await submit.submit(services, text="#natory\nmodel: T\n7777", user_id=1,
                                 chat_id=-1, message_id=1)  # fmt: skip
    assert sub.record["target"] == 7777
    (entry,) = await admin.audit(services, bot_admin)
    assert (entry.action, entry.target) == ("natory_target", f"{day}=7777")
    for who, args, key in (
        (admin.Actor(5, -100, True, False, True), ["7778"], "bot_admin_only"),
        (bot_admin, [], "daily_set_usage"),
        (bot_admin, ["nope"], "daily_set_usage"),
        (bot_admin, ["7778", "2026-13-40"], "daily_set_usage"),
    ):
        with pytest.raises(UserError) as refused:
            await admin.set_challenge_target(services, who, NATORY, args)
        assert refused.value.key == key
    assert challenges.today(services.settings, NATORY).target == 7777

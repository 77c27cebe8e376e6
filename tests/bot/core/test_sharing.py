"""Sharing use cases, straight through ``bot.core.sharing`` and ``bot.core.links`` on a
real store: a shared token resolves back to its result until the result leaves the
boards; who may share or challenge what; the card's content; inline results; the top
board image's rows."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.core import admin, boards, challenges, links, sharing, submissions
from bot.core.challenges import set_target
from bot.core.errors import UserError
from bot.core.services import Services
from scoring import registry
from storage import Store

from .conftest import BOT_ADMIN, BOTH, engine_free
from .usecases import Submitter, answer_text

ENGINES = BOTH
PRIME = registry.get("primebench")


async def test_a_shared_token_resolves_back_to_its_result(services: Services, store: Store) -> None:
    post = Submitter(services)
    sub = await post.published(30, model="Shared", user_id=4)
    token = await links.result_token(services, sub, created_by=4)
    challenge = await links.challenge_token(services, sub, created_by=5)
    assert token != challenge
    for payload in (links.payload("result", token), links.payload("challenge", challenge)):
        opened = await links.open_payload(services, payload)
        assert opened is not None and opened.submission is not None
        assert opened.submission.id == sub.id and opened.submission.score == 30.0
    # withdrawn: neither opens; published again: the same links open it again
    await submissions.withdraw(services, sub.id, 4)
    assert await links.open_result(services, token) is None
    assert await links.open_challenge(services, challenge) is None
    assert await links.open_payload(services, links.payload("result", token)) is None
    back = await submissions.publish(services, await submissions.owned(services, sub.id, 4))
    assert await links.result_token(services, back.submission) == token
    opened_again = await links.open_result(services, token)
    assert opened_again is not None and opened_again.id == sub.id
    # a token of one kind does not open another kind
    assert await links.open_challenge(services, token) is None
    assert await links.open_group(services, token) is None


@engine_free
async def test_a_group_token_opens_its_group(services: Services, store: Store) -> None:
    await store.upsert_chat(-100, type="supergroup", title="The Lab")
    token = await links.group_token(services, -100, created_by=1)
    opened = await links.open_payload(services, links.payload("group", token))
    assert opened is not None and opened.kind == "group" and opened.chat_id == -100
    assert await sharing.group_title(services, -100) == "The Lab"
    assert await sharing.group_title(services, -404) is None


@engine_free
async def test_who_may_share_and_challenge(services: Services) -> None:
    post = Submitter(services)
    private = await post.submit(answer_text(10, model="P"), user_id=1)
    published = await post.published(12, model="Q", user_id=1)
    for submission_id, user_id, key in (
        (private.id, 1, "publish_first"),
        (published.id + 50, 1, "publish_first"),
        (published.id, 2, "not_yours"),
    ):
        with pytest.raises(UserError) as refused:
            await sharing.to_share(services, submission_id, user_id)
        assert refused.value.key == key
    assert (await sharing.to_share(services, published.id, 1)).id == published.id
    # anyone may be challenged to beat a result on the boards
    assert (await sharing.to_challenge(services, published.id, 2)).id == published.id
    with pytest.raises(UserError) as refused:
        await sharing.to_challenge(services, private.id, 1)
    assert refused.value.key == "publish_first"
    # a card shared before its result left the boards: its owner may publish a withdrawn
    # one again, nobody else can (nor anyone a hidden one): it is on no board now
    await submissions.withdraw(services, published.id, 1)
    hidden = await post.published(14, model="H", user_id=1)
    bot_admin = admin.Actor(BOT_ADMIN, BOT_ADMIN, False, True, False)
    await admin.moderate(services, bot_admin, "hide", [str(hidden.id)])
    for submission_id, user_id, key in (
        (published.id, 1, "publish_first"),
        (published.id, 2, "share_unavailable"),
        (hidden.id, 1, "share_unavailable"),
        (hidden.id, 2, "share_unavailable"),
    ):
        for use in (sharing.to_share, sharing.to_challenge):
            with pytest.raises(UserError) as refused:
                await use(services, submission_id, user_id)
            assert refused.value.key == key, (submission_id, user_id, use)
    with pytest.raises(UserError) as refused:
        await links.result_token(services, private)
    assert refused.value.key == "not_shareable" and refused.value.values == {"id": private.id}
    with pytest.raises(UserError) as refused:
        await sharing.card_view(services, private, lang="en")
    assert refused.value.key == "not_shareable"


@engine_free
async def test_a_card_shows_the_result_as_it_stands(services: Services, store: Store) -> None:
    post = Submitter(services)
    sub = await post.published(30, 1, model="Carded", mode="think", user_id=1)
    await post.published(50, model="Better", user_id=2)
    view = await sharing.card_view(services, sub, lang="fa")
    assert (view.model, view.mode, view.rank, view.verified) == ("Carded", "think", 2, False)
    assert view.result.primary == 27.0 and view.lang == "fa" and view.theme == "light"
    assert view.key_sha == services.keys["primebench"].version.sha256
    assert view.bot_username == "benchboard_bot" and view.challenge is None
    await sharing.set_theme(services, 1, " Dark ")
    assert await sharing.theme(services, 1) == "dark"
    bot_admin = admin.Actor(BOT_ADMIN, BOT_ADMIN, False, True, False)
    verified = await admin.moderate(services, bot_admin, "verify", [str(sub.id)])
    now = await sharing.card_view(services, verified, lang="fa")
    assert now.verified and now.theme == "dark"
    assert sharing.card_key(now, sub.id) != sharing.card_key(view, sub.id)
    with pytest.raises(UserError) as refused:
        await sharing.set_theme(services, 1, "sepia")
    assert refused.value.key == "theme_usage"
    assert await sharing.theme(services, 1) == "dark"


@engine_free
async def test_inline_results_are_the_users_published_ones(services: Services) -> None:
    post = Submitter(services)
    services.settings.daily_limit = 20
    for i in range(12):
        await post.published(10 + i, model=f"Alpha {i}" if i % 2 else f"Beta {i}", user_id=1)
    await post.submit(answer_text(5, model="Alpha Private"), user_id=1)
    await post.published(40, model="Alpha Other", user_id=2)
    first = await sharing.inline_results(services, 1, "")
    assert len(first) == sharing.INLINE_PAGE and first[0].model == "Alpha 11"
    ids = [s.id for s in first + await sharing.inline_results(services, 1, "", offset=10)]
    assert len(ids) == 12 and ids == sorted(ids, reverse=True)  # newest first
    alphas = await sharing.inline_results(services, 1, "ALPHA")
    assert sorted(s.model or "" for s in alphas) == sorted(f"Alpha {i}" for i in range(1, 12, 2))
    assert await sharing.inline_results(services, 1, "zerobench") == []
    assert len(await sharing.inline_results(services, 1, "primebench")) == sharing.INLINE_PAGE


@engine_free
async def test_the_top_image_shows_the_boards_top(services: Services) -> None:
    post = Submitter(services)
    for i in range(7):
        await post.published(20 + 3 * i, model=f"M{i}", user_id=10 + i)
    top = await sharing.top_view(services, ["top", "primebench"], lang="en", theme_="dark")
    board = await boards.page(services, boards.BoardQuery("primebench", "g", None, 0, 0),
                              chat_id=-100, user_id=1)  # fmt: skip
    assert [(r.rank, r.model, r.score) for r in top.rows] == [
        (r.rank, r.model, PRIME.format_score(r.best)) for r in board.board.rows[: sharing.TOP_ROWS]
    ]
    assert top.key_version == 1 and top.theme == "dark"
    view = sharing.board_view(board, lang="en", theme_="light")
    assert [r.model for r in view.rows] == [r.model for r in board.board.rows]
    image = await sharing.board_image(services, view)
    assert image.file_id is None
    await sharing.uploaded(services, image, "AgAC-board")
    assert (await sharing.board_image(services, view)).file_id == "AgAC-board"


@engine_free
async def test_the_daily_top_image_keeps_the_rows_marks(services: Services) -> None:
    """``@bot top natory``: a verified attempt keeps its mark on the image, as on the
    challenge board (each row's best attempt's)."""
    natory = registry.get("natory")
    target = set_target(services.settings.data_dir, natory, datetime.now(UTC).date(), "6256")
    assert challenges.today(services.settings, natory).target == target.target == 6256
    post = Submitter(services)
    subs = []
    for user_id, model in ((1, "Checked"), (2, "Claimed")):
        sub = await post.submit(f"#natory #default\ntarget: 6256\nmodel: {model}\n2*5^5+6",
                                user_id=user_id)  # fmt: skip
        subs.append((await submissions.publish(services, sub)).submission)
    bot_admin = admin.Actor(BOT_ADMIN, BOT_ADMIN, False, True, False)
    await admin.moderate(services, bot_admin, "verify", [str(subs[0].id)])
    top = await sharing.top_view(services, ["natory"], lang="en", theme_="light")
    assert top.target == 6256
    assert {r.model: (r.verified, r.benchboard) for r in top.rows} == {
        "Checked": (True, False),
        "Claimed": (False, False),
    }

"""A group upgraded to a supergroup, through ``bot.core.groups`` on a real store: its
board, export, web board link, admins' powers and audit log follow it to the new id."""

from __future__ import annotations

import pytest

from bot.core import admin, boards, groups, links
from bot.core.errors import UserError
from bot.core.services import Services

from .conftest import BOTH, engine_free
from .usecases import Submitter

ENGINES = BOTH

OLD, NEW = -4001, -1004001
#: An administrator of the group (Telegram says so in either chat).
GROUP_ADMIN = 70


def group_admin(chat_id: int) -> admin.Actor:
    return admin.Actor(GROUP_ADMIN, chat_id, in_group=True, bot_admin=False, group_admin=True)


def group_board() -> boards.BoardQuery:
    return boards.BoardQuery("primebench", "c", None, 0, 0)


async def test_the_supergroup_keeps_the_groups_board_and_everything_else(
    services: Services,
) -> None:
    post = Submitter(services)
    await services.store.upsert_chat(OLD, type="group", title="Lab A")
    sub = await post.published(9, model="group-model-x", chat_id=OLD, user_id=5)
    elsewhere = await post.published(4, model="elsewhere", chat_id=-100, user_id=6)
    web = await links.web_board_token(services, OLD, by=GROUP_ADMIN)
    await admin.moderate(services, group_admin(OLD), "verify", [str(sub.id), "checked"])
    # before the move the supergroup has nothing, and its admins no say over the result
    empty = await boards.page(services, group_board(), chat_id=NEW, user_id=5)
    assert empty.board.rows == ()
    with pytest.raises(UserError) as refused:
        await admin.moderate(services, group_admin(NEW), "hide", [str(sub.id)])
    assert refused.value.key == "not_this_group"

    moved = await groups.upgraded(services, OLD, NEW)

    assert moved is not None and (moved.submissions, moved.links, moved.audit_entries) == (1, 1, 1)
    page = await boards.page(services, group_board(), chat_id=NEW, user_id=5)
    assert [(r.submission_id, r.model) for r in page.board.rows] == [(sub.id, "group-model-x")]
    assert elsewhere.id not in {r.submission_id for r in page.board.rows}
    _, name, csv = await admin.export_board(services, group_admin(NEW), [])
    assert name == f"primebench-chat{NEW}.csv" and b"group-model-x" in csv
    assert b"elsewhere" not in csv
    # the web board's address is the same, and opens the supergroup's board
    assert await links.web_board_chat(services, web) == NEW
    assert await links.web_board_token(services, NEW, by=GROUP_ADMIN) == web
    # its admins moderate its results, and read its whole audit log
    await admin.moderate(services, group_admin(NEW), "hide", [str(sub.id), "dup"])
    log = await admin.audit(services, group_admin(NEW))
    assert [e.action for e in log] == ["hide", "verify"]


async def test_both_messages_and_repeats_move_once(services: Services) -> None:
    post = Submitter(services)
    sub = await post.published(5, model="m", chat_id=OLD)
    first = await groups.upgraded(services, OLD, NEW)  # migrate_to, in the old chat
    again = await groups.upgraded(services, OLD, NEW)  # migrate_from, in the new one
    assert first is not None and first.moved == 1
    assert again is not None and again.moved == 0
    found = await services.store.get_submission(sub.id)
    assert found is not None and found.chat_id == NEW


@engine_free
@pytest.mark.parametrize(
    ("old", "new"), [(OLD, OLD), (5, NEW), (OLD, 5), (OLD, -(1 << 70)), (0, NEW)]
)
async def test_what_cannot_be_a_groups_upgrade_moves_nothing(
    services: Services, old: int, new: int
) -> None:
    post = Submitter(services)
    sub = await post.published(5, model="m", chat_id=OLD)
    assert await groups.upgraded(services, old, new) is None
    found = await services.store.get_submission(sub.id)
    assert found is not None and found.chat_id == OLD

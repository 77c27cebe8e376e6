"""A group upgraded to a supergroup: everything kept by its old chat id moves to the new
one, in one transaction, idempotently, merging with what the new chat already has."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from storage import ChatMove, InvalidData, Store
from storage.runs import NewRun
from tests.storage.helpers import FakeClock, Maker, answers

OLD, NEW = -4001, -1004001


async def _published(store: Store, make: Maker, raw: str, **kw: Any) -> int:
    sub = await store.record_submission(make(raw, chat_id=OLD, **kw))
    await store.publish(sub.id)
    return sub.id


async def test_everything_of_the_old_chat_moves_to_the_new_one(
    store: Store, make: Maker, clock: FakeClock
) -> None:
    await store.upsert_chat(OLD, type="group", title="Lab A")
    first = await _published(store, make, answers(1, 2, 3), model="Group Model")
    second = await _published(store, make, answers(4, 4, 4), model="Other", mode="think")
    private = await store.record_submission(make(answers(1), chat_id=OLD))
    await store.verify(first, group=True)  # a group admin's mark, on its board only
    board_link = await store.link("group", OLD)
    web_link = await store.link("web", OLD, created_by=7)
    await store.log_action(7, "hide", str(second), chat_id=OLD, reason="spam")
    run = await store.add_run(
        NewRun("primebench", "m", "default", 1, "chat", requested_by=7, chat_id=OLD)
    )
    await store.set_run_progress(run.id, 55)
    before = await store.export_csv("primebench", chat_id=OLD)

    clock.advance(minutes=1)
    moved = await store.move_chat(OLD, NEW)

    assert moved == ChatMove(OLD, NEW, submissions=3, links=2, audit_entries=1, runs=1), moved
    # the group's board, its export and its admins' mark, under the new id
    board = await store.leaderboard("primebench", chat_id=NEW)
    assert {r.submission_id for r in board.rows} == {first, second}
    assert await store.export_csv("primebench", chat_id=NEW) == before
    assert (await store.leaderboard("primebench", chat_id=OLD)).rows == ()
    for sub_id in (first, second, private.id):
        found = await store.get_submission(sub_id)
        assert found is not None and found.chat_id == NEW
    found = await store.find_submission(NEW, private.message_id)
    assert found is not None and found.id == private.id
    # its links open the new chat's boards, the same tokens
    for token in (board_link, web_link):
        link = await store.resolve_link(token)
        assert link is not None and link.chat_id == NEW
    assert await store.link("web", NEW) == web_link
    # its audit log; its run, which no longer edits a message of the old chat
    assert [e.target for e in await store.audit_log(chat_id=NEW)] == [str(second)]
    assert await store.audit_log(chat_id=OLD) == []
    moved_run = await store.get_run(run.id)
    assert (moved_run.chat_id, moved_run.progress_id) == (NEW, None)
    # the new chat has a row, with the old one's title; the old row stays
    chat = await store.get_chat(NEW)
    assert chat is not None and (chat.type, chat.title) == ("supergroup", "Lab A")
    assert await store.get_chat(OLD) is not None


async def test_a_second_move_finds_nothing_to_do(store: Store, make: Maker) -> None:
    sub_id = await _published(store, make, answers(1, 2))
    first = await store.move_chat(OLD, NEW)
    assert first.moved == 1
    again = await store.move_chat(OLD, NEW)
    assert again == ChatMove(OLD, NEW) and again.moved == 0
    board = await store.leaderboard("primebench", chat_id=NEW)
    assert [r.submission_id for r in board.rows] == [sub_id]
    # a submission recorded under the old id afterwards (a late update) moves next time
    late = await store.record_submission(make(answers(3), chat_id=OLD, model="Late"))
    assert (await store.move_chat(OLD, NEW)).submissions == 1
    found = await store.get_submission(late.id)
    assert found is not None and found.chat_id == NEW


async def test_a_move_merges_with_what_the_new_chat_already_has(
    store: Store, make: Maker, clock: FakeClock
) -> None:
    await store.upsert_chat(OLD, type="group", title="Lab A")
    await store.upsert_chat(NEW, type="supergroup", title="Lab A")
    # the old chat: messages 1, 2 and 3, and its web board link (made first)
    old_web = await store.link("web", OLD)
    old_ids = [
        await _published(store, make, answers(1, 1), message_id=m, model=f"old {m}")
        for m in (1, 2, 3)
    ]
    # the new chat numbers its messages from 1 again: its own 1 and 3, and a -3 (as a
    # move before would have left); its own web link, made later, and its own audit
    clock.advance(seconds=5)
    new_ids = [
        (await store.record_submission(make(answers(2), chat_id=NEW, message_id=m))).id
        for m in (1, 3, -3)
    ]
    new_web = await store.link("web", NEW)
    new_group = await store.link("group", NEW)
    await store.log_action(8, "verify", str(new_ids[0]), chat_id=NEW)
    await store.log_action(7, "hide", str(old_ids[0]), chat_id=OLD)

    moved = await store.move_chat(OLD, NEW)

    # 2 moves as it is; 1 under -1 (1 is taken); 3 cannot (3 and -3 are taken): it stays
    assert (moved.submissions, moved.renumbered, moved.left) == (1, 1, 1)
    assert (moved.links, moved.revoked, moved.audit_entries) == (1, 1, 1)
    where: dict[int, tuple[int, int]] = {}
    for sub_id in old_ids + new_ids:
        found = await store.get_submission(sub_id)
        assert found is not None
        where[sub_id] = (found.chat_id, found.message_id)
    assert [where[i] for i in old_ids] == [(NEW, -1), (NEW, 2), (OLD, 3)]
    assert [where[i] for i in new_ids] == [(NEW, 1), (NEW, 3), (NEW, -3)]
    # every row is still there; the group's board shows the moved ones beside its own
    board = await store.leaderboard("primebench", chat_id=NEW)
    assert {r.submission_id for r in board.rows} >= {old_ids[0], old_ids[1]}
    # of the two live web links the older stays live; the group link had no rival
    still = await store.resolve_link(old_web)
    assert still is not None and still.chat_id == NEW
    assert await store.resolve_link(new_web) is None
    assert await store.link("web", NEW) == old_web
    assert await store.link("group", NEW) == new_group
    assert len(await store.audit_log(chat_id=NEW)) == 2
    # and again: only the one that cannot move is left, nothing else changes
    again = await store.move_chat(OLD, NEW)
    assert (again.moved, again.left) == (0, 1)


async def test_both_messages_at_once_move_once(store: Store, make: Maker) -> None:
    """The two service messages handled at the same moment (on PostgreSQL, on two
    connections): one move takes everything, the other finds nothing, neither fails."""
    ids = [await _published(store, make, answers(1, 2, m)) for m in (1, 2, 3, 4)]
    await store.link("group", OLD)
    moves = await asyncio.gather(*(store.move_chat(OLD, NEW) for _ in range(4)))
    assert sorted(m.submissions for m in moves) == [0, 0, 0, 4]
    assert sum(m.links for m in moves) == 1
    board = await store.leaderboard("primebench", chat_id=NEW)
    assert {r.submission_id for r in board.rows} <= set(ids) and board.total >= 1
    for sub_id in ids:
        found = await store.get_submission(sub_id)
        assert found is not None and found.chat_id == NEW


async def test_a_chat_the_store_never_saw_moves_nothing_and_gets_a_row(store: Store) -> None:
    moved = await store.move_chat(-5, -1005)
    assert moved == ChatMove(-5, -1005)
    chat = await store.get_chat(-1005)
    assert chat is not None and chat.type == "supergroup" and chat.title is None


async def test_a_chat_cannot_move_to_its_own_id(store: Store) -> None:
    with pytest.raises(InvalidData):
        await store.move_chat(OLD, OLD)

"""Moderation in the store: bans, the audit log, equal answer sets, hide/unhide/verify."""

from __future__ import annotations

from pathlib import Path

from storage import Store
from tests.storage.helpers import FakeClock, Maker
from tests.storage.pg import query_one
from tests.storage.test_boards import options_scoring, put


def rows(board: object) -> list[tuple[str, str, float, int]]:
    return [(r.model, r.mode, r.best, r.runs) for r in board.rows]  # type: ignore[attr-defined]


async def test_a_ban_takes_a_user_off_every_board_and_unban_brings_them_back(
    store: Store, make: Maker
) -> None:
    await put(store, make, 10, user_id=7, model="Cheat", chat_id=-100)
    await put(store, make, 3, user_id=7, model="Shared")
    await put(store, make, 5, user_id=8, model="Shared")
    await put(store, make, 4, user_id=8, model="Honest", chat_id=-100)
    before_global = await store.leaderboard("primebench")
    assert rows(before_global) == [
        ("Cheat", "default", 10.0, 1),
        ("Shared", "default", 5.0, 2),
        ("Honest", "default", 4.0, 1),
    ]
    ban = await store.ban(7, by=1, reason="  made-up numbers ")
    assert ban.user_id == 7 and ban.reason == "made-up numbers" and ban.banned_by == 1
    assert (await store.is_banned(7)) == ban and await store.is_banned(8) is None
    expected = [("Shared", "default", 5.0, 1), ("Honest", "default", 4.0, 1)]
    assert rows(await store.leaderboard("primebench")) == expected  # the summary
    assert rows(await store.leaderboard("primebench", days=7)) == expected  # computed
    assert rows(await store.leaderboard("primebench", chat_id=-100)) == expected
    assert (await store.leaderboard("primebench", user_id=7)).rows == ()
    # A rebuild from scratch agrees with the per-line refresh.
    await store.rebuild_boards()
    assert rows(await store.leaderboard("primebench")) == expected
    # Publishing while banned changes no board.
    await put(store, make, 20, user_id=7, model="Later")
    assert rows(await store.leaderboard("primebench")) == expected

    assert await store.unban(7, by=2, reason="appeal accepted") is True
    assert await store.unban(7, by=2) is False  # not banned: nothing written
    after = await store.leaderboard("primebench")
    assert rows(after)[0] == ("Later", "default", 20.0, 1)
    assert ("Shared", "default", 5.0, 2) in rows(after)
    assert [(e.action, e.target, e.actor_id, e.reason) for e in await store.audit_log()] == [
        ("unban", "7", 2, "appeal accepted"),
        ("ban", "7", 1, "made-up numbers"),
    ]


async def test_banning_again_updates_the_reason_and_bans_list(
    store: Store, clock: FakeClock
) -> None:
    await store.ban(5, by=1)
    clock.advance(minutes=1)
    await store.ban(5, by=2, reason="again")
    await store.ban(6, by=1, reason="")
    bans = await store.bans()
    assert [(b.user_id, b.reason, b.banned_by) for b in bans] == [(5, "again", 2), (6, None, 1)]


async def test_the_audit_log_is_newest_first_and_filters_by_chat(
    store: Store, clock: FakeClock
) -> None:
    await store.log_action(1, "hide", "12", chat_id=-100, reason="spam")
    clock.advance(seconds=5)
    await store.log_action(2, "verify", "13", chat_id=-200)
    await store.log_action(1, "setkey", "primebench v2", reason="x" * 900)
    everything = await store.audit_log()
    assert [e.action for e in everything] == ["setkey", "verify", "hide"]
    assert everything[0].chat_id is None and len(everything[0].reason or "") == 500
    assert everything[2].at < everything[1].at == everything[0].at == clock.now
    group = await store.audit_log(chat_id=-100)
    assert [(e.action, e.target, e.reason, e.actor_id) for e in group] == [
        ("hide", "12", "spam", 1)
    ]
    assert len(await store.audit_log(limit=1)) == 1


async def test_same_answers_as_names_the_earlier_equal_run(store: Store, make: Maker) -> None:
    raw = options_scoring(make, 8, 1)
    first = await store.record_submission(make(raw, user_id=1, model="Twin"))
    await store.publish(first.id)
    assert await store.same_answers_as(first.id) is None
    second = await store.record_submission(make(raw, user_id=2, model=" twin "))
    assert await store.same_answers_as(second.id) == first.id  # asked before publishing
    await store.publish(second.id)
    assert await store.same_answers_as(second.id) == first.id
    board = await store.leaderboard("primebench")
    assert rows(board) == [("Twin", "default", 5.0, 1)]  # one run, not two
    # Another mode, another model or other answers are not the same run.
    other_mode = await store.record_submission(make(raw, model="Twin", mode="think"))
    other_answers = await store.record_submission(make(options_scoring(make, 9, 0), model="Twin"))
    assert await store.same_answers_as(other_mode.id) is None
    assert await store.same_answers_as(other_answers.id) is None
    # A banned user's equal run is not on the boards, so it is not named.
    await store.ban(1, by=99)
    third = await store.record_submission(make(raw, user_id=3, model="twin"))
    assert await store.same_answers_as(third.id) == second.id


async def test_hide_unhide_verify_move_a_result_on_and_off_the_boards(
    store: Store, make: Maker
) -> None:
    sid = await put(store, make, 10, model="Hidden")
    await put(store, make, 2, model="Other")
    await store.hide(sid)
    assert [r.model for r in (await store.leaderboard("primebench")).rows] == ["Other"]
    await store.unhide(sid)
    await store.verify(sid)
    board = await store.leaderboard("primebench")
    assert [(r.model, r.verified) for r in board.rows] == [("Hidden", True), ("Other", False)]
    assert (await store.leaderboard("primebench", days=30)).rows[0].verified is True


async def test_a_banned_user_is_kept_across_reopening(db_path: Path, clock: FakeClock) -> None:
    async with await Store.open(db_path, clock=clock) as store:
        await store.ban(42, by=1, reason="r")
    assert query_one(db_path, "SELECT user_id, reason FROM bans") == (42, "r")
    async with await Store.open(db_path, clock=clock) as store:
        found = await store.is_banned(42)
        assert found is not None and found.reason == "r"

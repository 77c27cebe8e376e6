"""Admins (issue 7), end to end: refusals, hide/unhide/verify, bans, the audit log,
equal answer sets at publish time, /export and /backup."""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from .botkit import KEY, Bot, answers, bot_session, private_user, submission_id, text_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

ADMIN = 9001


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    env = {"BENCHBOARD_ADMINS": f"{ADMIN}, 9002"}
    async with bot_session(tmp_path_factory.mktemp("admin"), env=env) as b:
        yield b


async def _publish(
    bot: Bot, user: dict, chat: dict, model: str, mode: str, lines: list[str]
) -> tuple[int, dict[str, Any]]:
    text = "\n".join([f"model: {model}", f"#{mode}", *lines])
    reply = await bot.say(chat, user, text)
    sid = submission_id(text_of(reply))
    answer = await bot.press(chat, user, reply, f"pub:{sid}")
    return sid, answer


async def _board(bot: Bot, mode: str = "") -> str:
    user, chat = private_user(bot, 8999)
    return text_of(await bot.say(chat, user, f"/leaderboard primebench {mode}".strip()))


REFUSED = [
    "/setkey primebench",
    "/keyinfo",
    "/rescore natory",
    "/hide 1",
    "/unhide 1",
    "/verify 1",
    "/ban 5",
    "/unban 5",
    "/audit",
    "/backup",
    "/natory set 6256",
]


@pytest.mark.parametrize("command", REFUSED, ids=lambda c: c.split()[0][1:])
async def test_every_admin_command_refuses_everyone_else(bot: Bot, command: str) -> None:
    user, chat = private_user(bot, 7001)
    mark = bot.api.mark()
    assert text_of(await bot.say(chat, user, command)) == "This command is for admins only."
    fa, fa_chat = private_user(bot, 7002, "fa")
    assert text_of(await bot.say(fa_chat, fa, command)) == "این دستور فقط برای مدیران است."
    bot.check_clean(mark)


async def test_a_setkey_document_from_a_non_admin_is_refused_not_scored(bot: Bot) -> None:
    user, chat = private_user(bot, 7003)
    msg = await bot.api.send_document(
        chat, user, b"1:1\n2:2\n", "A.txt", caption="/setkey primebench"
    )
    reply = await bot.api.reply_to(msg, timeout=20)
    assert text_of(reply) == "This command is for admins only."
    me = text_of(await bot.say(chat, user, "/me"))
    assert "no submissions yet" in me  # the file was not taken as a submission


async def test_hide_unhide_verify_with_reasons_in_the_audit_log(bot: Bot) -> None:
    owner, owner_chat = private_user(bot, 7010)
    admin, admin_chat = private_user(bot, ADMIN)
    mark = bot.api.mark()
    lines = answers(KEY, correct=30)
    sid, _ = await _publish(bot, owner, owner_chat, "Moderated-1", "tools", lines)
    assert "1. Moderated-1 · tools · +30" in await _board(bot, "tools")

    reply = await bot.say(admin_chat, admin, f"/hide {sid} looks <copied>")
    assert text_of(reply) == f"Hid #{sid}: it is on no board now. Logged."
    assert "Moderated-1" not in await _board(bot, "tools")
    assert "hidden by an admin" in text_of(await bot.say(owner_chat, owner, "/me"))
    # A hidden result cannot be hidden again; an unknown id is named.
    assert "only published results can be hidden" in text_of(
        await bot.say(admin_chat, admin, f"/hide {sid}")
    )
    assert "#99999 was not found" in text_of(await bot.say(admin_chat, admin, "/hide 99999"))
    assert text_of(await bot.say(admin_chat, admin, "/hide x")) == "Use /hide ID [reason]."

    reply = await bot.say(admin_chat, admin, f"/unhide {sid} checked again")
    assert f"#{sid} is back on the boards" in text_of(reply)
    reply = await bot.say(admin_chat, admin, f"/verify {sid} reproduced on our GPUs")
    assert "marked as reproduced by an admin" in text_of(reply)
    assert "1. Moderated-1 · tools · +30 (1 run, mean +30) ✅" in await _board(bot, "tools")

    audit = text_of(await bot.say(admin_chat, admin, "/audit"))
    lines = audit.splitlines()
    assert lines[0] == "Audit log (latest first)"
    assert f"{ADMIN} · verify {sid} — reproduced on our GPUs" in lines[1]
    assert f"{ADMIN} · unhide {sid} — checked again" in lines[2]
    assert f"{ADMIN} · hide {sid} — looks <copied>" in lines[3]  # escaped, shown as typed
    bot.check_clean(mark)


async def test_ban_takes_results_off_every_board_and_refuses_publishing(bot: Bot) -> None:
    cheat, cheat_chat = private_user(bot, 7020)
    admin, admin_chat = private_user(bot, ADMIN)
    mark = bot.api.mark()
    await _publish(bot, cheat, cheat_chat, "Cheater-X", "think", answers(KEY, correct=90))
    assert "Cheater-X" in await _board(bot, "think")

    reply = await bot.say(admin_chat, admin, "/ban 7020 invented the output")
    assert "Banned user 7020" in text_of(reply)
    assert "Cheater-X" not in await _board(bot, "think")
    # They still score privately, but publishing is refused with a clear message.
    text = "\n".join(["model: Cheater-X", "#think", *answers(KEY, correct=5)])
    scored = await bot.say(cheat_chat, cheat, text)
    assert "Final Score: 5" in text_of(scored)
    sid = submission_id(text_of(scored))
    answer = await bot.press(cheat_chat, cheat, scored, f"pub:{sid}")
    assert answer.get("show_alert") is True
    assert "You cannot publish results" in answer["text"] and "score privately" in answer["text"]
    assert "Cheater-X" not in await _board(bot, "think")
    # Bot admins cannot be banned; usage is explained.
    assert "one of the bot's admins" in text_of(await bot.say(admin_chat, admin, "/ban 9002"))
    assert text_of(await bot.say(admin_chat, admin, "/ban")) == "Use /ban USER_ID [reason]."

    reply = await bot.say(admin_chat, admin, "/unban 7020 appeal accepted")
    assert "Lifted the ban on user 7020" in text_of(reply)
    assert "1. Cheater-X · think · +90" in await _board(bot, "think")
    again = text_of(await bot.say(admin_chat, admin, "/unban 7020"))
    assert again == "User 7020 is not banned."
    audit = text_of(await bot.say(admin_chat, admin, "/audit"))
    assert f"{ADMIN} · unban 7020 — appeal accepted" in audit
    assert f"{ADMIN} · ban 7020 — invented the output" in audit
    bot.check_clean(mark)


async def test_publishing_the_same_answers_again_is_one_run_and_says_so(bot: Bot) -> None:
    user, chat = private_user(bot, 7030)
    other, other_chat = private_user(bot, 7031)
    mark = bot.api.mark()
    lines = answers(KEY, correct=12, wrong=2)
    first, answer = await _publish(bot, user, chat, "Twin Model", "default", lines)
    assert "Same answers" not in answer["text"]
    second, answer = await _publish(bot, other, other_chat, "twin  model", "default", lines)
    assert f"Published #{second}" in answer["text"]
    same = f"Same answers as #{first} for this model and mode: counted as one run."
    assert same in answer["text"]
    assert answer.get("show_alert") is True
    assert "Twin Model · default · +6 (1 run, mean +6)" in await _board(bot, "default")
    # Persian
    fa, fa_chat = private_user(bot, 7032, "fa")
    _, answer = await _publish(bot, fa, fa_chat, "Twin Model", "default", lines)
    persian_first = str(first).translate(str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹"))
    assert f"همان پاسخ‌های #{persian_first}" in answer["text"]  # Persian digits in prose
    bot.check_clean(mark)


def _csv(bot: Bot, call: dict[str, Any]) -> list[dict[str, str]]:
    document = call["result"]["document"]
    content = bot.api.file_content(document["file_id"])
    assert content is not None
    rows = csv.DictReader(io.StringIO(content.decode("utf-8")))
    return [r for r in rows if not (r["rank"] or "").startswith("# ")]  # the credit line


async def test_export_sends_the_board_as_csv(bot: Bot) -> None:
    user, chat = private_user(bot, 7040)
    mark = bot.api.mark()
    await _publish(bot, user, chat, "=Exported", "think_tools", answers(KEY, correct=3))
    call = await bot.say(chat, user, "/export")
    assert call["method"] == "sendDocument"
    assert call["result"]["document"]["file_name"] == "primebench-global.csv"
    assert "PrimeBench leaderboard — global, as CSV." in text_of(call)
    rows = _csv(bot, call)
    mine = [r for r in rows if r["model"] == "'=Exported"]  # no formula in a spreadsheet
    assert len(mine) == 1
    row = mine[0]
    for column in ("rank", "mode", "score", "runs", "mean", "first_at", "last_at", "mark"):
        assert row[column], column
    assert row["mode"] == "think_tools" and row["score"] == "3" and row["mark"] == "self"
    assert "user_id" not in row  # who submitted: never (the web's columns)
    # the authors' reported rows: no rank among ours, no date of ours
    reported = [r for r in rows if r["mark"] == "reported"]
    assert any(r["model"] == "Jibay 5 High" for r in reported)
    assert all(r["rank"] == "" and r["first_at"] == "" for r in reported)
    admin, admin_chat = private_user(bot, ADMIN)
    rows = _csv(bot, await bot.say(admin_chat, admin, "/export primebench"))
    assert any(r["model"] == "'=Exported" for r in rows) and "user_id" not in rows[0]
    assert "Use /export [benchmark]" in text_of(await bot.say(chat, user, "/export nope"))
    bot.check_clean(mark)


async def test_backup_sends_a_sqlite_snapshot_to_bot_admins_in_private(bot: Bot) -> None:
    admin, admin_chat = private_user(bot, ADMIN)
    mark = bot.api.mark()
    call = await bot.say(admin_chat, admin, "/backup")
    assert call["method"] == "sendDocument"
    document = call["result"]["document"]
    assert document["file_name"] == "benchboard.sqlite3"
    content = bot.api.file_content(document["file_id"])
    assert content is not None and content.startswith(b"SQLite format 3\x00")
    assert "Database snapshot" in text_of(call)
    audit = text_of(await bot.say(admin_chat, admin, "/audit"))
    assert f"{ADMIN} · backup database — " in audit  # who took every user's data
    group = bot.api.group_chat(-1007001, "Public group")
    reply = await bot.say(group, admin, "/backup")
    assert "ask in a private chat" in text_of(reply)
    bot.check_clean(mark)


async def test_keyinfo_shows_version_sha_time_and_source(bot: Bot) -> None:
    admin, admin_chat = private_user(bot, ADMIN)
    plain = text_of(await bot.say(admin_chat, admin, "/keyinfo"))
    assert "PrimeBench: version 1 of 1" in plain
    assert "SHA-256 " in plain and "primebench/A.txt" in plain
    assert "stored 20" in plain and "loaded 20" in plain
    assert "ZeroBench: no key loaded" in plain


# --- group admins ------------------------------------------------------------------------


async def test_group_admins_moderate_their_group_only(bot: Bot) -> None:
    group = bot.api.group_chat(-1007010, "Lab G")
    other_group = bot.api.group_chat(-1007011, "Lab H")
    boss = bot.api.user(7050, "Boss")
    member = bot.api.user(7051, "Member")
    bot.api.set_member_status(group["id"], boss, "administrator")
    mark = bot.api.mark()

    async def in_group(chat: dict, user: dict, text: str) -> str:
        msg = await bot.api.send_text(chat, user, text)
        return text_of(await bot.api.reply_to(msg, timeout=20))

    async def publish_in(chat: dict, user: dict, model: str) -> int:
        body = "\n".join(answers(KEY, correct=7))
        msg = await bot.api.send_text(chat, user, f"/score #tools\nmodel: {model}\n{body}")
        reply = await bot.api.reply_to(msg, timeout=20)
        sid = submission_id(text_of(reply))
        answer = await bot.press(chat, user, reply, f"pub:{sid}")
        assert f"Published #{sid}" in answer["text"]
        return sid

    here = await publish_in(group, member, "Group-G model")
    there = await publish_in(other_group, member, "Group-H model")
    # A plain member is refused.
    assert await in_group(group, member, f"/hide {here}") == "This command is for admins only."
    # The group's admin hides and verifies results published from their group.
    assert f"Hid #{here}" in await in_group(group, boss, f"/hide {here} off-topic")
    assert "Group-G model" not in await in_group(group, member, "/leaderboard primebench tools")
    assert f"#{here} is back" in await in_group(group, boss, f"/unhide {here}")
    assert "marked as reproduced" in await in_group(group, boss, f"/verify {here}")
    # ... but not results from elsewhere, and they cannot ban.
    assert f"#{there} was not published from this group" in await in_group(
        group, boss, f"/hide {there}"
    )
    assert "Only the bot's admins" in await in_group(group, boss, "/ban 7051")
    assert "Only the bot's admins" in await in_group(group, boss, "/keyinfo")
    # Being an admin in one group is nothing in another, nor in a private chat.
    assert await in_group(other_group, boss, f"/hide {there}") == "This command is for admins only."
    boss_chat = bot.api.private_chat(boss)
    assert text_of(await bot.say(boss_chat, boss, "/audit")) == "This command is for admins only."
    # The group's audit log holds the group's entries only.
    audit = await in_group(group, boss, "/audit")
    assert f"7050 · verify {here}" in audit and f"7050 · hide {here} — off-topic" in audit
    assert "ban 7020" not in audit and f"hide {there}" not in audit
    # a revoked web address is an action too
    assert "/g/" in await in_group(group, boss, "/weblink new")
    assert f"7050 · weblink_new {group['id']}" in await in_group(group, boss, "/audit")
    # The group export is the group's board.
    msg = await bot.api.send_text(group, member, "/export")
    rows = _csv(bot, await bot.api.reply_to(msg, timeout=20))
    assert [r["model"] for r in rows if r["mark"] != "reported"] == ["Group-G model"]
    assert rows[0]["mark"] == "verified"  # the group admin's mark, on its board
    bot.check_clean(mark)


async def test_group_admin_status_is_cached_briefly(bot: Bot) -> None:
    group = bot.api.group_chat(-1007020, "Lab C")
    boss = bot.api.user(7060, "Boss")
    bot.api.set_member_status(group["id"], boss, "creator")
    before = len(bot.api.calls_of("getChatMember"))
    for _ in range(3):
        msg = await bot.api.send_text(group, boss, "/audit")
        assert text_of(await bot.api.reply_to(msg, timeout=20)) == "The audit log is empty."
    assert len(bot.api.calls_of("getChatMember")) == before + 1  # asked once, then cached


async def test_an_admin_chooses_the_natory_target_of_the_day(bot: Bot) -> None:
    admin, admin_chat = private_user(bot, ADMIN)
    mark = bot.api.mark()
    answer = text_of(await bot.say(admin_chat, admin, "/natory set 6256"))
    assert "set to 6256" in answer
    user, chat = private_user(bot, 7101)
    today = text_of(await bot.say(chat, user, "/natory"))
    assert "6256" in today
    assert "Use /natory set N" in text_of(await bot.say(admin_chat, admin, "/natory set x"))
    assert "Use /natory set N" in text_of(await bot.say(admin_chat, admin, "/natory set 0"))
    audit = text_of(await bot.say(admin_chat, admin, "/audit"))
    assert "natory_target" in audit
    bot.check_clean(mark)


async def test_a_group_admin_cannot_put_their_own_held_result_on_the_boards(bot: Bot) -> None:
    """Anyone can make a group and administer it: its admins do not release, unhide or
    verify their own results, nor bring back one a review rejected."""
    group = bot.api.group_chat(-1007030, "Own group")
    cheater = bot.api.user(7080, "Cheater")
    other_admin = bot.api.user(7082, "Second")
    bot.api.set_member_status(group["id"], cheater, "creator")
    bot.api.set_member_status(group["id"], other_admin, "administrator")
    bot.api.private_chat(cheater)  # (told of the decision)
    admin, admin_chat = private_user(bot, ADMIN)
    mark = bot.api.mark()

    async def in_group(user: dict, text: str) -> str:
        return text_of(await bot.say(group, user, text))

    # the public key pasted as an output: held for review
    body = "\n".join(f"{q}:{o}" for q, o in KEY.items())
    reply = await bot.say(group, cheater, f"/score #default\nmodel: Key-Copy\n{body}")
    sid = submission_id(text_of(reply))
    answer = await bot.press(group, cheater, reply, f"pub:{sid}")
    assert answer["text"].startswith(f"Held for review: #{sid}")

    own = f"#{sid} is your own result: another admin of this group decides on it."
    assert await in_group(cheater, f"/verify {sid}") == own
    flags = await bot.say(group, cheater, "/flags")
    assert f"#{sid}" in text_of(flags)
    pressed = await bot.press(group, cheater, flags, f"flv:{sid}:0")
    assert pressed["text"] == own and pressed["show_alert"] is True
    assert "Key-Copy" not in await _board(bot, "default")

    # a bot admin rejects it; a group admin cannot bring it back, a bot admin can
    flags = await bot.say(admin_chat, admin, "/flags")
    pressed = await bot.press(admin_chat, admin, flags, f"flr:{sid}:0")
    assert pressed["text"].startswith(f"#{sid} is rejected")
    assert await in_group(cheater, f"/unhide {sid}") == own
    assert await in_group(other_admin, f"/unhide {sid}") == (
        f"#{sid} was rejected after review: only the bot's admins can put it back on the boards."
    )
    assert "Key-Copy" not in await _board(bot, "default")
    audit = await in_group(other_admin, "/audit")
    assert f"9001 · reject {sid}" in audit
    assert "7080 · " not in audit and "7082 · " not in audit  # nothing refused was done
    assert f"#{sid} is back" in text_of(await bot.say(admin_chat, admin, f"/unhide {sid}"))
    assert "Key-Copy" in await _board(bot, "default")
    bot.check_clean(mark)


async def test_an_anonymous_admin_is_asked_to_post_as_themselves(bot: Bot) -> None:
    """An anonymous admin (or a channel) speaks as a chat, under a placeholder user every
    group shares: no admin command can say who acted, so each says how to, rather than
    "for admins only"."""
    group = bot.api.group_chat(-1007040, "Lab Anon")
    channel = {"id": -1007041, "type": "channel", "title": "Someone's channel"}
    anonymous = {"id": 1087968824, "is_bot": True, "first_name": "Group",
                 "username": "GroupAnonymousBot"}  # fmt: skip
    channel_bot = {"id": 136817688, "is_bot": True, "first_name": "Channel",
                   "username": "Channel_Bot"}  # fmt: skip
    mark = bot.api.mark()

    async def as_chat(user: dict, sender: dict, text: str) -> str:
        update = bot.api.make_text_update(group, user, text)
        message = {**update["message"], "sender_chat": sender}
        await bot.api.send_raw_update("message", message)
        return text_of(await bot.api.reply_to(message, timeout=20))

    for text in ("/hide 1", "/verify 1", "/flags", "/audit", "/weblink", "/ban 5"):
        answer = await as_chat(anonymous, group, text)
        assert "posting as a chat (an anonymous admin" in answer, text
        assert "turn off “Remain anonymous”" in answer, text
    answer = await as_chat(channel_bot, channel, "/hide 1")
    assert "posting as a chat" in answer
    asked = [c["params"]["user_id"] for c in bot.api.calls_of("getChatMember")[-10:]]
    assert 1087968824 not in asked and 136817688 not in asked
    # what needs no admin still works
    assert "as CSV" in await as_chat(anonymous, group, "/export")
    bot.check_clean(mark)


async def test_a_group_admin_is_not_refused_when_telegram_does_not_answer(bot: Bot) -> None:
    """Whether someone administers a group is asked of Telegram: no answer within the
    sender's retries (about a minute of 5xx) is neither "not an admin" nor one to
    remember; the command is handled again once Telegram answers."""
    group = bot.api.group_chat(-1007050, "Lab Outage")
    boss = bot.api.user(7090, "Boss")
    bot.api.set_member_status(group["id"], boss, "administrator")
    bot.api.faults(methods=["getChatMember"], kinds=["500"])
    mark = bot.api.mark()
    msg = await bot.api.send_text(group, boss, "/audit")
    for _ in range(200):  # the sender gives up after about a minute
        if "outlasted the retries" in bot.proc.log():
            break
        await asyncio.sleep(0.5)
    bot.api.clear_faults()
    reply = await bot.api.reply_to(msg, timeout=20)
    assert text_of(reply) == "The audit log is empty."
    asked = [c for c in bot.api.calls if c["index"] >= mark and c["method"] == "getChatMember"]
    assert asked[-1]["ok"] and not asked[0]["ok"]


async def test_verify_of_a_result_on_no_board_says_where_its_mark_shows(bot: Bot) -> None:
    """/verify on a result that is on no board (private, never published) marks it, and
    says it is private and that the ✅ shows once it is published, not that it is on every
    board; published then, it shows the ✅."""
    owner, owner_chat = private_user(bot, 7016)
    admin, admin_chat = private_user(bot, ADMIN)
    mark = bot.api.mark()
    reply = await bot.say(
        owner_chat, owner, "\n".join(["model: Unpublished-V", "#think", *answers(KEY, correct=9)])
    )
    sid = submission_id(text_of(reply))
    said = text_of(await bot.say(admin_chat, admin, f"/verify {sid}"))
    assert "(✅ on every board)" not in said, said  # it is on none
    assert said == (
        f"#{sid} is marked as reproduced by an admin. It is private, on no board now: its ✅ "
        "shows on every board once it is published. Logged."
    )
    answer = await bot.press(owner_chat, owner, reply, f"pub:{sid}")
    assert f"Published #{sid}" in answer["text"]
    assert "Unpublished-V · think · +9 (1 run, mean +9) ✅" in await _board(bot, "think")
    bot.check_clean(mark)

"""Authorization (issue 29, point 6), end to end: a press edits only a message of the
presser's own flow (forged ``me:``/``lb:``/``wd:`` data on someone else's card in a
group changes nothing and is answered); a group admin's ✅ shows on that group's board
only, a bot admin's everywhere (the web's verified-only board too); a banned user's
results are not shared, challenged or offered inline; ``sh:<id>`` of someone else's
result hands out no token."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from tests.e2e.botapi import free_port
from tests.e2e.botkit import BOT, KEY, Bot, answers, bot_session, button, private_user, text_of
from tests.e2e.botkit import submission_id as sid_of
from tests.e2e.harness import webhook_env

pytestmark = pytest.mark.asyncio(loop_scope="module")

ADMIN = 29900
SECRET = "authz-secret"
PUBLIC = "https://boards.example.org"
NOT_YOURS = "This isn't yours"
RESULT_LINK = re.compile(rf"t\.me/{BOT}\?start=r_")
CHALLENGE_LINK = re.compile(rf"t\.me/{BOT}\?start=c_")
#: How long an edit that should not come is waited for, after the press was answered
#: (the bot edits right after answering).
QUIET = 1.5


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    port = free_port()
    env = {**webhook_env(port, SECRET), "BENCHBOARD_WEB_URL": PUBLIC,
           "BENCHBOARD_ADMINS": str(ADMIN)}  # fmt: skip
    async with bot_session(tmp_path_factory.mktemp("authz"), env=env) as b:
        b.port = port  # type: ignore[attr-defined]
        yield b


async def _web(bot: Bot, path: str) -> str:
    port = bot.port  # type: ignore[attr-defined]
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}{path}") as response,
    ):
        assert response.status == 200, path
        return await response.text()


async def _in_group(bot: Bot, chat: dict, user: dict, text: str) -> dict[str, Any]:
    msg = await bot.api.send_text(chat, user, text)
    return await bot.api.reply_to(msg, timeout=20)


async def _scored(bot: Bot, chat: dict, user: dict, model: str, correct: int) -> dict[str, Any]:
    body = "\n".join(answers(KEY, correct=correct))
    command = "/score " if chat["type"] != "private" else ""
    return await _in_group(bot, chat, user, f"{command}#tools\nmodel: {model}\n{body}")


async def _published(bot: Bot, chat: dict, user: dict, model: str, correct: int) -> tuple:
    """A result scored and published in ``chat``: (its card as it now stands, its id)."""
    reply = await _scored(bot, chat, user, model, correct)
    sid = sid_of(text_of(reply))
    since = bot.api.mark()
    answer = await bot.press(chat, user, reply, f"pub:{sid}")
    assert f"Published #{sid}" in answer["text"], answer
    await bot.edited(reply, since)
    return reply, sid


def _edits_of(bot: Bot, call: dict[str, Any], since: int) -> list[dict[str, Any]]:
    msg = call["result"]
    return [
        c
        for c in bot.api.calls[since:]
        if c["method"].startswith("editMessage")
        and c["params"].get("chat_id") == msg["chat"]["id"]
        and c["params"].get("message_id") == msg["message_id"]
    ]


def _sent_to(bot: Bot, chat: dict, since: int) -> list[dict[str, Any]]:
    return [
        c
        for c in bot.api.calls[since:]
        if c["method"] in ("sendMessage", "sendPhoto") and c["params"].get("chat_id") == chat["id"]
    ]


def _row(board: str, model: str) -> str:
    (line,) = [line for line in board.splitlines() if model in line]
    return line


# --- a press edits only the presser's own messages -----------------------------------------


async def test_forged_buttons_on_someone_elses_card_in_a_group_change_nothing(bot: Bot) -> None:
    group = bot.api.group_chat(-1002901, "Authz A")
    ann, bob = bot.api.user(29001, "Ann"), bot.api.user(29002, "Bob")
    mark = bot.api.mark()
    ann_card = await _scored(bot, group, ann, "ann-model", 5)
    _, bob_sid = await _published(bot, group, bob, "bob-model", 4)
    before = bot.current(ann_card)
    forged = ["me:0", "me:1", "lb:primebench:g:-:0:0", "lb:primebench:u:-:7:0",
              f"wd:{bob_sid}", f"wd:{bob_sid}:0", f"wd:{bob_sid}:0:yes", f"op:{bob_sid}",
              f"mode:{bob_sid}:think", f"pub:{bob_sid}",
              f"det:{bob_sid}", f"model:{bob_sid}"]  # fmt: skip
    since = bot.api.mark()
    for data in forged:
        answer = await bot.press(group, bob, ann_card, data, check_button=False)
        assert NOT_YOURS in answer["text"] and answer.get("show_alert"), (data, answer)
    await asyncio.sleep(QUIET)
    assert _edits_of(bot, ann_card, since) == []
    assert bot.current(ann_card) == before
    assert _sent_to(bot, group, since) == []  # no prompt, no details, no page
    # Bob's result was not withdrawn by the forged wd: presses
    assert "bob-model" in text_of(await _in_group(bot, group, bob, "/leaderboard"))
    bot.check_clean(mark)


async def test_another_members_press_on_a_board_leaves_it_to_its_asker(bot: Bot) -> None:
    group = bot.api.group_chat(-1002902, "Authz B")
    ann, bob = bot.api.user(29003, "Ann"), bot.api.user(29004, "Bob")
    await _published(bot, group, ann, "board-model", 3)
    board = await _in_group(bot, group, ann, "/leaderboard")
    before = bot.current(board)
    since = bot.api.mark()
    answer = await bot.press(group, bob, board, button(board, "Global"))
    assert NOT_YOURS in answer["text"]
    await asyncio.sleep(QUIET)
    assert _edits_of(bot, board, since) == [] and bot.current(board) == before
    # its asker's press still turns the page
    since = bot.api.mark()
    await bot.press(group, ann, board, button(board, "Global"))
    assert "global" in text_of(await bot.edited(board, since))


async def test_own_buttons_still_work_in_a_group_and_in_private(bot: Bot) -> None:
    group = bot.api.group_chat(-1002903, "Authz C")
    ann = bot.api.user(29005, "Ann")
    card = await _scored(bot, group, ann, "own-model", 2)
    sid = sid_of(text_of(card))
    since = bot.api.mark()
    await bot.press(group, ann, card, f"mode:{sid}:think")
    assert "Mode: think" in text_of(await bot.edited(card, since)).splitlines()
    # /me's buttons work where /me is shown: the private chat
    user, chat = private_user(bot, 29006)
    for i in range(12):
        await _published(bot, chat, user, f"paged-{i}", 1 + i % 3)
    me = await bot.say(chat, user, "/me")
    since = bot.api.mark()
    await bot.press(chat, user, me, "me:1")
    assert text_of(await bot.edited(me, since)) != text_of(me)


# --- a group admin's ✅ is for that group's board --------------------------------------------


async def test_a_group_admins_verify_shows_on_the_group_board_only(bot: Bot) -> None:
    group = bot.api.group_chat(-1002910, "Authz Lab")
    gus, ann = bot.api.user(29010, "Gus"), bot.api.user(29011, "Ann")
    bot.api.set_member_status(group["id"], gus, "administrator")
    mark = bot.api.mark()
    _, sid = await _published(bot, group, ann, "lab-verified-model", 40)
    done = text_of(await _in_group(bot, group, gus, f"/verify {sid} checked in our lab"))
    assert "this group's board only" in done, done

    group_board = text_of(await _in_group(bot, group, ann, "/leaderboard primebench tools"))
    assert _row(group_board, "lab-verified-model").endswith("✅")
    someone, chat = private_user(bot, 29012)
    global_board = text_of(await bot.say(chat, someone, "/leaderboard primebench tools"))
    assert "✅" not in _row(global_board, "lab-verified-model")
    # the web's verified-only board does not list it (and is empty)
    assert "lab-verified-model" not in await _web(bot, "/b/primebench?verified=1")

    # a bot admin's ✅ shows on every board
    admin, admin_chat = private_user(bot, ADMIN)
    done = text_of(await bot.say(admin_chat, admin, f"/verify {sid} reproduced"))
    assert "on every board" in done, done
    global_board = text_of(await bot.say(chat, someone, "/leaderboard primebench tools"))
    assert _row(global_board, "lab-verified-model").endswith("✅")
    assert "lab-verified-model" in await _web(bot, "/b/primebench?verified=1&mode=tools")
    group_board = text_of(await _in_group(bot, group, ann, "/leaderboard primebench tools"))
    assert _row(group_board, "lab-verified-model").endswith("✅")
    bot.check_clean(mark)


# --- banned users' results and others' tokens ---------------------------------------------


async def test_a_banned_users_results_are_not_shared_challenged_or_offered_inline(
    bot: Bot,
) -> None:
    cheat, chat = private_user(bot, 29020)
    card, sid = await _published(bot, chat, cheat, "banned-model", 30)
    query = await bot.api.inline_query(cheat, "", chat_type="supergroup")
    offered = (await bot.api.inline_answer(query))["params"]["results"]
    assert [r["id"] for r in offered] == [f"r:{sid}"]  # before the ban
    admin, admin_chat = private_user(bot, ADMIN)
    assert "Banned user 29020" in text_of(await bot.say(admin_chat, admin, "/ban 29020 copied"))

    since = bot.api.mark()
    for data in (f"sh:{sid}", f"chl:{sid}"):
        answer = await bot.press(chat, cheat, card, data)
        assert "on no board now" in answer["text"], (data, answer)
    await asyncio.sleep(QUIET)
    assert _sent_to(bot, chat, since) == []  # no card, no link
    query = await bot.api.inline_query(cheat, "", chat_type="supergroup")
    assert (await bot.api.inline_answer(query))["params"]["results"] == []
    query = await bot.api.inline_query(cheat, "banned", chat_type="private")
    assert (await bot.api.inline_answer(query))["params"]["results"] == []


async def test_share_of_someone_elses_result_gives_no_token(bot: Bot) -> None:
    ann, ann_chat = private_user(bot, 29030)
    bob, bob_chat = private_user(bot, 29031)
    _, ann_sid = await _published(bot, ann_chat, ann, "anns-result", 6)
    bob_card, _ = await _published(bot, bob_chat, bob, "bobs-result", 5)
    mark = since = bot.api.mark()
    for data in (f"sh:{ann_sid}", f"chl:{ann_sid}"):
        answer = await bot.press(bob_chat, bob, bob_card, data, check_button=False)
        assert "Only the person who sent this submission" in answer["text"], (data, answer)
    await asyncio.sleep(QUIET)
    assert _sent_to(bot, bob_chat, since) == []
    tokens = [c for c in bot.api.calls[since:] if RESULT_LINK.search(str(c["params"]))]
    assert tokens == []
    # Ann's card shared in a group: her result's link, and a challenge button for
    # everyone there (pressed on the card that carries it)
    group = bot.api.group_chat(-1002930, "Authz Share")
    group_card, group_sid = await _published(bot, group, ann, "anns-group-result", 7)
    since = bot.api.mark()
    await bot.press(group, ann, group_card, f"sh:{group_sid}")
    photo = await bot.api.wait_call("sendPhoto", chat_id=group["id"], since=since, timeout=20)
    assert RESULT_LINK.search(text_of(photo))
    since = bot.api.mark()
    await bot.press(group, bob, photo, f"chl:{group_sid}")
    link = await bot.api.wait_call("sendMessage", chat_id=group["id"], since=since, timeout=20)
    assert CHALLENGE_LINK.search(text_of(link)) and not RESULT_LINK.search(text_of(link))
    # but not pressed on Bob's own card: that is a forged id
    answer = await bot.press(bob_chat, bob, bob_card, f"chl:{group_sid}", check_button=False)
    assert "Only the person who sent this submission" in answer["text"]
    bot.check_clean(mark)

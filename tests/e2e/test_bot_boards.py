"""Leaderboards (rows, paging, filters), /me with withdraw, /start deep links."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from .botkit import (
    KEY,
    Bot,
    answers,
    bot_session,
    button,
    buttons,
    private_user,
    submission_id,
    text_of,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    async with bot_session(tmp_path_factory.mktemp("boards")) as b:
        yield b


async def _publish(bot: Bot, user: dict, chat: dict, model: str, mode: str, correct: int) -> int:
    text = "\n".join([f"model: {model}", f"#{mode}", *answers(KEY, correct=correct)])
    reply = await bot.say(chat, user, text)
    sid = submission_id(text_of(reply))
    answer = await bot.press(chat, user, reply, f"pub:{sid}")
    assert f"Published #{sid}" in answer["text"], answer
    return sid


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def board(bot: Bot) -> dict[str, int]:
    """Thirteen published rows: twelve models in default, one in think (two runs)."""
    ids = {}
    for n in range(12):
        user, chat = private_user(bot, 5100 + n)
        ids[f"m{n:02d}"] = await _publish(bot, user, chat, f"model-{n:02d}", "default", 20 + n)
    user, chat = private_user(bot, 5150)
    ids["t1"] = await _publish(bot, user, chat, "thinker", "think", 40)
    ids["t2"] = await _publish(bot, user, chat, "thinker", "think", 50)
    return ids


async def test_rows_rank_model_mode_best_runs(bot: Bot, board: dict[str, int]) -> None:
    user, chat = private_user(bot, 5001)
    mark = bot.api.mark()
    reply = await bot.say(chat, user, "/leaderboard")
    lines = text_of(reply).splitlines()
    assert "PrimeBench leaderboard — global" in lines[0]
    assert "1. thinker · think · +50 (2 runs, mean +45)" in lines
    assert "2. model-11 · default · +31 (1 run, mean +31)" in lines
    assert "page 1 of 2" in lines
    assert "model-02" not in text_of(reply)  # rank 11+, on page 2
    nxt = button(reply, "Next")
    since = bot.api.mark()
    await bot.press(chat, user, reply, nxt)
    page2 = text_of(await bot.edited(reply, since)).splitlines()
    assert "11. model-02 · default · +22 (1 run, mean +22)" in page2
    assert "13. model-00 · default · +20 (1 run, mean +20)" in page2
    assert "page 2 of 2" in page2
    prev = button(bot.current(reply), "Prev")
    since = bot.api.mark()
    await bot.press(chat, user, reply, prev)
    assert "1. thinker · think · +50 (2 runs, mean +45)" in text_of(await bot.edited(reply, since))
    bot.check_clean(mark)


async def test_mode_and_window_filters(bot: Bot, board: dict[str, int]) -> None:
    user, chat = private_user(bot, 5002)
    reply = await bot.say(chat, user, "/leaderboard primebench think")
    plain = text_of(reply)
    assert "mode: think" in plain
    assert "1. thinker · think" in plain and "model-" not in plain
    # The mode buttons: default only.
    default = button(reply, "default")
    since = bot.api.mark()
    await bot.press(chat, user, reply, default)
    plain = text_of(await bot.edited(reply, since))
    assert "mode: default" in plain and "thinker" not in plain
    assert "1. model-11 · default" in plain
    # The time window: 7 days keeps today's results.
    week = button(bot.current(reply), "7 days")
    since = bot.api.mark()
    await bot.press(chat, user, reply, week)
    plain = text_of(await bot.edited(reply, since))
    assert "window: 7 days" in plain and "1. model-11 · default" in plain


async def test_leaderboard_bad_arguments_list_valid_ones(bot: Bot) -> None:
    user, chat = private_user(bot, 5003)
    plain = text_of(await bot.say(chat, user, "/leaderboard banana"))
    assert "banana" in plain
    assert "primebench" in plain and "zerobench" in plain
    assert "think_tools" in plain and "default" in plain
    # a near miss is answered with the command it was probably meant as
    plain = text_of(await bot.say(chat, user, "/leaderboard primebnch thinking"))
    assert plain == "I do not know “primebnch”. Did you mean /leaderboard primebench think?"
    plain = text_of(await bot.say(chat, user, "/leaderboard primebnch <b>"))  # no guess
    assert "benchmarks: primebench" in plain and "Did you mean" not in plain
    fa, fa_chat = private_user(bot, 5011, "fa")
    plain = text_of(await bot.say(fa_chat, fa, "/leaderboard zerobnch"))
    assert plain == "«zerobnch» را نمی‌شناسم. منظورتان /leaderboard zerobench بود؟"
    mark = bot.api.mark()
    plain = text_of(await bot.say(fa_chat, fa, "/leaderboard <b>"))
    assert "<b>" in plain and "بنچمارک‌ها: primebench" in plain
    # a word of 4,000 characters is cut short: the reply stays a reply Telegram takes
    plain = text_of(await bot.say(fa_chat, fa, "/leaderboard " + "x" * 4000))
    assert "x" * 200 in plain and "x" * 400 not in plain
    bot.check_clean(mark)


async def test_stale_board_button(bot: Bot) -> None:
    user, chat = private_user(bot, 5004)
    reply = await bot.say(chat, user, "/leaderboard")
    answer = await bot.press(chat, user, reply, "lb:nosuch:g:-:0:0", check_button=False)
    assert "no longer available" in answer["text"]


async def test_me_lists_bests_and_withdraw_leaves_the_board(bot: Bot) -> None:
    user, chat = private_user(bot, 5005)
    mark = bot.api.mark()
    sid = await _publish(bot, user, chat, "withdrawn-model", "tools", 60)
    private = submission_id(text_of(await bot.say(chat, user, f"model: other\n1:{KEY[1]}")))
    me = await bot.say(chat, user, "/me")
    plain = text_of(me)
    assert f"#{sid} · PrimeBench · withdrawn-model · tools · +60 · published" in plain
    assert f"#{private} · PrimeBench · other · — · +1 · private" in plain
    assert "Your bests" in plain and "withdrawn-model · tools · +60" in plain
    assert "1. withdrawn-model" in text_of(await bot.say(chat, user, "/leaderboard"))

    assert f"op:{private}" in buttons(me)  # a private result can be opened again
    since = bot.api.mark()
    answer = await bot.press(chat, user, me, f"wd:{sid}:0")  # asks first
    asked = await bot.api.wait_call("editMessageReplyMarkup", since=since, timeout=20)
    assert [b["callback_data"] for row in asked["params"]["reply_markup"]["inline_keyboard"]
            for b in row] == [f"wd:{sid}:0:yes", "me:0"]  # fmt: skip
    assert f"#{sid} · PrimeBench · withdrawn-model · tools · +60 · published" in text_of(
        await bot.say(chat, user, "/me")
    )  # nothing withdrawn yet
    since = bot.api.mark()
    answer = await bot.press(chat, user, me, f"wd:{sid}:0:yes")
    assert f"Withdrew #{sid}" in answer["text"]
    # /me is shown again as it now stands: withdrawn, no withdraw button for it.
    current = await bot.edited(me, since)
    assert f"#{sid} · PrimeBench · withdrawn-model · tools · +60 · withdrawn" in text_of(current)
    assert f"wd:{sid}:0" not in buttons(current)
    answer = await bot.press(chat, user, me, f"wd:{sid}:0:yes", check_button=False)
    assert f"#{sid} is already withdrawn" in answer["text"]
    # a withdrawn result opens again as its card, with Publish to put it back
    since = bot.api.mark()
    await bot.press(chat, user, current, f"op:{sid}")
    opened = await bot.api.wait_call("sendMessage", chat_id=chat["id"], since=since, timeout=20)
    assert "withdrawn-model" in text_of(opened) and f"pub:{sid}" in buttons(opened)
    board = text_of(await bot.say(chat, user, "/leaderboard"))
    assert "withdrawn-model" not in board
    assert f"#{sid} · PrimeBench · withdrawn-model · tools · +60 · withdrawn" in text_of(
        await bot.say(chat, user, "/me")
    )
    # Someone else cannot withdraw a result.
    other, other_chat = private_user(bot, 5006)
    sid2 = await _publish(bot, other, other_chat, "kept-model", "tools", 1)
    answer = await bot.press(chat, user, me, f"wd:{sid2}", check_button=False)
    assert answer.get("show_alert") is True and "Only the person" in answer["text"]
    assert "kept-model" in text_of(await bot.say(chat, user, "/leaderboard primebench tools"))
    bot.check_clean(mark)


async def test_me_when_empty(bot: Bot) -> None:
    user, chat = private_user(bot, 5007)
    assert "no submissions yet" in text_of(await bot.say(chat, user, "/me"))


async def test_start_deep_link_opens_a_result(bot: Bot, board: dict[str, int]) -> None:
    owner, owner_chat = private_user(bot, 5008)
    reply = await bot.say(owner_chat, owner, "#think\nmodel: secret-model\n1:1")
    private_id = submission_id(text_of(reply))
    # The owner sees their own private result with its buttons.
    mine = await bot.say(owner_chat, owner, f"/start s{private_id}")
    assert "secret-model" in text_of(mine) and buttons(mine)
    # Someone else: a submission's number opens nothing (results are shared by opaque
    # links, tests/e2e/test_bot_share.py), published or not.
    user, chat = private_user(bot, 5009)
    shared = text_of(await bot.say(chat, user, f"/start s{board['t2']}"))
    assert "this link is not available" in shared and "thinker" not in shared
    assert "publications left today" in text_of(mine)
    hidden = text_of(await bot.say(chat, user, f"/start s{private_id}"))
    assert f"#{private_id} was not found" in hidden and "secret-model" not in hidden
    assert "Hi! I score LLM benchmark outputs" in text_of(await bot.say(chat, user, "/start"))
    assert "not found" in text_of(await bot.say(chat, user, "/start s99999999"))


async def test_reference_table_is_shown_marked_as_reported(bot: Bot) -> None:
    user, chat = private_user(bot, 5010)
    plain = text_of(await bot.say(chat, user, "/leaderboard"))
    assert "Jibay 5 High · think & tools · +18 (reported)" in plain
    assert "Gemini 3.5 flash-lite · default · -45 (reported)" in plain
    # Reported results are not ranked rows.
    assert not re.search(r"^\d+\. Jibay 5 High", plain, re.M)
    think = text_of(await bot.say(chat, user, "/leaderboard think"))
    assert "deepseek v4.1 flash · think · +17 (reported)" in think
    assert "Jibay 5 High" not in think


async def test_long_escaped_model_names_keep_board_and_me_valid(bot: Bot) -> None:
    """Ten top rows whose names escape to 4x their length: the replies stay valid HTML."""
    name = "<&>" * 33
    user, chat = private_user(bot, 5200)
    mark = bot.api.mark()
    for n in range(10):
        await _publish(bot, user, chat, f"{n}{name}", "tools", 90 + n)
    board = await bot.say(chat, user, "/leaderboard")
    assert len(board["params"]["text"]) <= 4096
    plain = text_of(board)
    assert re.search(r"^1\. 9<&><&>.* · tools · \+99 \(1 run", plain, re.M), plain
    assert "10. 0<&>" in plain
    # Nothing after the rows is lost: references, key version, credit.
    assert "Jibay 5 High · think & tools · +18 (reported)" in plain
    assert "Scored against key version 1." in plain
    assert plain.endswith("PrimeBench by JibayAI (jibay.ir), CC BY-ND 4.0")
    me = await bot.say(chat, user, "/me")
    assert len(me["params"]["text"]) <= 4096
    plain = text_of(me)
    assert plain.count(" · tools · ") >= 10 + 3  # ten submissions and the three bests
    assert "Your bests" in plain and re.search(
        r"^PrimeBench 1\. 9<&>.* · tools · \+99$", plain, re.M
    )
    bot.check_clean(mark)

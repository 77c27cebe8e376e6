"""The buttons under a score reply: mode, model, publish, details; only for the submitter."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from .botkit import KEY, Bot, answers, bot_session, buttons, private_user, submission_id, text_of

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    async with bot_session(tmp_path_factory.mktemp("buttons")) as b:
        yield b


async def test_choose_mode_set_model_then_publish(bot: Bot) -> None:
    user, chat = private_user(bot, 3001)
    mark = bot.api.mark()
    reply = await bot.say(chat, user, "\n".join(answers(KEY, correct=7, wrong=1)))
    sid = submission_id(text_of(reply))
    assert f"pub:{sid}" not in buttons(reply)
    # The card says what is missing to publish, and offers it.
    assert "To publish: choose the mode and set the model" in text_of(reply)
    assert buttons(reply)[f"mode:{sid}:think_tools"] == "think & tools"

    # Mode: the reply shows it, the chosen button is marked, a mis-tap can be undone.
    since = bot.api.mark()
    answer = await bot.press(chat, user, reply, f"mode:{sid}:think")
    current = await bot.edited(reply, since)
    assert "Mode: think" in text_of(current).splitlines()
    since = bot.api.mark()
    answer = await bot.press(chat, user, current, f"mode:{sid}:think_tools")
    assert "think & tools" in answer.get("text", "")
    current = await bot.edited(reply, since)
    assert "Mode: think & tools" in text_of(current).splitlines()
    assert buttons(current)[f"mode:{sid}:think_tools"] == "• think & tools"
    assert f"pub:{sid}" not in buttons(current)  # the model is still missing
    assert "To publish: set the model" in text_of(current)

    # Model: the bot asks (ForceReply) and takes the next message.
    since = bot.api.mark()
    await bot.press(chat, user, current, f"model:{sid}")
    ask = await bot.api.wait_call("sendMessage", chat_id=chat["id"], since=since)
    assert f"#{sid}" in text_of(ask)
    assert ask["params"]["reply_markup"].get("force_reply") is True
    since = bot.api.mark()
    confirm = await bot.say(chat, user, "claude sonnet 5.5 medium")
    assert "Model set: claude sonnet 5.5 medium" in text_of(confirm)
    current = await bot.edited(reply, since)
    assert "Model: claude sonnet 5.5 medium" in text_of(current).splitlines()
    assert "Change model" in buttons(current)[f"model:{sid}"]  # until it is published
    assert f"pub:{sid}" in buttons(current)
    assert "press Publish" in text_of(current)
    assert not any("url" in b for row in current["reply_markup"]["inline_keyboard"] for b in row)

    # The next text is a submission again, not a model name.
    again = await bot.say(chat, user, "1:1")
    assert submission_id(text_of(again)) != sid

    # Publish: once.
    since = bot.api.mark()
    answer = await bot.press(chat, user, current, f"pub:{sid}")
    assert f"Published #{sid}" in answer["text"]
    current = await bot.edited(reply, since)
    assert "Published on the leaderboard." in text_of(current)
    assert f"pub:{sid}" not in buttons(current)
    # Published: mode and model are fixed; now it can be shared.
    assert not any(d.startswith(("mode:", "model:")) for d in buttons(current))
    assert {f"sh:{sid}", f"chl:{sid}"} <= set(buttons(current))  # Share, Challenge
    answer = await bot.press(chat, user, current, f"mode:{sid}:think", check_button=False)
    assert "can no longer change" in answer["text"]
    answer = await bot.press(chat, user, current, f"pub:{sid}", check_button=False)
    assert "already published" in answer["text"]

    board = text_of(await bot.say(chat, user, "/leaderboard"))
    assert "claude sonnet 5.5 medium · think & tools · +4 (1 run" in board
    bot.check_clean(mark)


async def test_publish_needs_mode_and_model(bot: Bot) -> None:
    user, chat = private_user(bot, 3002)
    reply = await bot.say(chat, user, "#think\n1:1")
    sid = submission_id(text_of(reply))
    assert f"pub:{sid}" not in buttons(reply)
    answer = await bot.press(chat, user, reply, f"pub:{sid}", check_button=False)
    assert answer.get("show_alert") is True
    assert "Set the mode and the model first" in answer["text"]
    me = text_of(await bot.say(chat, user, "/me"))
    assert f"#{sid}" in me and "private" in me


async def test_a_multiline_paste_is_not_taken_as_the_model_name(bot: Bot) -> None:
    user, chat = private_user(bot, 3003)
    reply = await bot.say(chat, user, "#think\n1:1")
    sid = submission_id(text_of(reply))
    since = bot.api.mark()
    await bot.press(chat, user, reply, f"model:{sid}")
    await bot.api.wait_call("sendMessage", chat_id=chat["id"], since=since)
    second = await bot.say(chat, user, "\n".join(answers(KEY, correct=3)))
    assert "Correct: 3" in text_of(second)
    confirm = await bot.say(chat, user, "Kimi K2.6 instant")
    assert "Model set: Kimi K2.6 instant" in text_of(confirm)


@pytest.mark.parametrize("action", ["mode:{sid}:think", "model:{sid}", "pub:{sid}", "det:{sid}"])
async def test_only_the_submitter_may_press(bot: Bot, action: str) -> None:
    ann, chat = private_user(bot, 3010)
    bob = bot.api.user(3011, "Bob")
    reply = await bot.say(chat, ann, "model: m\nbad line\n1:1")
    sid = submission_id(text_of(reply))
    mark = bot.api.mark()
    data = action.format(sid=sid)
    answer = await bot.press(chat, bob, reply, data, check_button=False)
    assert answer.get("show_alert") is True
    assert "Only the person who sent this submission" in answer["text"]
    # Nothing changed and nothing was sent.
    sent = [c["method"] for c in bot.api.calls[mark:]]
    assert not {"sendMessage", "editMessageText", "sendDocument"} & set(sent), sent
    assert "Mode: not set" in text_of(bot.current(reply))


async def test_stale_or_unknown_button_data(bot: Bot) -> None:
    user, chat = private_user(bot, 3020)
    reply = await bot.say(chat, user, "1:1")
    answer = await bot.press(chat, user, reply, "mode:999999:think", check_button=False)
    assert "#999999 was not found" in answer["text"]
    answer = await bot.press(chat, user, reply, "nonsense", check_button=False)
    assert "no longer available" in answer["text"]
    sid = submission_id(text_of(reply))
    answer = await bot.press(chat, user, reply, f"mode:{sid}:banana", check_button=False)
    assert "no longer available" in answer["text"]

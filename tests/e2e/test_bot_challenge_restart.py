"""An opened challenge is stored, not kept in one process's memory: a friend opens a
challenge link, the bot process is stopped and started again on the same data folder,
and the friend's next result still answers the challenge (and only that one)."""

from __future__ import annotations

import re
from pathlib import Path

from .botapi import FakeBotAPI
from .botkit import BOT, KEY, Bot, answers, bot_session, private_user, text_of
from .botkit import submission_id as sid_of

CHALLENGE_LINK = re.compile(rf"https://t\.me/{BOT}\?start=(c_[A-Za-z0-9_-]{{16}})")


async def _challenge_link(bot: Bot, uid: int, model: str, correct: int) -> str:
    """A published result of ``model`` and the payload of the challenge link to beat it."""
    user, chat = private_user(bot, uid)
    body = "\n".join(answers(KEY, correct=correct, wrong=1))
    reply = await bot.say(chat, user, f"#think\nmodel: {model}\n{body}")
    sid = sid_of(text_of(reply))
    since = bot.api.mark()
    await bot.press(chat, user, reply, f"pub:{sid}")
    card = await bot.edited(reply, since)
    since = bot.api.mark()
    await bot.press(chat, user, card, f"chl:{sid}")
    link_msg = await bot.api.wait_call("sendMessage", chat_id=chat["id"], since=since)
    found = CHALLENGE_LINK.search(text_of(link_msg))
    assert found is not None, text_of(link_msg)
    return found[1]


async def test_a_challenge_opened_before_a_restart_is_honoured_after_it(tmp_path: Path) -> None:
    api = FakeBotAPI(bot_username=BOT)
    await api.start()
    try:
        async with bot_session(tmp_path, api=api) as bot:
            payload = await _challenge_link(bot, 18105, "Champion", correct=9)
            friend, friend_chat = private_user(bot, 18106)
            opened = await bot.say(friend_chat, friend, f"/start {payload}")
            assert "beat +6 by Champion on PrimeBench" in text_of(opened)
        # a new process on the same data folder: nothing of the first one's memory
        async with bot_session(tmp_path, api=api) as bot:
            mark = bot.api.mark()
            body = "\n".join(answers(KEY, correct=10))
            answer = await bot.say(friend_chat, friend, f"#think\nmodel: Challenger\n{body}")
            assert "Challenge: beat +6 by Champion" in text_of(answer), text_of(answer)
            # answered once: the next result is an ordinary one
            again = await bot.say(friend_chat, friend, f"#think\nmodel: Challenger\n{body}")
            assert "Challenge: beat" not in text_of(again)
            # someone who opened none has none
            other, other_chat = private_user(bot, 18107)
            plain = await bot.say(other_chat, other, f"#think\nmodel: Other\n{body}")
            assert "Challenge: beat" not in text_of(plain)
            bot.check_clean(mark)
    finally:
        await api.stop()

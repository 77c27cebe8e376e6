"""/keyinfo's possible key errors, through the real bot: when most of the strongest
results on the board chose one option where the key says another, a bot admin's
/keyinfo (in a private chat) names the question, both options, the counts and /setkey.
Its own bot: the key changes here."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from .botkit import KEY, Bot, answers, bot_session, private_user, submission_id, text_of
from .harness import key_text

pytestmark = pytest.mark.asyncio(loop_scope="module")

ADMIN = 9101


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    env = {"BENCHBOARD_ADMINS": str(ADMIN)}
    async with bot_session(tmp_path_factory.mktemp("key-doubts"), env=env) as b:
        yield b


async def _upload(bot: Bot, data: bytes, caption: str, name: str = "A.txt") -> str:
    admin, chat = private_user(bot, ADMIN)
    msg = await bot.api.send_document(chat, admin, data, name, caption=caption)
    return text_of(await bot.api.reply_to(msg, timeout=20))


async def test_keyinfo_points_at_a_key_the_strongest_results_contradict(bot: Bot) -> None:
    """Most of the strongest results chose one option where a new key says another:
    /keyinfo (private chat) names the question, both options, the counts and /setkey."""
    mark = bot.api.mark()
    key = KEY
    for i in range(6):
        user, chat = private_user(bot, 9160 + i)
        text = "\n".join([f"model: Strong {i}", "#think", *answers(key, correct=60 + i)])
        reply = await bot.say(chat, user, text)
        await bot.press(chat, user, reply, f"pub:{submission_id(text_of(reply))}")
    admin, admin_chat = private_user(bot, ADMIN)
    info = text_of(await bot.say(admin_chat, admin, "/keyinfo"))
    assert "strongest results agree with the key" in info
    mistaken = {**key, 1: key[1] % 4 + 1}
    await _upload(bot, key_text(mistaken).encode(), "/setkey primebench")
    info = text_of(await bot.say(admin_chat, admin, "/keyinfo"))
    assert "Possible key errors" in info
    found = re.search(r"question 1: the key says (\d); (\d+) of (\d+) chose (\d)", info)
    assert found is not None, info
    assert (int(found[1]), int(found[4])) == (mistaken[1], key[1])
    assert int(found[2]) > int(found[3]) / 2
    assert "/setkey primebench" in info
    bot.check_clean(mark)

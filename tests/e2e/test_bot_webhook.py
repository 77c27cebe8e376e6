"""Webhook mode: the secret is checked; a submission round-trips; redelivery stores once."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from .botapi import free_port
from .botkit import KEY, Bot, answers, bot_session, private_user, submission_id, text_of
from .harness import webhook_env

pytestmark = pytest.mark.asyncio(loop_scope="module")
SECRET = "s3cret"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    port = free_port()
    env = webhook_env(port, SECRET)
    async with bot_session(tmp_path_factory.mktemp("webhook"), env=env) as b:
        yield b


async def test_webhook_is_set_with_the_secret(bot: Bot) -> None:
    assert bot.api.webhook_url is not None and bot.api.webhook_url.endswith("/telegram")
    assert bot.api.webhook_secret == SECRET
    assert not bot.api.calls_of("getUpdates")


async def test_submission_round_trip(bot: Bot) -> None:
    user, chat = private_user(bot, 8001)
    mark = bot.api.mark()
    text = "\n".join(["#think", "model: hook-model", *answers(KEY, correct=3)])
    reply = await bot.say(chat, user, text)
    plain = text_of(reply)
    assert "Correct: 3" in plain and "Mode: think" in plain.splitlines()
    sid = submission_id(plain)
    answer = await bot.press(chat, user, reply, f"pub:{sid}")
    assert f"Published #{sid}" in answer["text"]
    assert "hook-model" in text_of(await bot.say(chat, user, "/leaderboard"))
    assert all(d.status == 200 for d in bot.api.webhook_deliveries)
    bot.check_clean(mark)


@pytest.mark.parametrize("secret", ["wrong", "", None], ids=["wrong", "empty", "missing"])
async def test_wrong_or_missing_secret_is_rejected(bot: Bot, secret: str | None) -> None:
    user, chat = private_user(bot, 8002)
    update = bot.api.make_text_update(chat, user, f"1:{KEY[1]}")
    mark = bot.api.mark()
    assert await bot.api.post_raw_update(update, secret) == 403
    # The update was not handled: the next (good) message is the first one answered.
    await asyncio.sleep(0.3)
    assert not [c for c in bot.api.calls[mark:] if c["method"] == "sendMessage"]
    assert "no submissions yet" in text_of(await bot.say(chat, user, "/me"))


@pytest.mark.parametrize("together", [False, True], ids=["one-after-another", "concurrently"])
async def test_same_update_twice_stores_one_submission(bot: Bot, together: bool) -> None:
    user, chat = private_user(bot, 8003 + int(together))
    update = bot.api.make_text_update(chat, user, "\n".join(answers(KEY, correct=2)))
    mark = bot.api.mark()
    if together:
        statuses = await asyncio.gather(
            bot.api.post_raw_update(update, SECRET), bot.api.post_raw_update(update, SECRET)
        )
    else:
        statuses = [await bot.api.post_raw_update(update, SECRET)]
        await bot.api.wait_call("sendMessage", chat_id=chat["id"], since=mark, timeout=20)
        statuses.append(await bot.api.post_raw_update(update, SECRET))
    assert statuses == [200, 200]
    await bot.api.wait_until(
        lambda: len([c for c in bot.api.calls[mark:] if c["method"] == "sendMessage"]) >= 1,
        timeout=20,
    )
    await asyncio.sleep(0.5)  # let a second handling (if any) finish
    replies = [
        c
        for c in bot.api.calls[mark:]
        if c["method"] == "sendMessage" and c["params"]["chat_id"] == chat["id"]
    ]
    ids = {submission_id(text_of(c)) for c in replies}
    assert len(ids) == 1, [text_of(c) for c in replies]
    me = text_of(await bot.say(chat, user, "/me"))
    assert len(re.findall(r"^#\d+ ·", me, re.M)) == 1, me
    bot.check_clean(mark)

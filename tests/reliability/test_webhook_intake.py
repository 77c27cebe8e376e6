"""Webhook mode through the durable intake: a body that is not an update gets 400 and
reaches no handler; an update delivered twice is handled (and answered) once."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import aiohttp
import pytest
import pytest_asyncio

from tests.e2e.botapi import SECRET_HEADER, free_port
from tests.e2e.botkit import KEY, Bot, answers, bot_session, private_user
from tests.e2e.harness import webhook_env

pytestmark = pytest.mark.asyncio(loop_scope="module")
SECRET = "s3cret"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    port = free_port()
    env = webhook_env(port, SECRET)
    # bot_session checks on the way out that the bot logged no traceback and no error
    async with bot_session(tmp_path_factory.mktemp("webhook-intake"), env=env) as b:
        yield b


@pytest.mark.parametrize(
    "body",
    [
        b"[1,2]",
        b'"update"',
        b"7",
        b"null",
        b"{}",
        b"not json",
        json.dumps({"update_id": "7"}).encode(),
        json.dumps({"update_id": 7, "message": "no"}).encode(),
        json.dumps({"update_id": 8, "message": {"message_id": "x"}}).encode(),
    ],
    ids=["array", "string", "number", "null", "empty", "not-json", "id", "message", "fields"],
)
async def test_a_body_that_is_not_an_update_gets_400(bot: Bot, body: bytes) -> None:
    url = bot.api.webhook_url
    assert url is not None
    headers = {SECRET_HEADER: SECRET, "Content-Type": "application/json"}
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, data=body, headers=headers) as r,
    ):
        assert r.status == 400


async def test_an_update_delivered_twice_is_answered_once(bot: Bot) -> None:
    user, chat = private_user(bot, 8101)
    update = bot.api.make_text_update(chat, user, "\n".join(answers(KEY, correct=2)))
    mark = bot.api.mark()
    first = await asyncio.gather(*(bot.api.post_raw_update(update, SECRET) for _ in range(3)))
    await bot.api.wait_call("sendMessage", chat_id=chat["id"], since=mark, timeout=20)
    again = await bot.api.post_raw_update(update, SECRET)
    assert [*first, again] == [200, 200, 200, 200]
    await asyncio.sleep(0.5)
    replies = [c for c in bot.api.calls_of("sendMessage") if c["params"]["chat_id"] == chat["id"]]
    assert len(replies) == 1, replies

"""Webhook mode through the durable intake: a body that is not an update gets 400 and
reaches no handler; an update delivered twice is handled (and answered) once; a POST
without the secret is refused before its body is read, and a body is capped."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

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


async def _raw_post(
    url: str, headers: dict[str, str], body_size: int, *, answer_first: bool = True
) -> tuple[bytes, float, int]:
    """POST with a ``Content-Length`` of ``body_size`` over a plain socket: the status
    line, the seconds it took, and how many body bytes could be sent before the server
    closed the connection. ``answer_first``: the status line is awaited before any of
    the body is sent (a server that wants the body never answers); else the body goes
    at once, as a flood would send it."""
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    head = [f"POST {parts.path} HTTP/1.1", f"Host: {parts.netloc}"]
    head += [f"{k}: {v}" for k, v in {**headers, "Content-Length": str(body_size)}.items()]
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
    started = time.monotonic()
    status, took, sent = b"", 0.0, 0
    piece = b"9" * 65536
    try:
        if answer_first:
            status = await asyncio.wait_for(reader.readline(), 10)
            took = time.monotonic() - started
        with contextlib.suppress(OSError):
            while sent < body_size:
                writer.write(piece[: body_size - sent])
                await asyncio.wait_for(writer.drain(), 10)
                sent += min(len(piece), body_size - sent)
        if not answer_first:
            with contextlib.suppress(OSError):
                status = await asyncio.wait_for(reader.readline(), 10)
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
    return status, took, sent


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


async def test_a_large_post_without_the_secret_is_refused_before_its_body(bot: Bot) -> None:
    """The secret is read from the headers before the body: a 50 MB POST with a wrong
    secret (or none) is answered 403 at once, having sent a small part of it."""
    url = bot.api.webhook_url
    assert url is not None
    for headers in ({SECRET_HEADER: "wrong"}, {}):
        status, took, sent = await _raw_post(url, headers, 50 << 20)
        assert status.startswith(b"HTTP/1.1 403"), status
        assert took < 3.0, took
        # the connection is closed: what got out before is what the socket buffers held
        assert sent < 20 << 20, sent


async def test_unauthenticated_posts_do_not_grow_the_bot(bot: Bot) -> None:
    """200 POSTs of 1 MB with a wrong secret (20 at a time) leave the bot's memory as
    it was (it took 250 MB when every body was read before the secret was checked)."""
    url = bot.api.webhook_url
    assert url is not None
    before = _rss_mb(bot.proc.proc.pid)
    for _ in range(10):
        await asyncio.gather(
            *(
                _raw_post(url, {SECRET_HEADER: "wrong"}, 1 << 20, answer_first=False)
                for _ in range(20)
            )
        )
    grown = _rss_mb(bot.proc.proc.pid) - before
    assert grown < 30, f"the bot grew by {grown:.0f} MB"


async def test_an_authenticated_body_over_the_cap_gets_413(bot: Bot) -> None:
    url = bot.api.webhook_url
    assert url is not None
    headers = {SECRET_HEADER: SECRET, "Content-Type": "application/json"}
    status, _, _ = await _raw_post(url, headers, 300 * 1024)
    assert status.startswith(b"HTTP/1.1 413"), status
    # and an update of ordinary size is still taken
    user, chat = private_user(bot, 8102)
    update = bot.api.make_text_update(chat, user, "\n".join(answers(KEY, correct=3)))
    assert await bot.api.post_raw_update(update, SECRET) == 200

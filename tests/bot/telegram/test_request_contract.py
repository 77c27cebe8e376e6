"""PTB's request contract, kept by the project's transport as by PTB's own.

The cases are PTB's ``tests/request/test_request.py`` (``TestRequestWithoutRequest``,
``TestHTTPXRequestWithoutRequest``, ``TestHTTPXRequestWithRequest``), adapted: where
PTB replaces ``httpx.AsyncClient.request`` to see which timeouts it is given, these run
against real local servers (one that answers late, one that stops reading an upload, a
pool of one connection kept busy) and time what happens. Every case runs on
``bot.telegram.http.AiohttpRequest`` and on PTB's ``HTTPXRequest``: the two must agree.

Bounds are generous (the machine is shared): a time-out of 0.3 s must come well before
the 5 s a wrong timeout would wait.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import socket
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from http import HTTPStatus
from typing import Any

import pytest
from aiohttp import web
from telegram import Bot
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)
from telegram.request import BaseRequest, HTTPXRequest

from bot.telegram.http import AiohttpRequest

_ME = {"id": 1, "is_bot": True, "first_name": "B", "username": "b_bot"}
_MESSAGE = {"message_id": 5, "date": 0, "chat": {"id": 42, "type": "private"}}

Make = Callable[..., BaseRequest]


@pytest.fixture(params=["aiohttp", "httpx"])
def make(request: pytest.FixtureRequest) -> Make:
    """The transport under test, built with PTB's keyword arguments."""
    if request.param == "aiohttp":
        return AiohttpRequest
    return HTTPXRequest


@asynccontextmanager
async def _answering() -> AsyncIterator[tuple[str, list[str]]]:
    """A server answering ``/wait/<seconds>`` after that long, and
    ``/status/<code>`` with that status and the JSON body given in the query's ``body``;
    its base URL, and the paths of the requests that reached it."""
    seen: list[str] = []

    async def wait(request: web.Request) -> web.Response:
        seen.append(request.path)
        await asyncio.sleep(float(request.match_info["seconds"]))
        return web.json_response({"ok": True, "result": "late"})

    async def status(request: web.Request) -> web.Response:
        seen.append(request.path)
        return web.Response(
            status=int(request.match_info["code"]),
            body=request.query.get("body", "").encode(),
            content_type="application/json",
        )

    app = web.Application()
    app.router.add_post("/wait/{seconds}", wait)
    app.router.add_post("/status/{code}", status)
    runner = web.AppRunner(app, shutdown_timeout=0.1)  # late answers are not waited for
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    try:
        yield f"http://{host}:{port}", seen
    finally:
        await runner.cleanup()


@asynccontextmanager
async def _not_reading(pause: float) -> AsyncIterator[str]:
    """A Bot API server that, given a request with a body (but ``getMe``), stops reading
    it for ``pause`` seconds, with a small receive buffer, so that the client's writes
    wait; then reads it whole and answers. Its bot URL (``.../bot``)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    sock.setblocking(False)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = (await reader.readuntil(b"\r\n\r\n")).decode()
                lines = head.split("\r\n")
                path = lines[0].split()[1]
                fields = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
                length = int({k.lower(): v for k, v in fields.items()}.get("content-length", 0))
                if not path.endswith("/getMe"):
                    await asyncio.sleep(pause)
                await reader.readexactly(length)
                result = _ME if path.endswith("/getMe") else _MESSAGE
                body = json.dumps({"ok": True, "result": result}).encode()
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    + f"Content-Length: {len(body)}\r\n\r\n".encode()
                    + body
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, sock=sock)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/bot"
    finally:
        server.close()
        await server.wait_closed()


#: An upload larger than what the sockets' buffers hold between the two ends (the
#: client's send buffer grows to 4 MiB at most here), so its writes wait for the server.
_UPLOAD = b"\0" * (24 * 1024 * 1024)


async def _elapsed(call: Any) -> tuple[float, BaseException | None]:
    start = time.monotonic()
    try:
        await call
    except BaseException as exc:  # the test looks at it
        return time.monotonic() - start, exc
    return time.monotonic() - start, None


# --- timeouts: read and write apart, None, overrides (test_do_request_*_timeouts) ------


async def test_read_timeout_bounds_the_answer_apart_from_the_write_timeout(make: Make) -> None:
    async with _answering() as (url, _), make(read_timeout=0.3, write_timeout=5.0) as request:
        took, error = await _elapsed(request.post(f"{url}/wait/5"))
    assert isinstance(error, TimedOut)
    assert took < 2.5


async def test_a_call_s_read_timeout_replaces_the_default(make: Make) -> None:
    async with _answering() as (url, _), make(read_timeout=5.0) as request:
        took, error = await _elapsed(request.post(f"{url}/wait/5", read_timeout=0.3))
        assert isinstance(error, TimedOut)
        assert took < 2.5
        # and the other way round: a longer one lets a late answer through
    async with _answering() as (url, _), make(read_timeout=0.2) as request:
        assert await request.post(f"{url}/wait/0.8", read_timeout=5.0) == "late"


async def test_a_short_write_timeout_does_not_cut_a_late_answer(make: Make) -> None:
    async with _answering() as (url, _), make(read_timeout=5.0, write_timeout=0.1) as request:
        assert await request.post(f"{url}/wait/0.8") == "late"


async def test_none_is_no_limit(make: Make) -> None:
    async with _answering() as (url, _):
        async with make(read_timeout=0.2) as request:
            assert await request.post(f"{url}/wait/0.8", read_timeout=None) == "late"
        async with make(read_timeout=None) as request:
            assert await request.post(f"{url}/wait/0.8") == "late"


@pytest.mark.parametrize("read_timeout", [None, 1, 2, 3])
def test_read_timeout_property(make: Make, read_timeout: float | None) -> None:
    assert make(read_timeout=read_timeout).read_timeout == read_timeout


def test_the_defaults_are_ptbs() -> None:
    """HTTPXRequest's defaults (pool of 256, 5 s timeouts, 1 s for the pool, 20 s to
    write an upload) are ours."""
    ours = inspect.signature(AiohttpRequest).parameters
    ptbs = inspect.signature(HTTPXRequest).parameters
    for name in (
        "connection_pool_size",
        "read_timeout",
        "write_timeout",
        "connect_timeout",
        "pool_timeout",
        "media_write_timeout",
    ):
        assert ours[name].default == ptbs[name].default, name
    assert ours["media_write_timeout"].default == 20.0


# --- the pool (test_do_request_pool_timeout, test_do_request_wait_for_pool) ------------


async def test_a_full_pool_raises_pool_timeout_and_sends_nothing(make: Make) -> None:
    async with (
        _answering() as (url, seen),
        make(connection_pool_size=1, pool_timeout=0.2) as request,
    ):
        busy = asyncio.ensure_future(request.post(f"{url}/wait/3"))
        await asyncio.sleep(0.3)  # the one connection is taken
        took, error = await _elapsed(request.post(f"{url}/wait/0"))
        assert isinstance(error, TimedOut)
        assert str(error).startswith("Pool timeout: All connections in the connection pool")
        assert took < 2.0
        assert seen == ["/wait/3"]  # the second call was not sent
        busy.cancel()
        await asyncio.gather(busy, return_exceptions=True)


async def test_without_a_pool_timeout_a_call_waits_for_the_pool(make: Make) -> None:
    async with (
        _answering() as (url, _),
        make(connection_pool_size=1, pool_timeout=None) as request,
    ):
        first = asyncio.ensure_future(request.post(f"{url}/wait/0.6"))
        await asyncio.sleep(0.1)
        second = asyncio.ensure_future(request.post(f"{url}/wait/0"))
        done, pending = await asyncio.wait({first, second}, return_when=asyncio.FIRST_COMPLETED)
        assert done == {first} and pending == {second}
        assert await second == "late"


# --- uploads: the media write timeout (test_do_request_write_timeout,
# test_setting_media_write_timeout) -------------------------------------------------


async def _upload(bot_url: str, request: BaseRequest, **timeouts: float | None) -> None:
    async with Bot("1:x", bot_url, request=request) as bot:
        await bot.send_document(42, _UPLOAD, filename="big.bin", **timeouts)


async def test_an_upload_gets_the_media_write_timeout_not_the_write_timeout(make: Make) -> None:
    # 20 s by default: a 0.3 s write timeout does not cut an upload the server reads late
    async with _not_reading(1.5) as url:
        await _upload(url, make(write_timeout=0.3))


async def test_the_media_write_timeout_bounds_an_upload(make: Make) -> None:
    async with _not_reading(6.0) as url:
        took, error = await _elapsed(_upload(url, make(media_write_timeout=0.5)))
    assert isinstance(error, TimedOut)
    assert took < 4.5


async def test_a_call_s_write_timeout_replaces_the_media_one(make: Make) -> None:
    async with _not_reading(1.5) as url:
        await _upload(url, make(media_write_timeout=0.3), write_timeout=10.0)


async def test_the_read_timeout_does_not_run_while_an_upload_is_written(make: Make) -> None:
    async with _not_reading(1.5) as url:
        await _upload(url, make(read_timeout=0.3, media_write_timeout=10.0))


# --- answers and faults (TestRequestWithoutRequest) -----------------------------------


@pytest.mark.parametrize(
    ("code", "error"),
    [
        (HTTPStatus.FORBIDDEN, Forbidden),
        (HTTPStatus.NOT_FOUND, InvalidToken),
        (HTTPStatus.UNAUTHORIZED, InvalidToken),
        (HTTPStatus.BAD_REQUEST, BadRequest),
        (HTTPStatus.CONFLICT, Conflict),
        (HTTPStatus.BAD_GATEWAY, NetworkError),
    ],
)
async def test_error_answers_are_ptbs_errors(
    make: Make, code: HTTPStatus, error: type[TelegramError]
) -> None:
    body = json.dumps({"ok": False, "description": "Test Message"})
    async with _answering() as (url, _), make() as request:
        with pytest.raises(error, match="Test Message"):
            await request.post(f"{url}/status/{code.value}?body={body}")


async def test_retry_after_and_chat_migrated(make: Make, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")
    retry = json.dumps({"ok": False, "parameters": {"retry_after": 42}})
    migrated = json.dumps({"ok": False, "parameters": {"migrate_to_chat_id": 123}})
    async with _answering() as (url, _), make() as request:
        with pytest.raises(RetryAfter) as waited:
            await request.post(f"{url}/status/400?body={retry}")
        assert waited.value.retry_after.total_seconds() == 42  # type: ignore[union-attr]
        with pytest.raises(ChatMigrated, match="New chat id: 123"):
            await request.post(f"{url}/status/400?body={migrated}")


async def test_an_unreadable_answer_is_a_telegram_error(make: Make) -> None:
    async with _answering() as (url, _), make() as request:
        with pytest.raises(TelegramError, match="Invalid server response"):
            await request.post(f"{url}/status/200?body={{result: 1}}")


async def test_a_refused_connection_is_a_network_error(make: Make) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    async with make() as request:
        with pytest.raises(NetworkError) as raised:
            await request.post(f"http://127.0.0.1:{port}/x")
    assert not isinstance(raised.value, TimedOut)
    assert raised.value.__cause__ is not None


async def test_after_shutdown_it_refuses_and_it_can_start_again(make: Make) -> None:
    request = make()
    async with _answering() as (url, _):
        for _ in range(2):  # test_multiple_init_cycles
            async with request:
                assert await request.post(f"{url}/wait/0") == "late"
        with pytest.raises(RuntimeError, match="not initialized"):
            await request.do_request(url=f"{url}/wait/0", method="POST")


async def test_an_answer_before_the_upload_is_read_ends_the_call_cleanly(make: Make) -> None:
    """A server that refuses an upload without reading it: the call fails with PTB's
    error, and nothing is left writing in the background (no error on the loop)."""
    loop_errors: list[dict[str, Any]] = []
    asyncio.get_running_loop().set_exception_handler(lambda _, context: loop_errors.append(context))

    async def refuse(request: web.Request) -> web.Response:
        if request.match_info["method"] == "getMe":
            return web.json_response({"ok": True, "result": _ME})
        return web.json_response({"ok": False, "description": "Bad Request: no"}, status=400)

    app = web.Application()
    app.router.add_post("/bot{token}/{method}", refuse)
    runner = web.AppRunner(app, shutdown_timeout=0.1)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    try:
        for _ in range(2):
            with pytest.raises((BadRequest, NetworkError)):
                await _upload(f"http://{host}:{port}/bot", make())
        await asyncio.sleep(0.2)
    finally:
        await runner.cleanup()
    assert loop_errors == []

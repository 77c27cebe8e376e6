"""The aiohttp transport (bot/telegram/http.py), as a Bot API server sees its requests."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputFile
from telegram.error import BadRequest, NetworkError

from bot.telegram.http import AiohttpRequest, markup_json

_ME = {"id": 1, "is_bot": True, "first_name": "B", "username": "b_bot"}
_MESSAGE = {"message_id": 5, "date": 0, "chat": {"id": 42, "type": "private"}}


@asynccontextmanager
async def _serving(app: web.Application) -> AsyncIterator[str]:
    """``app`` served on a free local port: its base URL."""
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    try:
        yield f"http://{host}:{port}"
    finally:
        await runner.cleanup()


@asynccontextmanager
async def _bot(seen: list[tuple[str, str, bytes]]) -> AsyncIterator[Bot]:
    """A Bot on the transport, talking to a server that records each request."""

    async def answer(request: web.Request) -> web.Response:
        method = request.match_info["method"]
        seen.append((method, request.content_type, await request.read()))
        return web.json_response({"ok": True, "result": _ME if method == "getMe" else _MESSAGE})

    app = web.Application()
    app.router.add_post("/bot{token}/{method}", answer)
    async with _serving(app) as url, Bot("1:x", f"{url}/bot", request=AiohttpRequest()) as bot:
        yield bot


def _last(seen: list[tuple[str, str, bytes]], method: str) -> tuple[str, bytes]:
    found = [(kind, body) for name, kind, body in seen if name == method]
    return found[-1]


async def test_calls_without_files_send_one_json_body_with_native_values() -> None:
    seen: list[tuple[str, str, bytes]] = []
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Publish", callback_data="pub:7")]])
    async with _bot(seen) as bot:
        await bot.send_message(42, "<b>Final Score:</b> 9 مدل", reply_markup=markup)
    kind, body = _last(seen, "sendMessage")
    assert kind == "application/json"
    sent: dict[str, Any] = json.loads(body)
    assert sent == {
        "chat_id": 42,
        "text": "<b>Final Score:</b> 9 مدل",
        "reply_markup": {"inline_keyboard": [[{"text": "Publish", "callback_data": "pub:7"}]]},
    }


async def test_calls_without_parameters_send_no_body() -> None:
    seen: list[tuple[str, str, bytes]] = []
    async with _bot(seen) as bot:
        await bot.get_me()
    assert _last(seen, "getMe")[1] == b""


async def test_uploads_are_multipart_with_the_other_fields_beside_the_file() -> None:
    seen: list[tuple[str, str, bytes]] = []
    async with _bot(seen) as bot:
        await bot.send_document(42, InputFile(b"1:3\n", filename="answers.txt"), caption="d")
    kind, body = _last(seen, "sendDocument")
    assert kind == "multipart/form-data"
    assert b'filename="answers.txt"' in body and b"1:3\n" in body and b"details" not in body
    assert b'name="caption"' in body and b'name="chat_id"' in body


def test_markup_json_is_what_ptb_writes() -> None:
    markup = InlineKeyboardMarkup(
        [
            [InlineKeyboardButton("Publish", callback_data="pub:1")],
            [
                InlineKeyboardButton("Open", url="https://t.me/x?start=s1"),
                InlineKeyboardButton("Share", switch_inline_query="s1"),
            ],
        ]
    )
    assert markup_json(markup) == markup.to_dict()


@asynccontextmanager
async def _file_server(body: bytes, status: int = 200) -> AsyncIterator[str]:
    """A server answering every file path with ``body`` (sent in small pieces)."""

    async def answer(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(status=status)
        await response.prepare(request)
        for start in range(0, len(body), 1000):
            await response.write(body[start : start + 1000])
        await response.write_eof()
        return response

    app = web.Application()
    app.router.add_get("/file/{path:.+}", answer)
    async with _serving(app) as url:
        yield f"{url}/file/documents/a b.txt"


async def test_a_download_is_streamed_into_the_file_whole(tmp_path: Path) -> None:
    body = bytes(range(256)) * 3000  # 768,000 bytes: several chunks
    request = AiohttpRequest()
    await request.initialize()
    try:
        async with _file_server(body) as url:
            written = await request.download_to(url, tmp_path / "f", limit=len(body))
    finally:
        await request.shutdown()
    assert written == len(body)
    assert (tmp_path / "f").read_bytes() == body


async def test_a_download_over_the_limit_or_failing_is_refused(tmp_path: Path) -> None:
    request = AiohttpRequest()
    await request.initialize()
    try:
        async with _file_server(b"x" * 5000) as url:
            with pytest.raises(BadRequest, match="larger than 4999"):
                await request.download_to(url, tmp_path / "big", limit=4999)
        async with _file_server(b"gone", status=404) as url:
            with pytest.raises(BadRequest, match="404"):
                await request.download_to(url, tmp_path / "gone", limit=100)
        async with _file_server(b"later", status=502) as url:
            with pytest.raises(NetworkError, match="502") as caught:
                await request.download_to(url, tmp_path / "later", limit=100)
            assert not isinstance(caught.value, BadRequest)  # a transient fault
    finally:
        await request.shutdown()

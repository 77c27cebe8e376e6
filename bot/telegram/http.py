"""Talking to the Bot API: the transport on aiohttp, and the bot class.

PTB's default transport (httpx) costs several milliseconds of CPU per request on a small
machine, and it is the largest part of handling one submission. This class implements
PTB's ``BaseRequest`` on an aiohttp session instead; the bot's behaviour is unchanged
(timeouts, errors and uploads map onto PTB's own types).

Calls without files are sent as one JSON body (the Bot API accepts ``application/json``):
``json.dumps`` runs in C, where URL-encoding a score reply took several times longer.

:class:`ReplyBot` is PTB's ``ExtBot`` with one more call, :meth:`ReplyBot.send_reply`, for
the reply to every submission.
"""

from __future__ import annotations

import json
from typing import Any

import aiohttp
from telegram import InlineKeyboardMarkup, LinkPreviewOptions, Message, ReplyParameters
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.constants import ChatType, ParseMode
from telegram.error import NetworkError, TimedOut
from telegram.ext import ExtBot
from telegram.request import BaseRequest, RequestData


class AiohttpRequest(BaseRequest):
    """``telegram.request.BaseRequest`` over one ``aiohttp.ClientSession``."""

    __slots__ = ("_connect_timeout", "_limit", "_read_timeout", "_session", "_write_timeout")

    def __init__(
        self,
        *,
        connection_pool_size: int = 256,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
    ) -> None:
        self._limit = connection_pool_size
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._limit),
                headers={"User-Agent": self.USER_AGENT},
            )

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if self._session is None or self._session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        read = self._read_timeout if isinstance(read_timeout, DefaultValue) else read_timeout
        write = self._write_timeout if isinstance(write_timeout, DefaultValue) else write_timeout
        connect = (
            self._connect_timeout if isinstance(connect_timeout, DefaultValue) else connect_timeout
        )
        timeout = aiohttp.ClientTimeout(
            total=None, sock_connect=connect, sock_read=_longest(read, write)
        )
        try:
            async with self._session.request(
                method, url, timeout=timeout, **_body(request_data)
            ) as response:
                return response.status, await response.read()
        except (TimeoutError, aiohttp.ServerTimeoutError) as exc:
            raise TimedOut from exc
        except aiohttp.ClientError as exc:
            raise NetworkError(f"aiohttp.{type(exc).__name__}: {exc}") from exc


def _longest(*values: float | None) -> float | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


_JSON = {"Content-Type": "application/json"}


def _body(request_data: RequestData | None) -> dict[str, Any]:
    """The request's body: JSON, or multipart form data when files are uploaded."""
    if request_data is None:
        return {}
    if not request_data.contains_files:
        parameters = request_data.parameters
        return {"data": json.dumps(parameters).encode(), "headers": _JSON} if parameters else {}
    form = aiohttp.FormData()
    for name, value in request_data.json_parameters.items():
        form.add_field(name, value)
    for name, (filename, content, mime_type) in request_data.multipart_data.items():
        form.add_field(name, content, filename=filename, content_type=mime_type)
    return {"data": form}


_NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


class ReplyBot(ExtBot[None]):
    """PTB's ``ExtBot`` (rate limiter included), plus :meth:`send_reply`."""

    async def send_reply(
        self, to: Message, text: str, reply_markup: InlineKeyboardMarkup | None = None
    ) -> None:
        """What ``to.reply_text(text, parse_mode=HTML, no link preview)`` sends, without
        building a ``Message`` from Telegram's answer, which the caller does not use:
        PTB takes about as long to parse the answer to a score reply (its entities and
        buttons) as the bot takes to score the submission.

        It posts through ``ExtBot._post``, as PTB's own ``send_message`` does, so the
        rate limiter applies and errors are PTB's own (``BadRequest``, ``Forbidden``, ...);
        ``_post`` is internal to PTB, which pyproject.toml pins below 23.
        """
        data: dict[str, Any] = {
            "chat_id": to.chat_id,
            "text": text,
            "parse_mode": ParseMode.HTML,
            "link_preview_options": _NO_PREVIEW,
            "reply_markup": reply_markup,
        }
        if to.chat.type != ChatType.PRIVATE:  # reply_text quotes outside private chats
            data["reply_parameters"] = ReplyParameters(to.message_id)
        if to.is_topic_message:  # and stays in the forum topic
            data["message_thread_id"] = to.message_thread_id
        await self._post("sendMessage", data)

"""Talking to the Bot API: PTB's ``BaseRequest`` on an aiohttp session.

It stands in for PTB's default transport (httpx), which costs more CPU per request
(``tests/benchmarks/bench_bot.py`` measures the bot on it); timeouts, errors and uploads
map onto PTB's own types, so the bot behaves the same.

Calls without files are sent as one JSON body (the Bot API accepts ``application/json``),
which ``json.dumps`` writes faster than a URL-encoded form.
"""

from __future__ import annotations

import json
from typing import Any, TypeAlias

import aiohttp
from telegram.error import NetworkError, TimedOut
from telegram.ext import ExtBot
from telegram.request import BaseRequest, RequestData

#: A timeout as PTB passes one: seconds, None (no limit), or ``BaseRequest.DEFAULT_NONE``
#: (this transport's own). PTB's alias for it is private, hence ``object``.
ODVInput: TypeAlias = float | object | None

#: The bot: PTB's ``ExtBot`` with ``AIORateLimiter`` (whose per-call argument is an int).
BenchBot: TypeAlias = ExtBot[int]


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
        read_timeout: ODVInput = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if self._session is None or self._session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        read = _seconds(read_timeout, self._read_timeout)
        write = _seconds(write_timeout, self._write_timeout)
        connect = _seconds(connect_timeout, self._connect_timeout)
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


def _seconds(value: ODVInput, default: float | None) -> float | None:
    if value is BaseRequest.DEFAULT_NONE:
        return default
    return float(value) if isinstance(value, int | float) else None


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

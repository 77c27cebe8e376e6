"""Talking to the Bot API: PTB's ``BaseRequest`` on an aiohttp session, the rate
limiter that retries transient faults, and the score reply.

It stands in for PTB's default transport (httpx), which costs more CPU per request
(``tests/benchmarks/bench_bot.py`` measures the bot on it). It keeps PTB's request
contract as ``HTTPXRequest`` does (its timeouts, its pool's time-out, its media write
timeout; ``tests/bot/telegram/test_request_contract.py`` runs PTB's cases on both), and
faults map onto PTB's own errors, so the bot behaves the same.

Calls without files are sent as one JSON body (the Bot API accepts ``application/json``),
which ``json.dumps`` writes faster than a URL-encoded form; uploads as multipart form
data, written as httpx writes it.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import random
import re
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeAlias, cast

import aiohttp
from telegram import InlineKeyboardMarkup, LinkPreviewOptions, Message, ReplyParameters
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, NetworkError, RetryAfter, TimedOut
from telegram.ext import AIORateLimiter, Defaults, ExtBot
from telegram.request import BaseRequest, RequestData

from .fairsend import FairSchedule, SharedRate, skipped

#: A timeout as PTB passes one: seconds, None (no limit), or ``BaseRequest.DEFAULT_NONE``
#: (this transport's own). PTB's alias for it is private, hence ``object``.
ODVInput: TypeAlias = float | object | None

#: The bot: PTB's ``ExtBot`` with ``AIORateLimiter`` (whose per-call argument is an int).
BenchBot: TypeAlias = ExtBot[int]

#: Every message the bot sends is HTML (anything from a user or a model is escaped)
#: without link previews, unless a call says otherwise: the Application's defaults
#: (``tests/benchmarks/echo_bot.py`` replies the same way). A reply to a message deleted
#: meanwhile (a group's clean-up bot removes every command at once) is sent all the same,
#: without the quote: Telegram would refuse it, and the card or answer would be lost.
DEFAULTS = Defaults(
    parse_mode=ParseMode.HTML,
    link_preview_options=LinkPreviewOptions(is_disabled=True),
    allow_sending_without_reply=True,
)


#: The defaults' link preview options as the Bot API's JSON, written once: a reply sends
#: it as it is (PTB would write the ``LinkPreviewOptions`` out again for every call).
_NO_PREVIEW: dict[str, Any] = (
    DEFAULTS.link_preview_options.to_dict() if DEFAULTS.link_preview_options else {}
)


def markup_json(markup: InlineKeyboardMarkup) -> dict[str, Any]:
    """``markup.to_dict()``, faster for the buttons a score card has: a button with
    ``callback_data`` has no other field, so it is written directly (PTB's generic
    ``to_dict`` walks every attribute of every button: thirty times as long)."""
    return {
        "inline_keyboard": [
            [
                {"text": b.text, "callback_data": b.callback_data}
                if b.callback_data is not None
                else b.to_dict()
                for b in row
            ]
            for row in markup.inline_keyboard
        ]
    }


def topic_of(message: Message) -> int | None:
    """The forum topic ``message`` is in, for an answer that is no reply to it (or whose
    quote may be gone): without it the answer lands in the forum's "General" topic."""
    return message.message_thread_id if message.is_topic_message else None


async def send_reply(
    bot: BenchBot,
    to: Message,
    text: str,
    reply_markup: InlineKeyboardMarkup | dict[str, Any] | None,
) -> None:
    """What ``to.reply_text(text, reply_markup=reply_markup)`` sends (``reply_markup``
    also as the Bot API's JSON): HTML without a link preview (the bot's defaults),
    quoting the message outside private chats, in its forum topic. The markup and the
    link preview options go as the Bot API's JSON in ``api_kwargs`` (:func:`markup_json`
    and :data:`_NO_PREVIEW`, not PTB's generic ``to_dict``). The rate limiter and its
    retries apply as to every call."""
    api_kwargs: dict[str, Any] = {"link_preview_options": _NO_PREVIEW}
    if reply_markup is not None:
        if isinstance(reply_markup, InlineKeyboardMarkup):
            reply_markup = markup_json(reply_markup)
        api_kwargs["reply_markup"] = reply_markup
    await bot.send_message(
        chat_id=to.chat_id,
        text=text,
        reply_parameters=(
            None if to.chat.type == ChatType.PRIVATE else ReplyParameters(to.message_id)
        ),
        message_thread_id=topic_of(to),
        api_kwargs=api_kwargs,
    )


class AiohttpRequest(BaseRequest):
    """``telegram.request.BaseRequest`` over one ``aiohttp.ClientSession``, keeping
    PTB's request contract as its own ``HTTPXRequest`` does (the defaults are its):

    - ``read_timeout`` bounds each wait for the answer (aiohttp's ``sock_read``, whose
      clock starts once the request is written), ``write_timeout`` each write of the
      request (a body larger than a socket buffer is written in chunks, each bounded);
      neither stands in for the other. ``None`` is no limit.
    - ``pool_timeout`` bounds the wait for one of the ``connection_pool_size``
      connections; past it the call raises ``TimedOut("Pool timeout: ...")`` and is not
      sent.
    - A call that uploads files has ``media_write_timeout`` (20 s) as its write timeout
      unless it passes one.

    ``tests/bot/telegram/test_request_contract.py`` proves it against a real server.
    """

    __slots__ = (
        "_connect_timeout",
        "_limit",
        "_media_write_timeout",
        "_pool",
        "_pool_timeout",
        "_read_timeout",
        "_session",
        "_write_timeout",
    )

    def __init__(
        self,
        *,
        connection_pool_size: int = 256,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
        media_write_timeout: float | None = 20.0,
    ) -> None:
        self._limit = connection_pool_size
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._media_write_timeout = media_write_timeout
        #: the pool's places: a call holds one from before it connects until its answer
        #: is read (aiohttp's own limit has no time-out of its own)
        self._pool = asyncio.Semaphore(connection_pool_size)
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._limit),
                headers={"User-Agent": self.USER_AGENT},
                # the Bot API sets no cookies: none are kept, none looked up per call
                cookie_jar=aiohttp.DummyCookieJar(),
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
        session = self._open_session()
        files = request_data is not None and request_data.contains_files
        write = _seconds(write_timeout, self._media_write_timeout if files else self._write_timeout)
        timeout = _timeout(
            _seconds(connect_timeout, self._connect_timeout),
            _seconds(read_timeout, self._read_timeout),
        )
        await self._take_place(_seconds(pool_timeout, self._pool_timeout))
        try:
            with _as_ptb_errors():
                body, length = _body(request_data)
                if length <= _CHUNK:
                    # written at once into the socket's buffer: no write waits
                    async with session.request(method, url, timeout=timeout, **body) as response:
                        return response.status, await response.read()
                async with asyncio.timeout(None) as writing:
                    body["data"] = _timed_chunks(body["data"], writing, write)
                    body["headers"] = {**body["headers"], "Content-Length": str(length)}
                    async with session.request(method, url, timeout=timeout, **body) as response:
                        return response.status, await response.read()
        finally:
            self._pool.release()

    async def _take_place(self, pool_timeout: float | None) -> None:
        if not self._pool.locked():
            await self._pool.acquire()  # a free place: taken without waiting
            return
        try:
            await asyncio.wait_for(self._pool.acquire(), pool_timeout)
        except TimeoutError:
            raise TimedOut(POOL_TIMEOUT) from None

    async def download_to(self, url: str, path: Path, *, limit: int) -> int:
        """Stream the file at ``url`` into ``path`` in chunks, so that no more than a
        chunk of it is in memory at once (PTB's ``File.download_to_drive`` reads the
        whole body first); returns the bytes written. Refuses a body over ``limit``
        bytes. Faults map onto PTB's errors as :meth:`do_request`'s do."""
        session = self._open_session()
        timeout = aiohttp.ClientTimeout(
            total=None,
            connect=None,
            sock_connect=self._connect_timeout,
            sock_read=self._read_timeout,
        )
        written = 0
        await self._take_place(self._pool_timeout)
        try:
            with _as_ptb_errors():
                async with session.get(url, timeout=timeout) as response:
                    if response.status >= 500:
                        raise NetworkError(f"file download answered HTTP {response.status}")
                    if response.status >= 300:
                        raise BadRequest(f"file download answered HTTP {response.status}")
                    with path.open("wb") as out:
                        async for chunk in response.content.iter_chunked(DOWNLOAD_CHUNK):
                            written += len(chunk)
                            if written > limit:
                                raise BadRequest(f"file larger than {limit} bytes")
                            out.write(chunk)
        finally:
            self._pool.release()
        return written

    def _open_session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        return self._session


#: PTB's words for a full pool (``HTTPXRequest``'s).
POOL_TIMEOUT = (
    "Pool timeout: All connections in the connection pool are occupied. Request was *not* "
    "sent to Telegram. Consider adjusting the connection pool size or the pool timeout."
)

#: Bytes written at a time (asyncio's default high-water mark of a socket's buffer): a
#: body no longer than this is written at once, a longer one chunk by chunk, each write
#: bounded by the write timeout.
_CHUNK = 64 * 1024


async def _timed_chunks(
    body: bytes, writing: asyncio.Timeout, seconds: float | None
) -> AsyncIterator[bytes]:
    """``body`` in chunks, each given ``seconds`` to be written (aiohttp writes a chunk
    and waits for the socket to take it before it asks for the next); once the last is
    written, the answer's wait is bounded by the read timeout alone."""
    loop = asyncio.get_running_loop()
    for start in range(0, len(body), _CHUNK):
        if not _bound(writing, None if seconds is None else loop.time() + seconds):
            return
        yield body[start : start + _CHUNK]
    _bound(writing, None)


def _bound(writing: asyncio.Timeout, when: float | None) -> bool:
    """``writing`` moved to ``when``; False once the call is over (answered before its
    body was written whole, or given up), when nothing more is to be written."""
    try:
        writing.reschedule(when)
    except RuntimeError:  # the scope was left
        return False
    return True


@contextmanager
def _as_ptb_errors() -> Iterator[None]:
    """aiohttp's faults as PTB's: a time-out is TimedOut, any other NetworkError."""
    try:
        yield
    except (TimeoutError, aiohttp.ServerTimeoutError) as exc:
        raise TimedOut from exc
    except aiohttp.ClientError as exc:
        raise NetworkError(f"aiohttp.{type(exc).__name__}: {exc}") from exc


#: Bytes of a downloaded file read and written at a time.
DOWNLOAD_CHUNK = 256 * 1024


@functools.lru_cache(maxsize=64)
def _timeout(connect: float | None, read: float | None) -> aiohttp.ClientTimeout:
    """aiohttp's time-outs of a call (one object for each pair: the calls share it).
    Its ``connect`` is None: the pool's wait is ours (``pool_timeout``), the
    connection's is ``sock_connect``."""
    return aiohttp.ClientTimeout(total=None, connect=None, sock_connect=connect, sock_read=read)


def _seconds(value: ODVInput, default: float | None) -> float | None:
    if value is BaseRequest.DEFAULT_NONE:
        return default
    return float(value) if isinstance(value, int | float) else None


_JSON = {"Content-Type": "application/json"}


def _body(request_data: RequestData | None) -> tuple[dict[str, Any], int]:
    """The request's body as ``session.request``'s arguments, and its length: JSON, or
    multipart form data (as httpx writes it) when files are uploaded."""
    if request_data is None:
        return {}, 0
    if not request_data.contains_files:
        parameters = request_data.parameters
        if not parameters:
            return {}, 0
        data = json.dumps(parameters).encode()
        return {"data": data, "headers": _JSON}, len(data)
    boundary = os.urandom(16).hex()
    parts = []
    for name, value in request_data.json_parameters.items():
        parts.append(_part_head(boundary, name) + b"\r\n" + value.encode() + b"\r\n")
    for name, (filename, content, mime_type) in request_data.multipart_data.items():
        head = _part_head(boundary, name, filename)
        kind = f"Content-Type: {mime_type}\r\n\r\n".encode()
        # an InputFile made with read_file_handle=False: its file is read now
        body = content if isinstance(content, bytes) else content.read()
        parts.append(head + kind + body + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    data = b"".join(parts)
    headers = {
        "Content-Type": f"multipart/form-data; boundary={boundary}",
        "Content-Length": str(len(data)),
    }
    return {"data": data, "headers": headers}, len(data)


def _part_head(boundary: str, name: str, filename: str | None = None) -> bytes:
    disposition = f"--{boundary}\r\nContent-Disposition: form-data; name={_quoted(name)}"
    if filename is not None:
        disposition += f"; filename={_quoted(filename)}"
    return (disposition + "\r\n").encode()


#: How httpx quotes a form field's name or file name (HTML5's form encoding).
_FORM_QUOTES = {'"': "%22", "\\": "\\\\"} | {chr(c): f"%{c:02X}" for c in range(32) if c != 27}
_FORM_QUOTED = re.compile("|".join(re.escape(c) for c in _FORM_QUOTES))


def _quoted(value: str) -> str:
    return '"' + _FORM_QUOTED.sub(lambda m: _FORM_QUOTES[m.group(0)], value) + '"'


# --- retries ---------------------------------------------------------------------------

log = logging.getLogger("benchboard.send")

JSONResult: TypeAlias = bool | dict[str, Any] | list[dict[str, Any]]


def is_transient(error: BaseException | None) -> bool:
    """A fault that passes by itself: flood limit, time-out, lost connection, 5xx.

    PTB raises ``NetworkError`` for 5xx answers and lost connections, ``TimedOut`` (a
    ``NetworkError``) for time-outs; ``BadRequest`` is a ``NetworkError`` too but means
    the call itself is wrong.
    """
    if isinstance(error, RetryAfter):
        return True
    return isinstance(error, NetworkError) and not isinstance(error, BadRequest)


#: What a repeated call answers when an earlier attempt, whose answer was lost to a
#: time-out, already took effect: the edit is there, the query was answered.
_ALREADY_DONE = ("message is not modified", "query is too old", "query id is invalid")
#: What Telegram answers to a pre-checkout query answered before, or too late.
_CHECKOUT_DONE = ("already been answered", "query is too old", "query id is invalid")


class _PassedOn(logging.Filter):
    """Drops ``AIORateLimiter``'s error (with a traceback) for a 429 it passes on: it is
    given no retries of its own, and :class:`RetryingRateLimiter` waits the 429 out (a
    flood wait is no error of the bot's)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Rate limit hit after maximum of 0 retries")


_PASSED_ON = _PassedOn()


class RetryingRateLimiter(AIORateLimiter):
    """``AIORateLimiter`` (group flood limits, 429 ``retry_after``) with the overall
    limit given out fairly (``fairsend.FairSchedule``: turns round-robin over the chats
    waiting), the sends of a flooding user's updates skipped (``fairsend.QUIET``), plus
    retries of transient faults: connection errors, time-outs and 5xx answers are tried
    again with exponential backoff and jitter, for about ``budget`` seconds in all; a 429
    waits what Telegram says.

    A call that timed out may have reached Telegram. It is tried again with a longer read
    timeout (``patient_timeout``), so a slow answer is read rather than sent a third time:
    a message sent twice is at most one duplicate per timed-out send, counted in
    :attr:`possible_duplicates` and logged. An edit or a callback answer repeated after a
    time-out cannot duplicate anything; "not modified" or "query is too old" on the repeat
    means the first attempt got through, and counts as success. A callback answer that
    is too old (a press handled again after a restart) is no error either: the press's
    effect is stored and shown on its message.

    A 429 pauses the chat it was for, not the bot: ``AIORateLimiter`` itself stops every
    request while it waits out a ``retry_after`` (it is given no retries of its own here),
    so one flooded group would hold every other user's reply. The chat's later sends wait
    for the same moment; a call without a chat waits alone.
    """

    def __init__(
        self,
        *,
        budget: float = 60.0,
        first_delay: float = 0.5,
        max_delay: float = 8.0,
        patient_timeout: float = 20.0,
        overall_max_rate: float = 30,
        **kwargs: Any,
    ) -> None:
        # the overall rate is given out in fair turns (fairsend.FairSchedule), not by
        # AIORateLimiter's first-come limiter; its group limits and 429 waits stay
        super().__init__(overall_max_rate=0, **{**kwargs, "max_retries": 0})
        logging.getLogger("telegram.ext.AIORateLimiter").addFilter(_PASSED_ON)
        self.budget = budget
        self.first_delay = first_delay
        self.max_delay = max_delay
        self.patient_timeout = patient_timeout
        self.retries = 0
        #: the last transient fault retried, as "Type: message" ("" before any)
        self.last_fault = ""
        self.possible_duplicates = 0
        #: sends skipped because their update was a flooding user's (fairsend.QUIET)
        self.skipped = 0
        self.schedule = FairSchedule(overall_max_rate)
        #: chat id → the loop time its 429 pause ends
        self.paused: dict[object, float] = {}

    @property
    def shared(self) -> SharedRate | None:
        """The limits shared with other instances (``core.sendrate``): waited for in
        each attempt's turn; None: this process's only."""
        return self.schedule.shared

    @shared.setter
    def shared(self, shared: SharedRate | None) -> None:
        self.schedule.shared = shared

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, JSONResult]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> JSONResult:
        stand_in = skipped(endpoint, data)
        if stand_in is not None:
            self.skipped += 1
            return cast(JSONResult, stand_in)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.budget
        delay = self.first_delay
        timed_out = False
        chat_id = data.get("chat_id")
        while True:
            if chat_id is not None:
                until = self.paused.get(chat_id)
                if until is not None:
                    if until > loop.time():
                        await asyncio.sleep(until - loop.time())
                    if self.paused.get(chat_id, 0.0) <= loop.time():
                        self.paused.pop(chat_id, None)
                    continue  # (a 429 while it waited may have paused it again)
                await self.schedule.turn(endpoint, chat_id)
            try:
                # (no retries there: a RetryAfter comes here at once, see above)
                result = await super().process_request(callback, args, kwargs, endpoint, data, 0)
            except BadRequest as exc:
                text = str(exc).lower()
                if timed_out and any(s in text for s in _ALREADY_DONE):
                    return True
                if endpoint == "answerPreCheckoutQuery" and any(
                    words in text for words in _CHECKOUT_DONE
                ):
                    # refused while the database did not answer (``outage.py``), or too
                    # late: Telegram took that answer, nobody was charged
                    log.info("pre-checkout query already answered or expired")
                    return True
                if endpoint == "answerCallbackQuery" and "query is too old" in text:
                    # answered already (before a restart), or too late: the press's effect
                    # is stored and the message shows it; there is nothing left to say
                    log.info("callback query already answered or expired")
                    return True
                raise
            except RetryAfter as exc:
                wait = exc.retry_after
                seconds = wait if isinstance(wait, int) else wait.total_seconds()
                pause = float(seconds) + random.uniform(0.05, 0.25)
                error: NetworkError | RetryAfter = exc
                if chat_id is not None:
                    ends = loop.time() + pause
                    self.paused[chat_id] = max(self.paused.get(chat_id, ends), ends)
            except NetworkError as exc:
                if not is_transient(exc):
                    raise
                if isinstance(exc, TimedOut) and not exc.message.startswith("Pool timeout"):
                    # it may have reached Telegram (a full pool's call was not sent)
                    timed_out = True
                    kwargs = {**kwargs, "read_timeout": self.patient_timeout}
                pause = delay / 2 + random.uniform(0, delay / 2)
                delay = min(delay * 2, self.max_delay)
                error = exc
            else:
                if timed_out and endpoint.startswith(("send", "copy", "forward")):
                    self.possible_duplicates += 1
                    log.warning(
                        "a send that timed out was repeated: at most one duplicate",
                        extra={"method": endpoint, "possible_duplicates": self.possible_duplicates},
                    )
                return result
            if loop.time() + pause > deadline:
                raise error
            self.retries += 1
            self.last_fault = f"{type(error).__name__}: {error}"
            log.info(
                "retrying after a transient fault",
                extra={
                    "method": endpoint,
                    "error": type(error).__name__,
                    "pause_s": round(pause, 2),
                },
            )
            await asyncio.sleep(pause)

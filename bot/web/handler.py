"""The web's request handler base (tornado): the page cache with its ``ETag`` and
``Last-Modified``, the security headers every response carries, the query's and the
language's reading, error pages; and the state the handlers share (:class:`WebState`).

Pages are cached for :data:`TTL` seconds (one render serves every request for the same
address meanwhile, concurrent misses share one render; a slow one is kept longer) and
carry a strong ``ETag`` (a digest of the body) and a ``Last-Modified`` (when that body
was first served): a conditional request for an unchanged page is answered ``304``.
Every response sends a Content-Security-Policy that allows only this origin's own files.
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import json
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime
from typing import Any, TypeVar
from urllib.parse import unquote_plus

import tornado.web

from storage import StoreUnavailable

from ..core import benchmarks, signing
from ..core.errors import UserError
from ..core.questions import QuestionCache
from ..core.services import Services
from ..render.i18n import t
from . import pages
from .images import ImageCache

log = logging.getLogger("benchboard.web")
T = TypeVar("T")

#: Seconds a rendered page is served from memory.
TTL = 5.0
#: A page is kept this many times as long as it took to make (at most SLOW_KEEP_MAX s).
SLOW_FACTOR = 20
SLOW_KEEP_MAX = 120.0
#: Pages kept in memory at most, and their bytes at most.
CACHE_MAX = 2000
CACHE_BYTES = 64 << 20
JSON_TYPE = "application/json; charset=utf-8"
_TAG = re.compile(r"<[^>]*>")
#: Seconds a client is asked to wait (``Retry-After``) while the database does not answer.
RETRY_AFTER = 5
#: The bodies a web request may send (the Mini App's sign-in is well under this).
MAX_BODY = 16 * 1024
#: Only this origin's own files and Telegram's Mini App script; framed only by Telegram's
#: web clients (the Mini App).
#: Telegram's Mini App script, loaded as Telegram documents (the one third-party file).
TELEGRAM_WEB_APP_JS = "https://telegram.org/js/telegram-web-app.js"
CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; "
    f"script-src 'self' {TELEGRAM_WEB_APP_JS}; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; "
    "frame-ancestors https://web.telegram.org https://*.telegram.org"
)


@dataclass
class Page:
    body: bytes
    content_type: str
    etag: str
    modified: datetime
    expires: float
    status: int = 200
    #: an error page's message, and its body in each language it was asked in (the
    #: cached refusal is the same for everyone; its words are the requester's)
    message: str | None = None
    localized: dict[tuple[str, bool], bytes] = field(default_factory=dict)


#: The Mini App's "Share": (user id, result token, language) -> the id of a prepared
#: inline message (``bot.telegram.miniapp.Preparer``; None where the Bot API is not
#: reachable from the web process).
Share = Callable[[int, str, str], Awaitable[str]]


@dataclass
class WebState:
    """What the handlers share: the services (the store), the bot's token for the Mini
    App's sign-in, the bot's username for links into it, the Mini App's share, and the
    page cache."""

    services: Services
    bot_token: str | None
    bot_username: Callable[[], str | None]
    share: Share | None = None
    #: the questions pages' counts (``bot.core.questions``)
    questions: QuestionCache = field(default_factory=QuestionCache)
    #: what to close with the server (the Mini App's own bot object)
    closing: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    cache: OrderedDict[str, Page] = field(default_factory=OrderedDict)
    cache_bytes: int = 0
    pending: dict[str, asyncio.Future[Page]] = field(default_factory=dict)
    #: the link previews' images (in memory, and under the data folder's ``cache/``)
    images: ImageCache | None = None
    #: the public address (``BENCHBOARD_WEB_URL``, else the webhook's origin) the
    #: previews' absolute links start with; None: each request's own origin
    public_url: str | None = None

    #: the server's signing key (``bot.core.signing``), loaded on first use
    signer: signing.Signer = field(default_factory=signing.Signer)

    def __post_init__(self) -> None:
        settings = self.services.settings
        if self.images is None:
            self.images = ImageCache(settings.data_dir / "cache" / "previews")
        if self.public_url is None:
            self.public_url = settings.public_web_url

    def forget(self) -> None:
        """Drop every cached page (the next request for each renders it again)."""
        self.cache.clear()
        self.cache_bytes = 0


Render = Callable[[], Awaitable[tuple[str | bytes, str]]]


def allowed_methods(handler: type[tornado.web.RequestHandler]) -> list[str]:
    """The methods ``handler`` answers (a 405's ``Allow``)."""
    unimplemented = tornado.web.RequestHandler.get
    return [
        method
        for method in handler.SUPPORTED_METHODS
        if getattr(handler, method.lower(), unimplemented) is not unimplemented
    ]


#: Parameters that sites and mailers add to a shared link to count its clicks
#: (Facebook's ``fbclid``, Google's ``gclid``, ``utm_*``): not the page's own.
_TRACKING = frozenset(
    {"fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "igshid", "yclid", "twclid",
     "mc_cid", "mc_eid", "_ga", "_gl"}
)  # fmt: skip


def tracking(name: str) -> bool:
    """Whether a query parameter is one a link picked up on its way (see ``_TRACKING``)."""
    return name.lower().startswith("utm_") or name.lower() in _TRACKING


def unavailable(error_kwargs: dict[str, Any]) -> bool:
    """Whether a request failed because the database did not answer (``write_error``'s
    ``exc_info``)."""
    exc_info = error_kwargs.get("exc_info")
    return exc_info is not None and isinstance(exc_info[1], StoreUnavailable)


class Base(tornado.web.RequestHandler):
    state: WebState

    def initialize(self, state: WebState) -> None:
        self.state = state

    def prepare(self) -> None:
        """A page asked with the parameters a shared link picked up on its way (a link
        posted on Facebook comes back with ``?fbclid=…``) is sent to its own address
        without them, rather than refused as an unknown filter."""
        request = self.request
        if request.method not in ("GET", "HEAD") or not request.query:
            return
        parts = request.query.split("&")
        kept = [p for p in parts if not tracking(unquote_plus(p.partition("=")[0]))]
        path = request.path
        if len(kept) == len(parts) or path.startswith("//") or "\\" in path:
            return  # nothing picked up; or a path a browser would read as another site
        self.redirect(path + ("?" + "&".join(kept) if kept else ""), permanent=True)

    def set_default_headers(self) -> None:
        self.set_header("Content-Security-Policy", CSP)
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Referrer-Policy", "same-origin")
        self.set_header("Vary", "Accept-Language")

    def check_xsrf_cookie(self) -> None:  # no cookies: the Mini App signs its requests
        return

    def query(self) -> dict[str, str]:
        """The query string, each parameter once (a repeated one is refused)."""
        out: dict[str, str] = {}
        for name, values in self.request.query_arguments.items():
            if len(values) != 1 or len(values[0]) > 200:
                raise pages.BadRequest(name)
            try:
                out[name] = values[0].decode("utf-8")
            except UnicodeDecodeError:
                raise pages.BadRequest(name) from None
        return out

    def lang(self, query: dict[str, str]) -> tuple[str, bool]:
        return pages.language(query, self.request.headers.get("Accept-Language"))

    async def cached(self, key: str, render: Render) -> None:
        """Answer from the cache, or render (once for concurrent requests) and keep."""
        state = self.state
        page = state.cache.get(key)
        if page is None or page.expires < time.monotonic():
            waiting = state.pending.get(key)
            if waiting is not None:
                page = await asyncio.shield(waiting)
            else:
                future: asyncio.Future[Page] = asyncio.get_running_loop().create_future()
                state.pending[key] = future
                try:
                    page = await self._render(render, page)
                    future.set_result(page)
                except BaseException as exc:
                    future.set_exception(exc)
                    future.exception()  # retrieved: the waiters re-raise it themselves
                    raise
                finally:
                    del state.pending[key]
                replaced = state.cache.pop(key, None)
                state.cache_bytes -= len(replaced.body) if replaced else 0
                state.cache[key] = page
                state.cache_bytes += len(page.body)
                while len(state.cache) > CACHE_MAX or state.cache_bytes > CACHE_BYTES:
                    state.cache_bytes -= len(state.cache.popitem(last=False)[1].body)
        self._send(page)

    async def _render(self, render: Render, old: Page | None) -> Page:
        status = 200
        message = None
        started = time.monotonic()
        try:
            body_text, content_type = await self._again_if_defined(render)
        except UserError as exc:  # a page past the last, a revoked link: kept as well
            status, message = self.error_of(exc)
            body_text, content_type = self.error_body(self.error_lang(), status, message)
        body = body_text if isinstance(body_text, bytes) else body_text.encode("utf-8")
        etag = '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'
        now = datetime.now(UTC).replace(microsecond=0)
        modified = old.modified if old is not None and old.etag == etag else now
        # a page that took long to make (a board that scans its rows, as a board of
        # attempts does) is kept longer, so that making it takes a small share of the
        # database's time
        took = time.monotonic() - started
        keep = min(SLOW_KEEP_MAX, max(TTL, took * SLOW_FACTOR))
        page = Page(body, content_type, etag, modified, time.monotonic() + keep, status, message)
        if status != 200:
            page.localized[self.error_lang()] = body
        return page

    async def _again_if_defined(self, work: Callable[[], Awaitable[T]]) -> T:
        """``work()``, once more when it names a benchmark unknown here that reading the
        definitions again makes known: one another process (the bot beside this one)
        defined within the minute. Its board and a result of it, opened by its first
        users at once, were a 404 and a 500 until then."""
        try:
            return await work()
        except UserError as exc:
            if exc.key != "web_unknown_benchmark":
                raise
            if not await benchmarks.defined_since(self.state.services):
                raise
        return await work()

    def _send(self, page: Page) -> None:
        if page.status != 200:
            lang = self.error_lang()
            body = page.localized.get(lang)
            if body is None:  # kept for someone who reads another language
                body = self.error_body(lang, page.status, page.message)[0].encode("utf-8")
                page.localized[lang] = body
            self.set_status(page.status)
            self.set_header("Content-Type", page.content_type)
            self.set_header("Cache-Control", "no-store")
            self.finish(body)
            return
        self.set_header("ETag", page.etag)
        # the answer's date is now, not the request's: a page made in this request (a
        # second or more for a slow one) is never dated after the message carrying it
        self.set_header("Date", format_datetime(datetime.now(UTC), usegmt=True))
        self.set_header("Last-Modified", format_datetime(page.modified, usegmt=True))
        self.set_header("Cache-Control", f"public, max-age={int(TTL)}")
        if self._not_modified(page):
            self.set_status(304)
            self.finish()
            return
        self.set_header("Content-Type", page.content_type)
        self.finish(page.body)

    def _not_modified(self, page: Page) -> bool:
        match = self.request.headers.get("If-None-Match")
        if match is not None:
            tags = [tag.strip().removeprefix("W/") for tag in match.split(",")]
            return page.etag in tags or "*" in tags
        since = self.request.headers.get("If-Modified-Since")
        if since:
            try:
                return page.modified <= parsedate_to_datetime(since)
            except (TypeError, ValueError):
                return False
        return False

    async def guarded(self, work: Callable[[], Awaitable[None]]) -> None:
        """Run a handler's work; bad input and missing things become error pages."""
        try:
            await self._again_if_defined(work)
        except pages.BadRequest:
            self.error_page(400, "web_bad_request")
        except UserError as exc:
            self.error_page(*self.error_of(exc))
        except signing.KeyUnavailable:
            self.error_page(503)

    @staticmethod
    def error_of(exc: UserError) -> tuple[int, str | None]:
        """The status and message of a use case's refusal."""
        missing = exc.key in (
            "web_not_found", "web_group_not_found", "web_unknown_benchmark", "web_no_page",
            "web_no_questions",
        )  # fmt: skip
        return 404 if missing else 400, exc.key if exc.key.startswith("web_") else None

    def error_lang(self) -> tuple[str, bool]:
        try:
            return self.lang(self.query())
        except pages.BadRequest:
            return "en", False

    def error_body(
        self, lang: tuple[str, bool], status: int, message: str | None
    ) -> tuple[str, str]:
        """An error's body and its type: for a ``.json`` address, JSON a script reads
        (``{"error": {"status": …, "message": …}}``, in English); else the error page."""
        if self.request.path.endswith(".json"):
            text = t("en", message or "web_error_title")
            error = {"status": status, "message": html.unescape(_TAG.sub("", text)).strip()}
            return json.dumps({"error": error}, ensure_ascii=False), JSON_TYPE
        page = pages.render("error.html", *lang, status=status, message=message, here="/")
        return page, "text/html; charset=utf-8"

    def error_page(self, status: int, message: str | None = None) -> None:
        self.clear()
        self.set_status(status)
        body, content_type = self.error_body(self.error_lang(), status, message)
        self.set_header("Content-Type", content_type)
        self.set_header("Cache-Control", "no-store")
        self.finish(body)

    def log_exception(self, typ: Any, value: BaseException | None, tb: Any) -> None:
        if isinstance(value, StoreUnavailable):  # a transient fault, answered 503
            log.warning("database unavailable: %s %s", self.request.method, self.request.uri)
            return
        super().log_exception(typ, value, tb)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        message = None
        if unavailable(kwargs):
            # the database does not answer (PostgreSQL down, SQLite locked): a transient
            # fault, said as one, never a 500
            status_code, message = 503, "web_unavailable"
            self.set_status(status_code)
            self.set_header("Retry-After", str(RETRY_AFTER))
            self.set_header("Cache-Control", "no-store")
        if status_code == 405:
            self.set_header("Allow", ", ".join(allowed_methods(type(self))))
        body, content_type = self.error_body(self.error_lang(), status_code, message)
        self.set_header("Content-Type", content_type)
        self.finish(body)

    def key(self, lang: str) -> str:
        if self.state.public_url is None:  # the page's links name the request's origin
            return f"{lang}|{self.origin()}|{self.request.uri}"
        return f"{lang}|{self.request.uri}"

    def origin(self) -> str:
        """Where absolute links start: the public address, else this request's origin."""
        if self.state.public_url:
            return self.state.public_url
        return f"{self.request.protocol}://{self.request.host}"

    def bot_home(self) -> str | None:
        """The bot's address in Telegram, when its username is known."""
        username = self.state.bot_username()
        return f"https://t.me/{username}" if username else None

    @staticmethod
    def lang_param(lang: str, chosen: bool) -> str:
        return f"?lang={lang}" if chosen or lang != "en" else ""

    async def image(self, key: str, draw: Callable[[], Awaitable[bytes]]) -> bytes:
        assert self.state.images is not None
        return await self.state.images.fetch(key, draw)

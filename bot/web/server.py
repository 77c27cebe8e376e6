"""The web boards' HTTP handlers (tornado), on the bot's event loop or alone.

Every handler is a short coroutine: the store's queries run on its database thread, a
template renders in a millisecond or two. Pages are cached for :data:`TTL` seconds
(one render serves every request for the same address meanwhile, concurrent misses
share one render; a slow one is kept longer) and carry a strong ``ETag`` (a digest of
the body) and a ``Last-Modified`` (when that body was first served): a conditional
request for an unchanged page is answered ``304``. Every response sends a
Content-Security-Policy that allows only this origin's own files; bad input is a 400
or 404 page, never a 500.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime
from typing import Any

import tornado.web

from scoring import registry

from ..core import questions, sharing, signing, webboards, webresults
from ..core.errors import UserError
from ..core.questions import QuestionCache
from ..core.services import Services
from ..render.i18n import t
from . import api, initdata, openapi, pages
from .images import ImageCache

log = logging.getLogger("benchboard.web")

#: Seconds a rendered page is served from memory.
TTL = 5.0
#: A page is kept this many times as long as it took to make (at most SLOW_KEEP_MAX s).
SLOW_FACTOR = 20
SLOW_KEEP_MAX = 120.0
#: Pages kept in memory at most, and their bytes at most.
CACHE_MAX = 2000
CACHE_BYTES = 64 << 20
JSON_TYPE = "application/json; charset=utf-8"
#: The bodies a web request may send (the Mini App's sign-in is well under this).
MAX_BODY = 16 * 1024
_NAME = r"([a-z0-9_]{1,40})"
_TOKEN = r"([A-Za-z0-9_-]{1,32})"
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


class Base(tornado.web.RequestHandler):
    state: WebState

    def initialize(self, state: WebState) -> None:
        self.state = state

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
            body_text, content_type = await render()
        except UserError as exc:  # a page past the last, a revoked link: kept as well
            status, message = self.error_of(exc)
            lang, chosen = self.error_lang()
            body_text = pages.render(
                "error.html", lang, chosen, status=status, message=message, here="/"
            )
            content_type = "text/html; charset=utf-8"
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

    def _send(self, page: Page) -> None:
        if page.status != 200:
            lang = self.error_lang()
            body = page.localized.get(lang)
            if body is None:  # kept for someone who reads another language
                body = pages.render(
                    "error.html", *lang, status=page.status, message=page.message, here="/"
                ).encode("utf-8")
                page.localized[lang] = body
            self.set_status(page.status)
            self.set_header("Content-Type", page.content_type)
            self.set_header("Cache-Control", "no-store")
            self.finish(body)
            return
        self.set_header("ETag", page.etag)
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
            await work()
        except pages.BadRequest:
            self.error_page(400, "web_bad_request")
        except UserError as exc:
            self.error_page(*self.error_of(exc))
        except signing.KeyUnavailable:
            self.error_page(503)

    @staticmethod
    def error_of(exc: UserError) -> tuple[int, str | None]:
        """The status and message of a use case's refusal."""
        missing = exc.key in ("web_not_found", "web_unknown_benchmark", "web_no_page")
        return 404 if missing else 400, exc.key if exc.key.startswith("web_") else None

    def error_lang(self) -> tuple[str, bool]:
        try:
            return self.lang(self.query())
        except pages.BadRequest:
            return "en", False

    def error_page(self, status: int, message: str | None = None) -> None:
        lang, chosen = self.error_lang()
        self.clear()
        self.set_status(status)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(
            pages.render("error.html", lang, chosen, status=status, message=message, here="/")
        )

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        if status_code == 405:
            self.set_header("Allow", ", ".join(allowed_methods(type(self))))
        lang, chosen = self.error_lang()
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(
            pages.render("error.html", lang, chosen, status=status_code, message=None, here="/")
        )

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


class IndexHandler(Base):
    async def get(self) -> None:
        async def work() -> None:
            query = self.query()
            if set(query) - {"lang"}:
                raise pages.BadRequest("parameter")
            lang, chosen = self.lang(query)

            origin = self.origin()
            meta = pages.Meta(
                t(lang, "web_title"),
                t(lang, "web_tagline"),
                origin + "/" + self.lang_param(lang, chosen),
                origin + "/static/og.png",
                1200,
                630,
            )
            bot_home = self.bot_home()

            async def render() -> tuple[str | bytes, str]:
                leaders = await webboards.leaders(self.state.services)
                html = pages.render(
                    "index.html", lang, chosen, leaders=leaders, here="/", meta=meta,
                    bot_home=bot_home,
                )  # fmt: skip
                return html, "text/html; charset=utf-8"

            await self.cached(self.key(lang), render)

        await self.guarded(work)

    head = get  # monitors and link checkers ask with HEAD


class BoardHandler(Base):
    async def get(self, name: str, form: str | None = None) -> None:
        async def work() -> None:
            query = self.query()
            lang, chosen = self.lang(query)
            q = pages.board_query(name, query)
            webboards.check(q)
            here = self.request.uri or "/"
            if form is None and q.per > 100:
                raise pages.BadRequest("per")

            origin = self.origin()
            suffix = self.lang_param(lang, chosen)
            bot_home = self.bot_home()

            async def render() -> tuple[str | bytes, str]:
                board = await webboards.board(self.state.services, q)
                if form == "json":
                    return pages.board_json(board), "application/json; charset=utf-8"
                if form == "csv":
                    return pages.board_csv(board), "text/csv; charset=utf-8"
                meta = pages.board_meta(
                    board, lang, url=origin + here, image=f"{origin}/b/{name}/card.png{suffix}"
                )
                html = pages.board_page(
                    board, lang, chosen, here=here, base=f"/b/{name}", meta=meta, bot_home=bot_home
                )
                return html, "text/html; charset=utf-8"

            if form is not None:
                self.set_header("Access-Control-Allow-Origin", "*")
            await self.cached(self.key(lang if form is None else "-"), render)

        await self.guarded(work)

    head = get  # monitors and link checkers ask with HEAD


class QuestionsHandler(Base):
    """``/b/<benchmark>/questions``: how the latest published results answered each
    question of a choice benchmark (sortable, ``?sort=`` and ``?order=``)."""

    async def get(self, name: str) -> None:
        async def work() -> None:
            query = self.query()
            lang, chosen = self.lang(query)
            sort, descending = pages.questions_query(query)
            here = self.request.uri or "/"

            async def render() -> tuple[str, str]:
                stats = await questions.question_stats(
                    self.state.services, name, self.state.questions
                )
                html = pages.questions_page(
                    stats, lang, chosen, here=here, sort=sort, descending=descending
                )
                return html, "text/html; charset=utf-8"

            await self.cached(self.key(lang), render)

        await self.guarded(work)

    head = get  # monitors and link checkers ask with HEAD


class GroupBoardHandler(Base):
    """A group's board by the unguessable link its admins got with ``/weblink``."""

    async def get(self, token: str, name: str | None = None) -> None:
        async def work() -> None:
            query = self.query()
            lang, chosen = self.lang(query)
            q = pages.board_query(name or registry.DEFAULT, query)
            if q.verified or q.mark or q.provider is not None or q.per > 100:
                raise pages.BadRequest("filter")
            webboards.check(q)
            here = self.request.uri or "/"
            base = f"/g/{token}/{q.benchmark}"

            origin = self.origin()
            bot_home = self.bot_home()

            async def render() -> tuple[str | bytes, str]:
                board = await webboards.group_board(self.state.services, token, q)
                meta = pages.board_meta(
                    board, lang, url=origin + here, image=origin + "/static/og.png"
                )
                html = pages.board_page(
                    board, lang, chosen, here=here, base=base, csv_ok=False, meta=meta,
                    bot_home=bot_home,
                )  # fmt: skip
                return html, "text/html; charset=utf-8"

            self.set_header("X-Robots-Tag", "noindex")
            await self.cached(self.key(lang), render)

        await self.guarded(work)

    head = get  # monitors and link checkers ask with HEAD


class ResultHandler(Base):
    async def get(self, token: str) -> None:
        async def work() -> None:
            query = self.query()
            if set(query) - {"lang"}:
                raise pages.BadRequest("parameter")
            lang, chosen = self.lang(query)
            here = self.request.uri or "/"

            origin = self.origin()
            image = f"{origin}/r/{token}/card.png{self.lang_param(lang, chosen)}"
            bot_home = self.bot_home()

            async def render() -> tuple[str | bytes, str]:
                found = await webresults.result(
                    self.state.services, token, self.state.bot_username()
                )
                meta = pages.result_meta(found, lang, url=origin + here, image=image)
                html = pages.result_page(
                    found, lang, chosen, here=here, meta=meta, bot_home=bot_home
                )
                return html, "text/html; charset=utf-8"

            await self.cached(self.key(lang), render)

        await self.guarded(work)

    head = get  # monitors and link checkers ask with HEAD


class ResultCardHandler(Base):
    """``/r/<token>/card.png``: a result's card, its link preview's image."""

    async def get(self, token: str) -> None:
        async def work() -> None:
            query = self.query()
            if set(query) - {"lang"}:
                raise pages.BadRequest("parameter")
            lang, _ = self.lang(query)
            services = self.state.services

            async def render() -> tuple[str | bytes, str]:
                view, key = await webresults.result_card(
                    services, token, lang, self.state.bot_username()
                )
                return await self.image(key, lambda: sharing.card_png(services, view)), "image/png"

            await self.cached(f"{lang}|{self.request.path}", render)

        await self.guarded(work)

    head = get


class BoardCardHandler(Base):
    """``/b/<benchmark>/card.png``: a global board's image, its link preview's."""

    async def get(self, name: str) -> None:
        async def work() -> None:
            query = self.query()
            if set(query) - {"lang"}:
                raise pages.BadRequest("parameter")
            lang, _ = self.lang(query)
            webboards.benchmark_of(name)
            services = self.state.services

            async def render() -> tuple[str | bytes, str]:
                view, key = await webboards.board_card(
                    services, name, lang, self.state.bot_username()
                )
                return await self.image(key, lambda: sharing.board_png(services, view)), "image/png"

            await self.cached(f"{lang}|{self.request.path}", render)

        await self.guarded(work)

    head = get


class ResultJsonHandler(Base):
    """``/r/<token>.json``: the published result as a signed record."""

    async def get(self, token: str) -> None:
        async def work() -> None:
            if self.query():
                raise pages.BadRequest("parameter")
            base = self.origin()

            async def render() -> tuple[str, str]:
                record = await webresults.result_record(self.state.services, token, base)
                key = await self.state.signer.get(self.state.services)
                signed = signing.sign(record, key)
                return json.dumps(signed, ensure_ascii=False, indent=1), JSON_TYPE

            self.set_header("Access-Control-Allow-Origin", "*")
            await self.cached(f"-|{base}|{self.request.uri}", render)

        await self.guarded(work)

    head = get  # monitors and link checkers ask with HEAD


class SigningKeyHandler(Base):
    """``/signing-key``: the public key that signs the results (``bot.core.signing``)."""

    async def get(self) -> None:
        async def work() -> None:
            if self.query():
                raise pages.BadRequest("parameter")

            async def render() -> tuple[str, str]:
                key = await self.state.signer.get(self.state.services)
                return json.dumps(signing.public_json(key)), JSON_TYPE

            self.set_header("Access-Control-Allow-Origin", "*")
            await self.cached("signing-key", render)

        await self.guarded(work)

    head = get  # monitors and link checkers ask with HEAD


class OpenApiHandler(Base):
    async def get(self) -> None:
        async def render() -> tuple[str | bytes, str]:
            spec = api.describe(openapi.openapi(registry.names()), list(registry.names()))
            return json.dumps(spec, indent=1), "application/json; charset=utf-8"

        await self.cached("openapi", render)

    head = get  # monitors and link checkers ask with HEAD


class AppHandler(Base):
    """The Mini App's entry page: the boards, and (signed in, by its script) "my
    results"."""

    async def get(self) -> None:
        async def work() -> None:
            query = {k: v for k, v in self.query().items() if k == "lang"}
            lang, chosen = self.lang(query)

            async def render() -> tuple[str | bytes, str]:
                leaders = await webboards.leaders(self.state.services)
                html = pages.render(
                    "app.html", lang, chosen, leaders=leaders, here="/app",
                    bot=self.state.bot_username(),
                )  # fmt: skip
                return html, "text/html; charset=utf-8"

            await self.cached(self.key(lang) + "|app", render)

        await self.guarded(work)

    head = get  # monitors and link checkers ask with HEAD


class AppMeHandler(Base):
    """``POST /app/me`` with the Mini App's ``init_data``: the signed-in user's results
    (an HTML fragment), or 403 for anything but a valid, fresh sign-in."""

    async def post(self) -> None:
        self.set_header("Cache-Control", "no-store")
        try:
            lang, chosen = self.lang({k: v for k, v in self.query().items() if k == "lang"})
        except pages.BadRequest:
            lang, chosen = "en", False
        raw = self.get_body_argument("init_data", default="")
        try:
            user = initdata.check(raw, self.state.bot_token or "")
        except initdata.InvalidInitData as exc:
            log.info("Mini App sign-in refused: %s", exc)
            self.set_status(403)
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(pages.render("my.html", lang, chosen, mine=None, here="/app"))
            return
        mine = await webresults.my_results(self.state.services, user.id, user.first_name)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(pages.render("my.html", lang, chosen, mine=mine, here="/app"))


class AppShareHandler(Base):
    """``POST /app/share`` with the Mini App's ``init_data`` and a result's ``token``:
    ``{"id": ...}``, the prepared inline message the app hands to
    ``Telegram.WebApp.shareMessage``. 403 for anything but a valid, fresh sign-in, 404
    for a token that is no published result, 503 when the Bot API is not reachable from
    here, 502 when it refused."""

    async def post(self) -> None:
        self.set_header("Cache-Control", "no-store")
        self.set_header("Content-Type", "application/json; charset=utf-8")
        try:
            lang, _ = self.lang({k: v for k, v in self.query().items() if k == "lang"})
        except pages.BadRequest:
            lang = "en"
        try:
            user = initdata.check(
                self.get_body_argument("init_data", default=""), self.state.bot_token or ""
            )
        except initdata.InvalidInitData as exc:
            log.info("Mini App share refused: %s", exc)
            return self._answer(403, {"error": "sign-in refused"})
        token = self.get_body_argument("token", default="")
        if not token or len(token) > 32 or not token.replace("-", "").replace("_", "").isalnum():
            return self._answer(404, {"error": "no such result"})
        if self.state.share is None:
            return self._answer(503, {"error": "sharing is not available here"})
        try:
            prepared = await self.state.share(user.id, token, lang)
        except UserError:
            return self._answer(404, {"error": "no such result"})
        except Exception:  # the Bot API refused or is unreachable: said, never a 500 page
            log.warning("Mini App share: savePreparedInlineMessage failed", exc_info=True)
            return self._answer(502, {"error": "Telegram did not take the message"})
        self._answer(200, {"id": prepared})

    def _answer(self, status: int, body: dict[str, str]) -> None:
        self.set_status(status)
        self.finish(json.dumps(body))


class StaticHandler(tornado.web.StaticFileHandler):
    """The stylesheet, the script, the fonts; a path no file can have (a NUL byte) is
    a 404 before tornado looks at the disk (``os.path.realpath`` raises on it)."""

    def set_default_headers(self) -> None:
        self.set_header("Content-Security-Policy", CSP)
        self.set_header("X-Content-Type-Options", "nosniff")

    def get_content_type(self) -> str:
        if self.absolute_path is not None and self.absolute_path.endswith(".webmanifest"):
            return "application/manifest+json"
        return super().get_content_type()

    def parse_url_path(self, url_path: str) -> str:
        if "\x00" in url_path:
            raise tornado.web.HTTPError(404)
        return super().parse_url_path(url_path)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        if status_code == 405:
            self.set_header("Allow", ", ".join(allowed_methods(type(self))))
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(
            pages.render("error.html", "en", False, status=status_code, message=None, here="/")
        )


class NotFoundHandler(Base):
    async def get(self, *_: str) -> None:
        self.error_page(404)

    async def post(self, *_: str) -> None:
        self.error_page(404)


def routes(state: WebState) -> list[Any]:
    """The web boards' routes, for a tornado ``Application`` (ours, or the webhook's)."""
    args = {"state": state}
    return [
        *api.routes(state),  # /api/v1: scripts and CI (bot.web.api)
        (r"/", IndexHandler, args),
        (rf"/b/{_NAME}\.(csv|json)", BoardHandler, args),
        (rf"/b/{_NAME}", BoardHandler, args),
        (rf"/b/{_NAME}/questions", QuestionsHandler, args),
        (rf"/g/{_TOKEN}", GroupBoardHandler, args),
        (rf"/g/{_TOKEN}/{_NAME}", GroupBoardHandler, args),
        (rf"/r/{_TOKEN}\.json", ResultJsonHandler, args),
        (rf"/r/{_TOKEN}", ResultHandler, args),
        (rf"/r/{_TOKEN}/card\.png", ResultCardHandler, args),
        (rf"/b/{_NAME}/card\.png", BoardCardHandler, args),
        (
            r"/(favicon\.ico|apple-touch-icon\.png|manifest\.webmanifest)",
            StaticHandler,
            {"path": str(pages.STATIC)},
        ),
        (r"/signing-key", SigningKeyHandler, args),
        (r"/openapi.json", OpenApiHandler, args),
        (r"/app", AppHandler, args),
        (r"/app/me", AppMeHandler, args),
        (r"/app/share", AppShareHandler, args),
        (r"/static/(.*)", StaticHandler, {"path": str(pages.STATIC)}),
    ]


def application(state: WebState, extra: list[Any] | None = None) -> tornado.web.Application:
    """The boards (and ``extra`` routes first) with a 404 page for everything else."""
    return tornado.web.Application(
        [*(extra or []), *routes(state), (r"/(.*)", NotFoundHandler, {"state": state})],
        default_handler_class=None,
        compress_response=True,
    )

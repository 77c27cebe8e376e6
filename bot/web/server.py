"""The web boards' HTTP handlers (tornado), on the bot's event loop or alone, and their
routes.

Every handler is a short coroutine: the store's queries run on its database thread, a
template renders in a millisecond or two. Their base (:mod:`bot.web.handler`) caches
pages, answers conditional requests and sends the security headers; bad input is a 400
or 404 page, never a 500.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import tornado.log
import tornado.web

from scoring import registry

from ..core import api as api_core
from ..core import people, questions, sharing, signing, webboards, webresults
from ..core.errors import UserError
from ..core.services import Services
from ..render.i18n import pick_language, t
from . import api, initdata, openapi, pages
from .handler import CSP, JSON_TYPE, Base, allowed_methods

# what a server of the boards needs besides application() (the webhook's, standalone's)
from .handler import MAX_BODY as MAX_BODY
from .handler import WebState as WebState

log = logging.getLogger("benchboard.web")

_NAME = r"([a-z0-9_]{1,40})"
_TOKEN = r"([A-Za-z0-9_-]{1,32})"


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
                *pages.OG_IMAGE_SIZE,
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
            sort, descending, page = pages.questions_query(query)
            here = self.request.uri or "/"

            async def render() -> tuple[str, str]:
                stats = await questions.question_stats(
                    self.state.services, name, self.state.questions
                )
                html = pages.questions_page(
                    stats, lang, chosen, here=here, sort=sort, descending=descending, page=page
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
                    board, lang, url=origin + here, image=origin + "/static/og.png",
                    size=pages.OG_IMAGE_SIZE,
                )  # fmt: skip
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
            spec = openapi.describe(openapi.openapi(registry.names()), list(registry.names()))
            return json.dumps(spec, indent=1), "application/json; charset=utf-8"

        await self.cached("openapi", render)

    head = get  # monitors and link checkers ask with HEAD


async def bot_language(services: Services, user: initdata.WebAppUser) -> str:
    """The language a signed-in user reads the bot in: their /lang choice, else the
    language of their Telegram app (as the bot picks it for their messages)."""
    return pick_language(await people.chosen_language(services, user.id), user.language_code)


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
        # the language the user reads the bot in (their /lang, else Telegram's), not the
        # phone's: the page asked without ?lang= (the menu button, the main Mini App)
        # reloads in it when it differs (app.js)
        spoken = await bot_language(self.state.services, user)
        if "lang" not in self.query():
            lang, chosen = spoken, True
        mine = await webresults.my_results(self.state.services, user.id, user.first_name)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Content-Language", spoken)
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
            lang, chosen = self.lang({k: v for k, v in self.query().items() if k == "lang"})
        except pages.BadRequest:
            lang, chosen = "en", False
        try:
            user = initdata.check(
                self.get_body_argument("init_data", default=""), self.state.bot_token or ""
            )
        except initdata.InvalidInitData as exc:
            log.info("Mini App share refused: %s", exc)
            return self._answer(403, {"error": "sign-in refused"})
        if not chosen:  # the page's language was the phone's: the message is the bot's
            lang = await bot_language(self.state.services, user)
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

    def get_cache_time(self, path: str, modified: Any, mime_type: str) -> int:
        """A year for an address with its content's digest (``pages.asset``); else none
        said here (``set_extra_headers``: asked again each time, a 304 when unchanged)."""
        return 365 * 24 * 3600 if "v" in self.request.arguments else 0

    def set_extra_headers(self, path: str) -> None:
        if "v" in self.request.arguments:
            self.set_header("Cache-Control", f"public, max-age={365 * 24 * 3600}, immutable")
        else:  # a browser's own guess could keep an old script or stylesheet for days
            self.set_header("Cache-Control", "no-cache")

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
    def prepare(self) -> None:
        return  # no page here, with or without a link's trackers: never a redirect

    async def get(self, *_: str) -> None:
        self.error_page(404)

    # whatever the method, a page that does not exist is not found (not 405)
    post = put = patch = delete = get


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


#: What looks like an API token (``bb_`` and 43 characters), wherever it is.
_API_TOKEN = re.compile(re.escape(api_core.TOKEN_PREFIX) + r"[A-Za-z0-9_-]{20,}")


def log_request(handler: tornado.web.RequestHandler) -> None:
    """Tornado's access log line, with any API token in the address replaced by
    ``bb_***`` (a script that put its token in the query string leaks it to no log)."""
    status = handler.get_status()
    if status < 400:
        say = tornado.log.access_log.info
    elif status < 500:
        say = tornado.log.access_log.warning
    else:
        say = tornado.log.access_log.error
    request = handler.request
    uri = _API_TOKEN.sub(api_core.TOKEN_PREFIX + "***", request.uri or "")
    say(
        "%d %s %s (%s) %.2fms",
        status, request.method, uri, request.remote_ip, 1000.0 * request.request_time(),
    )  # fmt: skip


def application(state: WebState, extra: list[Any] | None = None) -> tornado.web.Application:
    """The boards (and ``extra`` routes first) with a 404 page for everything else."""
    return tornado.web.Application(
        [*(extra or []), *routes(state), (r"/(.*)", NotFoundHandler, {"state": state})],
        default_handler_class=None,
        compress_response=True,
        log_function=log_request,
    )

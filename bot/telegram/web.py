"""Webhook mode: our own small HTTP server (tornado, which PTB's webhooks extra brings).

It checks Telegram's secret header on every request, keeps each update in the durable
intake before answering 200 (a body that is not an update gets 400), serves
``/healthz`` and the web boards (``bot.web``, on a database connection of their
own, so a slow page never holds up the bot's queries) on the same port, and stops
gracefully on SIGTERM: no new updates are taken, the ones already received are
handled, then the database closes.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
from typing import Any
from urllib.parse import urlsplit

import tornado.http1connection
import tornado.web
from telegram import Update
from tornado.httpserver import HTTPServer

from ..core import health
from ..core.errors import listen_failed
from ..core.services import Services, until_answered
from ..settings import PREFIX, Settings, SettingsError
from . import miniapp
from .context import SERVICES, BotApp
from .intake import intake_of

log = logging.getLogger("benchboard")
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
#: The largest update body taken (Telegram's are a few KB: a message's text is at most
#: 4,096 characters); a larger one is answered 413 without being kept.
MAX_UPDATE = 256 * 1024


@tornado.web.stream_request_body
class _UpdateHandler(tornado.web.RequestHandler):
    """Telegram's POSTs. The secret header is checked in :meth:`prepare`, once the
    headers are in and before any of the body is read: a request without it is answered
    403 and its connection closed, so a stranger's body never reaches memory. An
    authenticated body is read up to :data:`MAX_UPDATE`."""

    def initialize(self, app: BotApp, secret: str) -> None:
        self.app = app
        self.secret = secret
        self._body = bytearray()
        self._too_large = False

    def prepare(self) -> None:
        given = self.request.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode(), self.secret.encode()):
            log.warning("webhook request refused: wrong or missing secret token")
            self._refuse(403)
            return
        if self.request.method != "POST":
            self.set_header("Allow", "POST")
            self._refuse(405)
            return
        length = self.request.headers.get("Content-Length", "")
        if length and (not length.isdigit() or int(length) > MAX_UPDATE):
            log.warning("webhook request refused: a body of %s bytes", length[:20])
            self._refuse(413)
            return
        # a chunked body larger than this closes the connection (tornado's own check)
        connection = self.request.connection
        if isinstance(connection, tornado.http1connection.HTTP1Connection):
            connection.set_max_body_size(MAX_UPDATE)

    def _refuse(self, status: int) -> None:
        """Answer ``status`` now, and close the connection: the body is not read."""
        self.set_status(status)
        self.set_header("Connection", "close")
        self.finish()

    def data_received(self, chunk: bytes) -> None:
        if self._finished or self._too_large:
            return
        if len(self._body) + len(chunk) > MAX_UPDATE:
            self._too_large = True
            self._body.clear()
            return
        self._body += chunk

    async def post(self) -> None:
        if self._too_large:
            self.set_status(413)
            return
        intake = intake_of(self.app)
        if intake is None:  # not started yet: Telegram will deliver it again
            self.set_status(503)
            return
        try:
            data = json.loads(self._body)
        except ValueError:
            data = None
        # kept (committed, or spooled while the database does not answer) before the
        # 200 that tells Telegram it arrived
        self.set_status(await intake.receive_webhook(data))

    def check_xsrf_cookie(self) -> None:  # Telegram does not send cookies
        return


class _HealthHandler(tornado.web.RequestHandler):
    def initialize(self, app: BotApp) -> None:
        self.app = app

    async def get(self) -> None:
        services = self.app.bot_data.get(SERVICES)
        state = await health.check(services if isinstance(services, Services) else None)
        self.set_status(200 if state.ok else 503)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"ok": state.ok, **state.report()}))


class _LiveHandler(tornado.web.RequestHandler):
    """``/livez``: this process takes requests (200), whatever the database says: what a
    load balancer checks. While the database does not answer, a webhook update is still
    kept (the spool) and a page answers its 503 itself; ``/healthz`` says 503 then, and
    a balancer that checked it would refuse every request of every instance at once."""

    def get(self) -> None:
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps({"ok": True}))


def webhook_path(url: str) -> str:
    path = urlsplit(url).path or "/"
    return path if path.startswith("/") else "/" + path


def require_secret(settings: Settings) -> str:
    """The webhook's secret; webhook mode does not start without one."""
    if settings.webhook_secret is None:
        raise SettingsError(f"{PREFIX}WEBHOOK_SECRET must be set in webhook mode")
    return settings.webhook_secret.get_secret_value()


async def serve(app: BotApp, settings: Settings, secret: str, stop: asyncio.Event) -> None:
    """Our webhook server beside ``/healthz``, for the running application, until
    ``stop`` is set; the webhook is registered with Telegram once it listens."""
    assert settings.webhook_url is not None
    path = webhook_path(settings.webhook_url)
    routes: list[Any] = [
        (r"/healthz", _HealthHandler, {"app": app}),
        (r"/livez", _LiveHandler),
        (path, _UpdateHandler, {"app": app, "secret": secret}),
    ]
    from ..web import server as boards  # the boards' templates load only in webhook mode

    # API uploads: off the loop; a database gone since the bot's start is waited for
    board_services = await until_answered(
        lambda: Services.open(settings, worker=True), settings, log, "the web boards"
    )
    state = boards.WebState(
        board_services,
        settings.require_token(),
        lambda: app.bot.username,
        share=miniapp.preparer(app.bot, board_services),  # the Mini App's "Share"
    )
    # the boards take small bodies; the webhook raises its own limit once authenticated
    server = HTTPServer(
        boards.application(state, routes), max_body_size=boards.MAX_BODY, xheaders=True
    )
    try:
        try:
            server.listen(settings.webhook_port, address=settings.webhook_listen)
        except OSError as exc:
            raise listen_failed(settings.webhook_listen, settings.webhook_port, exc) from None
        if settings.webhook_register:  # several instances: `benchboard webhook set`, once
            await app.bot.set_webhook(
                url=settings.webhook_url, secret_token=secret, allowed_updates=Update.ALL_TYPES
            )
        log.info("webhook server listening", extra={"port": settings.webhook_port, "path": path})
        await stop.wait()
    finally:
        server.stop()
        await server.close_all_connections()
        await board_services.close()


async def manage_webhook(settings: Settings, action: str) -> str:
    """``benchboard webhook set|delete|info``: what one instance's start does with
    ``BENCHBOARD_WEBHOOK_REGISTER=true``, done once for all of them; returns a line."""
    from telegram import Bot

    from .http import AiohttpRequest

    bot = Bot(
        settings.require_token(),
        base_url=settings.api_base_url,
        base_file_url=settings.api_file_url,
        request=AiohttpRequest(connection_pool_size=1),
        # else PTB makes an httpx client for getUpdates, which nothing here calls
        get_updates_request=AiohttpRequest(connection_pool_size=1),
    )
    async with bot:
        if action == "set":
            if not settings.webhook_url:
                raise SettingsError(f"{PREFIX}WEBHOOK_URL must be set to register a webhook")
            await bot.set_webhook(
                url=settings.webhook_url,
                secret_token=require_secret(settings),
                allowed_updates=Update.ALL_TYPES,
            )
            return f"webhook set: {settings.webhook_url}"
        if action == "delete":
            await bot.delete_webhook(drop_pending_updates=False)
            return "webhook deleted (updates wait for polling)"
        info = await bot.get_webhook_info()
        return f"webhook: {info.url or '(none)'}; pending updates: {info.pending_update_count}" + (
            f"; last error: {info.last_error_message}" if info.last_error_message else ""
        )

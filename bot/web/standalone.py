"""``benchboard web``: the web boards alone (no bot), until SIGTERM or SIGINT.

``benchboard run`` in webhook mode serves the same routes on the webhook's port
(``bot.telegram.web``); this is for polling mode, or a separate process."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

from tornado.httpserver import HTTPServer

from ..core import benchmarks, boards, signing
from ..core.errors import listen_failed
from ..core.services import Services, until_answered
from ..settings import Settings
from .server import MAX_BODY, WebState, application

log = logging.getLogger("benchboard.web")


def state_for(services: Services, settings: Settings) -> WebState:
    """The handlers' state for services opened on their own (not the bot's); with a
    token, the Mini App's "Share" reaches the Bot API with a bot object of its own."""
    token = settings.token.get_secret_value().strip() if settings.token else None
    state = WebState(services, token or None, lambda: settings.bot_username)
    if token:
        from ..telegram import miniapp  # the Bot API client, only where it is used

        bot = miniapp.standalone_bot(token, settings.api_base_url)
        state.share = miniapp.preparer(bot, services)
        state.closing.append(bot.shutdown)
    return state


async def _open(settings: Settings) -> Services:
    services = await Services.open(settings, worker=True)  # large API uploads: off the loop
    try:
        # the benchmarks defined by data (/b/NAME, the API), followed as the bot does
        await benchmarks.start(services)
        await signing.ensure(services)  # the key that signs published results: made once
    except BaseException:
        await services.close()
        raise
    return services


async def serve(
    settings: Settings, host: str, port: int, stop: asyncio.Event | None = None
) -> None:
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    # a database that does not answer yet is waited for, as by the bot (a SIGTERM
    # meanwhile stops the wait)
    opening = asyncio.ensure_future(until_answered(lambda: _open(settings), settings, log))
    stopping = asyncio.ensure_future(stop.wait())
    await asyncio.wait([opening, stopping], return_when=asyncio.FIRST_COMPLETED)
    stopping.cancel()
    if not opening.done():
        opening.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await opening
        return
    services = opening.result()
    services.spawn(boards.turn_days(services))
    state = state_for(services, settings)
    server = HTTPServer(application(state), max_body_size=MAX_BODY, xheaders=True)
    try:
        try:
            server.listen(port, address=host)
        except OSError as exc:
            raise listen_failed(host, port, exc) from None
        log.info("web boards listening on http://%s:%s/", host, port)
        print(f"web boards on http://{host}:{port}/", flush=True)
        await stop.wait()
    finally:
        server.stop()
        await server.close_all_connections()
        for close in state.closing:
            await close()
        await services.close()


def run(settings: Settings, host: str | None, port: int | None) -> None:
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(message)s")
    asyncio.run(serve(settings, host or settings.web_host, port or settings.web_port))

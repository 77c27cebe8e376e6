"""The web tests' server: the boards' own routes on this test's event loop, over a
database filled by ``fixtures.fill``; requests through aiohttp."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest
from tornado.httpserver import HTTPServer

from bot.core.services import Services
from bot.settings import Settings
from bot.web.server import WebState, application

from . import fixtures

BOT_TOKEN = "123456:TEST-token-for-the-web"


@dataclass
class Site:
    base: str
    session: aiohttp.ClientSession
    state: WebState
    tokens: dict[str, str]
    filled: fixtures.Filled

    async def get(self, path: str, **kwargs: object) -> tuple[int, str, aiohttp.ClientResponse]:
        async with self.session.get(self.base + path, allow_redirects=False, **kwargs) as r:  # type: ignore[arg-type]
            return r.status, await r.text(), r


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
async def site(tmp_path: Path) -> AsyncIterator[Site]:
    path = tmp_path / "web.sqlite3"
    filled = await fixtures.fill(path)
    settings = Settings(db=str(path), data_dir=tmp_path, bot_username="bench_test_bot")
    services = await Services.open(settings)
    state = WebState(services, BOT_TOKEN, lambda: "bench_test_bot")
    port = free_port()
    server = HTTPServer(application(state))
    server.listen(port, address="127.0.0.1")
    try:
        async with aiohttp.ClientSession() as session:
            yield Site(f"http://127.0.0.1:{port}", session, state, fixtures.tokens(path), filled)
    finally:
        server.stop()
        await server.close_all_connections()
        await services.close()

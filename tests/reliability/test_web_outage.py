"""The web boards, the Mini App and the API while PostgreSQL is down (a cluster the
test starts itself, SIGKILLed): a page that needs the database is answered ``503`` with
``Retry-After`` and a page saying so (the API: its JSON ``unavailable`` error), never a
``500`` with a traceback in the log; once the server is back the same addresses answer
``200``, without a restart."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from tornado.httpserver import HTTPServer

from bot.core.services import Services
from bot.settings import Settings
from bot.web.server import WebState, application
from tests.e2e.botapi import free_port
from tests.reliability.pgcluster import Cluster, pg_cluster
from tests.web.test_initdata import fields, signed

BOT_TOKEN = "123456:TEST-token-for-the-web"
UNAVAILABLE = "The database is not answering just now"
#: Seconds within which five pages are answered 503 while the database is down (the
#: first finds the pool's connections lost, the next ones an empty pool: not 30 s each).
ANSWERED_WITHIN = 10.0


async def _serve(cluster: Cluster, tmp: Path) -> AsyncIterator[tuple[str, Services]]:
    settings = Settings(db=cluster.url, data_dir=tmp, bot_username="bench_test_bot")
    services = await Services.open(settings)
    port = free_port()
    server = HTTPServer(application(WebState(services, BOT_TOKEN, lambda: "bench_test_bot")))
    server.listen(port, address="127.0.0.1")
    try:
        yield f"http://127.0.0.1:{port}", services
    finally:
        server.stop()
        await server.close_all_connections()
        await services.close()


async def test_pages_say_the_database_is_unavailable_and_recover(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    init_data = signed(BOT_TOKEN, fields(user_id=7, auth_date=int(time.time())))
    async with pg_cluster() as cluster:
        serving = _serve(cluster, tmp_path)
        base, _ = await anext(serving)
        try:
            async with aiohttp.ClientSession() as session:

                async def get(path: str) -> tuple[int, str, aiohttp.ClientResponse]:
                    async with session.get(base + path) as r:
                        return r.status, await r.text(), r

                async def app_me() -> tuple[int, str]:
                    async with session.post(base + "/app/me", data={"init_data": init_data}) as r:
                        return r.status, await r.text()

                status, _, _ = await get("/b/primebench")
                assert status == 200
                await cluster.kill()
                with caplog.at_level(logging.WARNING):
                    # pages nobody asked for yet: nothing cached to answer with
                    started = time.monotonic()
                    status, body, response = await get("/b/primebench?mode=think")
                    assert status == 503, body[:300]
                    assert UNAVAILABLE in body
                    assert response.headers["Retry-After"] == "5"
                    assert response.headers["Cache-Control"] == "no-store"
                    status, body = await app_me()
                    assert status == 503, body[:300]
                    assert UNAVAILABLE in body
                    # and more, none waiting for the pool's half minute
                    for mode in ("default", "tools", "think_tools"):
                        status, body, _ = await get(f"/b/primebench?mode={mode}")
                        assert status == 503, body[:300]
                    took = time.monotonic() - started
                    assert took <= ANSWERED_WITHIN, f"five pages answered in {took:.1f} s"
                # no traceback (tornado's access log says 503 as it says any 5xx)
                failures = [
                    r for r in caplog.records if r.exc_info or r.name == "tornado.application"
                ]
                assert failures == [], [r.getMessage() for r in failures]
                await cluster.start()
                deadline = time.monotonic() + 60
                while (await get("/b/primebench?mode=think"))[0] != 200:
                    assert time.monotonic() < deadline, "the page did not come back"
                status, body = await app_me()
                assert status == 200, body[:300]
        finally:
            await serving.aclose()


async def test_benchboard_web_waits_for_a_database_down_at_start(tmp_path: Path) -> None:
    """``benchboard web`` started while PostgreSQL is down keeps trying (a warning each
    time), serves once it is up, and stops at once on SIGTERM."""
    import asyncio
    import os
    import sys

    from tests.e2e.harness import ROOT

    async with pg_cluster() as cluster:
        await cluster.kill()
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("BENCHBOARD_")}
        env.update(
            BENCHBOARD_DB=cluster.url,
            BENCHBOARD_DATA_DIR=str(tmp_path / "data"),
            PYTHONPATH=str(ROOT),
            PYTHONUNBUFFERED="1",
        )
        log = tmp_path / "web.log"
        with log.open("wb") as out:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", "web", "--port", str(port),
                env=env, stdout=out, stderr=asyncio.subprocess.STDOUT,
            )  # fmt: skip
        try:
            deadline = time.monotonic() + 30
            while log.read_text().count("does not answer yet") < 2:
                assert proc.returncode is None, log.read_text()[-2000:]
                assert time.monotonic() < deadline, log.read_text()[-2000:]
                await asyncio.sleep(0.1)
            await cluster.start()
            deadline = time.monotonic() + 60
            async with aiohttp.ClientSession() as session:
                while True:
                    try:
                        async with session.get(f"http://127.0.0.1:{port}/b/primebench") as r:
                            if r.status == 200:
                                break
                    except aiohttp.ClientConnectionError:
                        pass
                    assert proc.returncode is None, log.read_text()[-2000:]
                    assert time.monotonic() < deadline, log.read_text()[-2000:]
                    await asyncio.sleep(0.2)
            assert "Traceback" not in log.read_text()
        finally:
            if proc.returncode is None:
                proc.terminate()
                await asyncio.wait_for(proc.wait(), 30)
        # a SIGTERM while it waits: it stops at once
        await cluster.kill()
        with log.open("wb") as out:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", "web", "--port", str(free_port()),
                env=env, stdout=out, stderr=asyncio.subprocess.STDOUT,
            )  # fmt: skip
        deadline = time.monotonic() + 30
        while "does not answer yet" not in log.read_text():
            assert time.monotonic() < deadline, log.read_text()[-2000:]
            await asyncio.sleep(0.1)
        proc.terminate()
        assert await asyncio.wait_for(proc.wait(), 5) == 0, log.read_text()[-2000:]

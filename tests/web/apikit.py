"""The API's test server: the real web application (boards and ``/api/v1``) over a
fresh database with a generated PrimeBench key, two users and a token each."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from tornado.httpserver import HTTPServer

from bot.core import api
from bot.core.services import Services
from bot.settings import Settings
from bot.web.server import MAX_BODY, WebState, application
from tests.storage.helpers import answers, key_bytes

from .conftest import free_port

ROOT = Path(__file__).resolve().parents[2]

OWNER, STRANGER = 501, 502
KEY = key_bytes(7, questions=20)
#: The generated key's answers (question i: option).
RIGHT = [int(line.split(":")[1]) for line in KEY.decode().splitlines()]


@dataclass
class Api:
    base: str
    session: aiohttp.ClientSession
    services: Services
    token: str
    other: str

    def auth(self, token: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token or self.token}"}

    async def post(
        self, body: Any, *, token: str | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, Any], aiohttp.ClientResponse]:
        given = {**self.auth(token), **(headers or {})}
        kwargs: dict[str, Any] = {"json": body} if not isinstance(body, bytes) else {"data": body}
        async with self.session.post(
            self.base + "/api/v1/submissions", headers=given, **kwargs
        ) as r:
            return r.status, json.loads(await r.text()), r

    async def get(
        self, path: str, *, token: str | None = None
    ) -> tuple[int, dict[str, Any], aiohttp.ClientResponse]:
        async with self.session.get(self.base + path, headers=self.auth(token)) as r:
            return r.status, json.loads(await r.text()), r


async def serve(tmp_path: Path, **settings: Any) -> AsyncIterator[Api]:
    path = tmp_path / "api.sqlite3"
    config = Settings(db=str(path), data_dir=tmp_path, **settings)
    services = await Services.open(config)
    await services.store.save_key("primebench", KEY, source="test")
    for uid in (OWNER, STRANGER):
        await services.store.upsert_user(
            uid, first_name=f"U{uid}", last_name=None, username=None, language_code="en"
        )
    token = await api.make_token(services, OWNER)
    other = await api.make_token(services, STRANGER)
    port = free_port()
    # as `benchboard web` serves it: small bodies unless a handler raises its own limit
    server = HTTPServer(application(WebState(services, None, lambda: None)), max_body_size=MAX_BODY)
    server.listen(port, address="127.0.0.1")
    try:
        async with aiohttp.ClientSession() as session:
            yield Api(f"http://127.0.0.1:{port}", session, services, token, other)
    finally:
        server.stop()
        await server.close_all_connections()
        await services.close()


def output(correct: int) -> str:
    """A PrimeBench output with the first ``correct`` answers right, the rest wrong."""
    wrong = [o % 4 + 1 for o in RIGHT]
    return answers(*(RIGHT[:correct] + wrong[correct:]))


async def submit(*args: str, token: str) -> tuple[int, str, str]:
    """``benchboard submit ...`` as its own process, with ``token`` as its API token."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "submit", *args,
        env={"BENCHBOARD_API_TOKEN": token, "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT),
             "HOME": str(Path.home())},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()

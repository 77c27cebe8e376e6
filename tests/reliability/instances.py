"""Several real bot processes on one PostgreSQL database, behind a balancer: each update
is POSTed to one live instance's webhook (round-robin, on to the next when one does not
answer 200, as Caddy does in ``deploy/Caddyfile.scale``); instances can be started and
SIGKILLed mid-burst. The fake Bot API notes when each score card reached its chat.

Used by ``test_instances.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from aiohttp import web

from tests.e2e.botapi import FakeBotAPI, JSONDict, free_port
from tests.e2e.botkit import KEY, answers
from tests.e2e.harness import BotProcess, healthy, running_bot, webhook_env

SCORE = "Final Score"
SECRET = "lease-secret"


class TimedBotAPI(FakeBotAPI):
    """The fake Bot API, noting when each score card reached a chat (``cards``: chat id
    -> the monotonic times, one per card), and slow: a ``sendMessage`` takes effect and
    is answered ``latency`` seconds after it arrives (a far-away or loaded Telegram), so
    an update stays in flight that long before its reply shows. A send whose client is
    gone by then (its process killed) has no effect: only a live instance answers."""

    def __init__(self, *, latency: float = 0.0) -> None:
        super().__init__()
        self.latency = latency
        self.cards: dict[int, list[float]] = {}

    async def _serve_api(self, request: web.Request) -> web.Response:
        if request.match_info["method"].lower() == "sendmessage" and self.latency:
            await asyncio.sleep(self.latency)
            if request.transport is None or request.transport.is_closing():
                return web.json_response({"ok": False}, status=502)  # nobody reads it
        return await super()._serve_api(request)

    def _commit_bot_message(self, message: JSONDict) -> JSONDict:
        committed = super()._commit_bot_message(message)
        if SCORE in str(message.get("text") or ""):
            self.cards.setdefault(int(message["chat"]["id"]), []).append(time.monotonic())
        return committed


@dataclass
class Instance:
    name: str
    bot: BotProcess
    url: str
    alive: bool = True


@dataclass
class Fleet:
    """The instances, the balancer in front of them, and what each update's POST got."""

    api: TimedBotAPI
    tmp: Path
    db_url: str
    stack: contextlib.AsyncExitStack
    #: settings every instance gets (beyond the webhook's and the database's)
    env: dict[str, str] = field(default_factory=dict)
    members: list[Instance] = field(default_factory=list)
    #: update id -> (the instance that answered 200, when)
    acked: dict[int, tuple[str, float]] = field(default_factory=dict)
    _turn: int = 0

    async def start(self, name: str) -> Instance:
        """Start an instance; it gets updates once its ``/healthz`` answers."""
        port = free_port()
        env = {
            **self.env,
            **webhook_env(port, SECRET),
            "BENCHBOARD_DB": self.db_url,
            "BENCHBOARD_WEBHOOK_REGISTER": "false",  # the balancer delivers
        }
        tmp = self.tmp / name
        tmp.mkdir()
        bot = await self.stack.enter_async_context(
            running_bot(self.api, tmp, key=KEY, env=env, wait=False)
        )
        await healthy(port)
        instance = Instance(name, bot, f"http://127.0.0.1:{port}/telegram")
        self.members.append(instance)
        return instance

    async def kill(self, instance: Instance) -> None:
        instance.alive = False
        await instance.bot.kill()

    async def post(self, update: JSONDict) -> str:
        """Deliver ``update`` to one live instance (trying the others when it does not
        answer 200); the name of the one that took it."""
        for _ in range(200):
            live = [m for m in self.members if m.alive]
            instance = live[self._turn % len(live)]
            self._turn += 1
            with contextlib.suppress(ConnectionError):
                status = await self.api.post_raw_update(update, SECRET, url=instance.url)
                if status == 200:
                    self.acked[int(update["update_id"])] = (instance.name, time.monotonic())
                    return instance.name
            await asyncio.sleep(0.05)
        raise AssertionError(f"no instance took update {update['update_id']}")

    def unfinished(self) -> int:
        with psycopg.connect(self.db_url) as conn:
            row = conn.execute(b"SELECT count(*) FROM intake WHERE done_at IS NULL").fetchone()
        assert row is not None
        return int(row[0])


class Submitters:
    """``count`` users, each sending one PrimeBench output (so a chat's score cards are
    the answers to its one submission)."""

    def __init__(self, api: FakeBotAPI, count: int, *, first_id: int) -> None:
        rng = random.Random(count)
        self.api = api
        self.people = [api.user(first_id + n, f"L{n}") for n in range(count)]
        self.chats = [api.private_chat(p) for p in self.people]
        self.texts = [
            "\n".join(["model: lease", *answers(KEY, correct=rng.randint(1, 100))])
            for _ in range(20)
        ]
        #: update id -> chat id
        self.sent: dict[int, int] = {}

    async def send(self, fleet: Fleet, rate: float) -> None:
        """Every user's submission through the balancer, ``rate`` a second."""
        for n, (person, chat) in enumerate(zip(self.people, self.chats, strict=True)):
            update = self.api.make_text_update(chat, person, self.texts[n % len(self.texts)])
            await fleet.post(update)
            self.sent[int(update["update_id"])] = int(chat["id"])
            await asyncio.sleep(1 / rate)

    def answered(self, cards: dict[int, list[float]]) -> int:
        return sum(1 for chat in self.chats if chat["id"] in cards)

    def duplicated(self, cards: dict[int, list[float]]) -> int:
        return sum(len(cards.get(chat["id"], [])) - 1 for chat in self.chats if chat["id"] in cards)


async def wait_for(condition: Any, timeout: float, what: str) -> None:  # noqa: ASYNC109
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.05)

"""Run the real bot process (`benchboard run`) against the fake Bot API server."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import sys
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from .botapi import FakeBotAPI

ROOT = Path(__file__).resolve().parents[2]


def make_key(n: int = 104, seed: int = 11) -> dict[int, int]:
    rng = random.Random(seed)
    return {q: rng.randint(1, 4) for q in range(1, n + 1)}


def key_text(key: dict[int, int]) -> str:
    return "".join(f"{q}:{o}\n" for q, o in key.items())


def webhook_env(port: int, secret: str) -> dict[str, str]:
    """The settings that run the bot in webhook mode on ``port`` of 127.0.0.1."""
    return {
        "BENCHBOARD_WEBHOOK_URL": f"http://127.0.0.1:{port}/telegram",
        "BENCHBOARD_WEBHOOK_LISTEN": "127.0.0.1",
        "BENCHBOARD_WEBHOOK_PORT": str(port),
        "BENCHBOARD_WEBHOOK_SECRET": secret,
    }


@dataclass
class BotProcess:
    proc: asyncio.subprocess.Process
    data_dir: Path
    log_path: Path
    #: set by :meth:`kill`: the process's end is expected, not a failure
    killed: bool = False

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    async def kill(self) -> None:
        """SIGKILL the process (no shutdown of any kind) and wait for it to end."""
        self.killed = True
        self.proc.kill()
        await self.proc.wait()


async def wait_started(bot: BotProcess, timeout: float = 30.0) -> None:  # noqa: ASYNC109
    """Wait until the bot's log says it started (its database open, its keys loaded)."""
    deadline = time.monotonic() + timeout
    while "benchboard started as @" not in bot.log():
        if bot.proc.returncode is not None or time.monotonic() > deadline:
            raise AssertionError(f"the bot did not start:\n{bot.log()[-3000:]}")
        await asyncio.sleep(0.01)


@contextlib.asynccontextmanager
async def running_bot(
    api: FakeBotAPI,
    tmp: Path,
    *,
    key: dict[int, int] | None = None,
    env: dict[str, str] | None = None,
    wait: bool = True,
    program: Sequence[str] = ("-m", "bot"),
) -> AsyncIterator[BotProcess]:
    """``benchboard run`` in ``tmp`` against ``api`` (``program``: what Python runs
    instead of ``-m bot``, given ``run``), with ``key`` as PrimeBench's key; waits until
    it started unless ``wait`` is False."""
    data_dir = tmp / "data"
    if key is not None:
        (data_dir / "primebench").mkdir(parents=True, exist_ok=True)
        (data_dir / "primebench" / "A.txt").write_text(key_text(key))
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("BENCHBOARD_")}
    full_env.update(api.bot_env())
    full_env.update(
        {
            "BENCHBOARD_DATA_DIR": str(data_dir),
            "BENCHBOARD_FETCH_ON_START": "false",
            "BENCHBOARD_RATE_OVERALL": "0",
            "BENCHBOARD_RATE_GROUP": "0",
            "PYTHONPATH": str(ROOT),
            "PYTHONUNBUFFERED": "1",
        }
    )
    full_env.update(env or {})
    log_path = tmp / "bot.log"
    # appended to: a bot restarted on the same folder keeps the earlier process's log
    with log_path.open("ab") as log_file:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            *program,
            "run",
            cwd=tmp,
            env=full_env,
            stdout=log_file,
            stderr=asyncio.subprocess.STDOUT,
        )
    bot = BotProcess(proc, data_dir, log_path)

    async def watch() -> None:
        await proc.wait()
        if not bot.killed:
            api.abort(f"the bot process exited with {proc.returncode}:\n{bot.log()[-3000:]}")

    watcher = asyncio.create_task(watch())
    try:
        if wait:
            if "BENCHBOARD_WEBHOOK_URL" in (env or {}):
                await api.wait_webhook(timeout=30)
            else:
                await api.wait_polling(timeout=30)
            # the first getUpdates goes out while the database opens: up is when it is open
            await wait_started(bot)
        yield bot
    finally:
        watcher.cancel()
        if proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 15)
            except TimeoutError:
                proc.kill()
                await proc.wait()


async def healthy(port: int, *, timeout: float = 60.0) -> None:  # noqa: ASYNC109
    """Wait until a bot in webhook mode answers ``/healthz`` on ``port``."""
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            with contextlib.suppress(aiohttp.ClientError):
                async with session.get(f"http://127.0.0.1:{port}/healthz") as r:
                    if r.status == 200:
                        return
            await asyncio.sleep(0.1)
    raise AssertionError(f"no healthy instance on port {port}")

"""The long-lived services the use cases work with: settings, the store, loaded keys.

The Telegram layer creates one :class:`Services` in ``post_init`` and hands it to the
use cases; nothing reaches it through module globals.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import AsyncIterator, Coroutine, Hashable
from concurrent.futures import ProcessPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from storage import KeyVersion, Store

from ..settings import Settings


@dataclass(frozen=True, slots=True)
class LoadedKey:
    """A benchmark's current key: the stored version and the parsed key object, where
    this process loaded it from and when (``/keyinfo``)."""

    version: KeyVersion
    key: Any
    source: str = ""
    loaded_at: datetime = field(default_factory=lambda: datetime.now(UTC))


@dataclass
class Services:
    settings: Settings
    store: Store
    keys: dict[str, LoadedKey] = field(default_factory=dict)
    pool: ProcessPoolExecutor | None = None
    bot_username: str = ""
    background: set[asyncio.Task[Any]] = field(default_factory=set)
    #: What was last recorded of each user and chat (only changes are written).
    seen: dict[Hashable, object] = field(default_factory=dict)

    @classmethod
    async def open(cls, settings: Settings, *, worker: bool = False) -> Services:
        """Open the database (and, for the bot, the worker process that scores large
        inputs); :meth:`close` releases them."""
        store = await Store.open(
            settings.db_path, synchronous=settings.db_synchronous, mmap_mb=settings.db_mmap_mb
        )
        pool = None
        if worker:
            context = multiprocessing.get_context("spawn")
            pool = ProcessPoolExecutor(max_workers=1, mp_context=context)
        return cls(settings=settings, store=store, pool=pool)

    async def close(self) -> None:
        for task in list(self.background):
            task.cancel()
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        await self.store.close()

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run a background task, keeping a reference until it ends."""
        task: asyncio.Task[Any] = asyncio.get_running_loop().create_task(coro)
        self.background.add(task)
        task.add_done_callback(self.background.discard)
        return task


@asynccontextmanager
async def opened(settings: Settings) -> AsyncIterator[Services]:
    """Services for one command-line command: the database, no worker."""
    services = await Services.open(settings)
    try:
        yield services
    finally:
        await services.close()

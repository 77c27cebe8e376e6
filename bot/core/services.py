"""The long-lived services the use cases work with: settings, the store, loaded keys.

The Telegram layer creates one :class:`Services` in ``post_init`` and hands it to the
use cases; nothing reaches it through module globals.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ProcessPoolExecutor
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

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        """Run a background task, keeping a reference until it ends."""
        task: asyncio.Task[Any] = asyncio.get_running_loop().create_task(coro)
        self.background.add(task)
        task.add_done_callback(self.background.discard)
        return task

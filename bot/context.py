"""The typed context: long-lived services reached from handlers.

``post_init`` creates one :class:`Services` and puts it in ``bot_data``; handlers reach it
as ``context.services`` (a :class:`BotContext`), never through module globals.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from telegram.ext import Application, CallbackContext

from storage import KeyVersion, Store

from .http import ReplyBot
from .settings import Settings

SERVICES = "services"


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


class BotContext(CallbackContext[ReplyBot, dict[Any, Any], dict[Any, Any], dict[Any, Any]]):
    """CallbackContext with a typed accessor for the services."""

    @property
    def services(self) -> Services:
        services = self.bot_data.get(SERVICES)
        if not isinstance(services, Services):
            raise RuntimeError("services are not initialised (post_init has not run)")
        return services


BotApp = Application[ReplyBot, BotContext, dict[Any, Any], dict[Any, Any], dict[Any, Any], Any]

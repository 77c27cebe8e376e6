"""The long-lived services the use cases work with: settings, the store, loaded keys.

The Telegram layer creates one :class:`Services` when the Application starts
(``bot.telegram.app.open_services``) and hands it to the use cases; nothing reaches it
through module globals.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Coroutine,
    Hashable,
    MutableMapping,
)
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from storage import KeyVersion, Store, StoreUnavailable

from ..settings import Settings
from . import challenges
from .bounded import Lru
from .offload import Worker
from .render_pool import RenderPool

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Users and chats whose last recorded details are remembered.
SEEN_MAX = 50_000


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
    #: Whether heavy work may go to a worker process (the bot: yes; a CLI command: no).
    worker: bool = False
    #: The worker process, started by :meth:`offload` on first need.
    pool: Worker | None = None
    bot_username: str = ""
    background: set[asyncio.Task[Any]] = field(default_factory=set)
    #: What was last recorded of the most recently seen users and chats (only changes
    #: are written; a user forgotten here is written once more when next seen).
    seen: MutableMapping[Hashable, object] = field(default_factory=lambda: Lru(SEEN_MAX))
    #: Publications of the day by user, as (UTC date ordinal, count), for the "n of m
    #: left today" line of a score reply (one database read fewer per reply). Only for
    #: showing: the limit itself is checked in the publication's own transaction, so a
    #: count another instance changed is at worst shown stale until the next one here.
    published: MutableMapping[int, tuple[int, int]] = field(default_factory=lambda: Lru(SEEN_MAX))
    #: The web boards' searches: each board's scanned lines (whatever the search), kept
    #: a few seconds for every search of it (``bot.core.webboards``).
    scans: MutableMapping[Hashable, Any] = field(default_factory=lambda: Lru(64))
    #: Cards and board images are drawn in its thread (never on the event loop).
    render: RenderPool = field(default_factory=RenderPool)
    #: Called with each change another instance announces (``lang:42``; ``""``: anything
    #: may have changed), by what each keeps (``keys``: the answer keys in use).
    listeners: dict[str, Callable[[str], None]] = field(default_factory=dict)
    #: The count of stored benchmark definitions when they were last read (-1: never;
    #: ``bot.core.benchmarks.refresh``).
    definitions_stamp: int = -1
    #: How often each answer is given, by benchmark, as (monotonic time read, a
    #: ``bot.core.trust.Rarity``): what makes a shared wrong answer rare.
    answer_samples: dict[str, tuple[float, object]] = field(default_factory=dict)
    #: Called with a benchmark's name when another process changed the key in use here
    #: (the bot re-scores what this process scored against the old one meanwhile).
    key_changed: Callable[[str], None] | None = None

    @classmethod
    async def open(cls, settings: Settings, *, worker: bool = False) -> Services:
        """Open the database; with ``worker`` (the bot), large inputs are worked on in a
        worker process, started on first need. :meth:`close` releases them."""
        store = await Store.open(
            settings.db_target, synchronous=settings.db_synchronous, mmap_mb=settings.db_mmap_mb
        )
        try:
            await challenges.declare(store)  # which benchmarks keep challenge boards
            services = cls(settings=settings, store=store, worker=worker)
            if worker and store.shared:  # the bot, with other instances on the database
                await store.on_announcement(services.heard)
        except BaseException:
            # (a database gone meanwhile: the start tries again, on a new store)
            await store.close()
            raise
        return services

    async def announce(self, topic: str) -> None:
        """Tell the other instances (PostgreSQL) that something they cache changed."""
        if self.store.shared:
            await self.store.announce(topic)

    def heard(self, topic: str) -> None:
        """A change announced by an instance (this one's too): the listeners drop what
        they cache (``keys.follow`` reloads the keys)."""
        for listener in list(self.listeners.values()):
            listener(topic)

    async def close(self) -> None:
        for task in list(self.background):
            task.cancel()
        self.worker = False
        self.render.close()
        if self.pool is not None:
            self.pool.close()
            self.pool = None
        await self.store.close()

    async def offload(
        self, seconds: float, fn: Callable[..., T], *args: Any, owner: Hashable = None
    ) -> T:
        """``fn(*args)`` in a worker process (started now if need be), in ``owner``'s
        turn (the user it is done for: one job of theirs at a time, users served in
        turn), or inline when these services have no worker. Raises
        :class:`TimeoutError` once the job has run ``seconds`` seconds: its process is
        killed, so the next job does not wait behind it (it gets a fresh one);
        :class:`bot.core.offload.WorkerLost` when the process died."""
        if not self.worker:
            return fn(*args)
        if self.pool is None:
            self.pool = Worker()
        return await self.pool.run(seconds, fn, *args, owner=owner)

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run a background task, keeping a reference until it ends."""
        task: asyncio.Task[Any] = asyncio.get_running_loop().create_task(coro)
        self.background.add(task)
        task.add_done_callback(self.background.discard)
        return task


async def read_until_answered(
    read: Callable[[], Awaitable[None]], what: str, attempts: int = 8
) -> None:
    """``read()`` (what another instance announced), again with backoff while the
    database does not answer: a listener that lost its connection hears ``""`` as soon
    as it has one again, when the pool's may still be broken. ``what`` names it in the
    warning when every attempt failed."""
    for attempt in range(attempts):
        try:
            await read()
            return
        except StoreUnavailable as exc:
            if attempt == attempts - 1:
                log.warning("%s were not read again: %s", what, exc)
                return
            await asyncio.sleep(min(0.5 * 2**attempt, 10.0))


#: Seconds between the first tries to open a database that does not answer at the start
#: of a long-running process, doubled after each up to :data:`OPEN_MAX_PAUSE`.
OPEN_FIRST_PAUSE = 1.0
OPEN_MAX_PAUSE = 30.0


async def until_answered(
    open_: Callable[[], Awaitable[T]],
    settings: Settings,
    logger: logging.Logger,
    what: str = "starting",
) -> T:
    """``open_()``, tried again while the database does not answer (``StoreUnavailable``:
    down, restarting, locked, its disk full), a warning naming it each time and a
    pause growing from :data:`OPEN_FIRST_PAUSE` to :data:`OPEN_MAX_PAUSE` seconds: a
    transient fault is waited out, never an error (what waiting cannot fix raises as it
    comes). ``what``: the work, for the log. Cancel it to stop waiting."""
    pause = OPEN_FIRST_PAUSE
    tries = 0
    while True:
        tries += 1
        try:
            value = await open_()
        except StoreUnavailable as exc:
            logger.warning(
                "%s: the database %s does not answer yet (%s); trying again in %.0f s",
                what,
                settings.db_label,
                settings.redact(str(exc)),
                pause,
                extra={"tries": tries},
            )
            await asyncio.sleep(pause)
            pause = min(pause * 2, OPEN_MAX_PAUSE)
            continue
        if tries > 1:
            logger.info("the database answers: %s", what, extra={"tries": tries})
        return value


@asynccontextmanager
async def opened(settings: Settings) -> AsyncIterator[Services]:
    """Services for one command-line command: the database (the benchmarks defined in
    it registered), no worker."""
    from .benchmarks import load_defined  # it uses these services

    services = await Services.open(settings)
    try:
        await load_defined(services)
        yield services
    finally:
        await services.close()

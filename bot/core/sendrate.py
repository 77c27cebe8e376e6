"""The Bot API's flood limits shared by every instance of the bot.

Telegram limits a bot as a whole (about 30 messages a second overall, 20 a minute in
one group), not each process: with several instances, each one's own limiter
(PTB's ``AIORateLimiter``) would let their sum go over. With PostgreSQL the instances
keep one schedule per limit in the database (``shared_state``): each call reserves
the next free slot (one statement, an atomic upsert) and waits until then. A second
service (Redis) would do the same with one more thing to run; at these rates (tens of
calls a second, a millisecond's statement each) the database is enough.
"""

from __future__ import annotations

import asyncio
import logging
import time

from storage import StorageError

from .services import Services

log = logging.getLogger("benchboard.send")

#: Seconds a reservation may wait for the database; past that (or when it fails) the
#: call goes by this instance's own limiter, and the database is not asked again for
#: :data:`AWAY_SECONDS`. A database that does not answer would otherwise hold every
#: call for the pool's half minute, one after another (a pressed button's answer, the
#: note that the database is away), while only the sum of the instances' rates is lost.
RESERVE_TIMEOUT = 1.0
AWAY_SECONDS = 5.0


class SharedSendRate:
    """Waits until a call may go, across every instance (``overall`` calls a second,
    ``group`` calls a minute per group chat; 0: no such limit).

    The sender (``telegram.fairsend.FairSchedule``) waits for a group's slot
    (:meth:`chat`) first, in the caller's own time, then for the overall one
    (:meth:`overall`) in its turn: one reservation at a time per instance, so that calls
    queue in the instance's fair order rather than in the database's first-come one."""

    def __init__(self, services: Services, *, overall: float, group: float) -> None:
        self._store = services.store
        self._overall_ms = int(1000 / overall) if overall > 0 else 0
        self._group_ms = int(60_000 / group) if group > 0 else 0
        self.waited = 0.0
        #: until when (monotonic) the database is not asked (it failed)
        self._away_until = 0.0

    async def __call__(self, endpoint: str, chat_id: object) -> None:
        """Both limits, one after the other."""
        await self.chat(endpoint, chat_id)
        await self.overall(endpoint)

    async def overall(self, endpoint: str) -> None:
        """The bot's overall slot."""
        if endpoint != "getUpdates" and self._overall_ms:
            await self._reserve("overall", self._overall_ms)

    async def chat(self, endpoint: str, chat_id: object) -> None:
        """A group chat's own slot for a message sent there (none for other calls)."""
        if not self._group_ms or not endpoint.startswith(("send", "copy", "forward")):
            return
        if (isinstance(chat_id, int) and chat_id < 0) or isinstance(chat_id, str):
            await self._reserve(f"chat:{chat_id}", self._group_ms)

    async def _reserve(self, key: str, interval: int) -> None:
        if time.monotonic() < self._away_until:
            return  # the database failed a moment ago: the local limiter applies
        now = int(time.time() * 1000)
        try:
            slot = await asyncio.wait_for(
                self._store.reserve_send(key, interval_ms=interval, now_ms=now), RESERVE_TIMEOUT
            )
        except (StorageError, TimeoutError) as exc:  # the local limiter still applies
            self._away_until = time.monotonic() + AWAY_SECONDS
            log.warning("the shared send rate is unavailable: %s", str(exc) or "no answer")
            return
        if slot > now:
            self.waited += (slot - now) / 1000
            await asyncio.sleep((slot - now) / 1000)

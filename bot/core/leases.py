"""Leases every process on the database honours (``shared_state``, ``lease:<name>``):
one holder at a time, whichever instance (or command-line command) it runs in.

A holder renews its lease every :data:`RENEW_S` while it works and gives it up when
done; one that dies stops renewing, and its lease lapses within :data:`LEASE_MS`, so
another takes it over. A re-score of a benchmark holds ``rescore.<benchmark>`` (two at
once would both compare with the scores before and tell every user twice), a sender of
a re-score's notices ``notices.<batch>``.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress

from storage import StoreUnavailable

from .services import Services, until_answered

log = logging.getLogger(__name__)

#: A lease not renewed for this long has lapsed (its holder is taken for dead).
LEASE_MS = 30_000
#: A holder renews its lease this often.
RENEW_S = 5.0
#: A waiter asks again this often whether the lease is free.
WAIT_S = 1.0


def owner() -> str:
    """A new holder's name."""
    return secrets.token_hex(8)


async def take(services: Services, name: str, holder: str) -> bool:
    """Take (or renew) the lease for ``holder``; whether it holds it."""
    return await services.store.take_lease(name, holder, ttl_ms=LEASE_MS)


async def _renewing(services: Services, name: str, holder: str) -> None:
    while True:
        await asyncio.sleep(RENEW_S)
        try:
            if not await take(services, name, holder):
                log.warning("the lease %s lapsed and was taken over", name)
                return
        except StoreUnavailable as exc:  # tried again; it lapses if this goes on
            log.warning("the lease %s was not renewed: %s", name, exc)


@asynccontextmanager
async def kept(services: Services, name: str, holder: str) -> AsyncIterator[None]:
    """Inside, the lease ``holder`` took is renewed; given up on leaving."""
    renewing = asyncio.ensure_future(_renewing(services, name, holder))
    try:
        yield
    finally:
        renewing.cancel()
        with suppress(asyncio.CancelledError):
            await renewing
        try:
            await services.store.drop_lease(name, holder)
        except Exception as exc:  # it lapses on its own
            log.warning("the lease %s was not given up: %s", name, exc)


@asynccontextmanager
async def held(
    services: Services, name: str, *, waiting: Callable[[], None] | None = None
) -> AsyncIterator[str]:
    """Wait for the lease ``name`` (whoever holds it), hold it inside; the holder's
    name. ``waiting`` is called once when another holds it."""
    holder = owner()

    def taken() -> Awaitable[bool]:  # a database away meanwhile is waited for
        return until_answered(lambda: take(services, name, holder), services.settings, log, name)

    while True:  # another process holds it: nothing here to wait on but time
        if await taken():
            break
        if waiting is not None:
            waiting()
            waiting = None
        await asyncio.sleep(WAIT_S)
    async with kept(services, name, holder):
        yield holder

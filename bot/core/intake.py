"""The durable intake as use cases: keep updates on arrival, mark them handled, replay
what a stopped process left unfinished, forget old handled ones; with several instances,
the leases that say which instance handles an update (``storage.intake``: claimed on
admission, renewed while handled, taken over by another instance once lapsed).

The Telegram layer calls these; the rows live in ``storage.intake``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from storage.intake import CLAIM_LIMIT, LEASE_MS, IntakeEntry
from storage.values import json_text

from .bounded import storable
from .services import Services

#: Telegram keeps an undelivered update for 24 hours: a handled one kept a day longer
#: than that can never come back.
KEEP_MS = 24 * 3600 * 1000

#: Seconds an instance's lease on an update lasts unless renewed.
LEASE_SECONDS = LEASE_MS / 1000

__all__ = [
    "KEEP_MS",
    "LEASE_SECONDS",
    "IntakeEntry",
    "admit",
    "body",
    "claim_at_start",
    "claim_lapsed",
    "finish",
    "finish_soon",
    "keepable",
    "prune",
    "renew",
    "unfinished",
]


def body(update: Mapping[str, Any]) -> str:
    """An update's JSON as the intake keeps it (read back by ``json.loads``): compact,
    UTF-8 where it can be. JSON may carry what text in the database cannot (a lone
    surrogate, ``\\ud800``), and Python's reader takes NaN: such an update is kept
    escaped, NaN as NaN, so no update can stop the ones beside it."""
    return json_text(update, allow_nan=True)


def keepable(data: object) -> bool:
    """Whether ``data`` can be kept: an object with an update id the store can hold."""
    if not isinstance(data, dict):
        return False
    update_id = data.get("update_id")
    return isinstance(update_id, int) and not isinstance(update_id, bool) and storable(update_id)


async def admit(services: Services, updates: Sequence[Mapping[str, Any]]) -> list[int]:
    """Keep updates (``keepable`` ones) in one transaction; the ids not kept before,
    this instance's to handle (leased to it by the same statement)."""
    return await services.store.admit([(u["update_id"], body(u)) for u in updates])


async def unfinished(services: Services) -> list[IntakeEntry]:
    """Updates kept but not handled, oldest first (whoever handles them)."""
    return await services.store.unfinished()


async def claim_at_start(services: Services) -> list[IntakeEntry]:
    """What a starting instance handles first, oldest first: the unfinished updates no
    running instance holds (on SQLite, one process: every unfinished one)."""
    return await services.store.claim_at_start()


async def claim_lapsed(services: Services) -> list[IntakeEntry]:
    """Unfinished updates whose instance stopped renewing their lease (it died, or
    released them), now this instance's, oldest first (claimed a batch at a time)."""
    taken: list[IntakeEntry] = []
    while True:
        batch = await services.store.claim_lapsed(limit=CLAIM_LIMIT)
        taken.extend(batch)
        if len(batch) < CLAIM_LIMIT:
            return taken


async def renew(services: Services) -> int:
    """Extend the leases of the updates this instance is handling; how many it holds."""
    return await services.store.renew()


async def finish(services: Services, update_id: int) -> None:
    """Mark an update handled; returns once that is committed."""
    await services.store.finish(update_id)


def finish_soon(services: Services, update_id: int) -> None:
    """Mark an update handled without waiting for it: committed with the others
    finishing within a few milliseconds (``storage.intake.FINISH_GATHER``)."""
    services.store.finish_soon(update_id)


async def prune(services: Services) -> int:
    """Forget handled updates older than Telegram could deliver again."""
    return await services.store.prune_intake(older_than_ms=KEEP_MS)

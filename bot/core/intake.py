"""The durable intake as use cases: keep updates on arrival, mark them handled, replay
what a stopped process left unfinished, forget old handled ones.

The Telegram layer calls these; the rows live in ``storage.intake``.
"""

from __future__ import annotations

from collections.abc import Sequence

from storage.intake import IntakeEntry

from .services import Services

#: Telegram keeps an undelivered update for 24 hours: a handled one kept a day longer
#: than that can never come back.
KEEP_MS = 24 * 3600 * 1000

__all__ = ["KEEP_MS", "IntakeEntry", "admit", "finish", "finish_soon", "prune", "unfinished"]


async def admit(services: Services, updates: Sequence[tuple[int, str]]) -> list[int]:
    """Keep updates (id, JSON body) in one transaction; the ids not kept before."""
    return await services.store.admit(updates)


async def unfinished(services: Services) -> list[IntakeEntry]:
    """Updates kept but not handled, oldest first."""
    return await services.store.unfinished()


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

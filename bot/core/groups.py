"""A group upgraded to a supergroup: the group keeps its board and everything else.

Telegram gives the supergroup a new chat id (``-4001`` becomes ``-1004001``) and says
so with two service messages: ``migrate_to_chat_id`` in the old chat and
``migrate_from_chat_id`` in the new one. Either one is enough; both, or one delivered
twice, or handled by two instances at once, are harmless: the store's move is one
idempotent transaction that merges with whatever the new chat already has
(:meth:`storage.Store.move_chat`). The group's results, its board (in the bot, on the
web, as CSV), its links, its admins' marks and audit log, and its runs all follow.
"""

from __future__ import annotations

import logging

from storage import ChatMove

from .bounded import storable
from .services import Services

log = logging.getLogger(__name__)


def is_upgrade(old_chat_id: int, new_chat_id: int) -> bool:
    """Whether (old, new) can be a group's upgrade: two different group ids (a group's
    id is negative) that the store can keep."""
    return (
        old_chat_id != new_chat_id
        and old_chat_id < 0
        and new_chat_id < 0
        and storable(old_chat_id)
        and storable(new_chat_id)
    )


async def upgraded(services: Services, old_chat_id: int, new_chat_id: int) -> ChatMove | None:
    """The group ``old_chat_id`` is now the supergroup ``new_chat_id``: everything kept
    by the old id moves to the new one. None when the pair cannot be a group's upgrade
    (nothing is written)."""
    if not is_upgrade(old_chat_id, new_chat_id):
        log.warning("not a group's upgrade: %s -> %s; nothing moved", old_chat_id, new_chat_id)
        return None
    moved = await services.store.move_chat(old_chat_id, new_chat_id)
    if moved.moved or moved.left:
        # rows left behind (both their ids taken in the new chat) are said louder
        log.log(
            logging.WARNING if moved.left else logging.INFO,
            "group %s is now %s: moved %d submissions (%d renumbered), %d links (%d revoked),"
            " %d audit entries, %d runs; %d submissions left behind",
            old_chat_id,
            new_chat_id,
            moved.submissions + moved.renumbered,
            moved.renumbered,
            moved.links,
            moved.revoked,
            moved.audit_entries,
            moved.runs,
            moved.left,
        )
    return moved

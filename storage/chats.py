"""A chat whose id changes: Telegram upgrades a basic group to a supergroup.

The group keeps its members and history, but its chat id changes (``-4001`` becomes
``-1004001``), and Telegram says so twice: a message with ``migrate_to_chat_id`` in the
old chat and one with ``migrate_from_chat_id`` in the new one. Whatever the store keeps
by the group's chat id moves to the new id in one transaction
(:meth:`ChatStore.move_chat`): its submissions (so its board, its export, its held
results and its admins' marks), its links (the group's board in the bot, its web
board), its audit log and its runs.

A move may be asked for by both messages, on any instance, more than once, and after
the new chat already has rows of its own; it merges, keeps every row, and a second
move finds nothing left to do:

- a submission is unique on (chat, message): one whose message id the new chat already
  has (the new chat's numbering starts again) moves under the negative of its message
  id, which no Telegram message of a group has; one whose both ids are taken stays
  where it is (:attr:`ChatMove.left`);
- a chat has one live link of each kind: when both chats have one, the one made first
  stays live (it is the one most likely shared) and the other is revoked;
- a run still queued forgets its progress message, which is in the old chat (a message
  id of the old chat means nothing, or another message, in the new one).

The old chat's own row stays (it is the chat as Telegram reported it; a late update
from it may still be recorded, and another instance may still believe it exists).
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import StoreBase
from .db import Session
from .errors import InvalidData
from .values import storable_text

#: Tries of a move that met a row written meanwhile by another instance (a submission
#: of the new chat inserted while the move ran): the next try sees it and merges.
MOVE_TRIES = 3
#: The kinds of link that stand for a chat (``storage.links``).
_CHAT_LINKS = ("group", "web")


@dataclass(frozen=True, slots=True)
class ChatMove:
    """What :meth:`ChatStore.move_chat` moved from ``old_id`` to ``new_id``."""

    old_id: int
    new_id: int
    #: submissions moved with their message ids
    submissions: int = 0
    #: submissions moved under the negative of their message id (the new chat had one
    #: with the same message id)
    renumbered: int = 0
    #: submissions that could not move (both ids taken in the new chat): still the old
    #: chat's
    left: int = 0
    #: links moved (live or revoked), and live ones revoked (the other chat's was older)
    links: int = 0
    revoked: int = 0
    audit_entries: int = 0
    runs: int = 0

    @property
    def moved(self) -> int:
        """Rows moved (0: there was nothing, or a move before took everything)."""
        return self.submissions + self.renumbered + self.links + self.audit_entries + self.runs


class ChatStore(StoreBase):
    async def move_chat(self, old_id: int, new_id: int, *, type: str = "supergroup") -> ChatMove:
        """Move everything kept by chat ``old_id`` to ``new_id`` in one transaction (see
        the module's docstring); the new chat gets a row (of ``type``, with the old
        one's title) if it has none. Idempotent: a second call moves nothing."""
        if old_id == new_id:
            raise InvalidData("a chat cannot move to its own id")
        kind = storable_text(type)
        attempt = 1
        while True:
            try:
                moved = await self._db.retrying(
                    lambda s: self._move(s, old_id, new_id, kind, self._now_ms())
                )
            except InvalidData:
                # a unique key taken meanwhile (PostgreSQL: another instance inserted a
                # submission of the new chat while this move ran): the next try sees it
                if attempt == MOVE_TRIES:
                    raise
                attempt += 1
                continue
            self._known_chats.add(new_id)
            return moved

    async def _move(self, s: Session, old: int, new: int, kind: str, now: int) -> ChatMove:
        # one move of this chat at a time, and no link of the new chat made meanwhile
        await s.lock("chat-move", new)
        for link_kind in _CHAT_LINKS:
            await s.lock(f"link:{link_kind}", new)

        # The new chat's row, before anything refers to it: the old one's title.
        await s.execute(
            """INSERT INTO chats (id, type, title, first_seen, last_seen)
               SELECT ?, ?, title, ?, ? FROM chats WHERE id = ?
               ON CONFLICT (id) DO NOTHING""",
            (new, kind, now, now, old),
        )
        await s.execute(
            """INSERT INTO chats (id, type, first_seen, last_seen) VALUES (?, ?, ?, ?)
               ON CONFLICT (id) DO NOTHING""",
            (new, kind, now, now),
        )

        # Links: one live link per kind and chat; of two, the older stays live.
        live = await s.all(
            "SELECT kind, token, created_at FROM links"
            " WHERE chat_id IN (?, ?) AND revoked_at IS NULL ORDER BY created_at, token",
            (old, new),
        )
        kept: set[str] = set()
        revoke: list[tuple[int, str]] = []
        for link_kind, token, _ in live:
            if link_kind in kept:
                revoke.append((now, str(token)))
            kept.add(str(link_kind))
        if revoke:
            await s.executemany("UPDATE links SET revoked_at = ? WHERE token = ?", revoke)
        links = await s.execute("UPDATE links SET chat_id = ? WHERE chat_id = ?", (new, old))

        # Submissions: unique on (chat, message).
        same = await s.execute(
            """UPDATE submissions SET chat_id = ?
               WHERE chat_id = ? AND NOT EXISTS (
                   SELECT 1 FROM submissions AS t
                   WHERE t.chat_id = ? AND t.message_id = submissions.message_id)""",
            (new, old, new),
        )
        renumbered = await s.execute(
            """UPDATE submissions SET chat_id = ?, message_id = -message_id
               WHERE chat_id = ? AND message_id > 0 AND NOT EXISTS (
                   SELECT 1 FROM submissions AS t
                   WHERE t.chat_id = ? AND t.message_id = -submissions.message_id)""",
            (new, old, new),
        )
        left = await s.one("SELECT COUNT(*) FROM submissions WHERE chat_id = ?", (old,))

        audit = await s.execute("UPDATE audit_log SET chat_id = ? WHERE chat_id = ?", (new, old))
        runs = await s.execute(
            """UPDATE runs SET chat_id = ?,
                   progress_id = CASE WHEN state = 'queued' THEN NULL ELSE progress_id END
               WHERE chat_id = ?""",
            (new, old),
        )
        return ChatMove(
            old_id=old,
            new_id=new,
            submissions=same.rowcount,
            renumbered=renumbered.rowcount,
            left=int(left[0]) if left else 0,
            links=links.rowcount,
            revoked=len(revoke),
            audit_entries=audit.rowcount,
            runs=runs.rowcount,
        )

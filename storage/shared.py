"""What the instances of one bot share besides the data: a reply the bot waits for, a
scheduled job's run claimed by one instance, a send-rate schedule, and announcements
of changes that other instances cache (``shared_state``, step 9).

On SQLite there is one instance and announcements go nowhere; on PostgreSQL they are
``NOTIFY`` messages every instance ``LISTEN``s to.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import StoreBase
from .errors import InvalidData

#: The channel announcements travel on.
CHANNEL = "benchboard_changes"


def _name(kind: str, key: str) -> str:
    if not kind.isidentifier() or len(key) > 200:
        raise InvalidData(f"not a shared state name: {kind}:{key}")
    return f"{kind}:{key}"


class SharedStateStore(StoreBase):
    # --- a reply the bot waits for ------------------------------------------------------

    async def expect_input(self, what: str, key: str, value: str, *, ttl_ms: int) -> None:
        """Remember that the bot waits for a reply (``what``: e.g. ``model``; ``key``:
        whose, e.g. a user id) with ``value`` (the caller's, e.g. JSON), for ``ttl_ms``."""
        expires = self._now_ms() + ttl_ms
        async with self._db.write() as s:
            await s.execute(
                """INSERT INTO shared_state (name, value, expires_at) VALUES (?, ?, ?)
                   ON CONFLICT (name) DO UPDATE SET value = excluded.value,
                       expires_at = excluded.expires_at""",
                (_name("input_" + what, key), value, expires),
            )

    async def awaited_input(self, what: str, key: str) -> str | None:
        """The value of a reply still awaited, or None (none, or expired)."""
        async with self._db.single() as s:
            row = await s.one(
                "SELECT value FROM shared_state WHERE name = ? AND expires_at > ?",
                (_name("input_" + what, key), self._now_ms()),
            )
        return None if row is None else str(row[0])

    async def take_input(self, what: str, key: str, value: str) -> bool:
        """Stop waiting for a reply, if it is still ``value``; True when this call did
        (of two instances given the reply, one takes it)."""
        async with self._db.write() as s:
            done = await s.execute(
                "DELETE FROM shared_state WHERE name = ? AND value = ?",
                (_name("input_" + what, key), value),
            )
        return done.rowcount > 0

    # --- scheduled jobs run once -----------------------------------------------------------

    async def claim_run(self, job: str, slot: str, *, ttl_ms: int) -> bool:
        """Claim one run of a scheduled job (``slot``: e.g. the day); True for the one
        instance that claimed it, False for the others (and for a second try)."""
        now = self._now_ms()
        async with self._db.write() as s:
            await s.execute(
                "DELETE FROM shared_state WHERE expires_at IS NOT NULL AND expires_at <= ?",
                (now,),
            )
            row = await s.one(
                """INSERT INTO shared_state (name, value, expires_at) VALUES (?, ?, ?)
                   ON CONFLICT (name) DO NOTHING RETURNING name""",
                (_name("job", f"{job}:{slot}"), slot, now + ttl_ms),
            )
        return row is not None

    # --- a send rate shared by every instance ----------------------------------------------

    async def reserve_send(self, key: str, *, interval_ms: int, now_ms: int) -> int:
        """The time (ms) from which one more call in the ``key`` schedule may go: calls
        are spaced ``interval_ms`` apart across every instance (the schedule's next free
        time is kept in the row; an idle schedule starts at ``now_ms``). The caller
        waits until then. ``now_ms`` is the caller's wall clock."""
        async with self._db.single() as s:
            row = await s.one(
                """INSERT INTO shared_state AS r (name, number) VALUES (?, ?)
                   ON CONFLICT (name) DO UPDATE SET number =
                       CASE WHEN r.number > ? THEN r.number ELSE ? END + ?
                   RETURNING number""",
                (_name("rate", key), now_ms + interval_ms, now_ms, now_ms, interval_ms),
            )
        assert row is not None
        return int(row[0]) - interval_ms

    # --- announcements ---------------------------------------------------------------------

    async def announce(self, topic: str) -> None:
        """Tell the other instances that ``topic`` changed (e.g. ``keys``, ``lang:42``)."""
        await self._db.notify(CHANNEL, topic)

    async def on_announcement(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(topic)`` for every announcement (this instance's too), from now
        until the store closes; ``""`` after a lost connection (anything may have
        changed). Nothing on SQLite (one instance)."""
        await self._db.listen(CHANNEL, callback)

    @property
    def shared(self) -> bool:
        """Whether other instances may share this database (PostgreSQL)."""
        return self._db.kind == "postgresql"

"""What the instances of one bot share besides the data: a reply the bot waits for, a
scheduled job's run claimed by one instance, a choice every instance reads (an admin's
target of a day), a send-rate schedule, and announcements of changes that other
instances cache (``shared_state``, step 9).

On SQLite there is one instance and announcements go nowhere; on PostgreSQL they are
``NOTIFY`` messages every instance ``LISTEN``s to.
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from .base import StoreBase
from .errors import InvalidData

#: The channel announcements travel on.
CHANNEL = "benchboard_changes"
#: The prefix of the names of awaited replies in ``shared_state``.
_INPUT = "input_"


def _name(kind: str, key: str) -> str:
    if not kind.isidentifier() or len(key) > 200:
        raise InvalidData(f"not a shared state name: {kind}:{key}")
    return f"{kind}:{key}"


class _Awaited:
    """The awaited replies of an SQLite database (its ``input_*`` rows), mirrored in
    this process: name -> (value, expires_at). SQLite is one process's database (as the
    intake's start assumes), and the stores of this process open on that file share one
    mirror, so it holds what the table holds: read from the table once (``rows`` None:
    not yet, or a write failed and the table must be read again), then kept by the
    writes. ``changes`` counts the writes' starts and ends, so a read that one
    overlapped is not kept."""

    def __init__(self) -> None:
        self.rows: dict[str, tuple[str, int]] | None = None
        self.changes = 0


#: The mirror of each SQLite file that a store of this process has open.
_MIRRORS: weakref.WeakValueDictionary[str, _Awaited] = weakref.WeakValueDictionary()


class SharedStateStore(StoreBase):
    # --- a reply the bot waits for ------------------------------------------------------
    #
    # The bot asks for one with each submission (a challenge the user opened): on SQLite
    # the answer comes from the mirror (no trip to the database thread); on PostgreSQL,
    # which other instances write too, from the table.

    _mirror: _Awaited | None = None

    def _awaited(self) -> _Awaited | None:
        """This database's mirror of the awaited replies (None: PostgreSQL)."""
        if self._mirror is None and self._db.kind == "sqlite":
            where = str(self._path.resolve())
            self._mirror = _MIRRORS.setdefault(where, _Awaited())
        return self._mirror

    def _forget_awaited(self) -> None:
        """On closing: this store no longer keeps the mirror (once no open store on the
        file does, a store opened later reads the table again)."""
        self._mirror = None

    @asynccontextmanager
    async def _changing_input(self) -> AsyncIterator[_Awaited | None]:
        """Around a write of awaited replies: the mirror to bring up to date once it is
        committed; after a failure (committed or not) the table is read again."""
        mirror = self._awaited()
        if mirror is not None:
            mirror.changes += 1
        try:
            yield mirror
        except BaseException:
            if mirror is not None:
                mirror.rows = None
            raise
        finally:
            if mirror is not None:  # a read that began while it ran is not kept either
                mirror.changes += 1

    async def expect_input(self, what: str, key: str, value: str, *, ttl_ms: int) -> None:
        """Remember that the bot waits for a reply (``what``: e.g. ``model``; ``key``:
        whose, e.g. a user id) with ``value`` (the caller's, e.g. JSON), for ``ttl_ms``."""
        expires = self._now_ms() + ttl_ms
        name = _name(_INPUT + what, key)
        async with self._changing_input() as mirror:
            async with self._writing(1) as s:
                await s.execute(
                    """INSERT INTO shared_state (name, value, expires_at) VALUES (?, ?, ?)
                       ON CONFLICT (name) DO UPDATE SET value = excluded.value,
                           expires_at = excluded.expires_at""",
                    (name, value, expires),
                )
            if mirror is not None and mirror.rows is not None:
                mirror.rows[name] = (value, expires)

    async def awaited_input(self, what: str, key: str) -> str | None:
        """The value of a reply still awaited, or None (none, or expired)."""
        name, now = _name(_INPUT + what, key), self._now_ms()
        mirror = self._awaited()
        if mirror is not None:
            if mirror.rows is None:
                await self._read_awaited(mirror)
            if mirror.rows is not None:
                found = mirror.rows.get(name)
                if found is None or found[1] <= now:
                    return None
                return found[0]
        async with self._db.single() as s:
            row = await s.one(
                "SELECT value FROM shared_state WHERE name = ? AND expires_at > ?", (name, now)
            )
        return None if row is None else str(row[0])

    async def _read_awaited(self, mirror: _Awaited) -> None:
        """Fill the mirror from the table (unless a write began meanwhile: then it stays
        unread, and the caller reads the table)."""
        changes = mirror.changes
        async with self._db.single() as s:
            rows = await s.all(
                "SELECT name, value, expires_at FROM shared_state"
                " WHERE name LIKE 'input!_%' ESCAPE '!' AND expires_at IS NOT NULL"
            )
        if mirror.changes == changes and mirror.rows is None:
            mirror.rows = {str(n): (str(v), int(e)) for n, v, e in rows if n.startswith(_INPUT)}

    async def take_input(self, what: str, key: str, value: str) -> bool:
        """Stop waiting for a reply, if it is still ``value``; True when this call did
        (of two instances given the reply, one takes it)."""
        name = _name(_INPUT + what, key)
        async with self._changing_input() as mirror:
            async with self._writing(1) as s:
                done = await s.execute(
                    "DELETE FROM shared_state WHERE name = ? AND value = ?", (name, value)
                )
            if mirror is not None and mirror.rows is not None and done.rowcount > 0:
                mirror.rows.pop(name, None)
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
        mirror = self._awaited()
        if mirror is not None and mirror.rows is not None:  # the expired ones went too
            mirror.rows = {n: v for n, v in mirror.rows.items() if v[1] > now}
        return row is not None

    # --- a lease: one holder at a time, across instances ---------------------------------

    async def take_lease(self, name: str, owner: str, *, ttl_ms: int) -> bool:
        """Take (or renew) the lease ``name`` for ``owner`` (a random name of the
        holder's) until ``ttl_ms`` from now: True when ``owner`` holds it, False while
        another holds a lease that has not lapsed. A holder that dies stops renewing,
        and its lease lapses: the next taker gets it."""
        now = self._now_ms()
        async with self._db.write() as s:
            row = await s.one(
                """INSERT INTO shared_state AS r (name, value, expires_at) VALUES (?, ?, ?)
                   ON CONFLICT (name) DO UPDATE SET value = excluded.value,
                       expires_at = excluded.expires_at
                   WHERE r.value = excluded.value OR r.expires_at IS NULL
                       OR r.expires_at <= ?
                   RETURNING value""",
                (_name("lease", name), owner, now + ttl_ms, now),
            )
        return row is not None and str(row[0]) == owner

    async def drop_lease(self, name: str, owner: str) -> None:
        """Give up the lease ``name``, if ``owner`` still holds it."""
        async with self._db.write() as s:
            await s.execute(
                "DELETE FROM shared_state WHERE name = ? AND value = ?",
                (_name("lease", name), owner),
            )

    # --- a secret every instance shares ----------------------------------------------------

    async def first_secret(self, name: str, value: str) -> str:
        """The secret kept under ``name``: ``value`` when none was kept yet, else the one
        kept first (instances starting together all get the same one: the primary key
        decides). ``shared_state`` is never copied by a port nor into a backup."""
        key = _name("secret", name)
        async with self._db.write() as s:
            await s.execute(
                """INSERT INTO shared_state (name, value) VALUES (?, ?)
                   ON CONFLICT (name) DO NOTHING""",
                (key, value),
            )
            row = await s.one("SELECT value FROM shared_state WHERE name = ?", (key,))
        assert row is not None
        return str(row[0])

    # --- choices every instance reads -----------------------------------------------------

    async def keep_choice(self, kind: str, key: str, number: int) -> None:
        """Keep ``number`` as the choice ``key`` of ``kind`` (replacing one kept before),
        for every instance to read (:meth:`choices`)."""
        async with self._db.write() as s:
            await s.execute(
                """INSERT INTO shared_state (name, number) VALUES (?, ?)
                   ON CONFLICT (name) DO UPDATE SET number = excluded.number""",
                (_name(kind, key), number),
            )

    async def choices(self, kind: str) -> dict[str, int]:
        """Every choice of ``kind`` kept (:meth:`keep_choice`): key -> number."""
        prefix = _name(kind, "")
        async with self._db.read() as s:
            rows = await s.all(
                "SELECT name, number FROM shared_state WHERE substr(name, 1, ?) = ?",
                (len(prefix), prefix),
            )
        return {str(r[0])[len(prefix) :]: int(r[1]) for r in rows}

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

"""What every per-concern store class shares: the database, the clock, benchmark ids.

:class:`storage.Store` is composed of one class per concern (users, keys, submissions,
boards, moderation, re-score bookkeeping, backup), each a subclass of :class:`StoreBase`
in its own module, all over one :class:`~storage.db.Database`.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from pathlib import Path

from .db import Database, Session
from .errors import InvalidData

Clock = Callable[[], datetime]

#: Users (and, apart, chats) remembered as having a row.
KNOWN_IDS_MAX = 100_000


class KnownIds:
    """A set of at most ``maxsize`` ids; adding one beyond forgets the oldest added."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._ids: dict[int, None] = {}

    def add(self, value: int) -> None:
        if value in self._ids:
            return
        self._ids[value] = None
        if len(self._ids) > self.maxsize:
            del self._ids[next(iter(self._ids))]

    def __contains__(self, value: object) -> bool:
        return value in self._ids

    def __len__(self) -> int:
        return len(self._ids)


def utc_now() -> datetime:
    return datetime.now(UTC)


class StoreBase:
    def __init__(self, db: Database, path: Path, *, clock: Clock) -> None:
        self._db = db
        self._path = path
        self._clock = clock
        # benchmark ids known to be committed
        self._bench_ids: dict[str, int] = {}
        # users and chats known to have a row (committed), so recording a submission
        # needs no placeholder inserts: one statement, one trip to the database thread;
        # the most recent ones only (one forgotten costs a placeholder insert)
        self._known_users = KnownIds(KNOWN_IDS_MAX)
        self._known_chats = KnownIds(KNOWN_IDS_MAX)

    @property
    def db(self) -> Database:
        """The connection seam (``run``, ``read``, ``write``), for queries kept beside
        the store (``storage.analytics``) and for tests."""
        return self._db

    @property
    def path(self) -> Path:
        return self._path

    def _writing(self, statements: int) -> AbstractAsyncContextManager[Session]:
        """Where ``statements`` writes that land together run: a single statement is a
        transaction of its own (autocommit; one trip to the database, where a write
        transaction takes two, queued beside the other single statements), several
        share a write transaction."""
        return self._db.single() if statements == 1 else self._db.write()

    def _now_ms(self) -> int:
        now = self._clock()
        if now.tzinfo is None:
            raise InvalidData("the clock must return timezone-aware datetimes")
        return int(now.timestamp() * 1000)

    async def _bench_id(self, s: Session, name: str) -> int | None:
        """The id of a benchmark, or None (read path: only committed ids are cached)."""
        cached = self._bench_ids.get(name)
        if cached is not None:
            return cached
        row = await s.one("SELECT id FROM benchmarks WHERE name = ?", (name,))
        if row is None:
            return None
        if not s.in_transaction:
            self._bench_ids[name] = int(row[0])
        return int(row[0])

    async def _ensure_bench(self, s: Session, name: str) -> int:
        """The id of a benchmark, creating its row (inside a write transaction)."""
        found = await self._bench_id(s, name)
        if found is not None:
            return found
        await s.execute(
            "INSERT INTO benchmarks (name) VALUES (?) ON CONFLICT (name) DO NOTHING", (name,)
        )
        row = await s.one("SELECT id FROM benchmarks WHERE name = ?", (name,))
        assert row is not None
        return int(row[0])

"""The one connection seam: an aiosqlite connection, its lock, transactions, ``run``.

The application owns one connection. A session of several statements (``read``,
``write``, ``snapshot``) has the connection to itself while it talks to the database,
so a transaction opened by one caller is never interleaved with another caller's
statements on the shared connection, and a reader never sees another caller's
uncommitted rows. Writes use ``BEGIN IMMEDIATE`` (the write lock is taken up front, so
another process on the same file waits for ``busy_timeout`` instead of failing) and are
short.

A session of one statement (``single``: a group-committed insert, a read of one row)
needs no more than that no such session is open: its statement is one call on the
database thread, which runs calls one at a time in the order they were queued. Any
number of them are queued at once, so under load the database thread goes from one to
the next without waiting for the event loop to take each answer first (which, with
many updates being handled, takes milliseconds), and none waits behind another's
answer.

``run(work)`` executes a synchronous function of a connection in one trip: a hand-off
to a thread and back costs more than a board's SQL, so a read of several statements is
one function, not one trip per statement. aiosqlite has no public call that runs a
function on its thread, so ``Database.run`` (reads outside any transaction) runs
``work`` on a read-only ``sqlite3`` connection of its own, in a thread of its own: one
hand-off, like aiosqlite's own calls, and it sees what is committed (WAL), as a read on
the shared connection would. Inside a session (``Session.run``: it must see the
session's own uncommitted rows) ``work`` runs in a worker thread and each of its
statements goes to aiosqlite's thread through its public API (one trip each); and so
does ``Database.run`` when opened with ``per_statement=True``.

Every trip is counted in :attr:`Database.trips`. :func:`storage.engines.open_database`
opens a file path with this class, and a ``postgresql://`` URL with
:class:`storage.engines.postgres.PgDatabase` (the same interface, over psycopg).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar, cast

import aiosqlite

from . import migrations
from .dialect import SQLITE, Dialect
from .errors import DatabaseCorrupt, InvalidData, StoreUnavailable, translate

Row = Sequence[Any]
T = TypeVar("T")

#: The mode of the files the store creates: the database (SQLite gives its ``-wal`` and
#: ``-shm`` files the database's own mode) and the backups. Its owner's only: they hold
#: everyone's submissions and user ids.
FILE_MODE = 0o600
#: Seconds between two looks, before a write, at whether the WAL file is still the one
#: the connections write to (a ``stat``).
WAL_CHECK_EVERY = 2.0
log = logging.getLogger("benchboard.storage")
#: Up to this size the open runs ``PRAGMA integrity_check`` (every index against its
#: table too); a larger file gets ``quick_check`` (every page and record, in one pass).
FULL_CHECK_BYTES = 64 << 20


def create_private(path: Path) -> None:
    """Create ``path`` empty with :data:`FILE_MODE`, unless it exists (its mode is then
    the operator's)."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE)
    except FileExistsError:
        return
    os.close(fd)


async def _check_integrity(conn: aiosqlite.Connection, target: Path) -> None:
    """Refuse a damaged file before anything is written into it (a damaged page in the
    middle is not noticed until a statement reads it, and writes around it go on)."""
    try:
        async with conn.execute(
            "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()"
        ) as cur:
            row = await cur.fetchone()
        size = int(row[0]) if row else 0
        pragma = "integrity_check" if size <= FULL_CHECK_BYTES else "quick_check"
        async with conn.execute(f"PRAGMA {pragma}(3)") as cur:
            found = [str(row[0]) for row in await cur.fetchall()]
    except sqlite3.DatabaseError as exc:
        if not isinstance(translate(exc), DatabaseCorrupt):
            raise  # locked, an I/O error: not the file's fault
        pragma, found = "read", [str(exc)]
    if found != ["ok"]:
        said = " ".join("; ".join(found).split())[:300]  # one line
        raise DatabaseCorrupt(f"{target} is damaged ({pragma}: {said})")


class Rows(Protocol):
    """What ``work`` gets back from a statement (a ``sqlite3.Cursor`` is one)."""

    def fetchall(self) -> list[Any]: ...

    def fetchone(self) -> Any: ...

    def close(self) -> None: ...


class Conn(Protocol):
    """What ``work`` may call on its connection (a ``sqlite3.Connection`` is one)."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Rows: ...


@dataclass(frozen=True, slots=True)
class Executed:
    """What a statement changed: rows, and the id of the row it inserted (if any)."""

    rowcount: int
    lastrowid: int | None


@contextmanager
def _translated() -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as exc:
        raise translate(exc) from exc
    except UnicodeEncodeError as exc:
        raise InvalidData(f"text that is not valid Unicode: {exc}") from exc
    except ValueError as exc:
        # aiosqlite raises ValueError("no active connection"/"Connection closed") once closed
        if "connection" in str(exc).lower():
            raise StoreUnavailable("the store is closed") from exc
        raise


class _Relayed:
    """The rows of one relayed statement."""

    def __init__(self, rows: list[Any]) -> None:
        self._rows = rows

    def fetchall(self) -> list[Any]:
        rows, self._rows = self._rows, []
        return rows

    def fetchone(self) -> Any:
        return self._rows.pop(0) if self._rows else None

    def close(self) -> None:
        self._rows = []


class _Relay:
    """A connection for ``work`` running in a worker thread: each statement is sent to
    the database thread through aiosqlite's public API, and waited for."""

    def __init__(self, db: Database, loop: asyncio.AbstractEventLoop) -> None:
        self._db, self._loop = db, loop

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Rows:
        rows = asyncio.run_coroutine_threadsafe(self._db._fetchall(sql, parameters), self._loop)
        return _Relayed(list(rows.result()))


def _executed(cursor: Any) -> Executed:
    return Executed(cursor.rowcount, cursor.lastrowid)


class Session:
    """Statements on the connection while its lock is held (see :meth:`Database.read`
    and :meth:`Database.write`). Each method is one trip to the database thread; in a
    write transaction ``BEGIN IMMEDIATE`` is sent, on its own trip, just before the
    first statement (a transaction with nothing in it sends nothing)."""

    def __init__(self, db: Database, *, begin: bool = False, single: bool = False) -> None:
        self._db = db
        #: ``BEGIN IMMEDIATE`` is still to be sent (before the first statement)
        self._to_begin = begin
        #: a ``Database.single`` session: one trip, then no more
        self._single = single
        self._tripped = False

    def _trip(self) -> None:
        """Count a trip of a ``single`` session, which may make only one."""
        if self._single:
            if self._tripped:
                raise RuntimeError("a single() session makes one trip; use read() or write()")
            self._tripped = True

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """The first row of a statement, or None."""
        for row in await self.all(sql, params):
            return row
        return None

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Every row of a statement."""
        self._trip()
        await self._begin()
        return await self._db._fetchall(sql, params)

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> Executed:
        self._trip()
        await self._begin()
        self._db.trips += 1
        return _executed(await self._db._conn.execute(sql, params))

    async def executemany(self, sql: str, params: Iterable[Sequence[Any]]) -> int:
        """One statement for each parameter set, in one trip; returns the rows they
        changed."""
        self._trip()
        await self._begin()
        self._db.trips += 1
        cursor = await self._db._conn.executemany(sql, params)
        return cursor.rowcount

    async def _begin(self) -> None:
        """Send ``BEGIN IMMEDIATE`` if this write transaction has not sent it yet."""
        if not self._to_begin:
            return
        self._to_begin = False
        self._db.trips += 1
        await self._db._conn.execute("BEGIN IMMEDIATE")

    async def lock(self, space: str, key: object, *, shared: bool = False) -> bool:
        """Serialise this transaction with others that lock the same (space, key) until
        they end (``shared``: only with those that lock it exclusively); True when that
        took a lock. SQLite's ``BEGIN IMMEDIATE`` already serialises every writer:
        nothing to do (False); PostgreSQL takes a transaction-scoped advisory lock."""
        return False

    @property
    def dialect(self) -> Dialect:
        return self._db.dialect

    async def run(self, work: Callable[[Conn], T]) -> T:
        """``work(connection)`` in this session: in a worker thread, each of its
        statements a trip to the database thread (it sees this session's own rows)."""
        self._trip()
        await self._begin()
        return await self._db._relayed(work)

    @property
    def in_transaction(self) -> bool:
        return self._to_begin or self._db._conn.in_transaction

    @property
    def total_changes(self) -> int:
        """Rows changed since the connection opened (differences count a batch's rows)."""
        return self._db._conn.total_changes


class _Reader:
    """A read-only ``sqlite3`` connection to the file and the one thread that uses it
    (opened there on first use): ``Database.run``'s work runs on it in one hand-off."""

    def __init__(self, path: Path, pragmas: Sequence[str]) -> None:
        self._path, self._pragmas = path, pragmas
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-read")
        self._conn: sqlite3.Connection | None = None

    def _opened(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = sqlite3.connect(self._path, isolation_level=None)
            try:
                for pragma in self._pragmas:
                    conn.execute(pragma)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    async def run(self, work: Callable[[Conn], T]) -> T:
        def call() -> T:
            return work(self._opened())

        return await asyncio.get_running_loop().run_in_executor(self._executor, call)

    async def close(self) -> None:
        def shut() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        with suppress(sqlite3.Error):
            await asyncio.get_running_loop().run_in_executor(self._executor, shut)
        self._executor.shutdown(wait=False)


class _Count:
    """How many hold something now, and an event set while none does."""

    def __init__(self) -> None:
        self.n = 0
        self.none = asyncio.Event()
        self.none.set()

    @contextmanager
    def held(self) -> Iterator[None]:
        self.n += 1
        self.none.clear()
        try:
            yield
        finally:
            self.n -= 1
            if not self.n:
                self.none.set()


class Database:
    """One SQLite file: open with :meth:`open`, close with :meth:`close`."""

    def __init__(
        self,
        conn: aiosqlite.Connection,
        *,
        per_statement: bool | None = None,
        reader: _Reader | None = None,
    ) -> None:
        """``reader``: the connection ``run`` uses (None, or ``per_statement``: ``run``
        sends ``work``'s statements one per trip through aiosqlite's public API)."""
        self._conn = conn
        self._reader = None if per_statement else reader
        #: ``Database.run`` calls under way on the reader
        self._reading = _Count()
        #: held by a session of several statements (read, write, snapshot)
        self._lock = asyncio.Lock()
        #: single statements queued on the database thread and not yet answered
        self._singles = _Count()
        #: sessions holding the lock or waiting for it; single statements wait while
        #: there are any (a waiting session goes first: none starves)
        self._sessions = _Count()
        self._closed = False
        self.per_statement = self._reader is None
        #: Trips to the database thread so far (a hand-off there and back).
        self.trips = 0
        #: What this engine's SQL spells differently (see :mod:`storage.dialect`).
        self.dialect = SQLITE
        #: set by :meth:`open`: the file and how to open it again (:meth:`_guard_wal`)
        self._path: Path | None = None
        self._options: dict[str, Any] = {}
        self._wal_ino: int | None = None
        self._wal_checked = 0.0

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str],
        *,
        busy_timeout_ms: int = 5000,
        synchronous: Literal["NORMAL", "FULL"] = "FULL",
        mmap_mb: int = 2048,
        per_statement: bool | None = None,
        check: bool = True,
    ) -> Database:
        """Create the parent folder (and the file, :data:`FILE_MODE`), connect, check the
        file is intact (``check``: :class:`DatabaseCorrupt` when not), set the pragmas
        and migrate.

        ``synchronous="FULL"`` makes every commit durable across power loss; ``"NORMAL"``
        is faster and still safe against crashes of the process. ``mmap_mb`` maps up to
        that much of the file into memory (SQLite caps it at 2 GiB; 0: off): reads then
        take pages from the operating system's file cache without a system call each.
        The pages are the OS's, shared and reclaimable, not the process's own.
        """
        if mmap_mb < 0:
            raise InvalidData("mmap_mb must be 0 or more")
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            create_private(target)
            conn = await aiosqlite.connect(target, isolation_level=None)
        except sqlite3.Error as exc:
            raise translate(exc) from exc
        try:
            await conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            if check:
                await _check_integrity(conn, target)
            async with conn.execute("PRAGMA journal_mode = WAL") as cur:
                row = await cur.fetchone()
            if row is None or str(row[0]).lower() != "wal":
                raise StoreUnavailable(f"could not switch {target} to WAL journal mode")
            shared = (
                f"PRAGMA busy_timeout = {int(busy_timeout_ms)}",
                "PRAGMA foreign_keys = ON",
                "PRAGMA temp_store = MEMORY",
                "PRAGMA cache_size = -32000",
                f"PRAGMA mmap_size = {int(mmap_mb) << 20}",
            )
            await conn.executescript(
                ";".join((f"PRAGMA synchronous = {synchronous}", *shared[1:])) + ";"
            )
            await migrations.migrate(conn)
        except BaseException as exc:
            await conn.close()
            if isinstance(exc, sqlite3.Error):
                raise translate(exc) from exc
            raise
        reader = _Reader(target, (*shared, "PRAGMA query_only = ON"))
        db = cls(conn, per_statement=per_statement, reader=reader)
        db._path = target
        db._options = {
            "busy_timeout_ms": busy_timeout_ms,
            "synchronous": synchronous,
            "mmap_mb": mmap_mb,
            "per_statement": per_statement,
        }
        db._wal_ino = db._wal_inode()
        return db

    def _wal_inode(self) -> int | None:
        if self._path is None:
            return None
        try:
            return os.stat(f"{self._path}-wal").st_ino
        except OSError:
            return None

    def _wal_lost(self) -> bool:
        """The WAL file the connections write to is no longer at its path (deleted, or
        replaced, by hand): what they commit goes to a file nobody else can read, and
        that a crash loses."""
        if self._path is None:
            return False
        if self._wal_ino is None:
            self._wal_ino = self._wal_inode()
            return False
        return self._wal_inode() != self._wal_ino

    async def _guard_wal(self) -> None:
        """Before a statement (at most every :data:`WAL_CHECK_EVERY` seconds): when the WAL
        file was deleted under the open connections, what they hold of it is written
        into the database (a checkpoint, through the file they still have open) and
        they are opened again, on a new WAL at its path. Until then every commit since
        the last checkpoint lived only in a deleted file (a crash lost it) and any
        other process reading the database met a disk I/O error."""
        now = time.monotonic()
        if self._closed or now - self._wal_checked < WAL_CHECK_EVERY:
            return
        self._wal_checked = now
        if not self._wal_lost():
            return
        assert self._path is not None
        async with self._alone():
            if self._closed or not self._wal_lost():
                return
            await self._reading.none.wait()
            log.error(
                "the database's WAL file was removed while it was open: its content is "
                "written into the database and the connections opened again (never "
                "delete the -wal or -shm files of a database in use)",
                extra={"database": str(self._path)},
            )
            if self._wal_ino != -1:  # else closed by a try that failed to open again
                try:
                    await self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                except sqlite3.Error as exc:
                    raise translate(exc) from exc
                if self._reader is not None:
                    await self._reader.close()
                await self._conn.close()  # the last connection: the old WAL's end
            try:
                fresh = await Database.open(self._path, check=False, **self._options)
            except BaseException:
                self._wal_ino, self._wal_checked = -1, 0.0  # the next write tries again
                raise
            self._conn, self._reader = fresh._conn, fresh._reader
            self._wal_ino = fresh._wal_ino

    async def close(self) -> None:
        """Close the connection (idempotent). Runs ``PRAGMA optimize`` first."""
        if self._closed:
            return
        async with self._alone():
            self._closed = True
            await self._reading.none.wait()
            if self._reader is not None:
                await self._reader.close()
            with suppress(sqlite3.Error):
                await self._conn.execute("PRAGMA optimize")
            await self._conn.close()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def in_flight(self) -> int:
        """Single statements queued on the database thread and not yet answered."""
        return self._singles.n

    async def schema_version(self) -> int:
        async with self.read():
            return await migrations.current_version(self._conn)

    async def revive(self) -> None:
        """After a failed probe of a database that did not answer: have its connections
        made again at once when that can help (PostgreSQL's pool); nothing for a file."""

    @asynccontextmanager
    async def _alone(self) -> AsyncIterator[None]:
        """The connection to this session alone: the lock, once the single statements
        queued before are answered; none is queued meanwhile."""
        with self._sessions.held():
            async with self._lock:
                await self._singles.none.wait()
                yield

    @asynccontextmanager
    async def single(self) -> AsyncIterator[Session]:
        """A session of one statement (or one ``run``), no transaction (autocommit): it
        shares the connection with the other single statements in flight, and waits
        only while a session of several statements has it (see the module docstring).
        A second statement in it raises ``RuntimeError``. A ``run`` in it is a trip per
        statement, each in autocommit like the other single statements."""
        if self._closed:
            raise StoreUnavailable("the store is closed")
        await self._guard_wal()
        while self._sessions.n:
            await self._sessions.none.wait()
        with self._singles.held(), _translated():
            yield Session(self, single=True)

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Session]:
        """The connection to this session alone, no transaction: each statement commits
        on its own (autocommit), a read sees only committed rows, and no other caller's
        statement comes between two of this session's."""
        if self._closed:
            raise StoreUnavailable("the store is closed")
        await self._guard_wal()
        async with self._alone():
            with _translated():
                yield Session(self)

    @asynccontextmanager
    async def write(self) -> AsyncIterator[Session]:
        """One short transaction: committed on success, rolled back on any exception
        (including cancellation). aiosqlite runs statements in order on its thread, so
        the ROLLBACK queued here always lands after the statements it undoes."""
        if self._closed:
            raise StoreUnavailable("the store is closed")
        await self._guard_wal()
        async with self._alone():
            with _translated():
                session = Session(self, begin=True)
                try:
                    yield session
                    if not session._to_begin:  # else nothing was sent: nothing to commit
                        self.trips += 1
                        await asyncio.shield(self._conn.execute("COMMIT"))
                except BaseException:
                    if not session._to_begin:
                        with suppress(sqlite3.Error, ValueError):
                            await asyncio.shield(self._conn.execute("ROLLBACK"))
                    raise

    #: The engine's name (``PgDatabase``: ``postgresql``).
    kind = "sqlite"

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[Session]:
        """Reads that all see one state: the connection's lock held throughout (no
        writer of this process gets in; on SQLite that is every writer that matters)."""
        async with self.read() as s:
            yield s

    async def retrying(self, work: Callable[[Session], Awaitable[T]], *, attempts: int = 5) -> T:
        """``work(session)`` in one write transaction (PostgreSQL retries it when it loses
        a deadlock; SQLite's writers never deadlock: once)."""
        async with self.write() as s:
            return await work(s)

    async def notify(self, channel: str, payload: str = "") -> None:
        """Tell the other instances (PostgreSQL); SQLite has one instance: nothing to do."""

    async def listen(self, channel: str, callback: Callable[[str], None]) -> None:
        """Be told what other instances notify (PostgreSQL); SQLite: nobody else."""

    async def reset_sequences(self, tables: Iterable[str]) -> None:
        """After a bulk copy with ids (PostgreSQL's identity sequences); SQLite: nothing."""

    async def run(self, work: Callable[[Conn], T]) -> T:
        """``work(connection)`` in one trip, outside any transaction (each statement sees
        what is committed): on the reader connection's thread, without waiting for the
        lock (``work`` only reads: the reader is ``query_only``); ``per_statement``:
        under the lock, each statement a trip to the database thread. Not from inside
        :meth:`read` or :meth:`write` (use :meth:`Session.run` there)."""
        if self._closed:
            raise StoreUnavailable("the store is closed")
        if self._reader is None:
            async with self.read():
                return await self._relayed(work)
        self.trips += 1
        with self._reading.held(), _translated():
            return await self._reader.run(work)

    async def _relayed(self, work: Callable[[Conn], T]) -> T:
        """``work`` in a worker thread, each statement a trip to the database thread."""
        relay = _Relay(self, asyncio.get_running_loop())
        return await asyncio.to_thread(work, relay)

    async def _fetchall(self, sql: str, params: Sequence[Any]) -> list[Row]:
        """Every row of one statement, in one trip (aiosqlite's public API)."""
        self.trips += 1
        return cast(list[Row], await self._conn.execute_fetchall(sql, params))

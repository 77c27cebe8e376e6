"""PostgreSQL behind the same seam as SQLite: :class:`PgDatabase` is a
:class:`storage.db.Database` whose sessions talk to a psycopg 3 async connection pool.

What differs from SQLite, and where it is handled:

- parameters: the store writes ``?``; each statement is translated once (``%s``, a
  literal ``%`` doubled, ``IS NOT x`` spelled ``IS DISTINCT FROM x``, SQLite's
  ``+column`` index hints dropped) and cached (:func:`to_pg`);
- concurrency: there is no process-wide lock. A read borrows a pooled connection in
  autocommit; a write is a ``READ COMMITTED`` transaction, and what SQLite's
  ``BEGIN IMMEDIATE`` serialised (a user's daily allowance, a board's summary line, the
  next key version) is serialised by transaction-scoped advisory locks
  (:meth:`PgSession.lock`). Deadlocks and serialisation failures surface as
  :class:`~storage.errors.DatabaseLocked` (retried by :meth:`PgDatabase.retrying`);
- ``run(work)``: ``work`` is synchronous; it runs in a worker thread, each statement
  relayed to the event loop and the session's connection (one hop each);
- notifications: :meth:`PgDatabase.notify` and :meth:`PgDatabase.listen` (``LISTEN`` on
  a connection of its own) let instances tell each other what changed;
- migrations: :mod:`storage.engines.pg_schema`.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager, suppress
from functools import lru_cache
from typing import Any, TypeVar

import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from ..db import Conn, Database, Executed, Row, Rows, Session, _Relayed
from ..dialect import POSTGRES
from ..errors import (
    DatabaseLocked,
    DiskFull,
    InvalidData,
    StorageError,
    StoreUnavailable,
)
from . import pg_schema

T = TypeVar("T")
log = logging.getLogger("benchboard.storage")

_IS_NOT = re.compile(r"\bIS NOT (?!NULL\b)", re.IGNORECASE)
#: SQLite's "not this index" hint, a unary plus on a column (``+created_at``): PostgreSQL
#: has no unary plus on text, and its planner needs no hint.
_UNARY_PLUS = re.compile(r"(?<=[\s(,])\+(?=[A-Za-z_])")


@lru_cache(maxsize=4096)
def to_pg(sql: str) -> str:
    """A statement written for both engines, in psycopg's spelling (cached)."""
    out: list[str] = []
    quoted = False
    for ch in sql:
        if ch == "'":
            quoted = not quoted
            out.append(ch)
        elif ch == "%":
            out.append("%%")
        elif ch == "?" and not quoted:
            out.append("%s")
        else:
            out.append(ch)
    return _UNARY_PLUS.sub("", _IS_NOT.sub("IS DISTINCT FROM ", "".join(out)))


def lock_key(space: str, key: object) -> int:
    """A signed 64-bit advisory lock key for (space, key)."""
    digest = hashlib.blake2b(f"{space}:{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def translate(exc: BaseException) -> StorageError:
    """Map a psycopg (or pool) exception onto the store's error tree."""
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, pg_errors.SerializationFailure | pg_errors.DeadlockDetected):
        return DatabaseLocked(f"the database is unavailable: {message}")
    if isinstance(exc, pg_errors.LockNotAvailable | pg_errors.QueryCanceled):
        return DatabaseLocked(f"the database is unavailable: {message}")
    if isinstance(exc, pg_errors.DiskFull):
        return DiskFull(f"the database is unavailable: {message}")
    if isinstance(exc, psycopg.IntegrityError | psycopg.DataError):
        return InvalidData(f"refused by the database: {message}")
    if isinstance(exc, psycopg.OperationalError | PoolTimeout | psycopg.InterfaceError):
        return StoreUnavailable(f"the database is unavailable: {message}")
    return StorageError(f"database error: {message}")


#: Seconds a borrower waits for a pooled connection before asking whether the server
#: answers at all (one new connection, shared by every borrower waiting then): a pool
#: emptied by an outage would otherwise keep each one waiting its full 30 s.
CHECK_AFTER = 2.0
#: Seconds a new connection may take to say the server answers.
CHECK_TIMEOUT = 3
#: While the server is known not to answer: seconds a borrower waits for a pooled
#: connection (the pool is reconnected meanwhile, :meth:`PgDatabase.revive`) before
#: ``StoreUnavailable``.
DOWN_WAIT = 1.0
#: Seconds between two attempts to reconnect the pool while the server is known down.
REVIVE_EVERY = 1.0
#: What a server that answers but takes no more connections says (it is up: wait).
_FULL_UP = ("too many clients", "remaining connection slots")


def _lost_server(exc: BaseException) -> bool:
    """``exc`` says the server is not there (a lost or refused connection, no pooled
    connection in time), not that a statement failed."""
    if type(exc) is StoreUnavailable:  # a statement's of another session, translated
        return True
    return isinstance(exc, psycopg.Error | PoolTimeout) and type(translate(exc)) is StoreUnavailable


#: What a refused connection says when waiting cannot help: the database or the role
#: does not exist, the password is wrong (libpq's words; the sqlstate is not reported
#: for a connection that never opened).
_PERMANENT = ("does not exist", "password authentication failed", "no pg_hba.conf entry")
#: What libpq says of an address it cannot read (a bad option, or value of one).
_MALFORMED = ("for connection option", "invalid connection option", "invalid URI", 'missing "="')


async def _probe(url: str) -> str | None:
    """One connection before the pool's, so that what waiting cannot fix (a database
    that does not exist, a refused role, an address that cannot be read) is said at once
    in one line (``StorageError``). A server that is down or unreachable: what this
    connection met is returned (None: it connected)."""
    try:
        conn = await psycopg.AsyncConnection.connect(url, connect_timeout=5)
    except psycopg.Error as exc:
        text = str(exc)
        first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
        if not isinstance(exc, psycopg.OperationalError) or any(
            words in text for words in _MALFORMED
        ):
            # an address libpq cannot read: no wait makes it one
            raise StorageError(f"the database address is not valid: {first}") from None
        if not any(words in text for words in _PERMANENT):
            return first
        info = conninfo_to_dict(url)
        name = str(info.get("dbname") or info.get("user") or "postgres")
        where = f"{info.get('host') or 'localhost'}:{info.get('port') or 5432}"
        if f'database "{name}" does not exist' in text:
            user = f" -U {info['user']}" if info.get("user") else ""
            host, _, port = where.partition(":")
            raise StorageError(
                f'the database "{name}" does not exist on {where}: create it first '
                f"(createdb -h {host} -p {port}{user} {name})"
            ) from None
        reason = text.strip().splitlines()[0].rpartition("FATAL:")[2].strip()
        raise StorageError(f"PostgreSQL at {where} refused the connection: {reason}") from None
    await conn.close()
    return None


@contextmanager
def _translated() -> Iterator[None]:
    try:
        yield
    except (psycopg.Error, PoolTimeout) as exc:
        raise translate(exc) from exc
    except UnicodeEncodeError as exc:
        raise InvalidData(f"text that is not valid Unicode: {exc}") from exc


class _PgRelay:
    """The connection ``work`` sees: each statement goes to the event loop and the
    session's connection, and is waited for (``work`` runs in a worker thread)."""

    def __init__(self, session: PgSession, loop: asyncio.AbstractEventLoop) -> None:
        self._session, self._loop = session, loop

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Rows:
        job = asyncio.run_coroutine_threadsafe(self._session.all(sql, parameters), self._loop)
        return _Relayed(list(job.result()))


class PgSession(Session):
    """Statements on one pooled connection (autocommit, or inside a transaction)."""

    def __init__(self, db: PgDatabase, conn: psycopg.AsyncConnection[Any], tx: bool) -> None:
        self._db = db
        self._psycopg = conn
        self._tx = tx

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        rows = await self.all(sql, params)
        return rows[0] if rows else None

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        self._db.trips += 1
        async with self._psycopg.cursor() as cur:
            await cur.execute(to_pg(sql), params)
            return list(await cur.fetchall()) if cur.description is not None else []

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> Executed:
        self._db.trips += 1
        async with self._psycopg.cursor() as cur:
            await cur.execute(to_pg(sql), params)
            return Executed(cur.rowcount, None)

    async def executemany(self, sql: str, params: Iterable[Sequence[Any]]) -> int:
        batch = list(params)
        if not batch:
            return 0
        self._db.trips += 1
        async with self._psycopg.cursor() as cur:
            await cur.executemany(to_pg(sql), batch)
            return max(cur.rowcount, 0)

    async def lock(self, space: str, key: object, *, shared: bool = False) -> bool:
        if not self._tx:
            raise StorageError("a lock needs a write transaction")
        how = "pg_advisory_xact_lock_shared" if shared else "pg_advisory_xact_lock"
        await self.execute(f"SELECT {how}(?)", (lock_key(space, key),))
        return True

    async def run(self, work: Callable[[Conn], T]) -> T:
        relay = _PgRelay(self, asyncio.get_running_loop())
        return await asyncio.to_thread(work, relay)

    @property
    def in_transaction(self) -> bool:
        return self._tx

    @property
    def total_changes(self) -> int:
        raise StorageError("total_changes is SQLite's: use the rows executemany returns")


class PgDatabase(Database):
    """A PostgreSQL database through a pool of psycopg connections."""

    kind = "postgresql"

    def __init__(self, pool: AsyncConnectionPool[Any], url: str) -> None:
        # not Database.__init__: there is no aiosqlite connection and no process lock
        self._pool = pool
        self._closed = False
        self.per_statement = True
        self.trips = 0
        self.dialect = POSTGRES
        self.url = url
        self._listeners: list[asyncio.Task[None]] = []
        #: the server did not answer and no connection has worked since: borrowers
        #: wait :data:`DOWN_WAIT` at most (a page, a webhook request: 503 at once)
        self.down = False
        self._check: asyncio.Task[bool] | None = None
        self._reviving: asyncio.Task[None] | None = None
        self._revived_at = 0.0

    @classmethod
    async def open_url(cls, url: str, *, min_size: int = 2, max_size: int = 16) -> PgDatabase:
        """Connect (a pool of ``min_size`` to ``max_size`` connections) and migrate."""
        met = await _probe(url)
        if met is not None:
            # down or unreachable now: said at once (the bot's start tries again with a
            # growing pause, one warning each; a command says it), not after the pool's
            # 15 s of retries and a log line each
            raise StoreUnavailable(f"the database is unavailable: {met}")
        pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
            url,
            min_size=min_size,
            max_size=max_size,
            kwargs={"autocommit": True},
            open=False,
            timeout=30,
        )
        try:
            with _translated():
                await pool.open(wait=True, timeout=15)
                async with pool.connection() as conn:
                    await pg_schema.migrate(conn)
        except BaseException:
            await pool.close()
            raise
        return cls(pool, url)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for job in (self._check, self._reviving):
            if job is not None:
                job.cancel()
        for task in self._listeners:
            task.cancel()
        for task in self._listeners:
            with suppress(BaseException):
                await task
        await self._pool.close()

    async def schema_version(self) -> int:
        async with self.read() as s:
            row = await s.one("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")
        return int(row[0]) if row else 0

    async def revive(self) -> None:
        """After an outage, when the server takes connections again but the pool has
        none ready: have the pool connect now. Its own attempts to replace the
        connections it lost back off (1, 2, 4 … 128 s), so the bot would otherwise wait
        up to a minute or two after the server is back; this opens one connection to
        check, then one for the pool (its minimum raised by one and set back)."""
        if self._closed or self._pool.get_stats().get("pool_available", 0) > 0:
            return
        try:
            conn = await psycopg.AsyncConnection.connect(self.url, connect_timeout=5)
        except psycopg.Error:
            return  # still away: the next probe looks again
        await conn.close()
        least, most = self._pool.min_size, self._pool.max_size
        await self._pool.resize(least + 1, max(most, least + 1))
        await self._pool.resize(least, most)
        log.info("the database answers again: reconnecting the pool now")

    @asynccontextmanager
    async def _pooled(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """A pooled connection, as ``pool.connection()`` (the transaction's end on the
        way out), borrowed by :meth:`_borrow`; whether it worked ends or starts
        :attr:`down`."""
        conn = await self._borrow()
        worked: bool | None = None  # None: nothing learnt (cancelled, a bug's error)
        try:
            async with conn:
                yield conn
            worked = True
        except (psycopg.Error, PoolTimeout, StorageError) as exc:
            worked = not _lost_server(exc)
            raise
        finally:
            await self._pool.putconn(conn)
            if worked is not None:
                self._answered(worked)

    def _answered(self, answered: bool) -> None:
        if answered and self.down:
            log.info("the database answers again")
        if not answered and not self.down:
            log.warning("the database does not answer: failing fast until it does")
        self.down = not answered

    async def _borrow(self) -> psycopg.AsyncConnection[Any]:
        """A connection from the pool. While the server is known down, one that is
        not there within :data:`DOWN_WAIT` seconds is ``StoreUnavailable`` (the pool
        is reconnected meanwhile); otherwise, after :data:`CHECK_AFTER` seconds of
        waiting, a new connection checks whether the server answers: if it does not,
        ``StoreUnavailable`` at once, else the wait goes on (a busy pool)."""
        conn: psycopg.AsyncConnection[Any]
        if self.down:
            self._revive_soon()
            try:
                conn = await self._pool.getconn(timeout=DOWN_WAIT)
            except PoolTimeout:
                raise PoolTimeout("no connection: the server does not answer") from None
            return conn
        try:
            conn = await self._pool.getconn(timeout=CHECK_AFTER)
        except PoolTimeout:
            pass
        else:
            return conn
        if self._check is None or self._check.done():
            self._check = asyncio.ensure_future(self._server_answers())
        if not await asyncio.shield(self._check):
            self._answered(False)
            raise PoolTimeout("no connection: the server does not answer")
        conn = await self._pool.getconn(timeout=max(self._pool.timeout - CHECK_AFTER, 1.0))
        return conn

    async def _server_answers(self) -> bool:
        try:
            conn = await psycopg.AsyncConnection.connect(self.url, connect_timeout=CHECK_TIMEOUT)
        except psycopg.Error as exc:
            return any(words in str(exc) for words in _FULL_UP)
        await conn.close()
        return True

    def _revive_soon(self) -> None:
        """While down: reconnect the pool (:meth:`revive`), at most every
        :data:`REVIVE_EVERY` seconds, in the background."""
        now = asyncio.get_running_loop().time()
        if (self._reviving is not None and not self._reviving.done()) or (
            now - self._revived_at < REVIVE_EVERY
        ):
            return
        self._revived_at = now
        self._reviving = asyncio.ensure_future(self._revive_quietly())

    async def _revive_quietly(self) -> None:
        with suppress(psycopg.Error, PoolTimeout, StorageError, TimeoutError):
            await asyncio.wait_for(self.revive(), CHECK_TIMEOUT + 2)

    def _check_open(self) -> None:
        if self._closed:
            raise StoreUnavailable("the store is closed")

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Session]:
        """A pooled connection in autocommit: each statement sees what is committed."""
        self._check_open()
        with _translated():
            async with self._pooled() as conn:
                yield PgSession(self, conn, tx=False)

    @property
    def in_flight(self) -> int:
        """Pooled connections: no statements queued on a shared one."""
        return 0

    @asynccontextmanager
    async def single(self) -> AsyncIterator[Session]:
        """One statement on a pooled connection in autocommit (as :meth:`read`: pooled
        connections need no sharing rule)."""
        async with self.read() as s:
            yield s

    @asynccontextmanager
    async def write(self) -> AsyncIterator[Session]:
        """One ``READ COMMITTED`` transaction: committed on success, rolled back on any
        exception (including cancellation)."""
        self._check_open()
        with _translated():
            async with self._pooled() as conn, conn.transaction():
                yield PgSession(self, conn, tx=True)

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[Session]:
        """One ``REPEATABLE READ READ ONLY`` transaction: every statement sees the same
        committed state (a backup, a port's source) while writers go on."""
        self._check_open()
        with _translated():
            async with self._pooled() as conn, conn.transaction():
                await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                yield PgSession(self, conn, tx=True)

    async def retrying(self, work: Callable[[Session], Awaitable[T]], *, attempts: int = 5) -> T:
        """``work(session)`` in a write transaction, again (after a short pause) when the
        transaction lost a deadlock or a serialisation check."""
        for attempt in range(attempts):
            try:
                async with self.write() as s:
                    return await work(s)
            except DatabaseLocked:
                if attempt == attempts - 1:
                    raise
                await asyncio.sleep(0.01 * 2**attempt)
        raise AssertionError("unreachable")

    async def run(self, work: Callable[[Conn], T]) -> T:
        async with self.read() as s:
            return await s.run(work)

    # --- instances telling each other ----------------------------------------------------

    async def notify(self, channel: str, payload: str = "") -> None:
        """Tell every listening instance (``pg_notify``; delivered once committed)."""
        async with self.read() as s:
            await s.execute("SELECT pg_notify(?, ?)", (channel, payload))

    async def listen(self, channel: str, callback: Callable[[str], None]) -> None:
        """Call ``callback(payload)`` for each notification on ``channel`` (from this
        instance too), on a connection of its own, until the database closes. A lost
        connection is opened again; ``callback`` is also called with ``""`` then (what
        was missed meanwhile is unknown: refresh everything)."""
        self._check_open()
        ready = asyncio.get_running_loop().create_future()
        self._listeners.append(asyncio.create_task(self._listen(channel, callback, ready)))
        await ready

    async def _listen(
        self, channel: str, callback: Callable[[str], None], ready: asyncio.Future[None]
    ) -> None:
        first = True
        while not self._closed:
            try:
                conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
                async with conn:
                    await conn.execute(f'LISTEN "{channel}"')
                    if first:
                        ready.set_result(None)
                        first = False
                    else:
                        callback("")
                    async for note in conn.notifies():
                        callback(note.payload)
            except asyncio.CancelledError:
                raise
            except psycopg.Error as exc:
                if first:
                    ready.set_exception(translate(exc))
                    return
                log.warning("listening on %s: %s; again in a second", channel, exc)
                await asyncio.sleep(1)

    async def reset_sequences(self, tables: Iterable[str]) -> None:
        """After rows were copied in with their ids: each table's id sequence continues
        after its largest id."""
        async with self.write() as s:
            for table in tables:
                await s.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                    f"COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)"
                )

"""The store: one aiosqlite connection, every SQL statement of the project.

Concurrency model: the application owns one connection. Every operation (read or
write) holds ``self._lock`` while it talks to the database, so a transaction opened by
one handler is never interleaved with another handler's statements on the shared
connection, and a reader never sees another caller's uncommitted rows. Writes use
``BEGIN IMMEDIATE`` (the write lock is taken up front, so another process on the same
file waits for ``busy_timeout`` instead of failing) and are short. CPU work (scoring
during a re-score, JSON and zlib) happens outside the lock.

Recording submissions is group-committed: the submissions that arrive while one insert
is on the database thread go together in the next statement, so under load many
handlers share one trip and one commit, and each still gets its answer only once its
row is durable.
"""

from __future__ import annotations

import asyncio
import csv
import hashlib
import io
import json
import math
import multiprocessing
import os
import sqlite3
import time
import zlib
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import Any, Literal, Self, TypeVar, cast

import aiosqlite

from scoring import Benchmark, Mode
from scoring import registry as scoring_registry

from . import migrations
from .errors import (
    InvalidData,
    MissingModeOrModel,
    NotAllowed,
    NotFound,
    StoreUnavailable,
    translate,
)
from .models import (
    AuditEntry,
    Ban,
    Board,
    BoardRow,
    Chat,
    KeyVersion,
    NewSubmission,
    RescoreReport,
    Submission,
    User,
    Visibility,
)

Clock = Callable[[], datetime]
BenchmarkLookup = Callable[[str], Benchmark]
Row = Sequence[Any]
T = TypeVar("T")

_MS_PER_DAY = 86_400_000
_MODES = tuple(m.value for m in Mode)
#: A re-score batch stops adding rows once their compressed raw text reaches this size.
_BATCH_BYTES = 32 << 20
_EMPTY: Mapping[str, Any] = MappingProxyType({})
#: At most this many submissions go into one group-committed INSERT (19 values each,
#: well under SQLite's limit on bound values).
_GROUP_ROWS = 256


def _utc_now() -> datetime:
    return datetime.now(UTC)


def normalise_model(model: str) -> str:
    """The grouping form of a model name: whitespace collapsed, case folded."""
    return " ".join(model.split()).casefold()


def _clean_model(model: str | None) -> tuple[str | None, str | None]:
    if model is None:
        return None, None
    shown = " ".join(model.split())
    if not shown:
        raise InvalidData("the model name is empty")
    if len(shown) > 200:
        raise InvalidData("the model name is longer than 200 characters")
    return shown, normalise_model(shown)


def _clean_mode(mode: str | None) -> str | None:
    if mode is None:
        return None
    try:
        return Mode(mode).value
    except ValueError:
        valid = ", ".join(m.value for m in Mode)
        raise InvalidData(f"unknown mode {mode!r}; one of: {valid}") from None


def _benchmark_name(name: str) -> str:
    cleaned = name.strip().casefold()
    if not cleaned:
        raise InvalidData("the benchmark name is empty")
    return cleaned


def _compress(text: str) -> bytes:
    # surrogatepass keeps even lone surrogates: what was scored is what is stored
    return zlib.compress(text.encode("utf-8", "surrogatepass"), 6)


def _decompress(blob: bytes) -> str:
    return zlib.decompress(blob).decode("utf-8", "surrogatepass")


def _dumps(data: Mapping[str, Any]) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates (from undecodable input): escape them
        text = json.dumps(data, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text


def _dt(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def _opt_dt(ms: int | None) -> datetime | None:
    return None if ms is None else _dt(ms)


def _fetch(conn: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> list[Row]:
    """Every row of a statement, on the connection's thread (see ``Store._on_thread``)."""
    return conn.execute(sql, params).fetchall()


def _fetch_one(conn: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> Row | None:
    """The first row of a statement (then closed), on the connection's thread."""
    cursor = conn.execute(sql, params)
    try:
        return cast(Row | None, cursor.fetchone())
    finally:
        cursor.close()


def _shown(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, Row]:
    """The model name (as typed), owner and verified mark of board rows, by id."""
    return {
        int(r[0]): r[1:]
        for r in _fetch(
            conn,
            "SELECT id, model, user_id, verified FROM submissions WHERE id IN "
            f"({', '.join('?' * len(ids))})",
            ids,
        )
    }


# --- SQL shared by the boards ------------------------------------------------------------


def _groups_cte(where: str) -> str:
    """CTEs ending in ``groups``: one row per (model_norm, mode) of ``board_source``
    rows matching ``where`` – runs (distinct answer sets), their score sum, the best
    submission (earliest among equal bests) and the first and last run times."""
    return f"""
src AS MATERIALIZED (
    SELECT id, model_norm, mode, score, run_key, created_at FROM board_source WHERE {where}),
runs AS (
    SELECT model_norm, mode, COUNT(*) AS runs, SUM(s) AS score_sum,
           MIN(fa) AS first_at, MAX(la) AS last_at
    FROM (SELECT model_norm, mode, MAX(score) AS s, MIN(created_at) AS fa,
                 MAX(created_at) AS la
          FROM src GROUP BY model_norm, mode, run_key)
    GROUP BY model_norm, mode),
tops AS (
    SELECT model_norm, mode, id, score, created_at,
           ROW_NUMBER() OVER (PARTITION BY model_norm, mode
                              ORDER BY score DESC, created_at, id) AS rn
    FROM src),
groups AS (
    SELECT t.model_norm, t.mode, r.runs, r.score_sum, t.score AS best, t.id AS best_id,
           t.created_at AS best_at, r.first_at, r.last_at
    FROM tops AS t JOIN runs AS r USING (model_norm, mode)
    WHERE t.rn = 1)
"""


#: Recompute ``board_runs`` (one row per run) from ``board_source`` rows matching a WHERE.
_RUNS_SQL = """
WITH src AS MATERIALIZED (
    SELECT benchmark_id, model_norm, mode, run_key, score, created_at
    FROM board_source WHERE {where})
INSERT OR REPLACE INTO board_runs (benchmark_id, model_norm, mode, last_at, run_key, best,
                                   low, first_at)
SELECT benchmark_id, model_norm, mode, MAX(created_at), run_key, MAX(score), MIN(score),
       MIN(created_at)
FROM src GROUP BY benchmark_id, model_norm, mode, run_key
"""
#: A whole benchmark's board rows, read from a covering index (every published row has a
#: mode: the list leads the planner to ``submissions_board_rank``).
_WHOLE_BENCHMARK = "benchmark_id = ? AND mode IN ('default', 'think', 'tools', 'think_tools')"

#: Recompute ``board_days`` (runs by the day of their last row) from ``board_runs``.
_DAYS_SQL = """
INSERT OR REPLACE INTO board_days (benchmark_id, model_norm, mode, day, runs, score_sum, mixed)
SELECT benchmark_id, model_norm, mode, last_at / 86400000, COUNT(*), TOTAL(best),
       SUM(low < best)
FROM board_runs WHERE {where} GROUP BY benchmark_id, model_norm, mode, last_at / 86400000
"""

#: Board rows are grouped by UTC week (``created_at / 604800000``) in
#: ``submissions_board_week``; a window touching more weeks than this walks the rank index.
_WEEK_MS = 7 * _MS_PER_DAY
_MAX_WEEKS = 8
#: The newest week with board rows of the benchmark ``b`` (one probe of the week index).
_NEWEST_WEEK = """(SELECT created_at / 604800000 FROM board_source WHERE benchmark_id = b.id
                   ORDER BY created_at / 604800000 DESC LIMIT 1)"""
#: The groups of the benchmark ``b`` with a board row at or after a time (params: the
#: time, the mode or NULL twice): counted from the summary by their last row.
_WINDOW_GROUPS = """(SELECT COUNT(*) FROM board_totals AS t WHERE t.benchmark_id = b.id
                     AND t.last_at >= ? AND (? IS NULL OR t.mode = ?))"""


#: A board group's runs, score sum, first and last time in a window.
_GroupStats = tuple[int, float, int, int]


@dataclass(frozen=True, slots=True)
class _Walk:
    """A global board page read by rank walk: which rows, and the statement that reads
    them in rank order (its last parameter: how many)."""

    bench_id: int
    mode: str | None
    days: int | None
    cutoff: int | None
    newest_week: int | None
    limit: int
    offset: int

    @property
    def weeks(self) -> range | None:
        """The weeks the window touches, or None: walk the rank index."""
        if self.cutoff is None:
            return None
        if self.newest_week is None:  # no board rows
            return range(0)
        # empty when the window starts after the newest week
        weeks = range(self.cutoff // _WEEK_MS, self.newest_week + 1)
        return weeks if len(weeks) <= _MAX_WEEKS else None

    @property
    def shape(self) -> tuple[Any, ...]:
        """What decides how far the walk goes (for the size of the next one's first try)."""
        return (self.bench_id, self.mode, self.days, self.offset + self.limit)

    def where(self) -> tuple[str, list[Any]]:
        """The board rows of the page's board (by the rank index's columns)."""
        where, params = "benchmark_id = ?", list[Any]([self.bench_id])
        if self.mode is not None:
            where += " AND mode = ?"
            params.append(self.mode)
        if self.cutoff is not None:
            where += " AND +created_at >= ?"  # the rank index, not a time index
            params.append(self.cutoff)
        return where, params

    def sql(self) -> tuple[str, list[Any]]:
        columns = "SELECT model_norm, mode, score, created_at, id FROM board_source"
        weeks = self.weeks
        if weeks is not None:
            # one arm per week (week index: rank order inside a week), merged
            arm = f"{columns} WHERE benchmark_id = ? AND created_at / 604800000 = ?"
            arm += " AND +created_at >= ?" + (" AND +mode = ?" if self.mode else "")
            arms = [arm] * len(weeks)
            extra = [self.mode] if self.mode else []
            params = [p for w in weeks for p in (self.bench_id, w, self.cutoff, *extra)]
        else:
            where, where_params = self.where()
            if self.mode is not None:
                arms, params = [f"{columns} WHERE {where}"], where_params
            else:  # the rank index is by mode: merge the four modes' walks (no sorting)
                arms = [f"{columns} WHERE {where} AND mode = ?"] * len(_MODES)
                params = [p for m in _MODES for p in (*where_params, m)]
        return " UNION ALL ".join(arms) + " ORDER BY 3 DESC, 4, 5 LIMIT ?", params


_SUBMISSION_COLUMNS = """
s.id, s.user_id, s.chat_id, s.message_id, b.name, s.key_version_id, s.model, s.model_norm,
s.mode, s.score, s.fingerprint, s.result, s.scorer_version, s.extra, s.raw_chars,
s.created_at, s.published_at, s.visibility, s.verified
"""
_SUBMISSION_FROM = "FROM submissions AS s JOIN benchmarks AS b ON b.id = s.benchmark_id"


def _submission(row: Row, *, created: bool = False) -> Submission:
    extra = MappingProxyType(json.loads(row[13])) if row[13] is not None else _EMPTY
    return Submission(
        id=row[0],
        user_id=row[1],
        chat_id=row[2],
        message_id=row[3],
        benchmark=row[4],
        key_version_id=row[5],
        model=row[6],
        model_norm=row[7],
        mode=row[8],
        score=row[9],
        fingerprint=row[10],
        record=MappingProxyType(json.loads(row[11])),
        scorer_version=row[12],
        extra=extra,
        raw_chars=row[14],
        created_at=_dt(row[15]),
        published_at=_opt_dt(row[16]),
        visibility=Visibility(row[17]),
        verified=bool(row[18]),
        created=created,
    )


def _board_row(row: Row) -> BoardRow:
    runs = int(row[4])
    return BoardRow(
        rank=int(row[0]),
        model=row[1],
        mode=row[2],
        best=row[3],
        runs=runs,
        mean=row[5] / runs if runs else row[3],
        submission_id=row[6],
        user_id=row[7],
        first_at=_dt(row[8]),
        last_at=_dt(row[9]),
        verified=bool(row[10]),
    )


def _insert_values(
    p: _Prepared, bench_id: int, visibility: str = "private", published_at: int | None = None
) -> tuple[Any, ...]:
    """The parameters of ``_INSERT_SUBMISSION`` for one prepared submission."""
    return (*p.values[:3], bench_id, *p.values[3:], visibility, published_at)


@dataclass(frozen=True, slots=True)
class _Prepared:
    """A NewSubmission turned into column values (done outside the lock)."""

    values: tuple[Any, ...]
    user_id: int
    chat_id: int
    message_id: int
    benchmark: str


def _prepare(sub: NewSubmission, now_ms: int) -> _Prepared:
    model, model_norm = _clean_model(sub.model)
    mode = _clean_mode(sub.mode)
    score = float(sub.result.primary)
    if not math.isfinite(score):
        raise InvalidData(f"the score must be a finite number, not {score}")
    if not sub.scorer_version:
        raise InvalidData("the scorer version is empty")
    try:
        record = _dumps(sub.result.to_record())
        extra = _dumps(sub.extra) if sub.extra else None
    except (TypeError, ValueError) as exc:
        raise InvalidData(f"the result or extra data is not JSON-able: {exc}") from exc
    fingerprint = sub.result.fingerprint or None
    values = (
        sub.user_id,
        sub.chat_id,
        sub.message_id,
        sub.key_version_id,
        model,
        model_norm,
        mode,
        _compress(sub.raw),
        len(sub.raw),
        record,
        score,
        fingerprint,
        sub.scorer_version,
        extra,
        now_ms,
    )
    return _Prepared(values, sub.user_id, sub.chat_id, sub.message_id, sub.benchmark)


_INSERT_INTO = """
INSERT INTO submissions (user_id, chat_id, message_id, benchmark_id, key_version_id, model,
                         model_norm, mode, raw, raw_chars, result, score, fingerprint,
                         scorer_version, extra, created_at, visibility, published_at)
VALUES """
_INSERT_ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
_ON_CONFLICT = " ON CONFLICT (chat_id, message_id) DO NOTHING"
_INSERT_SUBMISSION = _INSERT_INTO + _INSERT_ROW + _ON_CONFLICT


def _insert_rows_sql(count: int) -> str:
    """One INSERT of ``count`` submissions, returning the new rows' ids and keys."""
    rows = ", ".join([_INSERT_ROW] * count)
    return f"{_INSERT_INTO}{rows}{_ON_CONFLICT} RETURNING id, chat_id, message_id"


def _recorded(p: _Prepared, submission_id: int, benchmark: str) -> Submission:
    """The Submission a fresh insert stored, built from its own values (no read back)."""
    (user, chat, message, key_version, model, model_norm, mode, _raw, chars, record, score,
     fingerprint, scorer, extra, created_at) = p.values  # fmt: skip
    row = (
        submission_id, user, chat, message, benchmark, key_version, model, model_norm, mode,
        score, fingerprint, record, scorer, extra, chars, created_at, None, "private", 0,
    )  # fmt: skip
    return _submission(row, created=True)


def _settle(future: asyncio.Future[int | None], outcome: int | Exception | None) -> None:
    """Give a waiting recorder its row id (``None``: stored before) or its error."""
    if future.done():  # the caller was cancelled
        return
    if isinstance(outcome, Exception):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)


class Store:
    """The application's database. Open with ``await Store.open(path)``; close on shutdown.

    Every method is a coroutine and returns frozen dataclasses. Errors are
    :class:`storage.StorageError` subclasses.
    """

    def __init__(
        self,
        db: aiosqlite.Connection,
        path: Path,
        *,
        clock: Clock,
        benchmarks: BenchmarkLookup,
    ) -> None:
        self._db = db
        self._path = path
        self._clock = clock
        self._benchmarks = benchmarks
        self._lock = asyncio.Lock()
        self._bench_ids: dict[str, int] = {}
        # users and chats known to have a row (committed), so recording a submission
        # needs no placeholder inserts: one statement, one trip to the database thread
        self._known_users: set[int] = set()
        self._known_chats: set[int] = set()
        # submissions waiting for the next group-committed INSERT, and the task running it
        self._waiting: list[tuple[_Prepared, int, asyncio.Future[int | None]]] = []
        self._committer: asyncio.Task[None] | None = None
        # user -> (UTC day start in ms, results published that day); only this store
        # publishes (one bot process per database), and every publication updates it
        self._published: dict[int, tuple[int, int]] = {}
        # rows the last walk of a board shape read (see ``_walk_page``)
        self._walk_sizes: dict[tuple[Any, ...], int] = {}
        self._closed = False

    # --- life cycle ----------------------------------------------------------------------

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str],
        *,
        clock: Clock | None = None,
        benchmarks: BenchmarkLookup | None = None,
        busy_timeout_ms: int = 5000,
        synchronous: Literal["NORMAL", "FULL"] = "FULL",
        mmap_mb: int = 2048,
    ) -> Self:
        """Create the parent folder, connect, set the pragmas and migrate.

        ``clock`` returns the current time (timezone-aware; tests inject a fake one);
        ``benchmarks`` looks a benchmark up by name for re-scoring (default:
        ``scoring.registry.get``). ``synchronous="FULL"`` makes every commit durable
        across power loss; ``"NORMAL"`` is faster and still safe against crashes of the
        process. ``mmap_mb`` maps up to that much of the file into memory (SQLite caps it
        at 2 GiB; 0: off): reads then take pages from the operating system's file cache
        without a system call each (a chat board's row lookups took half the time). The
        pages are the OS's, shared and reclaimable, not the process's own.
        """
        if mmap_mb < 0:
            raise InvalidData("mmap_mb must be 0 or more")
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            db = await aiosqlite.connect(target, isolation_level=None)
        except sqlite3.Error as exc:
            raise translate(exc) from exc
        try:
            async with db.execute("PRAGMA journal_mode = WAL") as cur:
                row = await cur.fetchone()
            if row is None or str(row[0]).lower() != "wal":
                raise StoreUnavailable(f"could not switch {target} to WAL journal mode")
            await db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            await db.execute(f"PRAGMA synchronous = {synchronous}")
            await db.execute("PRAGMA foreign_keys = ON")
            await db.execute("PRAGMA temp_store = MEMORY")
            await db.execute("PRAGMA cache_size = -32000")
            await db.execute(f"PRAGMA mmap_size = {int(mmap_mb) << 20}")
            await migrations.migrate(db)
        except BaseException as exc:
            await db.close()
            if isinstance(exc, sqlite3.Error):
                raise translate(exc) from exc
            raise
        return cls(
            db, target, clock=clock or _utc_now, benchmarks=benchmarks or scoring_registry.get
        )

    async def close(self) -> None:
        """Close the connection (idempotent). Runs ``PRAGMA optimize`` first."""
        if self._closed:
            return
        if self._committer is not None:
            await asyncio.wait([self._committer])  # submissions being recorded land first
        async with self._lock:
            self._closed = True
            with suppress(sqlite3.Error):
                await self._db.execute("PRAGMA optimize")
            await self._db.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def path(self) -> Path:
        return self._path

    async def schema_version(self) -> int:
        async with self._read() as db:
            return await migrations.current_version(db)

    # --- plumbing ------------------------------------------------------------------------

    def _now_ms(self) -> int:
        now = self._clock()
        if now.tzinfo is None:
            raise InvalidData("the clock must return timezone-aware datetimes")
        return int(now.timestamp() * 1000)

    @contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise translate(exc) from exc
        except UnicodeEncodeError as exc:
            raise InvalidData(f"text that is not valid Unicode: {exc}") from exc
        except ValueError as exc:
            # aiosqlite raises ValueError("no active connection"/"Connection closed") once
            # closed
            if "connection" in str(exc).lower():
                raise StoreUnavailable("the store is closed") from exc
            raise

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[aiosqlite.Connection]:
        if self._closed:
            raise StoreUnavailable("the store is closed")
        async with self._lock:
            with self._translated():
                yield self._db

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[aiosqlite.Connection]:
        """One short transaction: committed on success, rolled back on any exception
        (including cancellation). aiosqlite runs statements in order on its thread, so
        the ROLLBACK queued here always lands after the statements it undoes."""
        if self._closed:
            raise StoreUnavailable("the store is closed")
        async with self._lock:
            with self._translated():
                await self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield self._db
                    await asyncio.shield(self._db.execute("COMMIT"))
                except BaseException:
                    with suppress(sqlite3.Error, ValueError):
                        await asyncio.shield(self._db.execute("ROLLBACK"))
                    raise

    @staticmethod
    async def _one(db: aiosqlite.Connection, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """The row of a one-row query, in one trip to the connection's thread."""
        for row in await db.execute_fetchall(sql, params):
            return tuple(row)
        return None

    @staticmethod
    async def _all(db: aiosqlite.Connection, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        # one trip to the connection's thread (execute, fetch and close there)
        return [tuple(r) for r in await db.execute_fetchall(sql, params)]

    @staticmethod
    async def _on_thread(db: aiosqlite.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work(connection)`` on the connection's thread, in one trip: for a read of
        several statements (a board), each of which would otherwise be a trip of its own.
        A trip (a hand-off to that thread and back) took 0.3 ms median and 1.6–3 ms at
        p99 on a 2-CPU VM, more than a board's SQL. aiosqlite has no public call for it:
        this is what its own methods do (``_execute`` and ``_conn``; pyproject pins the
        aiosqlite versions that have them, and every board test runs through here)."""
        return cast(T, await db._execute(lambda: work(db._conn)))  # type: ignore[no-untyped-call]

    async def _bench_id(self, db: aiosqlite.Connection, name: str) -> int | None:
        """The id of a benchmark, or None (read path: only committed ids are cached)."""
        cached = self._bench_ids.get(name)
        if cached is not None:
            return cached
        row = await self._one(db, "SELECT id FROM benchmarks WHERE name = ?", (name,))
        if row is None:
            return None
        if not db.in_transaction:
            self._bench_ids[name] = int(row[0])
        return int(row[0])

    async def _ensure_bench(self, db: aiosqlite.Connection, name: str) -> int:
        """The id of a benchmark, creating its row (inside a write transaction)."""
        found = await self._bench_id(db, name)
        if found is not None:
            return found
        await db.execute("INSERT INTO benchmarks (name) VALUES (?)", (name,))
        row = await self._one(db, "SELECT id FROM benchmarks WHERE name = ?", (name,))
        assert row is not None
        return int(row[0])

    # --- users and chats -----------------------------------------------------------------

    async def upsert_user(
        self,
        user_id: int,
        *,
        first_name: str,
        last_name: str | None,
        username: str | None,
        language_code: str | None,
    ) -> None:
        """Store a user as Telegram reports it (updated on every sight)."""
        now = self._now_ms()
        async with self._write() as db:
            await db.execute(
                """INSERT INTO users (id, first_name, last_name, username, language_code,
                                      first_seen, last_seen)
                   VALUES (?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (id) DO UPDATE SET
                       first_name = excluded.first_name, last_name = excluded.last_name,
                       username = excluded.username, language_code = excluded.language_code,
                       last_seen = excluded.last_seen""",
                (user_id, first_name, last_name, username, language_code, now, now),
            )
        self._known_users.add(user_id)

    async def upsert_chat(self, chat_id: int, *, type: str, title: str | None) -> None:
        """Store a chat as Telegram reports it (updated on every sight)."""
        now = self._now_ms()
        async with self._write() as db:
            await db.execute(
                """INSERT INTO chats (id, type, title, first_seen, last_seen)
                   VALUES (?, ?, ?, ?, ?)
                   ON CONFLICT (id) DO UPDATE SET type = excluded.type,
                       title = excluded.title, last_seen = excluded.last_seen""",
                (chat_id, type, title, now, now),
            )
        self._known_chats.add(chat_id)

    async def set_user_language(self, user_id: int, lang: str | None) -> None:
        """Remember the /lang choice (None: follow Telegram's language_code)."""
        now = self._now_ms()
        async with self._write() as db:
            await db.execute(
                """INSERT INTO users (id, chosen_language, first_seen, last_seen)
                   VALUES (?, ?, ?, ?)
                   ON CONFLICT (id) DO UPDATE SET chosen_language = excluded.chosen_language""",
                (user_id, lang, now, now),
            )

    async def user_language(self, user_id: int) -> str | None:
        async with self._read() as db:
            row = await self._one(db, "SELECT chosen_language FROM users WHERE id = ?", (user_id,))
        return None if row is None else row[0]

    async def get_user(self, user_id: int) -> User | None:
        async with self._read() as db:
            row = await self._one(
                db,
                """SELECT id, first_name, last_name, username, language_code, chosen_language,
                          first_seen, last_seen FROM users WHERE id = ?""",
                (user_id,),
            )
        if row is None:
            return None
        return User(row[0], row[1], row[2], row[3], row[4], row[5], _dt(row[6]), _dt(row[7]))

    async def get_chat(self, chat_id: int) -> Chat | None:
        async with self._read() as db:
            row = await self._one(
                db,
                "SELECT id, type, title, first_seen, last_seen FROM chats WHERE id = ?",
                (chat_id,),
            )
        if row is None:
            return None
        return Chat(row[0], row[1], row[2], _dt(row[3]), _dt(row[4]))

    # --- answer keys ---------------------------------------------------------------------

    _KEY_COLUMNS = "k.id, b.name, k.version, k.sha256, k.source, k.loaded_at"

    @staticmethod
    def _key(row: Row, *, created: bool = False) -> KeyVersion:
        return KeyVersion(row[0], row[1], row[2], row[3], row[4], _dt(row[5]), created)

    async def save_key(self, benchmark: str, data: bytes, *, source: str) -> KeyVersion:
        """Store an answer key and make it the benchmark's current key.

        A key whose SHA-256 is already stored is not stored again: that version becomes
        current again and is returned with ``created=False``. A different key becomes
        the next version; older versions are kept. After a change of the current key,
        call :meth:`rescore` (``pending_rescore`` tells how many submissions wait).
        """
        name = _benchmark_name(benchmark)
        sha = hashlib.sha256(data).hexdigest()
        now = self._now_ms()
        async with self._write() as db:
            bench_id = await self._ensure_bench(db, name)
            row = await self._one(
                db,
                f"""SELECT {self._KEY_COLUMNS} FROM key_versions AS k
                    JOIN benchmarks AS b ON b.id = k.benchmark_id
                    WHERE k.benchmark_id = ? AND k.sha256 = ?""",
                (bench_id, sha),
            )
            created = row is None
            if created:
                await db.execute(
                    """INSERT INTO key_versions (benchmark_id, version, sha256, data, source,
                                                 loaded_at)
                       SELECT ?, COALESCE(MAX(version), 0) + 1, ?, ?, ?, ?
                       FROM key_versions WHERE benchmark_id = ?""",
                    (bench_id, sha, data, source, now, bench_id),
                )
                row = await self._one(
                    db,
                    f"""SELECT {self._KEY_COLUMNS} FROM key_versions AS k
                        JOIN benchmarks AS b ON b.id = k.benchmark_id
                        WHERE k.benchmark_id = ? AND k.sha256 = ?""",
                    (bench_id, sha),
                )
            assert row is not None
            await db.execute(
                "UPDATE benchmarks SET current_key_id = ? WHERE id = ?", (row[0], bench_id)
            )
        return self._key(row, created=created)

    async def current_key(self, benchmark: str) -> KeyVersion | None:
        async with self._read() as db:
            row = await self._one(
                db,
                f"""SELECT {self._KEY_COLUMNS} FROM benchmarks AS b
                    JOIN key_versions AS k ON k.id = b.current_key_id WHERE b.name = ?""",
                (_benchmark_name(benchmark),),
            )
        return None if row is None else self._key(row)

    async def key_versions(self, benchmark: str) -> list[KeyVersion]:
        """Every stored key of a benchmark, oldest first."""
        async with self._read() as db:
            rows = await self._all(
                db,
                f"""SELECT {self._KEY_COLUMNS} FROM key_versions AS k
                    JOIN benchmarks AS b ON b.id = k.benchmark_id
                    WHERE b.name = ? ORDER BY k.version""",
                (_benchmark_name(benchmark),),
            )
        return [self._key(r) for r in rows]

    async def key_data(self, key_version_id: int) -> bytes:
        async with self._read() as db:
            row = await self._one(
                db, "SELECT data FROM key_versions WHERE id = ?", (key_version_id,)
            )
        if row is None:
            raise NotFound(f"no answer key version {key_version_id}")
        return bytes(row[0])

    # --- submissions ---------------------------------------------------------------------

    async def record_submission(self, sub: NewSubmission) -> Submission:
        """Store a scored submission (private). Idempotent on (chat_id, message_id): a
        second delivery of the same Telegram update returns the stored one with
        ``created=False``. Unknown users and chats get a placeholder row, filled in by
        the next ``upsert_user``/``upsert_chat``."""
        now = self._now_ms()
        if len(sub.raw) > 1 << 20:  # compressing megabytes: keep the event loop free
            prepared = await asyncio.to_thread(_prepare, sub, now)
        else:
            prepared = _prepare(sub, now)
        name = _benchmark_name(sub.benchmark)
        bench_id = self._bench_ids.get(name)
        if (
            bench_id is not None
            and sub.user_id in self._known_users
            and sub.chat_id in self._known_chats
        ):
            # Everything it refers to exists: one INSERT, shared with whatever else is
            # being recorded at the same moment (see _commit_waiting).
            if self._closed:
                raise StoreUnavailable("the store is closed")
            future: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
            self._waiting.append((prepared, bench_id, future))
            if self._committer is None or self._committer.done():
                self._committer = asyncio.create_task(self._commit_waiting())
            submission_id = await future
            if submission_id is not None:
                return _recorded(prepared, submission_id, name)
            stored = await self.find_submission(sub.chat_id, sub.message_id)
            assert stored is not None  # delivered before: the stored one
            return stored
        async with self._write() as db:
            inserted = await self._insert(db, [prepared], name, now)
            row = await self._one(
                db,
                f"SELECT {_SUBMISSION_COLUMNS} {_SUBMISSION_FROM} "
                "WHERE s.chat_id = ? AND s.message_id = ?",
                (sub.chat_id, sub.message_id),
            )
            bench_id = await self._ensure_bench(db, name)
        self._bench_ids[name] = bench_id  # committed now
        self._known_users.add(sub.user_id)
        self._known_chats.add(sub.chat_id)
        assert row is not None
        return _submission(row, created=inserted == 1)

    async def _commit_waiting(self) -> None:
        """Insert the waiting submissions, up to ``_GROUP_ROWS`` per statement, until none
        wait. Each statement commits on its own (autocommit): all its rows or none."""
        group: list[tuple[_Prepared, int, asyncio.Future[int | None]]] = []
        try:
            while self._waiting:
                group = self._waiting[:_GROUP_ROWS]
                del self._waiting[:_GROUP_ROWS]
                try:
                    ids = await self._insert_rows([(p, bench_id) for p, bench_id, _ in group])
                except Exception as exc:
                    if len(group) == 1:
                        _settle(group[0][2], exc)
                        continue
                    # one bad row must not fail the others: each again on its own
                    for prepared, bench_id, future in group:
                        try:
                            one = await self._insert_rows([(prepared, bench_id)])
                        except Exception as error:
                            _settle(future, error)
                        else:
                            _settle(future, one.get((prepared.chat_id, prepared.message_id)))
                    continue
                for prepared, _, future in group:
                    # of two deliveries of one message in a group, the first is the new one
                    _settle(future, ids.pop((prepared.chat_id, prepared.message_id), None))
        except BaseException:
            # cancelled (the loop is shutting down): nobody may wait forever
            for _, _, future in group + self._waiting:
                _settle(future, StoreUnavailable("the store is shutting down"))
            self._waiting.clear()
            raise

    async def _insert_rows(self, rows: list[tuple[_Prepared, int]]) -> dict[tuple[int, int], int]:
        """One multi-row INSERT; the new rows' ids by (chat_id, message_id)."""
        params = [value for p, bench_id in rows for value in _insert_values(p, bench_id)]
        async with self._read() as db:
            returned = await self._all(db, _insert_rows_sql(len(rows)), params)
        return {(chat_id, message_id): sub_id for sub_id, chat_id, message_id in returned}

    async def record_many(
        self, subs: Iterable[NewSubmission], *, publish: bool = False, batch_size: int = 1000
    ) -> int:
        """Bulk import (back-fills, the benchmark script): one transaction per batch.

        Idempotent like :meth:`record_submission`; returns how many were new. With
        ``publish=True`` every new submission is published (each must have a mode and a
        model) and the boards of the touched benchmarks are rebuilt once at the end.
        """
        new = 0
        touched: set[str] = set()
        batch: list[NewSubmission] = []

        async def flush() -> None:
            nonlocal new
            now = self._now_ms()
            by_bench: dict[str, list[_Prepared]] = {}
            for item in batch:
                if publish and (item.mode is None or item.model is None):
                    raise InvalidData(
                        f"message {item.message_id}: publishing needs a mode and a model"
                    )
                by_bench.setdefault(_benchmark_name(item.benchmark), []).append(_prepare(item, now))
            async with self._write() as db:
                for name, items in by_bench.items():
                    new += await self._insert(db, items, name, now, publish=publish)
                    touched.add(name)
                if publish:
                    await db.executemany(
                        "UPDATE benchmarks SET boards_stale = 1 WHERE name = ?",
                        [(n,) for n in by_bench],
                    )
            batch.clear()

        for sub in subs:
            batch.append(sub)
            if len(batch) >= batch_size:
                await flush()
        if batch:
            await flush()
        if publish:
            self._published.clear()
            for name in sorted(touched):
                await self.rebuild_boards(name)
        return new

    async def _insert(
        self,
        db: aiosqlite.Connection,
        items: list[_Prepared],
        benchmark: str,
        now: int,
        *,
        publish: bool = False,
    ) -> int:
        bench_id = await self._ensure_bench(db, benchmark)
        users = {(p.user_id, now, now) for p in items}
        chats = {(p.chat_id, now, now) for p in items}
        await db.executemany(
            "INSERT INTO users (id, first_seen, last_seen) VALUES (?, ?, ?) "
            "ON CONFLICT (id) DO NOTHING",
            users,
        )
        await db.executemany(
            "INSERT INTO chats (id, first_seen, last_seen) VALUES (?, ?, ?) "
            "ON CONFLICT (id) DO NOTHING",
            chats,
        )
        visibility, published_at = ("published", now) if publish else ("private", None)
        before = self._db.total_changes
        await db.executemany(
            _INSERT_SUBMISSION,
            [_insert_values(p, bench_id, visibility, published_at) for p in items],
        )
        inserted = self._db.total_changes - before
        return inserted

    async def get_submission(self, submission_id: int) -> Submission | None:
        async with self._read() as db:
            row = await self._one(
                db,
                f"SELECT {_SUBMISSION_COLUMNS} {_SUBMISSION_FROM} WHERE s.id = ?",
                (submission_id,),
            )
        return None if row is None else _submission(row)

    async def find_submission(self, chat_id: int, message_id: int) -> Submission | None:
        """The submission recorded for a Telegram message, if any."""
        async with self._read() as db:
            row = await self._one(
                db,
                f"SELECT {_SUBMISSION_COLUMNS} {_SUBMISSION_FROM} "
                "WHERE s.chat_id = ? AND s.message_id = ?",
                (chat_id, message_id),
            )
        return None if row is None else _submission(row)

    async def raw_text(self, submission_id: int) -> str:
        """The raw input of a submission, exactly as it was scored."""
        async with self._read() as db:
            row = await self._one(db, "SELECT raw FROM submissions WHERE id = ?", (submission_id,))
        if row is None:
            raise NotFound(f"no submission {submission_id}")
        return await asyncio.to_thread(_decompress, row[0])

    async def _locked_submission(self, db: aiosqlite.Connection, submission_id: int) -> Submission:
        row = await self._one(
            db, f"SELECT {_SUBMISSION_COLUMNS} {_SUBMISSION_FROM} WHERE s.id = ?", (submission_id,)
        )
        if row is None:
            raise NotFound(f"no submission {submission_id}")
        return _submission(row)

    async def set_mode(self, submission_id: int, mode: str) -> Submission:
        """Set the mode of a private or withdrawn submission."""
        value = _clean_mode(mode)
        async with self._write() as db:
            sub = await self._locked_submission(db, submission_id)
            self._require_editable(sub)
            await db.execute("UPDATE submissions SET mode = ? WHERE id = ?", (value, sub.id))
            return await self._locked_submission(db, submission_id)

    async def set_model(self, submission_id: int, model: str) -> Submission:
        """Set the model name (as typed) of a private or withdrawn submission."""
        shown, norm = _clean_model(model)
        async with self._write() as db:
            sub = await self._locked_submission(db, submission_id)
            self._require_editable(sub)
            await db.execute(
                "UPDATE submissions SET model = ?, model_norm = ? WHERE id = ?",
                (shown, norm, sub.id),
            )
            return await self._locked_submission(db, submission_id)

    @staticmethod
    def _require_editable(sub: Submission) -> None:
        if sub.visibility in (Visibility.PUBLISHED, Visibility.HIDDEN):
            raise NotAllowed(
                f"submission {sub.id} is {sub.visibility}: its model and mode are fixed"
            )

    async def _transition(
        self,
        submission_id: int,
        *,
        allowed_from: tuple[Visibility, ...],
        to: Visibility,
        user_id: int | None = None,
        verb: str,
    ) -> Submission:
        now = self._now_ms()
        async with self._write() as db:
            sub = await self._locked_submission(db, submission_id)
            if user_id is not None and sub.user_id != user_id:
                raise NotAllowed(f"submission {submission_id} belongs to another user")
            if sub.visibility == to:
                return sub  # idempotent
            if sub.visibility not in allowed_from:
                raise NotAllowed(f"a {sub.visibility} submission cannot be {verb}")
            if to is Visibility.PUBLISHED:
                missing = tuple(
                    what
                    for what, value in (("mode", sub.mode), ("model name", sub.model))
                    if value is None
                )
                if missing:
                    raise MissingModeOrModel(submission_id, missing)
            await db.execute(
                "UPDATE submissions SET visibility = ?, "
                "published_at = CASE WHEN ? = 'published' THEN COALESCE(published_at, ?) "
                "ELSE published_at END WHERE id = ?",
                (to.value, to.value, now, submission_id),
            )
            if to is Visibility.PUBLISHED:
                self._published.pop(sub.user_id, None)  # counted afresh when next asked
                await self._add_to_group(db, sub)
            elif sub.visibility is Visibility.PUBLISHED:
                await self._refresh_group(db, sub)
            return await self._locked_submission(db, submission_id)

    async def publish(self, submission_id: int) -> Submission:
        """Put a private (or withdrawn) submission on the boards.

        Raises :class:`MissingModeOrModel` without a mode or model name, and
        :class:`NotAllowed` for a hidden one. Publishing twice is harmless.
        """
        return await self._transition(
            submission_id,
            allowed_from=(Visibility.PRIVATE, Visibility.WITHDRAWN),
            to=Visibility.PUBLISHED,
            verb="published",
        )

    async def withdraw(self, submission_id: int, user_id: int) -> Submission:
        """The owner takes a private or published submission off the boards."""
        return await self._transition(
            submission_id,
            allowed_from=(Visibility.PRIVATE, Visibility.PUBLISHED),
            to=Visibility.WITHDRAWN,
            user_id=user_id,
            verb="withdrawn",
        )

    async def hide(self, submission_id: int) -> Submission:
        """An admin takes a published submission off the boards."""
        return await self._transition(
            submission_id,
            allowed_from=(Visibility.PUBLISHED,),
            to=Visibility.HIDDEN,
            verb="hidden",
        )

    async def unhide(self, submission_id: int) -> Submission:
        """An admin puts a hidden submission back on the boards."""
        return await self._transition(
            submission_id,
            allowed_from=(Visibility.HIDDEN,),
            to=Visibility.PUBLISHED,
            verb="unhidden",
        )

    async def verify(self, submission_id: int, verified: bool = True) -> Submission:
        """An admin marks (or unmarks) a submission as verified."""
        async with self._write() as db:
            sub = await self._locked_submission(db, submission_id)
            await db.execute(
                "UPDATE submissions SET verified = ? WHERE id = ?", (int(verified), sub.id)
            )
            return await self._locked_submission(db, submission_id)

    async def history(
        self, user_id: int, *, benchmark: str | None = None, limit: int = 10, offset: int = 0
    ) -> list[Submission]:
        """A user's submissions (every visibility), newest first."""
        _check_page(limit, offset)
        sql = f"SELECT {_SUBMISSION_COLUMNS} {_SUBMISSION_FROM} WHERE s.user_id = ?"
        params: list[Any] = [user_id]
        if benchmark is not None:
            sql += " AND b.name = ?"
            params.append(_benchmark_name(benchmark))
        sql += " ORDER BY s.created_at DESC, s.id DESC LIMIT ? OFFSET ?"
        params += [limit, offset]
        async with self._read() as db:
            rows = await self._all(db, sql, params)
        return [_submission(r) for r in rows]

    def _day_start_ms(self, tz: tzinfo) -> int:
        now = self._clock().astimezone(tz)
        start = now.replace(hour=0, minute=0, second=0, microsecond=0)
        return int(start.timestamp() * 1000)

    async def published_today(self, user_id: int, *, tz: tzinfo = UTC) -> int:
        """How many submissions the user published since midnight (in ``tz``).

        Asked with every score reply, so the UTC count is kept in memory once read, and
        every publication through this store updates it."""
        since = self._day_start_ms(tz)
        cached = self._published.get(user_id) if tz is UTC else None
        if cached is not None and cached[0] == since:
            return cached[1]
        async with self._read() as db:
            row = await self._one(
                db,
                "SELECT COUNT(*) FROM submissions WHERE user_id = ? AND published_at >= ?",
                (user_id, since),
            )
        count = int(row[0]) if row else 0
        if tz is UTC:
            self._published[user_id] = (since, count)
        return count

    async def submitted_today(self, user_id: int, *, tz: tzinfo = UTC) -> int:
        """How many submissions the user sent since midnight (in ``tz``)."""
        since = self._day_start_ms(tz)
        async with self._read() as db:
            row = await self._one(
                db,
                "SELECT COUNT(*) FROM submissions WHERE user_id = ? AND created_at >= ?",
                (user_id, since),
            )
        return int(row[0]) if row else 0

    # --- reference entries ---------------------------------------------------------------

    async def add_reference(
        self, benchmark: str, *, model: str, mode: str, score: float, source: str
    ) -> None:
        """Store a result reported by a benchmark's authors. Idempotent on (benchmark,
        normalised model, mode, source): adding it again updates the score."""
        shown, norm = _clean_model(model)
        value = _clean_mode(mode)
        if not math.isfinite(score):
            raise InvalidData(f"the score must be a finite number, not {score}")
        now = self._now_ms()
        async with self._write() as db:
            bench_id = await self._ensure_bench(db, _benchmark_name(benchmark))
            await db.execute(
                """INSERT INTO reference_results (benchmark_id, model, model_norm, mode, score,
                                                  source, added_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (benchmark_id, model_norm, mode, source) DO UPDATE SET
                       model = excluded.model, score = excluded.score""",
                (bench_id, shown, norm, value, float(score), source, now),
            )

    async def references(self, benchmark: str, *, mode: str | None = None) -> tuple[BoardRow, ...]:
        """The reported results of a benchmark, best first (ranked among themselves)."""
        name, mode_value = _benchmark_name(benchmark), _clean_mode(mode)
        async with self._read() as db:
            return await self._on_thread(db, lambda conn: self._references(conn, name, mode_value))

    def _references(
        self, conn: sqlite3.Connection, name: str, mode: str | None
    ) -> tuple[BoardRow, ...]:
        sql = """SELECT RANK() OVER (ORDER BY r.score DESC), r.model, r.mode, r.score,
                        r.source, r.added_at
                 FROM reference_results AS r JOIN benchmarks AS b ON b.id = r.benchmark_id
                 WHERE b.name = ?"""
        params: list[Any] = [name]
        if mode is not None:
            sql += " AND r.mode = ?"
            params.append(mode)
        sql += " ORDER BY r.score DESC, r.id"
        rows = _fetch(conn, sql, params)
        return tuple(
            BoardRow(
                rank=r[0],
                model=r[1],
                mode=r[2],
                best=r[3],
                runs=1,
                mean=r[3],
                submission_id=None,
                user_id=None,
                first_at=_dt(r[5]),
                last_at=_dt(r[5]),
                verified=False,
                reported=True,
                source=r[4],
            )
            for r in rows
        )

    # --- leaderboards --------------------------------------------------------------------

    async def leaderboard(
        self,
        benchmark: str,
        *,
        chat_id: int | None = None,
        user_id: int | None = None,
        mode: str | None = None,
        days: int | None = None,
        limit: int = 10,
        offset: int = 0,
    ) -> Board:
        """A page of a board: one row per (normalised model, mode) with its best published
        result, its number of runs and their mean, best first. Equal bests share a rank
        (1, 2, 2, 4), the earlier submission listed first.

        ``chat_id``/``user_id`` narrow to a chat's or a user's board; ``mode`` to one
        mode; ``days`` to submissions made in the last ``days`` days (7, 30; None: all
        time). The global all-time board reads a summary table; the other global boards
        walk the rows in rank order until the page is full (``_walk_page``); a chat's or
        a user's board groups its (smaller) slice on the fly (``_slice_page``). All of it
        runs on the connection's thread in one trip (``_on_thread``).
        """
        _check_page(limit, offset)
        if days is not None and days <= 0:
            raise InvalidData("days must be a positive number of days")
        name = _benchmark_name(benchmark)
        mode_value = _clean_mode(mode)
        now = self._now_ms()
        cutoff = None if days is None else now - days * _MS_PER_DAY
        async with self._read() as db:
            return await self._on_thread(
                db,
                lambda conn: self._board(
                    conn, name, chat_id, user_id, mode_value, days, cutoff, limit, offset
                ),
            )

    def _board(
        self,
        conn: sqlite3.Connection,
        name: str,
        chat_id: int | None,
        user_id: int | None,
        mode: str | None,
        days: int | None,
        cutoff: int | None,
        limit: int,
        offset: int,
    ) -> Board:
        """:meth:`leaderboard`'s work, all of it on the connection's thread."""
        scoped = chat_id is not None or user_id is not None
        windowed = not scoped and cutoff is not None
        # the newest week with board rows (the walk's last arm; one index probe) and the
        # groups in the window (by their last time; read only for a windowed walk)
        head = _fetch_one(
            conn,
            f"""SELECT b.id, k.version, b.boards_stale,
                      {_NEWEST_WEEK if windowed else "NULL"},
                      {_WINDOW_GROUPS if windowed else "NULL"}
               FROM benchmarks AS b
               LEFT JOIN key_versions AS k ON k.id = b.current_key_id WHERE b.name = ?""",
            [*((cutoff, mode, mode) if windowed else ()), name],
        )
        if head is None:
            return Board(rows=(), total=0, key_version=None)
        bench_id, key_version, stale, newest_week, in_window = head
        is_global = not scoped and days is None
        rows: list[Row]
        if is_global and not stale:
            rows, total = self._summary_page(conn, bench_id, mode, limit, offset)
        elif not scoped:
            walk = _Walk(bench_id, mode, days, cutoff, newest_week, limit, offset)
            rows, total = self._walk_page(
                conn, walk, None if stale or in_window is None else int(in_window)
            )
        else:
            rows, total = self._slice_page(
                conn, bench_id, chat_id, user_id, mode, cutoff, limit, offset
            )
        refs = self._references(conn, name, mode) if is_global else ()
        return Board(
            rows=tuple(_board_row(r) for r in rows),
            total=total,
            key_version=key_version,
            references=refs,
            rescoring=bool(stale),
        )

    def _slice_page(
        self,
        conn: sqlite3.Connection,
        bench_id: int,
        chat_id: int | None,
        user_id: int | None,
        mode: str | None,
        cutoff: int | None,
        limit: int,
        offset: int,
    ) -> tuple[list[Row], int]:
        """A page of a chat's or a user's board: the slice's board rows (a chat's from the
        chat index, a user's from the user index, each row's score from the table) are
        grouped here, in one pass — a few hundred rows, where SQL's grouping and ranking
        sorts cost more than reading them — then the page's best rows are looked up."""
        where = "+benchmark_id = ?" if user_id is not None else "benchmark_id = ?"
        params: list[Any] = [bench_id]
        for column, value in (("chat_id", chat_id), ("user_id", user_id)):
            if value is not None:
                where += f" AND {column} = ?"
                params.append(value)
        if mode is not None:
            where += " AND mode = ?"
            params.append(mode)
        if cutoff is not None:
            where += " AND +created_at >= ?"
            params.append(cutoff)
        found = _fetch(
            conn,
            f"SELECT model_norm, mode, score, created_at, id, run_key FROM board_source "
            f"WHERE {where}",
            params,
        )
        # per group: [best row, {run_key: best score}, first time, last time]
        groups: dict[tuple[str, str], list[Any]] = {}
        for row in found:
            norm, group_mode, score, created_at, _, run_key = row
            line = groups.get((norm, group_mode))
            if line is None:
                groups[(norm, group_mode)] = [row, {run_key: score}, created_at, created_at]
                continue
            best = line[0]
            if score > best[2] or (score == best[2] and (created_at, row[4]) < (best[3], best[4])):
                line[0] = row
            runs = line[1]
            if runs.get(run_key, score) <= score:
                runs[run_key] = score
            line[2] = min(line[2], created_at)
            line[3] = max(line[3], created_at)
        lines = sorted(groups.values(), key=lambda g: (-g[0][2], g[0][3], g[0][4]))
        page = lines[offset : offset + limit]
        if not page:
            return [], len(lines)
        shown = _shown(conn, [g[0][4] for g in page])
        rank = 1 + sum(1 for g in lines[:offset] if g[0][2] > page[0][0][2])
        rows: list[Row] = []
        for i, (best, runs, first_at, last_at) in enumerate(page):
            if i and best[2] != page[i - 1][0][2]:
                rank = offset + i + 1
            model, owner, verified = shown[best[4]]
            rows.append(
                (rank, model, best[1], best[2], len(runs), sum(runs.values()), best[4], owner,
                 first_at, last_at, verified)
            )  # fmt: skip
        return rows, len(lines)

    def _summary_page(
        self, conn: sqlite3.Connection, bench_id: int, mode: str | None, limit: int, offset: int
    ) -> tuple[list[Row], int]:
        """A page of the global all-time board from ``board_totals``, walking its rank
        index (no sort); ranks are counted, not computed over the whole board. The page,
        the board's size and the lines above the page's first best come in one statement
        (one trip to the database thread)."""
        where, params = "t.benchmark_id = ?", list[Any]([bench_id])
        if mode is not None:
            where += " AND t.mode = ?"
            params.append(mode)
        page = _fetch(
            conn,
            f"""WITH page AS MATERIALIZED (
                    SELECT s.model, t.mode, t.best, t.runs, t.score_sum, t.best_id, s.user_id,
                           t.first_at, t.last_at, s.verified, t.best_at
                    FROM board_totals AS t JOIN submissions AS s ON s.id = t.best_id
                    WHERE {where} ORDER BY t.best DESC, t.best_at, t.best_id LIMIT ? OFFSET ?)
                SELECT p.*, (SELECT COUNT(*) FROM board_totals AS t WHERE {where}),
                       (SELECT COUNT(*) FROM board_totals AS t
                        WHERE {where} AND t.best > (SELECT MAX(best) FROM page))
                FROM page AS p ORDER BY p.best DESC, p.best_at, p.best_id""",
            [*params, limit, offset, *params, *params],
        )
        if not page:
            found = _fetch_one(
                conn, f"SELECT COUNT(*) FROM board_totals AS t WHERE {where}", params
            )
            return [], int(found[0]) if found else 0
        total, rank = int(page[0][11]), 1 + int(page[0][12])
        rows: list[Row] = []
        for i, row in enumerate(page):
            if i and row[2] != page[i - 1][2]:
                rank = offset + i + 1
            rows.append((rank, *row[:10]))
        return rows, total

    def _walk_page(
        self, conn: sqlite3.Connection, walk: _Walk, in_window: int | None
    ) -> tuple[list[Row], int]:
        """A page of a global board narrowed by mode and/or time window.

        Walks the benchmark's board rows in rank order (score DESC, earliest first) and
        keeps the first row of each (model, mode) group: that row is the group's best in
        the window, and groups appear in page order. A 7- or 30-day window walks the weeks
        it touches (``submissions_board_week``: by week, then rank), merged, so nearly
        every row read is in the window; a wider one (or none: a board while its summary
        is stale) walks ``submissions_board_rank``. The walk stops once ``offset + limit``
        groups are found, so its length depends on the page, not on the size of the
        window. Then the page's groups get their runs, mean, first and last inside the
        window from the run summaries (``_run_stats``; from the rows while the summary is
        stale), and ``total`` is ``in_window`` (the groups whose last board row is in the
        window, counted in ``board_totals``) — or, while the summary is stale, counted
        from the rows.
        """
        need = walk.offset + walk.limit
        if walk.weeks == range(0):
            return [], 0  # no board rows in the window
        sql, params = walk.sql()
        # each try reads the walk's first ``size`` rows in one trip to the database thread:
        # as many as the same board needed last time (usually one try), else a guess; too
        # few groups: read again, further by what the groups found so far took per group
        # times the groups missing (half as much again, for luck)
        size = self._walk_sizes.get(walk.shape, max(64, 2 * need))
        while True:
            hits = _fetch(conn, sql, [*params, size])
            found: dict[tuple[str, str], Row] = {}
            used = len(hits)
            for i, hit in enumerate(hits):
                found.setdefault((hit[0], hit[1]), hit)
                if len(found) >= need:
                    used = i + 1
                    break
            if len(found) >= need or len(hits) < size:
                break
            per_group = size / max(1, len(found))
            size = int(size + per_group * (need - len(found)) * 1.5) + 16
        if len(self._walk_sizes) > 1000:
            self._walk_sizes.clear()
        self._walk_sizes[walk.shape] = max(64, used + used // 4 + 16)
        if len(found) < need:
            total = len(found)
        elif in_window is not None:
            total = in_window
        else:
            where, where_params = walk.where()
            counted = _fetch_one(
                conn,
                f"SELECT COUNT(*) FROM (SELECT DISTINCT model_norm, mode FROM board_source "
                f"WHERE {where})",
                where_params,
            )
            total = int(counted[0]) if counted else 0
        bests = list(found.values())
        ranks: list[int] = []
        for i, best in enumerate(bests):
            ranks.append(ranks[-1] if i and best[2] == bests[i - 1][2] else i + 1)
        page = bests[walk.offset : need]
        if not page:
            return [], total
        groups = [(r[0], r[1]) for r in page]
        if in_window is not None and walk.cutoff is not None:
            stats = self._run_stats(conn, walk.bench_id, groups, walk.cutoff)
        else:
            stats = self._window_stats(conn, walk.bench_id, groups, walk.cutoff)
        shown = _shown(conn, [r[4] for r in page])
        rows: list[Row] = []
        for rank, hit in zip(ranks[walk.offset :], page, strict=True):
            norm, group_mode, best, _, best_id = hit
            runs, score_sum, first_at, last_at = stats[(norm, group_mode)]
            model, owner, verified = shown[best_id]
            rows.append(
                (rank, model, group_mode, best, runs, score_sum, best_id, owner, first_at,
                 last_at, verified)
            )  # fmt: skip
        return rows, total

    def _run_stats(
        self,
        conn: sqlite3.Connection,
        bench_id: int,
        groups: list[tuple[str, str]],
        cutoff: int,
    ) -> dict[tuple[str, str], _GroupStats]:
        """What :meth:`_window_stats` computes, from the run summaries (which must be
        fresh). A run is in the window when its last row is: the window's runs are those
        of its whole days (``board_days``) plus those of its first day after ``cutoff``
        (``board_runs``), each counting its best score — unless its scores differ and it
        began before the window: then the best of its rows inside the window is looked
        up. The first time is the group's first row in the window (one index probe).
        One statement per group: on the connection's thread, a few index probes each
        (20 groups joined by UNION ALL into one statement took three times as long)."""
        group = "benchmark_id = ? AND model_norm = ? AND mode = ?"
        day = cutoff // _MS_PER_DAY
        sql = f"""SELECT TOTAL(runs), TOTAL(total), TOTAL(mixed),
                         (SELECT last_at FROM board_runs WHERE {group}
                          ORDER BY last_at DESC LIMIT 1),
                         (SELECT created_at FROM board_source WHERE {group}
                          AND created_at >= ? ORDER BY created_at LIMIT 1)
                  FROM (SELECT runs, score_sum AS total, mixed FROM board_days
                        WHERE {group} AND day > ?
                        UNION ALL
                        SELECT 1, best, low < best FROM board_runs
                        WHERE {group} AND last_at >= ? AND last_at < ?)"""
        fix_sql = f"""SELECT r.best, (SELECT MAX(score) FROM board_source WHERE {group}
                                     AND fingerprint = r.run_key AND created_at >= ?)
                      FROM board_runs AS r WHERE r.benchmark_id = ? AND r.model_norm = ?
                      AND r.mode = ? AND r.last_at >= ? AND r.first_at < ? AND r.low < r.best"""
        out: dict[tuple[str, str], _GroupStats] = {}
        for norm, mode in groups:
            key = (bench_id, norm, mode)
            [(runs, total, mixed, last_at, first_at)] = _fetch(
                conn,
                sql,
                [*key, *key, cutoff, *key, day, *key, cutoff, (day + 1) * _MS_PER_DAY],
            )
            if mixed:  # runs with unequal scores that straddle the window's start
                fixes = _fetch(conn, fix_sql, [*key, cutoff, *key, cutoff, cutoff])
                total += sum(f[1] - f[0] for f in fixes)
            out[(norm, mode)] = (int(runs), float(total), int(first_at), int(last_at))
        return out

    def _window_stats(
        self,
        conn: sqlite3.Connection,
        bench_id: int,
        groups: list[tuple[str, str]],
        cutoff: int | None,
    ) -> dict[tuple[str, str], _GroupStats]:
        """Runs, score sum, first and last time of (model, mode) groups among the board
        rows made at ``cutoff`` or later (None: all time): one range scan of
        ``submissions_board_window`` per group, one statement each."""
        since = "" if cutoff is None else " AND created_at >= ?"
        sql = f"""SELECT COUNT(*), SUM(s), MIN(fa), MAX(la)
                  FROM (SELECT MAX(score) AS s, MIN(created_at) AS fa, MAX(created_at) AS la
                        FROM board_source
                        WHERE benchmark_id = ? AND model_norm = ? AND mode = ?{since}
                        GROUP BY run_key)"""
        out: dict[tuple[str, str], _GroupStats] = {}
        for norm, mode in groups:
            params = [bench_id, norm, mode]
            [(runs, total, first_at, last_at)] = _fetch(
                conn, sql, params if cutoff is None else [*params, cutoff]
            )
            out[(norm, mode)] = (int(runs), float(total), int(first_at), int(last_at))
        return out

    async def export_csv(self, benchmark: str, **board_filters: Any) -> str:
        """The whole board (every page) as CSV text, reference entries last.

        ``board_filters`` are :meth:`leaderboard`'s (chat_id, user_id, mode, days).
        Text cells that a spreadsheet would run as a formula are prefixed with ``'``.
        """
        for banned in ("limit", "offset"):
            board_filters.pop(banned, None)
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(
            [
                "rank", "model", "mode", "score", "runs", "mean", "verified", "reported",
                "submission_id", "user_id", "first_at", "last_at", "key_version", "source",
            ]
        )  # fmt: skip
        offset, page = 0, 1000
        refs: tuple[BoardRow, ...] = ()
        key_version: int | None = None
        while True:
            board = await self.leaderboard(benchmark, limit=page, offset=offset, **board_filters)
            refs, key_version = board.references, board.key_version
            for row in board.rows:
                writer.writerow(_csv_cells(row, key_version))
            offset += page
            if offset >= board.total or not board.rows:
                break
        for row in refs:
            writer.writerow(_csv_cells(row, key_version))
        return out.getvalue()

    async def rebuild_boards(self, benchmark: str | None = None) -> None:
        """Recompute the board summary of one benchmark (or all) from the submissions."""
        async with self._read() as db:
            rows = await self._all(db, "SELECT id, name FROM benchmarks ORDER BY id")
        for bench_id, name in rows:
            if benchmark is not None and name != _benchmark_name(benchmark):
                continue
            async with self._write() as db:
                await self._rebuild(db, bench_id)

    async def _rebuild(self, db: aiosqlite.Connection, bench_id: int) -> None:
        await db.execute("DELETE FROM board_runs WHERE benchmark_id = ?", (bench_id,))
        await db.execute(_RUNS_SQL.format(where=_WHOLE_BENCHMARK), (bench_id,))
        await db.execute("DELETE FROM board_days WHERE benchmark_id = ?", (bench_id,))
        await db.execute(_DAYS_SQL.format(where="benchmark_id = ?"), (bench_id,))
        await db.execute("DELETE FROM board_totals WHERE benchmark_id = ?", (bench_id,))
        # the groups from their runs; each group's best row (earliest of its best score)
        # found in the rank index
        await db.execute(
            """WITH g AS MATERIALIZED (
                   SELECT model_norm, mode, COUNT(*) AS runs, TOTAL(best) AS score_sum,
                          MAX(best) AS best, MIN(first_at) AS first_at, MAX(last_at) AS last_at
                   FROM board_runs WHERE benchmark_id = ? GROUP BY model_norm, mode),
               b AS (
                   SELECT g.*, (SELECT s.id FROM board_source AS s
                                WHERE s.benchmark_id = ? AND s.mode = g.mode
                                  AND s.score = g.best AND s.model_norm = g.model_norm
                                ORDER BY s.created_at, s.id LIMIT 1) AS best_id
                   FROM g)
               INSERT INTO board_totals (benchmark_id, model_norm, mode, runs, score_sum, best,
                                         best_id, best_at, first_at, last_at)
               SELECT ?, b.model_norm, b.mode, b.runs, b.score_sum, b.best, b.best_id,
                      s.created_at, b.first_at, b.last_at
               FROM b JOIN submissions AS s ON s.id = b.best_id""",
            (bench_id, bench_id, bench_id),
        )
        await db.execute("UPDATE benchmarks SET boards_stale = 0 WHERE id = ?", (bench_id,))

    async def _add_to_group(self, db: aiosqlite.Connection, sub: Submission) -> None:
        """Count a just-published submission in its summary line, in constant time.

        A run's contribution is the best score among its rows (equal answer sets are one
        run), so adding a row either opens a run or can only raise its run's score.
        """
        bench_id = await self._bench_id(db, sub.benchmark)
        mine = await self._one(
            db, "SELECT score, created_at FROM board_source WHERE id = ?", (sub.id,)
        )
        if mine is None:  # the board does not count it (e.g. a future ban)
            return
        score, created_at = mine
        group = (bench_id, sub.model_norm, sub.mode)
        previous = None
        run_key = f"id:{sub.id}" if sub.fingerprint is None else sub.fingerprint
        run: tuple[float, float, int, int] = (score, score, created_at, created_at)
        if sub.fingerprint is not None:
            found = await self._one(
                db,
                """SELECT MAX(score), MIN(score), MIN(created_at), MAX(created_at)
                   FROM board_source WHERE benchmark_id = ? AND model_norm = ?
                   AND mode = ? AND fingerprint = ? AND id <> ?""",
                (*group, sub.fingerprint, sub.id),
            )
            if found is not None and found[0] is not None:
                previous = found[0]
                await db.execute(
                    """DELETE FROM board_runs WHERE benchmark_id = ? AND model_norm = ?
                       AND mode = ? AND last_at = ? AND run_key = ?""",
                    (*group, found[3], run_key),
                )
                await db.execute(
                    """UPDATE board_days SET runs = runs - 1, score_sum = score_sum - ?,
                           mixed = mixed - ? WHERE benchmark_id = ? AND model_norm = ?
                       AND mode = ? AND day = ?""",
                    (found[0], int(found[1] < found[0]), *group, found[3] // _MS_PER_DAY),
                )
                run = (
                    max(score, found[0]),
                    min(score, found[1]),
                    min(created_at, found[2]),
                    max(created_at, found[3]),
                )
        await db.execute(
            """INSERT OR REPLACE INTO board_runs (benchmark_id, model_norm, mode, last_at,
                                                  run_key, best, low, first_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
            (*group, run[3], run_key, run[0], run[1], run[2]),
        )
        await db.execute(
            """INSERT INTO board_days (benchmark_id, model_norm, mode, day, runs, score_sum,
                                       mixed)
               VALUES (?, ?, ?, ?, 1, ?, ?)
               ON CONFLICT (benchmark_id, model_norm, mode, day) DO UPDATE SET
                   runs = runs + 1, score_sum = score_sum + excluded.score_sum,
                   mixed = mixed + excluded.mixed""",
            (*group, run[3] // _MS_PER_DAY, run[0], int(run[1] < run[0])),
        )
        new_run = 1 if previous is None else 0
        delta = score if previous is None else max(0.0, score - previous)
        better = """(excluded.best > best OR (excluded.best = best AND
                     (excluded.best_at < best_at OR
                      (excluded.best_at = best_at AND excluded.best_id < best_id))))"""
        await db.execute(
            f"""INSERT INTO board_totals (benchmark_id, model_norm, mode, runs, score_sum, best,
                                          best_id, best_at, first_at, last_at)
                VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (benchmark_id, model_norm, mode) DO UPDATE SET
                    runs = runs + ?, score_sum = score_sum + ?,
                    best = CASE WHEN {better} THEN excluded.best ELSE best END,
                    best_id = CASE WHEN {better} THEN excluded.best_id ELSE best_id END,
                    best_at = CASE WHEN {better} THEN excluded.best_at ELSE best_at END,
                    first_at = MIN(first_at, excluded.first_at),
                    last_at = MAX(last_at, excluded.last_at)""",
            (*group, score, score, sub.id, created_at, created_at, created_at, new_run, delta),
        )

    async def _refresh_group(self, db: aiosqlite.Connection, sub: Submission) -> None:
        """Recompute one (benchmark, model, mode) line of the summary."""
        if sub.model_norm is None or sub.mode is None:
            return
        bench_id = await self._bench_id(db, sub.benchmark)
        await self._refresh_line(db, (bench_id, sub.model_norm, sub.mode))

    async def _refresh_line(self, db: aiosqlite.Connection, key: tuple[Any, ...]) -> None:
        """Recompute a (benchmark id, model, mode) group's runs, days and totals line."""
        await self._refresh_runs(db, key)
        await db.execute(
            "DELETE FROM board_totals WHERE benchmark_id = ? AND model_norm = ? AND mode = ?",
            key,
        )
        await db.execute(
            "WITH "
            + _groups_cte("benchmark_id = ? AND model_norm = ? AND mode = ?")
            + """INSERT INTO board_totals (benchmark_id, model_norm, mode, runs, score_sum,
                                          best, best_id, best_at, first_at, last_at)
                 SELECT ?, model_norm, mode, runs, score_sum, best, best_id, best_at,
                        first_at, last_at FROM groups""",
            (*key, key[0]),
        )

    @staticmethod
    async def _refresh_runs(db: aiosqlite.Connection, key: tuple[Any, ...]) -> None:
        """Recompute the ``board_runs`` and ``board_days`` rows of one group."""
        group = "benchmark_id = ? AND model_norm = ? AND mode = ?"
        await db.execute(f"DELETE FROM board_runs WHERE {group}", key)
        await db.execute(_RUNS_SQL.format(where=group), key)
        await db.execute(f"DELETE FROM board_days WHERE {group}", key)
        await db.execute(_DAYS_SQL.format(where=group), key)

    # --- re-scoring ----------------------------------------------------------------------

    async def pending_rescore(self, benchmark: str) -> int:
        """How many submissions (with a key) are not scored against the current key."""
        async with self._read() as db:
            row = await self._one(
                db,
                """SELECT COUNT(*) FROM submissions AS s JOIN benchmarks AS b
                       ON b.id = s.benchmark_id
                   WHERE b.name = ? AND s.key_version_id IS NOT NULL
                     AND s.key_version_id IS NOT b.current_key_id""",
                (_benchmark_name(benchmark),),
            )
        return int(row[0]) if row else 0

    async def rescore(
        self, benchmark: str, *, batch_size: int = 1000, workers: int | None = None
    ) -> RescoreReport:
        """Re-score every stored submission of a benchmark against its current key.

        Works in batches of ``batch_size``: each batch's new results and the job's
        progress commit together, so an interrupted re-score (crash, cancellation, a
        scorer error) loses at most one batch and the next call resumes where it
        stopped. Submissions without a key version are skipped, as are those already
        scored against the current key by the current scorer version. The boards are
        rebuilt when the job finishes; until then they are computed from the rows
        themselves (``Board.rescoring`` is True).

        A registered scorer (``scoring.registry``) is pure: equal inputs (raw text and
        options) are scored once per call, and batches are scored in ``workers``
        processes (default: up to 2, one per CPU; 1: in a thread) while the previous
        batch is written. A scorer supplied through ``benchmarks=`` scores every row, in
        a thread. Rows whose score, fingerprint and breakdown did not change only get
        their key and scorer versions updated.
        """
        if batch_size < 1:
            raise InvalidData("batch_size must be at least 1")
        workers = _RESCORE_WORKERS if workers is None else workers
        if workers < 1:
            raise InvalidData("workers must be at least 1")
        started = time.perf_counter()
        name = _benchmark_name(benchmark)
        try:
            bench = self._benchmarks(name)
        except Exception as exc:
            raise NotFound(f"no scorer for benchmark {benchmark!r}: {exc}") from exc
        key = await self.current_key(name)
        if key is None:
            raise NotFound(f"benchmark {benchmark!r} has no answer key")
        key_data = await self.key_data(key.id)
        loaded = await asyncio.to_thread(bench.load_key, key_data)
        scorer_version = bench.scorer_version
        now = self._now_ms()
        async with self._write() as db:
            bench_id = await self._ensure_bench(db, name)
            job = await self._one(
                db,
                """SELECT id, last_id, total, changed, skipped FROM rescore_jobs
                   WHERE benchmark_id = ? AND key_version_id = ? AND scorer_version = ?
                     AND finished_at IS NULL ORDER BY id DESC LIMIT 1""",
                (bench_id, key.id, scorer_version),
            )
            # a job for an older key or scorer is superseded by this one
            await db.execute(
                "UPDATE rescore_jobs SET finished_at = ? WHERE benchmark_id = ? "
                "AND finished_at IS NULL AND id IS NOT ?",
                (now, bench_id, None if job is None else job[0]),
            )
            resumed = job is not None
            if job is None:
                async with db.execute(
                    """INSERT INTO rescore_jobs (benchmark_id, key_version_id, scorer_version,
                                                 started_at) VALUES (?, ?, ?, ?)""",
                    (bench_id, key.id, scorer_version, now),
                ) as cur:
                    job = (int(cur.lastrowid or 0), 0, 0, 0, 0)
            assert job is not None
            await db.execute("UPDATE benchmarks SET boards_stale = 1 WHERE id = ?", (bench_id,))
        job_id, last_id = int(job[0]), int(job[1])
        total, changed_all, skipped_all = int(job[2]), int(job[3]), int(job[4])
        rescored = changed_now = skipped_now = batches = 0
        scorer = _Rescorer(bench, loaded, key_data, key.id, scorer_version, workers)
        scoring: asyncio.Future[_ScoredBatch] | None = None
        try:
            batch = await self._rescore_read(bench_id, last_id, batch_size)
            if batch is not None:
                scoring = asyncio.ensure_future(scorer.score(batch[0]))
            while batch is not None and scoring is not None:
                rows, upto = batch
                # the next batch is read while this one is scored, and scored while this
                # one is written: the scorers never wait for the database
                batch = await self._rescore_read(bench_id, upto, batch_size)
                done = await scoring
                scoring = None
                if batch is not None:
                    scoring = asyncio.ensure_future(scorer.score(batch[0]))
                async with self._write() as db:
                    for sql, params in done.writes():
                        if params:
                            await db.executemany(sql, params)
                    await db.execute(
                        """UPDATE rescore_jobs SET last_id = ?, total = total + ?,
                               changed = changed + ?, skipped = skipped + ? WHERE id = ?""",
                        (upto, len(rows), done.changed, done.skipped, job_id),
                    )
                last_id = upto
                batches += 1
                total += len(rows)
                rescored += done.rescored
                changed_now += done.changed
                changed_all += done.changed
                skipped_now += done.skipped
                skipped_all += done.skipped
        finally:
            if scoring is not None:  # interrupted or failed: the batch being scored is dropped
                scoring.cancel()
                scoring.add_done_callback(_retrieve)
            scorer.close()
        async with self._write() as db:
            await self._rebuild(db, bench_id)
            await db.execute(
                "UPDATE rescore_jobs SET finished_at = ? WHERE id = ?", (self._now_ms(), job_id)
            )
        return RescoreReport(
            benchmark=name,
            key_version=key.version,
            total=total,
            rescored=rescored,
            changed=changed_all,
            skipped=skipped_all,
            batches=batches,
            resumed=resumed,
            seconds=time.perf_counter() - started,
        )

    async def _rescore_read(
        self, bench_id: int, after: int, batch_size: int
    ) -> tuple[list[Row], int] | None:
        """The next re-score batch after id ``after`` (at most ``batch_size`` rows and about
        ``_BATCH_BYTES`` of compressed text) and its last id; None when none is left."""
        async with self._read() as db:
            rows = await self._all(
                db,
                """SELECT id, raw, extra, key_version_id, scorer_version, score, fingerprint,
                          result
                   FROM submissions WHERE benchmark_id = ? AND id > ? ORDER BY id LIMIT ?""",
                (bench_id, after, batch_size),
            )
        if not rows:
            return None
        budget = 0
        for i, row in enumerate(rows):
            budget += len(row[1])
            if budget >= _BATCH_BYTES:
                del rows[i + 1 :]
                break
        return rows, int(rows[-1][0])

    # --- moderation: bans, the audit log, equal answer sets ------------------------------

    async def ban(self, user_id: int, *, by: int, reason: str | None = None) -> Ban:
        """Take every submission of a user off every board, now and later.

        The user can still score privately (the bot refuses to publish for them). A second
        ban updates the reason. The ban and its audit entry commit together, and the
        board lines the user's results were in are recomputed.
        """
        why = _clean_reason(reason)
        now = self._now_ms()
        async with self._write() as db:
            await db.execute(
                """INSERT INTO bans (user_id, reason, banned_by, banned_at) VALUES (?, ?, ?, ?)
                   ON CONFLICT (user_id) DO UPDATE SET reason = excluded.reason,
                       banned_by = excluded.banned_by, banned_at = excluded.banned_at""",
                (user_id, why, by, now),
            )
            await self._audit(db, now, by, None, "ban", str(user_id), why)
            await self._refresh_user_groups(db, user_id)
        return Ban(user_id, why, by, _dt(now))

    async def unban(self, user_id: int, *, by: int, reason: str | None = None) -> bool:
        """Lift a ban (their published results return to the boards); False when the
        user was not banned (nothing is written then)."""
        why = _clean_reason(reason)
        now = self._now_ms()
        async with self._write() as db:
            async with db.execute("DELETE FROM bans WHERE user_id = ?", (user_id,)) as cur:
                lifted = cur.rowcount > 0
            if lifted:
                await self._audit(db, now, by, None, "unban", str(user_id), why)
                await self._refresh_user_groups(db, user_id)
        return lifted

    async def is_banned(self, user_id: int) -> Ban | None:
        async with self._read() as db:
            row = await self._one(
                db,
                "SELECT user_id, reason, banned_by, banned_at FROM bans WHERE user_id = ?",
                (user_id,),
            )
        return None if row is None else Ban(row[0], row[1], row[2], _dt(row[3]))

    async def bans(self) -> list[Ban]:
        """Every banned user, latest first."""
        async with self._read() as db:
            rows = await self._all(
                db,
                "SELECT user_id, reason, banned_by, banned_at FROM bans "
                "ORDER BY banned_at DESC, user_id",
            )
        return [Ban(r[0], r[1], r[2], _dt(r[3])) for r in rows]

    async def log_action(
        self,
        actor_id: int,
        action: str,
        target: str,
        *,
        chat_id: int | None = None,
        reason: str | None = None,
    ) -> AuditEntry:
        """Record a moderation action (hide, unhide, verify, setkey, ...) in the audit log."""
        if not action or not target:
            raise InvalidData("an audit entry needs an action and a target")
        why = _clean_reason(reason)
        now = self._now_ms()
        async with self._write() as db:
            entry_id = await self._audit(db, now, actor_id, chat_id, action, target, why)
        return AuditEntry(entry_id, _dt(now), actor_id, chat_id, action, target, why)

    async def audit_log(self, *, chat_id: int | None = None, limit: int = 20) -> list[AuditEntry]:
        """The latest audit entries, newest first: every one, or one chat's board's."""
        _check_page(limit, 0)
        sql = "SELECT id, at, actor_id, chat_id, action, target, reason FROM audit_log"
        params: list[Any] = []
        if chat_id is not None:
            sql += " WHERE chat_id = ?"
            params.append(chat_id)
        sql += " ORDER BY id DESC LIMIT ?"
        async with self._read() as db:
            rows = await self._all(db, sql, [*params, limit])
        return [AuditEntry(r[0], _dt(r[1]), r[2], r[3], r[4], r[5], r[6]) for r in rows]

    async def same_answers_as(self, submission_id: int) -> int | None:
        """The earliest other result on the boards with the same normalised answers
        (fingerprint), benchmark, model and mode: the boards count both as one run."""
        async with self._read() as db:
            row = await self._one(
                db,
                """SELECT MIN(o.id) FROM submissions AS s JOIN board_source AS o
                       ON o.benchmark_id = s.benchmark_id AND o.model_norm = s.model_norm
                      AND o.mode = s.mode AND o.fingerprint = s.fingerprint AND o.id <> s.id
                   WHERE s.id = ?""",
                (submission_id,),
            )
        return None if row is None or row[0] is None else int(row[0])

    @staticmethod
    async def _audit(
        db: aiosqlite.Connection,
        now: int,
        actor_id: int,
        chat_id: int | None,
        action: str,
        target: str,
        reason: str | None,
    ) -> int:
        async with db.execute(
            """INSERT INTO audit_log (at, actor_id, chat_id, action, target, reason)
               VALUES (?, ?, ?, ?, ?, ?)""",
            (now, actor_id, chat_id, action, target, reason),
        ) as cur:
            return int(cur.lastrowid or 0)

    async def _refresh_user_groups(self, db: aiosqlite.Connection, user_id: int) -> None:
        """Recompute the summary lines that hold a user's published results."""
        groups = await self._all(
            db,
            """SELECT DISTINCT benchmark_id, model_norm, mode FROM submissions
               WHERE user_id = ? AND visibility = 'published'""",
            (user_id,),
        )
        for group in groups:
            await self._refresh_line(db, tuple(group))

    # --- backup --------------------------------------------------------------------------

    async def backup(self, path: str | os.PathLike[str]) -> None:
        """Write a consistent copy of the database to ``path`` while the bot keeps writing.

        Runs ``VACUUM INTO`` on a short-lived read-only connection in a worker thread:
        it reads one WAL snapshot (writers are not blocked) and writes a compact file
        next to the target, renamed into place when complete.
        """
        if self._closed:
            raise StoreUnavailable("the store is closed")
        try:
            await asyncio.to_thread(_backup, self._path, Path(path))
        except sqlite3.Error as exc:
            raise translate(exc) from exc


def _backup(source: Path, target: Path) -> None:
    """VACUUM INTO a temporary file beside ``target``, then rename it into place."""
    if target.resolve() == source.resolve():
        raise InvalidData("the backup cannot overwrite the database itself")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    with suppress(FileNotFoundError):
        partial.unlink()
    try:
        con = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
        try:
            con.execute("PRAGMA busy_timeout = 5000")
            con.execute("VACUUM INTO ?", (str(partial),))
        finally:
            con.close()
        os.replace(partial, target)
    finally:
        with suppress(FileNotFoundError):
            partial.unlink()


#: Processes a re-score scores in by default (the scorers are CPU-bound and pure).
_RESCORE_WORKERS = max(1, min(2, os.cpu_count() or 1))
#: Fewer texts than this to score in a batch stay in a thread (no process round trip).
_POOL_MIN_TEXTS = 64
#: A batch that worker processes have not scored by then is scored in a thread instead.
_POOL_TIMEOUT_S = 600.0
#: Results a re-score remembers (equal raw text and options give equal results).
_MEMO_MAX = 200_000

#: Input of a score: (zlib raw text, extra JSON); output: (score, fingerprint, record JSON).
_Text = tuple[bytes, str | None]
_Scored = tuple[float, str | None, str]

_SET_VERSIONS = "UPDATE submissions SET key_version_id = ?, scorer_version = ? WHERE id = ?"
_SET_RECORD = (
    "UPDATE submissions SET key_version_id = ?, scorer_version = ?, result = ? WHERE id = ?"
)
_SET_SCORE = (
    "UPDATE submissions SET key_version_id = ?, scorer_version = ?, score = ?, result = ? "
    "WHERE id = ?"
)
_SET_ALL = (
    "UPDATE submissions SET key_version_id = ?, scorer_version = ?, score = ?, "
    "fingerprint = ?, result = ? WHERE id = ?"
)


def _score_texts(bench: Benchmark, key: Any, texts: Sequence[_Text]) -> list[_Scored]:
    """Score raw texts (pure: in a worker thread or process)."""
    out: list[_Scored] = []
    for raw, extra in texts:
        options = json.loads(extra) if extra is not None else None
        result = bench.score(_decompress(raw), key, options=options)
        out.append((float(result.primary), result.fingerprint or None, _dumps(result.to_record())))
    return out


#: The benchmark and loaded key of a re-score worker process.
_WORKER: tuple[Benchmark, Any] | None = None


def _worker_init(name: str, key_data: bytes) -> None:
    global _WORKER
    bench = scoring_registry.get(name)
    _WORKER = (bench, bench.load_key(key_data))


def _worker_score(texts: list[_Text]) -> list[_Scored]:
    assert _WORKER is not None, "worker not initialised"
    return _score_texts(*_WORKER, texts)


@dataclass(slots=True)
class _ScoredBatch:
    """A re-scored batch: UPDATE parameters by what changed, and the counts."""

    versions: list[tuple[Any, ...]]
    records: list[tuple[Any, ...]]
    scores: list[tuple[Any, ...]]
    full: list[tuple[Any, ...]]
    changed: int = 0
    skipped: int = 0

    @property
    def rescored(self) -> int:
        return len(self.versions) + len(self.records) + len(self.scores) + len(self.full)

    def writes(self) -> list[tuple[str, list[tuple[Any, ...]]]]:
        # an UPDATE that leaves score and fingerprint alone touches no board index
        return [
            (_SET_VERSIONS, self.versions),
            (_SET_RECORD, self.records),
            (_SET_SCORE, self.scores),
            (_SET_ALL, self.full),
        ]


class _Rescorer:
    """Scores re-score batches: every row in a thread for a supplied scorer; for a
    registered (pure) one, each distinct input once, in worker processes when there is
    enough to do."""

    def __init__(
        self,
        bench: Benchmark,
        key: Any,
        key_data: bytes,
        key_id: int,
        scorer_version: str,
        workers: int,
    ) -> None:
        self._bench, self._key, self._key_data = bench, key, key_data
        self._key_id, self._version = key_id, scorer_version
        try:
            self._pure = scoring_registry.get(bench.name) is bench
        except Exception:
            self._pure = False
        self._workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._memo: dict[_Text, _Scored] = {}

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    async def score(self, rows: list[Row]) -> _ScoredBatch:
        current = (self._key_id, self._version)
        todo = [r for r in rows if r[3] is not None and (r[3], r[4]) != current]
        if not self._pure:
            scored = await asyncio.to_thread(
                _score_texts, self._bench, self._key, [(r[1], r[2]) for r in todo]
            )
            return self._assemble(rows, todo, scored)
        memo = self._memo
        if len(memo) > _MEMO_MAX:
            memo.clear()
        fresh = list(dict.fromkeys((r[1], r[2]) for r in todo if (r[1], r[2]) not in memo))
        if len(fresh) >= _POOL_MIN_TEXTS and self._workers > 1:
            results = await self._in_pool(fresh)
        else:
            results = await asyncio.to_thread(_score_texts, self._bench, self._key, fresh)
        memo.update(zip(fresh, results, strict=True))
        return self._assemble(rows, todo, [memo[(r[1], r[2])] for r in todo])

    async def _in_pool(self, texts: list[_Text]) -> list[_Scored]:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self._workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_worker_init,
                initargs=(self._bench.name, self._key_data),
            )
        loop = asyncio.get_running_loop()
        step = -(-len(texts) // (self._workers * 2))
        parts = [texts[i : i + step] for i in range(0, len(texts), step)]
        try:
            done = await asyncio.wait_for(
                asyncio.gather(
                    *(loop.run_in_executor(self._pool, _worker_score, part) for part in parts)
                ),
                _POOL_TIMEOUT_S,
            )
        except (BrokenProcessPool, TimeoutError):
            # no working processes here (e.g. a main module without an ``if __name__ ==
            # "__main__"`` guard, which each spawned process runs again): go on in a thread;
            # the batch is scored whole again, nothing is half-done
            for process in list((getattr(self._pool, "_processes", None) or {}).values()):
                with suppress(Exception):
                    process.kill()
            self.close()
            self._workers = 1
            return await asyncio.to_thread(_score_texts, self._bench, self._key, texts)
        return [scored for part in done for scored in part]

    def _assemble(self, rows: list[Row], todo: list[Row], scored: list[_Scored]) -> _ScoredBatch:
        out = _ScoredBatch([], [], [], [], skipped=len(rows) - len(todo))
        key_id, version = self._key_id, self._version
        for row, (score, fingerprint, record) in zip(todo, scored, strict=True):
            sid = row[0]
            if not math.isfinite(score):
                raise InvalidData(f"submission {sid}: the scorer returned {score}")
            if fingerprint != row[6]:
                out.full.append((key_id, version, score, fingerprint, record, sid))
            elif score != row[5]:
                out.scores.append((key_id, version, score, record, sid))
            elif record != row[7]:
                out.records.append((key_id, version, record, sid))
            else:
                out.versions.append((key_id, version, sid))
                continue
            out.changed += 1
        return out


def _retrieve(future: asyncio.Future[Any]) -> None:
    """Mark a dropped task's outcome as seen (no "exception never retrieved" warning)."""
    if not future.cancelled():
        future.exception()


def _clean_reason(reason: str | None) -> str | None:
    """A moderation reason as stored: trimmed, at most 500 characters, None when empty."""
    if reason is None or not reason.strip():
        return None
    return reason.strip()[:500]


def _check_page(limit: int, offset: int) -> None:
    if not 1 <= limit <= 1000:
        raise InvalidData("limit must be between 1 and 1000")
    if offset < 0:
        raise InvalidData("offset must not be negative")


def _csv_text(value: str) -> str:
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def _csv_cells(row: BoardRow, key_version: int | None) -> list[Any]:
    return [
        row.rank,
        _csv_text(row.model),
        row.mode,
        f"{row.best:g}",
        row.runs,
        f"{row.mean:.4g}",
        int(row.verified),
        int(row.reported),
        "" if row.submission_id is None else row.submission_id,
        "" if row.user_id is None else row.user_id,
        row.first_at.isoformat(),
        row.last_at.isoformat(),
        "" if row.reported or key_version is None else key_version,
        _csv_text(row.source or ""),
    ]


__all__ = ["Store", "normalise_model"]

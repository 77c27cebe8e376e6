"""Boards: a page of any board, the reported (reference) results, the CSV export and
the rebuild of the summaries. How a page is read is in :mod:`storage.board_pages`; how
the summaries are kept, in :mod:`storage.summaries`."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from . import board_pages as pages
from . import summaries
from .base import Clock, StoreBase
from .challenge_lines import ChallengeFields
from .db import Conn, Database
from .errors import InvalidData
from .models import Board, BoardRow
from .values import MS_PER_DAY, Row, benchmark_name, check_page, clean_mode, clean_model, dt

#: The columns of :meth:`BoardStore.export_csv`, in order.
CSV_COLUMNS = (
    "rank", "model", "mode", "score", "runs", "mean", "verified", "reported",
    "submission_id", "user_id", "first_at", "last_at", "key_version", "source",
)  # fmt: skip


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
        first_at=dt(row[8]),
        last_at=dt(row[9]),
        verified=bool(row[10]),
        benchboard=row[10] == 2,  # board_pages.MARK
    )


def _references(conn: Conn, name: str, mode: str | None) -> tuple[BoardRow, ...]:
    """The reported results of a benchmark, ranked among themselves (on the database
    thread)."""
    sql = """SELECT RANK() OVER (ORDER BY r.score DESC), r.model, r.mode, r.score,
                    r.source, r.added_at
             FROM reference_results AS r JOIN benchmarks AS b ON b.id = r.benchmark_id
             WHERE b.name = ?"""
    params: list[Any] = [name]
    if mode is not None:
        sql += " AND r.mode = ?"
        params.append(mode)
    sql += " ORDER BY r.score DESC, r.id"
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
            first_at=dt(r[5]),
            last_at=dt(r[5]),
            verified=False,
            reported=True,
            source=r[4],
        )
        for r in pages.fetch(conn, sql, params)
    )


class BoardStore(StoreBase):
    def __init__(self, db: Database, path: Path, *, clock: Clock) -> None:
        super().__init__(db, path, clock=clock)
        # rows the last walk of a board shape read (see ``board_pages.walk_page``)
        self._walk_sizes: dict[tuple[Any, ...], int] = {}

    # --- reference entries ---------------------------------------------------------------

    async def add_reference(
        self, benchmark: str, *, model: str, mode: str, score: float, source: str
    ) -> None:
        """Store a result reported by a benchmark's authors. Idempotent on (benchmark,
        normalised model, mode, source): adding it again updates the score."""
        shown, norm = clean_model(model)
        value = clean_mode(mode)
        if not math.isfinite(score):
            raise InvalidData(f"the score must be a finite number, not {score}")
        now = self._now_ms()
        async with self._db.write() as s:
            bench_id = await self._ensure_bench(s, benchmark_name(benchmark))
            await s.execute(
                """INSERT INTO reference_results (benchmark_id, model, model_norm, mode, score,
                                                  source, added_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (benchmark_id, model_norm, mode, source) DO UPDATE SET
                       model = excluded.model, score = excluded.score""",
                (bench_id, shown, norm, value, float(score), source, now),
            )

    async def references(self, benchmark: str, *, mode: str | None = None) -> tuple[BoardRow, ...]:
        """The reported results of a benchmark, best first (ranked among themselves)."""
        name, mode_value = benchmark_name(benchmark), clean_mode(mode)
        return await self._db.run(lambda conn: _references(conn, name, mode_value))

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
        walk the rows in rank order until the page is full; a chat's or a user's board
        groups its (smaller) slice on the fly (:mod:`storage.board_pages`). All of it
        runs on the database thread in one trip (``Database.run``).
        """
        check_page(limit, offset)
        if days is not None and days <= 0:
            raise InvalidData("days must be a positive number of days")
        name = benchmark_name(benchmark)
        mode_value = clean_mode(mode)
        now = self._now_ms()
        cutoff = None if days is None else now - days * MS_PER_DAY
        return await self._db.run(
            lambda conn: self._board(
                conn, name, chat_id, user_id, mode_value, days, cutoff, limit, offset
            )
        )

    def _board(
        self,
        conn: Conn,
        name: str,
        chat_id: int | None,
        user_id: int | None,
        mode: str | None,
        days: int | None,
        cutoff: int | None,
        limit: int,
        offset: int,
    ) -> Board:
        """:meth:`leaderboard`'s work, all of it on the database thread."""
        scoped = chat_id is not None or user_id is not None
        windowed = not scoped and cutoff is not None
        # the newest week with board rows (the walk's last arm; one index probe) and the
        # groups in the window (by their last time; read only for a windowed walk)
        head = pages.fetch_one(
            conn,
            f"""SELECT b.id, k.version, b.boards_stale,
                      {pages.NEWEST_WEEK if windowed else "NULL"},
                      {pages.WINDOW_GROUPS if windowed else "NULL"}
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
            rows, total = pages.summary_page(conn, bench_id, mode, limit, offset)
        elif not scoped:
            walk = pages.Walk(
                bench_id, mode, days, cutoff, newest_week, limit, offset,
                batched=self._db.dialect.postgres,
            )  # fmt: skip
            counted = None if stale or in_window is None else int(in_window)
            rows, total = pages.walk_page(conn, walk, counted, self._walk_sizes)
        else:
            rows, total = pages.slice_page(
                conn, bench_id, chat_id, user_id, mode, cutoff, limit, offset
            )
        refs = _references(conn, name, mode) if is_global else ()
        return Board(
            rows=tuple(_board_row(r) for r in rows),
            total=total,
            key_version=key_version,
            references=refs,
            rescoring=bool(stale),
        )

    async def export_csv(
        self, benchmark: str, *, columns: Sequence[str] | None = None, **board_filters: Any
    ) -> str:
        """The whole board (every page) as CSV text, reference entries last.

        ``columns`` picks and orders the columns (names from :data:`CSV_COLUMNS`; None:
        all). ``board_filters`` are :meth:`leaderboard`'s (chat_id, user_id, mode, days).
        Text cells that a spreadsheet would run as a formula are prefixed with ``'``.
        """
        names = CSV_COLUMNS if columns is None else tuple(columns)
        unknown = [name for name in names if name not in CSV_COLUMNS]
        if unknown:
            raise InvalidData(f"unknown CSV columns {unknown}; known: {', '.join(CSV_COLUMNS)}")
        picked = [CSV_COLUMNS.index(name) for name in names]
        for banned in ("limit", "offset"):
            board_filters.pop(banned, None)
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(names)
        offset, page = 0, 1000
        refs: tuple[BoardRow, ...] = ()
        key_version: int | None = None
        while True:
            board = await self.leaderboard(benchmark, limit=page, offset=offset, **board_filters)
            refs, key_version = board.references, board.key_version
            for row in board.rows:
                cells = _csv_cells(row, key_version)
                writer.writerow([cells[i] for i in picked])
            offset += page
            if offset >= board.total or not board.rows:
                break
        for row in refs:
            cells = _csv_cells(row, key_version)
            writer.writerow([cells[i] for i in picked])
        return out.getvalue()

    async def rebuild_boards(self, benchmark: str | None = None) -> None:
        """Recompute the board summary of one benchmark (or all) from the submissions."""
        await summaries.rebuild_boards(self._db, benchmark)

    async def roll_boards(self) -> None:
        """Move the summaries kept for the last days (the challenges' span lines) to
        today: done by the day's first publication, and by the bot just after midnight UTC
        and at start for the days without one. Idempotent."""
        today = self._now_ms() // MS_PER_DAY
        async with self._db.write() as s:
            await summaries.roll_challenges(s, today)

    async def declare_challenges(self, challenges: Mapping[str, ChallengeFields]) -> None:
        """Say which benchmarks (by name) have a challenge and where their results keep
        its fields; every other benchmark has none. The bot calls it at start, from its
        registry. A benchmark whose declaration changed gets its challenge summaries
        rebuilt (its rows created first); one unchanged costs one read for all."""
        async with self._db.single() as s:
            rows = await s.all("SELECT name, challenge FROM benchmarks")
        now = {str(name): None if c is None else ChallengeFields.from_json(c) for name, c in rows}
        changed = {name for name in now if name not in challenges and now[name] is not None}
        changed |= {name for name, f in challenges.items() if now.get(name) != f}
        for name in sorted(changed):
            fields = challenges.get(name)
            async with self._db.write() as s:
                bench_id = await self._ensure_bench(s, name)
                await s.lock("board", bench_id)
                await s.execute(
                    "UPDATE benchmarks SET challenge = ? WHERE id = ?",
                    (None if fields is None else fields.to_json(), bench_id),
                )
                for table in ("lines", "days", "spans", "span_days", "attempts"):
                    await s.execute(
                        f"DELETE FROM challenge_{table} WHERE benchmark_id = ?", (bench_id,)
                    )
                if fields is not None:
                    await summaries.rebuild_challenge(s, fields, ("benchmark_id",), (bench_id,))


def _csv_text(value: str) -> str:
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def _csv_cells(row: BoardRow, key_version: int | None) -> list[Any]:
    """A board row's cells, in the order of :data:`CSV_COLUMNS`."""
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

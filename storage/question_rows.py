"""What the questions page and the key-error check read: the raw answers of published
results on the boards (a banned user's left out), in two bounded samples.

- :func:`recent_published`: ``limit`` published results of a benchmark from its latest
  weeks, by ``submissions_board_week`` (benchmark, UTC week, then rank; partial on
  ``published``) walked from the newest week back: the read stops after ``limit`` rows
  whatever the benchmark holds, and needs no sort (in the oldest week it reaches, the
  rows it takes are that week's best). Ordered by ``created_at`` instead, both engines
  sort every published row of the benchmark (2.5 s at 1,000,000 rows).
- :func:`strongest`: the best result of each of the ``limit`` best board lines (model and
  mode), by ``board_totals_rank``; :func:`board_lines` counts those lines.

Functions over a :class:`Store` (``store.db``), like :mod:`storage.web_rows`. The raw
inputs are decompressed off the database thread. No user id leaves this module.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import InvalidData
from .store import Store
from .values import Row, benchmark_name, decompress

#: The most results one call reads.
MAX_LIMIT = 10_000


@dataclass(frozen=True, slots=True)
class PublishedRaw:
    """A published result's id, ranking score and raw input (as it was scored)."""

    id: int
    score: float
    raw: str


def _limit(limit: int) -> int:
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidData(f"a sample of 1 to {MAX_LIMIT} results, not {limit}")
    return limit


async def _read(rows: Sequence[Row]) -> list[PublishedRaw]:
    def unpack() -> list[PublishedRaw]:
        return [PublishedRaw(int(r[0]), float(r[1]), decompress(r[2])) for r in rows]

    return await asyncio.to_thread(unpack)


async def recent_published(store: Store, benchmark: str, limit: int) -> list[PublishedRaw]:
    """``limit`` published results of ``benchmark`` on the boards from its latest weeks,
    newest week first."""
    sql = """SELECT s.id, s.score, s.raw FROM submissions AS s
             JOIN benchmarks AS b ON b.id = s.benchmark_id
             WHERE b.name = ? AND s.visibility = 'published'
               AND NOT EXISTS (SELECT 1 FROM bans WHERE bans.user_id = s.user_id)
             ORDER BY s.created_at / 604800000 DESC LIMIT ?"""
    async with store.db.single() as s:
        rows = await s.all(sql, (benchmark_name(benchmark), _limit(limit)))
    return await _read(rows)


async def strongest(store: Store, benchmark: str, limit: int) -> list[PublishedRaw]:
    """The best result of each of the ``limit`` best lines of ``benchmark``'s global
    board (one per model and mode), best first."""
    sql = """SELECT s.id, s.score, s.raw FROM board_totals AS t
             JOIN benchmarks AS b ON b.id = t.benchmark_id
             JOIN submissions AS s ON s.id = t.best_id
             WHERE b.name = ? ORDER BY t.best DESC, t.best_at LIMIT ?"""
    async with store.db.single() as s:
        rows = await s.all(sql, (benchmark_name(benchmark), _limit(limit)))
    return await _read(rows)


async def board_lines(store: Store, benchmark: str) -> int:
    """How many lines (model and mode) ``benchmark``'s global board has."""
    sql = """SELECT COUNT(*) FROM board_totals AS t JOIN benchmarks AS b
             ON b.id = t.benchmark_id WHERE b.name = ?"""
    async with store.db.single() as s:
        row = await s.one(sql, (benchmark_name(benchmark),))
    return int(row[0]) if row else 0

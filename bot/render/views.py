"""What the renderers draw: plain data that the use cases (``bot.core``) build.

Render owns these types so that its arrows point only at plain models and the message
catalogue; ``core`` imports them from here to fill them in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from datetime import datetime

    from scoring import Benchmark
    from storage import Board, BoardRow, KeyVersion, Submission


@dataclass(frozen=True, slots=True)
class BoardQuery:
    """One page of a board: benchmark, scope (``g`` global, ``c`` the chat's, ``u`` the
    user's own), mode (None: all), the last ``days`` (0: all time) and the page number."""

    benchmark: str
    scope: str
    mode: str | None
    days: int
    page: int


@dataclass(frozen=True, slots=True)
class BoardPage:
    """A page of a board as shown: ``reported`` gives, by position in ``board.rows``, the
    result its authors reported for that row's model and mode (shown beside it, never
    ranked); ``apart`` the reported results no row has. ``records``: the best
    submissions' result records, for the columns a benchmark adds after its score."""

    query: BoardQuery
    benchmark: Benchmark
    board: Board
    pages: int
    reported: Mapping[int, BoardRow] = field(default_factory=dict)
    apart: tuple[BoardRow, ...] = ()
    records: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)
    #: each row's 95 % interval of its score (``bot.core.intervals``), by its best
    #: submission's id (absent or None: none)
    intervals: Mapping[int, tuple[float, float] | None] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class KeyInfo:
    """``/keyinfo`` for one benchmark: the stored version this process uses (None: no
    key), where and when this process loaded it, and how many versions are stored."""

    benchmark: Benchmark
    version: KeyVersion | None
    source: str
    loaded_at: datetime | None
    versions: int
    #: a benchmark with questions, asked in a private chat: how many of the strongest
    #: results were read (0: not checked) and where most of them contradict the key
    strong: int = 0
    doubts: tuple[KeyDoubt, ...] = ()


@dataclass(frozen=True, slots=True)
class KeyDoubt:
    """A possible key error: ``agree`` of the ``strong`` results chose ``chosen`` for
    ``question``, where the key says ``key_option``."""

    question: int
    key_option: int
    chosen: int
    agree: int
    strong: int


@dataclass(frozen=True, slots=True)
class History:
    """A page of ``/me``: the user's submissions on it (newest first), how many they
    have in all, the page and the number of pages, and (page 1) their best rows on each
    benchmark's board, as (benchmark name, row), in the registry's order."""

    submissions: tuple[Submission, ...]
    total: int
    page: int
    pages: int
    bests: tuple[tuple[str, BoardRow], ...] = ()
    #: the submissions on the page held for review (the copy check): shown as held
    held: frozenset[int] = frozenset()

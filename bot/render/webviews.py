"""What the web boards draw: plain data that ``bot.core.webboards`` builds and the
templates of ``bot.web`` show. No user id ever goes into these types: a submitter is a
name (they chose ``/public``) or None (shown as "anonymous")."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scoring import Benchmark, Hint
    from scoring.base import Shown


@dataclass(frozen=True, slots=True)
class WebQuery:
    """One view of a board: the benchmark, its filters (mode or None; the last ``days``,
    0: all time; verified results only), the page (from 0), the sort column (``rank``:
    the board's own order) and direction, the rows per page, and ``search``: only the
    models whose name holds it (ignoring case; "" for all)."""

    benchmark: str
    mode: str | None = None
    days: int = 0
    verified: bool = False
    page: int = 0
    sort: str = "rank"
    descending: bool = False
    per: int = 25
    search: str = ""
    #: "" every mark; ``benchboard``: runs by Benchboard only (they are verified too)
    mark: str = ""
    #: only results whose submitter named this provider (``?provider=``), or None
    provider: str | None = None


@dataclass(frozen=True, slots=True)
class Column:
    """A column of a board: its key (the sort key and the JSON field), the message id
    of its heading, and whether larger is better (the first click sorts descending)."""

    key: str
    label: str
    numeric: bool = True


@dataclass(frozen=True, slots=True)
class WebRow:
    """One row of a web board. ``cells`` are the benchmark's columns as (text, sort
    value); ``values`` the same figures as plain JSON values."""

    rank: int | None
    model: str
    mode: str
    mark: str  # benchboard | verified | self | reported (extensible)
    key_hash: str | None
    author: str | None
    first_at: datetime
    last_at: datetime
    cells: dict[str, str]
    values: dict[str, float | int | str | None]
    token: str | None = None
    source: str | None = None
    #: the 95 % interval of ``values["score"]`` (``bot.core.intervals``): over the best
    #: run's questions, or over the line's runs when it has several; None: none to give
    ci95: tuple[float, float] | None = None
    #: its interval overlaps the line's above (rank order only): shown as tied
    tied: bool = False


@dataclass(frozen=True, slots=True)
class IntervalPoint:
    """A model line on a board's headline chart of scores: its ranking score, the
    interval around it (None: none known) and the score as the board writes it.
    ``label`` is the model's name; the page adds ``mode`` in the reader's words."""

    label: str
    score: float
    interval: tuple[float, float] | None
    text: str
    mode: str = ""


@dataclass(frozen=True, slots=True)
class ChartPoint:
    """A model line on a score-against-cost chart (``label`` and ``mode`` as above)."""

    label: str
    cost: float
    score: float
    front: bool
    mode: str = ""


@dataclass(frozen=True, slots=True)
class WebBoard:
    """A page of a board as the web shows it."""

    query: WebQuery
    title: str
    credit: str
    columns: tuple[Column, ...]
    rows: tuple[WebRow, ...]
    total: int
    pages: int
    key_version: int | None
    key_hash: str | None
    reported: tuple[WebRow, ...] = ()
    chart: tuple[ChartPoint, ...] = ()
    group: str | None = None  # the group's title, on a group's board
    sort_span: int = 0  # >0: a sorted view orders the best ``sort_span`` rows only
    rescoring: bool = False
    #: the headline chart (``Benchmark.web_chart``) and, for a chart of intervals, its
    #: lines (``chart`` holds a score-against-cost chart's points)
    chart_kind: str = ""
    intervals: tuple[IntervalPoint, ...] = ()
    search_span: int = 0  # >0: a search looks through the best ``search_span`` rows only
    has_questions: bool = False  # a choice benchmark: it has a questions page
    #: the figures every row's ``values`` carries, in order (a CSV's columns, named
    #: even when the board has no row)
    value_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Leader:
    """The head of one benchmark's board on the front page."""

    name: str
    title: str
    credit: str
    total: int
    rows: tuple[WebRow, ...]
    score_key: str


@dataclass(frozen=True, slots=True)
class WebResult:
    """One published result, in full: ``fields`` as its benchmark (``declared``) shows
    them."""

    token: str
    benchmark: str
    title: str
    credit: str
    model: str
    mode: str
    score: str
    mark: str
    author: str | None
    fields: tuple[Shown, ...]
    invalid_lines: tuple[tuple[int, str], ...]
    invalid_count: int
    hints: tuple[Hint, ...]
    key_version: int | None
    key_hash: str | None
    scorer_version: str
    created_at: datetime
    published_at: datetime | None
    from_group: bool
    bot_link: str | None
    declared: Benchmark | None = None
    #: what its submitter says of how it was produced (``bot.core.provenance``), as
    #: (field, value) in the fields' order
    provenance: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class MyResult:
    """One of the signed-in user's own submissions (the Mini App's "my results")."""

    title: str
    model: str | None
    mode: str | None
    score: str
    state: str
    created_at: datetime
    token: str | None = None


@dataclass(frozen=True, slots=True)
class MyResults:
    name: str
    results: tuple[MyResult, ...] = field(default_factory=tuple)
    #: the credits of the benchmarks whose scores are listed, each once
    credits: tuple[str, ...] = ()

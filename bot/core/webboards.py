"""The web boards' use cases: a page of a board with the columns its benchmark calls for,
the front page's leaders, a board's preview image (one published result and a
signed-in user's own results: :mod:`bot.core.webresults`).

Everything is read through the store's board queries (``Store.leaderboard``, and the
challenge board for a benchmark whose board aggregates attempts) and, for the rows of
one page, by primary key (``storage.web_rows``). The columns are the benchmark's own
(``Benchmark.web_columns``), each cell written by its kind (``bot.render.fields``).
No user id leaves here: a submitter is shown by name only when they chose ``/public``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from scoring import Benchmark, registry
from scoring.base import ATTEMPTS, CHART_FRONT, CHART_INTERVALS
from storage import Board, BoardRow, analytics, web_rows
from storage.analytics import ChallengeRow
from storage.web_rows import RowInfo

from ..render.card_views import BoardImageView, TableRow
from ..render.fields import write
from ..render.svgchart import pareto
from ..render.webviews import (
    ChartPoint,
    Column,
    IntervalPoint,
    Leader,
    WebBoard,
    WebQuery,
    WebRow,
)
from . import board_intervals, challenges, intervals, links, sharing
from .errors import UserError
from .intervals import Interval
from .services import Services

#: A sorted view (any column but the rank) orders this many of the board's best rows.
SORT_SPAN = 200
#: The most rows a page (or a CSV / JSON download) holds, and the furthest page.
MAX_PER = 500
MAX_PAGE = 400
#: Models on the score-against-cost chart.
CHART_MODELS = 40
WINDOWS = (0, 7, 30)
#: Sort keys every board has besides its columns.
COMMON_SORTS = ("rank", "model", "mode", "first", "last")


def benchmark_of(name: str) -> Benchmark:
    if name not in registry.names():
        raise UserError("web_unknown_benchmark")
    return registry.get(name)


def charted(benchmark: Benchmark) -> bool:
    """Boards whose headline chart is the score against cost (``Benchmark.web_chart``):
    their first page reads the best models for it."""
    return benchmark.web_chart == CHART_FRONT


def columns(benchmark: Benchmark) -> tuple[Column, ...]:
    return tuple(Column(c.key, c.label) for c in benchmark.web_columns)


#: The figures of a row of a board of attempts (``_attempts_row``), in its order.
ATTEMPT_VALUES = ("mean", "score", "attempts", "cost", "latency")


def value_keys(benchmark: Benchmark) -> tuple[str, ...]:
    """The figures (``WebRow.values``) every row of the benchmark's board carries, in
    the rows' order: what a CSV's header names whether or not the board has a row."""
    if benchmark.board_aggregate == ATTEMPTS:
        return ATTEMPT_VALUES
    _, own = benchmark.web_cells(0.0, {})
    return tuple(dict.fromkeys(("score", "runs", "mean", *own)))


def sort_keys(benchmark: Benchmark) -> tuple[str, ...]:
    return COMMON_SORTS + tuple(c.key for c in columns(benchmark))


def _texts(
    benchmark: Benchmark, values: dict[str, float | int | str | None], given: dict[str, str]
) -> dict[str, str]:
    """The text of every column of a row: as the benchmark gave it, else its value
    written by the column's kind."""
    return {
        c.key: given[c.key]
        if c.key in given
        else write(c.kind, values.get(c.key), benchmark=benchmark)
        for c in benchmark.web_columns
    }


def _cells(
    benchmark: Benchmark, row: BoardRow, info: RowInfo | None
) -> tuple[dict[str, str], dict[str, float | int | str | None]]:
    """A board row's columns as text and as values: score, runs and mean as every board
    has them, then the benchmark's own (``Benchmark.web_cells``)."""
    values: dict[str, float | int | str | None] = {
        "score": row.best,
        "runs": row.runs,
        "mean": round(row.mean, 6),
    }
    own_text, own_values = benchmark.web_cells(row.best, info.values if info else {})
    values.update(own_values)
    return _texts(benchmark, values, own_text), values


def _mark(row: BoardRow) -> str:
    return row.mark


def interval_text(benchmark: Benchmark, ci95: Interval | None) -> str | None:
    """A 95 % interval as a board shows it, in the benchmark's way of writing a score:
    ``[25.1, 50.9]``; None for none."""
    if ci95 is None:
        return None
    low, high = (benchmark.format_score(v, mean=True) for v in ci95)
    return f"[{low}, {high}]"


def _with_interval(
    benchmark: Benchmark, text: dict[str, str], ci95: Interval | None
) -> dict[str, str]:
    """A row's texts with its interval's (``cells["ci95"]``, shown beside the score)."""
    shown = interval_text(benchmark, ci95)
    return text if shown is None else {**text, "ci95": shown}


def web_row(
    benchmark: Benchmark,
    row: BoardRow,
    info: RowInfo | None,
    token: str | None,
    ci95: Interval | None = None,
) -> WebRow:
    text, values = _cells(benchmark, row, info)
    text = _with_interval(benchmark, text, ci95)
    return WebRow(
        rank=None if row.reported else row.rank,
        model=row.model,
        mode=row.mode,
        mark=_mark(row),
        key_hash=info.key_sha[:8] if info is not None and info.key_sha else None,
        author=info.author if info is not None else None,
        first_at=row.first_at,
        last_at=row.last_at,
        cells=text,
        values=values,
        token=token,
        source=row.source,
        ci95=ci95,
    )


def _attempts_row(
    benchmark: Benchmark,
    row: ChallengeRow,
    info: RowInfo | None,
    token: str | None,
    ci95: Interval | None = None,
) -> WebRow:
    """A row of a board of attempts: a model's mean and best score, attempts, mean cost
    and latency."""

    def when(ms: int | None) -> datetime:
        return datetime.fromtimestamp((ms or 0) / 1000, UTC)

    values: dict[str, float | int | str | None] = {  # ATTEMPT_VALUES
        "mean": row.mean,
        "score": row.best,
        "attempts": row.attempts,
        "cost": row.mean_cost,
        "latency": row.mean_latency,
    }
    return WebRow(
        rank=row.rank,
        model=row.model,
        mode=row.mode,
        mark=info.mark if info is not None else "self",
        key_hash=None,
        author=info.author if info is not None else None,
        first_at=when(row.first_ms),
        last_at=when(row.last_ms),
        cells=_with_interval(benchmark, _texts(benchmark, values, {}), ci95),
        values=values,
        token=token,
        ci95=ci95,
    )


def _sort_value(row: WebRow, key: str) -> tuple[int, Any]:
    """Rows without the value sort last either way."""
    if key == "model":
        return 0, row.model.casefold()
    if key == "mode":
        return 0, row.mode
    if key in ("first", "last"):
        return 0, (row.first_at if key == "first" else row.last_at).timestamp()
    value = row.values.get(key)
    return (1, 0) if value is None else (0, value)


def _ordered(rows: Sequence[WebRow], q: WebQuery) -> list[WebRow]:
    present = [r for r in rows if _sort_value(r, q.sort)[0] == 0]
    absent = [r for r in rows if _sort_value(r, q.sort)[0] == 1]
    present.sort(key=lambda r: _sort_value(r, q.sort)[1], reverse=q.descending)
    return present + absent


def check(q: WebQuery) -> Benchmark:
    """The query's benchmark, once every field is in range (else :class:`UserError`)."""
    benchmark = benchmark_of(q.benchmark)
    if q.days not in WINDOWS or not 1 <= q.per <= MAX_PER or not 0 <= q.page <= MAX_PAGE:
        raise UserError("web_bad_filter")
    if q.sort not in sort_keys(benchmark):
        raise UserError("web_bad_filter")
    if q.provider is not None and benchmark.board_aggregate == ATTEMPTS:
        raise UserError("web_bad_filter")  # a board of attempts is not kept by provider
    return benchmark


#: A board line as its interval is read: best submission id, score, runs, mode.
Line = tuple[int, float, int, str]


@dataclass(frozen=True, slots=True)
class Read:
    """What :func:`_rows` read: the rows in rank order (without their intervals), the
    board (None for a board of attempts), its size, each row's line (None: a reported
    row) and the rows' details."""

    rows: list[WebRow]
    board: Board | None
    total: int
    lines: list[Line | None]
    info: dict[int, RowInfo]


async def _with_intervals(
    services: Services,
    benchmark: Benchmark,
    q: WebQuery,
    chat_id: int | None,
    read: Read,
    picked: Sequence[int],
) -> list[WebRow]:
    """The rows at ``picked`` (indexes into ``read.rows``) with their 95 % intervals:
    read for the rows a page shows only."""
    lines = [line for i in picked if (line := read.lines[i]) is not None]
    ci = await _intervals(services, benchmark, q, chat_id, lines, read.info)
    out = []
    for i in picked:
        row, line = read.rows[i], read.lines[i]
        own = interval_of(row)  # the interval the benchmark's own figures give
        found = ci.get(line[0]) if line is not None else own
        if found is not None and found == own:
            # already written in the score's cell: not a second time beside it
            out.append(replace(row, ci95=found))
            continue
        out.append(replace(row, ci95=found, cells=_with_interval(benchmark, row.cells, found)))
    return out


async def _raw(
    services: Services,
    benchmark: Benchmark,
    q: WebQuery,
    chat_id: int | None,
    limit: int,
    offset: int,
) -> tuple[list[BoardRow] | list[ChallengeRow], Board | None, int]:
    """``limit`` board lines from ``offset`` in rank order as the store reads them, the
    board read (None for a board of attempts) and the board's size."""
    store = services.store
    if benchmark.board_aggregate == ATTEMPTS:
        since = None
        if q.days:
            since = int((datetime.now(UTC) - timedelta(days=q.days)).timestamp() * 1000)
        attempts = await analytics.challenge_board(
            store,
            benchmark.name,
            challenges.fields(benchmark),
            chat_id=chat_id,
            mode=q.mode,
            since_ms=since,
            verified=q.verified,
            benchboard=q.mark == "benchboard",
            limit=limit,
            offset=offset,
        )
        return list(attempts.rows), None, attempts.total
    if q.verified or q.mark or q.provider is not None:
        board = await web_rows.filtered_page(
            store,
            benchmark.name,
            mode=q.mode,
            days=q.days or None,
            verified=q.verified or bool(q.mark),
            provider=q.provider,
            benchboard=q.mark == "benchboard",
            limit=limit,
            offset=offset,
        )
    else:
        board = await store.leaderboard(
            benchmark.name,
            chat_id=chat_id,
            mode=q.mode,
            days=q.days or None,
            limit=limit,
            offset=offset,
        )
    return list(board.rows), board, board.total


async def _built(
    services: Services,
    benchmark: Benchmark,
    lines: Sequence[BoardRow | ChallengeRow],
    board: Board | None,
    total: int,
) -> Read:
    """Board lines as web rows, with their details and result pages (by primary key),
    and each row's line for its interval."""
    store = services.store
    attempts = [r for r in lines if isinstance(r, ChallengeRow)]
    if attempts:
        ids = [r.best_id for r in attempts]
        info = await web_rows.row_info(store, ids)
        tokens = await web_rows.result_tokens(store, ids)
        rows = [_attempts_row(benchmark, r, info.get(r.best_id), tokens.get(r.best_id))
                for r in attempts]  # fmt: skip
        read: list[Line | None] = [(r.best_id, r.best, r.attempts, r.mode) for r in attempts]
        return Read(rows, board, total, read, info)
    best = [r for r in lines if isinstance(r, BoardRow)]
    ids = [r.submission_id for r in best if r.submission_id is not None]
    info = await web_rows.row_info(store, ids, benchmark.web_paths)
    tokens = await web_rows.result_tokens(store, ids)
    rows, found = [], []
    for r in best:
        sid = r.submission_id or 0
        rows.append(web_row(benchmark, r, info.get(sid), tokens.get(sid)))
        found.append((sid, r.best, r.runs, r.mode) if sid else None)
    return Read(rows, board, total, found, info)


async def _rows(
    services: Services,
    benchmark: Benchmark,
    q: WebQuery,
    chat_id: int | None,
    limit: int,
    offset: int,
) -> Read:
    """``limit`` rows from ``offset`` in rank order, the board read (None for a board of
    attempts) and the board's size."""
    lines, board, total = await _raw(services, benchmark, q, chat_id, limit, offset)
    return await _built(services, benchmark, lines, board, total)


async def _intervals(
    services: Services,
    benchmark: Benchmark,
    q: WebQuery,
    chat_id: int | None,
    lines: Sequence[tuple[int, float, int, str]],
    info: Mapping[int, RowInfo],
) -> dict[int, Interval | None]:
    return await board_intervals.line_intervals(
        services,
        benchmark,
        lines,
        info,
        chat_id=chat_id,
        days=q.days,
        verified=q.verified,
        provider=q.provider,
    )


#: A search (``WebQuery.search``) looks through this many of the board's best lines,
#: read this many at a time; the lines read are kept this many seconds for every search
#: of the same board and filters (a new search costs a scan of its lines, not a read).
SEARCH_SPAN = 2000
_SEARCH_READ = 1000
SEARCH_KEEP = 10.0

_Scan = tuple[list[Any], Board | None, int]


async def _scan(
    services: Services, benchmark: Benchmark, q: WebQuery, chat_id: int | None
) -> _Scan:
    """The board's best :data:`SEARCH_SPAN` lines in rank order, the board read (its
    reported results) and the board's size."""
    found: Board | None = None
    lines: list[Any] = []
    total = 0
    while len(lines) < SEARCH_SPAN:
        read, board_, total = await _raw(services, benchmark, q, chat_id, _SEARCH_READ, len(lines))
        found = found or board_
        lines += read
        if len(read) < _SEARCH_READ or len(lines) >= total:
            break
    return lines, found, total


async def _searched(
    services: Services, benchmark: Benchmark, q: WebQuery, chat_id: int | None
) -> tuple[list[BoardRow] | list[ChallengeRow], Board | None, int]:
    """The board's lines (its best :data:`SEARCH_SPAN`) whose model name holds the
    search, in rank order; the board read and its size. The lines are read once for
    concurrent searches and kept :data:`SEARCH_KEEP` seconds (``Services.scans``)."""
    key = ("search", benchmark.name, q.mode, q.days, q.verified, q.mark, q.provider, chat_id)
    now = time.monotonic()
    kept = services.scans.get(key)
    if kept is not None and kept[0] >= now:
        lines, found, total = await asyncio.shield(kept[1])
    else:
        future: asyncio.Future[_Scan] = asyncio.get_running_loop().create_future()
        services.scans[key] = (now + SEARCH_KEEP, future)
        try:
            scanned = await _scan(services, benchmark, q, chat_id)
        except BaseException as exc:
            services.scans.pop(key, None)
            future.set_exception(exc)
            future.exception()  # retrieved: the waiters re-raise it themselves
            raise
        future.set_result(scanned)
        lines, found, total = scanned
    needle = q.search.casefold()
    return [r for r in lines if needle in r.model.casefold()], found, total


async def board(
    services: Services, q: WebQuery, *, chat_id: int | None = None, group: str | None = None
) -> WebBoard:
    """A page of a board: the global one, or (``chat_id``) a group's; with a search,
    only the lines of the models it names."""
    benchmark = check(q)
    if chat_id is not None and (q.verified or q.mark or q.provider is not None):
        raise UserError("web_bad_filter")
    span = search_span = 0
    # the first page of a board of attempts also charts its best models: one read for both
    with_chart = charted(benchmark) and q.page == 0
    if q.search:
        lines, found, size = await _searched(services, benchmark, q, chat_id)
        total = len(lines)
        search_span = SEARCH_SPAN if size > SEARCH_SPAN else 0
        if q.sort == "rank":
            start = q.page * q.per
            chosen = lines[start : start + max(q.per, CHART_MODELS if with_chart else 0)]
            read = await _built(services, benchmark, chosen, found, total)
            rows = read.rows
            shown = await _with_intervals(
                services, benchmark, q, chat_id, read, range(min(len(rows), q.per))
            )
            pages = max(1, -(-total // q.per))
        else:
            read = await _built(services, benchmark, lines[:SORT_SPAN], found, total)
            rows = read.rows
            at = {id(row): i for i, row in enumerate(rows)}
            order = [at[id(row)] for row in _ordered(rows, q)]
            window = order[q.page * q.per : (q.page + 1) * q.per]
            shown = await _with_intervals(services, benchmark, q, chat_id, read, window)
            pages = max(1, -(-min(total, SORT_SPAN) // q.per))
            span = SORT_SPAN if total > SORT_SPAN else 0
    elif q.sort == "rank":
        limit = max(q.per, CHART_MODELS) if with_chart else q.per
        # a later page reads the line above its first too: is that one tied with it?
        start = q.page * q.per
        before = 1 if start and q.page < MAX_PAGE else 0
        read = await _rows(services, benchmark, q, chat_id, limit + before, start - before)
        found, total = read.board, read.total
        picked = await _with_intervals(
            services, benchmark, q, chat_id, read, range(min(len(read.rows), before + q.per))
        )
        above = picked[0].ci95 if before and picked else None
        picked = picked[before:]
        ties = intervals.ties([r.ci95 for r in picked], above)
        shown = [replace(row, tied=tied) for row, tied in zip(picked, ties, strict=True)]
        rows = read.rows[before:]
        pages = max(1, -(-total // q.per))
    else:
        read = await _rows(services, benchmark, q, chat_id, SORT_SPAN, 0)
        rows, found, total = read.rows, read.board, read.total
        at = {id(row): i for i, row in enumerate(rows)}
        order = [at[id(row)] for row in _ordered(rows, q)]
        window = order[q.page * q.per : (q.page + 1) * q.per]
        shown = await _with_intervals(services, benchmark, q, chat_id, read, window)
        pages = max(1, -(-min(total, SORT_SPAN) // q.per))
        span = SORT_SPAN if total > SORT_SPAN else 0
    if q.page >= pages:
        raise UserError("web_no_page")
    reported: tuple[WebRow, ...] = ()
    if found is not None and found.references and q.page == 0:
        refs = found.references
        if q.search:
            refs = tuple(r for r in refs if q.search.casefold() in r.model.casefold())
        reported = tuple(web_row(benchmark, r, None, None) for r in refs)
    chart = _chart(rows[:CHART_MODELS]) if with_chart else ()
    key = await services.store.current_key(benchmark.name) if benchmark.key_file else None
    return WebBoard(
        query=q,
        title=benchmark.title,
        credit=benchmark.credit,
        columns=columns(benchmark),
        value_keys=value_keys(benchmark),
        rows=tuple(shown),
        total=total,
        pages=pages,
        key_version=key.version if key else None,
        key_hash=key.sha256[:8] if key else None,
        reported=reported,
        chart=chart,
        group=group,
        sort_span=span,
        rescoring=bool(found and found.rescoring),
        chart_kind=benchmark.web_chart,
        intervals=(
            _chart_intervals(benchmark, shown) if benchmark.web_chart == CHART_INTERVALS else ()
        ),
        search_span=search_span,
        has_questions=benchmark.has_questions,
    )


def _chart(rows: Sequence[WebRow]) -> tuple[ChartPoint, ...]:
    """Mean score against mean cost of the best models (``rows``, in rank order)."""
    points = []
    for r in rows:
        cost, mean = r.values.get("cost"), r.values.get("mean")
        if isinstance(cost, float) and isinstance(mean, int | float):
            points.append((r, cost, float(mean)))
    front = pareto([(c, s) for _, c, s in points])
    return tuple(
        ChartPoint(r.model, c, s, f, mode=r.mode)
        for (r, c, s), f in zip(points, front, strict=True)
    )


#: Model lines on a board's chart of scores (the page's first).
INTERVAL_MODELS = 30


def interval_of(row: WebRow) -> tuple[float, float] | None:
    """A row's interval: its ``ci95``, else the ``ci_low``/``ci_high`` its benchmark's
    cells give (a share's Wilson interval), else None."""
    return row.ci95 if row.ci95 is not None else board_intervals.interval_in(row.values)


def _chart_intervals(benchmark: Benchmark, rows: Sequence[WebRow]) -> tuple[IntervalPoint, ...]:
    """The chart of scores: each shown line's ranking score with its interval."""
    out = []
    for r in rows[:INTERVAL_MODELS]:
        score = r.values.get("score")
        if not isinstance(score, int | float):
            continue
        out.append(IntervalPoint(r.model, float(score), interval_of(r),
                                 benchmark.format_score(float(score)), mode=r.mode))  # fmt: skip
    return tuple(out)


async def leaders(services: Services, count: int = 3) -> tuple[Leader, ...]:
    """The front page: each benchmark's best rows."""
    out = []
    for benchmark in registry.all_benchmarks():
        page = await board(services, WebQuery(benchmark.name, per=count))
        out.append(
            Leader(
                benchmark.name,
                benchmark.title,
                benchmark.credit,
                page.total,
                page.rows,
                page.columns[0].key,
            )
        )
    return tuple(out)


async def group_board(services: Services, token: str, q: WebQuery) -> WebBoard:
    """A group's board by its web link; a revoked or unknown link is :class:`UserError`."""
    chat_id = await links.web_board_chat(services, token)
    if chat_id is None:  # mistyped, or replaced by /weblink new: no result was involved
        raise UserError("web_group_not_found")
    chat = await services.store.get_chat(chat_id)
    return await board(services, q, chat_id=chat_id, group=(chat.title if chat else None) or "")


# --- link previews: a board's image (a result's card: ``webresults``) -----------------

#: Lines on a board's preview image.
PREVIEW_ROWS = 10


async def board_card(
    services: Services, name: str, lang: str, bot_username: str | None
) -> tuple[BoardImageView, str]:
    """A global board's image (its first lines, light, in ``lang``) and its digest."""
    page = await board(services, WebQuery(name, per=PREVIEW_ROWS))
    benchmark = registry.get(name)
    score_key = page.columns[0].key if page.columns else "score"
    rows = []
    for r in page.rows:
        runs = r.values.get("runs", r.values.get("attempts"))
        rows.append(
            TableRow(
                rank=r.rank or 0,
                model=r.model,
                mode=r.mode,
                score=r.cells.get(score_key, "—"),
                runs=int(runs) if isinstance(runs, int | float) else 0,
                verified=r.mark in ("verified", "benchboard"),
                benchboard=r.mark == "benchboard",
            )
        )
    view = BoardImageView(
        benchmark=benchmark,
        scope="g",
        rows=tuple(rows),
        date=datetime.now(UTC),
        key_version=page.key_version,
        lang=lang,
        theme="light",
        bot_username=bot_username or "",
    )
    return view, sharing.board_key(view)

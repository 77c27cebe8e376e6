"""Leaderboards: which page a user asks for, the page itself, a user's history, the
Natory boards and the comparison chart's rows."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

from scoring import KeyFormatError, UnknownBenchmark, natory, parse_mode, registry
from storage import Board, BoardRow, analytics, normalise_model
from storage.analytics import NatoryBoard as NatoryBoard

from ..render.views import BoardPage
from ..render.views import BoardQuery as BoardQuery
from ..render.views import History as History
from .errors import UserError
from .services import Services

log = logging.getLogger(__name__)

#: Rows on one page of a board.
BOARD_PAGE = 10
#: Rows of a Natory board.
NATORY_ROWS = 15
#: How many models a comparison chart shows at most (the best by mean score).
CHART_MODELS = 40
#: A board's scope: the global board (g), the chat's (c), or the user's own (u).
SCOPES = ("g", "c", "u")


def board_args(args: Sequence[str]) -> tuple[str, str | None]:
    """``/leaderboard [benchmark] [mode]``: the benchmark and mode the words name; raises
    :class:`scoring.UnknownMode` for a word that is neither."""
    benchmark, mode = registry.DEFAULT, None
    for word in args:
        try:
            benchmark = registry.get(word).name
        except UnknownBenchmark:
            mode = parse_mode(word).value
    return benchmark, mode


def place_references(board: Board) -> tuple[dict[int, BoardRow], tuple[BoardRow, ...]]:
    """Reported results beside the submitted row of the same model and mode (by the row's
    position), and the others apart. Model names match as the boards group them."""
    positions = {(normalise_model(r.model), r.mode): i for i, r in enumerate(board.rows)}
    reported: dict[int, BoardRow] = {}
    apart: list[BoardRow] = []
    for ref in board.references:
        position = positions.get((normalise_model(ref.model), ref.mode))
        if position is None:
            apart.append(ref)
        else:
            reported[position] = ref
    return reported, tuple(apart)


async def page(services: Services, query: BoardQuery, *, chat_id: int, user_id: int) -> BoardPage:
    if query.benchmark not in registry.names() or query.scope not in SCOPES:
        raise UserError("gone")
    benchmark = registry.get(query.benchmark)
    store = services.store
    board = await store.leaderboard(
        benchmark.name,
        chat_id=chat_id if query.scope == "c" else None,
        user_id=user_id if query.scope == "u" else None,
        mode=query.mode,
        days=query.days or None,
        limit=BOARD_PAGE,
        offset=query.page * BOARD_PAGE,
    )
    records: Mapping[int, Mapping[str, Any]] = {}
    if benchmark.board_columns:  # ZeroBench: pass@k and k/k beside pass@1
        ids = [r.submission_id for r in board.rows if r.submission_id is not None]
        records = await analytics.records(store, ids)
    reported, apart = place_references(board)
    pages = max(1, -(-board.total // BOARD_PAGE))
    return BoardPage(query, benchmark, board, pages, reported, apart, records)


#: Submissions on one page of ``/me``.
HISTORY_PAGE = 10


async def history(services: Services, user_id: int, page: int = 0) -> History:
    """``/me``: one page of the user's submissions, and their bests on page 1."""
    store = services.store
    total = await store.count_history(user_id)
    pages = max(1, -(-total // HISTORY_PAGE))
    page = min(max(page, 0), pages - 1)
    subs = await store.history(user_id, limit=HISTORY_PAGE, offset=page * HISTORY_PAGE)
    bests: tuple[BoardRow, ...] = ()
    if page == 0:
        bests = (await store.leaderboard(registry.DEFAULT, user_id=user_id, limit=5)).rows
    return History(tuple(subs), total, page, pages, bests)


# --- Natory ----------------------------------------------------------------------------


def natory_target(word: str) -> int:
    """A target typed by a user (``/natory N``, ``/leaderboard natory N``)."""
    try:
        return natory.parse_target(word).target
    except KeyFormatError:
        raise UserError("natory_bad_target", word=word[:40]) from None


async def natory_board(
    services: Services, target: int | None
) -> tuple[NatoryBoard, tuple[tuple[int, int], ...]]:
    """One target's board (``target``), or every target's per model (None) with the
    recent targets and their attempt counts."""
    store = services.store
    board = await analytics.natory_board(store, target=target, limit=NATORY_ROWS)
    targets = await analytics.natory_targets(store) if target is None else ()
    return board, targets


def comparable(args: Sequence[str]) -> bool:
    """``/compare [benchmark]``: True when the words name nothing or one benchmark whose
    submissions carry a cost (the one comparison chart there is)."""
    if not args:
        return True
    if len(args) > 1:
        return False
    try:
        return "cost" in registry.get(args[0]).tag_fields
    except UnknownBenchmark:
        return False


async def natory_comparison(services: Services, limit: int = CHART_MODELS) -> NatoryBoard:
    """The comparison chart's rows: the best models' mean score, cost and latency, over
    valid non-trivial attempts (a model with only trivial ones is not on the chart)."""
    board = await analytics.natory_board(services.store, limit=limit)
    rows = tuple(row for row in board.rows if not row.trivial)
    return NatoryBoard(board.target, rows, len(rows))


async def turn_day(services: Services) -> None:
    """Move the boards' summaries of the last days to today: the day's first
    publication does it, and a server at start and just after midnight UTC for the days
    without one (every instance may; the store does it once)."""
    await services.store.roll_boards()


async def turn_days(services: Services) -> None:
    """:func:`turn_day` now and five seconds after every midnight UTC, until cancelled
    (a server without the bot's job queue: ``benchboard web``)."""
    while True:
        try:
            await turn_day(services)
        except Exception:  # the database may be away for a while: next night then
            log.exception("the day's turn failed")
        await asyncio.sleep(86_400 - time.time() % 86_400 + 5)

"""Leaderboards: which page a user asks for, the page itself, a user's history (the
challenge boards: :mod:`bot.core.challenges`)."""

from __future__ import annotations

import asyncio
import difflib
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from scoring import Mode, UnknownBenchmark, UnknownMode, parse_mode, registry
from storage import Board, BoardRow, analytics, normalise_model

from ..render.views import BoardPage
from ..render.views import BoardQuery as BoardQuery
from ..render.views import History as History
from . import board_intervals, trust
from .errors import UserError
from .services import Services

log = logging.getLogger(__name__)

#: Rows on one page of a board.
BOARD_PAGE = 10
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


def corrected_args(args: Sequence[str]) -> list[str] | None:
    """``/leaderboard``'s words as the names they stand for, each that is neither a
    benchmark nor a mode replaced by the name closest to it (a mistyped benchmark: its
    name); None when one has no close name. Every word returned is a name of
    ours, never the text as typed."""
    names = [*registry.names(), *(m.value for m in Mode)]
    corrected = []
    for word in args:
        try:
            benchmark, mode = board_args([word])
            corrected.append(mode or benchmark)
        except UnknownMode:
            close = difflib.get_close_matches(word.casefold(), names, n=1, cutoff=0.6)
            if not close:
                return None
            corrected.append(close[0])
    return corrected


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

    async def read(page: int) -> Board:
        return await store.leaderboard(
            benchmark.name,
            chat_id=chat_id if query.scope == "c" else None,
            user_id=user_id if query.scope == "u" else None,
            mode=query.mode,
            days=query.days or None,
            limit=BOARD_PAGE,
            offset=page * BOARD_PAGE,
        )

    board = await read(query.page)
    last = max(0, -(-board.total // BOARD_PAGE) - 1)
    if query.page > last:
        # an old message's page, gone since (results withdrawn or hidden): the last
        # page, not an empty one that says nothing is published
        query = replace(query, page=last)
        board = await read(last)
    records: Mapping[int, Mapping[str, Any]] = {}
    if benchmark.board_columns:  # figures of the record beside the score
        ids = [r.submission_id for r in board.rows if r.submission_id is not None]
        records = await analytics.records(store, ids)
    reported, apart = place_references(board)
    pages = max(1, -(-board.total // BOARD_PAGE))
    lines = [(r.submission_id, r.best, r.runs, r.mode) for r in board.rows if r.submission_id]
    found = await board_intervals.line_intervals(
        services,
        benchmark,
        lines,
        chat_id=chat_id if query.scope == "c" else None,
        user_id=user_id if query.scope == "u" else None,
        days=query.days,
    )
    return BoardPage(query, benchmark, board, pages, reported, apart, records, found)


#: Submissions on one page of ``/me``.
HISTORY_PAGE = 10


async def history(services: Services, user_id: int, page: int = 0) -> History:
    """``/me``: one page of the user's submissions, and their bests on page 1."""
    store = services.store
    total = await store.count_history(user_id)
    pages = max(1, -(-total // HISTORY_PAGE))
    page = min(max(page, 0), pages - 1)
    subs = await store.history(user_id, limit=HISTORY_PAGE, offset=page * HISTORY_PAGE)
    bests: list[tuple[str, BoardRow]] = []
    if page == 0:  # the best three of each benchmark the user has published on
        for benchmark in registry.all_benchmarks():
            rows = (await store.leaderboard(benchmark.name, user_id=user_id, limit=3)).rows
            bests += [(benchmark.name, row) for row in rows]
    held = frozenset([sub.id for sub in subs if await trust.is_held(services, sub)])
    return History(tuple(subs), total, page, pages, tuple(bests), held)


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

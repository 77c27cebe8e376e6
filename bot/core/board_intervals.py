"""The 95 % intervals of a board page's lines, read from the store (the arithmetic is
:mod:`bot.core.intervals`): each line's best run's standard error as kept with it, and
the spread of the runs of a line with several. The chat's boards and images and the web
boards read them here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scoring import Benchmark, registry
from storage import web_rows
from storage.web_rows import RowInfo

from . import intervals
from .intervals import Interval
from .services import Services


def kept_se(name: str, record: Any) -> float:
    """The standard error to keep for a stored record: none (``NO_SE``) for one its
    benchmark cannot read back (an unknown benchmark, a record of another shape)."""
    if name not in registry.names():
        return intervals.NO_SE
    owner = registry.get(name)
    try:
        found = owner.result_from_record(record)
    except (LookupError, TypeError, ValueError, AttributeError):
        return intervals.NO_SE
    return intervals.result_se(owner, found)


async def line_intervals(
    services: Services,
    benchmark: Benchmark,
    lines: Sequence[tuple[int, float, int, str]],
    info: Mapping[int, RowInfo] | None = None,
    *,
    chat_id: int | None = None,
    user_id: int | None = None,
    days: int = 0,
    verified: bool = False,
    provider: str | None = None,
) -> dict[int, Interval | None]:
    """The 95 % interval of each line (best submission id, score, runs, mode) of a board
    page with these filters, by its best submission (``bot.core.intervals``): the best
    run's standard error over its questions as kept (computed from its record and kept,
    the first time a board shows a row recorded before it was kept or re-scored since),
    and the spread of the runs of each line with several, read for the page's lines
    only. A line of one run whose benchmark gives its score's own interval (a share's
    Wilson interval, from its record's figures: ``Benchmark.web_cells``) has that one.
    ``info``: the rows' details when already read (with ``Benchmark.web_paths``)."""
    store = services.store
    if info is None:
        info = await web_rows.row_info(store, [sid for sid, *_ in lines], benchmark.web_paths)
    missing = [sid for sid, *_ in lines if sid in info and info[sid].score_se is None]
    computed: dict[int, float] = {}
    if missing:
        for sid, (name, record) in (await web_rows.records(store, missing)).items():
            computed[sid] = kept_se(name, record)
        await web_rows.save_spreads(store, computed)
    several = {
        sid: (info[sid].model_norm or "", mode)
        for sid, _, runs, mode in lines
        if runs >= 2 and sid in info
    }
    spreads = await web_rows.run_spreads(
        store,
        benchmark.name,
        sorted(set(several.values())),
        chat_id=chat_id,
        user_id=user_id,
        days=days or None,
        verified=verified,
        provider=provider,
    )
    out: dict[int, Interval | None] = {}
    for sid, score, runs, _ in lines:
        row = info.get(sid)
        own = own_interval(benchmark, score, row) if runs < 2 else None
        if own is not None:
            out[sid] = own
            continue
        se = computed.get(sid, row.score_se if row is not None else None)
        spread = None
        if sid in several and several[sid] in spreads:
            spread = intervals.run_spread(*spreads[several[sid]])
        out[sid] = intervals.line_interval(score, se, runs, spread)
    return out


def own_interval(benchmark: Benchmark, score: float, row: RowInfo | None) -> Interval | None:
    """The interval a benchmark gives a single result's score itself (its ``ci_low`` and
    ``ci_high`` figures, as ``Benchmark.web_cells`` gives them: a share's Wilson interval,
    right where a share is 0 or 1 and the interval over questions would be a point), or
    None."""
    return None if row is None else interval_in(benchmark.web_cells(score, row.values)[1])


def interval_in(values: Mapping[str, object]) -> Interval | None:
    """The interval a row's figures carry (``ci_low``, ``ci_high``), or None."""
    low, high = values.get("ci_low"), values.get("ci_high")
    if isinstance(low, int | float) and isinstance(high, int | float):
        return float(low), float(high)
    return None

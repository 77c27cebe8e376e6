"""Board queries beside the plain boards: a challenge benchmark's targets and models, the
records of board rows.

Functions over a :class:`Store`, through its connection seam (``store.db``: each query
one trip to the database thread). A challenge's fields are the result record's (JSON,
``json_extract``) and ``submissions.extra``'s, where the caller's
:class:`~storage.challenge_lines.ChallengeFields` say.

What counts on a board is ``board_source`` (published, and whatever moderation adds),
joined back to ``submissions`` for the JSON columns. ``challenge_previous`` counts every
stored valid submission for a target (an "earlier stored submission").

The challenge board of a target or over all targets, whole or of one mode, reads its
summary (``challenge_lines``, :mod:`storage.challenge_lines`): a few thousand lines, not
the benchmark's rows; over the last days, the day lines (``challenge_days``) and the rows
of the window's first day. Narrowed to a chat or verified results — or while the
summaries are stale (a bulk import or a re-score under way) — it scans the benchmark's
published rows (``json_extract`` per row), as ``challenge_targets`` does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from . import challenge_lines
from .challenge_lines import ALL_TARGETS, ChallengeFields
from .db import Conn
from .dialect import Dialect
from .errors import InvalidData
from .store import Store
from .values import MS_PER_DAY

#: SQLite's default limit on ``?`` parameters is well above this; pages are small anyway.
_MAX_IDS = 500


@dataclass(frozen=True, slots=True)
class ChallengeRow:
    """One (model, mode) on a challenge board.

    Only valid attempts count (an answer not equal to the target is never ranked, even
    one published before that rule). ``best`` and ``mean`` are over its valid
    non-trivial attempts; ``trivial`` is True when it has none (only the target written
    out, zeroed by the triviality rule: shown at 0, ranked below every row with a
    non-trivial attempt). ``valid`` counts the non-trivial attempts, ``attempts`` all.
    ``best_expression`` is the shown answer of the best attempt (non-trivial
    first, earliest among equals) and ``best_id`` its submission. ``targets`` counts
    distinct targets;
    ``mean_cost`` (USD) and ``mean_latency`` (seconds) average the attempts that gave
    them (None when none did).
    """

    rank: int
    model: str
    mode: str
    best: float
    mean: float
    attempts: int
    valid: int
    targets: int
    mean_cost: float | None
    mean_latency: float | None
    best_id: int
    best_expression: str
    trivial: bool = False
    #: the group's first and last attempt (UTC, milliseconds since the epoch)
    first_ms: int | None = None
    last_ms: int | None = None


@dataclass(frozen=True, slots=True)
class ChallengeBoard:
    """A challenge board: for one target (``target``) or over all targets (None)."""

    target: int | None
    rows: tuple[ChallengeRow, ...]
    total: int


def _challenge_rows(
    conn: Conn,
    benchmark: str,
    sql: str,
    params: list[Any],
    summary: Callable[[Conn, int], list[Any]] | None = None,
) -> list[Any] | None:
    """The rows of a challenge query whose first parameter is the benchmark's id (None:
    no such benchmark yet), on the database thread. ``summary``: the same rows read from
    the summaries (given the benchmark's id), used unless they are stale."""
    found = conn.execute(
        "SELECT id, boards_stale FROM benchmarks WHERE name = ?", (benchmark,)
    ).fetchone()
    if found is None:
        return None
    if summary is not None and not found[1]:
        return summary(conn, found[0])
    return conn.execute(sql, [found[0], *params]).fetchall()


def _check_target(target: int) -> int:
    if isinstance(target, bool) or not isinstance(target, int) or target < 1:
        raise InvalidData(f"the target must be a positive whole number, not {target!r}")
    return target


async def challenge_previous(
    store: Store,
    benchmark: str,
    fields: ChallengeFields,
    target: int,
    *,
    before_id: int | None = None,
) -> tuple[str, ...]:
    """The distinct shown answers of every stored valid submission of a challenge
    ``benchmark`` for ``target`` (any visibility), oldest first — what its scorer is told
    came before. ``before_id`` keeps only submissions stored before that one (a
    re-score's view)."""
    d = store.db.dialect
    sql = f"""
        SELECT {d.json_text("s.result", fields.shown)} AS shown, MIN(s.id) AS first_id
        FROM submissions AS s JOIN benchmarks AS b ON b.id = s.benchmark_id
        WHERE b.name = ? AND {d.json_number("s.result", fields.target)} = ?
          AND {d.json_true("s.result", fields.valid)}"""
    params: list[Any] = [benchmark, _check_target(target)]
    if before_id is not None:
        sql += " AND s.id < ?"
        params.append(before_id)
    sql += " GROUP BY 1 ORDER BY first_id"
    async with store.db.single() as s:
        rows = await s.all(sql, params)
    return tuple(str(r[0]) for r in rows if r[0])


def _board_sql(d: Dialect, f: ChallengeFields) -> str:
    """The challenge board query in ``d``'s spelling ({where} and {rank_by} still to
    fill)."""
    return _BOARD.format(
        target=d.json_number("s.result", f.target),
        simplified=d.json_text("s.result", f.shown),
        cost=d.json_number("s.extra", f.cost),
        latency=d.json_number("s.extra", f.latency),
        valid=d.json_true("s.result", f.valid),
        trivial=d.digits_only("simplified") if f.trivial == "digits" else "0",
        where="{where}",
        rank_by="{rank_by}",
    )


_BOARD = """
WITH src AS MATERIALIZED (
    SELECT s.id, s.model_norm, s.mode, s.score, s.created_at, s.verified,
           {target} AS target,
           {simplified} AS simplified,
           {cost} AS cost,
           {latency} AS latency
    FROM board_source AS v JOIN submissions AS s ON s.id = v.id
    WHERE v.benchmark_id = ? AND {valid} {where}),
attempts AS (
    SELECT src.*, {trivial} AS trivial
    FROM src),
groups AS (
    SELECT model_norm, mode,
           MAX(CASE WHEN trivial = 1 THEN NULL ELSE score END) AS best,
           AVG(CASE WHEN trivial = 1 THEN NULL ELSE score END) AS mean,
           COUNT(*) AS attempts, SUM(1 - trivial) AS valid, COUNT(DISTINCT target) AS targets,
           AVG(cost) AS mean_cost, AVG(latency) AS mean_latency,
           MIN(created_at) AS first_ms, MAX(created_at) AS last_ms
    FROM attempts GROUP BY model_norm, mode),
tops AS (
    SELECT model_norm, mode, id, simplified,
           ROW_NUMBER() OVER (PARTITION BY model_norm, mode
                              ORDER BY trivial, score DESC, created_at, id) AS rn
    FROM attempts),
ranked AS (
    SELECT g.*, t.id AS best_id, t.simplified,
           RANK() OVER (ORDER BY {rank_by}) AS rnk, COUNT(*) OVER () AS total
    FROM groups AS g JOIN tops AS t USING (model_norm, mode) WHERE t.rn = 1)
SELECT r.rnk, s.model, r.mode, r.best, r.mean, r.attempts, r.valid, r.targets, r.mean_cost,
       r.mean_latency, r.best_id, r.simplified, r.total, r.first_ms, r.last_ms
FROM ranked AS r JOIN submissions AS s ON s.id = r.best_id
ORDER BY {rank_by}, r.best_id
LIMIT ? OFFSET ?
"""

#: The board over the last days: the day lines (``challenge_days`` as ``l``, matching
#: ``{days}``) and the attempts of the window's first day (``challenge_attempts`` matching
#: ``{first}``), each attempt a line of its own. Every (model, mode) is scored
#: (``groups``) from the attempts and ``{scored}`` (the day lines, or the span lines of
#: the window's days); the page's first and last groups are found by sorting on the rank
#: keys (``{rank_by}``, on the two scores ``{a}``, ``{b}``: :func:`_rank_by`), and the
#: rest of a line — counts, means, the top attempt — is summed only for the groups
#: between them and those tied with them (``near``, which the top attempt's id orders),
#: with the number of groups before them (``before``: ranks follow as in
#: :func:`_ranked`). Filled: {first}, {fields} (an attempt's fields from its submission
#: ``s``), {scored}, {days}, {rank_by}, {a}, {b}, {line}, {attempt_line}, and
#: {g_ahead_h}, {t_ahead_g}, {o_ahead_h} (:func:`_ahead`). Parameters:
#: the first day's, the scored lines', the page's offset and its last place's (offset +
#: limit - 1), the days'.
_WINDOW = """
WITH a AS (
    SELECT x.id, x.model_norm, x.mode, x.score, x.trivial, x.created_at, x.target
    FROM challenge_attempts AS x WHERE {first}),
lines AS (
    SELECT l.model_norm, l.mode, l.valid, l.score_sum, l.best FROM {scored}
    UNION ALL
    SELECT model_norm, mode, 1 - trivial, CASE WHEN trivial = 1 THEN 0.0 ELSE score END,
           CASE WHEN trivial = 1 THEN NULL ELSE score END
    FROM a),
groups AS MATERIALIZED (
    SELECT model_norm, mode, MAX(best) AS best,
           SUM(score_sum) / NULLIF(SUM(valid), 0) AS mean
    FROM lines GROUP BY model_norm, mode),
head AS (SELECT {a}, {b} FROM groups ORDER BY {rank_by} LIMIT 1 OFFSET ?),
tail AS (SELECT {a}, {b} FROM groups ORDER BY {rank_by} LIMIT 1 OFFSET ?),
near AS MATERIALIZED (
    SELECT g.* FROM groups AS g, head AS h
    WHERE NOT ({g_ahead_h}) AND NOT EXISTS (SELECT 1 FROM tail AS t WHERE {t_ahead_g})),
mine AS MATERIALIZED (
    SELECT {line} FROM challenge_days AS l
    WHERE {days} AND (l.model_norm, l.mode) IN (SELECT model_norm, mode FROM near)
    UNION ALL
    SELECT {attempt_line} FROM (
        SELECT a.*, {fields} FROM a JOIN submissions AS s ON s.id = a.id
        WHERE (a.model_norm, a.mode) IN (SELECT model_norm, mode FROM near)) AS a),
stats AS (
    SELECT model_norm, mode, SUM(attempts) AS attempts, SUM(valid) AS valid,
           COUNT(DISTINCT NULLIF(target, 0)) AS targets,
           SUM(cost_sum) / NULLIF(SUM(cost_n), 0) AS mean_cost,
           SUM(latency_sum) / NULLIF(SUM(latency_n), 0) AS mean_latency,
           MIN(first_at) AS first_ms, MAX(last_at) AS last_ms
    FROM mine GROUP BY model_norm, mode),
tops AS (
    SELECT model_norm, mode, top_id AS id, top_simplified AS simplified,
           ROW_NUMBER() OVER (PARTITION BY model_norm, mode
                              ORDER BY top_trivial, top_score DESC, top_at, top_id) AS rn
    FROM mine)
SELECT (SELECT COUNT(*) FROM groups AS o, head AS h WHERE {o_ahead_h}) AS before,
       s.model, n.mode, n.best, n.mean, st.attempts, st.valid, st.targets, st.mean_cost,
       st.mean_latency, t.id, t.simplified, (SELECT COUNT(*) FROM groups) AS total,
       st.first_ms, st.last_ms
FROM near AS n
JOIN stats AS st ON st.model_norm = n.model_norm AND st.mode = n.mode
JOIN tops AS t ON t.model_norm = n.model_norm AND t.mode = n.mode AND t.rn = 1
JOIN submissions AS s ON s.id = t.id
ORDER BY {rank_by}, t.id
"""

#: The board from the summary (:mod:`storage.challenge_lines`): a target's lines (or the
#: lines over every target), already one per (model, mode). The page is sorted by the
#: rank keys (``{rank_by}``: its two scores, :func:`_rank_by`) and its first row's rank
#: counted (the lines strictly before it, ``before``); the other
#: ranks follow from the page's order (:func:`_ranked`) - a window function over every
#: line costs more than the rest of the page. Filled: {mode}, {rank_by}, {o_ahead_p}
#: (:func:`_ahead`).
_SUMMARY = """
WITH l AS (
    SELECT model_norm, mode, best, score_sum / NULLIF(valid, 0) AS mean, attempts, valid,
           targets, cost_sum / NULLIF(cost_n, 0) AS mean_cost,
           latency_sum / NULLIF(latency_n, 0) AS mean_latency, top_id AS best_id,
           top_simplified AS simplified, first_at AS first_ms, last_at AS last_ms
    FROM challenge_lines WHERE benchmark_id = ? AND target = ? {mode}),
page AS (
    SELECT * FROM l ORDER BY {rank_by}, best_id LIMIT ? OFFSET ?),
head AS (
    SELECT * FROM page ORDER BY {rank_by}, best_id LIMIT 1)
SELECT (SELECT COUNT(*) FROM l AS o, head AS p WHERE {o_ahead_p}) AS before,
       s.model, r.mode, r.best, r.mean, r.attempts, r.valid, r.targets, r.mean_cost,
       r.mean_latency, r.best_id, r.simplified, (SELECT COUNT(*) FROM l) AS total,
       r.first_ms, r.last_ms
FROM page AS r JOIN submissions AS s ON s.id = r.best_id
ORDER BY {rank_by}, r.best_id
"""


def _rank_by(keys: tuple[str, str]) -> str:
    """SQL: the order of rank on two scores (first, then second; NULL last)."""
    a, b = keys
    return f"{a} IS NULL, {a} DESC, {b} DESC"


def _ahead(x: str, y: str, keys: tuple[str, str]) -> str:
    """SQL: row ``x`` ranks strictly ahead of row ``y`` on the two scores ``keys``
    (first, then second; both NULL or neither, NULL last), as ``RANK()`` orders them."""
    a, b = keys
    return (
        f"{x}.{a} IS NOT NULL AND ({y}.{a} IS NULL OR {x}.{a} > {y}.{a}"
        f" OR ({x}.{a} = {y}.{a} AND {x}.{b} > {y}.{b}))"
    )


def _ranked(rows: list[Any], offset: int) -> list[Any]:
    """The summary's page with each row's rank first (as ``RANK()`` numbers them): the
    first row's from the lines before it, then equal scores share a rank and a row after
    a different one ranks by its place."""
    out: list[Any] = []
    for i, r in enumerate(rows):
        if i == 0:
            rank = int(r[0]) + 1
        elif (r[3], r[4]) != (rows[i - 1][3], rows[i - 1][4]):
            rank = offset + i + 1
        out.append((rank, *tuple(r)[1:]))
    return out


def _window_reader(
    d: Dialect,
    f: ChallengeFields,
    since_ms: int,
    *,
    target: int | None,
    mode: str | None,
    keys: tuple[str, str],
    limit: int,
    offset: int,
) -> Callable[[Conn, int], list[Any]]:
    """The reader of a challenge board over the attempts made at ``since_ms`` or later
    (ranked by the scores ``keys``, first and second): the whole days after the first
    from the span lines or the day lines, the first day's rest from its rows."""
    a, b = keys
    rank_by = _rank_by(keys)
    day = since_ms // MS_PER_DAY
    first_where = "x.benchmark_id = ? AND x.created_at >= ? AND x.created_at < ?"
    day_where = "l.benchmark_id = ? AND l.day > ?"
    narrow: list[Any] = []
    if target is not None:
        first_where += " AND x.target = ?"
        day_where += " AND l.target = ?"
        narrow.append(target)
    if mode is not None:
        first_where += " AND x.mode = ?"
        day_where += " AND l.mode = ?"
        narrow.append(mode)

    def window(scored: str) -> str:
        return _WINDOW.format(
            first=first_where,
            fields=challenge_lines.attempt_fields(d, f),
            scored=scored,
            days=day_where,
            rank_by=rank_by,
            a=a,
            b=b,
            g_ahead_h=_ahead("g", "h", keys),
            t_ahead_g=_ahead("t", "g", keys),
            o_ahead_h=_ahead("o", "h", keys),
            line=", ".join(f"l.{c}" for c in challenge_lines.LINE),
            attempt_line=challenge_lines.ATTEMPT_LINE,
        )

    def summary(conn: Conn, bench_id: int) -> list[Any]:
        first = [bench_id, since_ms, (day + 1) * MS_PER_DAY, *narrow]
        days = [bench_id, day, *narrow]
        # the window's whole days are a span's when it starts the day after this one
        span = None
        if target is None:
            span = conn.execute(
                "SELECT span FROM challenge_span_days WHERE benchmark_id = ? AND from_day = ?",
                (bench_id, day + 1),
            ).fetchone()
        if span is None:
            sql, scored = window(f"challenge_days AS l WHERE {day_where}"), days
        else:
            spans = "l.benchmark_id = ? AND l.span = ?" + (" AND l.mode = ?" if mode else "")
            sql, scored = (
                window(f"challenge_spans AS l WHERE {spans}"),
                [bench_id, span[0], *narrow],
            )
        near = conn.execute(sql, [*first, *scored, offset, offset + limit - 1, *days])
        rows = near.fetchall()
        if not rows:
            return []
        before = int(rows[0][0])
        return _ranked(rows, before)[offset - before : offset - before + limit]

    return summary


async def challenge_board(
    store: Store,
    benchmark: str,
    fields: ChallengeFields,
    *,
    target: int | None = None,
    chat_id: int | None = None,
    mode: str | None = None,
    since_ms: int | None = None,
    verified: bool = False,
    limit: int = 20,
    offset: int = 0,
    benchboard: bool = False,
) -> ChallengeBoard:
    """Published attempts at a challenge ``benchmark`` (``fields``: where they keep it)
    per (model, mode).

    With ``target``: that target's board, ranked by best score (then mean). Without: every
    target, ranked by mean score (then best) — the per-model comparison. Valid attempts
    only; trivial ones rank below the rest (:class:`ChallengeRow`). ``chat_id`` narrows to
    one chat's submissions; ``mode`` to one mode, ``since_ms`` to attempts made then or
    later, ``verified`` to results an admin verified, ``benchboard`` to runs Benchboard
    made (the web boards' filters; they are verified too).
    """
    verified = verified or benchboard
    if limit < 1 or offset < 0:
        raise InvalidData("limit must be positive and offset not negative")
    where = ""
    params: list[Any] = []
    d = store.db.dialect
    if target is not None:
        where += f" AND {d.json_number('s.result', fields.target)} = ?"
        params.append(_check_target(target))
    if chat_id is not None:
        where += " AND v.chat_id = ?"
        params.append(chat_id)
    if mode is not None:
        where += " AND v.mode = ?"
        params.append(mode)
    if since_ms is not None:
        where += " AND v.created_at >= ?"
        params.append(int(since_ms))
    # verified-only reads only those rows (their ids from the partial index of verified
    # published rows), not every attempt with its JSON
    if verified:
        where += (
            " AND s.verified = 1 AND v.id IN (SELECT id FROM submissions"
            " WHERE benchmark_id = (SELECT id FROM benchmarks WHERE name = ?)"
            " AND visibility = 'published' AND verified = 1)"
        )
        params.append(benchmark)
    if benchboard:
        where += " AND s.origin = 'benchboard'"
    # Trivial attempts (the target written out, zeroed) count for no score: a row with
    # nothing else ranks below every row with a valid non-trivial attempt. A target's
    # board ranks by best score, then mean (a, b); the board over all targets the other
    # way round.
    a, b = ("mean", "best") if target is None else ("best", "mean")
    rank_by = _rank_by((a, b))
    sql = _board_sql(d, fields).format(where=where, rank_by=rank_by)
    summary: Callable[[Conn, int], list[Any]] | None = None
    if chat_id is None and since_ms is None and not verified:
        # the summary has a line per target and one over all targets, per (model, mode)
        line = ALL_TARGETS if target is None else target
        whole = _SUMMARY.format(
            mode="" if mode is None else "AND mode = ?",
            rank_by=rank_by,
            o_ahead_p=_ahead("o", "p", (a, b)),
        )
        whole_params = [line, *([] if mode is None else [mode]), limit, offset]

        def summary(conn: Conn, bench_id: int) -> list[Any]:
            rows = conn.execute(whole, [bench_id, *whole_params]).fetchall()
            return _ranked(rows, offset)

    elif chat_id is None and since_ms is not None and not verified:
        summary = _window_reader(
            d,
            fields,
            int(since_ms),
            target=target,
            mode=mode,
            keys=(a, b),
            limit=limit,
            offset=offset,
        )
    rows = await store.db.run(
        lambda conn: _challenge_rows(conn, benchmark, sql, [*params, limit, offset], summary)
    )
    if rows is None:
        return ChallengeBoard(target, (), 0)
    board_rows = tuple(
        ChallengeRow(
            rank=int(r[0]),
            model=str(r[1]),
            mode=str(r[2]),
            best=float(r[3] or 0),
            mean=float(r[4] or 0),
            attempts=int(r[5]),
            valid=int(r[6] or 0),
            targets=int(r[7]),
            mean_cost=None if r[8] is None else float(r[8]),
            mean_latency=None if r[9] is None else float(r[9]),
            best_id=int(r[10]),
            best_expression=str(r[11] or ""),
            trivial=r[3] is None,
            first_ms=r[13],
            last_ms=r[14],
        )
        for r in rows
    )
    total = int(rows[0][12]) if rows else 0
    return ChallengeBoard(target, board_rows, total)


async def challenge_targets(
    store: Store, benchmark: str, fields: ChallengeFields, *, limit: int = 10
) -> tuple[tuple[int, int], ...]:
    """The targets of a challenge ``benchmark`` with published attempts, most recent
    first: (target, attempts)."""
    d = store.db.dialect
    sql = f"""
        SELECT {d.json_number("s.result", fields.target)} AS target, COUNT(*),
               MAX(s.created_at) AS last
        FROM board_source AS v JOIN submissions AS s ON s.id = v.id
        WHERE v.benchmark_id = ? AND {d.json_true("s.result", fields.valid)}
        GROUP BY 1 ORDER BY last DESC LIMIT ?"""
    rows = await store.db.run(lambda conn: _challenge_rows(conn, benchmark, sql, [limit]))
    if rows is None:
        return ()
    return tuple((int(r[0]), int(r[1])) for r in rows if r[0] is not None)


async def records(store: Store, submission_ids: Iterable[int]) -> Mapping[int, Mapping[str, Any]]:
    """The result records of the given submissions (one query), by id; unknown ids are
    left out. For board rows that show more of the best submission than its score."""
    ids: Sequence[int] = sorted({int(i) for i in submission_ids})
    if not ids:
        return {}
    if len(ids) > _MAX_IDS:
        raise InvalidData(f"at most {_MAX_IDS} submissions at once")
    marks = ",".join("?" * len(ids))
    async with store.db.single() as s:
        rows = await s.all(f"SELECT id, result FROM submissions WHERE id IN ({marks})", ids)
    return {int(r[0]): MappingProxyType(json.loads(r[1])) for r in rows}

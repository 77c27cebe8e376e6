"""How a board page is read, by the board it is (see ``BoardStore.leaderboard``).

Functions of the connection, run together on the database thread in one trip
(``Database.run``): the global all-time board reads the summary (:func:`summary_page`),
the other global boards walk the rows in rank order (:func:`walk_page`), a chat's or a
user's board groups its slice (:func:`slice_page`). A page's rows are tuples of
(rank, model, mode, best, runs, score sum, best id, owner, first at, last at, verified).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from .db import Conn
from .values import MODES, MS_PER_DAY, Row


def fetch(conn: Conn, sql: str, params: Sequence[Any] = ()) -> list[Row]:
    """Every row of a statement (on the database thread: see ``Database.run``)."""
    return conn.execute(sql, params).fetchall()


def fetch_one(conn: Conn, sql: str, params: Sequence[Any] = ()) -> Row | None:
    """The first row of a statement (then closed), on the connection's thread."""
    cursor = conn.execute(sql, params)
    try:
        return cast(Row | None, cursor.fetchone())
    finally:
        cursor.close()


#: The verified mark of a row on the board of the chat it was published from: a bot
#: admin's (every board) or that group's admin's (``group_verified``, its board only).
_IN_ITS_CHAT = (
    "CASE WHEN origin = 'benchboard' THEN 2 WHEN verified = 1 OR group_verified = 1 THEN 1"
    " ELSE 0 END"
)
#: A row's mark as a number: 2 run by Benchboard, 1 verified, 0 self-reported.
MARK = "CASE WHEN origin = 'benchboard' THEN 2 ELSE verified END"


def _shown(conn: Conn, ids: Sequence[int], *, in_chat: bool = False) -> dict[int, Row]:
    """The model name (as typed), owner and verified mark of board rows, by id (on a
    chat's board, ``in_chat``: its group admins' mark too)."""
    mark = _IN_ITS_CHAT if in_chat else MARK
    return {
        int(r[0]): r[1:]
        for r in fetch(
            conn,
            f"SELECT id, model, user_id, {mark} FROM submissions WHERE id IN "
            f"({', '.join('?' * len(ids))})",
            ids,
        )
    }


#: Board rows are grouped by UTC week (``created_at / 604800000``) in
#: ``submissions_board_week``; a window touching more weeks than this walks the rank index.
_WEEK_MS = 7 * MS_PER_DAY
_MAX_WEEKS = 8
#: The newest week with board rows of the benchmark ``b`` (one probe of the week index).
NEWEST_WEEK = """(SELECT created_at / 604800000 FROM board_source WHERE benchmark_id = b.id
                   ORDER BY created_at / 604800000 DESC LIMIT 1)"""
#: The groups of the benchmark ``b`` with a board row at or after a time (params: the
#: time, the mode or NULL twice): counted from the summary by their last row.
WINDOW_GROUPS = """(SELECT COUNT(*) FROM board_totals AS t WHERE t.benchmark_id = b.id
                     AND t.last_at >= ? AND (CAST(? AS TEXT) IS NULL OR t.mode = ?))"""


#: Stands in a walk's parameters for the number of rows it reads (see ``Walk.sql``).
WALK_LENGTH = object()

#: A board group's runs, score sum, first and last time in a window.
_GroupStats = tuple[int, float, int, int]


@dataclass(frozen=True, slots=True)
class Walk:
    """A global board page read by rank walk: which rows, and the statement that reads
    them in rank order (its last parameter: how many)."""

    bench_id: int
    mode: str | None
    days: int | None
    cutoff: int | None
    newest_week: int | None
    limit: int
    offset: int
    #: one statement for every group's window figures (``run_stats``): on PostgreSQL each
    #: statement is a round trip; on SQLite one statement per group is cheaper
    batched: bool = False

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
            params: list[Any] = [p for w in weeks for p in (self.bench_id, w, self.cutoff, *extra)]
        else:
            where, where_params = self.where()
            if self.mode is not None:
                arms, params = [f"{columns} WHERE {where}"], where_params
            else:  # the rank index is by mode: merge the four modes' walks (no sorting)
                arms = [f"{columns} WHERE {where} AND mode = ?"] * len(MODES)
                params = [p for m in MODES for p in (*where_params, m)]
        if self.batched and len(arms) > 1:
            # PostgreSQL appends the arms and sorts them all unless each arm stops at the
            # walk's length itself (read in its index's order)
            limited = [
                f"SELECT * FROM ({arm} ORDER BY score DESC, created_at, id LIMIT ?) AS a{i}"
                for i, arm in enumerate(arms)
            ]
            per_arm = len(params) // len(arms)
            params = [
                p
                for i in range(len(arms))
                for p in (*params[i * per_arm : (i + 1) * per_arm], WALK_LENGTH)
            ]
            arms = limited
        return " UNION ALL ".join(arms) + " ORDER BY 3 DESC, 4, 5 LIMIT ?", params


def slice_page(
    conn: Conn,
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
    found = fetch(
        conn,
        f"SELECT model_norm, mode, score, created_at, id, run_key FROM board_source WHERE {where}",
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
    # a chat's board rows were all published from that chat
    shown = _shown(conn, [g[0][4] for g in page], in_chat=chat_id is not None)
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


def summary_page(
    conn: Conn, bench_id: int, mode: str | None, limit: int, offset: int
) -> tuple[list[Row], int]:
    """A page of the global all-time board from ``board_totals``, walking its rank
    index (no sort); ranks are counted, not computed over the whole board. The page,
    the board's size and the lines above the page's first best come in one statement
    (one trip to the database thread)."""
    where, params = "t.benchmark_id = ?", list[Any]([bench_id])
    if mode is not None:
        where += " AND t.mode = ?"
        params.append(mode)
    page = fetch(
        conn,
        f"""WITH page AS MATERIALIZED (
                SELECT s.model, t.mode, t.best, t.runs, t.score_sum, t.best_id, s.user_id,
                       t.first_at, t.last_at,
                       CASE WHEN s.origin = 'benchboard' THEN 2 ELSE s.verified END, t.best_at
                FROM board_totals AS t JOIN submissions AS s ON s.id = t.best_id
                WHERE {where} ORDER BY t.best DESC, t.best_at, t.best_id LIMIT ? OFFSET ?)
            SELECT p.*, (SELECT COUNT(*) FROM board_totals AS t WHERE {where}),
                   (SELECT COUNT(*) FROM board_totals AS t
                    WHERE {where} AND t.best > (SELECT MAX(best) FROM page))
            FROM page AS p ORDER BY p.best DESC, p.best_at, p.best_id""",
        [*params, limit, offset, *params, *params],
    )
    if not page:
        found = fetch_one(conn, f"SELECT COUNT(*) FROM board_totals AS t WHERE {where}", params)
        return [], int(found[0]) if found else 0
    total, rank = int(page[0][11]), 1 + int(page[0][12])
    rows: list[Row] = []
    for i, row in enumerate(page):
        if i and row[2] != page[i - 1][2]:
            rank = offset + i + 1
        rows.append((rank, *row[:10]))
    return rows, total


def walk_page(
    conn: Conn, walk: Walk, in_window: int | None, sizes: dict[tuple[Any, ...], int]
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
    window from the run summaries (``run_stats``; from the rows while the summary is
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
    size = sizes.get(walk.shape, max(64, 2 * need))
    while True:
        hits = fetch(conn, sql, [*(size if p is WALK_LENGTH else p for p in params), size])
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
    if len(sizes) > 1000:
        sizes.clear()
    sizes[walk.shape] = max(64, used + used // 4 + 16)
    if len(found) < need:
        total = len(found)
    elif in_window is not None:
        total = in_window
    else:
        where, where_params = walk.where()
        counted = fetch_one(
            conn,
            f"SELECT COUNT(*) FROM (SELECT DISTINCT model_norm, mode FROM board_source "
            f"WHERE {where}) AS d",
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
        stats = run_stats(conn, walk.bench_id, groups, walk.cutoff, batched=walk.batched)
    else:
        stats = window_stats(conn, walk.bench_id, groups, walk.cutoff)
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


def run_stats(
    conn: Conn,
    bench_id: int,
    groups: list[tuple[str, str]],
    cutoff: int,
    *,
    batched: bool = False,
) -> dict[tuple[str, str], _GroupStats]:
    """What :func:`window_stats` computes, from the run summaries (which must be
    fresh). A run is in the window when its last row is: the window's runs are those
    of its whole days (``board_days``) plus those of its first day after ``cutoff``
    (``board_runs``), each counting its best score — unless its scores differ and it
    began before the window: then the best of its rows inside the window is looked
    up. The first time is the group's first row in the window (one index probe).
    One statement per group, a few index probes each (on the database thread, a
    statement costs no trip; one UNION ALL of every group's statement was slower)."""
    group = "benchmark_id = ? AND model_norm = ? AND mode = ?"
    day = cutoff // MS_PER_DAY
    sql = f"""SELECT COALESCE(SUM(runs), 0), COALESCE(SUM(total), 0.0),
                     COALESCE(SUM(mixed), 0),
                     (SELECT last_at FROM board_runs WHERE {group}
                      ORDER BY last_at DESC LIMIT 1),
                     (SELECT created_at FROM board_source WHERE {group}
                      AND created_at >= ? ORDER BY created_at LIMIT 1)
              FROM (SELECT runs, score_sum AS total, mixed FROM board_days
                    WHERE {group} AND day > ?
                    UNION ALL
                    SELECT 1, best, CASE WHEN low < best THEN 1 ELSE 0 END FROM board_runs
                    WHERE {group} AND last_at >= ? AND last_at < ?) AS w"""
    fix_sql = f"""SELECT r.best, (SELECT MAX(score) FROM board_source WHERE {group}
                                 AND fingerprint = r.run_key AND created_at >= ?)
                  FROM board_runs AS r WHERE r.benchmark_id = ? AND r.model_norm = ?
                  AND r.mode = ? AND r.last_at >= ? AND r.first_at < ? AND r.low < r.best"""
    out: dict[tuple[str, str], _GroupStats] = {}
    if batched:
        found = _run_stats_at_once(conn, bench_id, groups, cutoff)
    for norm, mode in groups:
        key = (bench_id, norm, mode)
        if batched:
            runs, total, mixed, last_at, first_at = found[(norm, mode)]
        else:
            [(runs, total, mixed, last_at, first_at)] = fetch(
                conn,
                sql,
                [*key, *key, cutoff, *key, day, *key, cutoff, (day + 1) * MS_PER_DAY],
            )
        if mixed:  # runs with unequal scores that straddle the window's start
            fixes = fetch(conn, fix_sql, [*key, cutoff, *key, cutoff, cutoff])
            total += sum(f[1] - f[0] for f in fixes)
        out[(norm, mode)] = (int(runs), float(total), int(first_at), int(last_at))
    return out


def _run_stats_at_once(
    conn: Conn, bench_id: int, groups: list[tuple[str, str]], cutoff: int
) -> dict[tuple[str, str], Row]:
    """:func:`run_stats`'s per-group statement for every group in one statement (a
    ``LATERAL`` join over the groups: PostgreSQL)."""
    group = "benchmark_id = ? AND model_norm = g.norm AND mode = g.mode"
    day = cutoff // MS_PER_DAY
    values = ", ".join(["(?, ?)"] * len(groups))
    sql = f"""SELECT g.norm, g.mode, s.runs, s.total, s.mixed, s.last_at, s.first_at
              FROM (VALUES {values}) AS g (norm, mode)
              CROSS JOIN LATERAL (
                  SELECT COALESCE(SUM(w.runs), 0) AS runs,
                         COALESCE(SUM(w.total), 0.0) AS total,
                         COALESCE(SUM(w.mixed), 0) AS mixed,
                         (SELECT last_at FROM board_runs WHERE {group}
                          ORDER BY last_at DESC LIMIT 1) AS last_at,
                         (SELECT created_at FROM board_source WHERE {group}
                          AND created_at >= ? ORDER BY created_at LIMIT 1) AS first_at
                  FROM (SELECT runs, score_sum AS total, mixed FROM board_days
                        WHERE {group} AND day > ?
                        UNION ALL
                        SELECT 1, best, CASE WHEN low < best THEN 1 ELSE 0 END
                        FROM board_runs
                        WHERE {group} AND last_at >= ? AND last_at < ?) AS w) AS s"""
    params = [
        *(v for pair in groups for v in pair),
        *(bench_id, bench_id, cutoff, bench_id, day, bench_id, cutoff),
        (day + 1) * MS_PER_DAY,
    ]
    return {(r[0], r[1]): r[2:] for r in fetch(conn, sql, params)}


def window_stats(
    conn: Conn,
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
                    GROUP BY run_key) AS r"""
    out: dict[tuple[str, str], _GroupStats] = {}
    for norm, mode in groups:
        params = [bench_id, norm, mode]
        [(runs, total, first_at, last_at)] = fetch(
            conn, sql, params if cutoff is None else [*params, cutoff]
        )
        out[(norm, mode)] = (int(runs), float(total), int(first_at), int(last_at))
    return out

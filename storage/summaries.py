"""The board summaries: ``board_runs`` (one row per run), ``board_days`` (runs by day)
and ``board_totals`` (one line per model and mode), kept from ``board_source`` rows.

Publishing adds a row to its lines in constant time; hiding, withdrawing, a ban or an
unban recompute the lines they touch; a bulk import or a re-score rebuilds a benchmark's
summaries whole. A challenge benchmark's boards have their own summaries,
``challenge_lines``, ``challenge_days``, ``challenge_spans`` and ``challenge_attempts``
(:mod:`storage.challenge_lines`), kept at the same places. Functions over a write
:class:`~storage.db.Session`.
"""

from __future__ import annotations

from typing import Any

from . import challenge_lines
from .challenge_lines import ChallengeFields
from .db import Database, Session
from .models import Submission
from .values import MS_PER_DAY, benchmark_name


def _groups_cte(where: str) -> str:
    """CTEs ending in ``groups``: one row per (model_norm, mode) of ``board_source``
    rows matching ``where`` – runs (distinct answer sets), their score sum, the best
    submission (earliest among equal bests) and the first and last run times."""
    return f"""
src AS MATERIALIZED (
    SELECT id, model_norm, mode, score, run_key, created_at FROM board_source WHERE {where}),
runs AS (
    SELECT model_norm, mode, COUNT(*) AS runs, SUM(s) AS score_sum, SUM(s * s) AS score_sq_sum,
           MIN(fa) AS first_at, MAX(la) AS last_at
    FROM (SELECT model_norm, mode, MAX(score) AS s, MIN(created_at) AS fa,
                 MAX(created_at) AS la
          FROM src GROUP BY model_norm, mode, run_key) AS k
    GROUP BY model_norm, mode),
tops AS (
    SELECT model_norm, mode, id, score, created_at,
           ROW_NUMBER() OVER (PARTITION BY model_norm, mode
                              ORDER BY score DESC, created_at, id) AS rn
    FROM src),
groups AS (
    SELECT t.model_norm, t.mode, r.runs, r.score_sum, r.score_sq_sum, t.score AS best,
           t.id AS best_id,
           t.created_at AS best_at, r.first_at, r.last_at
    FROM tops AS t JOIN runs AS r USING (model_norm, mode)
    WHERE t.rn = 1)
"""


#: Recompute ``board_runs`` (one row per run) from ``board_source`` rows matching a WHERE.
_RUNS_SQL = """
WITH src AS MATERIALIZED (
    SELECT benchmark_id, model_norm, mode, run_key, score, created_at
    FROM board_source WHERE {where})
INSERT INTO board_runs (benchmark_id, model_norm, mode, last_at, run_key, best, low,
                        first_at)
SELECT benchmark_id, model_norm, mode, MAX(created_at), run_key, MAX(score), MIN(score),
       MIN(created_at)
FROM src GROUP BY benchmark_id, model_norm, mode, run_key
"""
#: A whole benchmark's board rows, read from a covering index (every published row has a
#: mode: the list leads the planner to ``submissions_board_rank``).
_WHOLE_BENCHMARK = "benchmark_id = ? AND mode IN ('default', 'think', 'tools', 'think_tools')"

#: Recompute ``board_days`` (runs by the day of their last row) from ``board_runs``.
_DAYS_SQL = """
INSERT INTO board_days (benchmark_id, model_norm, mode, day, runs, score_sum, mixed,
                        score_sq_sum)
SELECT benchmark_id, model_norm, mode, last_at / 86400000, COUNT(*), COALESCE(SUM(best), 0.0),
       SUM(CASE WHEN low < best THEN 1 ELSE 0 END), COALESCE(SUM(best * best), 0.0)
FROM board_runs WHERE {where} GROUP BY benchmark_id, model_norm, mode, last_at / 86400000
"""

_GROUP = "benchmark_id = ? AND model_norm = ? AND mode = ?"


async def rebuild_boards(db: Database, benchmark: str | None = None) -> None:
    """Recompute the summaries of one benchmark (or all), one transaction each."""
    async with db.single() as s:
        rows = await s.all("SELECT id, name FROM benchmarks ORDER BY id")
    for bench_id, name in rows:
        if benchmark is not None and name != benchmark_name(benchmark):
            continue
        async with db.write() as s:
            await rebuild(s, bench_id)


async def rebuild(s: Session, bench_id: int) -> None:
    """Recompute a benchmark's summaries from its rows and mark them fresh."""
    await s.lock("board", bench_id)
    await s.execute("DELETE FROM board_runs WHERE benchmark_id = ?", (bench_id,))
    await s.execute(_RUNS_SQL.format(where=_WHOLE_BENCHMARK), (bench_id,))
    await s.execute("DELETE FROM board_days WHERE benchmark_id = ?", (bench_id,))
    await s.execute(_DAYS_SQL.format(where="benchmark_id = ?"), (bench_id,))
    await s.execute("DELETE FROM board_totals WHERE benchmark_id = ?", (bench_id,))
    # the groups from their runs; each group's best row (earliest of its best score)
    # found in the rank index
    await s.execute(
        """WITH g AS MATERIALIZED (
               SELECT model_norm, mode, COUNT(*) AS runs,
                      COALESCE(SUM(best), 0.0) AS score_sum,
                      COALESCE(SUM(best * best), 0.0) AS score_sq_sum,
                      MAX(best) AS best, MIN(first_at) AS first_at, MAX(last_at) AS last_at
               FROM board_runs WHERE benchmark_id = ? GROUP BY model_norm, mode),
           b AS (
               SELECT g.*, (SELECT s.id FROM board_source AS s
                            WHERE s.benchmark_id = ? AND s.mode = g.mode
                              AND s.score = g.best AND s.model_norm = g.model_norm
                            ORDER BY s.created_at, s.id LIMIT 1) AS best_id
               FROM g)
           INSERT INTO board_totals (benchmark_id, model_norm, mode, runs, score_sum,
                                     score_sq_sum, best, best_id, best_at, first_at, last_at)
           SELECT ?, b.model_norm, b.mode, b.runs, b.score_sum, b.score_sq_sum, b.best,
                  b.best_id, s.created_at, b.first_at, b.last_at
           FROM b JOIN submissions AS s ON s.id = b.best_id""",
        (bench_id, bench_id, bench_id),
    )
    fields = await challenge_of(s, bench_id)
    if fields is not None:
        await rebuild_challenge(s, fields, ("benchmark_id",), (bench_id,))
    await s.execute("UPDATE benchmarks SET boards_stale = 0 WHERE id = ?", (bench_id,))


async def rebuild_challenge(
    s: Session, fields: ChallengeFields, key: tuple[str, ...], params: tuple[Any, ...]
) -> None:
    """Recompute the challenge summary lines whose ``key`` columns (the benchmark's,
    model's, mode's) equal ``params`` from the rows (their challenge ``fields``): its
    lines, day lines and attempts, and its span lines from the day lines."""

    def where(alias: str) -> str:
        return " AND ".join(f"{alias}{column} = ?" for column in key)

    for table, rebuild_sql in (
        ("challenge_lines", challenge_lines.rebuild_sql),
        ("challenge_days", challenge_lines.days_rebuild_sql),
        ("challenge_attempts", challenge_lines.attempts_rebuild_sql),
    ):
        await s.execute(f"DELETE FROM {table} WHERE {where('')}", params)
        await s.execute(rebuild_sql(s.dialect, fields, where("v.")), params)
    await s.execute(f"DELETE FROM challenge_spans WHERE {where('')}", params)
    await s.execute(challenge_lines.spans_rebuild_sql(where("l.")), params)


async def roll_challenges(s: Session, day: int) -> None:
    """:func:`roll_spans` for every challenge benchmark."""
    for (bench_id,) in await s.all("SELECT id FROM benchmarks WHERE challenge IS NOT NULL"):
        await roll_spans(s, int(bench_id), day)


async def roll_spans(s: Session, bench_id: int, day: int) -> None:
    """Move each span's first day up to follow ``day`` (a publication's, or today's
    when a server turns the day), recomputing its lines, when it is behind: once a day.
    The benchmark's summaries are locked whole meanwhile (PostgreSQL)."""
    wanted = {span: day - span + 1 for span in challenge_lines.SPANS}

    async def behind() -> list[int]:
        rows = await s.all(
            "SELECT span, from_day FROM challenge_span_days WHERE benchmark_id = ?", (bench_id,)
        )
        now = {int(span): int(first) for span, first in rows}
        return [span for span, first in wanted.items() if span not in now or now[span] < first]

    if not await behind():
        return
    await s.lock("board", bench_id)
    for span in await behind():
        await s.execute(
            """INSERT INTO challenge_span_days (benchmark_id, span, from_day) VALUES (?, ?, ?)
               ON CONFLICT (benchmark_id, span) DO UPDATE SET from_day = excluded.from_day""",
            (bench_id, span, wanted[span]),
        )
        await s.execute(
            "DELETE FROM challenge_spans WHERE benchmark_id = ? AND span = ?", (bench_id, span)
        )
        await s.execute(
            challenge_lines.spans_rebuild_sql("l.benchmark_id = ? AND d.span = ?"),
            (bench_id, span),
        )


async def challenge_of(s: Session, bench_id: int | None) -> ChallengeFields | None:
    """The challenge fields of a benchmark (None: it has no challenge)."""
    found = await s.one("SELECT challenge FROM benchmarks WHERE id = ?", (bench_id,))
    return None if found is None or found[0] is None else ChallengeFields.from_json(found[0])


async def _add_attempt(s: Session, fields: ChallengeFields, sub_id: int) -> None:
    """Count a just-published challenge attempt in its target's line, its all-targets
    line, its day line and the span lines that hold its day, and keep it among the
    attempts (nothing when it is not valid)."""
    found = await s.one(challenge_lines.attempt_sql(s.dialect, fields), (sub_id,))
    if found is None:
        return
    target, score, created_at, simplified, cost, latency, trivial, bench_id, model, mode = found
    trivial = int(trivial)
    new_target = 0
    if target is not None:
        known = await s.one(
            """SELECT 1 FROM challenge_lines WHERE benchmark_id = ? AND target = ?
               AND model_norm = ? AND mode = ?""",
            (bench_id, target, model, mode),
        )
        new_target = int(known is None)
    figures = (
        1 - trivial, 0.0 if trivial else score, None if trivial else score,
        0.0 if cost is None else cost, int(cost is not None),
        0.0 if latency is None else latency, int(latency is not None), created_at,
        created_at, sub_id, trivial, score, created_at, simplified,
    )  # fmt: skip
    lines = [challenge_lines.ALL_TARGETS, *([] if target is None else [target])]
    for line in lines:
        await s.execute(
            challenge_lines.ADD_SQL, (bench_id, line, model, mode, *figures[:3], new_target,
                                   *figures[3:]),
        )  # fmt: skip
    day = created_at // MS_PER_DAY
    await s.execute(
        challenge_lines.ADD_DAY_SQL,
        (bench_id, day, 0 if target is None else target, model, mode, *figures),
    )
    await s.execute(challenge_lines.ADD_SPAN_SQL, (model, mode, *figures[:3], bench_id, day))
    await s.execute(
        challenge_lines.ADD_ATTEMPT_SQL,
        (bench_id, created_at, sub_id, model, mode, 0 if target is None else target, score,
         trivial),
    )  # fmt: skip


async def _lock_group(s: Session, group: tuple[Any, ...]) -> None:
    """Serialise the changes of one summary line (PostgreSQL; SQLite's writers are
    serialised anyway): the benchmark shared (a rebuild of the whole benchmark takes it
    alone), the line itself exclusively. Publications to different lines go together."""
    await s.lock("board", int(group[0]), shared=True)
    await s.lock("line", f"{group[0]}:{group[1]}:{group[2]}")


async def add_to_group(
    s: Session, bench_id: int | None, sub: Submission, challenge_json: str | None
) -> None:
    """Count a just-published submission in its summary line, in constant time.
    ``challenge_json``: its benchmark's challenge fields as stored (None: it has no
    challenge), read with the submission.

    A run's contribution is the best score among its rows (equal answer sets are one
    run), so adding a row either opens a run or can only raise its run's score.
    """
    challenge = None if challenge_json is None else ChallengeFields.from_json(challenge_json)
    if challenge is not None and bench_id is not None:  # before the shared lock: it may lock alone
        await roll_spans(s, bench_id, int(sub.created_at.timestamp() * 1000) // MS_PER_DAY)
    if bench_id is not None:
        await _lock_group(s, (bench_id, sub.model_norm, sub.mode))
    group = (bench_id, sub.model_norm, sub.mode)
    if sub.fingerprint is None:
        mine = await s.one("SELECT score, created_at FROM board_source WHERE id = ?", (sub.id,))
    else:  # with the rest of its run (the same answers), in the same statement
        mine = await s.one(
            """SELECT m.score, m.created_at, r.hi, r.lo, r.first_at, r.last_at
               FROM board_source AS m, (
                   SELECT MAX(score) AS hi, MIN(score) AS lo, MIN(created_at) AS first_at,
                          MAX(created_at) AS last_at
                   FROM board_source WHERE benchmark_id = ? AND model_norm = ?
                   AND mode = ? AND fingerprint = ? AND id <> ?) AS r
               WHERE m.id = ?""",
            (*group, sub.fingerprint, sub.id, sub.id),
        )
    if mine is None:  # the board does not count it (e.g. a future ban)
        return
    score, created_at = mine[0], mine[1]
    previous = None
    run_key = f"id:{sub.id}" if sub.fingerprint is None else sub.fingerprint
    run: tuple[float, float, int, int] = (score, score, created_at, created_at)
    if sub.fingerprint is not None:
        found = mine[2:]
        if found[0] is not None:
            previous = found[0]
            await s.execute(
                """DELETE FROM board_runs WHERE benchmark_id = ? AND model_norm = ?
                   AND mode = ? AND last_at = ? AND run_key = ?""",
                (*group, found[3], run_key),
            )
            await s.execute(
                """UPDATE board_days SET runs = runs - 1, score_sum = score_sum - ?,
                       mixed = mixed - ?, score_sq_sum = score_sq_sum - ?
                   WHERE benchmark_id = ? AND model_norm = ? AND mode = ? AND day = ?""",
                (
                    found[0],
                    int(found[1] < found[0]),
                    found[0] * found[0],
                    *group,
                    found[3] // MS_PER_DAY,
                ),
            )
            run = (
                max(score, found[0]),
                min(score, found[1]),
                min(created_at, found[2]),
                max(created_at, found[3]),
            )
    await s.execute(
        """INSERT INTO board_runs (benchmark_id, model_norm, mode, last_at, run_key, best,
                                   low, first_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (benchmark_id, model_norm, mode, last_at, run_key) DO UPDATE SET
               best = excluded.best, low = excluded.low, first_at = excluded.first_at""",
        (*group, run[3], run_key, run[0], run[1], run[2]),
    )
    await s.execute(
        """INSERT INTO board_days (benchmark_id, model_norm, mode, day, runs, score_sum,
                                   mixed, score_sq_sum)
           VALUES (?, ?, ?, ?, 1, ?, ?, ?)
           ON CONFLICT (benchmark_id, model_norm, mode, day) DO UPDATE SET
               runs = board_days.runs + 1,
               score_sum = board_days.score_sum + excluded.score_sum,
               mixed = board_days.mixed + excluded.mixed,
               score_sq_sum = board_days.score_sq_sum + excluded.score_sq_sum""",
        (*group, run[3] // MS_PER_DAY, run[0], int(run[1] < run[0]), run[0] * run[0]),
    )
    new_run = 1 if previous is None else 0
    delta = score if previous is None else max(0.0, score - previous)
    # the run's best rises from ``previous`` (none: a new run) to ``run[0]``
    delta_sq = run[0] * run[0] - (0.0 if previous is None else previous * previous)
    better = """(excluded.best > t.best OR (excluded.best = t.best AND
                 (excluded.best_at < t.best_at OR
                  (excluded.best_at = t.best_at AND excluded.best_id < t.best_id))))"""
    await s.execute(
        f"""INSERT INTO board_totals AS t (benchmark_id, model_norm, mode, runs, score_sum,
                                           score_sq_sum, best, best_id, best_at, first_at,
                                           last_at)
            VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (benchmark_id, model_norm, mode) DO UPDATE SET
                runs = t.runs + ?, score_sum = t.score_sum + ?,
                score_sq_sum = t.score_sq_sum + ?,
                best = CASE WHEN {better} THEN excluded.best ELSE t.best END,
                best_id = CASE WHEN {better} THEN excluded.best_id ELSE t.best_id END,
                best_at = CASE WHEN {better} THEN excluded.best_at ELSE t.best_at END,
                first_at = CASE WHEN excluded.first_at < t.first_at
                                THEN excluded.first_at ELSE t.first_at END,
                last_at = CASE WHEN excluded.last_at > t.last_at
                               THEN excluded.last_at ELSE t.last_at END""",
        (
            *group,
            score,
            score * score,
            score,
            sub.id,
            created_at,
            created_at,
            created_at,
            new_run,
            delta,
            delta_sq,
        ),
    )
    if challenge is not None:
        await _add_attempt(s, challenge, sub.id)


async def refresh_line(s: Session, key: tuple[Any, ...]) -> None:
    """Recompute a (benchmark id, model, mode) group's runs, days and totals line."""
    await _lock_group(s, key)
    await s.execute(f"DELETE FROM board_runs WHERE {_GROUP}", key)
    await s.execute(_RUNS_SQL.format(where=_GROUP), key)
    await s.execute(f"DELETE FROM board_days WHERE {_GROUP}", key)
    await s.execute(_DAYS_SQL.format(where=_GROUP), key)
    await s.execute(f"DELETE FROM board_totals WHERE {_GROUP}", key)
    await s.execute(
        "WITH "
        + _groups_cte(_GROUP)
        + """INSERT INTO board_totals (benchmark_id, model_norm, mode, runs, score_sum,
                                      score_sq_sum, best, best_id, best_at, first_at, last_at)
             SELECT ?, model_norm, mode, runs, score_sum, score_sq_sum, best, best_id,
                    best_at, first_at, last_at FROM groups""",
        (*key, key[0]),
    )
    fields = await challenge_of(s, int(key[0]))
    if fields is not None:
        await rebuild_challenge(s, fields, ("benchmark_id", "model_norm", "mode"), key)


async def refresh_user_lines(s: Session, user_id: int) -> None:
    """Recompute the summary lines that hold a user's published results."""
    groups = await s.all(
        """SELECT DISTINCT benchmark_id, model_norm, mode FROM submissions
           WHERE user_id = ? AND visibility = 'published'""",
        (user_id,),
    )
    lines = sorted(tuple(g) for g in groups)  # locked in one order: no deadlock
    for line in lines:
        await _lock_group(s, line)
    for line in lines:
        await refresh_line(s, line)

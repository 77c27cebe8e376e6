"""The challenge summaries (a benchmark with a daily target: its boards per target and
per model). ``challenge_lines``: one line per (benchmark, target, model, mode) of the
published valid attempts, plus one line per (benchmark, model, mode) over every target
(``target`` 0; targets are positive). ``challenge_days``: the same lines per UTC day of
the attempts, for boards over the last days.

A line holds what the challenge board shows of its group, as sums the board divides: the
attempts, the valid (non-trivial) ones and their score sum and best, the distinct targets,
cost and latency sums with how many attempts gave them, the first and last attempt, and
the top attempt (non-trivial first, then best score, earliest, lowest id) with its shown
answer. The board of a target (or over all targets) then ranks a few thousand lines
instead of reading every row's JSON.

Which benchmarks have a challenge, and which fields of a stored result the lines read, is
the caller's to say (:class:`ChallengeFields`, kept in ``benchmarks.challenge``): storage
knows no benchmark. Kept like the other board summaries (:mod:`storage.summaries`): a
publication adds to its lines; hiding, withdrawing, a ban or unban recompute the group's
lines; a re-score or a bulk import rebuilds the benchmark's. The SQL is built for an
engine's :class:`~storage.dialect.Dialect` (the JSON fields are read differently).
"""

from __future__ import annotations

import json
from typing import NamedTuple

from .dialect import Dialect
from .values import MS_PER_DAY

#: The ``target`` of a group's line over every target.
ALL_TARGETS = 0


class ChallengeFields(NamedTuple):
    """Where a challenge benchmark's attempts keep what its boards read: in the result's
    JSON record, the ``target`` (a positive whole number), the ``shown`` answer and the
    ``valid`` flag (only valid attempts count); in the submission's extra data, the
    ``cost`` and ``latency`` an attempt may carry. ``trivial``: ``"digits"`` when an
    attempt whose shown answer is digits only is trivial (scored 0, ranked below the
    rest), ``""`` when none is."""

    target: str
    shown: str
    valid: str
    trivial: str = ""
    cost: str = "cost"
    latency: str = "latency"

    def to_json(self) -> str:
        """As ``benchmarks.challenge`` keeps it."""
        return json.dumps(self._asdict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ChallengeFields:
        return cls(**json.loads(text))


_COLUMNS = """benchmark_id, target, model_norm, mode, attempts, valid, score_sum, best,
targets, cost_sum, cost_n, latency_sum, latency_n, first_at, last_at, top_id,
top_trivial, top_score, top_at, top_simplified"""


def attempts_sql(d: Dialect, f: ChallengeFields, where: str) -> str:
    """CTEs ending in ``a``: the valid published attempts matching ``where`` (over
    ``board_source`` as ``v``), with their challenge fields and triviality."""
    simplified = d.json_text("s.result", f.shown)
    trivial = d.digits_only("simplified") if f.trivial == "digits" else "0"
    return f"""
src AS MATERIALIZED (
    SELECT v.benchmark_id, s.id, s.model_norm, s.mode, s.score, s.created_at,
           {d.json_number("s.result", f.target)} AS target,
           {simplified} AS simplified,
           {d.json_number("s.extra", f.cost)} AS cost,
           {d.json_number("s.extra", f.latency)} AS latency
    FROM board_source AS v JOIN submissions AS s ON s.id = v.id
    WHERE {where} AND {d.json_true("s.result", f.valid)}),
a AS (
    SELECT src.*, {trivial} AS trivial FROM src)"""


def attempt_fields(d: Dialect, f: ChallengeFields) -> str:
    """The fields of a submission ``s`` that ``challenge_attempts`` does not keep."""
    return f"""{d.json_text("s.result", f.shown)} AS simplified,
           {d.json_number("s.extra", f.cost)} AS cost,
           {d.json_number("s.extra", f.latency)} AS latency"""


def rebuild_sql(d: Dialect, f: ChallengeFields, where: str) -> str:
    """Insert the lines of the attempts matching ``where`` (a condition on
    ``board_source`` as ``v``; its parameters are the statement's)."""
    return f"""WITH {attempts_sql(d, f, where)},
per AS (
    SELECT benchmark_id, target AS line, model_norm, mode, id, score, created_at, target,
           simplified, cost, latency, trivial
    FROM a WHERE target IS NOT NULL
    UNION ALL
    SELECT benchmark_id, {ALL_TARGETS} AS line, model_norm, mode, id, score, created_at,
           target, simplified, cost, latency, trivial
    FROM a),
groups AS (
    SELECT benchmark_id, line, model_norm, mode, COUNT(*) AS attempts,
           SUM(1 - trivial) AS valid,
           COALESCE(SUM(CASE WHEN trivial = 1 THEN NULL ELSE score END), 0.0) AS score_sum,
           MAX(CASE WHEN trivial = 1 THEN NULL ELSE score END) AS best,
           COUNT(DISTINCT target) AS targets,
           COALESCE(SUM(cost), 0.0) AS cost_sum, COUNT(cost) AS cost_n,
           COALESCE(SUM(latency), 0.0) AS latency_sum, COUNT(latency) AS latency_n,
           MIN(created_at) AS first_at, MAX(created_at) AS last_at
    FROM per GROUP BY benchmark_id, line, model_norm, mode),
tops AS (
    SELECT benchmark_id, line, model_norm, mode, id, trivial, score, created_at, simplified,
           ROW_NUMBER() OVER (PARTITION BY benchmark_id, line, model_norm, mode
                              ORDER BY trivial, score DESC, created_at, id) AS rn
    FROM per)
INSERT INTO challenge_lines ({_COLUMNS})
SELECT g.benchmark_id, g.line, g.model_norm, g.mode, g.attempts, g.valid, g.score_sum,
       g.best, g.targets, g.cost_sum, g.cost_n, g.latency_sum, g.latency_n, g.first_at,
       g.last_at, t.id, t.trivial, t.score, t.created_at, t.simplified
FROM groups AS g JOIN tops AS t
    ON t.benchmark_id = g.benchmark_id AND t.line = g.line
   AND t.model_norm = g.model_norm AND t.mode = g.mode
WHERE t.rn = 1"""


def attempt_sql(d: Dialect, f: ChallengeFields) -> str:
    """The challenge fields of one published valid attempt (parameter: its id): target,
    score, created_at, simplified, cost, latency, trivial, benchmark_id, model_norm,
    mode; no row when the board does not count it or it is not valid."""
    return f"""WITH {attempts_sql(d, f, "v.id = ?")}
SELECT target, score, created_at, simplified, cost, latency, trivial, benchmark_id,
       model_norm, mode FROM a"""


#: Add an attempt's scores (``excluded``) to a line's (``t``): the valid attempts, their
#: score sum, the best (NULL: none yet).
_ADD_SCORES = """valid = t.valid + excluded.valid,
    score_sum = t.score_sum + excluded.score_sum,
    best = CASE WHEN excluded.best IS NULL THEN t.best
                WHEN t.best IS NULL OR excluded.best > t.best THEN excluded.best
                ELSE t.best END"""

#: Whether the attempt being added (``excluded``) is a better top than the line's (``t``).
_BETTER = """(excluded.top_trivial < t.top_trivial OR (excluded.top_trivial = t.top_trivial
AND (excluded.top_score > t.top_score OR (excluded.top_score = t.top_score
AND (excluded.top_at < t.top_at OR (excluded.top_at = t.top_at
AND excluded.top_id < t.top_id))))))"""


def _add_sql(table: str, columns: str, key: str, *, targets: bool) -> str:
    """Add one attempt to a line of ``table`` (parameters: the line's key, the attempt's
    figures, in ``columns``' order; ``attempts`` is 1)."""
    values = ", ".join("1" if c == "attempts" else "?" for c in columns.split(", "))
    top = {
        c: f"CASE WHEN {_BETTER} THEN excluded.{c} ELSE t.{c} END"
        for c in ("top_id", "top_trivial", "top_score", "top_simplified", "top_at")
    }
    return f"""INSERT INTO {table} AS t ({columns})
VALUES ({values})
ON CONFLICT ({key}) DO UPDATE SET
    attempts = t.attempts + 1,
    {_ADD_SCORES},{" targets = t.targets + excluded.targets," if targets else ""}
    cost_sum = t.cost_sum + excluded.cost_sum, cost_n = t.cost_n + excluded.cost_n,
    latency_sum = t.latency_sum + excluded.latency_sum,
    latency_n = t.latency_n + excluded.latency_n,
    first_at = CASE WHEN excluded.first_at < t.first_at THEN excluded.first_at
                    ELSE t.first_at END,
    last_at = CASE WHEN excluded.last_at > t.last_at THEN excluded.last_at
                   ELSE t.last_at END,
    {", ".join(f"{c} = {e}" for c, e in top.items())}"""


#: Add one attempt to a ``challenge_lines`` line (parameters: the line's key, the
#: attempt's figures).
ADD_SQL = _add_sql(
    "challenge_lines", " ".join(_COLUMNS.split()), "benchmark_id, target, model_norm, mode",
    targets=True,
)  # fmt: skip


#: ``challenge_days``: the attempts of one day (UTC, by their time) per (target, model,
#: mode), as the lines hold them (without ``targets``: a day line has one target, 0 for
#: an attempt without one). A board over the last days adds their lines to the attempts
#: of its first, partial day.
_DAY_COLUMNS = """benchmark_id, day, target, model_norm, mode, attempts, valid, score_sum, best,
cost_sum, cost_n, latency_sum, latency_n, first_at, last_at, top_id, top_trivial,
top_score, top_at, top_simplified"""


def days_rebuild_sql(d: Dialect, f: ChallengeFields, where: str) -> str:
    """Insert the day lines of the attempts matching ``where`` (as :func:`rebuild_sql`)."""
    return f"""WITH {attempts_sql(d, f, where)},
per AS MATERIALIZED (
    SELECT a.*, created_at / {MS_PER_DAY} AS day, COALESCE(target, 0) AS line,
           ROW_NUMBER() OVER (PARTITION BY benchmark_id, created_at / {MS_PER_DAY},
                                           COALESCE(target, 0), model_norm, mode
                              ORDER BY trivial, score DESC, created_at, id) AS rn
    FROM a),
groups AS (
    SELECT benchmark_id, day, line, model_norm, mode, COUNT(*) AS attempts,
           SUM(1 - trivial) AS valid,
           COALESCE(SUM(CASE WHEN trivial = 1 THEN NULL ELSE score END), 0.0) AS score_sum,
           MAX(CASE WHEN trivial = 1 THEN NULL ELSE score END) AS best,
           COALESCE(SUM(cost), 0.0) AS cost_sum, COUNT(cost) AS cost_n,
           COALESCE(SUM(latency), 0.0) AS latency_sum, COUNT(latency) AS latency_n,
           MIN(created_at) AS first_at, MAX(created_at) AS last_at
    FROM per GROUP BY benchmark_id, day, line, model_norm, mode)
INSERT INTO challenge_days ({_DAY_COLUMNS})
SELECT g.benchmark_id, g.day, g.line, g.model_norm, g.mode, g.attempts, g.valid,
       g.score_sum, g.best, g.cost_sum, g.cost_n, g.latency_sum, g.latency_n, g.first_at,
       g.last_at, p.id, p.trivial, p.score, p.created_at, p.simplified
FROM groups AS g JOIN per AS p
    ON p.benchmark_id = g.benchmark_id AND p.day = g.day AND p.line = g.line
   AND p.model_norm = g.model_norm AND p.mode = g.mode
WHERE p.rn = 1"""


#: Add one attempt to its day line (parameters: the line's key, the attempt's figures).
ADD_DAY_SQL = _add_sql(
    "challenge_days", " ".join(_DAY_COLUMNS.split()),
    "benchmark_id, day, target, model_norm, mode", targets=False,
)  # fmt: skip


#: ``challenge_spans``: per (span, model, mode), the scores a board over the last ``span``
#: days ranks by, summed from the day lines from the span's first day
#: (``challenge_span_days.from_day``) on; the day's first publication, or a server turning
#: the day, moves the first days forward (:func:`storage.summaries.roll_spans`). A board
#: whose window starts the day before a span's first day ranks from the span's lines and
#: the rows of that day.
SPANS = (7, 30)
_SPAN_COLUMNS = "benchmark_id, span, model_norm, mode, valid, score_sum, best"


def spans_rebuild_sql(where: str) -> str:
    """Insert the span lines of the day lines (``l``) matching ``where`` (spans as
    ``d``), from each span's first day on."""
    return f"""INSERT INTO challenge_spans ({_SPAN_COLUMNS})
SELECT l.benchmark_id, d.span, l.model_norm, l.mode, SUM(l.valid), SUM(l.score_sum),
       MAX(l.best)
FROM challenge_days AS l JOIN challenge_span_days AS d
    ON d.benchmark_id = l.benchmark_id AND l.day >= d.from_day
WHERE {where}
GROUP BY l.benchmark_id, d.span, l.model_norm, l.mode"""


#: Add one attempt to the span lines whose span holds its day (parameters: model, mode,
#: valid, score sum, best, benchmark id, day).
ADD_SPAN_SQL = f"""INSERT INTO challenge_spans AS t ({_SPAN_COLUMNS})
SELECT benchmark_id, span, ?, ?, ?, ?, ? FROM challenge_span_days
WHERE benchmark_id = ? AND from_day <= ?
ON CONFLICT (benchmark_id, span, model_norm, mode) DO UPDATE SET
    {_ADD_SCORES}"""


#: A day line's columns after the benchmark and the day (as a board over days reads them).
LINE = tuple(c.strip() for c in _DAY_COLUMNS.split(","))[2:]

#: An attempt of :func:`attempts_sql`'s ``a`` as a line of its own, in :data:`LINE`'s order.
ATTEMPT_LINE = """COALESCE(target, 0) AS target, model_norm, mode, 1 AS attempts,
1 - trivial AS valid, CASE WHEN trivial = 1 THEN 0.0 ELSE score END AS score_sum,
CASE WHEN trivial = 1 THEN NULL ELSE score END AS best, COALESCE(cost, 0.0) AS cost_sum,
CASE WHEN cost IS NULL THEN 0 ELSE 1 END AS cost_n, COALESCE(latency, 0.0) AS latency_sum,
CASE WHEN latency IS NULL THEN 0 ELSE 1 END AS latency_n, created_at AS first_at,
created_at AS last_at, id AS top_id, trivial AS top_trivial, score AS top_score,
created_at AS top_at, simplified AS top_simplified"""


#: ``challenge_attempts``: each valid published attempt's time, group, target (0: none),
#: score and triviality, in time order: the first day of a board over the last days
#: ranks from these, not from the submissions' JSON.
_ATTEMPT_COLUMNS = "benchmark_id, created_at, id, model_norm, mode, target, score, trivial"

#: Add one attempt (parameters in ``_ATTEMPT_COLUMNS``' order).
ADD_ATTEMPT_SQL = (
    f"INSERT INTO challenge_attempts ({_ATTEMPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


def attempts_rebuild_sql(d: Dialect, f: ChallengeFields, where: str) -> str:
    """Insert the attempts matching ``where`` (as :func:`rebuild_sql`)."""
    return f"""WITH {attempts_sql(d, f, where)}
INSERT INTO challenge_attempts ({_ATTEMPT_COLUMNS})
SELECT benchmark_id, created_at, id, model_norm, mode, COALESCE(target, 0), score, trivial
FROM a"""

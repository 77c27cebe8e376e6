"""The Natory summary ``natory_lines``: one line per (benchmark, target, model, mode) of
the published valid Natory attempts, plus one line per (benchmark, model, mode) over every
target (``target`` 0; targets are positive).

A line holds what the Natory board shows of its group, as sums the board divides: the
attempts, the valid (non-trivial) ones and their score sum and best, the distinct targets,
cost and latency sums with how many attempts gave them, the first and last attempt, and
the top attempt (non-trivial first, then best score, earliest, lowest id) with its
simplified expression. The board of a target (or over all targets) then ranks a few
thousand lines instead of reading every row's JSON.

Kept like the other board summaries (:mod:`storage.summaries`): a publication adds to its
two lines; hiding, withdrawing, a ban or unban recompute the group's lines; a re-score or
a bulk import rebuilds the benchmark's. The SQL is built for an engine's
:class:`~storage.dialect.Dialect` (the JSON fields are read differently).
"""

from __future__ import annotations

from .dialect import Dialect

NATORY = "natory"
#: The ``target`` of a group's line over every target.
ALL_TARGETS = 0

_COLUMNS = """benchmark_id, target, model_norm, mode, attempts, valid, score_sum, best,
targets, cost_sum, cost_n, latency_sum, latency_n, first_at, last_at, top_id,
top_trivial, top_score, top_at, top_simplified"""


def _attempts(d: Dialect, where: str) -> str:
    """CTEs ending in ``a``: the valid published attempts matching ``where`` (over
    ``board_source`` as ``v``), with their Natory fields and triviality."""
    simplified = d.json_text("s.result", "simplified")
    return f"""
src AS MATERIALIZED (
    SELECT v.benchmark_id, s.id, s.model_norm, s.mode, s.score, s.created_at,
           {d.json_number("s.result", "target")} AS target,
           {simplified} AS simplified,
           {d.json_number("s.extra", "cost")} AS cost,
           {d.json_number("s.extra", "latency")} AS latency
    FROM board_source AS v JOIN submissions AS s ON s.id = v.id
    WHERE {where} AND {d.json_true("s.result", "valid")}),
a AS (
    SELECT src.*, {d.digits_only("simplified")} AS trivial FROM src)"""


def rebuild_sql(d: Dialect, where: str) -> str:
    """Insert the lines of the attempts matching ``where`` (a condition on
    ``board_source`` as ``v``; its parameters are the statement's)."""
    return f"""WITH {_attempts(d, where)},
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
INSERT INTO natory_lines ({_COLUMNS})
SELECT g.benchmark_id, g.line, g.model_norm, g.mode, g.attempts, g.valid, g.score_sum,
       g.best, g.targets, g.cost_sum, g.cost_n, g.latency_sum, g.latency_n, g.first_at,
       g.last_at, t.id, t.trivial, t.score, t.created_at, t.simplified
FROM groups AS g JOIN tops AS t
    ON t.benchmark_id = g.benchmark_id AND t.line = g.line
   AND t.model_norm = g.model_norm AND t.mode = g.mode
WHERE t.rn = 1"""


def attempt_sql(d: Dialect) -> str:
    """The Natory fields of one published valid attempt (parameter: its id): target,
    score, created_at, simplified, cost, latency, trivial, benchmark_id, model_norm,
    mode; no row when the board does not count it or it is not valid."""
    return f"""WITH {_attempts(d, "v.id = ?")}
SELECT target, score, created_at, simplified, cost, latency, trivial, benchmark_id,
       model_norm, mode FROM a"""


#: Add one attempt to a line (parameters: the line's key, the attempt's figures).
_BETTER = """(excluded.top_trivial < t.top_trivial OR (excluded.top_trivial = t.top_trivial
AND (excluded.top_score > t.top_score OR (excluded.top_score = t.top_score
AND (excluded.top_at < t.top_at OR (excluded.top_at = t.top_at
AND excluded.top_id < t.top_id))))))"""

ADD_SQL = f"""INSERT INTO natory_lines AS t ({_COLUMNS})
VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (benchmark_id, target, model_norm, mode) DO UPDATE SET
    attempts = t.attempts + 1,
    valid = t.valid + excluded.valid,
    score_sum = t.score_sum + excluded.score_sum,
    best = CASE WHEN excluded.best IS NULL THEN t.best
                WHEN t.best IS NULL OR excluded.best > t.best THEN excluded.best
                ELSE t.best END,
    targets = t.targets + excluded.targets,
    cost_sum = t.cost_sum + excluded.cost_sum, cost_n = t.cost_n + excluded.cost_n,
    latency_sum = t.latency_sum + excluded.latency_sum,
    latency_n = t.latency_n + excluded.latency_n,
    first_at = CASE WHEN excluded.first_at < t.first_at THEN excluded.first_at
                    ELSE t.first_at END,
    last_at = CASE WHEN excluded.last_at > t.last_at THEN excluded.last_at
                   ELSE t.last_at END,
    top_id = CASE WHEN {_BETTER} THEN excluded.top_id ELSE t.top_id END,
    top_trivial = CASE WHEN {_BETTER} THEN excluded.top_trivial ELSE t.top_trivial END,
    top_score = CASE WHEN {_BETTER} THEN excluded.top_score ELSE t.top_score END,
    top_simplified = CASE WHEN {_BETTER} THEN excluded.top_simplified
                          ELSE t.top_simplified END,
    top_at = CASE WHEN {_BETTER} THEN excluded.top_at ELSE t.top_at END"""


def table_sql(*, postgres: bool) -> str:
    """The table and its group index, in an engine's types."""
    big, real = ("BIGINT", "DOUBLE PRECISION") if postgres else ("INTEGER", "REAL")
    rowid = "" if postgres else " WITHOUT ROWID"
    return f"""
CREATE TABLE natory_lines (
    benchmark_id   {big} NOT NULL REFERENCES benchmarks (id),
    target         {real} NOT NULL,
    model_norm     TEXT NOT NULL,
    mode           TEXT NOT NULL,
    attempts       {big} NOT NULL,
    valid          {big} NOT NULL,
    score_sum      {real} NOT NULL,
    best           {real},
    targets        {big} NOT NULL,
    cost_sum       {real} NOT NULL,
    cost_n         {big} NOT NULL,
    latency_sum    {real} NOT NULL,
    latency_n      {big} NOT NULL,
    first_at       {big} NOT NULL,
    last_at        {big} NOT NULL,
    top_id         {big} NOT NULL,
    top_trivial    INTEGER NOT NULL,
    top_score      {real} NOT NULL,
    top_at         {big} NOT NULL,
    top_simplified TEXT,
    PRIMARY KEY (benchmark_id, target, model_norm, mode)
){rowid};
CREATE INDEX natory_lines_group ON natory_lines (benchmark_id, model_norm, mode);
"""


def migration_sql(d: Dialect) -> str:
    """The migration step: the table, filled from the published rows."""
    where = f"v.benchmark_id IN (SELECT id FROM benchmarks WHERE name = '{NATORY}')"
    return table_sql(postgres=d.postgres) + rebuild_sql(d, where) + ";\n"

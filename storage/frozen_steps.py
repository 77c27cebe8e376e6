"""The SQL of released migration steps 12, 13, 19 and 22, frozen as it was released.

They made the first challenge summaries (then named for the one benchmark that had a
challenge); step 16 renames them. Their text was built by a module since made generic
(:mod:`storage.challenge_lines`), so it is kept here verbatim: a released step must
make the same schema forever. Never edit. Steps 19 (runs) and 22 (the copy check's
index triggers) were moved here from :mod:`storage.migrations` as they were.
"""

# ruff: noqa: E501, W291

V12_SQLITE = """
CREATE TABLE natory_lines (
    benchmark_id   INTEGER NOT NULL REFERENCES benchmarks (id),
    target         REAL NOT NULL,
    model_norm     TEXT NOT NULL,
    mode           TEXT NOT NULL,
    attempts       INTEGER NOT NULL,
    valid          INTEGER NOT NULL,
    score_sum      REAL NOT NULL,
    best           REAL,
    targets        INTEGER NOT NULL,
    cost_sum       REAL NOT NULL,
    cost_n         INTEGER NOT NULL,
    latency_sum    REAL NOT NULL,
    latency_n      INTEGER NOT NULL,
    first_at       INTEGER NOT NULL,
    last_at        INTEGER NOT NULL,
    top_id         INTEGER NOT NULL,
    top_trivial    INTEGER NOT NULL,
    top_score      REAL NOT NULL,
    top_at         INTEGER NOT NULL,
    top_simplified TEXT,
    PRIMARY KEY (benchmark_id, target, model_norm, mode)
) WITHOUT ROWID;
CREATE INDEX natory_lines_group ON natory_lines (benchmark_id, model_norm, mode);
WITH 
src AS MATERIALIZED (
    SELECT v.benchmark_id, s.id, s.model_norm, s.mode, s.score, s.created_at,
           CAST(json_extract(s.result, '$.target') AS REAL) AS target,
           json_extract(s.result, '$.simplified') AS simplified,
           CAST(json_extract(s.extra, '$.cost') AS REAL) AS cost,
           CAST(json_extract(s.extra, '$.latency') AS REAL) AS latency
    FROM board_source AS v JOIN submissions AS s ON s.id = v.id
    WHERE v.benchmark_id IN (SELECT id FROM benchmarks WHERE name = 'natory') AND json_extract(s.result, '$.valid') = 1),
a AS (
    SELECT src.*, COALESCE(simplified GLOB '[0-9]*' AND simplified NOT GLOB '*[^0-9]*', 0) AS trivial FROM src),
per AS (
    SELECT benchmark_id, target AS line, model_norm, mode, id, score, created_at, target,
           simplified, cost, latency, trivial
    FROM a WHERE target IS NOT NULL
    UNION ALL
    SELECT benchmark_id, 0 AS line, model_norm, mode, id, score, created_at,
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
INSERT INTO natory_lines (benchmark_id, target, model_norm, mode, attempts, valid, score_sum, best,
targets, cost_sum, cost_n, latency_sum, latency_n, first_at, last_at, top_id,
top_trivial, top_score, top_at, top_simplified)
SELECT g.benchmark_id, g.line, g.model_norm, g.mode, g.attempts, g.valid, g.score_sum,
       g.best, g.targets, g.cost_sum, g.cost_n, g.latency_sum, g.latency_n, g.first_at,
       g.last_at, t.id, t.trivial, t.score, t.created_at, t.simplified
FROM groups AS g JOIN tops AS t
    ON t.benchmark_id = g.benchmark_id AND t.line = g.line
   AND t.model_norm = g.model_norm AND t.mode = g.mode
WHERE t.rn = 1;
"""

V13_SQLITE = """
CREATE TABLE natory_days (
    benchmark_id   INTEGER NOT NULL REFERENCES benchmarks (id),
    day            INTEGER NOT NULL,
    target         REAL NOT NULL,
    model_norm     TEXT NOT NULL,
    mode           TEXT NOT NULL,
    attempts       INTEGER NOT NULL,
    valid          INTEGER NOT NULL,
    score_sum      REAL NOT NULL,
    best           REAL,
    cost_sum       REAL NOT NULL,
    cost_n         INTEGER NOT NULL,
    latency_sum    REAL NOT NULL,
    latency_n      INTEGER NOT NULL,
    first_at       INTEGER NOT NULL,
    last_at        INTEGER NOT NULL,
    top_id         INTEGER NOT NULL,
    top_trivial    INTEGER NOT NULL,
    top_score      REAL NOT NULL,
    top_at         INTEGER NOT NULL,
    top_simplified TEXT,
    PRIMARY KEY (benchmark_id, day, target, model_norm, mode)
) WITHOUT ROWID;
CREATE INDEX natory_days_group ON natory_days (benchmark_id, model_norm, mode, day);
WITH 
src AS MATERIALIZED (
    SELECT v.benchmark_id, s.id, s.model_norm, s.mode, s.score, s.created_at,
           CAST(json_extract(s.result, '$.target') AS REAL) AS target,
           json_extract(s.result, '$.simplified') AS simplified,
           CAST(json_extract(s.extra, '$.cost') AS REAL) AS cost,
           CAST(json_extract(s.extra, '$.latency') AS REAL) AS latency
    FROM board_source AS v JOIN submissions AS s ON s.id = v.id
    WHERE v.benchmark_id IN (SELECT id FROM benchmarks WHERE name = 'natory') AND json_extract(s.result, '$.valid') = 1),
a AS (
    SELECT src.*, COALESCE(simplified GLOB '[0-9]*' AND simplified NOT GLOB '*[^0-9]*', 0) AS trivial FROM src),
per AS MATERIALIZED (
    SELECT a.*, created_at / 86400000 AS day, COALESCE(target, 0) AS line,
           ROW_NUMBER() OVER (PARTITION BY benchmark_id, created_at / 86400000,
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
INSERT INTO natory_days (benchmark_id, day, target, model_norm, mode, attempts, valid, score_sum, best,
cost_sum, cost_n, latency_sum, latency_n, first_at, last_at, top_id, top_trivial,
top_score, top_at, top_simplified)
SELECT g.benchmark_id, g.day, g.line, g.model_norm, g.mode, g.attempts, g.valid,
       g.score_sum, g.best, g.cost_sum, g.cost_n, g.latency_sum, g.latency_n, g.first_at,
       g.last_at, p.id, p.trivial, p.score, p.created_at, p.simplified
FROM groups AS g JOIN per AS p
    ON p.benchmark_id = g.benchmark_id AND p.day = g.day AND p.line = g.line
   AND p.model_norm = g.model_norm AND p.mode = g.mode
WHERE p.rn = 1;

CREATE TABLE natory_spans (
    benchmark_id   INTEGER NOT NULL REFERENCES benchmarks (id),
    span           INTEGER NOT NULL,
    model_norm     TEXT NOT NULL,
    mode           TEXT NOT NULL,
    valid          INTEGER NOT NULL,
    score_sum      REAL NOT NULL,
    best           REAL,
    PRIMARY KEY (benchmark_id, span, model_norm, mode)
) WITHOUT ROWID;
CREATE INDEX natory_spans_group ON natory_spans (benchmark_id, model_norm, mode);
CREATE TABLE natory_span_days (
    benchmark_id INTEGER NOT NULL REFERENCES benchmarks (id),
    span         INTEGER NOT NULL,
    from_day     INTEGER NOT NULL,
    PRIMARY KEY (benchmark_id, span)
);

CREATE TABLE natory_attempts (
    benchmark_id   INTEGER NOT NULL REFERENCES benchmarks (id),
    created_at     INTEGER NOT NULL,
    id             INTEGER NOT NULL,
    model_norm     TEXT NOT NULL,
    mode           TEXT NOT NULL,
    target         REAL NOT NULL,
    score          REAL NOT NULL,
    trivial        INTEGER NOT NULL,
    PRIMARY KEY (benchmark_id, created_at, id)
) WITHOUT ROWID;
CREATE INDEX natory_attempts_group ON natory_attempts (benchmark_id, model_norm, mode);
WITH 
src AS MATERIALIZED (
    SELECT v.benchmark_id, s.id, s.model_norm, s.mode, s.score, s.created_at,
           CAST(json_extract(s.result, '$.target') AS REAL) AS target,
           json_extract(s.result, '$.simplified') AS simplified,
           CAST(json_extract(s.extra, '$.cost') AS REAL) AS cost,
           CAST(json_extract(s.extra, '$.latency') AS REAL) AS latency
    FROM board_source AS v JOIN submissions AS s ON s.id = v.id
    WHERE v.benchmark_id IN (SELECT id FROM benchmarks WHERE name = 'natory') AND json_extract(s.result, '$.valid') = 1),
a AS (
    SELECT src.*, COALESCE(simplified GLOB '[0-9]*' AND simplified NOT GLOB '*[^0-9]*', 0) AS trivial FROM src)
INSERT INTO natory_attempts (benchmark_id, created_at, id, model_norm, mode, target, score, trivial)
SELECT benchmark_id, created_at, id, model_norm, mode, COALESCE(target, 0), score, trivial
FROM a;
"""

V12_POSTGRES = """
CREATE TABLE natory_lines (
    benchmark_id   BIGINT NOT NULL REFERENCES benchmarks (id),
    target         DOUBLE PRECISION NOT NULL,
    model_norm     TEXT NOT NULL,
    mode           TEXT NOT NULL,
    attempts       BIGINT NOT NULL,
    valid          BIGINT NOT NULL,
    score_sum      DOUBLE PRECISION NOT NULL,
    best           DOUBLE PRECISION,
    targets        BIGINT NOT NULL,
    cost_sum       DOUBLE PRECISION NOT NULL,
    cost_n         BIGINT NOT NULL,
    latency_sum    DOUBLE PRECISION NOT NULL,
    latency_n      BIGINT NOT NULL,
    first_at       BIGINT NOT NULL,
    last_at        BIGINT NOT NULL,
    top_id         BIGINT NOT NULL,
    top_trivial    INTEGER NOT NULL,
    top_score      DOUBLE PRECISION NOT NULL,
    top_at         BIGINT NOT NULL,
    top_simplified TEXT,
    PRIMARY KEY (benchmark_id, target, model_norm, mode)
);
CREATE INDEX natory_lines_group ON natory_lines (benchmark_id, model_norm, mode);
WITH 
src AS MATERIALIZED (
    SELECT v.benchmark_id, s.id, s.model_norm, s.mode, s.score, s.created_at,
           CAST(s.result::jsonb ->> 'target' AS DOUBLE PRECISION) AS target,
           (s.result::jsonb ->> 'simplified') AS simplified,
           CAST(s.extra::jsonb ->> 'cost' AS DOUBLE PRECISION) AS cost,
           CAST(s.extra::jsonb ->> 'latency' AS DOUBLE PRECISION) AS latency
    FROM board_source AS v JOIN submissions AS s ON s.id = v.id
    WHERE v.benchmark_id IN (SELECT id FROM benchmarks WHERE name = 'natory') AND (s.result::jsonb ->> 'valid') IN ('true', '1')),
a AS (
    SELECT src.*, (CASE WHEN simplified ~ '^[0-9]+$' THEN 1 ELSE 0 END) AS trivial FROM src),
per AS (
    SELECT benchmark_id, target AS line, model_norm, mode, id, score, created_at, target,
           simplified, cost, latency, trivial
    FROM a WHERE target IS NOT NULL
    UNION ALL
    SELECT benchmark_id, 0 AS line, model_norm, mode, id, score, created_at,
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
INSERT INTO natory_lines (benchmark_id, target, model_norm, mode, attempts, valid, score_sum, best,
targets, cost_sum, cost_n, latency_sum, latency_n, first_at, last_at, top_id,
top_trivial, top_score, top_at, top_simplified)
SELECT g.benchmark_id, g.line, g.model_norm, g.mode, g.attempts, g.valid, g.score_sum,
       g.best, g.targets, g.cost_sum, g.cost_n, g.latency_sum, g.latency_n, g.first_at,
       g.last_at, t.id, t.trivial, t.score, t.created_at, t.simplified
FROM groups AS g JOIN tops AS t
    ON t.benchmark_id = g.benchmark_id AND t.line = g.line
   AND t.model_norm = g.model_norm AND t.mode = g.mode
WHERE t.rn = 1;
"""

V13_POSTGRES = """
CREATE TABLE natory_days (
    benchmark_id   BIGINT NOT NULL REFERENCES benchmarks (id),
    day            BIGINT NOT NULL,
    target         DOUBLE PRECISION NOT NULL,
    model_norm     TEXT NOT NULL,
    mode           TEXT NOT NULL,
    attempts       BIGINT NOT NULL,
    valid          BIGINT NOT NULL,
    score_sum      DOUBLE PRECISION NOT NULL,
    best           DOUBLE PRECISION,
    cost_sum       DOUBLE PRECISION NOT NULL,
    cost_n         BIGINT NOT NULL,
    latency_sum    DOUBLE PRECISION NOT NULL,
    latency_n      BIGINT NOT NULL,
    first_at       BIGINT NOT NULL,
    last_at        BIGINT NOT NULL,
    top_id         BIGINT NOT NULL,
    top_trivial    INTEGER NOT NULL,
    top_score      DOUBLE PRECISION NOT NULL,
    top_at         BIGINT NOT NULL,
    top_simplified TEXT,
    PRIMARY KEY (benchmark_id, day, target, model_norm, mode)
);
CREATE INDEX natory_days_group ON natory_days (benchmark_id, model_norm, mode, day);
WITH 
src AS MATERIALIZED (
    SELECT v.benchmark_id, s.id, s.model_norm, s.mode, s.score, s.created_at,
           CAST(s.result::jsonb ->> 'target' AS DOUBLE PRECISION) AS target,
           (s.result::jsonb ->> 'simplified') AS simplified,
           CAST(s.extra::jsonb ->> 'cost' AS DOUBLE PRECISION) AS cost,
           CAST(s.extra::jsonb ->> 'latency' AS DOUBLE PRECISION) AS latency
    FROM board_source AS v JOIN submissions AS s ON s.id = v.id
    WHERE v.benchmark_id IN (SELECT id FROM benchmarks WHERE name = 'natory') AND (s.result::jsonb ->> 'valid') IN ('true', '1')),
a AS (
    SELECT src.*, (CASE WHEN simplified ~ '^[0-9]+$' THEN 1 ELSE 0 END) AS trivial FROM src),
per AS MATERIALIZED (
    SELECT a.*, created_at / 86400000 AS day, COALESCE(target, 0) AS line,
           ROW_NUMBER() OVER (PARTITION BY benchmark_id, created_at / 86400000,
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
INSERT INTO natory_days (benchmark_id, day, target, model_norm, mode, attempts, valid, score_sum, best,
cost_sum, cost_n, latency_sum, latency_n, first_at, last_at, top_id, top_trivial,
top_score, top_at, top_simplified)
SELECT g.benchmark_id, g.day, g.line, g.model_norm, g.mode, g.attempts, g.valid,
       g.score_sum, g.best, g.cost_sum, g.cost_n, g.latency_sum, g.latency_n, g.first_at,
       g.last_at, p.id, p.trivial, p.score, p.created_at, p.simplified
FROM groups AS g JOIN per AS p
    ON p.benchmark_id = g.benchmark_id AND p.day = g.day AND p.line = g.line
   AND p.model_norm = g.model_norm AND p.mode = g.mode
WHERE p.rn = 1;

CREATE TABLE natory_spans (
    benchmark_id   BIGINT NOT NULL REFERENCES benchmarks (id),
    span           INTEGER NOT NULL,
    model_norm     TEXT NOT NULL,
    mode           TEXT NOT NULL,
    valid          BIGINT NOT NULL,
    score_sum      DOUBLE PRECISION NOT NULL,
    best           DOUBLE PRECISION,
    PRIMARY KEY (benchmark_id, span, model_norm, mode)
);
CREATE INDEX natory_spans_group ON natory_spans (benchmark_id, model_norm, mode);
CREATE TABLE natory_span_days (
    benchmark_id BIGINT NOT NULL REFERENCES benchmarks (id),
    span         INTEGER NOT NULL,
    from_day     BIGINT NOT NULL,
    PRIMARY KEY (benchmark_id, span)
);

CREATE TABLE natory_attempts (
    benchmark_id   BIGINT NOT NULL REFERENCES benchmarks (id),
    created_at     BIGINT NOT NULL,
    id             BIGINT NOT NULL,
    model_norm     TEXT NOT NULL,
    mode           TEXT NOT NULL,
    target         DOUBLE PRECISION NOT NULL,
    score          DOUBLE PRECISION NOT NULL,
    trivial        INTEGER NOT NULL,
    PRIMARY KEY (benchmark_id, created_at, id)
);
CREATE INDEX natory_attempts_group ON natory_attempts (benchmark_id, model_norm, mode);
WITH 
src AS MATERIALIZED (
    SELECT v.benchmark_id, s.id, s.model_norm, s.mode, s.score, s.created_at,
           CAST(s.result::jsonb ->> 'target' AS DOUBLE PRECISION) AS target,
           (s.result::jsonb ->> 'simplified') AS simplified,
           CAST(s.extra::jsonb ->> 'cost' AS DOUBLE PRECISION) AS cost,
           CAST(s.extra::jsonb ->> 'latency' AS DOUBLE PRECISION) AS latency
    FROM board_source AS v JOIN submissions AS s ON s.id = v.id
    WHERE v.benchmark_id IN (SELECT id FROM benchmarks WHERE name = 'natory') AND (s.result::jsonb ->> 'valid') IN ('true', '1')),
a AS (
    SELECT src.*, (CASE WHEN simplified ~ '^[0-9]+$' THEN 1 ELSE 0 END) AS trivial FROM src)
INSERT INTO natory_attempts (benchmark_id, created_at, id, model_norm, mode, target, score, trivial)
SELECT benchmark_id, created_at, id, model_norm, mode, COALESCE(target, 0), score, trivial
FROM a;
"""

#: Benchboard's own runs (:mod:`storage.runs`). ``submissions.origin`` says who made a
#: submission: NULL a person's paste, ``benchboard`` a run the bot made itself (its
#: mark on every board). A run (``runs``) asks for some attempts of one model; each
#: attempt (``run_attempts``) is claimed with a lease like the intake's (``owner``,
#: ``lease_until`` in UTC ms, renewed while it runs), so any instance finishes what a
#: dead one left and two never run the same attempt; ``dedupe`` makes a daily or
#: sponsored run once. ``sponsorships`` are paid Telegram Stars, the sponsor's name
#: shown on the target's board. PostgreSQL's text: ``pg_schema.STEPS``.
V19_RUNS = """
ALTER TABLE submissions ADD COLUMN origin TEXT;
CREATE TABLE runs (
    id             INTEGER PRIMARY KEY,
    benchmark      TEXT NOT NULL,
    model          TEXT NOT NULL,
    mode           TEXT NOT NULL,
    target         BIGINT,
    attempts       INTEGER NOT NULL CHECK (attempts >= 1),
    origin         TEXT NOT NULL,
    requested_by   BIGINT,
    chat_id        BIGINT,
    progress_id    BIGINT,
    sponsorship_id BIGINT,
    dedupe         TEXT UNIQUE,
    state          TEXT NOT NULL DEFAULT 'queued'
                   CHECK (state IN ('queued', 'done', 'cancelled')),
    created_at     BIGINT NOT NULL,
    finished_at    BIGINT
);
CREATE INDEX runs_requested ON runs (requested_by, created_at);
CREATE INDEX runs_created ON runs (created_at);
CREATE TABLE run_attempts (
    id            INTEGER PRIMARY KEY,
    run_id        BIGINT NOT NULL REFERENCES runs (id),
    n             INTEGER NOT NULL,
    state         TEXT NOT NULL DEFAULT 'queued'
                  CHECK (state IN ('queued', 'done', 'failed', 'cancelled')),
    owner         TEXT,
    lease_until   BIGINT NOT NULL DEFAULT 0,
    submission_id BIGINT,
    score         REAL,
    input_tokens  BIGINT,
    output_tokens BIGINT,
    cost_usd      REAL,
    latency_s     REAL,
    transcript    TEXT,
    error         TEXT,
    finished_at   BIGINT,
    UNIQUE (run_id, n)
);
CREATE INDEX run_attempts_open ON run_attempts (lease_until, id) WHERE state = 'queued';
CREATE INDEX run_attempts_submission ON run_attempts (submission_id)
    WHERE submission_id IS NOT NULL;
CREATE TABLE sponsorships (
    id          INTEGER PRIMARY KEY,
    user_id     BIGINT NOT NULL,
    benchmark   TEXT NOT NULL,
    target      BIGINT NOT NULL,
    name        TEXT NOT NULL,
    link        TEXT,
    stars       INTEGER NOT NULL,
    charge_id   TEXT NOT NULL UNIQUE,
    created_at  BIGINT NOT NULL,
    refunded_at BIGINT
);
CREATE INDEX sponsorships_target ON sponsorships (benchmark, target);
"""


#: The copy check's index written by the database itself, from what the check kept in
#: the submission's ``extra`` (``{"trust": {"answers": ..., "bands": [...]}}``): when a
#: submission is published (its visibility set to ``published``) and when it is held (its
#: ``trust_flags`` row made), its answer set and band hashes go into ``trust_answers`` and
#: ``trust_bands`` in the same statement's transaction, with no trip more than the
#: statement that publishes or holds it. A second time changes nothing. PostgreSQL's text:
#: ``pg_schema.STEPS`` (a PL/pgSQL function of the same rows).
V22_SQLITE = """
CREATE TRIGGER trust_index_published AFTER UPDATE OF visibility ON submissions
WHEN NEW.visibility = 'published'
    AND CASE WHEN json_valid(NEW.extra) THEN json_type(NEW.extra, '$.trust.answers') END = 'text'
BEGIN
    INSERT INTO trust_answers (benchmark_id, submission_id, answers)
    VALUES (NEW.benchmark_id, NEW.id, json_extract(NEW.extra, '$.trust.answers'))
    ON CONFLICT (benchmark_id, submission_id) DO NOTHING;
    INSERT INTO trust_bands (benchmark_id, hash, submission_id, user_id)
    SELECT DISTINCT NEW.benchmark_id, value, NEW.id, NEW.user_id
    FROM json_each(NEW.extra, '$.trust.bands') WHERE type = 'integer'
    ON CONFLICT (benchmark_id, hash, submission_id) DO NOTHING;
END;
CREATE TRIGGER trust_index_held AFTER INSERT ON trust_flags
BEGIN
    INSERT INTO trust_answers (benchmark_id, submission_id, answers)
    SELECT s.benchmark_id, s.id, json_extract(s.extra, '$.trust.answers')
    FROM submissions AS s WHERE s.id = NEW.submission_id
        AND CASE WHEN json_valid(s.extra) THEN json_type(s.extra, '$.trust.answers') END = 'text'
    ON CONFLICT (benchmark_id, submission_id) DO NOTHING;
    INSERT INTO trust_bands (benchmark_id, hash, submission_id, user_id)
    SELECT DISTINCT s.benchmark_id, j.value, s.id, s.user_id
    FROM submissions AS s,
        json_each(CASE WHEN json_valid(s.extra) THEN s.extra END, '$.trust.bands') AS j
    WHERE s.id = NEW.submission_id AND j.type = 'integer'
    ON CONFLICT (benchmark_id, hash, submission_id) DO NOTHING;
END;
"""

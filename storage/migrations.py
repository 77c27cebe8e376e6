"""Numbered, forward-only schema migrations, recorded in ``schema_migrations``.

Each step runs in its own transaction together with the row that records it, so a
failed step leaves the file at the previous version. A step's SQL is frozen once
released: a change to the schema is a new step appended to :data:`MIGRATIONS`, never
an edit of an old one (tests migrate fixture files of every earlier version).

Boards read published submissions only through the ``board_source`` view (which leaves
out banned users) and the summaries (``board_totals``, ``board_runs``, ``board_days``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import aiosqlite

from . import frozen_steps
from .errors import SchemaError


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str
    #: The SQL reads the same on PostgreSQL (else its text is in
    #: ``storage.engines.pg_schema.STEPS``).
    shared: bool = False


_V1_CORE = """
CREATE TABLE users (
    id              INTEGER PRIMARY KEY,        -- Telegram user id
    first_name      TEXT NOT NULL DEFAULT '',
    last_name       TEXT,
    username        TEXT,
    language_code   TEXT,                       -- as Telegram reports it
    chosen_language TEXT,                       -- the /lang choice
    first_seen      INTEGER NOT NULL,           -- UTC, milliseconds since the epoch
    last_seen       INTEGER NOT NULL
);

CREATE TABLE chats (
    id         INTEGER PRIMARY KEY,             -- Telegram chat id
    type       TEXT NOT NULL DEFAULT 'unknown', -- private, group, supergroup, channel
    title      TEXT,
    first_seen INTEGER NOT NULL,
    last_seen  INTEGER NOT NULL
);

CREATE TABLE benchmarks (
    id             INTEGER PRIMARY KEY,
    name           TEXT NOT NULL UNIQUE,
    current_key_id INTEGER REFERENCES key_versions (id)
);

CREATE TABLE key_versions (
    id           INTEGER PRIMARY KEY,
    benchmark_id INTEGER NOT NULL REFERENCES benchmarks (id),
    version      INTEGER NOT NULL CHECK (version >= 1),
    sha256       TEXT NOT NULL CHECK (length(sha256) = 64),
    data         BLOB NOT NULL,
    source       TEXT NOT NULL,
    loaded_at    INTEGER NOT NULL,
    UNIQUE (benchmark_id, version),
    UNIQUE (benchmark_id, sha256)
);

CREATE TABLE submissions (
    id             INTEGER PRIMARY KEY,
    user_id        INTEGER NOT NULL REFERENCES users (id),
    chat_id        INTEGER NOT NULL REFERENCES chats (id),
    message_id     INTEGER NOT NULL,
    benchmark_id   INTEGER NOT NULL REFERENCES benchmarks (id),
    key_version_id INTEGER REFERENCES key_versions (id),  -- NULL: scored without a key
    model          TEXT,                                  -- as typed
    model_norm     TEXT,                                  -- case and whitespace folded
    mode           TEXT CHECK (mode IN ('default', 'think', 'tools', 'think_tools')),
    raw            BLOB NOT NULL,                         -- zlib(UTF-8 of the input)
    raw_chars      INTEGER NOT NULL,
    result         TEXT NOT NULL CHECK (json_valid(result)),  -- the result's to_record()
    score          REAL NOT NULL,                         -- the ranking figure (primary)
    fingerprint    TEXT,                                  -- digest of normalised answers
    scorer_version TEXT NOT NULL,
    extra          TEXT CHECK (extra IS NULL OR json_valid(extra)),
    created_at     INTEGER NOT NULL,
    published_at   INTEGER,
    visibility     TEXT NOT NULL DEFAULT 'private'
                   CHECK (visibility IN ('private', 'published', 'hidden', 'withdrawn')),
    verified       INTEGER NOT NULL DEFAULT 0 CHECK (verified IN (0, 1)),
    CHECK ((model IS NULL) = (model_norm IS NULL)),
    CHECK (visibility <> 'published' OR (model IS NOT NULL AND mode IS NOT NULL)),
    UNIQUE (chat_id, message_id)                          -- one submission per message
);

-- a user's history, today's count, per-user boards
CREATE INDEX submissions_user_time ON submissions (user_id, created_at);

CREATE TABLE reference_results (
    id           INTEGER PRIMARY KEY,
    benchmark_id INTEGER NOT NULL REFERENCES benchmarks (id),
    model        TEXT NOT NULL,
    model_norm   TEXT NOT NULL,
    mode         TEXT NOT NULL CHECK (mode IN ('default', 'think', 'tools', 'think_tools')),
    score        REAL NOT NULL,
    source       TEXT NOT NULL,
    added_at     INTEGER NOT NULL,
    UNIQUE (benchmark_id, model_norm, mode, source)
);

CREATE TABLE rescore_jobs (
    id             INTEGER PRIMARY KEY,
    benchmark_id   INTEGER NOT NULL REFERENCES benchmarks (id),
    key_version_id INTEGER NOT NULL REFERENCES key_versions (id),
    scorer_version TEXT NOT NULL,
    last_id        INTEGER NOT NULL DEFAULT 0,   -- every submission id <= last_id is done
    total          INTEGER NOT NULL DEFAULT 0,
    changed        INTEGER NOT NULL DEFAULT 0,
    skipped        INTEGER NOT NULL DEFAULT 0,
    started_at     INTEGER NOT NULL,
    finished_at    INTEGER
);
CREATE INDEX rescore_jobs_open ON rescore_jobs (benchmark_id) WHERE finished_at IS NULL;
"""

#: What the boards count: published submissions (a moderation step will add bans).
#: ``run_key`` groups equal answer sets: the same fingerprint published twice is one run.
#: Fill ``board_totals`` from ``board_source`` (after step 2 created it, and after step 3
#: redefined ``board_source``): one line per (benchmark, model, mode).
_REBUILD_BOARD_TOTALS = """
WITH src AS (SELECT * FROM board_source),
runs AS (
    SELECT benchmark_id, model_norm, mode, COUNT(*) AS runs, SUM(s) AS score_sum,
           MIN(fa) AS first_at, MAX(la) AS last_at
    FROM (SELECT benchmark_id, model_norm, mode, MAX(score) AS s,
                 MIN(created_at) AS fa, MAX(created_at) AS la
          FROM src GROUP BY benchmark_id, model_norm, mode, run_key)
    GROUP BY benchmark_id, model_norm, mode),
tops AS (
    SELECT benchmark_id, model_norm, mode, id, score, created_at,
           ROW_NUMBER() OVER (PARTITION BY benchmark_id, model_norm, mode
                              ORDER BY score DESC, created_at, id) AS rn
    FROM src)
INSERT INTO board_totals (benchmark_id, model_norm, mode, runs, score_sum, best, best_id,
                          best_at, first_at, last_at)
SELECT t.benchmark_id, t.model_norm, t.mode, r.runs, r.score_sum, t.score, t.id,
       t.created_at, r.first_at, r.last_at
FROM tops AS t JOIN runs AS r USING (benchmark_id, model_norm, mode)
WHERE t.rn = 1;
"""

_V2_BOARDS = (
    """
ALTER TABLE benchmarks ADD COLUMN boards_stale INTEGER NOT NULL DEFAULT 0;

CREATE VIEW board_source AS
SELECT id, user_id, chat_id, benchmark_id, model_norm, mode, score, fingerprint,
       COALESCE(fingerprint, 'id:' || id) AS run_key, created_at
FROM submissions
WHERE visibility = 'published';

-- groups of the boards and the summary rebuild
CREATE INDEX submissions_board_group
    ON submissions (benchmark_id, model_norm, mode, fingerprint)
    WHERE visibility = 'published';
-- time windows (covering: no table lookups)
CREATE INDEX submissions_board_time
    ON submissions (benchmark_id, created_at, model_norm, mode, score, fingerprint)
    WHERE visibility = 'published';

-- The global all-time board, one row per (benchmark, normalised model, mode): derived
-- from board_source, refreshed per group on every change, rebuilt after a re-score.
CREATE TABLE board_totals (
    benchmark_id INTEGER NOT NULL REFERENCES benchmarks (id),
    model_norm   TEXT NOT NULL,
    mode         TEXT NOT NULL,
    runs         INTEGER NOT NULL,
    score_sum    REAL NOT NULL,
    best         REAL NOT NULL,
    best_id      INTEGER NOT NULL,
    best_at      INTEGER NOT NULL,
    first_at     INTEGER NOT NULL,
    last_at      INTEGER NOT NULL,
    PRIMARY KEY (benchmark_id, model_norm, mode)
) WITHOUT ROWID;
CREATE INDEX board_totals_rank ON board_totals (benchmark_id, best DESC, best_at, best_id);

"""
    + _REBUILD_BOARD_TOTALS
)

#: Moderation: bans (a banned user's submissions leave every board) and the audit log.
#: The boards read ``board_source``: the step redefines it and rebuilds ``board_totals``
#: from it with step 2's statement (``Store.ban`` refreshes the lines a ban touches).
_V3_MODERATION = (
    """
CREATE TABLE bans (
    user_id   INTEGER PRIMARY KEY,              -- Telegram user id (seen or not)
    reason    TEXT,
    banned_by INTEGER NOT NULL,
    banned_at INTEGER NOT NULL
);

CREATE TABLE audit_log (
    id       INTEGER PRIMARY KEY,
    at       INTEGER NOT NULL,                  -- UTC, milliseconds since the epoch
    actor_id INTEGER NOT NULL,                  -- who (Telegram user id)
    chat_id  INTEGER,                           -- the submission's chat; NULL: bot-wide
    action   TEXT NOT NULL,                     -- hide, unhide, verify, ban, unban, setkey, ...
    target   TEXT NOT NULL,                     -- a submission id, a user id, a benchmark
    reason   TEXT                               -- the rest of the command line
);
CREATE INDEX audit_log_chat ON audit_log (chat_id, id);

DROP VIEW board_source;
CREATE VIEW board_source AS
SELECT id, user_id, chat_id, benchmark_id, model_norm, mode, score, fingerprint,
       COALESCE(fingerprint, 'id:' || id) AS run_key, created_at
FROM submissions
WHERE visibility = 'published' AND user_id NOT IN (SELECT user_id FROM bans);

DELETE FROM board_totals;
"""
    + _REBUILD_BOARD_TOTALS
)

#: Boards by rank walk (windowed, mode and chat boards without grouping every row).
#: ``submissions_board_rank`` lists a benchmark's published rows by mode in rank order
#: (score DESC, earliest first): a windowed or mode board walks it (the four modes merged)
#: until its page holds enough distinct (model, mode) groups; it covers ``board_source``
#: (``user_id`` for bans) and the summary rebuilds. ``board_runs`` (one row per run: equal
#: answer sets of a group) and ``board_days`` (runs by the day of their last row) give a
#: group's runs and mean in a window without sorting answer sets;
#: ``submissions_board_window`` finds a group's first row in a window and
#: ``submissions_board_chat`` a chat's slice. A narrow window (a day, a quiet week: few
#: rows, and the walk would read past most of the benchmark) is aggregated from its own
#: rows, read in time order from ``submissions_board_recent`` (which replaces
#: ``submissions_board_time``, adding ``user_id``). The rank and recent indexes hold
#: ``score``; a re-score (in id, so time, order) moves the recent entries page by page.
#: ``board_totals`` is rebuilt (step 3's statement): the walk counts a window's groups by
#: its ``last_at``.
_V4_BOARD_WALK = (
    """
CREATE INDEX submissions_board_rank
    ON submissions (benchmark_id, mode, score DESC, created_at, id, model_norm, user_id,
                    fingerprint)
    WHERE visibility = 'published';
CREATE INDEX submissions_board_window
    ON submissions (benchmark_id, model_norm, mode, created_at, user_id)
    WHERE visibility = 'published';
CREATE INDEX submissions_board_recent
    ON submissions (benchmark_id, created_at, model_norm, mode, score, fingerprint, user_id)
    WHERE visibility = 'published';
CREATE INDEX submissions_board_chat
    ON submissions (chat_id, benchmark_id, model_norm, mode, created_at, fingerprint, user_id)
    WHERE visibility = 'published';
DROP INDEX submissions_board_time;

-- One row per run (equal answer sets of a group): its best and lowest score, its first
-- and last time. Ordered by last time: the runs in a window are a range of it.
CREATE TABLE board_runs (
    benchmark_id INTEGER NOT NULL REFERENCES benchmarks (id),
    model_norm   TEXT NOT NULL,
    mode         TEXT NOT NULL,
    last_at      INTEGER NOT NULL,
    run_key      TEXT NOT NULL,
    best         REAL NOT NULL,
    low          REAL NOT NULL,
    first_at     INTEGER NOT NULL,
    PRIMARY KEY (benchmark_id, model_norm, mode, last_at, run_key)
) WITHOUT ROWID;
INSERT INTO board_runs (benchmark_id, model_norm, mode, last_at, run_key, best, low, first_at)
SELECT benchmark_id, model_norm, mode, MAX(created_at), run_key, MAX(score), MIN(score),
       MIN(created_at)
FROM board_source GROUP BY benchmark_id, model_norm, mode, run_key;

-- Runs counted by the day of their last row: a window's runs and score sum are its whole
-- days plus the runs of its first (partial) day.
CREATE TABLE board_days (
    benchmark_id INTEGER NOT NULL REFERENCES benchmarks (id),
    model_norm   TEXT NOT NULL,
    mode         TEXT NOT NULL,
    day          INTEGER NOT NULL,              -- last_at / 86400000
    runs         INTEGER NOT NULL,
    score_sum    REAL NOT NULL,                 -- of the runs' best scores
    mixed        INTEGER NOT NULL,              -- runs whose rows' scores differ
    PRIMARY KEY (benchmark_id, model_norm, mode, day)
) WITHOUT ROWID;
INSERT INTO board_days (benchmark_id, model_norm, mode, day, runs, score_sum, mixed)
SELECT benchmark_id, model_norm, mode, last_at / 86400000, COUNT(*), TOTAL(best),
       SUM(low < best)
FROM board_runs GROUP BY benchmark_id, model_norm, mode, last_at / 86400000;

DELETE FROM board_totals;
"""
    + _REBUILD_BOARD_TOTALS
)

#: Windowed boards by week.
#: ``submissions_board_week`` lists a benchmark's published rows by the week of their time
#: (``created_at / 604800000``: UTC weeks since the epoch) and, inside a week, in rank
#: order (score DESC, earliest first): a 7- or 30-day board walks the two to six weeks its
#: window touches, merged, instead of the whole benchmark's rank index (where most rows lie
#: outside the window). It replaces ``submissions_board_recent`` (the rebuild reads the
#: rank index, which covers the same columns). ``submissions_board_chat`` gains ``score``:
#: a chat's board reads its slice from the index alone, no row of the table.
#: ``board_totals_recent`` counts the groups of a window (by their last time).
_V5_BOARD_WEEKS = """
CREATE INDEX submissions_board_week
    ON submissions (benchmark_id, created_at / 604800000, score DESC, created_at, id, mode,
                    model_norm, user_id)
    WHERE visibility = 'published';
DROP INDEX submissions_board_recent;
DROP INDEX submissions_board_chat;
CREATE INDEX submissions_board_chat
    ON submissions (chat_id, benchmark_id, model_norm, mode, created_at, score, fingerprint,
                    user_id)
    WHERE visibility = 'published';
CREATE INDEX board_totals_recent ON board_totals (benchmark_id, last_at, mode);
"""

#: A re-score rewrites the score of most rows of a benchmark, in id (so time) order. The
#: rank and week indexes take each batch's new entries close together (by score, then
#: time), but ``submissions_board_chat`` starts with the chat: every changed row dirtied a
#: page of its own there, and those page writes made most of a re-score's database time.
#: Its entries drop ``score`` (a chat board reads a row's score from the table, one lookup
#: per row of the chat's slice); a re-score no longer touches the index.
_V6_CHAT_WITHOUT_SCORE = """
DROP INDEX submissions_board_chat;
CREATE INDEX submissions_board_chat
    ON submissions (chat_id, benchmark_id, model_norm, mode, created_at, fingerprint, user_id)
    WHERE visibility = 'published';
"""

#: The durable intake: every update Telegram delivers is written here before Telegram is
#: told it arrived (the next ``getUpdates`` offset, or the webhook's 200), and marked done
#: once handled. On start the bot handles what is not done, in order. ``update_id`` is
#: Telegram's: a second delivery of the same update is a no-op. A publication checks the
#: day's allowance in its own transaction: ``submissions_user_published`` counts a user's
#: publications of the day without reading their rows.
_V7_INTAKE = """
CREATE TABLE intake (
    update_id   INTEGER PRIMARY KEY,
    body        TEXT NOT NULL,                  -- the update's JSON, as Telegram sent it
    received_at INTEGER NOT NULL,               -- UTC, milliseconds since the epoch
    done_at     INTEGER                         -- NULL while not handled
);
CREATE INDEX intake_open ON intake (update_id) WHERE done_at IS NULL;
CREATE INDEX intake_done ON intake (done_at) WHERE done_at IS NOT NULL;
CREATE INDEX submissions_user_published ON submissions (user_id, published_at)
    WHERE published_at IS NOT NULL;
"""

_V8_LINKS = """
CREATE TABLE links (
    token         TEXT PRIMARY KEY,             -- random, URL-safe, at most 32 characters
    kind          TEXT NOT NULL CHECK (kind IN ('result', 'challenge', 'group', 'web')),
    submission_id INTEGER REFERENCES submissions (id),   -- result, challenge
    chat_id       INTEGER REFERENCES chats (id),         -- group, web
    created_by    INTEGER,                      -- Telegram user id (NULL: the bot)
    created_at    INTEGER NOT NULL,
    revoked_at    INTEGER,                      -- NULL while the link works
    CHECK ((submission_id IS NULL) <> (chat_id IS NULL))
);
CREATE UNIQUE INDEX links_live_submission ON links (kind, submission_id)
    WHERE submission_id IS NOT NULL AND revoked_at IS NULL;
CREATE UNIQUE INDEX links_live_chat ON links (kind, chat_id)
    WHERE chat_id IS NOT NULL AND revoked_at IS NULL;
ALTER TABLE users ADD COLUMN public INTEGER NOT NULL DEFAULT 0;  -- /public: name on the web
"""

_V9_SHARING = """
CREATE TABLE card_themes (
    user_id INTEGER PRIMARY KEY,                -- Telegram user id
    theme   TEXT NOT NULL CHECK (theme IN ('light', 'dark'))
);
CREATE TABLE card_files (
    key        TEXT PRIMARY KEY,                -- digest of what the image shows
    file_id    TEXT NOT NULL,                   -- Telegram's id of the uploaded PNG
    created_at INTEGER NOT NULL
);
"""

#: The web boards' "verified only" filter: a benchmark's verified published rows in rank
#: order (few: an admin verifies each), grouped per (model, mode) when read
#: (``storage.web_rows.verified_page``), never a scan of the benchmark.
_V10_VERIFIED = """
CREATE INDEX submissions_board_verified
    ON submissions (benchmark_id, mode, score DESC, created_at, id)
    WHERE visibility = 'published' AND verified = 1;
"""

#: State the instances of one bot share (PostgreSQL; on SQLite the one process keeps it
#: too): a reply the bot waits for (``input:``), a scheduled job's run claimed by one
#: instance (``job:``), a shared send-rate schedule (``rate:``). ``number`` holds a count
#: or a time; ``expires_at`` lets stale entries be ignored and pruned. Shared SQL.
_V11_SHARED_STATE = """
CREATE TABLE shared_state (
    name       TEXT PRIMARY KEY,
    value      TEXT NOT NULL DEFAULT '',
    number     BIGINT NOT NULL DEFAULT 0,
    expires_at BIGINT
);
CREATE INDEX shared_state_expiry ON shared_state (expires_at) WHERE expires_at IS NOT NULL;
"""

# Steps 12 and 13 (the first challenge summaries), 19 (runs) and 22 (the copy check's
# index triggers) are frozen in :mod:`storage.frozen_steps`.

#: The intake as a work queue shared by several instances (:mod:`storage.intake`): an
#: update is handled by the instance that holds its lease, ``owner`` (a name of the
#: running store, NULL: none) until ``lease_until`` (UTC milliseconds), renewed while
#: it is handled; once it lapses (the instance died) another instance takes the update.
#: Rows kept before this step have no lease (0): the next instance to start takes them.
#: ``intake_leases`` finds the lapsed leases among the unfinished rows. Shared SQL.
_V14_INTAKE_LEASES = """
ALTER TABLE intake ADD COLUMN owner TEXT;
ALTER TABLE intake ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0;
CREATE INDEX intake_leases ON intake (lease_until, update_id) WHERE done_at IS NULL;
"""

#: A group admin's verification (``/verify`` in the group a result was published from):
#: the ✅ on that group's board only (``board_pages.slice_page`` of the chat). ``verified``
#: stays the bot admins' mark, on every board and the web's verified-only board (its
#: partial index is untouched). Read by primary key with the page's rows: no index.
_V15_GROUP_VERIFIED = """
ALTER TABLE submissions ADD COLUMN group_verified INTEGER NOT NULL DEFAULT 0
    CHECK (group_verified IN (0, 1));
"""

#: Benchmarks defined by data (``storage.definitions``): each version of a benchmark's
#: definition (JSON of its ``kind``), the latest one the benchmark's; its key lives in
#: ``key_versions`` like any other. Read whole at start and when the count changes (a
#: handful of rows): no index beyond the key. Shared SQL.
_V16_DEFINITIONS = """
CREATE TABLE benchmark_definitions (
    benchmark_id BIGINT NOT NULL REFERENCES benchmarks (id),
    version      INTEGER NOT NULL CHECK (version >= 1),
    kind         TEXT NOT NULL,
    sha256       TEXT NOT NULL CHECK (length(sha256) = 64),
    definition   TEXT NOT NULL,
    source       TEXT NOT NULL,
    loaded_at    BIGINT NOT NULL,
    PRIMARY KEY (benchmark_id, version)
);
"""

#: Personal API tokens (``storage.tokens``), kept only as hashes, and the API's requests
#: with their idempotency keys. PostgreSQL's text is in ``pg_schema.STEPS``.
_V17_API_TOKENS = """
CREATE TABLE api_tokens (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users (id),
    hash         TEXT NOT NULL UNIQUE CHECK (length(hash) = 64),  -- SHA-256 of the token
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
);
CREATE INDEX api_tokens_user ON api_tokens (user_id, created_at);

-- One row per submission through the API: its id names the submission's message
-- (chat: the owner's private chat, message_id: -id), so a repeated request with the
-- same idempotency key finds the submission it made.
CREATE TABLE api_requests (
    id              INTEGER PRIMARY KEY,
    user_id         INTEGER NOT NULL REFERENCES users (id),
    idempotency_key TEXT,
    created_at      INTEGER NOT NULL,
    UNIQUE (user_id, idempotency_key)
);
"""

#: The summaries of steps 12 and 13, once one benchmark's, become any challenge
#: benchmark's (:mod:`storage.challenge_lines`): renamed, their rows kept. Which
#: benchmarks have a challenge, and where their results keep its fields, is
#: ``benchmarks.challenge`` (:class:`~storage.challenge_lines.ChallengeFields` as JSON,
#: NULL: none), which the bot sets at start (``Store.declare_challenges``); the benchmark
#: whose summaries these are gets the fields steps 12 and 13 read. SQLite cannot rename
#: an index: they are made again under the new names. PostgreSQL's text: ``pg_schema``.
V18_TABLES = (
    ("lines", "benchmark_id, model_norm, mode"),
    ("days", "benchmark_id, model_norm, mode, day"),
    ("spans", "benchmark_id, model_norm, mode"),
    ("span_days", ""),
    ("attempts", "benchmark_id, model_norm, mode"),
)
#: The fields steps 12 and 13 read (``ChallengeFields.to_json()``'s spelling).
CHALLENGE_V12_FIELDS = (
    '{"cost": "cost", "latency": "latency", "shown": "simplified", "target": "target", '
    '"trivial": "digits", "valid": "valid"}'
)
V18_MARK = f"""ALTER TABLE benchmarks ADD COLUMN challenge TEXT;
UPDATE benchmarks SET challenge = '{CHALLENGE_V12_FIELDS}'
    WHERE id IN (SELECT benchmark_id FROM natory_lines UNION
                 SELECT benchmark_id FROM natory_days);
"""
_V18_CHALLENGES = V18_MARK + "".join(
    f"ALTER TABLE natory_{t} RENAME TO challenge_{t};\n"
    + (
        f"DROP INDEX natory_{t}_group;\n"
        f"CREATE INDEX challenge_{t}_group ON challenge_{t} ({group});\n"
        if group
        else ""
    )
    for t, group in V18_TABLES
)

#: Trust (``storage.trust``): the answer sets of published and held results, found again
#: by the hashes of their bands (the copy check's candidates: an indexed lookup, never
#: a scan), the results held for review with the admins' decisions, and who opted out
#: of the notices a re-score sends. SQLite keeps the two lookup tables WITHOUT ROWID (a
#: posting's user and an answer set are read from the key's own b-tree, no second
#: lookup); PostgreSQL's text (``V21_TRUST_POSTGRES``) includes the user in the key's
#: index instead. The answer sets are keyed by benchmark, then submission: one b-tree
#: serves the candidates' join and the latest sets (rarity), and a publication appends
#: to it (one page, no second index).
_V21_TRUST_TABLES = """
CREATE TABLE trust_answers (
    benchmark_id  BIGINT NOT NULL,
    submission_id BIGINT NOT NULL,
    answers       TEXT NOT NULL,
    PRIMARY KEY (benchmark_id, submission_id)
){rowid};
CREATE TABLE trust_bands (
    benchmark_id  BIGINT NOT NULL,
    hash          BIGINT NOT NULL,
    submission_id BIGINT NOT NULL,
    user_id       BIGINT NOT NULL,
    PRIMARY KEY (benchmark_id, hash, submission_id){include}
){rowid};
CREATE TABLE trust_flags (
    submission_id BIGINT PRIMARY KEY,
    reason        TEXT NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('held', 'released', 'rejected')),
    held_at       BIGINT NOT NULL,
    decided_by    BIGINT,
    decided_at    BIGINT
);
CREATE INDEX trust_flags_state ON trust_flags (state, held_at);
CREATE TABLE notice_prefs (
    user_id BIGINT PRIMARY KEY,
    off     INTEGER NOT NULL
);
"""
_V21_TRUST = _V21_TRUST_TABLES.format(rowid=" WITHOUT ROWID", include="")
V21_TRUST_POSTGRES = _V21_TRUST_TABLES.format(rowid="", include=" INCLUDE (user_id)")

#: What a board's 95 % interval and its provenance filter read of a submission: the
#: standard error of its score over its questions (``score_se``: NULL not yet computed,
#: -1 none to compute, e.g. one expression; filled when a board first shows the row, and
#: cleared by a re-score that changes the result), and the provider its submitter named
#: (``provider``, folded to lower case; the rest of its provenance is in ``extra``).
#: ``submissions_provider`` finds a provider's published rows (``?provider=``): a partial
#: index, empty until providers are named. ``board_totals.score_sq_sum`` and
#: ``board_days.score_sq_sum`` (the sum of the squares of a line's run scores, beside their
#: sum) give a line's spread of runs in one read (all time) or a few (the last days), kept
#: where ``score_sum`` is. Shared SQL.
_V20_INTERVALS_PROVENANCE = """
ALTER TABLE submissions ADD COLUMN score_se DOUBLE PRECISION;
ALTER TABLE submissions ADD COLUMN provider TEXT;
CREATE INDEX submissions_provider ON submissions (benchmark_id, provider, model_norm, mode)
    WHERE provider IS NOT NULL AND visibility = 'published';
ALTER TABLE board_days ADD COLUMN score_sq_sum DOUBLE PRECISION NOT NULL DEFAULT 0;
UPDATE board_days SET score_sq_sum = COALESCE(
    (SELECT SUM(r.best * r.best) FROM board_runs AS r
     WHERE r.benchmark_id = board_days.benchmark_id
       AND r.model_norm = board_days.model_norm AND r.mode = board_days.mode
       AND r.last_at / 86400000 = board_days.day), 0);
ALTER TABLE board_totals ADD COLUMN score_sq_sum DOUBLE PRECISION NOT NULL DEFAULT 0;
UPDATE board_totals SET score_sq_sum = COALESCE(
    (SELECT SUM(r.best * r.best) FROM board_runs AS r
     WHERE r.benchmark_id = board_totals.benchmark_id
       AND r.model_norm = board_totals.model_norm AND r.mode = board_totals.mode), 0);
"""

#: Every step, in order. Append only.
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "core: users, chats, benchmarks, keys, submissions, references", _V1_CORE),
    Migration(2, "boards: board_source view, board indexes, board_totals summary", _V2_BOARDS),
    Migration(3, "moderation: bans, audit_log, board_source without banned users", _V3_MODERATION),
    Migration(4, "boards: rank walk, window and chat indexes, board_runs", _V4_BOARD_WALK),
    Migration(5, "boards: weekly rank index, covering chat index", _V5_BOARD_WEEKS),
    Migration(6, "boards: chat index without the score (re-score writes)", _V6_CHAT_WITHOUT_SCORE),
    Migration(7, "intake: updates kept until handled; publications by day", _V7_INTAKE),
    Migration(8, "links: opaque tokens for results, challenges, group boards; /public", _V8_LINKS),
    Migration(9, "sharing: result card theme per user, uploaded card file ids", _V9_SHARING),
    Migration(10, "boards: index of verified published rows (web filter)", _V10_VERIFIED, True),
    Migration(11, "shared state: awaited replies, job claims, send rate", _V11_SHARED_STATE, True),
    Migration(12, "boards: natory_lines, the Natory board's summary", frozen_steps.V12_SQLITE),
    Migration(
        13, "boards: natory_days and natory_spans, Natory boards over days", frozen_steps.V13_SQLITE
    ),
    Migration(
        14, "intake: leases, several instances share it as a work queue", _V14_INTAKE_LEASES, True
    ),
    Migration(
        15, "moderation: a group admin's verification, on its board", _V15_GROUP_VERIFIED, True
    ),
    Migration(16, "benchmarks defined by data: their definitions", _V16_DEFINITIONS, True),
    Migration(17, "api: personal tokens (hashes), idempotent API requests", _V17_API_TOKENS),
    Migration(18, "boards: challenge summaries, any challenge benchmark's", _V18_CHALLENGES),
    Migration(
        19, "runs: Benchboard's own runs, their attempts, sponsorships", frozen_steps.V19_RUNS
    ),
    Migration(
        20,
        "trust: score standard error (intervals), provider (filter)",
        _V20_INTERVALS_PROVENANCE,
        True,
    ),
    Migration(21, "trust: answer sets and their bands, held results, notices", _V21_TRUST),
    Migration(
        22,
        "trust: answer sets indexed by triggers as they are published",
        frozen_steps.V22_SQLITE,
    ),
)

LATEST = MIGRATIONS[-1].version

_TABLE = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at INTEGER NOT NULL
)
"""


async def current_version(db: aiosqlite.Connection) -> int:
    await db.execute(_TABLE)
    async with db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations") as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


async def migrate(db: aiosqlite.Connection, *, target: int | None = None) -> list[int]:
    """Bring the database up to ``target`` (default: the latest); return the steps run.

    ``db`` must be in autocommit mode (``isolation_level=None``). Each step and its
    record commit together or not at all.
    """
    target = LATEST if target is None else target
    version = await current_version(db)
    if version > LATEST:
        raise SchemaError(
            f"the database is at schema version {version}, newer than this code ({LATEST})"
        )
    applied: list[int] = []
    for step in MIGRATIONS:
        if step.version <= version or step.version > target:
            continue
        record = (
            "INSERT INTO schema_migrations (version, name, applied_at) "
            f"VALUES ({step.version}, '{step.name.replace(chr(39), chr(39) * 2)}', "
            f"{int(time.time() * 1000)});"
        )
        try:
            # executescript runs the statements as written: BEGIN ... COMMIT is one
            # transaction (SQLite DDL is transactional).
            await db.executescript(f"BEGIN IMMEDIATE;\n{step.sql}\n{record}\nCOMMIT;")
        except Exception as exc:
            if db.in_transaction:
                await db.execute("ROLLBACK")
            raise SchemaError(f"migration {step.version} ({step.name}) failed: {exc}") from exc
        applied.append(step.version)
    return applied

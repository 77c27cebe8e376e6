"""The step that makes the first challenge's summaries (steps 12 and 13, named for
Natory) any challenge benchmark's: a database one step before it, holding Natory's
summaries, keeps the same boards after it."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import aiosqlite

from scoring import natory
from storage import ChallengeFields, Store, analytics, migrations
from tests.storage.fixtures.make_fixtures import make as make_fixture
from tests.storage.helpers import FakeClock
from tests.storage.test_analytics import FIELDS, NAME

#: The step that renames the summaries (found by what it does: it may be renumbered).
STEP = next(m.version for m in migrations.MIGRATIONS if "RENAME TO challenge_lines" in m.sql)

# (model, mode, expression, target, cost, latency, visibility)
ATTEMPTS = [
    ("Alpha", "default", "2*sopfr(6)^5+6", 6256, 0.02, 4.0, "published"),
    ("Alpha", "default", "2*5^5+5", 6256, 0.04, 2.0, "published"),  # not the target
    ("Beta", "think", "2*5^5+6", 6256, 0.001, None, "published"),
    ("Gamma", "default", "6256", 6256, None, None, "published"),  # trivial
    ("Delta", "default", "2*5^5+6", 6256, None, None, "private"),
    ("Alpha", "default", "13", 13, None, 1.0, "published"),
]


_ATTEMPT_SQL = """INSERT INTO submissions (user_id, chat_id, message_id, benchmark_id,
    model, model_norm, mode, raw, raw_chars, result, score, fingerprint, scorer_version,
    extra, created_at, published_at, visibility)
VALUES (1, -100, ?, 2, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"""


def _attempts() -> list[tuple[object, ...]]:
    """The parameters of :data:`_ATTEMPT_SQL` for each of :data:`ATTEMPTS`."""
    rows = []
    for i, (model, mode, expression, target, cost, latency, vis) in enumerate(ATTEMPTS):
        result = natory.score(expression, natory.Challenge.for_target(target))
        extra = {"target": target, "cost": cost, "latency": latency}
        at = 1767225600000 + i * 60_000
        rows.append((
            100 + i, model, model.casefold(), mode, zlib.compress(expression.encode()),
            len(expression), json.dumps(result.to_record()), result.primary,
            result.fingerprint, natory.SCORER_VERSION,
            json.dumps({k: v for k, v in extra.items() if v is not None}), at,
            None if vis == "private" else at, vis,
        ))  # fmt: skip
    return rows


async def _sqlite_before_the_step(path: Path) -> None:
    """A file one step before :data:`STEP` whose Natory attempts went in before step 12
    (which, like 13, summarises them as it runs)."""
    await make_fixture(11, path)
    db = await aiosqlite.connect(path, isolation_level=None)
    try:
        await db.execute("INSERT INTO benchmarks (id, name) VALUES (2, ?)", (NAME,))
        await db.executemany(_ATTEMPT_SQL, _attempts())
        await migrations.migrate(db, target=STEP - 1)
        async with db.execute("SELECT COUNT(*) FROM natory_lines") as cur:
            assert (await cur.fetchone()) == (7,)  # per target and over all targets
    finally:
        await db.close()


async def _postgres_before_the_step(url: str) -> None:
    """The same on PostgreSQL (whose baseline is step 8)."""
    import psycopg

    from storage.engines import pg_schema

    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await pg_schema.migrate(conn, target=11)
        for sql in (
            "INSERT INTO users (id, first_name, first_seen, last_seen) VALUES (1, 'Ali', 0, 0)",
            "INSERT INTO chats (id, type, first_seen, last_seen) VALUES (-100, 'group', 0, 0)",
            "INSERT INTO benchmarks (id, name) VALUES (1, 'primebench')",
        ):
            await conn.execute(sql)
        await conn.execute("INSERT INTO benchmarks (id, name) VALUES (2, %s)", (NAME,))
        async with conn.cursor() as cur:
            await cur.executemany(_ATTEMPT_SQL.replace("?", "%s"), _attempts())
        await pg_schema.migrate(conn, target=STEP - 1)
        found = await (await conn.execute("SELECT COUNT(*) FROM natory_lines")).fetchone()
        assert found == (7,)


def _shown(board: analytics.ChallengeBoard) -> list[tuple[object, ...]]:
    return [
        (r.rank, r.model, r.mode, r.best, r.mean, r.attempts, r.valid, r.targets,
         r.mean_cost, r.mean_latency, r.best_expression, r.trivial)
        for r in board.rows
    ]  # fmt: skip


async def _from_rows(store: Store, **kw: object) -> analytics.ChallengeBoard:
    """The board read from the rows, not the summaries (as while they are stale)."""
    async with store.db.write() as s:
        await s.execute("UPDATE benchmarks SET boards_stale = 1 WHERE name = ?", (NAME,))
    try:
        return await analytics.challenge_board(store, NAME, FIELDS, **kw)  # type: ignore[arg-type]
    finally:
        async with store.db.write() as s:
            await s.execute("UPDATE benchmarks SET boards_stale = 0 WHERE name = ?", (NAME,))


async def _tables(store: Store) -> set[str]:
    sql = (
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() UNION "
        "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() UNION "
        "SELECT conname FROM pg_constraint WHERE connamespace = current_schema()::regnamespace"
        if store.db.kind == "postgresql"
        else "SELECT name FROM sqlite_master"
    )
    async with store.db.read() as s:
        return {str(n) for (n,) in await s.all(sql)}


async def test_natory_summaries_move_to_the_challenge_tables_with_the_same_boards(
    db_path: Path, engine: str
) -> None:
    if engine == "sqlite":
        db_path.parent.mkdir(parents=True, exist_ok=True)
        await _sqlite_before_the_step(db_path)
    else:
        await _postgres_before_the_step(str(db_path))
    async with await Store.open(db_path, clock=FakeClock()) as store:
        tables = await _tables(store)
        async with store.db.read() as s:
            marked = await s.all("SELECT name, challenge FROM benchmarks ORDER BY id")
            lines = await s.one("SELECT COUNT(*) FROM challenge_lines")
        assert not {t for t in tables if "natory" in t}
        assert {"challenge_lines", "challenge_days", "challenge_spans", "challenge_span_days",
                "challenge_attempts", "challenge_lines_group"} <= tables  # fmt: skip
        # the benchmark whose summaries they are is marked with the fields they read
        assert [(n, c and ChallengeFields.from_json(c)) for n, c in marked] == [
            ("primebench", None),
            (NAME, FIELDS),
        ]
        assert lines == (7,)
        target = await analytics.challenge_board(store, NAME, FIELDS, target=6256)
        assert _shown(target) == [
            (1, "Alpha", "default", 133.0, 133.0, 1, 1, 1, 0.02, 4.0, "2 * sopfr(6)^5 + 6",
             False),
            (2, "Beta", "think", 41.0, 41.0, 1, 1, 1, 0.001, None, "2 * 5^5 + 6", False),
            (3, "Gamma", "default", 0.0, 0.0, 1, 0, 1, None, None, "6256", True),
        ]  # fmt: skip
        for kw in ({"target": 6256}, {}, {"target": 13}, {"mode": "think"}):
            assert _shown(await analytics.challenge_board(store, NAME, FIELDS, **kw)) == _shown(
                await _from_rows(store, **kw)
            ), kw
        # the bot declaring the same challenge at start changes nothing
        await store.declare_challenges({NAME: FIELDS})
        assert _shown(await analytics.challenge_board(store, NAME, FIELDS)) == _shown(
            await _from_rows(store)
        )
        assert (await analytics.challenge_board(store, NAME, FIELDS)).total == 3

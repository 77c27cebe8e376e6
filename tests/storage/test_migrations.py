"""Opening a store: pragmas, migrations from an empty file and from every earlier version."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import aiosqlite
import pytest

from storage import SCHEMA_VERSION, InvalidData, SchemaError, Store, migrations
from tests.storage.fixtures.make_fixtures import make as make_fixture
from tests.storage.helpers import FakeClock

FIXTURES = Path(__file__).parent / "fixtures"


def schema(path: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(path) as con:
        rows = con.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' "
            "ORDER BY type, name"
        ).fetchall()
    return [(t, n, " ".join((s or "").split())) for t, n, s in rows]


async def test_open_sets_the_pragmas_and_creates_the_folder(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "db.sqlite3"
    async with await Store.open(path) as store:
        assert await store.schema_version() == SCHEMA_VERSION
        # the pragmas are per connection: look at the store's own
        async with store.db.read() as s:
            for pragma, want in (
                ("journal_mode", "wal"),
                ("foreign_keys", 1),
                ("busy_timeout", 5000),
                ("synchronous", 2),
            ):
                row = await s.one(f"PRAGMA {pragma}")
                assert row is not None and row[0] == want, pragma
            mapped = await s.one("PRAGMA mmap_size")
        assert mapped is not None and mapped[0] >= 1 << 30  # 2 GiB asked; SQLite may cap it
    assert path.exists()


async def test_memory_mapping_can_be_turned_off_and_is_never_negative(tmp_path: Path) -> None:
    async with (
        await Store.open(tmp_path / "db.sqlite3", mmap_mb=0) as store,
        store.db.read() as s,
    ):
        assert await s.one("PRAGMA mmap_size") == (0,)
    with pytest.raises(InvalidData):
        await Store.open(tmp_path / "other.sqlite3", mmap_mb=-1)


async def test_reopening_runs_nothing_twice(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    await (await Store.open(path)).close()
    first = schema(path)
    await (await Store.open(path)).close()
    assert schema(path) == first
    with sqlite3.connect(path) as con:
        versions = [v for (v,) in con.execute("SELECT version FROM schema_migrations")]
    assert versions == [step.version for step in migrations.MIGRATIONS]


@pytest.mark.parametrize("start", range(SCHEMA_VERSION))
async def test_migrating_from_every_earlier_version(tmp_path: Path, start: int) -> None:
    fresh = tmp_path / "fresh.sqlite3"
    await (await Store.open(fresh)).close()
    old = tmp_path / f"v{start}.sqlite3"
    await make_fixture(start, old)
    async with await Store.open(old, clock=FakeClock()) as store:
        assert await store.schema_version() == SCHEMA_VERSION
        if start >= 1:
            await check_fixture_data(store)
    assert schema(old) == schema(fresh)


@pytest.mark.parametrize("fixture", sorted(FIXTURES.glob("v*.sqlite3")), ids=lambda p: p.stem)
async def test_migrating_the_committed_fixture_files(tmp_path: Path, fixture: Path) -> None:
    fresh = tmp_path / "fresh.sqlite3"
    await (await Store.open(fresh)).close()
    copy = tmp_path / fixture.name
    shutil.copy(fixture, copy)
    async with await Store.open(copy, clock=FakeClock()) as store:
        assert await store.schema_version() == SCHEMA_VERSION
        await check_fixture_data(store)
    assert schema(copy) == schema(fresh)


async def check_fixture_data(store: Store) -> None:
    """What the fixtures hold survives, and the boards are built from it."""
    user = await store.get_user(1)
    assert user is not None and user.username == "ali"
    key = await store.current_key("primebench")
    assert key is not None and key.version == 1
    assert await store.raw_text(3) == "1:2"
    board = await store.leaderboard("primebench")
    assert [(r.model, r.mode, r.best, r.runs, r.mean) for r in board.rows] == [
        ("GPT 6", "default", 4.0, 2, 3.0),
        ("Grok", "think", -3.0, 1, -3.0),
    ]
    assert [r.model for r in board.references] == ["Grok 4.6"]


async def test_a_failing_migration_leaves_the_previous_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "db.sqlite3"
    await (await Store.open(path)).close()
    before = schema(path)
    bad = migrations.Migration(
        SCHEMA_VERSION + 1,
        "broken",
        "CREATE TABLE half_done (x INTEGER); INSERT INTO no_such_table VALUES (1);",
    )
    monkeypatch.setattr(migrations, "MIGRATIONS", (*migrations.MIGRATIONS, bad))
    monkeypatch.setattr(migrations, "LATEST", SCHEMA_VERSION + 1)
    with pytest.raises(SchemaError, match=r"migration .* failed"):
        await Store.open(path)
    assert schema(path) == before  # half_done was rolled back with the failed step


async def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    await (await Store.open(path)).close()
    async with aiosqlite.connect(path) as db:
        await db.execute(
            "INSERT INTO schema_migrations VALUES (?, 'from the future', 0)",
            (SCHEMA_VERSION + 1,),
        )
        await db.commit()
    with pytest.raises(SchemaError, match="newer"):
        await Store.open(path)


async def test_a_migrated_database_takes_bans_and_keeps_its_boards(tmp_path: Path) -> None:
    """Step 3 (moderation) on a version-2 file: boards rebuilt, a ban leaves them."""
    old = tmp_path / "v2.sqlite3"
    await make_fixture(2, old)
    async with await Store.open(old, clock=FakeClock()) as store:
        await store.ban(2, by=1, reason="test")
        board = await store.leaderboard("primebench")
        assert [r.model for r in board.rows] == ["GPT 6"]
        assert [e.action for e in await store.audit_log()] == ["ban"]
        await store.unban(2, by=1)
        await check_fixture_data(store)


async def test_step_4_builds_the_run_summaries_of_an_existing_board(tmp_path: Path) -> None:
    """Step 4 (board walk) on a version-3 file: runs and days summarised from the rows,
    windowed boards read them and agree with the rows."""
    old = tmp_path / "v3.sqlite3"
    await make_fixture(3, old)
    clock = FakeClock(datetime(2026, 1, 2, tzinfo=UTC))
    async with await Store.open(old, clock=clock) as store:
        async with store.db.read() as s:
            runs = await s.all(
                "SELECT model_norm, mode, run_key, best, low FROM board_runs ORDER BY run_key"
            )
        assert runs == [
            ("gpt 6", "default", "fp-a", 4.0, 4.0),
            ("gpt 6", "default", "fp-b", 2.0, 2.0),
            ("grok", "think", "fp-c", -3.0, -3.0),
        ]
        async with store.db.read() as s:
            assert await s.one("SELECT SUM(runs), SUM(score_sum) FROM board_days") == (3, 3.0)
        board = await store.leaderboard("primebench", days=7)
        assert [(r.model, r.best, r.runs, r.mean) for r in board.rows] == [
            ("GPT 6", 4.0, 2, 3.0),
            ("Grok", -3.0, 1, -3.0),
        ]
        assert board.total == 2
        assert (await store.leaderboard("primebench", days=7, mode="think")).total == 1


async def test_step_5_windowed_and_chat_boards_on_a_version_4_file(tmp_path: Path) -> None:
    """Step 5 (weekly rank index, covering chat index) on a version-4 file: windowed,
    mode and chat boards read the new indexes and agree with the rows."""
    old = tmp_path / "v4.sqlite3"
    await make_fixture(4, old)
    clock = FakeClock(datetime(2026, 1, 2, tzinfo=UTC))
    async with await Store.open(old, clock=clock) as store:
        want = [("GPT 6", "default", 4.0, 2, 3.0), ("Grok", "think", -3.0, 1, -3.0)]
        for kw in ({"days": 7}, {"days": 30}, {"chat_id": -100}, {"user_id": 1}):
            board = await store.leaderboard("primebench", **kw)  # type: ignore[arg-type]
            got = [(r.model, r.mode, r.best, r.runs, r.mean) for r in board.rows]
            assert got == (want[:1] if "user_id" in kw else want), kw
        think = await store.leaderboard("primebench", days=7, mode="think", chat_id=-100)
        assert [(r.rank, r.model, r.submission_id) for r in think.rows] == [(1, "Grok", 3)]
        clock.advance(days=40)
        assert (await store.leaderboard("primebench", days=30)).total == 0


async def test_step_6_chat_boards_read_scores_from_the_rows(tmp_path: Path) -> None:
    """Step 6 on a version-5 file: the chat index no longer holds the score (a re-score
    leaves it alone), and chat boards still read each row's current score."""
    old = tmp_path / "v5.sqlite3"
    await make_fixture(5, old)
    clock = FakeClock(datetime(2026, 1, 2, tzinfo=UTC))
    async with await Store.open(old, clock=clock) as store:
        async with store.db.read() as s:
            columns = [r[2] for r in await s.all("PRAGMA index_info(submissions_board_chat)")]
        assert columns[:2] == ["chat_id", "benchmark_id"] and "score" not in columns
        want = [("GPT 6", "default", 4.0, 2, 3.0), ("Grok", "think", -3.0, 1, -3.0)]
        for kw in ({"chat_id": -100}, {"chat_id": -100, "days": 7}):
            board = await store.leaderboard("primebench", **kw)  # type: ignore[arg-type]
            assert [(r.model, r.mode, r.best, r.runs, r.mean) for r in board.rows] == want
        async with store.db.write() as s:
            await s.execute("UPDATE submissions SET score = 9 WHERE id = 3")
        think = await store.leaderboard("primebench", chat_id=-100, mode="think")
        assert [(r.rank, r.model, r.best) for r in think.rows] == [(1, "Grok", 9.0)]
        assert (await store.leaderboard("primebench", chat_id=-101)).total == 0

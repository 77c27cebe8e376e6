"""Concurrency, rollback, full disks, locks and online backups."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest

from storage import (
    DatabaseLocked,
    DiskFull,
    InvalidData,
    StorageError,
    Store,
    StoreUnavailable,
)
from tests.storage.helpers import FakeClock, Maker, answers
from tests.storage.pg import query_one


def count(path: Path, sql: str = "SELECT COUNT(*) FROM submissions") -> int:
    return int(query_one(path, sql)[0])  # type: ignore[call-overload]


async def test_many_concurrent_writers_never_see_locked(
    store: Store, make: Maker, db_path: Path
) -> None:
    """200 handlers at once on the shared connection, plus a second store (another
    process, say) writing to the same file: no 'database is locked', no lost row."""
    other = await Store.open(db_path)

    async def handler(i: int) -> None:
        await store.upsert_user(i, first_name=f"u{i}", last_name=None, username=None,
                                language_code="en")  # fmt: skip
        sub = await store.record_submission(make(answers(i % 4 + 1), user_id=i, message_id=i))
        await store.record_submission(make(answers(1), user_id=i, message_id=i))  # retry
        await store.publish(sub.id)
        await store.leaderboard("primebench", limit=5)
        await store.history(i)

    async def outsider(i: int) -> None:
        await other.upsert_chat(-i, type="group", title=f"chat {i}")
        sub = await other.record_submission(
            make(answers(2), user_id=10_000 + i, chat_id=-i, message_id=1)
        )
        await other.publish(sub.id)

    try:
        results = await asyncio.gather(
            *(handler(i) for i in range(1, 201)),
            *(outsider(i) for i in range(1, 51)),
            return_exceptions=True,
        )
    finally:
        await other.close()
    errors = [r for r in results if isinstance(r, BaseException)]
    assert errors == []
    assert count(db_path) == 250
    assert count(db_path, "SELECT COUNT(*) FROM submissions WHERE visibility='published'") == 250
    board = await store.leaderboard("primebench")
    assert len(board.rows) == 1 and board.rows[0].runs == 4  # four distinct answer sets


async def test_an_exception_mid_transaction_rolls_everything_back(
    store: Store, make: Maker, db_path: Path
) -> None:
    good = [make(answers(1)), make(answers(2))]
    bad = make(answers(3))
    object.__setattr__(bad, "mode", "warp")  # slipped past construction
    with pytest.raises(InvalidData):
        await store.record_many([*good, bad], batch_size=10)
    assert count(db_path) == 0
    assert count(db_path, "SELECT COUNT(*) FROM users") == 0  # the placeholder rows too

    # an error raised by the database itself in the middle of a batch
    dup_first = make(answers(1), message_id=500)
    object.__setattr__(dup_first, "scorer_version", "")
    with pytest.raises(InvalidData):
        await store.record_many([make(answers(1)), dup_first])
    assert count(db_path) == 0

    # and the store keeps working afterwards
    assert (await store.record_submission(make(answers(1)))).created
    assert count(db_path) == 1


async def test_a_database_constraint_violation_surfaces_as_invalid_data(
    store: Store, make: Maker, db_path: Path
) -> None:
    sub = make(answers(1))
    object.__setattr__(sub, "key_version_id", 999)  # no such key: foreign key refused
    with pytest.raises(InvalidData, match=r"(?i)foreign key"):
        await store.record_submission(sub)
    assert count(db_path) == 0 and count(db_path, "SELECT COUNT(*) FROM users") == 0


@pytest.mark.sqlite_only
async def test_disk_full_is_a_clear_error_and_no_half_row(
    store: Store, make: Maker, db_path: Path
) -> None:
    await store.record_submission(make(answers(1)))
    async with store.db.read() as s:  # cap the file near its current size
        row = await s.one("PRAGMA page_count")
        assert row is not None
        await s.execute(f"PRAGMA max_page_count = {row[0] + 2}")
    noise = "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(300_000))  # incompressible
    with pytest.raises(DiskFull) as caught:
        await store.record_submission(make(noise))
    assert isinstance(caught.value, StoreUnavailable) and "full" in str(caught.value)
    assert count(db_path) == 1
    assert (await store.record_submission(make(answers(2)))).created  # still usable


@pytest.mark.sqlite_only
async def test_a_lock_held_elsewhere_is_a_clear_error(
    db_path: Path, clock: FakeClock, make: Maker, store: Store
) -> None:
    impatient = await Store.open(db_path, clock=clock, busy_timeout_ms=100)
    holder = sqlite3.connect(db_path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        with pytest.raises(DatabaseLocked):
            await impatient.record_submission(make(answers(1)))
        holder.execute("ROLLBACK")
        assert (await impatient.record_submission(make(answers(1)))).created
    finally:
        holder.close()
        await impatient.close()
    assert count(db_path) == 1


async def test_a_closed_store_says_so(db_path: Path) -> None:
    store = await Store.open(db_path)
    await store.close()
    await store.close()  # idempotent
    with pytest.raises(StoreUnavailable, match="closed"):
        await store.leaderboard("primebench")


async def test_closing_lets_the_submissions_being_recorded_land_first(
    store: Store, make: Maker, db_path: Path
) -> None:
    await store.record_submission(make(answers(1)))
    tasks = [asyncio.create_task(store.record_submission(make(answers(2)))) for _ in range(40)]
    await asyncio.sleep(0)  # they wait for the next group insert
    await store.close()
    assert all(task.result().created for task in tasks)
    assert count(db_path) == 41
    with pytest.raises(StoreUnavailable, match="closed"):
        await store.record_submission(make(answers(3)))


@pytest.mark.sqlite_only
async def test_backup_is_consistent_while_the_bot_keeps_writing(
    store: Store, make: Maker, tmp_path: Path
) -> None:
    for i in range(300):
        sub = await store.record_submission(make(answers(i % 4 + 1, (i // 4) % 4 + 1)))
        await store.publish(sub.id)
    stop = threading.Event()

    async def writer() -> int:
        n = 0
        while not stop.is_set():
            sub = await store.record_submission(make(answers(n % 4 + 1)))
            await store.publish(sub.id)
            n += 1
            await asyncio.sleep(0)
        return n

    task = asyncio.create_task(writer())
    copies = [tmp_path / "backups" / f"copy{i}.sqlite3" for i in range(3)]
    try:
        for target in copies:
            await store.backup(target)
            await asyncio.sleep(0.01)
    finally:
        stop.set()
        written = await task
    assert written > 0  # the writer really ran during the backups
    sizes = []
    for target in copies:
        with sqlite3.connect(target) as con:
            assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            sizes.append(con.execute("SELECT COUNT(*) FROM submissions").fetchone()[0])
        # one snapshot: the summary table agrees with the rows it was derived from
        async with await Store.open(target) as restored:
            board = await restored.leaderboard("primebench", limit=100)
            await restored.rebuild_boards()
            assert await restored.leaderboard("primebench", limit=100) == board
            assert board.total > 0
    assert sizes[0] >= 300 and sizes == sorted(sizes)
    assert not list((tmp_path / "backups").glob("*.partial"))


async def test_backup_refuses_to_overwrite_the_database(store: Store, db_path: Path) -> None:
    with pytest.raises(StorageError):
        await store.backup(db_path)


async def test_text_neither_engine_holds_is_kept_with_a_replacement(
    store: Store, make: Maker
) -> None:
    """A lone surrogate (JSON carries one; UTF-8 cannot encode it) or NUL (PostgreSQL's
    text refuses it) in a name, a model, a reason or a key's source is kept as U+FFFD;
    nothing fails."""
    odd = "a\ud800b\x00c"
    kept = "a\ufffdb\ufffdc"
    await store.upsert_user(7, first_name=odd, last_name=odd, username=odd, language_code=odd)
    await store.upsert_chat(-7, type="group", title=odd)
    user, chat = await store.get_user(7), await store.get_chat(-7)
    assert user is not None and (user.first_name, user.last_name, user.username) == (kept,) * 3
    assert chat is not None and chat.title == kept
    sub = await store.record_submission(make(answers(2), user_id=7, chat_id=-7, model=odd))
    assert sub.model == kept and (await store.get_submission(sub.id)).model == kept  # type: ignore[union-attr]
    entry = await store.log_action(7, "hide", f"submission {odd}", reason=odd)
    assert entry.target == f"submission {kept}" and entry.reason == kept
    ban = await store.ban(8, by=7, reason=odd)
    assert ban.reason == kept
    version = await store.save_key("zerobench", b'{"1": "2"}', source=odd)
    assert version.source == kept

"""Operations safety of the store (issue 29): a damaged file is refused at open before
anything is written into it; the files the store creates are its owner's only (0600);
control characters (bidirectional ones too) never reach a stored name."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from storage import DatabaseCorrupt, Store, backup
from tests.storage.helpers import FakeClock, Maker, answers

RLO, PDF = "\u202e", "\u202c"
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


async def _filled(path: Path, users: int = 3000) -> None:
    """A real Benchboard database of a few hundred pages (its users table)."""
    store = await Store.open(path)
    try:
        for start in range(0, users, 500):
            for uid in range(start + 1, start + 501):
                await store.upsert_user(
                    uid, first_name=f"User {uid} " + "x" * 60, last_name=None,
                    username=f"user{uid}", language_code="en",
                )  # fmt: skip
    finally:
        await store.close()


def corrupt_middle_page(path: Path) -> int:
    """Overwrite a page in the middle of the users' table with garbage; returns its
    number. (A page in the middle of the file may be an empty table's, whose unused
    bytes can be overwritten without a trace.)"""
    with sqlite3.connect(path) as con:
        page_size = con.execute("PRAGMA page_size").fetchone()[0]
        pages = con.execute("PRAGMA page_count").fetchone()[0]
        try:
            leaves = [row[0] for row in con.execute(
                "SELECT pageno FROM dbstat WHERE name = 'users' AND pagetype = 'leaf' "
                "ORDER BY pageno")]  # fmt: skip
        except sqlite3.OperationalError:  # an SQLite built without dbstat
            leaves = []
    con.close()
    assert pages > 50, pages
    middle = leaves[len(leaves) // 2] if leaves else pages * 3 // 4
    with path.open("r+b") as handle:
        handle.seek((middle - 1) * page_size + 8)
        handle.write(b"\xa5\x5a" * ((page_size - 16) // 2))
    return middle


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def contents(path: Path) -> bytes | None:
    """The file's bytes (None: no such file)."""
    return path.read_bytes() if path.exists() else None


def modes(*paths: Path) -> tuple[int | None, ...]:
    return tuple(mode(p) if p.exists() else None for p in paths)


@pytest.mark.sqlite_only
async def test_a_damaged_page_in_the_middle_is_refused_at_open(db_path: Path) -> None:
    await _filled(db_path)
    assert contents(Path(f"{db_path}-wal")) is None  # checkpointed at close: all in the file
    corrupt_middle_page(db_path)
    before = contents(db_path)
    with pytest.raises(DatabaseCorrupt, match="damaged"):
        opened = await Store.open(db_path)
        await opened.close()  # (a test that fails here leaves no connection's thread)
    assert contents(db_path) == before  # nothing was written into it
    with pytest.raises(Exception, match="damaged"):  # what `db restore` checks agrees
        backup.verify_database(db_path)


@pytest.mark.sqlite_only
async def test_an_intact_database_opens(db_path: Path) -> None:
    await _filled(db_path, users=600)
    store = await Store.open(db_path)
    await store.close()


@pytest.mark.sqlite_only
async def test_files_the_store_creates_are_its_owners_only(db_path: Path, tmp_path: Path) -> None:
    old = os.umask(0o022)  # the usual umask: files would be 0644
    try:
        store = await Store.open(db_path)
        try:
            await store.upsert_user(1, first_name="A", last_name=None, username=None,
                                    language_code=None)  # fmt: skip
            wal, shm = Path(f"{db_path}-wal"), Path(f"{db_path}-shm")
            assert modes(db_path, wal, shm) == (0o600, 0o600, 0o600)
            snapshot = tmp_path / "backups" / "b.sqlite3"
            await store.backup(snapshot)
            assert mode(snapshot) == 0o600
        finally:
            await store.close()
        restored = tmp_path / "restored" / "bench.sqlite3"
        backup.restore(snapshot, restored)
        assert mode(restored) == 0o600
    finally:
        os.umask(old)


@pytest.mark.sqlite_only
async def test_an_existing_files_mode_is_left_to_the_operator(db_path: Path) -> None:
    store = await Store.open(db_path)
    await store.close()
    os.chmod(db_path, 0o640)
    store = await Store.open(db_path)
    await store.close()
    assert mode(db_path) == 0o640


async def test_bidi_controls_never_reach_a_stored_model_name(
    store: Store, make: Maker, clock: FakeClock
) -> None:
    spoof = f"GPT-{RLO}4o-mini{PDF}"
    sub = await store.record_submission(make(answers(1, 2), model=spoof))
    assert sub.model == "GPT-4o-mini" and sub.model_norm == "gpt-4o-mini"
    changed = await store.set_model(sub.id, f"{BIDI}Claude{BIDI} 3")
    assert changed.model == "Claude 3"
    again = await store.get_submission(sub.id)
    assert again is not None and not any(c in again.model for c in BIDI)
    with pytest.raises(Exception, match="empty"):
        await store.set_model(sub.id, RLO + PDF)


async def test_control_characters_never_reach_a_stored_name(
    store: Store, make: Maker, clock: FakeClock
) -> None:
    # a bell, a terminal's escape sequence, C1 controls: shown raw in a CSV or a terminal
    sub = await store.record_submission(make(answers(1, 2), model="GPT\x07-4\x1b[31m\x9b"))
    assert sub.model == "GPT-4[31m" and sub.model_norm == "gpt-4[31m"
    await store.upsert_user(7, first_name="Ann\tLee\x1b", last_name="x\x00y", username=None,
                            language_code="en")  # fmt: skip
    user = await store.get_user(7)
    assert user is not None and (user.first_name, user.last_name) == ("Ann Lee", "x\ufffdy")


async def test_bidi_controls_never_reach_a_stored_person_or_group_name(store: Store) -> None:
    await store.upsert_user(5, first_name=f"{RLO}nimda", last_name=f"x{BIDI}y", username="u",
                            language_code="fa")  # fmt: skip
    user = await store.get_user(5)
    assert user is not None and (user.first_name, user.last_name) == ("nimda", "xy")
    await store.upsert_chat(-100, type="group", title=f"Group {RLO}evil")
    chat = await store.get_chat(-100)
    assert chat is not None and chat.title == "Group evil"
    # a Persian name keeps its zero-width non-joiner (not a bidi control)
    await store.upsert_user(6, first_name="می\u200cخواهم", last_name=None, username=None,
                            language_code="fa")  # fmt: skip
    persian = await store.get_user(6)
    assert persian is not None and persian.first_name == "می\u200cخواهم"

"""`benchboard db backup PATH` and `benchboard db restore PATH`, run as an operator would."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import stat
from contextlib import closing
from pathlib import Path

from storage import SCHEMA_VERSION, Store
from tests.cli.test_cli import run_cli


async def _database(path: Path) -> None:
    async with await Store.open(path) as store:
        await store.save_key("primebench", b"1:1\n2:2\n", source="test")
        await store.ban(77, by=1, reason="kept in the backup")


def _banned(path: Path) -> list[tuple[int, str]]:
    with closing(sqlite3.connect(path)) as con:  # closed: a restore refuses an open one
        return con.execute("SELECT user_id, reason FROM bans").fetchall()


async def test_backup_then_restore_round_trip(tmp_path: Path) -> None:
    db = tmp_path / "data" / "benchboard.sqlite3"
    await _database(db)
    snapshot = tmp_path / "backups" / "snap.sqlite3"
    done = run_cli("db", "backup", str(snapshot), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().strip() == f"backup written to {snapshot}"
    assert snapshot.read_bytes().startswith(b"SQLite format 3\x00")
    assert _banned(snapshot) == [(77, "kept in the backup")]

    async with await Store.open(db) as store:  # later changes, lost by the restore
        await store.unban(77, by=1)
    assert _banned(db) == []
    done = run_cli("db", "restore", str(snapshot), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"(schema {SCHEMA_VERSION})" in done.stdout.decode()
    assert _banned(db) == [(77, "kept in the backup")]
    async with await Store.open(db) as store:
        key = await store.current_key("primebench")
        assert key is not None and key.version == 1


async def test_restore_refuses_a_bad_file_and_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "data" / "benchboard.sqlite3"
    await _database(db)
    before = db.read_bytes()
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all")
    done = run_cli("db", "restore", str(junk), cwd=tmp_path)
    assert done.returncode == 2
    err = done.stderr.decode().strip()
    assert err.endswith(f"not restored, nothing was changed: {junk} is not an SQLite database")
    assert len(err.splitlines()) == 1
    assert db.read_bytes() == before
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as con:
        con.execute("CREATE TABLE t (x)")
    done = run_cli("db", "restore", str(other), cwd=tmp_path)
    assert done.returncode == 2 and b"is not a Benchboard database" in done.stderr
    assert run_cli("db", "restore", str(tmp_path / "missing"), cwd=tmp_path).returncode == 2


def test_backup_cannot_overwrite_the_database(tmp_path: Path) -> None:
    db = tmp_path / "data" / "benchboard.sqlite3"
    done = run_cli("db", "backup", str(db), cwd=tmp_path)
    assert done.returncode == 2 and b"cannot overwrite the database" in done.stderr


def test_backup_names_a_file_or_fails_in_one_line(tmp_path: Path) -> None:
    """A folder, a device or a place that cannot be written is refused in one line,
    nothing replaced (a backup over /dev/null used to replace the device with a file)."""
    asyncio.run(_database(tmp_path / "data" / "benchboard.sqlite3"))
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where a folder should be")
    for target, said in (
        (tmp_path, "name the SQLite file to write the backup to"),
        (fifo, "name the SQLite file to write the backup to"),
        (blocked / "snap.sqlite3", f"{blocked} is not a folder"),
    ):
        done = run_cli("db", "backup", str(target), cwd=tmp_path)
        err = done.stderr.decode().strip()
        assert done.returncode == 2 and len(err.splitlines()) == 1, err
        assert err.startswith(f"benchboard: backup failed: {target}") and said in err, err
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert blocked.read_text() == "a file where a folder should be"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocked", "data", "pipe"]


async def test_restore_refuses_a_database_in_use(tmp_path: Path) -> None:
    """While the bot has the database open, a restore would be lost under it (it keeps
    writing to the replaced file): refused, nothing changed, until it is closed."""
    db = tmp_path / "data" / "benchboard.sqlite3"
    await _database(db)
    snapshot = tmp_path / "snap.sqlite3"
    assert run_cli("db", "backup", str(snapshot), cwd=tmp_path).returncode == 0
    store = await Store.open(db)  # as the running bot holds it
    try:
        await store.unban(77, by=1)
        done = run_cli("db", "restore", str(snapshot), cwd=tmp_path)
        err = done.stderr.decode().strip()
        assert done.returncode == 2 and len(err.splitlines()) == 1
        assert "is open in another process: stop the bot" in err
        assert await store.is_banned(77) is None  # its database is the same one
    finally:
        await store.close()
    assert _banned(db) == []
    done = run_cli("db", "restore", str(snapshot), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert _banned(db) == [(77, "kept in the backup")]

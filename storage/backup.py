"""Backups: a consistent copy of an SQLite database while the bot runs
(:meth:`BackupStore.backup`; a PostgreSQL database's is ``Store.backup``), and
restoring one from the shell, checked before anything is replaced."""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

from .base import StoreBase
from .db import create_private
from .errors import InvalidData, StoreUnavailable, translate
from .migrations import LATEST


class BackupStore(StoreBase):
    async def backup(self, path: str | os.PathLike[str]) -> None:
        """Write a consistent copy of the database to ``path`` while the bot keeps writing.

        Runs ``VACUUM INTO`` on a short-lived read-only connection in a worker thread:
        it reads one WAL snapshot (writers are not blocked) and writes a compact file
        next to the target, renamed into place when complete.
        """
        if self._db.closed:
            raise StoreUnavailable("the store is closed")
        try:
            await asyncio.to_thread(_backup, self._path, Path(path))
        except sqlite3.Error as exc:
            raise translate(exc) from exc


def fresh_partial(target: Path) -> Path:
    """Where a backup is written before it is renamed to ``target``: beside it, its
    folder made. ``target`` must name a file (never a folder, a device or a URL)."""
    if (
        not target.name
        or str(target).startswith(("postgresql:", "postgres:"))
        or (target.exists() and not target.is_file())
    ):
        raise InvalidData(f"{target}: name the SQLite file to write the backup to")
    for folder in (target.parent, *target.parent.parents):
        if folder.exists() and not folder.is_dir():
            raise InvalidData(f"{target}: {folder} is not a folder")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    remove_partial(partial)
    return partial


def remove_partial(partial: Path) -> None:
    for leftover in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
        leftover.unlink(missing_ok=True)


def _backup(source: Path, target: Path) -> None:
    """VACUUM INTO a temporary file beside ``target``, then rename it into place."""
    if target.resolve() == source.resolve():
        raise InvalidData("the backup cannot overwrite the database itself")
    partial = fresh_partial(target)
    try:
        create_private(partial)  # VACUUM INTO fills an empty file, keeping its mode
        con = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
        try:
            con.execute("PRAGMA busy_timeout = 5000")
            con.execute("VACUUM INTO ?", (str(partial),))
        finally:
            con.close()
        os.replace(partial, target)
    finally:
        remove_partial(partial)


def verify_database(path: str | os.PathLike[str]) -> int:
    """Check that ``path`` is an intact Benchboard database; return its schema version.

    Raises :class:`InvalidData` naming what is wrong: not SQLite, damaged, not ours, or
    from a newer Benchboard.
    """
    file = Path(path)
    if not file.is_file():
        raise InvalidData(f"{file} is not a file")
    with file.open("rb") as handle:
        if handle.read(16) != b"SQLite format 3\x00":
            raise InvalidData(f"{file} is not an SQLite database")
    try:
        with closing(sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True)) as con:
            check = con.execute("PRAGMA integrity_check").fetchone()
            if check is None or check[0] != "ok":
                raise InvalidData(f"{file} is damaged: {check[0] if check else 'no answer'}")
            tables = {row[0] for row in con.execute("SELECT name FROM sqlite_master")}
            if "schema_migrations" not in tables or "submissions" not in tables:
                raise InvalidData(f"{file} is not a Benchboard database")
            row = con.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
    except sqlite3.DatabaseError as exc:
        raise InvalidData(f"{file} cannot be read: {exc}") from None
    version = int(row[0] or 0)
    if version > LATEST:
        raise InvalidData(
            f"{file} has schema version {version}, newer than this Benchboard ({LATEST})"
        )
    return version


def restore(backup: str | os.PathLike[str], target: str | os.PathLike[str]) -> int:
    """Replace the database at ``target`` with ``backup`` once the backup checks out.

    The bot must be stopped: while any process has the database open (the bot,
    ``benchboard web``), nothing is replaced. The copy is written beside the target and
    renamed into place; the old database's WAL and shared-memory files are removed with
    it.
    """
    version = verify_database(backup)
    destination = Path(target)
    if destination.is_file() and _in_use(destination):
        raise InvalidData(
            f"{destination} is open in another process: stop the bot (and benchboard web) first"
        )
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(destination.name + ".restoring")
    partial.unlink(missing_ok=True)
    create_private(partial)
    shutil.copyfile(backup, partial)  # into the file made above: its mode stays
    for suffix in ("-wal", "-shm"):
        Path(str(destination) + suffix).unlink(missing_ok=True)
    os.replace(partial, destination)
    return version


def _in_use(path: Path) -> bool:
    """Whether another connection has the database at ``path`` open. Each connection
    to a WAL database holds a shared lock on it, so an exclusive one is refused at once
    while any is open (a crashed process holds none)."""
    try:
        con = sqlite3.connect(path.resolve().as_uri() + "?mode=rw", uri=True, timeout=0)
    except sqlite3.Error:
        return False
    with closing(con):
        try:
            con.execute("PRAGMA locking_mode = EXCLUSIVE")
            con.execute("BEGIN EXCLUSIVE")
            con.rollback()
        except sqlite3.OperationalError as exc:
            return getattr(exc, "sqlite_errorname", "").startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))
        except sqlite3.DatabaseError:  # damaged: what the restore is for
            return False
    return False

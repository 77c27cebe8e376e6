"""One exception tree for everything the storage layer refuses or cannot do.

``StorageError`` is the base. Callers usually catch one of:

- :class:`NotFound` – the submission, key version or benchmark does not exist;
- :class:`NotAllowed` – the change is not allowed in the submission's current state
  (or by this user); :class:`MissingModeOrModel` is the case "publish without a mode or
  a model name";
- :class:`InvalidData` – the caller passed something the store will not keep (unknown
  mode, a score that is not a finite number, ...); nothing was written;
- :class:`StoreUnavailable` – the database could not do the work right now (locked for
  longer than the busy timeout, disk full, I/O error, closed store). Nothing was
  half-written: the transaction was rolled back. :class:`DiskFull` and
  :class:`DatabaseLocked` name the two common causes;
- :class:`DatabaseCorrupt` – the file is damaged (found at open, by SQLite's integrity
  check, or by a statement reading a damaged page): restore a backup;
- :class:`SchemaError` – the file's schema is newer than this code, or a migration failed.
"""

from __future__ import annotations

import sqlite3


class StorageError(Exception):
    """Base of every error the storage layer raises."""


class NotFound(StorageError, LookupError):
    """The thing asked for does not exist."""


class NotAllowed(StorageError):
    """The change is not allowed in the current state, or not by this user."""


class MissingModeOrModel(NotAllowed):
    """A submission cannot be published before it has both a mode and a model name."""

    def __init__(self, submission_id: int, missing: tuple[str, ...]):
        self.submission_id = submission_id
        self.missing = missing
        super().__init__(
            f"submission {submission_id} needs a {' and a '.join(missing)} before it can be "
            "published"
        )


class LimitReached(NotAllowed):
    """The user has published as many results today as the daily limit allows."""

    def __init__(self, limit: int, used: int) -> None:
        super().__init__(f"{used} of {limit} publications used today")
        self.limit = limit
        self.used = used


class InvalidData(StorageError, ValueError):
    """Input the store refuses to keep; nothing was written."""


class StoreUnavailable(StorageError):
    """The database cannot do the work now (locked, full, I/O error, closed).

    The transaction in progress was rolled back: no row is half-written.
    """


class DatabaseLocked(StoreUnavailable):
    """Another process held the database for longer than the busy timeout."""


class DiskFull(StoreUnavailable):
    """The disk (or the database's size limit) is full."""


class DatabaseCorrupt(StorageError):
    """The database file is damaged (a page that does not read back as written): the
    store refuses it rather than keep writing into it. Not transient: restore a backup."""


class SchemaError(StorageError):
    """The database schema is newer than this code, or a migration failed."""


_UNAVAILABLE = {
    "SQLITE_BUSY": DatabaseLocked,
    "SQLITE_LOCKED": DatabaseLocked,
    "SQLITE_FULL": DiskFull,
}
_UNAVAILABLE_PREFIXES = ("SQLITE_IOERR", "SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_NOMEM")


def translate(exc: sqlite3.Error) -> StorageError:
    """Map a sqlite3 exception onto this tree (callers keep the original as ``__cause__``)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    family = "_".join(name.split("_")[:2])  # SQLITE_BUSY_SNAPSHOT -> SQLITE_BUSY
    message = str(exc)
    if family in ("SQLITE_CORRUPT", "SQLITE_NOTADB"):
        return DatabaseCorrupt(f"the database file is damaged: {message}")
    if family in _UNAVAILABLE:
        return _UNAVAILABLE[family](f"the database is unavailable: {message}")
    if family.startswith(_UNAVAILABLE_PREFIXES):
        return StoreUnavailable(f"the database is unavailable: {message}")
    if isinstance(exc, sqlite3.OperationalError) and ("locked" in message or "busy" in message):
        return DatabaseLocked(f"the database is unavailable: {message}")
    if isinstance(exc, sqlite3.IntegrityError):
        return InvalidData(f"refused by the database: {message}")
    if isinstance(exc, sqlite3.ProgrammingError) and "closed" in message:
        return StoreUnavailable("the store is closed")
    return StorageError(f"database error: {message}")

"""The store: one class per concern over one database (:mod:`storage.db`).

Each concern is a :class:`~storage.base.StoreBase` subclass in its own module; they
share the connection seam, the clock and the benchmark ids, and nothing else.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import TracebackType
from typing import Literal, Self

from .backup import BackupStore, fresh_partial, remove_partial
from .base import Clock, utc_now
from .boards import BoardStore
from .chats import ChatStore
from .definitions import DefinitionStore
from .engines import is_postgres_url, open_database
from .errors import InvalidData, StoreUnavailable
from .intake import IntakeStore
from .keys import KeyStore
from .links import LinkStore
from .moderation import ModerationStore
from .port import port
from .rescore import RescoreStore
from .runs import RunStore
from .shared import SharedStateStore
from .sharing import ShareStore
from .submissions import SubmissionStore
from .tokens import TokenStore
from .trust import TrustStore
from .users import UserStore
from .values import normalise_model


class Store(
    UserStore,
    ChatStore,
    DefinitionStore,
    KeyStore,
    SubmissionStore,
    BoardStore,
    ModerationStore,
    RescoreStore,
    BackupStore,
    IntakeStore,
    LinkStore,
    ShareStore,
    SharedStateStore,
    TokenStore,
    TrustStore,
    RunStore,
):
    """The application's database. Open with ``await Store.open(path)``; close on shutdown.

    Every method is a coroutine and returns frozen dataclasses. Errors are
    :class:`storage.StorageError` subclasses.
    """

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str],  # or a postgresql:// URL
        *,
        clock: Clock | None = None,
        busy_timeout_ms: int = 5000,
        synchronous: Literal["NORMAL", "FULL"] = "FULL",
        mmap_mb: int = 2048,
        per_statement: bool | None = None,
    ) -> Self:
        """Create the parent folder, connect, set the pragmas and migrate.

        ``clock`` returns the current time (timezone-aware; tests inject a fake one).
        ``synchronous``, ``mmap_mb`` and ``per_statement`` are
        :meth:`storage.db.Database.open`'s.
        """
        db = await open_database(
            path,
            busy_timeout_ms=busy_timeout_ms,
            synchronous=synchronous,
            mmap_mb=mmap_mb,
            per_statement=per_statement,
        )
        # a PostgreSQL store has no file (``path``: empty; ``db.url`` names it)
        where = Path() if is_postgres_url(path) else Path(path)
        return cls(db, where, clock=clock or utc_now)

    async def backup(self, path: str | os.PathLike[str]) -> None:
        """Write a consistent copy of the database to ``path`` (an SQLite file) while the
        bot keeps writing: SQLite's ``VACUUM INTO`` (:class:`BackupStore`), or from
        PostgreSQL a copy of every table (:meth:`_backup_to_sqlite`)."""
        try:
            if self._db.kind == "postgresql" and not self._db.closed:
                await self._backup_to_sqlite(Path(path))
            else:
                await super().backup(path)
        except OSError as exc:  # the folder cannot be made or written, the disk is full
            raise InvalidData(f"{path}: {exc.strerror or exc}") from exc

    async def _backup_to_sqlite(self, target: Path) -> None:
        """PostgreSQL's backup, without ``pg_dump``: every table read in one ``REPEATABLE
        READ`` snapshot and written into a new SQLite file (the schema this code knows),
        renamed into place when complete. The file is what an SQLite backup is: ``db
        restore`` takes it, and ``db port`` copies it back into PostgreSQL."""
        partial = fresh_partial(target)
        try:
            copy = await Store.open(partial, synchronous="NORMAL")
            try:
                report = await port(self, copy, source_name="", compare_boards=False)
            finally:
                await copy.close()
            if not report.ok:
                raise StoreUnavailable("the backup is incomplete: " + "; ".join(report.mismatches))
            os.replace(partial, target)
        finally:
            remove_partial(partial)

    async def close(self) -> None:
        """Close the connection (idempotent), once the submissions being recorded land."""
        if self._db.closed:
            return
        await self._recorded_all()
        await self._intake_settled()
        await self._db.close()
        self._forget_awaited()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def schema_version(self) -> int:
        return await self._db.schema_version()

    async def revive(self) -> None:
        """After a failed probe: reconnect at once when the server is back (PostgreSQL)."""
        await self._db.revive()


__all__ = ["Store", "normalise_model"]

"""Database engines other than the default SQLite (:mod:`storage.db`).

``postgres`` is PostgreSQL through psycopg 3 (async, with its connection pool); it is
imported only when ``Store.open`` is given a ``postgresql://`` URL, so nothing else pays
for it. ``pg_schema`` holds its migrations.
"""

from __future__ import annotations

import os
from typing import Literal

from ..db import Database

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(target: object) -> bool:
    """Whether ``target`` names a PostgreSQL database (else: an SQLite file path)."""
    return isinstance(target, str) and target.startswith(POSTGRES_SCHEMES)


async def open_database(
    target: str | os.PathLike[str],
    *,
    busy_timeout_ms: int = 5000,
    synchronous: Literal["NORMAL", "FULL"] = "FULL",
    mmap_mb: int = 2048,
    per_statement: bool | None = None,
) -> Database:
    """An SQLite file (a path) or a PostgreSQL database (a ``postgresql://`` URL; the
    SQLite options do not apply), migrated."""
    if is_postgres_url(target):
        from .postgres import PgDatabase

        return await PgDatabase.open_url(str(target))
    return await Database.open(
        target,
        busy_timeout_ms=busy_timeout_ms,
        synchronous=synchronous,
        mmap_mb=mmap_mb,
        per_statement=per_statement,
    )

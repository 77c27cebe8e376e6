"""``benchboard db port``: copy a database to another (SQLite to PostgreSQL, or back),
resumable, verified at the end (:func:`storage.port.port`)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from storage import Store
from storage.engines import is_postgres_url
from storage.port import PortReport, port

from ..settings import redact_url
from .errors import StorageError


def _target(where: str) -> str | Path:
    return where if is_postgres_url(where) else Path(where)


#: ``scheme://``: a URL, which must be PostgreSQL's (else it would be a file's path).
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def _checked(source: str, target: str) -> str:
    """The name the target records for ``source`` (see ``storage.port``)."""
    for where, option in ((source, "--from"), (target, "--to")):
        if _URL.match(where) and not is_postgres_url(where):
            # (--to mysql://u:pw@h/db made the folders mysql:/u:pw@h and a file db)
            raise StorageError(
                f"{option} {redact_url(where)} is a URL but not postgresql://: "
                "give an SQLite file's path or a postgresql:// URL"
            )
    if not is_postgres_url(source) and not Path(source).is_file():
        raise StorageError(f"no database at {redact_url(source)}")
    if os.path.abspath(source) == os.path.abspath(target):
        raise StorageError("the source and the target are the same database")
    return redact_url(source) if is_postgres_url(source) else os.path.abspath(source)


async def port_database(
    source: str,
    target: str,
    *,
    into_non_empty: bool = False,
    batch: int = 2000,
    progress: Callable[[str, int], None] | None = None,
) -> PortReport:
    """Open both (the target is created and migrated; the source must exist), copy,
    verify. Raises ``StorageError`` (``NotAllowed`` for a non-empty target)."""
    name = _checked(source, target)
    src = await Store.open(_target(source))
    try:
        dst = await Store.open(_target(target))
        try:
            return await port(
                src,
                dst,
                source_name=name,
                into_non_empty=into_non_empty,
                batch=batch,
                progress=progress,
            )
        finally:
            await dst.close()
    finally:
        await src.close()

"""Database snapshots: the nightly one (kept ``backup_keep`` deep), ``benchboard db``."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from storage import backup as snapshots

from .services import Services

BACKUP_PREFIX = "benchboard-"


def backup_name(now: datetime) -> str:
    return f"{BACKUP_PREFIX}{now.strftime('%Y%m%d-%H%M%S')}.sqlite3"


def rotate(folder: Path, keep: int) -> list[Path]:
    """Delete all but the newest ``keep`` snapshots; returns what was deleted."""
    snapshots = sorted(folder.glob(f"{BACKUP_PREFIX}*.sqlite3"))
    doomed = snapshots[:-keep] if keep > 0 else snapshots
    for path in doomed:
        path.unlink(missing_ok=True)
    return doomed


async def backup_now(services: Services, now: datetime | None = None) -> Path:
    """A snapshot in the backups folder; the oldest beyond ``backup_keep`` go."""
    folder = services.settings.backups_path
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / backup_name(now or datetime.now(UTC))
    await services.store.backup(path)
    rotate(folder, services.settings.backup_keep)
    return path


def restore(backup: str | os.PathLike[str], target: str | os.PathLike[str]) -> int:
    """Check a snapshot, then replace the database with it; returns its schema version."""
    return snapshots.restore(backup, target)

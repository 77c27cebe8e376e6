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


def latest(folder: Path) -> Path | None:
    """The newest snapshot in ``folder``, or None."""
    found = sorted(folder.glob(f"{BACKUP_PREFIX}*.sqlite3")) if folder.is_dir() else []
    return found[-1] if found else None


def restore_advice(folder: Path) -> str:
    """What to do about a damaged database: restore the newest snapshot (named), or, with
    none, where snapshots would be."""
    newest = latest(folder)
    if newest is None:
        return (
            f"no backup in {folder}: restore one with `benchboard db restore FILE`, "
            "or move the damaged file away to start empty"
        )
    return f"restore the latest backup with `benchboard db restore {newest}`"


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

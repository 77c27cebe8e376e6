"""Database snapshots: the nightly job's rotation and the snapshot itself."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.core import backups
from bot.core.services import Services
from bot.settings import Settings


def test_rotate_keeps_the_newest(tmp_path: Path) -> None:
    start = datetime(2026, 1, 1, 3, tzinfo=UTC)
    names = [backups.backup_name(start + timedelta(days=d)) for d in range(6)]
    for name in names:
        (tmp_path / name).write_bytes(b"x")
    (tmp_path / "unrelated.txt").write_text("keep me")
    deleted = backups.rotate(tmp_path, keep=3)
    assert sorted(p.name for p in deleted) == names[:3]
    assert sorted(p.name for p in tmp_path.glob("benchboard-*")) == names[3:]
    assert (tmp_path / "unrelated.txt").exists()


async def test_backup_job_writes_a_snapshot_and_keeps_the_last_n(tmp_path: Path) -> None:
    import sqlite3

    settings = Settings(data_dir=tmp_path / "data", backup_keep=2)
    services = await Services.open(settings)
    store = services.store
    try:
        await store.upsert_user(
            1, first_name="Ann", last_name=None, username=None, language_code="en"
        )
        start = datetime(2026, 3, 1, 3, tzinfo=UTC)
        paths = [await backups.backup_now(services, start + timedelta(days=d)) for d in range(4)]
    finally:
        await services.close()
    kept = sorted(settings.backups_path.glob("benchboard-*.sqlite3"))
    assert kept == paths[2:]
    con = sqlite3.connect(kept[-1])
    assert con.execute("SELECT first_name FROM users").fetchall() == [("Ann",)]
    con.close()

"""Pure operations code: backup rotation, JSON log lines, token redaction."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.telegram import ops


def test_rotate_keeps_the_newest(tmp_path: Path) -> None:
    start = datetime(2026, 1, 1, 3, tzinfo=UTC)
    names = [ops.backup_name(start + timedelta(days=d)) for d in range(6)]
    for name in names:
        (tmp_path / name).write_bytes(b"x")
    (tmp_path / "unrelated.txt").write_text("keep me")
    deleted = ops.rotate(tmp_path, keep=3)
    assert sorted(p.name for p in deleted) == names[:3]
    assert sorted(p.name for p in tmp_path.glob("benchboard-*")) == names[3:]
    assert (tmp_path / "unrelated.txt").exists()


def test_json_formatter_keeps_extra_fields() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "update %s", (7,), None)
    record.update_id = 7
    line = json.loads(ops.JsonFormatter().format(record))
    assert line["msg"] == "update 7"
    assert line["update_id"] == 7
    assert line["level"] == "INFO"


def test_token_is_redacted_from_any_log_line() -> None:
    token = "123456:SECRET-token"
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "GET /bot%s/getMe", (token,), None)
    assert ops.RedactToken(token).filter(record)
    assert token not in record.getMessage()
    assert "<token>" in record.getMessage()


async def test_backup_job_writes_a_snapshot_and_keeps_the_last_n(tmp_path: Path) -> None:
    import sqlite3

    from bot.core.services import Services
    from bot.settings import Settings
    from storage import Store

    settings = Settings(data_dir=tmp_path / "data", backup_keep=2)
    store = await Store.open(settings.db_path)
    try:
        services = Services(settings=settings, store=store)
        await store.upsert_user(
            1, first_name="Ann", last_name=None, username=None, language_code="en"
        )
        start = datetime(2026, 3, 1, 3, tzinfo=UTC)
        paths = [await ops.backup_now(services, start + timedelta(days=d)) for d in range(4)]
    finally:
        await store.close()
    kept = sorted(settings.backups_path.glob("benchboard-*.sqlite3"))
    assert kept == paths[2:]
    con = sqlite3.connect(kept[-1])
    assert con.execute("SELECT first_name FROM users").fetchall() == [("Ann",)]
    con.close()

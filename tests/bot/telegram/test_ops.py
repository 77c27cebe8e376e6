"""Operations code: JSON log lines, token redaction, when backups run."""

from __future__ import annotations

import gc
import json
import logging
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from datetime import time as dtime
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.settings import Settings
from bot.telegram import ops


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


def test_the_marked_updates_are_bounded() -> None:
    """Errors reported after their update's handling ended leave marks: the oldest go."""
    from types import SimpleNamespace
    from typing import Any, cast

    from telegram import Update

    bot_data: dict[Any, Any] = {}
    context = cast(ops.BotContext, SimpleNamespace(bot_data=bot_data))
    for update_id in range(ops.MARKED_MAX + 50):
        ops.mark_failed(context, Update(update_id))
        ops.mark_transient(context, Update(update_id))
    for name in (ops._FAILED, ops._TRANSIENT):
        assert len(bot_data[name]) == ops.MARKED_MAX
        assert 49 not in bot_data[name] and ops.MARKED_MAX + 49 in bot_data[name]
    assert ops._take(bot_data, ops._FAILED, ops.MARKED_MAX + 49)
    assert not ops._take(bot_data, ops._FAILED, ops.MARKED_MAX + 49)


def _settings(**values: object) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


def test_a_backup_run_is_the_day_or_the_nearest_multiple_of_the_interval() -> None:
    night = datetime(2026, 3, 1, 3, 0, 2, tzinfo=UTC)
    assert ops.backup_slot(_settings(), night) == ("2026-03-01", 20 * 3600 * 1000)
    every = _settings(backup_interval=60)
    # a timer fires a little late (or a clock is a little ahead): the same run
    for seconds in (600.0, 600.4, 599.7, 629.0):
        assert ops.backup_slot(every, datetime.fromtimestamp(seconds, UTC)) == ("10", 120_000)
    assert ops.backup_slot(every, datetime.fromtimestamp(660.2, UTC))[0] == "11"


class _Jobs:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, object]]] = []

    def run_daily(self, callback: object, **kw: object) -> None:
        self.calls.append(("daily", kw))

    def run_repeating(self, callback: object, **kw: object) -> None:
        self.calls.append(("repeating", kw))


def test_backups_run_daily_or_at_the_multiples_of_the_interval() -> None:
    jobs = _Jobs()
    ops.schedule_backups(jobs, _settings(backup_hour=4))  # type: ignore[arg-type]
    assert jobs.calls == [("daily", {"time": dtime(4, tzinfo=UTC), "name": "nightly-backup"})]
    jobs = _Jobs()
    ops.schedule_backups(jobs, _settings(backup_interval=7))  # type: ignore[arg-type]
    [(kind, kw)] = jobs.calls
    assert kind == "repeating" and kw["interval"] == 7
    first = kw["first"]
    assert isinstance(first, float) and 0 < first <= 7
    # the first run falls on a multiple of the interval: every instance's does
    at = time.time() + first
    assert min(at % 7, 7 - at % 7) < 0.5


def test_the_day_turns_just_after_midnight_utc() -> None:
    jobs = _Jobs()
    ops.schedule_day_turn(jobs)  # type: ignore[arg-type]
    assert jobs.calls == [("daily", {"time": dtime(0, 0, 5, tzinfo=UTC), "name": "day-turn"})]


def test_the_backup_interval_is_unset_or_positive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCHBOARD_BACKUP_INTERVAL", "")
    assert _settings().backup_interval is None
    monkeypatch.setenv("BENCHBOARD_BACKUP_INTERVAL", "3600")
    assert _settings().backup_interval == 3600
    monkeypatch.setenv("BENCHBOARD_BACKUP_INTERVAL", "0")
    with pytest.raises(ValidationError):
        _settings()


@pytest.fixture
def restored_gc() -> Iterator[None]:
    threshold, enabled = gc.get_threshold(), gc.isenabled()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)
    (gc.enable if enabled else gc.disable)()


@pytest.mark.usefixtures("restored_gc")
def test_settle_heap_freezes_the_start_and_collects_young_objects_less_often() -> None:
    gc.disable()  # as `benchboard run` starts
    made_at_start = [{"n": n} for n in range(1000)]
    ops.settle_heap()
    assert gc.isenabled()
    assert gc.get_threshold()[0] == ops.GC_YOUNG_THRESHOLD > 700
    assert gc.get_freeze_count() >= len(made_at_start)
    # what was made at the start is out of the collector's reach; new objects are not
    tracked = {id(o) for o in gc.get_objects()}
    assert id(made_at_start[0]) not in tracked
    later = {"new": []}
    assert id(later) in {id(o) for o in gc.get_objects()}


def test_database_passwords_are_redacted_from_log_lines_and_tracebacks() -> None:
    redact = ops.RedactToken("123:tok", ["db-Secret-1"])
    record = logging.LogRecord(
        "psycopg.pool", logging.WARNING, __file__, 1,
        "error connecting to %s: %s", ("postgresql://u:db-Secret-1@h/x", "password=other-pw"),
        None,
    )  # fmt: skip
    assert redact.filter(record)
    line = ops.JsonFormatter().format(record)
    assert "db-Secret-1" not in line and "other-pw" not in line and "u:***@h" in line
    try:
        raise RuntimeError("failed: host=h password=db-Secret-1 123:tok")
    except RuntimeError:
        import sys

        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "boom", None, sys.exc_info())
    assert redact.filter(record)
    line = ops.JsonFormatter().format(record)
    assert "RuntimeError" in line and "db-Secret-1" not in line and "123:tok" not in line


async def test_the_nightly_backup_waits_out_a_locked_database(tmp_path: Path) -> None:
    """Another process holds the SQLite file (``BEGIN EXCLUSIVE``) past the busy
    timeout when the backup is due: the backup waits (no failed job, no night without
    a backup) and is written once the file is free."""
    import asyncio
    import sqlite3
    from types import SimpleNamespace

    from bot.core.services import Services
    from bot.telegram.context import SERVICES

    services = await Services.open(Settings(data_dir=tmp_path, fetch_on_start=False))
    try:
        holder = sqlite3.connect(tmp_path / "benchboard.sqlite3", isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            context = SimpleNamespace(bot_data={SERVICES: services})
            running = asyncio.ensure_future(ops.nightly_backup(context))  # type: ignore[arg-type]
            await asyncio.sleep(7)  # past the store's busy timeout (5 s)
            assert not running.done(), running.exception()
        finally:
            holder.execute("COMMIT")
            holder.close()
        await asyncio.wait_for(running, 60)
        assert len(list((tmp_path / "backups").glob("*.sqlite3"))) == 1
    finally:
        await services.close()

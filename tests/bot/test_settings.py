"""Settings read from the environment: the database tuning knobs."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.settings import Settings


def test_database_settings_default_and_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    default = Settings(_env_file=None)  # type: ignore[call-arg]
    assert (default.db_synchronous, default.db_mmap_mb) == ("FULL", 2048)
    monkeypatch.setenv("BENCHBOARD_DB_SYNCHRONOUS", "NORMAL")
    monkeypatch.setenv("BENCHBOARD_DB_MMAP_MB", "0")
    read = Settings(_env_file=None)  # type: ignore[call-arg]
    assert (read.db_synchronous, read.db_mmap_mb) == ("NORMAL", 0)


@pytest.mark.parametrize(("name", "value"), [("DB_MMAP_MB", "-1"), ("DB_SYNCHRONOUS", "OFF")])
def test_bad_database_settings_are_refused(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(f"BENCHBOARD_{name}", value)
    with pytest.raises(ValidationError):
        Settings(_env_file=None)  # type: ignore[call-arg]


def test_the_database_is_a_file_or_a_postgresql_url(monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    default = Settings(_env_file=None, data_dir=Path("d"))  # type: ignore[call-arg]
    assert default.db_url is None and default.db_target == Path("d/benchboard.sqlite3")
    monkeypatch.setenv("BENCHBOARD_DB", "other/bb.sqlite3")
    assert Settings(_env_file=None).db_target == Path("other/bb.sqlite3")  # type: ignore[call-arg]
    url = "postgresql://bench:s3cret@db.example:5432/benchboard"
    monkeypatch.setenv("BENCHBOARD_DB", url)
    pg = Settings(_env_file=None)  # type: ignore[call-arg]
    assert pg.db_url == url and pg.db_target == url
    assert pg.db_label == "postgresql://bench:***@db.example:5432/benchboard"
    assert "s3cret" not in repr(pg.db_label)
    monkeypatch.setenv("BENCHBOARD_WEBHOOK_REGISTER", "false")
    assert Settings(_env_file=None).webhook_register is False  # type: ignore[call-arg]

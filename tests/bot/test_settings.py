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

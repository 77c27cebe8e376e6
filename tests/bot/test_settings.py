"""Settings read from the environment: the database tuning knobs."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.settings import Settings, load_settings


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


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://u:pw-secret@h:5432/db", "postgresql://u:***@h:5432/db"),
        ("postgres://u:p@ss-secret@h/db", "postgres://u:***@h/db"),
        ("postgresql://u:p%40ss-secret@h/db", "postgresql://u:***@h/db"),
        ("postgresql://u@h/db?password=pw-secret", "postgresql://u@h/db?password=***"),
        (
            "postgresql://u@h/db?sslmode=require&PassWord=pw-secret&application_name=x",
            "postgresql://u@h/db?sslmode=require&PassWord=***&application_name=x",
        ),
        ("postgresql://u@h/db?sslpassword=pw-secret", "postgresql://u@h/db?sslpassword=***"),
        ("host=h user=u password=pw-secret dbname=db", "host=h user=u password=*** dbname=db"),
        (
            "host=h password = 'pw-secret with \\' quote' dbname=db",
            "host=h password = *** dbname=db",
        ),
        ("postgresql://u@h/db", "postgresql://u@h/db"),
        ("/srv/bench.sqlite3", "/srv/bench.sqlite3"),
    ],
)
def test_a_password_is_redacted_in_every_form(url: str, shown: str) -> None:
    from bot.settings import redact_url

    assert redact_url(url) == shown
    assert "secret" not in redact_url(url)


def test_settings_redact_their_secrets_from_any_text() -> None:
    pg = Settings(  # type: ignore[call-arg]
        _env_file=None,
        db="postgresql://u:first-pw@h/db?password=second%2Dpw",
        token="123:tok-en",
        webhook_secret="hook-secret",
    )
    said = "connection to first-pw failed; second-pw second%2Dpw 123:tok-en hook-secret"
    cleaned = pg.redact(said)
    for secret in ("first-pw", "second-pw", "second%2Dpw", "123:tok-en", "hook-secret"):
        assert secret not in cleaned
    assert "second-pw" in pg.secret_values() and "second%2Dpw" in pg.secret_values()


def test_a_key_value_connection_string_is_refused_without_echoing_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bot.settings import SettingsError, load_settings

    monkeypatch.setenv("BENCHBOARD_DB", "host=db user=bench password=kv-secret dbname=bb")
    with pytest.raises(SettingsError) as caught:
        load_settings(_env_file=None)
    assert "postgresql://" in str(caught.value) and "kv-secret" not in str(caught.value)
    monkeypatch.setenv("BENCHBOARD_DB", "/data/odd=name.sqlite3")  # a file's name with '='
    assert Settings(_env_file=None).db_url is None  # type: ignore[call-arg]


def test_redaction_is_linear_on_a_megabyte_of_its_worst_cases() -> None:
    import time

    from bot.settings import redact_passwords

    for text in ("a" * 1_000_000 + "@", ("password" + " " * 10) * 100_000 + "@",
                 "x://" + "a:" * 500_000 + "@", "password='" + "\\x" * 500_000):  # fmt: skip
        started = time.perf_counter()
        redact_passwords(text)
        assert time.perf_counter() - started < 1.0


def test_a_benchmarks_own_variables_are_read_by_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BENCHBOARD_PRIMEBENCH_URL", "http://127.0.0.1:9/mirror")
    (tmp_path / ".env").write_text("BENCHBOARD_ZEROBENCH_URL=http://127.0.0.1:9/rows\n")
    monkeypatch.setenv("BENCHBOARD_NATORY_SEED", "old-seed")
    settings = load_settings()
    assert settings.source_url("primebench") == "http://127.0.0.1:9/mirror"
    assert settings.source_url("zerobench") == "http://127.0.0.1:9/rows"  # from .env
    assert settings.source_url("natory") is None  # its source's own
    assert settings.challenge_seed == "old-seed"  # a challenge's own seed, its former name
    monkeypatch.setenv("BENCHBOARD_CHALLENGE_SEED", "new-seed")
    assert load_settings().challenge_seed == "new-seed"  # the setting itself wins

"""All settings, read once at start from environment variables and a ``.env`` file.

The object is passed down; nothing imports a settings global. The token is a
``SecretStr``: it never shows in a repr, a log line or an error message.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import unquote

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

TELEGRAM_API = "https://api.telegram.org/bot"
TELEGRAM_FILES = "https://api.telegram.org/file/bot"
PREFIX = "BENCHBOARD_"


class SettingsError(Exception):
    """A setting is missing or wrong; the message names the variable."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix=PREFIX,
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        hide_input_in_errors=True,
    )

    token: SecretStr | None = None
    data_dir: Path = Path("data")
    #: An SQLite file's path, or a ``postgresql://`` URL (several instances share it).
    db: str | None = None
    #: FULL: every commit is on disk before the user is answered, even across a power
    #: cut. NORMAL (WAL): commits survive a crash of the bot, the last few may be lost
    #: in a power cut; writes are faster (bench_storage.py measures by how much).
    db_synchronous: Literal["FULL", "NORMAL"] = "FULL"
    #: How much of the database file SQLite reads through memory mapping (MiB, capped at
    #: 2048 by SQLite; 0: plain reads). Page reads then cost no system call.
    db_mmap_mb: int = Field(default=2048, ge=0)
    admins: Annotated[frozenset[int], NoDecode] = frozenset()
    api_base_url: str = TELEGRAM_API
    api_file_url: str = TELEGRAM_FILES
    webhook_url: str | None = None
    webhook_secret: SecretStr | None = None
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = Field(default=8443, ge=1, le=65535)
    #: Whether ``benchboard run`` registers the webhook when it starts (one instance). With
    #: several instances set it to false and run ``benchboard webhook set`` once.
    webhook_register: bool = True
    daily_limit: int = Field(default=20, ge=0)
    #: Telegram's flood limits (messages per second overall, per minute per group);
    #: 0 disables a limit (for a local Bot API server).
    rate_overall: float = Field(default=30, ge=0)
    rate_group: float = Field(default=20, ge=0)
    log_level: str = "INFO"
    backup_dir: Path | None = None
    backup_keep: int = Field(default=7, ge=1)
    backup_hour: int = Field(default=3, ge=0, le=23)
    #: Seconds between backups, counted from the Unix epoch (every instance's timer then
    #: fires for the same slot, one of them writes it); unset: daily at ``backup_hour``.
    backup_interval: int | None = Field(default=None, ge=1)
    #: Download addresses that replace a benchmark's own, by benchmark name: each is read
    #: from ``BENCHBOARD_<NAME>_URL`` (a mirror, say; see :meth:`source_url`).
    source_urls: dict[str, str] = Field(default_factory=dict)
    #: The seed each challenge benchmark draws its daily target from. A benchmark's own
    #: ``BENCHBOARD_<NAME>_SEED`` is read too when this is not set (the first name of this
    #: setting), so existing deployments keep their targets.
    challenge_seed: str = "benchboard"
    #: The providers file (TOML: providers, models and prices, daily runs, sponsorships)
    #: Benchboard runs benchmarks with (``/run``, ``benchboard eval``); unset: no runs.
    providers: Path | None = None
    #: What a user who is not a bot admin may spend on ``/run`` a day, in USD (0: only
    #: admins run).
    run_budget_usd: float = Field(default=0, ge=0)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The usual sources, then the variables named after each benchmark."""
        sources = (init_settings, env_settings, dotenv_settings, file_secret_settings)
        return (*sources, _PerBenchmark(settings_cls))

    #: The web boards (``benchboard web``; ``benchboard run`` in webhook mode serves them
    #: on the webhook's port instead).
    web_host: str = "127.0.0.1"
    web_port: int = Field(default=8080, ge=1, le=65535)
    #: The boards' public HTTPS address (the Mini App's); empty: the webhook URL's origin.
    web_url: str | None = None
    #: The API's rate per user, all their tokens together (``/api/v1``): requests a
    #: minute (0: no limit), and how
    #: many may come at once. Counted in the database, so every instance shares it.
    api_rate: float = Field(default=60, ge=0)
    api_burst: int = Field(default=10, ge=1)
    #: The bot's username, for the web's links into the bot when the web runs alone
    #: (``benchboard run`` knows its own).
    bot_username: str | None = None
    fetch_on_start: bool = True
    #: A chat (a private channel or group with the bot in it) where card images are
    #: uploaded once for inline mode, to get their file_id; unset: the user's private
    #: chat with the bot (the upload is deleted at once).
    card_chat: int | None = None

    @field_validator("admins", mode="before")
    @classmethod
    def _split_admins(cls, value: Any) -> Any:
        if isinstance(value, str):
            parts = [p for p in value.replace(";", ",").replace(" ", ",").split(",") if p]
            try:
                return frozenset(int(p) for p in parts)
            except ValueError:
                raise ValueError("must be comma-separated Telegram user ids") from None
        return value

    @field_validator("db")
    @classmethod
    def _db_form(cls, value: str | None) -> str | None:
        if value is not None and _KEY_VALUE_DSN.match(value) and _DSN_KEYWORD.search(value):
            # else it would be taken for an SQLite file's name (and printed, password too)
            raise ValueError(
                "is a key=value connection string: give PostgreSQL as a URL, "
                "postgresql://USER:PASSWORD@HOST:5432/DBNAME"
            )
        if value is not None and _URL.match(value) and not value.startswith(_POSTGRES):
            # (mysql://…, sqlite:///bb.db, a mistyped postgresq://: else an SQLite file
            # named "mysql:" was made in the working folder, and used)
            raise ValueError(
                "is a URL but not postgresql://: give PostgreSQL as "
                "postgresql://USER:PASSWORD@HOST:5432/DBNAME, or SQLite as a file's path"
            )
        return value

    @field_validator("api_base_url", "api_file_url")
    @classmethod
    def _http_address(cls, value: str) -> str:
        # the token is appended to it: anything else fails with an error that quotes it
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// address (the token is added to it)")
        return value

    @field_validator("log_level")
    @classmethod
    def _level(cls, value: str) -> str:
        level = value.strip().upper()
        if level not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            raise ValueError("must be DEBUG, INFO, WARNING, ERROR or CRITICAL")
        return level

    @field_validator(
        "webhook_url",
        "webhook_secret",
        "card_chat",
        "web_url",
        "bot_username",
        "backup_interval",
        "providers",
        mode="before",
    )
    @classmethod
    def _empty_is_none(cls, value: Any) -> Any:
        return None if value == "" else value

    @property
    def db_url(self) -> str | None:
        """The PostgreSQL URL ``BENCHBOARD_DB`` names, or None (SQLite)."""
        if self.db is not None and self.db.startswith(_POSTGRES):
            return self.db
        return None

    @property
    def db_path(self) -> Path:
        """The SQLite file (with PostgreSQL: the one a default setup would use)."""
        if self.db is not None and self.db_url is None:
            return Path(self.db)
        return self.data_dir / "benchboard.sqlite3"

    @property
    def db_target(self) -> str | Path:
        """What ``Store.open`` takes: the PostgreSQL URL, else the SQLite file."""
        return self.db_url or self.db_path

    @property
    def db_label(self) -> str:
        """The database as it may be printed (a URL without its password)."""
        if self.db_url is None:
            return str(self.db_path)
        return redact_url(self.db_url)

    def source_url(self, benchmark: str) -> str | None:
        """Where ``data fetch`` downloads a benchmark's files from when set
        (``BENCHBOARD_<NAME>_URL``, a mirror for instance); None: its source's own."""
        value = self.source_urls.get(benchmark, "")
        return value if value.strip() else None

    @property
    def public_web_url(self) -> str | None:
        """The web boards' public HTTPS base (no trailing slash), or None: ``web_url``,
        else the webhook URL's origin."""
        for url in (self.web_url, self.webhook_url):
            if url and url.startswith("https://"):
                if url is self.web_url:
                    return url.rstrip("/")
                host = url.removeprefix("https://").split("/", 1)[0]
                return "https://" + host
        return None

    @property
    def backups_path(self) -> Path:
        return self.backup_dir if self.backup_dir is not None else self.data_dir / "backups"

    def secret_values(self) -> list[str]:
        """What no output may show: the token, the webhook secret, the database's
        password (as written and percent-decoded)."""
        found = [
            secret.get_secret_value()
            for secret in (self.token, self.webhook_secret)
            if secret is not None and secret.get_secret_value()
        ]
        found += url_passwords(self.db or "")
        return sorted({v for v in found if len(v) >= MIN_SECRET}, key=len, reverse=True)

    def redact(self, text: str) -> str:
        """``text`` (an error's message) without any of :meth:`secret_values` or a
        password in the form of a URL or a connection string."""
        for secret in self.secret_values():
            text = text.replace(secret, "***")
        return redact_passwords(text)

    def require_token(self) -> str:
        if self.token is None or not self.token.get_secret_value().strip():
            raise SettingsError(
                f"{PREFIX}TOKEN is not set: get a bot token from @BotFather and set "
                f"{PREFIX}TOKEN (environment or .env)"
            )
        return self.token.get_secret_value().strip()


#: A secret shorter than this is redacted only where its form shows it (``:...@``,
#: ``password=``), not wherever its letters occur.
MIN_SECRET = 4
#: The schemes of a PostgreSQL URL; any other ``scheme://`` is refused.
_POSTGRES = ("postgresql://", "postgres://")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
#: ``host=db dbname=bench password=...``: libpq's key=value form.
_KEY_VALUE_DSN = re.compile(r"\s*[A-Za-z_]+\s*=")
_DSN_KEYWORD = re.compile(r"(?i)\b(?:host|hostaddr|dbname|user|password|port|service)\s*=")
#: ``password=`` in a URL's query string (``?password=...&...``).
_QUERY_PASSWORD = re.compile(r"(?i)([?&](?:ssl)?password=)[^&#\s]*")
#: ``password=...`` in a key=value string: a quoted value (with ``\'`` escapes) or a word.
_KV_PASSWORD = re.compile(r"(?i)(\b(?:ssl)?password\s*=\s*)(?:'(?:[^'\\]|\\.)*'?|[^\s&]*)")
#: ``scheme://user:password@`` (the last ``@`` before the path or query ends it).
#: (A scheme starts where a run of scheme characters starts: linear on any text.)
_URL_AUTH = re.compile(r"(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*://[^:/?#@\s]*:)[^/?#\s]*@")


def redact_passwords(text: str) -> str:
    """``text`` with every password in it replaced by ``***``: a URL's ``user:pass@``, a
    ``?password=`` parameter, a key=value ``password=...`` (quoted or not)."""
    if "@" in text:
        text = _URL_AUTH.sub(r"\1***@", text)
    if "assword" in text.lower():
        text = _QUERY_PASSWORD.sub(r"\1***", text)
        text = _KV_PASSWORD.sub(r"\1***", text)
    return text


def redact_url(url: str) -> str:
    """A database URL (or connection string) with its password, in whatever form it is
    given, replaced by ``***``."""
    return redact_passwords(url)


def url_passwords(url: str) -> list[str]:
    """The passwords a database URL or connection string carries (as written and
    percent-decoded), for redacting them wherever they show."""
    found: list[str] = []
    if "://" in url:
        head = url.split("?", 1)[0].split("#", 1)[0]
        auth = head.split("://", 1)[1].rpartition("@")[0]
        if ":" in auth:
            found.append(auth.split(":", 1)[1])
        query = url.partition("?")[2].partition("#")[0]
        for part in query.split("&"):
            name, _, value = part.partition("=")
            if name.lower() in ("password", "sslpassword"):
                found.append(value)
    for match in _KV_PASSWORD.finditer(url):
        found.append(match.group(0)[len(match.group(1)) :].strip("'"))
    found += [unquote(value) for value in found]
    return [value for value in found if value]


class _PerBenchmark(PydanticBaseSettingsSource):
    """The variables named after a benchmark of the registry (by its name, so nothing here
    names one): ``BENCHBOARD_<NAME>_URL`` into ``source_urls``, and a challenge's former
    ``BENCHBOARD_<NAME>_SEED`` into ``challenge_seed`` when that is not set. Read from the
    environment, then the ``.env`` file, as the other settings are."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # everything is given by __call__

    def __call__(self) -> dict[str, Any]:
        from dotenv import dotenv_values  # pydantic-settings' own .env reader

        from scoring import registry  # names only: no benchmark module is imported

        env_file = self.config.get("env_file")
        found = {
            str(k).upper(): v
            for k, v in (dotenv_values(env_file) if isinstance(env_file, str) else {}).items()
            if v is not None
        }
        found.update({k.upper(): v for k, v in os.environ.items()})
        names = registry.names()
        values: dict[str, Any] = {}
        urls = {n: found[f"{PREFIX}{n.upper()}_URL"] for n in names
                if f"{PREFIX}{n.upper()}_URL" in found}  # fmt: skip
        if urls:
            values["source_urls"] = urls
        seeds = [found[f"{PREFIX}{n.upper()}_SEED"] for n in names
                 if f"{PREFIX}{n.upper()}_SEED" in found]  # fmt: skip
        if seeds and f"{PREFIX}CHALLENGE_SEED" not in found:
            values["challenge_seed"] = seeds[0]
        return values


def load_settings(**overrides: Any) -> Settings:
    """Read settings; a bad value raises :class:`SettingsError` naming the variable."""
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        first = exc.errors()[0]
        name = PREFIX + str(first["loc"][0]).upper() if first["loc"] else PREFIX
        message = str(first["msg"]).removeprefix("Value error, ")
        raise SettingsError(f"{name}: {message}") from None

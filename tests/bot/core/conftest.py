"""The storage tests' fixtures (temp-file databases, a fake clock), for the use cases.

The use cases run on SQLite; a module that sets ``ENGINES = BOTH`` runs each of its
tests on PostgreSQL too (skipped, saying how to get it, without a server), as the
storage tests do. ``services`` are the use cases' services over the test's store, with
a PrimeBench key of the project's own (``tests.e2e.harness.make_key``) loaded.
A test of such a module decorated :func:`engine_free` runs on SQLite only: what it
checks is the use case's own (refusals, words, what the storage tests already check on
both engines).

So that such a module stays fast, its tests do not migrate a database each: each
starts from a copy of a file migrated once (SQLite), or from one schema migrated once
and emptied before every test (PostgreSQL: every table but the migrations' emptied,
identities restarted) — the state a fresh database is in.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from bot.core import challenges, keys
from bot.core.services import Services
from bot.settings import Settings
from storage import Store
from tests.e2e.harness import key_text, make_key
from tests.storage.conftest import clock, make, pg_database, store
from tests.storage.pg import pg_schema_url

__all__ = ["clock", "db_path", "engine", "make", "pg_database", "services", "store"]

#: The engines of a module that sets ``ENGINES = BOTH``.
BOTH = ("sqlite", "postgresql")
#: The 104-question PrimeBench key the use-case tests score against.
KEY = make_key()
#: A bot admin of the use-case tests' services (``BENCHBOARD_ADMINS``).
BOT_ADMIN = 900
#: Their daily publication limit.
DAILY_LIMIT = 3


F = TypeVar("F", bound=Callable[..., object])


def engine_free(test: F) -> F:
    """Run this test on SQLite only, in a module that sets ``ENGINES = BOTH``."""
    test.engines = ("sqlite",)  # type: ignore[attr-defined]
    return test


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    engines = getattr(metafunc.function, "engines", None) or getattr(
        metafunc.module, "ENGINES", None
    )
    if engines and "engine" in metafunc.fixturenames:
        metafunc.parametrize("engine", engines, indirect=True)


@pytest.fixture
def engine(request: pytest.FixtureRequest) -> str:
    return str(getattr(request, "param", "sqlite"))


def _migrate(target: str | Path) -> None:
    async def opened_once() -> None:
        await (await Store.open(target)).close()

    asyncio.run(opened_once())


@pytest.fixture(scope="session")
def migrated_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite database file the store has migrated (and closed)."""
    path = tmp_path_factory.mktemp("migrated") / "bench.sqlite3"
    _migrate(path)
    return path


@pytest.fixture(scope="session")
def migrated_schema(pg_database: str) -> Iterator[str]:
    """A PostgreSQL schema the store has migrated: its URL."""
    with pg_schema_url(pg_database) as url:
        _migrate(url)
        yield url


def _emptied(url: str) -> str:
    """The schema at ``url`` as freshly migrated: every table but the migrations'
    emptied, its sequences restarted. Rows are deleted with the foreign-key triggers
    off (``session_replication_role``, a superuser's), as a TRUNCATE of every table
    costs more than migrating anew; a user who may not turns them off truncates."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET lock_timeout = '10s'")
        tables = [
            f'"{row[0]}"'
            for row in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
                "AND tablename <> 'schema_migrations'"
            )
        ]
        try:
            conn.execute("SET session_replication_role = replica")
        except psycopg.errors.InsufficientPrivilege:
            conn.execute(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY".encode())
            return url
        with conn.transaction():
            for table in tables:
                conn.execute(f"DELETE FROM {table}".encode())
            for row in conn.execute(
                "SELECT c.relname FROM pg_class AS c JOIN pg_namespace AS n "
                "ON n.oid = c.relnamespace WHERE c.relkind = 'S' AND n.nspname = current_schema()"
            ).fetchall():
                conn.execute(f'ALTER SEQUENCE "{row[0]}" RESTART'.encode())
    return url


@pytest.fixture
def db_path(engine: str, tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """The test's database (``tests.storage.conftest.db_path``): in a module with
    ``ENGINES``, from the migrated copy or the emptied schema; else a new file."""
    path = tmp_path / "data" / "bench.sqlite3"
    if getattr(request.module, "ENGINES", None) is None:
        return path
    if engine == "postgresql":
        return _emptied(request.getfixturevalue("migrated_schema"))  # type: ignore[return-value]
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(request.getfixturevalue("migrated_file"), path)
    return path


@pytest.fixture
async def services(store: Store, tmp_path: Path) -> Services:
    settings = Settings(
        data_dir=tmp_path,
        fetch_on_start=False,
        daily_limit=DAILY_LIMIT,
        admins=frozenset({BOT_ADMIN}),
    )
    await challenges.declare(store)  # as Services.open does
    found = Services(settings=settings, store=store)
    found.bot_username = "benchboard_bot"
    await keys.load_key(found, "primebench", key_text(KEY).encode(), "test")
    return found

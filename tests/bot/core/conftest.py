"""The storage tests' fixtures (temp-file databases, a fake clock), for the use cases.

The use cases run on SQLite; a module that sets ``ENGINES = BOTH`` runs each of its
tests on PostgreSQL too (skipped, saying how to get it, without a server), as the
storage tests do. ``services`` are the use cases' services over the test's store, with
a PrimeBench key of the project's own (``tests.e2e.harness.make_key``) loaded.
A test of such a module decorated :func:`engine_free` runs on SQLite only: what it
checks is the use case's own (refusals, words, what the storage tests already check on
both engines), so the set stays fast (PostgreSQL costs a migrated schema per test).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from bot.core import keys
from bot.core.services import Services
from bot.settings import Settings
from storage import Store
from tests.e2e.harness import key_text, make_key
from tests.storage.conftest import clock, db_path, make, pg_database, store

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


@pytest.fixture
async def services(store: Store, tmp_path: Path) -> Services:
    settings = Settings(
        data_dir=tmp_path,
        fetch_on_start=False,
        daily_limit=DAILY_LIMIT,
        admins=frozenset({BOT_ADMIN}),
    )
    found = Services(settings=settings, store=store)
    found.bot_username = "benchboard_bot"
    await keys.load_key(found, "primebench", key_text(KEY).encode(), "test")
    return found

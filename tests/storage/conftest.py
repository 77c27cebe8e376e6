"""Fixtures for the storage tests: real databases and a fake clock.

Every test that opens the store through ``db_path`` (or ``store``) runs on both engines:
an SQLite file in a temporary folder, and PostgreSQL — a database made for this test run
(dropped at its end), one schema per test — where ``BENCHBOARD_TEST_POSTGRES_URL`` names a
server; without it the PostgreSQL runs are skipped, saying so. A test about one engine's
own behaviour (SQLite's pragmas, files, locks) is marked ``sqlite_only`` and has no
PostgreSQL run; one about PostgreSQL's own (its migrations, notifications) is marked
``postgresql_only``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from storage import Store
from tests.storage.helpers import PRIME, FakeClock, Maker, key_bytes
from tests.storage.pg import PG_SKIP, pg_schema_url, pg_test_database

__all__ = ["PG_SKIP", "clock", "db_path", "engine", "make", "pg_database", "store"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A ``sqlite_only`` test has no PostgreSQL run, a ``postgresql_only`` test no SQLite
    run (left out when collected, rather than skipped)."""
    kept, dropped = [], []
    for item in items:
        callspec = getattr(item, "callspec", None)
        engine = callspec.params.get("engine") if callspec is not None else None
        other = {"postgresql": "sqlite_only", "sqlite": "postgresql_only"}.get(str(engine))
        if other is not None and item.get_closest_marker(other) is not None:
            dropped.append(item)
        else:
            kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """A PostgreSQL database for this test run (skipped without a server)."""
    yield from pg_test_database()


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def db_path(engine: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Path]:
    """Where the test's database is: a file path, or (PostgreSQL) a URL, as ``Path``'s
    type for the tests' annotations — ``Store.open`` takes either."""
    if engine == "sqlite":
        yield tmp_path / "data" / "bench.sqlite3"
        return
    base = request.getfixturevalue("pg_database")
    with pg_schema_url(base) as url:
        yield url  # type: ignore[misc]


@pytest.fixture
async def store(db_path: Path, clock: FakeClock) -> AsyncIterator[Store]:
    s = await Store.open(db_path, clock=clock)
    try:
        yield s
    finally:
        await s.close()


@pytest.fixture
async def make(store: Store) -> Maker:
    """A Maker whose key (20 questions, seed 1) is stored as the current PrimeBench key."""
    data = key_bytes(1)
    version = await store.save_key("primebench", data, source="test")
    return Maker(key=PRIME.load_key(data), key_id=version.id)

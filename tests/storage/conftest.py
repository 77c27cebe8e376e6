"""Fixtures for the storage tests: real temp-file databases and a fake clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage import Store
from tests.storage.helpers import PRIME, FakeClock, Maker, key_bytes


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "bench.sqlite3"


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

"""The storage tests' fixtures (temp-file databases, a fake clock), for the use cases
(on SQLite: the storage tests run every query on both engines)."""

import pytest

from tests.storage.conftest import clock, db_path, make, store

__all__ = ["clock", "db_path", "engine", "make", "store"]


@pytest.fixture
def engine() -> str:
    return "sqlite"

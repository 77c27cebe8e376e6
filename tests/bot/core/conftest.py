"""The storage tests' fixtures (temp-file databases, a fake clock), for the use cases."""

from tests.storage.conftest import clock, db_path, make, store

__all__ = ["clock", "db_path", "make", "store"]

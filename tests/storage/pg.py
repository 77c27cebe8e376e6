"""PostgreSQL for the tests: a database per test run, a schema per test.

``BENCHBOARD_TEST_POSTGRES_URL`` names a server's maintenance database (its user may
create databases); without it, whatever needs PostgreSQL is skipped with
:data:`PG_SKIP`.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import quote, urlsplit, urlunsplit

import pytest

ENV = "BENCHBOARD_TEST_POSTGRES_URL"
PG_SKIP = f"set {ENV}=postgresql://postgres@127.0.0.1:5432/postgres to run the PostgreSQL tests"


def server_url() -> str | None:
    return os.environ.get(ENV) or None


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


def pg_test_database() -> Iterator[str]:
    """Make a database with a unique name, yield its URL, drop it afterwards."""
    url = server_url()
    if url is None:
        pytest.skip(PG_SKIP)
    import psycopg

    name = f"bb_test_{os.getpid()}_{secrets.token_hex(4)}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield with_database(url, name)
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def pg_schema_url(database_url: str) -> Iterator[str]:
    """A fresh schema in the test run's database; the URL puts it first on the search
    path (the store's tables land there). Dropped afterwards."""
    import psycopg

    schema = f"t_{secrets.token_hex(6)}"
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    sep = "&" if "?" in database_url else "?"
    try:
        yield f"{database_url}{sep}options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def query_one(target: object, sql: str) -> tuple[object, ...]:
    """The first row of ``sql`` read straight from a test's database (a file path or a
    PostgreSQL URL), bypassing the store."""
    if isinstance(target, str) and target.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(target) as conn:
            row = conn.execute(sql.encode()).fetchone()
    else:
        import sqlite3

        with sqlite3.connect(str(target)) as con:
            row = con.execute(sql).fetchone()
    assert row is not None
    return tuple(row)

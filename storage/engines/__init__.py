"""Database engines other than the default SQLite (:mod:`storage.db`).

``postgres`` is PostgreSQL through psycopg 3 (async, with its connection pool); it is
imported only when ``Store.open`` is given a ``postgresql://`` URL, so nothing else pays
for it. ``pg_schema`` holds its migrations.
"""

from __future__ import annotations

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(target: object) -> bool:
    """Whether ``target`` names a PostgreSQL database (else: an SQLite file path)."""
    return isinstance(target, str) and target.startswith(POSTGRES_SCHEMES)

"""What SQLite and PostgreSQL spell differently, for the few queries that need it.

The store's SQL is one body, written so that both engines read it: ``?`` parameters
(PostgreSQL's engine translates them once per statement, see
:mod:`storage.engines.postgres`), ``ON CONFLICT`` upserts, ``RETURNING``, ``CASE`` for
comparisons used as numbers, ``COALESCE(SUM(...), 0.0)`` for ``TOTAL``. What cannot be
written once — reading a JSON field, matching a pattern — is a fragment from the
engine's :class:`Dialect` (``db.dialect``).
"""

from __future__ import annotations

from dataclasses import dataclass


def _key(name: str) -> str:
    if not name.replace("_", "").isalnum():
        raise ValueError(f"not a JSON field name: {name!r}")
    return name


@dataclass(frozen=True, slots=True)
class Dialect:
    """One engine's spelling of the fragments that differ."""

    name: str

    @property
    def postgres(self) -> bool:
        return self.name == "postgresql"

    def json_text(self, column: str, key: str) -> str:
        """A JSON text column's field, as text (NULL when absent)."""
        if self.postgres:
            return f"({column}::jsonb ->> '{_key(key)}')"
        return f"json_extract({column}, '$.{_key(key)}')"

    def json_number(self, column: str, key: str) -> str:
        """A JSON text column's field, as a number (NULL when absent)."""
        if self.postgres:
            return f"CAST({column}::jsonb ->> '{_key(key)}' AS DOUBLE PRECISION)"
        return f"CAST(json_extract({column}, '$.{_key(key)}') AS REAL)"

    def json_true(self, column: str, key: str) -> str:
        """A condition: the JSON field is true (or 1)."""
        if self.postgres:
            return f"({column}::jsonb ->> '{_key(key)}') IN ('true', '1')"
        return f"json_extract({column}, '$.{_key(key)}') = 1"

    def json_path(self, column: str) -> str:
        """A JSON text column's value at a path given as a parameter (:meth:`path_param`),
        as the JSON value (a number stays a number)."""
        if self.postgres:
            return f"({column}::jsonb #> ?)"
        return f"json_extract({column}, ?)"

    def path_param(self, path: str) -> str | list[str]:
        """The parameter of :meth:`json_path` for a path ``$.a.b`` (checked by the caller:
        plain names only)."""
        if self.postgres:
            return path.split(".")[1:]
        return path

    def digits_only(self, expr: str) -> str:
        """1 when ``expr`` is one or more ASCII digits and nothing else, else 0."""
        if self.postgres:
            return f"(CASE WHEN {expr} ~ '^[0-9]+$' THEN 1 ELSE 0 END)"
        return f"COALESCE({expr} GLOB '[0-9]*' AND {expr} NOT GLOB '*[^0-9]*', 0)"


SQLITE = Dialect("sqlite")
POSTGRES = Dialect("postgresql")

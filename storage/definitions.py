"""Benchmarks defined by data (a multiple-choice benchmark's TOML file): their
definitions, versioned, with their keys in the key tables.

A definition is stored as text (JSON, of a ``kind``) beside its benchmark's row; the
latest version is the benchmark's. Saving a definition stores its key in the same
transaction, as that benchmark's key (:class:`storage.keys.KeyStore`: versioned by
SHA-256, made current), so a corrected key re-scores like any other. Plain types only:
what a definition means is the scorer's to say.
"""

from __future__ import annotations

import hashlib

from .keys import KeyStore, key_version
from .models import DefinitionVersion, KeyVersion
from .values import Row, benchmark_name, dt, storable_text

_COLUMNS = "b.name, d.version, d.kind, d.sha256, d.definition, d.source, d.loaded_at"


def _definition(row: Row, *, created: bool = False) -> DefinitionVersion:
    return DefinitionVersion(row[0], row[1], row[2], row[3], row[4], row[5], dt(row[6]), created)


class DefinitionStore(KeyStore):
    async def save_definition(
        self, benchmark: str, kind: str, definition: str, key: bytes, *, source: str
    ) -> tuple[DefinitionVersion, KeyVersion]:
        """Store a definition and its key, in one transaction. A definition equal to the
        benchmark's latest is not stored again (``created=False``); another becomes the
        next version. The key is saved as :meth:`save_key` saves one."""
        name = benchmark_name(benchmark)
        sha = hashlib.sha256(definition.encode()).hexdigest()
        async with self._db.write() as s:
            bench_id = await self._ensure_bench(s, name)
            await s.lock("definition", bench_id)
            latest = await s.one(
                """SELECT version, sha256 FROM benchmark_definitions
                   WHERE benchmark_id = ? ORDER BY version DESC LIMIT 1""",
                (bench_id,),
            )
            created = latest is None or latest[1] != sha
            version = 1 if latest is None else int(latest[0]) + int(created)
            if created:
                await s.execute(
                    """INSERT INTO benchmark_definitions
                           (benchmark_id, version, kind, sha256, definition, source, loaded_at)
                       VALUES (?, ?, ?, ?, ?, ?, ?)""",
                    (bench_id, version, kind, sha, storable_text(definition),
                     storable_text(source), self._now_ms()),
                )  # fmt: skip
            row = await s.one(
                f"""SELECT {_COLUMNS} FROM benchmark_definitions AS d
                    JOIN benchmarks AS b ON b.id = d.benchmark_id
                    WHERE d.benchmark_id = ? AND d.version = ?""",
                (bench_id, version),
            )
            key_row, key_created = await self._save_key_in(s, bench_id, key, source)
        assert row is not None
        return _definition(row, created=created), key_version(key_row, created=key_created)

    async def definitions(self) -> list[DefinitionVersion]:
        """Every benchmark's latest definition, in the order they were first defined."""
        async with self._db.single() as s:
            rows = await s.all(
                f"""SELECT {_COLUMNS} FROM benchmark_definitions AS d
                    JOIN benchmarks AS b ON b.id = d.benchmark_id
                    WHERE d.version = (SELECT MAX(version) FROM benchmark_definitions
                                       WHERE benchmark_id = d.benchmark_id)
                    ORDER BY b.id"""
            )
        return [_definition(r) for r in rows]

    async def definition_versions(self, benchmark: str) -> list[DefinitionVersion]:
        """Every stored definition of a benchmark, oldest first."""
        async with self._db.single() as s:
            rows = await s.all(
                f"""SELECT {_COLUMNS} FROM benchmark_definitions AS d
                    JOIN benchmarks AS b ON b.id = d.benchmark_id
                    WHERE b.name = ? ORDER BY d.version""",
                (benchmark_name(benchmark),),
            )
        return [_definition(r) for r in rows]

    async def definitions_stamp(self) -> int:
        """A number that changes whenever a definition is stored (how many are) or a
        benchmark's key in use changes (another process's ``benchmark add`` with a
        corrected key, ``data load``: no new definition): cheap to ask, to tell whether
        the definitions and keys need reading again."""
        async with self._db.read() as s:
            row = await s.one("SELECT COUNT(*) FROM benchmark_definitions")
            keys = await s.all("SELECT id, current_key_id FROM benchmarks ORDER BY id")
        in_use = tuple((int(b), -1 if k is None else int(k)) for b, k in keys)
        return hash((int(row[0]) if row else 0, in_use))

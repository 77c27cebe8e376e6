"""Answer keys, versioned by SHA-256 (the last one saved is a benchmark's current key)."""

from __future__ import annotations

import hashlib

from .base import StoreBase
from .db import Session
from .errors import NotFound
from .models import KeyVersion
from .values import Row, benchmark_name, dt, storable_text

_KEY_COLUMNS = "k.id, b.name, k.version, k.sha256, k.source, k.loaded_at"
_BY_SHA = f"""SELECT {_KEY_COLUMNS} FROM key_versions AS k
              JOIN benchmarks AS b ON b.id = k.benchmark_id
              WHERE k.benchmark_id = ? AND k.sha256 = ?"""


def key_version(row: Row, *, created: bool = False) -> KeyVersion:
    return KeyVersion(row[0], row[1], row[2], row[3], row[4], dt(row[5]), created)


class KeyStore(StoreBase):
    async def save_key(self, benchmark: str, data: bytes, *, source: str) -> KeyVersion:
        """Store an answer key and make it the benchmark's current key.

        A key whose SHA-256 is already stored is not stored again: that version becomes
        current again and is returned with ``created=False``. A different key becomes
        the next version; older versions are kept. After a change of the current key,
        re-score (``pending_rescore`` tells how many submissions wait).
        """
        name = benchmark_name(benchmark)
        async with self._db.write() as s:
            bench_id = await self._ensure_bench(s, name)
            row, created = await self._save_key_in(s, bench_id, data, source)
        return key_version(row, created=created)

    async def _save_key_in(
        self, s: Session, bench_id: int, data: bytes, source: str
    ) -> tuple[Row, bool]:
        """:meth:`save_key` inside a write transaction: the key's row, and whether it is
        a new version."""
        sha = hashlib.sha256(data).hexdigest()
        await s.lock("key", bench_id)  # the next version number, one saver at a time
        row = await s.one(_BY_SHA, (bench_id, sha))
        created = row is None
        if created:
            await s.execute(
                """INSERT INTO key_versions (benchmark_id, version, sha256, data, source,
                                             loaded_at)
                   SELECT ?, COALESCE(MAX(version), 0) + 1, ?, ?, ?, ?
                   FROM key_versions WHERE benchmark_id = ?""",
                (bench_id, sha, data, storable_text(source), self._now_ms(), bench_id),
            )
            row = await s.one(_BY_SHA, (bench_id, sha))
        assert row is not None
        await s.execute("UPDATE benchmarks SET current_key_id = ? WHERE id = ?", (row[0], bench_id))
        return row, created

    async def current_key(self, benchmark: str) -> KeyVersion | None:
        async with self._db.single() as s:
            row = await s.one(
                f"""SELECT {_KEY_COLUMNS} FROM benchmarks AS b
                    JOIN key_versions AS k ON k.id = b.current_key_id WHERE b.name = ?""",
                (benchmark_name(benchmark),),
            )
        return None if row is None else key_version(row)

    async def key_versions(self, benchmark: str) -> list[KeyVersion]:
        """Every stored key of a benchmark, oldest first."""
        async with self._db.single() as s:
            rows = await s.all(
                f"""SELECT {_KEY_COLUMNS} FROM key_versions AS k
                    JOIN benchmarks AS b ON b.id = k.benchmark_id
                    WHERE b.name = ? ORDER BY k.version""",
                (benchmark_name(benchmark),),
            )
        return [key_version(r) for r in rows]

    async def key_data(self, key_version_id: int) -> bytes:
        async with self._db.single() as s:
            row = await s.one("SELECT data FROM key_versions WHERE id = ?", (key_version_id,))
        if row is None:
            raise NotFound(f"no answer key version {key_version_id}")
        return bytes(row[0])

"""Re-score bookkeeping, SQL only: jobs, batches of stored inputs, new results.

Scoring is the caller's (``bot.core.rescore``): it starts or resumes a job, reads the
stored inputs batch by batch, scores them, and saves each batch's results with the
job's progress in one transaction; finishing rebuilds the boards. While a job runs the
boards are computed from the rows (``Board.rescoring``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from . import summaries
from .base import StoreBase
from .db import Session
from .errors import InvalidData
from .values import benchmark_name

#: A batch stops adding rows once their compressed raw text reaches this size.
_BATCH_BYTES = 32 << 20

_SET_VERSIONS = "UPDATE submissions SET key_version_id = ?, scorer_version = ? WHERE id = ?"
_SET_RECORD = (
    "UPDATE submissions SET key_version_id = ?, scorer_version = ?, result = ?, "
    "score_se = NULL WHERE id = ?"
)
_SET_SCORE = (
    "UPDATE submissions SET key_version_id = ?, scorer_version = ?, score = ?, result = ?, "
    "score_se = NULL WHERE id = ?"
)
_SET_ALL = (
    "UPDATE submissions SET key_version_id = ?, scorer_version = ?, score = ?, "
    "fingerprint = ?, result = ?, score_se = NULL WHERE id = ?"
)


class RescoreRow(NamedTuple):
    """A stored submission as a re-score reads it (a tuple: one per row read)."""

    id: int
    #: the raw input, compressed (``storage.values.decompress``)
    raw: bytes
    #: the scorer's options as JSON, or None
    extra: str | None
    key_version_id: int | None
    scorer_version: str
    score: float
    fingerprint: str | None
    #: the result record as JSON (``storage.values.dumps``)
    result: str


@dataclass(frozen=True, slots=True)
class RescoreJob:
    """A re-score of a benchmark against one key version and scorer version."""

    #: 0 for a benchmark without stored keys: no job row (its progress is the rows'
    #: scorer versions: a row already on the current one is not scored again)
    id: int
    benchmark: str
    benchmark_id: int
    #: None for a benchmark without stored keys (a challenge's key is each row's target)
    key_version_id: int | None
    scorer_version: str
    #: the last submission id done (0: none yet)
    last_id: int
    total: int
    changed: int
    skipped: int
    #: whether an interrupted job is being resumed
    resumed: bool


@dataclass(slots=True)
class RescoreWrites:
    """A batch's new results, sorted by what they change (an UPDATE that leaves score
    and fingerprint alone touches no board index), and its counts."""

    key_version_id: int | None
    scorer_version: str
    versions: list[tuple[Any, ...]] = field(default_factory=list)
    records: list[tuple[Any, ...]] = field(default_factory=list)
    scores: list[tuple[Any, ...]] = field(default_factory=list)
    full: list[tuple[Any, ...]] = field(default_factory=list)
    changed: int = 0
    skipped: int = 0

    @property
    def rescored(self) -> int:
        return len(self.versions) + len(self.records) + len(self.scores) + len(self.full)

    def add(self, row: RescoreRow, score: float, fingerprint: str | None, record: str) -> None:
        """A row's new result (``record``: JSON as ``storage.values.dumps`` writes it)."""
        if not math.isfinite(score):
            raise InvalidData(f"submission {row.id}: the scorer returned {score}")
        versions = (self.key_version_id, self.scorer_version)
        if fingerprint != row.fingerprint:
            self.full.append((*versions, score, fingerprint, record, row.id))
        elif score != row.score:
            self.scores.append((*versions, score, record, row.id))
        elif record != row.result:
            self.records.append((*versions, record, row.id))
        else:
            self.versions.append((*versions, row.id))
            return
        self.changed += 1

    def statements(self) -> list[tuple[str, list[tuple[Any, ...]]]]:
        return [
            (_SET_VERSIONS, self.versions),
            (_SET_RECORD, self.records),
            (_SET_SCORE, self.scores),
            (_SET_ALL, self.full),
        ]


class RescoreStore(StoreBase):
    async def pending_rescore(
        self, benchmark: str, *, scorer_version: str | None = None, keyless: bool = False
    ) -> int:
        """How many submissions (with a key) are not scored against the current key.

        With ``scorer_version``: also those scored by another scorer version; with
        ``keyless`` (a benchmark without stored keys), every submission not scored by
        ``scorer_version``."""
        where = "s.key_version_id IS NOT NULL AND s.key_version_id IS NOT b.current_key_id"
        params: list[Any] = [benchmark_name(benchmark)]
        if scorer_version is not None:
            if keyless:
                where = "s.scorer_version <> ?"
            else:
                where = (
                    "s.key_version_id IS NOT NULL AND (s.key_version_id IS NOT "
                    "b.current_key_id OR s.scorer_version <> ?)"
                )
            params.append(scorer_version)
        async with self._db.single() as s:
            row = await s.one(
                "SELECT COUNT(*) FROM submissions AS s JOIN benchmarks AS b "
                f"ON b.id = s.benchmark_id WHERE b.name = ? AND {where}",
                params,
            )
        return int(row[0]) if row else 0

    async def start_rescore(
        self, benchmark: str, *, key_version_id: int | None, scorer_version: str
    ) -> RescoreJob:
        """Resume the unfinished job for this key and scorer, or start one (a job for an
        older key or scorer is superseded); the boards are marked stale meanwhile.

        ``key_version_id`` None: a benchmark without stored keys; no job row is kept
        (``id`` 0), the rows already on ``scorer_version`` are what is done."""
        name = benchmark_name(benchmark)
        now = self._now_ms()
        async with self._db.write() as s:
            bench_id = await self._ensure_bench(s, name)
            await s.lock("board", bench_id)
            if key_version_id is None:
                await s.execute("UPDATE benchmarks SET boards_stale = 1 WHERE id = ?", (bench_id,))
                return RescoreJob(0, name, bench_id, None, scorer_version, 0, 0, 0, 0, False)
            job = await s.one(
                """SELECT id, last_id, total, changed, skipped FROM rescore_jobs
                   WHERE benchmark_id = ? AND key_version_id = ? AND scorer_version = ?
                     AND finished_at IS NULL ORDER BY id DESC LIMIT 1""",
                (bench_id, key_version_id, scorer_version),
            )
            await s.execute(
                "UPDATE rescore_jobs SET finished_at = ? WHERE benchmark_id = ? "
                "AND finished_at IS NULL AND id IS NOT ?",
                (now, bench_id, None if job is None else job[0]),
            )
            resumed = job is not None
            if job is None:
                made = await s.one(
                    """INSERT INTO rescore_jobs (benchmark_id, key_version_id, scorer_version,
                                                 started_at) VALUES (?, ?, ?, ?) RETURNING id""",
                    (bench_id, key_version_id, scorer_version, now),
                )
                job = (int(made[0]) if made else 0, 0, 0, 0, 0)
            await s.execute("UPDATE benchmarks SET boards_stale = 1 WHERE id = ?", (bench_id,))
        job_id, last_id, total, changed, skipped = (int(v) for v in job)
        return RescoreJob(
            job_id, name, bench_id, key_version_id, scorer_version, last_id, total, changed,
            skipped, resumed,
        )  # fmt: skip

    async def rescore_rows(self, job: RescoreJob, after: int, limit: int) -> list[RescoreRow]:
        """The job's next stored submissions after id ``after``, in id order: at most
        ``limit``, and about ``_BATCH_BYTES`` of compressed text. Empty: none left."""
        async with self._db.single() as s:
            rows = await s.all(
                """SELECT id, raw, extra, key_version_id, scorer_version, score, fingerprint,
                          result
                   FROM submissions WHERE benchmark_id = ? AND id > ? ORDER BY id LIMIT ?""",
                (job.benchmark_id, after, limit),
            )
        out: list[RescoreRow] = []
        budget = 0
        for row in rows:
            out.append(RescoreRow._make(row))
            budget += len(row[1])
            if budget >= _BATCH_BYTES:
                break
        return out

    async def save_rescored(
        self, job: RescoreJob, writes: RescoreWrites, *, upto: int, rows: int
    ) -> None:
        """A batch's new results and the job's progress (``rows`` read, up to id
        ``upto``), in one transaction; on PostgreSQL, again if it lost a deadlock to a
        writer of the same rows (a publication, a moderation)."""

        async def save(s: Session) -> None:
            for sql, params in writes.statements():
                if params:
                    await s.executemany(sql, params)
            if not job.id:
                return
            await s.execute(
                """UPDATE rescore_jobs SET last_id = ?, total = total + ?,
                       changed = changed + ?, skipped = skipped + ? WHERE id = ?""",
                (upto, rows, writes.changed, writes.skipped, job.id),
            )

        await self._db.retrying(save)

    async def finish_rescore(self, job: RescoreJob) -> None:
        """Rebuild the boards from the re-scored rows and close the job."""
        async with self._db.write() as s:
            await s.lock("board", job.benchmark_id)
            await summaries.rebuild(s, job.benchmark_id)
            if not job.id:
                return
            await s.execute(
                "UPDATE rescore_jobs SET finished_at = ? WHERE id = ?", (self._now_ms(), job.id)
            )

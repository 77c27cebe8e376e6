"""Re-scoring: every stored submission of a benchmark against its current key.

Storage keeps the books (:mod:`storage.rescore`: the job, batches of stored inputs, the
new results with the job's progress in one transaction); this module scores. A
registered scorer (``scoring.registry``) is pure: equal inputs (raw text and options)
are scored once per call, and batches are scored in worker processes while the previous
batch is written. Another scorer (``benchmarks=``, for tests and benchmarks) scores
every row, in a thread.

A benchmark with a :attr:`~scoring.base.Benchmark.challenge` has no stored key: each
row is scored against the challenge its options name, with the results stored before it
for that challenge as its ``previous`` option (as when it was submitted), in id order,
in a thread; the rows already on the current scorer version are what a re-score skips.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import suppress
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from typing import Any, cast

from scoring import Benchmark
from scoring import registry as scoring_registry
from storage import (
    InvalidData,
    NotFound,
    RescoreJob,
    RescoreReport,
    RescoreRow,
    RescoreWrites,
    Store,
)
from storage.values import benchmark_name, decompress, dumps

from . import challenges

BenchmarkLookup = Callable[[str], Benchmark]

#: Processes a re-score scores in by default (the scorers are CPU-bound and pure).
_RESCORE_WORKERS = max(1, min(2, os.cpu_count() or 1))
#: Fewer texts than this to score in a batch stay in a thread (no process round trip).
_POOL_MIN_TEXTS = 64
#: A batch that worker processes have not scored by then is scored in a thread instead.
_POOL_TIMEOUT_S = 600.0
#: Results a re-score remembers (equal raw text and options give equal results).
_MEMO_MAX = 200_000

#: Input of a score: (compressed raw text, options JSON); output: (score, fingerprint,
#: record JSON).
_Text = tuple[bytes, str | None]
_Scored = tuple[float, str | None, str]


async def rescore(
    store: Store,
    benchmark: str,
    *,
    batch_size: int = 1000,
    workers: int | None = None,
    benchmarks: BenchmarkLookup | None = None,
) -> RescoreReport:
    """Re-score every stored submission of a benchmark against its current key.

    Works in batches of ``batch_size``: each batch's new results and the job's
    progress commit together, so an interrupted re-score (crash, cancellation, a
    scorer error) loses at most one batch and the next call resumes where it
    stopped. Submissions without a key version are skipped, as are those already
    scored against the current key by the current scorer version. The boards are
    rebuilt when the job finishes; until then they are computed from the rows
    themselves (``Board.rescoring`` is True).

    ``workers``: processes for a registered scorer (default: up to 2, one per CPU; 1:
    in a thread). ``benchmarks`` looks the scorer up by name (default: the registry).
    Rows whose score, fingerprint and breakdown did not change only get their key and
    scorer versions updated.
    """
    if batch_size < 1:
        raise InvalidData("batch_size must be at least 1")
    workers = _RESCORE_WORKERS if workers is None else workers
    if workers < 1:
        raise InvalidData("workers must be at least 1")
    started = time.perf_counter()
    name = benchmark_name(benchmark)
    try:
        bench = (benchmarks or scoring_registry.get)(name)
    except Exception as exc:
        raise NotFound(f"no scorer for benchmark {benchmark!r}: {exc}") from exc
    key_version: int | None = None
    scorer: _Rescorer
    if getattr(bench, "challenge", None) is not None:  # (a supplied scorer may leave it out)
        job = await store.start_rescore(
            name, key_version_id=None, scorer_version=bench.scorer_version
        )
        scorer = _DailyRescorer(bench, store, job)
    else:
        key = await store.current_key(name)
        if key is None:
            raise NotFound(f"benchmark {benchmark!r} has no answer key")
        key_version = key.version
        key_data = await store.key_data(key.id)
        loaded = await asyncio.to_thread(bench.load_key, key_data)
        job = await store.start_rescore(
            name, key_version_id=key.id, scorer_version=bench.scorer_version
        )
        scorer = _Rescorer(bench, loaded, key_data, job, workers)
    last_id, total, changed_all, skipped_all = job.last_id, job.total, job.changed, job.skipped
    rescored = batches = 0
    scoring: asyncio.Future[RescoreWrites] | None = None
    try:
        rows = await store.rescore_rows(job, last_id, batch_size)
        if rows:
            scoring = asyncio.ensure_future(scorer.score(rows))
        while rows and scoring is not None:
            # the next batch is read while this one is scored, and scored while this
            # one is written: the scorers never wait for the database
            upto = rows[-1].id
            following = await store.rescore_rows(job, upto, batch_size)
            done = await scoring
            scoring = None
            if following:
                scoring = asyncio.ensure_future(scorer.score(following))
            await store.save_rescored(job, done, upto=upto, rows=len(rows))
            last_id = upto
            batches += 1
            total += len(rows)
            rescored += done.rescored
            changed_all += done.changed
            skipped_all += done.skipped
            rows = following
    finally:
        if scoring is not None:  # interrupted or failed: the batch being scored is dropped
            scoring.cancel()
            scoring.add_done_callback(_retrieve)
        scorer.close()
    await store.finish_rescore(job)
    return RescoreReport(
        benchmark=name,
        key_version=key_version,
        total=total,
        rescored=rescored,
        changed=changed_all,
        skipped=skipped_all,
        batches=batches,
        resumed=job.resumed,
        seconds=time.perf_counter() - started,
        scorer_version=bench.scorer_version,
    )


def _score_texts(bench: Benchmark, key: Any, texts: Sequence[_Text]) -> list[_Scored]:
    """Score raw texts (pure: in a worker thread or process)."""
    out: list[_Scored] = []
    for raw, extra in texts:
        options = json.loads(extra) if extra is not None else None
        result = bench.score(decompress(raw), key, options=options)
        out.append((float(result.primary), result.fingerprint or None, dumps(result.to_record())))
    return out


#: The benchmark and loaded key of a re-score worker process.
_WORKER: tuple[Benchmark, Any] | None = None


def _worker_init(name: str, key_data: bytes, defined: tuple[Benchmark, ...] = ()) -> None:
    global _WORKER
    scoring_registry.adopt(defined)  # the benchmarks defined by data, as the caller has them
    bench = scoring_registry.get(name)
    _WORKER = (bench, bench.load_key(key_data))


def _worker_score(texts: list[_Text]) -> list[_Scored]:
    assert _WORKER is not None, "worker not initialised"
    return _score_texts(*_WORKER, texts)


class _Spawner:
    """multiprocessing's spawn context, keeping the processes it starts: workers that
    stopped answering are killed (``Process.kill``) when their pool is given up."""

    def __init__(self) -> None:
        self._context = multiprocessing.get_context("spawn")
        self.processes: list[BaseProcess] = []

    def Process(self, *args: Any, **kwargs: Any) -> BaseProcess:  # the name of the API
        process = self._context.Process(*args, **kwargs)
        self.processes.append(process)
        return process

    def __getattr__(self, name: str) -> Any:  # the rest of the context, as it is
        return getattr(self._context, name)

    def kill(self) -> None:
        for process in self.processes:
            with suppress(Exception):
                process.kill()


class _Rescorer:
    """Scores re-score batches: every row in a thread for a supplied scorer; for a
    registered (pure) one, each distinct input once, in worker processes when there is
    enough to do."""

    def __init__(
        self, bench: Benchmark, key: Any, key_data: bytes, job: RescoreJob, workers: int
    ) -> None:
        self._bench, self._key, self._key_data, self._job = bench, key, key_data, job
        try:
            self._pure = scoring_registry.get(bench.name) is bench
        except Exception:
            self._pure = False
        self._workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._spawner: _Spawner | None = None
        self._memo: dict[_Text, _Scored] = {}

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    async def score(self, rows: list[RescoreRow]) -> RescoreWrites:
        job = self._job
        current = (job.key_version_id, job.scorer_version)
        todo = [
            r
            for r in rows
            if r.key_version_id is not None and (r.key_version_id, r.scorer_version) != current
        ]
        if not self._pure:
            scored = await asyncio.to_thread(
                _score_texts, self._bench, self._key, [(r.raw, r.extra) for r in todo]
            )
            return self._assemble(rows, todo, scored)
        memo = self._memo
        if len(memo) > _MEMO_MAX:
            memo.clear()
        fresh = list(dict.fromkeys((r.raw, r.extra) for r in todo if (r.raw, r.extra) not in memo))
        if len(fresh) >= _POOL_MIN_TEXTS and self._workers > 1:
            results = await self._in_pool(fresh)
        else:
            results = await asyncio.to_thread(_score_texts, self._bench, self._key, fresh)
        memo.update(zip(fresh, results, strict=True))
        return self._assemble(rows, todo, [memo[(r.raw, r.extra)] for r in todo])

    async def _in_pool(self, texts: list[_Text]) -> list[_Scored]:
        if self._pool is None:
            self._spawner = _Spawner()
            self._pool = ProcessPoolExecutor(
                self._workers,
                mp_context=cast(BaseContext, self._spawner),
                initializer=_worker_init,
                initargs=(self._bench.name, self._key_data, scoring_registry.defined()),
            )
        loop = asyncio.get_running_loop()
        step = -(-len(texts) // (self._workers * 2))
        parts = [texts[i : i + step] for i in range(0, len(texts), step)]
        try:
            done = await asyncio.wait_for(
                asyncio.gather(
                    *(loop.run_in_executor(self._pool, _worker_score, part) for part in parts)
                ),
                _POOL_TIMEOUT_S,
            )
        except (BrokenProcessPool, TimeoutError):
            # no working processes here (e.g. a main module without an ``if __name__ ==
            # "__main__"`` guard, which each spawned process runs again): go on in a thread;
            # the batch is scored whole again, nothing is half-done
            if self._spawner is not None:
                self._spawner.kill()
            self.close()
            self._workers = 1
            return await asyncio.to_thread(_score_texts, self._bench, self._key, texts)
        return [scored for part in done for scored in part]

    def _assemble(
        self, rows: list[RescoreRow], todo: list[RescoreRow], scored: list[_Scored]
    ) -> RescoreWrites:
        job = self._job
        out = RescoreWrites(job.key_version_id, job.scorer_version, skipped=len(rows) - len(todo))
        for row, (score, fingerprint, record) in zip(todo, scored, strict=True):
            out.add(row, score, fingerprint, record)
        return out


class _DailyRescorer(_Rescorer):
    """Scores the rows of a challenge benchmark: each against the challenge its options
    name, with its ``previous`` option as it stood when the row was stored (the valid results
    stored before it for that challenge, as this re-score leaves them), in id order."""

    def __init__(self, bench: Benchmark, store: Store, job: RescoreJob) -> None:
        super().__init__(bench, None, b"", job, 1)
        self._store = store
        assert bench.challenge is not None
        self._spec = bench.challenge
        #: per challenge target: the distinct results stored so far, in order
        self._previous: dict[int, dict[str, None]] = {}

    async def score(self, rows: list[RescoreRow]) -> RescoreWrites:
        current = self._job.scorer_version
        keyed: list[tuple[RescoreRow, Any, dict[str, Any]] | None] = []
        for row in rows:
            found = self._key_of(row)
            keyed.append(found)
            target = None if found is None else found[2][self._spec.target_option]
            if target is not None and target not in self._previous:
                # the first row of this challenge in this run: what was stored before it
                # is final (re-scored earlier, or already current)
                stored = await challenges.previous(
                    self._store, self._bench, target, before_id=row.id
                )
                self._previous[target] = dict.fromkeys(stored)
        todo = [
            row
            for row, found in zip(rows, keyed, strict=True)
            if found is not None and row.scorer_version != current
        ]
        scored = await asyncio.to_thread(self._score_in_order, rows, keyed)
        return self._assemble(rows, todo, scored)

    def _key_of(self, row: RescoreRow) -> tuple[RescoreRow, Any, dict[str, Any]] | None:
        """The row's challenge and options; None when its options name none (left as is)."""
        try:
            options = json.loads(row.extra) if row.extra is not None else {}
            key, options = self._bench.key_for(options, None)
        except Exception:
            return None
        if key is None or not isinstance(options.get(self._spec.target_option), int):
            return None
        return row, key, dict(options)

    def _score_in_order(
        self, rows: list[RescoreRow], keyed: list[tuple[RescoreRow, Any, dict[str, Any]] | None]
    ) -> list[_Scored]:
        current = self._job.scorer_version
        out: list[_Scored] = []
        for row, found in zip(rows, keyed, strict=True):
            if found is None:
                continue
            _, key, options = found
            seen = self._previous[options[self._spec.target_option]]
            if row.scorer_version == current:  # kept as it is: it counts for later rows
                record = json.loads(row.result)
            else:
                if self._spec.previous_option:
                    options[self._spec.previous_option] = tuple(seen)
                result = self._bench.score(decompress(row.raw), key, options=options)
                record = result.to_record()
                fingerprint = result.fingerprint or None
                out.append((float(result.primary), fingerprint, dumps(record)))
            shown = record.get(self._spec.shown_field)
            if record.get(self._spec.valid_field) is True and isinstance(shown, str) and shown:
                seen.setdefault(shown)
        return out


def _retrieve(future: asyncio.Future[Any]) -> None:
    """Mark a dropped task's outcome as seen (no "exception never retrieved" warning)."""
    if not future.cancelled():
        future.exception()

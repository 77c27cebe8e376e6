"""Storage benchmark: fill a database with 1,000,000 submissions and time the queries.

    .venv/bin/python -m tests.benchmarks.bench_storage [--n 1000000] [--path FILE]

Fills 3 benchmarks x 500 models x 4 modes from 20,000 users in 2,000 chats, spread
over 365 days, 90 % published; then prints the insert rate, bytes on disk per
submission, top-20 board times (median and p99), a user's history time, and the time
to re-score every submission after a key change (``--workers``: its processes), with
the load average (the machine may be shared: compare figures at similar loads).

Only PrimeBench is in the scoring registry for now, so all three benchmark names
(primebench, zerobench, natory) hold PrimeBench-format answers (104 questions) and are
re-scored with the PrimeBench scorer; the figures measure storage, not a given scorer.
The submissions' raw texts come from a pool of 20,000 distinct scored answer sheets
(scoring 1M up front would take minutes); every row is compressed and stored on its own.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from scoring import registry
from storage import NewSubmission, Store

PRIME = registry.get("primebench")
BENCHMARKS = ("primebench", "zerobench", "natory")
MODES = ("default", "think", "tools", "think_tools")
QUESTIONS = 104
START = datetime(2025, 1, 1, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def key_bytes(seed: int) -> bytes:
    rng = random.Random(seed)
    return "\n".join(f"{q}:{rng.randint(1, 4)}" for q in range(1, QUESTIONS + 1)).encode()


def sheet(rng: random.Random) -> str:
    skill = rng.random()
    lines = []
    for q in range(1, QUESTIONS + 1):
        roll = rng.random()
        lines.append(f"{q}:none" if roll < 0.15 else f"{q}:{rng.randint(1, 4)}")
        if skill > 0.9 and roll > 0.98:
            lines.append("I think the answer is B.")  # some prose, an invalid line
    return "\n".join(lines)


def pool(size: int, key: Any) -> list[tuple[str, Any]]:
    rng = random.Random(1)
    out = []
    for _ in range(size):
        raw = sheet(rng)
        out.append((raw, PRIME.score(raw, key)))
    return out


def stream(
    n: int, pool_: list[tuple[str, Any]], key_ids: dict[str, int]
) -> Iterator[NewSubmission]:
    rng = random.Random(2)
    models = [f"Model-{i:03d} {'large' if i % 3 else 'mini'}" for i in range(500)]
    for i in range(n):
        raw, result = pool_[rng.randrange(len(pool_))]
        bench = BENCHMARKS[i % 3]
        model = models[min(int(rng.paretovariate(1.2)) - 1, 499)] if i % 5 else rng.choice(models)
        yield NewSubmission(
            user_id=rng.randint(1, 20_000),
            chat_id=-rng.randint(1, 2_000),
            message_id=i + 1,
            benchmark=bench,
            key_version_id=key_ids[bench],
            model=model if rng.random() < 0.5 else model.upper(),
            mode=rng.choice(MODES),
            raw=raw,
            result=result,
            scorer_version=PRIME.scorer_version,
        )


def remove(path: Path, *suffixes: str) -> None:
    for suffix in suffixes:
        Path(str(path) + suffix).unlink(missing_ok=True)


def disk_size(path: Path) -> int:
    return os.path.getsize(path) + os.path.getsize(str(path) + "-wal")


def stats(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"median {statistics.median(ordered) * 1000:6.2f} ms   p99 {p99 * 1000:6.2f} ms"


async def timed(fn: Callable[[], Awaitable[Any]], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        await fn()
        out.append(time.perf_counter() - t)
    return out


def load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


async def main(n: int, path: Path, runs: int, workers: int | None = None) -> None:
    remove(path, "", "-wal", "-shm", ".normal", ".normal-wal", ".normal-shm")
    clock = Clock()
    store = await Store.open(path, clock=clock, benchmarks=lambda name: PRIME)
    key_ids = {}
    for b in BENCHMARKS:
        key_ids[b] = (await store.save_key(b, key_bytes(1), source="bench")).id
    t = time.perf_counter()
    sheets = pool(20_000, PRIME.load_key(key_bytes(1)))
    print(f"scored a pool of 20,000 answer sheets in {time.perf_counter() - t:.1f} s")

    # --- fill: one transaction per 1,000, the clock moving through a year ----------------
    # 90 % published (one record_many call, boards rebuilt once at its end), then 10 %
    # private, interleaved over the same year.
    step = timedelta(days=365) * 1000 / n

    def moving(published: bool) -> Iterator[NewSubmission]:
        clock.now = START
        for j, sub in enumerate(stream(n, sheets, key_ids)):
            if (j % 10 != 0) == published:
                yield sub
            if j % 1000 == 999:
                clock.now += step

    t0 = time.perf_counter()
    inserted = await store.record_many(moving(True), publish=True, batch_size=1000)
    inserted += await store.record_many(moving(False), batch_size=1000)
    fill_s = time.perf_counter() - t0
    print(
        f"bulk insert: {inserted:,} submissions in {fill_s:.1f} s = {inserted / fill_s:,.0f}/s "
        "(record_many: 1,000 per transaction; includes the final board rebuild)"
    )

    # one at a time, as the bot does: record, then publish (two transactions)
    for label, target in (("FULL", store), ("NORMAL", None)):
        other = target or await Store.open(str(path) + ".normal", synchronous="NORMAL")
        t = time.perf_counter()
        for j, sub in enumerate(stream(300, sheets, key_ids)):
            fields = {f: getattr(sub, f) for f in sub.__slots__}
            fields["message_id"] = 10_000_000 + j
            if target is None:
                fields["key_version_id"] = None
            one = await other.record_submission(NewSubmission(**fields))
            await other.publish(one.id)
        rate = 300 / (time.perf_counter() - t)
        print(f"single inserts, record_submission + publish, synchronous={label}: {rate:,.0f}/s")
        if target is None:
            await other.close()
    await store.rebuild_boards()

    async with store._lock:
        await store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = disk_size(path)
    total = inserted + 300
    print(
        f"on disk: {size / 2**20:,.0f} MiB = {size / total:,.0f} bytes per submission "
        "(raw text, breakdown JSON and every index included)"
    )

    # --- queries -------------------------------------------------------------------------
    clock.now += timedelta(hours=1)
    rng = random.Random(3)
    lb, pb = store.leaderboard, "primebench"

    def chat() -> int:
        return -rng.randint(1, 2000)

    def user() -> int:
        return rng.randint(1, 20000)

    cases: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
        ("top-20 global, all time", lambda: lb(pb, limit=20)),
        ("top-20 global, mode=think", lambda: lb("zerobench", mode="think", limit=20)),
        ("top-20 global, page 5", lambda: lb("natory", limit=20, offset=80)),
        ("top-20 global, 30 days", lambda: lb(pb, days=30, limit=20)),
        ("top-20 global, 7 days", lambda: lb(pb, days=7, limit=20)),
        ("top-20 global, 7 days + mode", lambda: lb(pb, days=7, mode="tools", limit=20)),
        ("top-20 global, 30 days + mode", lambda: lb(pb, days=30, mode="think", limit=20)),
        ("top-20 global, 30 days, page 5", lambda: lb(pb, days=30, limit=20, offset=80)),
        ("top-20 one chat, all time", lambda: lb(pb, chat_id=chat(), limit=20)),
        ("top-20 one chat, 30 days", lambda: lb(pb, chat_id=chat(), days=30, limit=20)),
        ("top-20 one chat, 7 days + mode", lambda: lb(pb, chat_id=chat(), days=7, mode="think")),
        ("top-20 one user, all time", lambda: lb(pb, user_id=user(), limit=20)),
        ("history of a user (10 rows)", lambda: store.history(user())),
        ("history of a user, one benchmark", lambda: store.history(user(), benchmark="natory")),
        ("published_today of a user", lambda: store.published_today(user())),
    ]
    board = await store.leaderboard("primebench", limit=20)
    print(f"primebench board: {board.total} rows; best {board.rows[0].best:+.0f} "
          f"({board.rows[0].runs} runs)")  # fmt: skip
    print(f"load average before the queries: {load()} (1 / 5 / 15 min; {os.cpu_count()} CPUs)")
    for label, fn in cases:
        await timed(fn, 5)  # warm
        print(f"{label:<36} {stats(await timed(fn, runs))}   ({runs} runs)")
    print(f"load average after the queries: {load()}")

    # --- re-score everything after a key change -----------------------------------------
    sample = [raw for raw, _ in sheets[:5000]]
    new_key = PRIME.load_key(key_bytes(2))
    t = time.perf_counter()
    for raw in sample:
        PRIME.score(raw, new_key)
    per_score = (time.perf_counter() - t) / len(sample)
    for b in BENCHMARKS:
        await store.save_key(b, key_bytes(2), source="bench v2")
    t = time.perf_counter()
    rescored = changed = 0
    for b in BENCHMARKS:
        report = await store.rescore(b, batch_size=2000, workers=workers)
        rescored += report.rescored
        changed += report.changed
        print(f"  rescore {b}: {report.rescored:,} in {report.seconds:.1f} s "
              f"({report.changed:,} changed, {report.batches} batches)")  # fmt: skip
    rescore_s = time.perf_counter() - t
    scoring_s = per_score * rescored
    distinct = len({raw for raw, _ in sheets})
    print(f"re-score all {rescored:,}: {rescore_s:.1f} s, load average {load()} "
          f"(the PrimeBench scorer: {per_score * 1e6:.0f} us each. A re-score scores each "
          f"distinct input once, and the rows here come from a pool of {distinct:,} "
          f"sheets: at most {distinct * len(BENCHMARKS):,} scorer calls, "
          f"{distinct * len(BENCHMARKS) * per_score:.0f} s of one CPU. Were all {rescored:,} "
          f"inputs distinct: {scoring_s:.0f} s of one CPU, shared by the worker processes "
          f"({workers or 'default: up to 2'}))")  # fmt: skip
    t = time.perf_counter()
    board2 = await store.leaderboard("primebench", limit=20)
    print(f"board after re-score: key version {board2.key_version}, best {board2.rows[0].best:+.0f}"
          f", first query {(time.perf_counter() - t) * 1000:.1f} ms")  # fmt: skip
    t = time.perf_counter()
    await store.backup(str(path) + ".backup")
    print(f"online backup (VACUUM INTO): {time.perf_counter() - t:.1f} s")
    remove(path, ".backup")
    await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--path", type=Path, default=None)
    parser.add_argument("--workers", type=int, default=None, help="re-score processes")
    args = parser.parse_args()
    if args.path is None:
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(main(args.n, Path(tmp) / "bench.sqlite3", args.runs, args.workers))
    else:
        asyncio.run(main(args.n, args.path, args.runs, args.workers))

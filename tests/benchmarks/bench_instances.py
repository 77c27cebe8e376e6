"""Insert throughput with several instances: ``k`` processes, each its own store on one
database, recording and publishing submissions as the bot does (``record_submission``
then ``publish_within``, ``--concurrency`` at a time in each). Used by
``bench_storage.py``; on its own:

    .venv/bin/python -m tests.benchmarks.bench_instances TARGET [--instances 2] [--count 3000]

TARGET is an SQLite file or a ``postgresql://`` URL holding a PrimeBench key (the
storage benchmark's database after its fill).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import subprocess
import sys
import time
from pathlib import Path

from scoring import registry
from storage import LimitReached, NewSubmission, Store

PRIME = registry.get("primebench")


async def worker(target: str, count: int, first_message: int, concurrency: int) -> float:
    """Record and publish ``count`` submissions; returns the seconds it took."""
    store = await Store.open(target)
    try:
        key = await store.current_key("primebench")
        assert key is not None, "no PrimeBench key in the database"
        parsed = PRIME.load_key(await store.key_data(key.id))
        rng = random.Random(first_message)
        texts = []
        for _ in range(50):
            raw = "\n".join(f"{q}:{rng.randint(1, 4)}" for q in range(1, 105))
            texts.append((raw, PRIME.score(raw, parsed)))
        queue = list(range(count))
        started = time.perf_counter()

        async def one_at_a_time() -> None:
            while queue:
                i = queue.pop()
                raw, result = texts[i % len(texts)]
                sub = await store.record_submission(
                    NewSubmission(
                        user_id=30_000 + (first_message + i) % 5_000,
                        chat_id=-(3_000 + i % 500),
                        message_id=first_message + i,
                        benchmark="primebench",
                        key_version_id=key.id,
                        model=f"Instance-{i % 40}",
                        mode="think",
                        raw=raw,
                        result=result,
                        scorer_version=PRIME.scorer_version,
                    )
                )
                with contextlib.suppress(LimitReached):
                    await store.publish_within(sub.id, daily_limit=1_000_000)

        await asyncio.gather(*(one_at_a_time() for _ in range(concurrency)))
        return time.perf_counter() - started
    finally:
        await store.close()


def run_instances(target: str, instances: int, count: int, concurrency: int = 16) -> str:
    """``instances`` processes at once; one line: their total rate and each one's."""
    started = time.perf_counter()
    base = 1_000_000_000 + random.randrange(1_000_000) * 1_000  # fresh message ids
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.benchmarks.bench_instances",
                target,
                "--worker",
                "--count",
                str(count),
                "--first",
                str(base + i * 100_000_000),
                "--concurrency",
                str(concurrency),
            ],
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parents[2],
        )
        for i in range(instances)
    ]
    each = []
    for proc in procs:
        out, _ = proc.communicate(timeout=3600)
        if proc.returncode != 0:
            raise RuntimeError(f"an instance failed: {out}")
        each.append(float(out.strip().splitlines()[-1]))
    wall = max(each)
    rates = ", ".join(f"{count / s:,.0f}/s" for s in each)
    return (
        f"{instances} instance(s) x {count:,} record + publish ({concurrency} at a time "
        f"each): {instances * count / wall:,.0f}/s together (each: {rates}); "
        f"{time.perf_counter() - started:.1f} s with start-up"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target")
    parser.add_argument("--instances", type=int, default=2)
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--first", type=int, default=60_000_000)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(asyncio.run(worker(args.target, args.count, args.first, args.concurrency)))
    else:
        print(run_instances(args.target, args.instances, args.count, args.concurrency))

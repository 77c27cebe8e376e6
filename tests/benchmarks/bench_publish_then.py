"""Publishing one at a time, today with the copy check, against the code before it.

    .venv/bin/python tests/benchmarks/bench_publish_then.py [--then COMMIT] [--n 100000]
        [--rounds 10] [--each 100]

Issue 31 asks that the copy check keep publish throughput within 10 % of what it was.
``bench_storage.py`` compares today's code with and without the check; this script
compares today's code, check included, with the code as it was before the check
(``--then``, default ``a888c0f``, the last commit before it), as a user of each would
see it. The old code is checked out into a temporary git worktree (this checkout's
history is needed) and both run in processes of their own, each on a database it
filled itself with the same ``--n`` published submissions (``bench_storage``'s pool and
stream; today's also indexes their answer sets, as its publications would have). Then,
in alternating rounds (a slow spell of a shared machine falls on both), each publishes
``--each`` answer sets nobody sent before, one at a time as the bot does: scored
(today: ``score_with_answers`` and ``bot.core.trust.check``), recorded, published.
Prints each round's publications a second and CPU per publication, and the ratio
(today / then) as median and range over the rounds (goal >= 0.90).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
THEN = "a888c0f"

# --- in a worker process, run in the checkout it measures ---------------------------------


async def fill(db: str, n: int) -> None:
    from storage import Store
    from tests.benchmarks import bench_storage as bs

    store = await Store.open(db)
    key_ids = {}
    for b in bs.BENCHMARKS:
        key_ids[b] = (await store.save_key(b, bs.key_bytes(1), source="bench")).id
    key = bs.PRIME.load_key(bs.key_bytes(1))
    sheets = bs.pool(20_000, key)
    await store.record_many(bs.stream(n, sheets, key_ids), publish=True, batch_size=1000)
    if hasattr(store, "index_many"):  # today: the answer sets indexed, as published
        await bs.index_published(store, key)
    async with store.db.read() as s:
        await s.one("PRAGMA wal_checkpoint(TRUNCATE)")
    await store.close()


async def publish(db: str, count: int, seed: int) -> None:
    from types import SimpleNamespace

    from storage import NewSubmission, Store
    from tests.benchmarks import bench_storage as bs

    store = await Store.open(db)
    key = bs.PRIME.load_key(bs.key_bytes(1))
    rng = random.Random(seed)
    texts = [bs.sheet(rng) for _ in range(count)]
    checking = importlib.util.find_spec("bot.core.trust") is not None  # (today)
    if checking:
        from bot.core import trust
    services = SimpleNamespace(store=store, answer_samples={})
    t, cpu = time.perf_counter(), time.process_time()
    for j, raw in enumerate(texts):
        user = rng.randint(1, 20_000)
        extra = None
        if checking:
            result, found = bs.PRIME.score_with_answers(raw, key)
            kept = await trust.check(services, bs.PRIME, found, user)  # type: ignore[arg-type]
            extra = {trust.EXTRA: kept} if kept else None
        else:
            result = bs.PRIME.score(raw, key)
        one = await store.record_submission(
            NewSubmission(
                user_id=user,
                chat_id=-rng.randint(1, 2_000),
                message_id=50_000_000 + seed * 10_000 + j,
                benchmark="primebench",
                raw=raw,
                result=result,
                scorer_version=bs.PRIME.scorer_version,
                model=f"Model-{rng.randrange(500):03d} large",
                mode=rng.choice(bs.MODES),
                extra=extra,
            )
        )
        await store.publish(one.id)
    wall, used = time.perf_counter() - t, time.process_time() - cpu
    await store.close()
    print(f"{count / wall} {used / count}")


# --- the driver ----------------------------------------------------------------------------


def worker(root: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BENCHBOARD_")}
    env["PYTHONPATH"] = str(root)
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--worker", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(f"{root}: {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


def main(then: str, n: int, rounds: int, each: int) -> None:
    from tests.benchmarks.figures import figure, spread

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        old = tmp / "then"
        added = subprocess.run(
            ["git", "worktree", "add", "--detach", str(old), then],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        if added.returncode:
            raise SystemExit(
                f"cannot check out {then} (a shallow clone? git fetch --unshallow): "
                f"{added.stderr.strip()}"
            )
        try:
            sides = {"then": old, "today": ROOT}
            for name, root in sides.items():
                t = time.perf_counter()
                worker(root, "fill", str(tmp / f"{name}.sqlite3"), str(n))
                print(f"{name}: {n:,} published submissions in {time.perf_counter() - t:.0f} s")
            figures: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
            for k in range(rounds):
                for name, root in sides.items():
                    out = worker(root, "publish", str(tmp / f"{name}.sqlite3"), str(each), str(k))
                    rate, cpu = map(float, out.split())
                    figures[name].append((rate, cpu))
                print(
                    f"round {k + 1}: then {figures['then'][-1][0]:6.1f}/s "
                    f"({figures['then'][-1][1] * 1000:.2f} ms CPU each), today with the check "
                    f"{figures['today'][-1][0]:6.1f}/s ({figures['today'][-1][1] * 1000:.2f} ms)"
                )
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(old)], cwd=ROOT, check=False
            )
    ratios = [a[0] / b[0] for a, b in zip(figures["today"], figures["then"], strict=True)]
    cpu_ratios = [b[1] / a[1] for a, b in zip(figures["today"], figures["then"], strict=True)]
    figure(
        f"publish, today with the copy check / then ({then})",
        spread(ratios, runs="rounds"),
        ">= 0.9",
        statistics.median(ratios) >= 0.9,
    )
    print(
        f"publish throughput, today with the copy check / then ({then}), {each} fresh answer "
        f"sets a round at {n:,} stored: median {statistics.median(ratios):.2f} (rounds "
        f"{min(ratios):.2f}-{max(ratios):.2f}; goal >= 0.90); CPU per publication then / "
        f"today {statistics.median(cpu_ratios):.2f} "
        f"({min(cpu_ratios):.2f}-{max(cpu_ratios):.2f})"
    )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        sys.path.insert(0, os.getcwd())  # the checkout measured (today's or then's)
        what, db, *rest = sys.argv[2:]
        if what == "fill":
            asyncio.run(fill(db, int(rest[0])))
        else:
            asyncio.run(publish(db, int(rest[0]), int(rest[1])))
        raise SystemExit(0)
    sys.path.insert(0, str(ROOT))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--then", default=THEN, help="the commit to compare with")
    parser.add_argument("--n", type=int, default=100_000, help="submissions stored first")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--each", type=int, default=100, help="publications a round")
    args = parser.parse_args()
    main(args.then, args.n, args.rounds, args.each)

"""Storage benchmark: fill a database with 1,000,000 submissions and time the queries.

    .venv/bin/python -m tests.benchmarks.bench_storage [--n 1000000] [--path FILE]
                                                       [--repeat] [--workers N] [--runs N]
                                                       [--engine sqlite|postgresql]
                                                       [--instances-count N] [--trust-only]

Fills 3 benchmarks x 500 models x 4 modes from 20,000 users in 2,000 chats, spread
over 365 days, 90 % published; then prints the insert rate, bytes on disk per
submission, top-20 board times (median and p99 of ``--runs``, default 1,000), a user's
history time, and the time to re-score every submission after a key change
(``--workers``: its processes), with the load average (the machine may be shared:
compare figures at similar loads). Then the insert rate of one and of two instances
(processes, each with its own store on the database: ``bench_instances.py``).

The copy check (issue 31): every published answer set is indexed (its band hashes), then
a submission's check (``bot.core.trust.check``) is timed, and one-at-a-time record +
publish with and without the check and its index rows, in alternating runs (the ratio's
median and range: what the check itself costs in today's code; the issue's goal, publish
throughput within 10 % of what it was before the check, is judged against that code by
``bench_publish_then.py``): once with the answer set read on its own (a second
reading of the text, charged to the check), once as the submission path does it, the
text scored first (``score`` today, ``score_with_answers`` with the check: one reading
for both; the scoring then counts in both). The pool's sheets repeat (about 45 uses each, by
different users), so every check finds copies: the bounded worst case; then again with
fresh answer sets (a pool of sheets of their own, each sent once): the usual case, a
check that finds few candidates or none. ``--trust-only`` stops after that section.

``--engine postgresql`` runs the same on PostgreSQL: a database made for the run on the
server ``BENCHBOARD_TEST_POSTGRES_URL`` names (or ``--url``), dropped at the end.

The registry now holds PrimeBench, ZeroBench and Natory, but this script stores
PrimeBench-format answers (104 questions) under all three names and re-scores them all
with the PrimeBench scorer (``bot.core.rescore.rescore(benchmarks=...)``), so the three
benchmarks' rows are alike: the figures measure storage, not a given scorer's speed.

The raw texts come from a pool of 20,000 answer sheets scored up front (scoring 1M would
take minutes). By default every row's text is distinct: each use of a sheet swaps a
different pair of its answer lines, which leaves the answers, so the result, unchanged
(the script checks a sample against the scorer) — a re-score then scores all 1,000,000
inputs. ``--repeat`` stores the pool's texts as they are (each about 50 times), as
earlier runs did: a re-score scores each distinct text once, so it measures storage
more than scoring. Every row is compressed and stored on its own either way.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.core.rescore import rescore
from scoring import registry
from storage import NewSubmission, Store
from storage.values import compress, decompress, dumps
from tests.benchmarks.bench_instances import run_instances

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


def pool(size: int, key: Any, seed: int = 1) -> list[tuple[str, Any]]:
    rng = random.Random(seed)
    out = []
    for _ in range(size):
        raw = sheet(rng)
        out.append((raw, PRIME.score(raw, key)))
    return out


class Varied:
    """Distinct texts from a pool: the ``k``-th use of a sheet swaps its ``k``-th pair of
    answer lines (pairs at distance 1, then 2, ...; the first use is the sheet itself).
    Each sheet answers each question once, so the answers stand whatever their order:
    the result is the sheet's. Invalid lines keep their places (line numbers)."""

    def __init__(self, pool_: list[tuple[str, Any]], first_use: int = 0) -> None:
        self.lines = [raw.split("\n") for raw, _ in pool_]
        self.answer_at = [
            [i for i, line in enumerate(lines) if ":" in line and line.split(":")[0].isdigit()]
            for lines in self.lines
        ]
        self.uses = [first_use] * len(pool_)

    def text(self, sheet: int) -> str:
        use = self.uses[sheet]
        self.uses[sheet] += 1
        lines, at = self.lines[sheet], self.answer_at[sheet]
        if use == 0:
            return "\n".join(lines)
        if use > len(at) * (len(at) - 1) // 2:
            raise ValueError(f"sheet {sheet} has no pair of answer lines left for use {use}")
        pair, distance = use - 1, 1
        while pair >= len(at) - distance:
            pair -= len(at) - distance
            distance += 1
        a, b = at[pair], at[pair + distance]
        swapped = list(lines)
        swapped[a], swapped[b] = lines[b], lines[a]
        return "\n".join(swapped)


def stream(
    n: int,
    pool_: list[tuple[str, Any]],
    key_ids: dict[str, int],
    *,
    distinct: bool = True,
    first_use: int = 0,
) -> Iterator[NewSubmission]:
    rng = random.Random(2)
    models = [f"Model-{i:03d} {'large' if i % 3 else 'mini'}" for i in range(500)]
    varied = Varied(pool_, first_use) if distinct else None
    for i in range(n):
        sheet_no = rng.randrange(len(pool_))
        raw, result = pool_[sheet_no]
        if varied is not None:
            raw = varied.text(sheet_no)
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


def postgres_database(url: str | None) -> Iterator[str]:
    """A database for one run on the server ``url`` names, dropped afterwards."""
    import psycopg

    from tests.storage.pg import ENV, with_database

    server = url or os.environ.get(ENV)
    if not server:
        raise SystemExit(f"--engine postgresql needs --url or {ENV}")
    name = f"bb_bench_{os.getpid()}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"'.encode())
        conn.execute(f'CREATE DATABASE "{name}"'.encode())
    try:
        yield with_database(server, name)
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'.encode())


def remove(path: Path, *suffixes: str) -> None:
    for suffix in suffixes:
        Path(str(path) + suffix).unlink(missing_ok=True)


def disk_size(path: Path) -> int:
    return os.path.getsize(path) + os.path.getsize(str(path) + "-wal")


def stats(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"median {statistics.median(ordered) * 1000:6.2f} ms   p99 {p99 * 1000:6.2f} ms"


async def interleaved(fns: list[Callable[[], Awaitable[Any]]], runs: int) -> list[list[float]]:
    """Each function's times over ``runs`` runs, the functions taking turns (one run of
    each, then again): a burst of load on a shared machine then falls on every query a
    little, not on one query's consecutive runs."""
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(runs):
        for fn, out in zip(fns, samples, strict=True):
            t = time.perf_counter()
            await fn()
            out.append(time.perf_counter() - t)
    return samples


async def fixed_work() -> None:
    """About a millisecond of pure Python (no database): the machine's own spread."""
    sum(i * i for i in range(11_000))


def load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def check_distinct(n: int, sheets: list[tuple[str, Any]], key: Any) -> None:
    """The varied texts are distinct and score as the sheets they vary (a sample)."""
    seen = set()
    for j, sub in enumerate(stream(min(n, 200_000), sheets, {b: 1 for b in BENCHMARKS})):
        assert sub.raw not in seen, "a repeated text"
        seen.add(sub.raw)
        if j % 1000 == 0:
            assert PRIME.score(sub.raw, key).to_record() == sub.result.to_record(), j


async def main(
    n: int,
    path: Path | str,
    runs: int,
    workers: int | None = None,
    *,
    distinct: bool = True,
    instances_count: int = 3000,
    trust_only: bool = False,
) -> None:
    postgres = isinstance(path, str)
    if isinstance(path, Path):
        remove(path, "", "-wal", "-shm", ".normal", ".normal-wal", ".normal-shm")
    clock = Clock()
    store = await Store.open(path, clock=clock)
    key_ids = {}
    for b in BENCHMARKS:
        key_ids[b] = (await store.save_key(b, key_bytes(1), source="bench")).id
    t = time.perf_counter()
    sheets = pool(20_000, PRIME.load_key(key_bytes(1)))
    print(f"scored a pool of 20,000 answer sheets in {time.perf_counter() - t:.1f} s")
    if distinct:
        t = time.perf_counter()
        check_distinct(n, sheets, PRIME.load_key(key_bytes(1)))
        print(
            f"raw texts: all distinct (each use of a sheet swaps two answer lines; checked "
            f"{min(n, 200_000):,} distinct, 1 in 1,000 scored: equal results) in "
            f"{time.perf_counter() - t:.1f} s"
        )
    else:
        print("raw texts: the pool's 20,000, repeated (--repeat)")

    # --- fill: one transaction per 1,000, the clock moving through a year ----------------
    # 90 % published (one record_many call, boards rebuilt once at its end), then 10 %
    # private, interleaved over the same year.
    step = timedelta(days=365) * 1000 / n

    def moving(published: bool) -> Iterator[NewSubmission]:
        clock.now = START
        for j, sub in enumerate(stream(n, sheets, key_ids, distinct=distinct)):
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
    modes = (("on (commit waits for the WAL flush)", store),) if postgres else (
        ("FULL", store), ("NORMAL", None))  # fmt: skip
    for label, target in modes:
        other = target or await Store.open(str(path) + ".normal", synchronous="NORMAL")
        t = time.perf_counter()
        # texts not in the fill (each sheet's 1,000th use on)
        for j, sub in enumerate(stream(300, sheets, key_ids, distinct=distinct, first_use=1000)):
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
    if trust_only:  # the copy check's section alone (issue 31), at this size
        await trust_section(store, sheets, key_ids, runs=min(runs, 300))
        await store.close()
        return

    async with store.db.read() as s:
        if isinstance(path, Path):
            await s.one("PRAGMA wal_checkpoint(TRUNCATE)")
            size = disk_size(path)
        else:
            await s.execute("VACUUM ANALYZE")
            row = await s.one("SELECT pg_database_size(current_database())")
            size = int(row[0]) if row else 0
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
    # the harness's own objects (the 20,000 sheets, their lines) are no part of a bot: out
    # of the garbage collector's full passes, which took 18 ms with them (1 in ~3,000 boards)
    gc.freeze()
    print(f"load average before the queries: {load()} (1 / 5 / 15 min; {os.cpu_count()} CPUs)")
    cases.append(("fixed CPU work, no database (reference)", fixed_work))
    fns = [fn for _, fn in cases]
    await interleaved(fns, 5)  # warm
    for (label, _), samples in zip(cases, await interleaved(fns, runs), strict=True):
        print(f"{label:<40} {stats(samples)}   ({runs} runs, interleaved)")
    print(f"load average after the queries: {load()}")

    await trust_section(store, sheets, key_ids, runs=min(runs, 300))

    # --- re-score everything after a key change -----------------------------------------
    # per-row costs outside the database: what a worker does for one input (decompress,
    # score, the record as JSON) and what the scorer alone takes
    sample = [compress(raw) for raw, _ in sheets[:3000]]
    new_key = PRIME.load_key(key_bytes(2))
    t = time.perf_counter()
    texts = [decompress(blob) for blob in sample]
    per_unzip = (time.perf_counter() - t) / len(sample)
    t = time.perf_counter()
    results = [PRIME.score(raw, new_key) for raw in texts]
    per_score = (time.perf_counter() - t) / len(sample)
    t = time.perf_counter()
    for result in results:
        dumps(result.to_record())
    per_record = (time.perf_counter() - t) / len(sample)
    for b in BENCHMARKS:
        await store.save_key(b, key_bytes(2), source="bench v2")
    t = time.perf_counter()
    rescored = changed = 0
    for b in BENCHMARKS:
        report = await rescore(
            store, b, batch_size=2000, workers=workers, benchmarks=lambda name: PRIME
        )
        rescored += report.rescored
        changed += report.changed
        print(f"  rescore {b}: {report.rescored:,} in {report.seconds:.1f} s "
              f"({report.changed:,} changed, {report.batches} batches)")  # fmt: skip
    rescore_s = time.perf_counter() - t
    pool_size = len({raw for raw, _ in sheets})
    calls = rescored if distinct else min(rescored, pool_size * len(BENCHMARKS))
    per_row = per_unzip + per_score + per_record
    print(f"re-score all {rescored:,} ({'all distinct' if distinct else 'repeated'} inputs): "
          f"{rescore_s:.1f} s = {rescore_s / rescored * 1e6:.0f} us a row, load average "
          f"{load()}")  # fmt: skip
    how = "every input is scored" if distinct else "each distinct input is scored once"
    print(f"  per input, in a worker: decompress {per_unzip * 1e6:.0f} us + PrimeBench scorer "
          f"{per_score * 1e6:.0f} us + record JSON {per_record * 1e6:.0f} us = "
          f"{per_row * 1e6:.0f} us; {how}: {calls:,} inputs, {calls * per_row:.0f} s of one "
          f"CPU ({calls * per_score:.0f} s the scorer), shared by the worker processes "
          f"({workers or 'default: up to 2'}); the rest is reading, comparing and writing "
          "rows and rebuilding the boards")  # fmt: skip
    t = time.perf_counter()
    board2 = await store.leaderboard("primebench", limit=20)
    print(f"board after re-score: key version {board2.key_version}, best {board2.rows[0].best:+.0f}"
          f", first query {(time.perf_counter() - t) * 1000:.1f} ms")  # fmt: skip
    t = time.perf_counter()
    copy = Path(tempfile.gettempdir()) / f"bench-backup-{os.getpid()}.sqlite3"
    await store.backup(copy)
    how = "a snapshot copied into an SQLite file" if postgres else "VACUUM INTO"
    print(f"online backup ({how}): {time.perf_counter() - t:.1f} s")
    remove(copy, "", "-wal", "-shm")
    await store.close()

    # --- several instances inserting at once (processes of their own) --------------------
    print(f"load average before the instances: {load()}")
    for k in (1, 2):
        print(run_instances(str(path), k, instances_count))


async def index_published(store: Store, key: Any) -> int:
    """Index every published answer set (its band hashes), as publishing would have:
    each raw text scored again for its answers. Returns how many were indexed."""
    from bot.core import trust
    from storage import AnswerIndex

    indexed, last = 0, 0
    while True:

        def page(conn: Any, after: int = last) -> list[Any]:
            return list(
                conn.execute(
                    "SELECT s.id, s.user_id, b.name, s.raw FROM submissions AS s "
                    "JOIN benchmarks AS b ON b.id = s.benchmark_id "
                    "WHERE s.visibility = 'published' AND s.id > ? ORDER BY s.id LIMIT 5000",
                    (after,),
                ).fetchall()
            )

        rows = await store.db.run(page)
        if not rows:
            return indexed
        last = rows[-1][0]
        batch = []
        for sub_id, user_id, name, raw in rows:
            found = PRIME.answer_set(decompress(raw), key)
            assert found is not None
            index = AnswerIndex(
                trust.joined(found.answers), trust.bands(found.answers, found.right)
            )
            batch.append((sub_id, user_id, name, index))
        indexed += await store.index_many(batch)


async def trust_section(
    store: Store, sheets: list[tuple[str, Any]], key_ids: dict[str, int], *, runs: int
) -> None:
    """The copy check (issue 31) at this size: every published result's answer set is
    indexed (its band hashes), then each new submission is checked (the band lookup,
    bounded, and the comparison with the candidates: ``bot.core.trust.check``), and the
    one-at-a-time publish throughput is measured with and without the check and its
    index rows, in alternating runs."""
    from types import SimpleNamespace

    from bot.core import trust

    key = PRIME.load_key(key_bytes(1))  # the current key (the re-score comes later)
    answer_sets = [PRIME.answer_set(raw, key) for raw, _ in sheets]
    t = time.perf_counter()
    indexed = await index_published(store, key)
    print(f"trust: indexed {indexed:,} published answer sets (each scored again for its "
          f"answers) in {time.perf_counter() - t:.0f} s")  # fmt: skip

    if store.db.kind == "sqlite":  # the back-fill's WAL written back before the timings
        async with store.db.read() as s:
            await s.one("PRAGMA wal_checkpoint(TRUNCATE)")
    services = SimpleNamespace(store=store, answer_samples={})
    rng = random.Random(4)

    async def check_one() -> None:
        found = answer_sets[rng.randrange(len(answer_sets))]
        await trust.check(services, PRIME, found, user_id=rng.randint(1, 20_000))  # type: ignore[arg-type]

    await interleaved([check_one], 5)
    (samples,) = await interleaved([check_one], runs)
    label = f"copy check per submission ({indexed:,} indexed)"
    print(f"{label:<40} {stats(samples)}   ({runs} runs)")

    # the submissions made up front (a sheet's varied text is no part of publishing):
    # copies (the pool's sheets, each published ~45 times before: the bounded worst case)
    # and fresh answer sets (sheets of a pool of their own, each sent once: the usual case)
    pairs, each = 40, 20
    copies = [list(stream(each, sheets, key_ids, first_use=2000 + k)) for k in range(4 * pairs)]
    new_sheets = iter(pool(2 * pairs * each, key, seed=7))
    fresh = [
        [
            replace(sub, raw=raw, result=found)
            for sub, (raw, found) in zip(subs, new_sheets, strict=False)
        ]
        for subs in copies[2 * pairs :]
    ]
    message_ids = iter(range(20_000_000, 30_000_000))

    async def publish_many(
        with_check: bool, made: list[NewSubmission], scoring: bool = False
    ) -> tuple[float, float]:
        """``scoring``: as the submission path does it, the text scored first (today
        ``score``; with the check ``score_with_answers``: one reading for both), else
        the answer set read on its own (a second reading, charged to the check).
        Returns the seconds it took and the process's CPU seconds (both threads)."""
        t, cpu = time.perf_counter(), time.process_time()
        for sub in made:
            fields = {f: getattr(sub, f) for f in sub.__slots__}
            fields["message_id"] = next(message_ids)
            if scoring and not with_check:
                PRIME.score(sub.raw, key)  # type: ignore[arg-type]
            if with_check:
                if scoring:
                    _, found = PRIME.score_with_answers(sub.raw, key)  # type: ignore[arg-type]
                else:
                    found = PRIME.answer_set(sub.raw, key)  # type: ignore[arg-type]
                kept = await trust.check(services, PRIME, found, sub.user_id)  # type: ignore[arg-type]
                fields["extra"] = {trust.EXTRA: kept} if kept else None
            one = await store.record_submission(NewSubmission(**fields))
            await store.publish(one.id)  # its answer set indexed by the trigger
        return time.perf_counter() - t, time.process_time() - cpu

    for made, scoring, what in (
        (copies[: 2 * pairs], False, "copies, record + publish, one at a time"),
        (copies[2 * pairs :], True, "copies, scored + record + publish, as submit does it"),
        (fresh, True, "fresh answer sets, scored + record + publish"),
    ):
        plain: list[tuple[float, float]] = []
        checked: list[tuple[float, float]] = []
        for k in range(pairs):
            plain.append(await publish_many(False, made[2 * k], scoring))
            checked.append(await publish_many(True, made[2 * k + 1], scoring))
        rates = [[each / wall for wall, _ in runs] for runs in (plain, checked)]
        ratio = [c / p for c, p in zip(rates[1], rates[0], strict=True)]
        overall = sum(w for w, _ in plain) / sum(w for w, _ in checked)
        cpu = [sum(c for _, c in runs) / (each * pairs) * 1000 for runs in (plain, checked)]
        print(
            f"publish throughput ({what}; {pairs} alternating pairs of {each}): today "
            f"{spread(rates[0])}/s, with the copy check and its index {spread(rates[1])}/s; "
            f"ratio over all {overall:.2f}, per pair median {statistics.median(ratio):.2f} "
            f"(range {min(ratio):.2f}-{max(ratio):.2f}: the check's own cost); CPU per publication "
            f"{cpu[0]:.2f} ms today, {cpu[1]:.2f} ms with the check"
        )


def spread(values: list[float]) -> str:
    """``low-high (median m)`` of rates."""
    return f"{min(values):,.0f}-{max(values):,.0f} (median {statistics.median(values):,.0f})"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--path", type=Path, default=None)
    parser.add_argument("--workers", type=int, default=None, help="re-score processes")
    parser.add_argument(
        "--repeat", action="store_true", help="store the pool's 20,000 texts repeated"
    )
    parser.add_argument("--engine", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--url", help="PostgreSQL server (default: BENCHBOARD_TEST_POSTGRES_URL)")
    parser.add_argument("--instances-count", type=int, default=3000)
    parser.add_argument(
        "--trust-only", action="store_true", help="after the fill, only the copy check's figures"
    )
    args = parser.parse_args()
    options = {
        "distinct": not args.repeat,
        "instances_count": args.instances_count,
        "trust_only": args.trust_only,
    }
    if args.engine == "postgresql":
        for url in postgres_database(args.url):
            asyncio.run(main(args.n, url, args.runs, args.workers, **options))
    else:
        with tempfile.TemporaryDirectory() as tmp:  # the database's folder unless --path
            path = args.path or Path(tmp) / "bench.sqlite3"
            asyncio.run(main(args.n, path, args.runs, args.workers, **options))

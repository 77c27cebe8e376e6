"""Web boards benchmark: render times at 1,000,000 stored submissions, then the server
under many concurrent clients on loopback.

    .venv/bin/python -m tests.benchmarks.bench_web [--n 1000000] [--path FILE]
        [--runs 300] [--clients 64] [--seconds 10]

Fills a database as ``bench_storage`` does (3 benchmarks x 500 models x 4 modes, 20,000
users, the year up to now; a pool of 2,000 texts repeated, ``--repeat`` there), marks
one result in 1,000 verified (all published), then:

1. in this process, one core: each page rendered from the store without the page cache
   (the board's queries, the rows' details and tokens, the template with its chart,
   "about" block and link preview), interleaved, p50 and p99 over ``--runs``; then the
   link previews' images: a result's card and a board's image drawn (the first request
   for each: no image kept), and served again (kept: the view's queries and the digest);
2. ``benchboard web`` started as its own process, driven from this one over loopback by
   ``--clients`` concurrent clients for ``--seconds`` each: a mix of board pages (many
   distinct addresses: cache misses and hits, as a crawler and people make them), then
   conditional requests (``If-None-Match``: 304s): requests per second, p50 and p99.

The rows are PrimeBench results under all three names (as in ``bench_storage``); the
Natory rows' records are then made valid Natory attempts (a target per day, some
trivial, half with a cost and latency), so its board ranks 2,000 (model, mode) lines
over 365 targets from its summary (``challenge_lines``), and over 30 days from its day
lines (``challenge_days``) and the rows of the window's first day.
``--path`` keeps the database: a second run with the same path skips the fill.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp

from bot.core import boards, challenges, questions, sharing, webboards, webresults
from bot.core.services import Services
from bot.render.webviews import WebQuery
from bot.settings import Settings
from bot.web import pages
from bot.web.images import ImageCache
from scoring import registry
from storage import Store
from tests.benchmarks.bench_storage import BENCHMARKS, PRIME, Clock, key_bytes, pool, stream


def stats(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"p50 {statistics.median(ordered) * 1000:6.2f} ms   p99 {p99 * 1000:6.2f} ms"


#: The Natory rows made Natory attempts (the texts stay PrimeBench's): valid, the target
#: of their day (365 targets), one in 20 the target written out (trivial), every other
#: one with a cost and a latency.
_NATORY_RECORDS = """
UPDATE submissions SET
    result = json_set(result, '$.valid', json('true'),
                      '$.target', 1000 + created_at / 86400000 % 365,
                      '$.simplified', CASE WHEN id % 20 = 0
                                           THEN CAST(1000 + created_at / 86400000 % 365 AS TEXT)
                                           ELSE 'e' || (id % 997) END),
    extra = CASE WHEN id % 2 = 0
                 THEN json_object('target', 1000 + created_at / 86400000 % 365,
                                  'cost', (id % 100) / 1000.0, 'latency', (id % 37) / 3.0)
                 ELSE json_object('target', 1000 + created_at / 86400000 % 365) END
WHERE benchmark_id = (SELECT id FROM benchmarks WHERE name = 'natory')
"""


async def fill(path: Path, n: int) -> None:
    clock = Clock()
    clock.now = datetime.now(UTC) - timedelta(days=365)  # the year up to now
    store = await Store.open(path, clock=clock, synchronous="NORMAL")
    try:
        key_ids = {
            b: (await store.save_key(b, key_bytes(1), source="bench")).id for b in BENCHMARKS
        }
        sheets = pool(2_000, PRIME.load_key(key_bytes(1)))
        step = timedelta(days=365) * 1000 / n
        t = time.perf_counter()

        def moving() -> Iterator[Any]:
            for j, sub in enumerate(stream(n, sheets, key_ids, distinct=False)):
                if j % 1000 == 999:
                    clock.now += step
                yield sub

        done = await store.record_many(moving(), publish=True, batch_size=2000)
        print(f"filled {done:,} published submissions in {time.perf_counter() - t:.0f} s")
        async with store.db.write() as s:
            await s.execute("UPDATE submissions SET verified = 1 WHERE id % 1000 = 1")
            await s.execute(_NATORY_RECORDS)
        await challenges.declare(store)  # as the bot does at start
        await store.rebuild_boards()
        await store.roll_boards()
        async with store.db.read() as s:
            await s.one("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        await store.close()


async def in_process(path: Path, runs: int) -> None:
    settings = Settings(db=str(path), data_dir=path.parent)
    services = await Services.open(settings)
    try:
        await boards.turn_day(services)  # as a server does at start
        async with services.store.db.read() as s:
            row = await s.one("SELECT COUNT(*) FROM submissions")
        print(f"submissions stored: {row[0] if row else 0:,}")

        def board(**kw: Any) -> Callable[[], Awaitable[Any]]:
            q = WebQuery(**{"benchmark": "primebench", **kw})

            async def render() -> str:
                found = await webboards.board(services, q)
                meta = pages.board_meta(found, "en", url="https://x/b/x", image="https://x/i.png")
                return pages.board_page(found, "en", False, here="/b/x", base="/b/x", meta=meta)

            return render

        first = await webboards.board(services, WebQuery("primebench", per=1))
        token = first.rows[0].token or ""

        async def result() -> str:
            found = await webresults.result(services, token, "bench_bot")
            meta = pages.result_meta(found, "en", url="https://x/r/x", image="https://x/i.png")
            return pages.result_page(found, "en", False, here="/r/x", meta=meta)

        async def as_json() -> str:
            return pages.board_json(await webboards.board(services, WebQuery("zerobench")))

        kept = questions.QuestionCache()

        def questions_page(cache: questions.QuestionCache | None, sort: str) -> Any:
            async def render() -> str:
                stats = await questions.question_stats(
                    services, "primebench", cache or questions.QuestionCache()
                )
                return pages.questions_page(
                    stats, "en", False, here="/q", sort=sort, descending=sort != "question"
                )

            return render

        async def key_check() -> Any:
            return await questions.key_doubts(services, registry.get("primebench"))

        cases: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
            ("PrimeBench, all time, page 1", board()),
            ("PrimeBench, all time, page 20", board(page=19)),
            ("PrimeBench, mode=think", board(mode="think")),
            ("PrimeBench, 30 days", board(days=30)),
            ("PrimeBench, 7 days + mode", board(days=7, mode="tools")),
            ("PrimeBench, verified only", board(verified=True)),
            ("PrimeBench, sorted by coverage", board(sort="coverage", descending=True)),
            ("ZeroBench, all time (pass@1 CI)", board(benchmark="zerobench")),
            ("ZeroBench JSON, all time", as_json),
            ("a result page", result),
            ("Natory, all time", board(benchmark="natory")),
            ("Natory, one mode", board(benchmark="natory", mode="think")),
            ("Natory, 30 days", board(benchmark="natory", days=30)),
            ("Natory, verified only", board(benchmark="natory", verified=True)),
            ("questions, counts kept (a render)", questions_page(kept, "right")),
            ("questions, counted anew (2,000 raws)", questions_page(None, "question")),
            ("/keyinfo key check (strong results)", key_check),
        ]
        fns = [fn for _, fn in cases]
        for fn in fns:  # warm (the rows' tokens are made on the first view)
            await fn()
        gc.freeze()
        samples: list[list[float]] = [[] for _ in fns]
        for _ in range(runs):
            for fn, out in zip(fns, samples, strict=True):
                t = time.perf_counter()
                await fn()
                out.append(time.perf_counter() - t)
        print(f"\nrendered in this process, no page cache ({runs} runs each, interleaved):")
        for (label, _), got in zip(cases, samples, strict=True):
            print(f"  {label:<36} {stats(got)}")
        # searches read the board's best 2,000 lines: apart, so that their scans do not
        # disturb the figures of the pages above
        searches: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
            ("PrimeBench, search ?q=model-04", board(search="model-04")),
            ("PrimeBench, search, 30 days", board(search="large", days=30)),
            ("Natory, search ?q=mini", board(benchmark="natory", search="mini")),
        ]
        print(f"\nsearches (?q=), no page cache ({max(5, runs // 10)} runs each): the first "
              "search of a board reads its lines, the next ones (any text) reuse them for "
              f"{webboards.SEARCH_KEEP:.0f} s")  # fmt: skip
        for label, fn in searches:
            await fn()
            cold, kept = [], []
            for _ in range(max(5, runs // 10)):
                services.scans.clear()
                for out in (cold, kept):
                    t = time.perf_counter()
                    await fn()
                    out.append(time.perf_counter() - t)
            print(f"  {label + ', first':<36} {stats(cold)}")
            print(f"  {label + ', next':<36} {stats(kept)}")
        await previews(services, token, max(5, runs // 20))
    finally:
        await services.close()


async def previews(services: Services, token: str, runs: int) -> None:
    """The link previews' images: drawn (first request), then kept (every other)."""
    tokens = [r.token for r in (await webboards.board(services, WebQuery("primebench"))).rows]
    tokens = [t for t in tokens if t] or [token]
    drawn: dict[str, list[float]] = {"card": [], "board": []}
    kept: dict[str, list[float]] = {"card": [], "board": []}
    for i in range(runs):
        cache = ImageCache(None)
        lang = ("en", "fa")[i % 2]
        for kind in ("card", "board"):
            for out in (drawn[kind], kept[kind]):  # first drawn, then served as kept
                t = time.perf_counter()
                if kind == "card":
                    view, key = await webresults.result_card(
                        services, tokens[i % len(tokens)], lang, "bench_bot"
                    )
                    await cache.fetch(key, lambda v=view: sharing.card_png(services, v))
                else:
                    bview, key = await webboards.board_card(
                        services, ("primebench", "zerobench")[i % 2], lang, "bench_bot"
                    )
                    await cache.fetch(key, lambda v=bview: sharing.board_png(services, v))
                out.append(time.perf_counter() - t)
    print(f"\nlink preview images ({runs} each, en and fa; the first request draws it):")
    for kind in ("card", "board"):
        print(f"  {kind + ' image, first (drawn)':<36} {stats(drawn[kind])}")
        print(f"  {kind + ' image, kept':<36} {stats(kept[kind])}")


async def drive(base: str, urls: list[str], clients: int, seconds: float, etags: bool) -> None:
    latencies: list[float] = []
    codes: dict[int, int] = {}
    known: dict[str, str] = {}
    stop = time.monotonic() + seconds
    rng = random.Random(5)
    connector = aiohttp.TCPConnector(limit=clients)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def client() -> None:
            while time.monotonic() < stop:
                url = rng.choice(urls)
                headers = {"If-None-Match": known[url]} if etags and url in known else {}
                t = time.perf_counter()
                async with session.get(base + url, headers=headers) as response:
                    await response.read()
                    if "ETag" in response.headers:
                        known[url] = response.headers["ETag"]
                latencies.append(time.perf_counter() - t)
                codes[response.status] = codes.get(response.status, 0) + 1

        t0 = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(clients)))
        took = time.perf_counter() - t0
    kind = "conditional (If-None-Match)" if etags else "mixed pages"
    print(f"  {kind:<28} {len(latencies) / took:8,.0f} requests/s   {stats(latencies)}   "
          f"statuses {dict(sorted(codes.items()))}")  # fmt: skip


def loopback(path: Path, clients: int, seconds: float) -> None:
    sock_port = 18_000 + os.getpid() % 1000
    env = {**os.environ, "BENCHBOARD_DB": str(path), "BENCHBOARD_DATA_DIR": str(path.parent),
           "BENCHBOARD_LOG_LEVEL": "WARNING"}  # fmt: skip
    server = subprocess.Popen(
        [sys.executable, "-m", "bot", "web", "--port", str(sock_port)],
        env=env,
        cwd=path.parent,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{sock_port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(base + "/static/style.css", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        urls = ["/", "/b/primebench", "/b/zerobench", "/b/primebench.json",
                "/b/primebench?q=model-01", "/b/primebench/card.png"]  # fmt: skip
        for sort in ("question", "right", "wrong", "none"):
            for order in ("asc", "desc"):
                urls.append(f"/b/primebench/questions?sort={sort}&order={order}")
        for mode in ("", "default", "think", "tools", "think_tools"):
            for window in ("all", "7d", "30d"):
                for page in range(1, 4):
                    urls.append(f"/b/primebench?mode={mode}&window={window}&page={page}")
        print(f"\n`benchboard web` (its own process) from {clients} concurrent clients on "
              f"loopback, {seconds:.0f} s each, {len(urls)} distinct addresses:")  # fmt: skip
        asyncio.run(drive(base, urls, clients, seconds, etags=False))
        asyncio.run(drive(base, urls, clients, seconds, etags=True))
        asked = [u for u in urls if "/questions" in u]
        print(f"  the questions pages alone ({len(asked)} addresses):")
        asyncio.run(drive(base, asked, clients, seconds, etags=False))
    finally:
        server.terminate()
        server.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--path", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.path or Path(tmp) / "web.sqlite3"
        if not path.exists():
            asyncio.run(fill(path, args.n))
        print(f"load average: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
        asyncio.run(in_process(path, args.runs))
        loopback(path, args.clients, args.seconds)
        print(f"load average: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

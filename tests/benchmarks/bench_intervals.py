"""What the boards' 95 % intervals cost a page: each board page of ``bench_web`` rendered
with its intervals and without them (their reader, ``webboards._intervals``, swapped for
one that reads nothing), interleaved in one process on the same database, so that the
machine's load moves both alike.

    .venv/bin/python -m tests.benchmarks.bench_intervals [--n 1000000] [--path FILE]
        [--runs 100]

Fills a database as ``bench_web`` does (``--path`` keeps it; a second run skips the
fill). Prints, per page, p50 with and without, and the median of the paired
differences with its interquartile range.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bot.core import boards, webboards
from bot.core.services import Services
from bot.render.webviews import WebQuery
from bot.settings import Settings
from bot.web import pages
from tests.benchmarks.bench_web import fill


async def _none(*_: Any, **__: Any) -> dict[int, Any]:
    return {}


async def compare(path: Path, runs: int) -> None:
    services = await Services.open(Settings(db=str(path), data_dir=path.parent))
    real = webboards._intervals
    try:
        await boards.turn_day(services)

        def board(**kw: Any) -> Callable[[], Awaitable[str]]:
            q = WebQuery(**{"benchmark": "primebench", **kw})

            async def render() -> str:
                found = await webboards.board(services, q)
                return pages.board_page(found, "en", False, here="/b/x", base="/b/x")

            return render

        cases = [
            ("PrimeBench, all time, page 1", board()),
            ("PrimeBench, all time, page 20", board(page=19)),
            ("PrimeBench, mode=think", board(mode="think")),
            ("PrimeBench, 30 days", board(days=30)),
            ("PrimeBench, 7 days + mode", board(days=7, mode="tools")),
            ("PrimeBench, verified only", board(verified=True)),
            ("PrimeBench, sorted by coverage", board(sort="coverage", descending=True)),
            ("ZeroBench, all time", board(benchmark="zerobench")),
            ("Natory, all time", board(benchmark="natory")),
            ("Natory, 30 days", board(benchmark="natory", days=30)),
        ]
        for _, fn in cases:  # warm: tokens made, the standard errors kept on first view
            await fn()
        gc.freeze()
        with_ci: list[list[float]] = [[] for _ in cases]
        without: list[list[float]] = [[] for _ in cases]
        for i in range(runs):
            for (_, fn), a, b in zip(cases, with_ci, without, strict=True):
                for on in (i % 2 == 0, i % 2 == 1):
                    webboards._intervals = real if on else _none  # type: ignore[assignment]
                    t = time.perf_counter()
                    await fn()
                    (a if on else b).append(time.perf_counter() - t)
        webboards._intervals = real  # type: ignore[assignment]
        print(f"\neach page with and without its intervals ({runs} runs each, interleaved):")
        print(f"  {'page':<32} {'with p50':>9} {'without':>9}   intervals' cost: median [IQR]")
        for (label, _), a, b in zip(cases, with_ci, without, strict=True):
            diffs = sorted((x - y) * 1000 for x, y in zip(a, b, strict=True))
            q1, q3 = diffs[len(diffs) // 4], diffs[3 * len(diffs) // 4]
            print(
                f"  {label:<32} {statistics.median(a) * 1000:7.2f} ms "
                f"{statistics.median(b) * 1000:7.2f} ms   {statistics.median(diffs):+6.2f} ms "
                f"[{q1:+.2f}, {q3:+.2f}]"
            )
    finally:
        webboards._intervals = real  # type: ignore[assignment]
        await services.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--path", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.path or Path(tmp) / "web.sqlite3"
        if not path.exists():
            asyncio.run(fill(path, args.n))
        print(f"load average: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
        asyncio.run(compare(path, args.runs))
        print(f"load average: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

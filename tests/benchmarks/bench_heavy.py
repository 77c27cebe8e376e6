"""Heavy inputs must not stall others: reply latency of a light submission while the
real bot works on a 20 MB upload and a 300,000-line ZeroBench JSONL, and the bot's peak
memory.

    .venv/bin/python tests/benchmarks/bench_heavy.py [--mb 20] [--lines 300000] [--probes 20]

Starts the fake Bot API server of the end-to-end tests and the real Benchboard process
(`benchboard run`), sends the two heavy inputs from two users, then ``--probes`` 104-line
PrimeBench submissions from a third user, one after another (0.1 s apart), and prints
the probes' p50/p99 reply latency, how many were answered while the heavy inputs were
still being worked on, the bot's resident memory before (idle) and its peak (VmHWM) and
the worker process's peak.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.figures import figure  # noqa: E402
from tests.e2e.botapi import FakeBotAPI  # noqa: E402
from tests.e2e.harness import running_bot  # noqa: E402
from tests.reliability.heavy import KEY, heavy_run, write_zerobench_key  # noqa: E402


async def main(mb: float, lines: int, probes: int) -> None:
    size = int(mb * 1024 * 1024) - 4096
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        write_zerobench_key(tmp / "data")
        api = FakeBotAPI()
        await api.start()
        try:
            async with running_bot(api, tmp, key=KEY) as bot:
                run = await heavy_run(
                    api, bot.proc.pid, upload_bytes=size, jsonl_lines=lines, probes=probes
                )
        finally:
            await api.stop()
    ms = [p * 1000 for p in run.probes]
    print(f"upload {size / 1048576:.1f} MB, ZeroBench JSONL {lines:,} lines, {probes} probes")
    print(
        f"probe latency: p50 {statistics.median(ms):.0f} ms  p99 {run.percentile(0.99) * 1000:.0f}"
        f" ms  max {max(ms):.0f} ms  ({run.during} answered while heavy work was under way)"
    )
    print("heavy replies after: " + ", ".join(f"{s:.1f} s" for s in sorted(run.heavy_seconds)))
    print(
        f"RSS: bot idle {run.idle_rss_kib / 1024:.0f} MB, peak {run.peak_rss_kib / 1024:.0f} MB"
        f" (+{run.growth_kib / 1024:.0f} MB: {run.growth_kib * 1024 / size:.1f}x the upload);"
        f" worker peak {run.peak_worker_rss_kib / 1024:.0f} MB"
    )
    figure("heavy inputs: light probe latency p99", f"{run.percentile(0.99) * 1000:.0f} ms")
    figure(
        "heavy inputs: bot peak memory",
        f"{run.peak_rss_kib / 1024:.0f} MiB (idle {run.idle_rss_kib / 1024:.0f}, worker "
        f"{run.peak_worker_rss_kib / 1024:.0f})",
    )
    for reply in run.heavy_replies:
        print("  heavy reply: " + reply.splitlines()[0][:100] if reply else "  (empty)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=20.0)
    parser.add_argument("--lines", type=int, default=300_000)
    parser.add_argument("--probes", type=int, default=20)
    args = parser.parse_args()
    asyncio.run(main(args.mb, args.lines, args.probes))

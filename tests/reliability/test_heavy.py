"""A heavy upload does not stall others: while the bot works on a 5 MB file and a long
ZeroBench JSONL, another user's 104-line submissions are answered promptly, and neither
the bot's memory nor its worker's grows by ten times the upload. (The bounds are loose
for a noisy machine; ``tests/benchmarks/bench_heavy.py`` gives the figures.)"""

from __future__ import annotations

from pathlib import Path

from tests.e2e.botapi import FakeBotAPI
from tests.e2e.botkit import check_log
from tests.e2e.harness import running_bot

from .heavy import KEY, heavy_run, write_zerobench_key


async def test_light_submissions_are_answered_while_heavy_ones_are_scored(
    tmp_path: Path,
) -> None:
    write_zerobench_key(tmp_path / "data")
    upload = 5 * 1024 * 1024
    async with FakeBotAPI() as api, running_bot(api, tmp_path, key=KEY) as bot:
        run = await heavy_run(api, bot.proc.pid, upload_bytes=upload, jsonl_lines=60_000, probes=5)
        assert max(run.probes) < 2.0, run.probes
        assert run.idle_rss_kib > 0 and run.growth_kib * 1024 < 10 * upload, run
        # the worker: a fresh interpreter (some 40 MB) and the work on the upload
        assert 0 < run.peak_worker_rss_kib * 1024 < 64 * 1024 * 1024 + 10 * upload, run
        assert len(run.heavy_replies) == 2
        assert any("PrimeBench" in r and "Total Questions: 104" in r for r in run.heavy_replies)
        assert any("ZeroBench" in r for r in run.heavy_replies)
        check_log(bot)

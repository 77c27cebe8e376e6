"""Full-size reliability runs of the real bot against the local Bot API server.

    .venv/bin/python tests/benchmarks/bench_reliability.py [--submissions 1000] [--users 50]

- crash: a burst of 1,000 submissions from 50 users (and 100 Publish presses on the
  first cards), the bot SIGKILLed when 20%, 50% and 80% of them are answered, then
  restarted on the same database; sent all at once and paced (100 a second);
- faults: 400 submissions with one in five sendMessage calls failing (429, 500, 502,
  a time-out, or delivered then timed out);
- outage: 1,000 submissions and 250 Publish presses on PostgreSQL (a cluster of the
  run's own, ``tests/reliability/pgcluster.py``; skipped without initdb), the server
  SIGKILLed when 30% are answered and started again 8 s later. It also prints the
  "nothing was saved" replies, the "taking longer" notes (and the most about one
  update), the updates left unfinished and the cards a restart sent again.

Each line prints tried / answered / lost / duplicated, the submissions stored, the
"Something went wrong" replies, the presses answered and published, and for a crash
the updates in flight (kept, not done) when the process died: the bound on duplicates.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.e2e.botapi import FakeBotAPI  # noqa: E402
from tests.reliability.burst import Outcome, run_burst  # noqa: E402
from tests.reliability.outage import run_outage  # noqa: E402
from tests.reliability.pgcluster import pg_cluster, server_bin  # noqa: E402

KINDS = ("429", "500", "502", "timeout", "delivered_timeout")


def verdict(out: Outcome, *, presses: int) -> str:
    ok = (
        out.lost == 0
        and out.stored == out.tried
        and out.went_wrong == 0
        and out.presses_answered == presses
        and out.published == presses
        and (out.unfinished_at_kill is None or out.duplicated <= out.unfinished_at_kill)
        and not out.notes
    )
    return "ok" if ok else "FAIL " + "; ".join(out.notes)


async def crash(
    submissions: int, users: int, presses: int, kill_at: float, rate: float | None
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeBotAPI() as api:
            out = await run_burst(
                api,
                Path(tmp),
                users=users,
                submissions=submissions,
                presses=presses,
                kill_at=kill_at,
                rate=rate,
                timeout=300,
            )
    name = f"kill at {kill_at:.0%}, " + ("paced" if rate else "unthrottled")
    print(out.line(name), verdict(out, presses=presses), flush=True)


async def faults(submissions: int, users: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeBotAPI() as api:
            api.faults(methods=("sendMessage",), kinds=KINDS, probability=0.2, seed=7)
            out = await run_burst(
                api,
                Path(tmp),
                users=users,
                submissions=submissions,
                presses=0,
                rate=40,
                timeout=300,
            )
            kinds = Counter(f["kind"] for f in api.fault_log)
    print(out.line("20% send faults"), verdict(out, presses=0), flush=True)
    print("  faults injected:", dict(sorted(kinds.items())), flush=True)


async def outage(submissions: int, users: int, presses: int) -> None:
    if server_bin() is None:
        print("postgres down 8 s: skipped (no initdb)", flush=True)
        return
    with tempfile.TemporaryDirectory() as tmp:
        async with pg_cluster() as cluster, FakeBotAPI() as api:
            run = await run_outage(
                api,
                Path(tmp),
                cluster,
                users=users,
                submissions=submissions,
                presses=presses,
                kill_at=0.3,
                down_for=8.0,
                rate=None,
                timeout=300,
            )
    out = run.burst
    ok = (
        verdict(out, presses=presses) == "ok"
        and out.nothing_saved == 0
        and out.slow_notes_max <= 1
        and run.unfinished_after == 0
        and run.resent_after_restart == 0
    )
    print(
        out.line("postgres down 8 s"),
        f"unfinished after {run.unfinished_after}  resent after restart {run.resent_after_restart}",
        "ok" if ok else "FAIL " + "; ".join(out.notes),
        flush=True,
    )


async def main(
    submissions: int, users: int, presses: int, fault_submissions: int, only: str | None
) -> None:
    if only in (None, "crash"):
        for rate in (None, 100.0):
            for kill_at in (0.2, 0.5, 0.8):
                await crash(submissions, users, presses, kill_at, rate)
    if only in (None, "faults"):
        await faults(fault_submissions, users)
    if only in (None, "outage"):
        await outage(submissions, users, max(presses, 250))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--submissions", type=int, default=1000)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--presses", type=int, default=100)
    parser.add_argument("--fault-submissions", type=int, default=400)
    parser.add_argument("--only", choices=("crash", "faults", "outage"))
    args = parser.parse_args()
    asyncio.run(main(args.submissions, args.users, args.presses, args.fault_submissions, args.only))

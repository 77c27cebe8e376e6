"""What each part of a submission's handling costs the bot's throughput.

    .venv/bin/python tests/benchmarks/bench_bot_parts.py [--rounds 4] [--total 2000]
        [--variants log pending,check record pending,check,record usecase]

``bench_bot.py`` compares Benchboard with a bare echo bot. This runs, at the same time,
the echo bot, Benchboard as it is, and Benchboard with parts left out
(``parted_bot.py``: the per-update log line, the challenge read, the copy check, the
record, or the whole use case, a cached card sent instead), each on a Bot API server
of its own, and drives them in alternating rounds as ``bench_bot.py`` does (the same
simulated users, 50 sending back to back, every output an answer set of its own). For
each it prints the throughput ratio to the echo bot of the same round and the CPU time
per submission: the difference between two lines is what the parts left out cost.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.bench_bot import (  # noqa: E402
    ECHOED,
    SCORED,
    WARM_UP,
    compiled,
    drive,
    one_round,
    start_echo,
)
from tests.benchmarks.figures import spread  # noqa: E402
from tests.e2e.botapi import FakeBotAPI  # noqa: E402
from tests.e2e.harness import make_key, running_bot  # noqa: E402

PARTED = Path(__file__).with_name("parted_bot.py")
VARIANTS = ["log", "pending,check", "record", "pending,check,record", "usecase"]


async def main(users: int, total: int, rounds: int, variants: list[str]) -> None:
    names = ["as it is", *(f"without {v}" for v in variants)]
    ratios: dict[str, list[float]] = {n: [] for n in names}
    cpus: dict[str, list[float]] = {n: [] for n in names}
    echo_cpus: list[float] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        cache = compiled(tmp / "pycache")
        apis = [FakeBotAPI() for _ in range(len(names) + 1)]
        for api in apis:
            await api.start()
        echo: asyncio.subprocess.Process | None = None
        try:
            echo = await start_echo(apis[0], cache)
            await apis[0].wait_polling(timeout=30)
            async with contextlib.AsyncExitStack() as stack:
                pids = []
                for n, variant in enumerate(["", *variants]):
                    program = ("-m", "bot") if not variant else (str(PARTED), variant)
                    bot = await stack.enter_async_context(
                        running_bot(
                            apis[n + 1], tmp / f"bot{n}", key=make_key(), env=cache, program=program
                        )
                    )
                    pids.append(bot.proc.pid)
                await drive(apis[0], users, WARM_UP, ECHOED, first_user=40_000)
                for api in apis[1:]:
                    await drive(api, users, WARM_UP, SCORED, first_user=40_000)
                for r in range(rounds):
                    first = 50_000 + r * users
                    _, echo_rate, echo_cpu = await one_round(
                        echo.pid, apis[0], users, total, ECHOED, first
                    )
                    echo_cpus.append(echo_cpu)
                    for name, pid, api in zip(names, pids, apis[1:], strict=True):
                        _, rate, cpu = await one_round(pid, api, users, total, SCORED, first)
                        ratios[name].append(rate / echo_rate)
                        cpus[name].append(cpu)
        finally:
            if echo is not None and echo.returncode is None:
                echo.terminate()
                await echo.wait()
            for api in apis:
                await api.stop()
    print(f"{users} users sending back to back, {total} submissions a round, {rounds} rounds")
    print(f"echo bot: CPU {statistics.median(echo_cpus) * 1000:.2f} ms a reply (median)")
    for name in names:
        cpu = statistics.median(cpus[name]) * 1000
        print(
            f"{name:34s} throughput / echo {spread(ratios[name], runs='rounds')}  "
            f"CPU {cpu:.2f} ms a submission"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--total", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--variants", nargs="*", default=VARIANTS)
    args = parser.parse_args()
    asyncio.run(main(args.users, args.total, args.rounds, args.variants))

"""Reply latency and throughput of the real bot through a local Bot API server.

    .venv/bin/python tests/benchmarks/bench_bot.py [--users 50] [--total 2000] [--rounds 3]
        [--rate 30]

Starts two fake Bot API servers of the end-to-end tests, then, in the same run, a bare
echo bot on one and the real Benchboard process (`benchboard run`, PrimeBench key
generated) on the other, each as a subprocess, both running at once, and drives them:

- throughput: after a warm-up (``WARM_UP`` submissions from other users), rounds that
  alternate between the two bots (a slow spell of a shared machine then falls on both):
  in each, 50 new simulated users submit 2,000 PrimeBench outputs in all as fast as
  they can (each user sends its next output when the reply to the last one arrives),
  every output an answer set of its own (random answers, as independent runs give:
  one set sent by two users is a copy, held for review after the copy check's bounded
  comparison, which is not what a round of ordinary submissions costs);
  prints submissions per second and the latency this queueing gives, per round, and the
  ratios' median and range;
- start-up: from the spawn to the first ``getUpdates``, and to the reply to a message
  that was waiting when the bot started (as after a restart);
- latency: the same users submit at an offered rate (default 30 a second, Telegram's own
  limit for a bot's messages), arrivals spread at random; prints reply latency p50/p99.

Settings for the bot can be given as ``BENCH_BOT_<NAME>``: ``BENCH_BOT_DB_SYNCHRONOUS``
becomes ``BENCHBOARD_DB_SYNCHRONOUS``. The ratio compares the two bots' throughput. Each
throughput line also gives the CPU time the bot process spent per submission (from
/proc), which varies far less than wall-clock rates on a shared machine.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.figures import figure, spread  # noqa: E402
from tests.e2e.botapi import FakeBotAPI, JSONDict  # noqa: E402
from tests.e2e.harness import make_key, running_bot  # noqa: E402


def submission(rng: random.Random) -> str:
    lines = [f"{q}:{rng.choice(['1', '2', '3', '4', 'none'])}" for q in range(1, 105)]
    return "model: bench-model\n#think\n" + "\n".join(lines)


async def drive(
    api: FakeBotAPI, users: int, total: int, expect: str, *, first_user: int = 50_000
) -> tuple[list[float], float]:
    rng = random.Random(first_user)
    per_user = total // users
    texts = [submission(rng) for _ in range(per_user * users)]
    latencies: list[float] = []

    async def user(n: int) -> None:
        person = api.user(first_user + n, f"U{n}")
        chat = api.private_chat(person)
        for i in range(per_user):
            start = time.perf_counter()
            message = await api.send_text(chat, person, texts[n * per_user + i])
            call = await api.reply_to(message, timeout=60)
            latencies.append(time.perf_counter() - start)
            assert expect in call["params"]["text"], call["params"]["text"][:200]

    start = time.perf_counter()
    await asyncio.gather(*(user(n) for n in range(users)))
    return latencies, time.perf_counter() - start


async def offered(api: FakeBotAPI, users: int, total: int, rate: float, expect: str) -> list[float]:
    """Open loop: ``total`` submissions arriving at ``rate`` a second (Poisson)."""
    rng = random.Random(9)
    texts = [submission(rng) for _ in range(total)]
    people = [api.user(60_000 + n, f"R{n}") for n in range(users)]
    latencies: list[float] = []

    async def one(i: int) -> None:
        person = people[i % users]
        start = time.perf_counter()
        message = await api.send_text(api.private_chat(person), person, texts[i])
        call = await api.reply_to(message, timeout=60)
        latencies.append(time.perf_counter() - start)
        assert expect in call["params"]["text"], call["params"]["text"][:200]

    tasks = []
    for i in range(total):
        tasks.append(asyncio.create_task(one(i)))
        await asyncio.sleep(rng.expovariate(rate))
    await asyncio.gather(*tasks)
    return latencies


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


#: Submissions each bot handles, from users of their own, before it is measured: what a
#: process does once (imports on first use, caches, the database's first pages) is not
#: a cost per submission.
WARM_UP = 200


def tree_rss_mib(pid: int) -> float:
    """Resident memory of a process and all its descendants (Linux /proc), MiB."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            for task in Path(f"/proc/{current}/task").iterdir():
                todo.extend(int(c) for c in (task / "children").read_text().split())
        except OSError:
            continue
        total += next(int(x.split()[1]) for x in status.splitlines() if x.startswith("VmRSS:"))
    return total / 1024


async def idle_rss(pid: int) -> float:
    await asyncio.sleep(1.0)  # settled: whatever it starts at start is running
    return tree_rss_mib(pid)


def percentiles(latencies: list[float]) -> str:
    ordered = sorted(latencies)
    p50 = statistics.median(ordered) * 1000
    p99 = ordered[max(0, int(len(ordered) * 0.99) - 1)] * 1000
    return f"p50 {p50:6.1f} ms  p99 {p99:6.1f} ms"


def report(name: str, latencies: list[float], rate: float, cpu: float) -> float:
    elapsed = len(latencies) / rate
    print(
        f"{name:10s} {len(latencies)} replies in {elapsed:.2f} s: {rate:7.1f}/s  "
        f"CPU {cpu * 1000:.2f} ms each  latency {percentiles(latencies)}"
    )
    return rate


def compiled(cache: Path) -> dict[str, str]:
    """Byte-code for both bots in ``cache``, as an installed program has it: the
    project's modules compiled, and every module either bot imports at start (with a
    cache prefix Python looks there even for site-packages, whose own ``__pycache__``
    it then ignores). Without it every start compiles its imports anew (here
    ``PYTHONDONTWRITEBYTECODE`` may be set), which is most of a start-up."""
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(cache)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    folders = [str(ROOT / name) for name in ("bot", "scoring", "storage", "tests")]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], env=env, check=True)
    started = ["bot.cli", "bot.telegram.app", "apscheduler.triggers.cron"]
    started.append("tests.benchmarks.echo_bot")
    imports = "import " + ", ".join(started)
    subprocess.run([sys.executable, "-c", imports], env=env, cwd=ROOT, check=True)
    return {"PYTHONPYCACHEPREFIX": str(cache)}


ECHOED = "model: bench-model"
SCORED = "Final Score:"


async def one_round(
    pid: int, api: FakeBotAPI, users: int, total: int, expect: str, first_user: int
) -> tuple[list[float], float, float]:
    """A throughput round from new users: latencies, submissions a second, and the bot
    process's CPU time per submission.

    This process is the Bot API both bots talk to, and it keeps every call it answered:
    before a round, what it holds is collected and frozen out of the collector's later
    passes (``gc.freeze``), so that a full collection walking the calls of earlier rounds
    does not stall whichever bot's round it falls in."""
    gc.collect()
    gc.freeze()
    before = cpu_seconds(pid)
    latencies, elapsed = await drive(api, users, total, expect, first_user=first_user)
    return latencies, len(latencies) / elapsed, (cpu_seconds(pid) - before) / len(latencies)


async def waiting_message(api: FakeBotAPI) -> JSONDict:
    """A submission sent before the bot starts (as after a restart): Telegram holds it."""
    person = api.user(30_000, "Early")
    return await api.send_text(api.private_chat(person), person, submission(random.Random(1)))


async def first_answers(
    api: FakeBotAPI, started: float, waiting: JSONDict, expect: str
) -> tuple[float, float]:
    """Seconds from ``started`` to the bot's first ``getUpdates`` and to its reply to
    ``waiting`` (a getUpdates is recorded when it is answered: at once, as an update
    waits)."""
    await api.wait_call("getUpdates", timeout=30)
    first_poll = time.perf_counter() - started
    call = await api.reply_to(waiting, timeout=30)
    assert expect in call["params"]["text"], call["params"]["text"][:200]
    return first_poll, time.perf_counter() - started


async def start_echo(api: FakeBotAPI, cache: dict[str, str]) -> asyncio.subprocess.Process:
    """The echo bot on ``api``, its byte-code in ``cache`` (:func:`compiled`)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BENCHBOARD_")}
    env.update(api.bot_env())
    env.update(cache)
    return await asyncio.create_subprocess_exec(
        sys.executable,
        str(Path(__file__).with_name("echo_bot.py")),
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )


async def main(users: int, total: int, rate: float, rounds: int) -> None:
    echo_rounds: list[tuple[list[float], float, float]] = []
    bot_rounds: list[tuple[list[float], float, float]] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        cache = compiled(tmp / "pycache")
        # a Bot API server each: both bots run at once, so their rounds can alternate
        echo_api, bot_api = FakeBotAPI(), FakeBotAPI()
        await echo_api.start()
        await bot_api.start()
        echo: asyncio.subprocess.Process | None = None
        try:
            waiting = await waiting_message(echo_api)
            started = time.perf_counter()
            echo = await start_echo(echo_api, cache)
            echo_start = await first_answers(echo_api, started, waiting, ECHOED)
            echo_idle = await idle_rss(echo.pid)
            bot_env = {k: v for k, v in os.environ.items() if k.startswith("BENCH_BOT_")}
            env = {"BENCHBOARD_" + k[len("BENCH_BOT_") :]: v for k, v in bot_env.items()}
            env.update(cache)
            waiting = await waiting_message(bot_api)
            started = time.perf_counter()
            bot_dir = tmp / "bot"
            async with running_bot(bot_api, bot_dir, key=make_key(), env=env, wait=False) as bot:
                bot_start = await first_answers(bot_api, started, waiting, SCORED)
                bot_idle = await idle_rss(bot.proc.pid)
                await drive(echo_api, users, WARM_UP, ECHOED, first_user=40_000)
                await drive(bot_api, users, WARM_UP, SCORED, first_user=40_000)
                # alternating rounds: a slow spell of a shared machine falls on both bots
                for n in range(rounds):
                    first = 50_000 + n * users
                    echo_rounds.append(
                        await one_round(echo.pid, echo_api, users, total, ECHOED, first)
                    )
                    bot_rounds.append(
                        await one_round(bot.proc.pid, bot_api, users, total, SCORED, first)
                    )
                echo_open = await offered(echo_api, users, total // 4, rate, ECHOED)
                bot_open = await offered(bot_api, users, total // 4, rate, SCORED)
        finally:
            if echo is not None and echo.returncode is None:
                echo.terminate()
                await echo.wait()
            await echo_api.stop()
            await bot_api.stop()
    print(
        f"start-up to the first getUpdates: echo bot {echo_start[0]:.2f} s, "
        f"benchboard {bot_start[0]:.2f} s; to the first reply (a message waiting): "
        f"echo bot {echo_start[1]:.2f} s, benchboard {bot_start[1]:.2f} s"
    )
    print(
        f"memory at idle (all processes): echo bot {echo_idle:.0f} MiB, "
        f"benchboard {bot_idle:.0f} MiB"
    )
    print(f"throughput, {users} users sending back to back, {total} a round:")
    ratios, cpu_ratios = [], []
    for n, (echo_round, bot_round) in enumerate(zip(echo_rounds, bot_rounds, strict=True)):
        print(f"round {n + 1}")
        echo_rate = report("echo bot", *echo_round)
        bot_rate = report("benchboard", *bot_round)
        ratios.append(bot_rate / echo_rate)
        cpu_ratios.append(bot_round[2] / echo_round[2])
    bot_cpu = statistics.median(r[2] for r in bot_rounds)
    echo_cpu = statistics.median(r[2] for r in echo_rounds)
    print(f"benchboard / echo throughput ratio: {spread(ratios, runs='rounds')}")
    print(f"benchboard / echo CPU per submission: {spread(cpu_ratios, unit='x', runs='rounds')}")
    figure(
        "bot throughput / echo bot",
        spread(ratios, runs="rounds"),
        ">= 0.6",
        statistics.median(ratios) >= 0.6,
    )
    figure(
        "bot CPU per submission / echo bot",
        f"{spread(cpu_ratios, unit='x', runs='rounds')}; "
        f"{bot_cpu * 1000:.2f} vs {echo_cpu * 1000:.2f} ms",
        "<= 2x",
        statistics.median(cpu_ratios) <= 2,
    )
    figure(
        "bot start-up to first getUpdates",
        f"{bot_start[0]:.2f} s (echo {echo_start[0]:.2f} s)",
        "<= 0.5 s",
        bot_start[0] <= 0.5,
    )
    figure(
        "bot start-up to its first reply",
        f"{bot_start[1]:.2f} s (echo {echo_start[1]:.2f} s), a message waiting",
    )
    figure(
        "bot memory at idle",
        f"{bot_idle:.0f} MiB (echo {echo_idle:.0f})",
        "<= 80 MiB",
        bot_idle <= 80,
    )
    print(f"latency at an offered {rate:g} submissions/s ({total // 4} each):")
    print(f"echo bot   {percentiles(echo_open)}")
    print(f"benchboard {percentiles(bot_open)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--total", type=int, default=2000)
    parser.add_argument("--rate", type=float, default=30.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="600 submissions a round")
    args = parser.parse_args()
    if args.quick:
        args.total = min(args.total, 600)
    asyncio.run(main(args.users, args.total, args.rate, args.rounds))

"""Benchboard's own runs: attempts side by side, and the bot's latency while runs are in
flight. Against the local OpenAI-compatible server of the tests (never a real provider).

    .venv/bin/python tests/benchmarks/bench_runs.py [--rounds 3] [--replies 200]

- attempts: 8 Natory attempts through ``bot.core.runs.attempt`` (the client, the
  provider's bound of 4, scoring as a paste) against a model that answers in 2 s; the
  goal is at most 1.5 × (8 × 2 s / 4) = 6 s;
- latency: the real bot process (``benchboard run`` against the Bot API emulator); one
  user's PrimeBench pastes answered one after the other, idle and then while 20 runs
  are in flight (20 ``/run`` calls waiting on the model); the goal is a p99 within 10 %
  of the idle one. Rounds alternate idle and loaded, so a slow spell of a shared machine
  falls on both.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.figures import figure, span, spread  # noqa: E402
from tests.e2e.botapi import FakeBotAPI  # noqa: E402
from tests.e2e.harness import make_key, running_bot  # noqa: E402
from tests.runs.fakeai import FakeAI, providers_toml  # noqa: E402

ANSWER = "The answer is 21"


async def attempts_round(tmp: Path) -> float:
    from bot.core import runs
    from bot.core.services import opened
    from bot.settings import Settings
    from scoring import registry

    async with FakeAI(key="sk-bench", answer=ANSWER, delay=2.0) as fake:
        path = tmp / "providers.toml"
        path.write_text(providers_toml(fake.base_url, concurrency=4, timeout=30))
        os.environ["LOCAL_AI_KEY"] = "sk-bench"
        settings = Settings(data_dir=tmp, db=str(tmp / "bench.sqlite3"), providers=path)
        runner = runs.Runner.from_settings_file(path)
        async with opened(settings) as services:
            natory = registry.get("natory")
            plan = runs.plan_for(services, natory, 21)
            model = runner.providers.model("local/m1")
            started = time.monotonic()
            done = await asyncio.gather(
                *(runs.attempt(services, runner, natory, model, "default", plan) for _ in range(8))
            )
            took = time.monotonic() - started
        await runner.close()
        assert len(done) == 8 and fake.most_in_flight == 4
        return took


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(len(ordered) * q) - 1)]


async def replies(api: FakeBotAPI, user_id: int, count: int, text: str) -> list[float]:
    user = api.user(user_id, f"U{user_id}", language_code="en")
    chat = api.private_chat(user)
    out = []
    for _ in range(count):
        started = time.monotonic()
        message = await api.send_text(chat, user, text)
        await api.reply_to(message, timeout=30)
        out.append(time.monotonic() - started)
    return out


async def latency(tmp: Path, rounds: int, count: int) -> tuple[list[float], list[float]]:
    key = make_key()
    paste = "\n".join(f"{q}:{o}" for q, o in list(key.items())[:60])
    idle: list[float] = []
    loaded: list[float] = []
    async with FakeAI(key="sk-bench", answer=ANSWER, delay=3600.0) as fake:
        providers = tmp / "providers-bot.toml"
        providers.write_text(providers_toml(fake.base_url, concurrency=20, timeout=7200))
        env = {
            "BENCHBOARD_ADMINS": "1",
            "BENCHBOARD_PROVIDERS": str(providers),
            "LOCAL_AI_KEY": "sk-bench",
        }
        api = FakeBotAPI(bot_username="bench_bot")
        async with api, running_bot(api, tmp / "bot", key=key, env=env):
            await replies(api, 900, 30, paste)  # warm up
            admin = api.user(1, "Admin", language_code="en")
            admin_chat = api.private_chat(admin)
            in_flight = 0
            for r in range(rounds):
                idle_round = await replies(api, 1000 + r, count, paste)
                if in_flight < 20:  # 20 runs, each waiting on the model from now on
                    for _ in range(20 - in_flight):
                        msg = await api.send_text(admin_chat, admin, "/run natory local/m1")
                        await api.reply_to(msg, timeout=30)
                    await api.wait_until(lambda: fake.in_flight >= 20, 60, what="20 runs")
                    in_flight = 20
                loaded_round = await replies(api, 2000 + r, count, paste)
                p_idle, p_loaded = percentile(idle_round, 0.99), percentile(loaded_round, 0.99)
                print(
                    f"round {r + 1}: idle p50 {statistics.median(idle_round) * 1000:.1f} ms"
                    f" p99 {p_idle * 1000:.1f} ms; 20 runs in flight: p50"
                    f" {statistics.median(loaded_round) * 1000:.1f} ms"
                    f" p99 {p_loaded * 1000:.1f} ms ({fake.in_flight} calls waiting)",
                    flush=True,
                )
                idle.append(p_idle)
                loaded.append(p_loaded)
    return idle, loaded


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--replies", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        took = []
        for r in range(args.rounds):
            (tmp / f"a{r}").mkdir()
            took.append(await attempts_round(tmp / f"a{r}"))
            print(
                f"round {r + 1}: 8 attempts of 2 s at concurrency 4 in {took[-1]:.2f} s", flush=True
            )
        goal = 1.5 * (8 * 2.0 / 4)
        figure(
            "runs: 8 attempts (2 s each, 4 at once)", spread(took, ".2f", " s"),
            f"≤ {goal:.1f} s", max(took) <= goal,
        )  # fmt: skip
        (tmp / "bot").mkdir()
        idle, loaded = await latency(tmp, args.rounds, args.replies)
        ratios = [b / a for a, b in zip(idle, loaded, strict=True)]
        print(f"idle p99 {span([v * 1000 for v in idle], '.1f', ' ms')}; "
              f"in flight p99 {span([v * 1000 for v in loaded], '.1f', ' ms')}")  # fmt: skip
        figure(
            "runs: reply p99 with 20 runs in flight / idle", spread(ratios, ".2f", "×"),
            "≤ 1.10×", statistics.median(ratios) <= 1.10,
        )  # fmt: skip


if __name__ == "__main__":
    asyncio.run(main())

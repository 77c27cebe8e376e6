"""Inline answers under load, through the real bot and the local Bot API server. Not part
of the test run.

    .venv/bin/python tests/benchmarks/bench_inline.py [--users 20] [--results 5] [--rounds 10]

Starts the fake Bot API server and the real bot (``benchboard run``); ``--users`` users
each publish ``--results`` PrimeBench results. Then:

- cold: every user types ``@bot`` at the same moment, with no card uploaded yet (each
  answer draws and uploads up to three cards, all through the one render thread);
- warm: once every card is uploaded (a chosen result uploads the rest), ``--rounds``
  rounds of every user querying at once, answered from cached file ids.

Prints the time from each inline query to the bot's answerInlineQuery (median, p90,
max) and the answers' result kinds. Telegram gives a bot about ten seconds to answer an
inline query; the goal is every answer well inside that.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.e2e.botapi import FakeBotAPI  # noqa: E402
from tests.e2e.botapi_inline import result_kind  # noqa: E402
from tests.e2e.botkit import submission_id  # noqa: E402
from tests.e2e.harness import make_key, running_bot  # noqa: E402

KEY = make_key()


def summary(label: str, times: list[float]) -> str:
    times = sorted(times)
    p90 = times[min(len(times) - 1, int(len(times) * 0.9))]
    return (
        f"{label:<34} n={len(times):<4} median {statistics.median(times) * 1000:7.0f} ms  "
        f"p90 {p90 * 1000:7.0f} ms  max {times[-1] * 1000:7.0f} ms"
    )


async def publish(api: FakeBotAPI, uid: int, results: int) -> dict:
    user = api.user(uid, f"U{uid}")
    chat = api.private_chat(user)
    for i in range(results):
        lines = [f"{q}:{KEY[q]}" for q in range(1, 3 + (uid + i) % 30)]
        message = await api.send_text(
            chat, user, f"#think\nmodel: model {uid}-{i}\n" + "\n".join(lines)
        )
        reply = await api.reply_to(message, timeout=60)
        sid = submission_id(reply["result"]["text"])
        query = await api.press_button(chat, user, reply, f"pub:{sid}")
        await api.callback_answer(query, timeout=60)
    return user


async def round_of(api: FakeBotAPI, users: list[dict]) -> tuple[list[float], list[list[str]]]:
    async def one(user: dict) -> tuple[float, list[str]]:
        start = time.perf_counter()
        query = await api.inline_query(user, "")
        answer = await api.inline_answer(query, timeout=60)
        return time.perf_counter() - start, [result_kind(r) for r in answer["params"]["results"]]

    done = await asyncio.gather(*(one(u) for u in users))
    return [d[0] for d in done], [d[1] for d in done]


async def main(users: int, results: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeBotAPI() as api, running_bot(api, Path(tmp), key=KEY):
            start = time.perf_counter()
            people = [await publish(api, 70_000 + n, results) for n in range(users)]
            print(f"{users} users published {users * results} results in "
                  f"{time.perf_counter() - start:.1f} s")  # fmt: skip
            times, kinds = await round_of(api, people)
            photos = sum(k.count("cached_photo") for k in kinds)
            print(summary("cold (draw and upload)", times)
                  + f"   cards {photos}, text {sum(map(len, kinds)) - photos}")  # fmt: skip
            # every user chooses a result: the bot uploads the rest of their cards
            group = api.group_chat(-1000777, "bench")
            for user in people:
                query = await api.inline_query(user, "")
                answer = (await api.inline_answer(query, timeout=60))["params"]
                await api.choose_inline_result(group, user, query, answer["results"][0]["id"])
            expected = users * results
            await api.wait_until(
                lambda: sum(1 for c in api.calls_of("sendPhoto") if c["ok"]) >= expected,
                timeout=300,
                what="every card uploaded",
            )
            warm: list[float] = []
            cached = 0
            for _ in range(rounds):
                times, kinds = await round_of(api, people)
                warm += times
                cached += sum(k.count("cached_photo") for k in kinds)
            print(summary("warm (cached file ids)", warm)
                  + f"   cards {cached} of {users * results * rounds}")  # fmt: skip


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--results", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    asyncio.run(main(args.users, args.results, args.rounds))

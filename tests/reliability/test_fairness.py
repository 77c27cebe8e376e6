"""One user's flood does not delay everyone (issue 29, finding 2).

The real bot process against a Bot API that enforces a send rate like Telegram's (30
messages a second for the bot; beyond it, 429 with ``retry_after``): one user sends
1,000 submissions at once while others each send a few during the flood. The others'
replies keep their normal latency, the flooder gets one "slow down" notice, and every
one of the flooder's submissions is stored and its update marked done.

The figures (p50/p95 of both populations) are printed: ``pytest -s`` shows them.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
import statistics
import time
from collections import deque
from pathlib import Path
from typing import Any

from bot.render.i18n import t as t_
from bot.telegram.fairsend import CALM_SECONDS
from tests.e2e.botapi import ApiError, FakeBotAPI, JSONDict
from tests.e2e.botkit import KEY, answers, submission_id
from tests.e2e.harness import running_bot
from tests.reliability.burst import wait

SCORE = "Final Score"
#: Part of the English "slow down" notice (``slow_down`` in the catalogue).
SLOW_DOWN = "faster than I can answer"
SLOW_DOWN_FA = "سریع‌تر از آن"

#: Telegram's limit on a bot's messages: about 30 a second overall.
TELEGRAM_RATE = 30
SENDS = ("send", "copy", "forward", "edit")


class RateLimitedBotAPI(FakeBotAPI):
    """The fake Bot API with Telegram's send limit (at most ``TELEGRAM_RATE`` messages in
    any second, else 429 ``retry_after`` 1), and the time of every message the bot sent."""

    def __init__(self) -> None:
        super().__init__()
        self.recent: deque[float] = deque()
        self.limited = 0
        #: (monotonic time, chat id, text) of every message the bot sent
        self.sent: list[tuple[float, int, str]] = []

    def _check_flood(self, method: str, params: JSONDict) -> None:
        super()._check_flood(method, params)
        if not method.lower().startswith(SENDS) or "chat_id" not in params:
            return
        now = time.monotonic()
        while self.recent and self.recent[0] <= now - 1.0:
            self.recent.popleft()
        if len(self.recent) >= TELEGRAM_RATE:
            self.limited += 1
            raise ApiError(429, "Too Many Requests: retry after 1", {"retry_after": 1})
        self.recent.append(now)

    def _finish(
        self,
        method: str,
        params: JSONDict,
        error: ApiError | None,
        result: Any = None,
        *,
        request: Any = None,
    ) -> Any:
        if error is None and method == "sendMessage":
            chat = params.get("chat_id")
            if isinstance(chat, int | str) and str(chat).lstrip("-").isdigit():
                self.sent.append((time.monotonic(), int(chat), str(params.get("text", ""))))
        return super()._finish(method, params, error, result, request=request)


def _stored(data_dir: Path) -> dict[int, tuple[int, int]]:
    """Submission id -> (chat id, message id), as the bot's database holds them."""
    uri = f"file:{data_dir / 'benchboard.sqlite3'}?mode=ro"
    with sqlite3.connect(uri, uri=True) as db:
        rows = db.execute("SELECT id, chat_id, message_id FROM submissions").fetchall()
    return {int(r[0]): (int(r[1]), int(r[2])) for r in rows}


def _unfinished(data_dir: Path) -> int:
    uri = f"file:{data_dir / 'benchboard.sqlite3'}?mode=ro"
    with sqlite3.connect(uri, uri=True) as db:
        return int(db.execute("SELECT count(*) FROM intake WHERE done_at IS NULL").fetchone()[0])


def _percentiles(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"p50 {statistics.median(ordered):.3f} s  p95 {p95:.3f} s  (n={len(ordered)})"


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def _texts(n: int) -> list[str]:
    rng = random.Random(29)
    return [
        "\n".join(["model: flood", "#think", *answers(KEY, correct=rng.randint(1, 100))])
        for _ in range(n)
    ]


async def test_one_users_flood_leaves_the_others_their_latency(tmp_path: Path) -> None:
    flood_size, others, each = 1000, 6, 5
    api = RateLimitedBotAPI()
    await api.start()
    try:
        texts = _texts(20)
        flooder = api.user(91_000, "Flood")
        flood_chat = api.private_chat(flooder)
        people = [api.user(92_000 + n, f"Calm{n}") for n in range(others)]
        chats = [api.private_chat(p) for p in people]
        sent_at: dict[tuple[int, int], float] = {}
        env = {"BENCHBOARD_RATE_OVERALL": str(TELEGRAM_RATE), "BENCHBOARD_RATE_GROUP": "20"}
        env["PTB_TIMEDELTA"] = "1"
        async with running_bot(api, tmp_path, key=KEY, env=env) as bot:

            async def flood() -> None:
                for i in range(flood_size):
                    m = await api.send_text(flood_chat, flooder, texts[i % len(texts)])
                    sent_at[(m["chat"]["id"], m["message_id"])] = time.monotonic()
                    if i % 50 == 49:
                        await asyncio.sleep(0)  # let the bot's polls in

            async def calm(n: int) -> None:
                await asyncio.sleep(0.3 * n)
                for i in range(each):
                    m = await api.send_text(chats[n], people[n], texts[(n + i) % len(texts)])
                    sent_at[(m["chat"]["id"], m["message_id"])] = time.monotonic()
                    await asyncio.sleep(2.0)

            flooding = asyncio.create_task(flood())
            await asyncio.sleep(0.2)  # the flood is under way when the others write
            await asyncio.gather(flooding, *(calm(n) for n in range(others)))

            def calm_answered() -> int:
                ids = {p["id"] for p in people}
                return sum(1 for _, chat, text in api.sent if chat in ids and SCORE in text)

            def settled() -> bool:
                stored = _stored(bot.data_dir)
                flood_stored = sum(1 for c, _ in stored.values() if c == flood_chat["id"])
                return (
                    flood_stored >= flood_size
                    and calm_answered() >= others * each
                    and _unfinished(bot.data_dir) == 0
                )

            with contextlib.suppress(AssertionError):  # the figures say what is missing
                await wait(settled, 150, "the flood stored and the others answered")
            stored = _stored(bot.data_dir)
            unfinished = _unfinished(bot.data_dir)

        latency: dict[str, list[float]] = {"flooder": [], "others": []}
        for at, chat, text in api.sent:
            if SCORE not in text:
                continue
            where = stored.get(submission_id(text))
            if where is None or where not in sent_at:
                continue
            who = "flooder" if chat == flood_chat["id"] else "others"
            latency[who].append(at - sent_at[where])
        notices = [t for _, c, t in api.sent if c == flood_chat["id"] and SLOW_DOWN in t]
        flood_stored = sum(1 for c, _ in stored.values() if c == flood_chat["id"])
        print(
            f"\nflood of {flood_size}: others {_percentiles(latency['others'])}; "
            f"flooder {_percentiles(latency['flooder'])}; notices {len(notices)}; "
            f"flooder's stored {flood_stored}; unfinished {unfinished}; "
            f"429s {api.limited}"
        )
        assert flood_stored == flood_size  # nothing Telegram handed over is lost
        assert unfinished == 0
        assert len(latency["others"]) == others * each
        assert _p95(latency["others"]) < 3.0, latency["others"]
        assert len(notices) == 1, notices
    finally:
        await api.stop()


async def test_the_notice_speaks_the_users_language_and_comes_again_after_calm(
    tmp_path: Path,
) -> None:
    api = RateLimitedBotAPI()
    await api.start()
    try:
        texts = _texts(20)
        persian = api.user(93_000, "Sara", language_code="fa")
        english = api.user(93_001, "Ann")
        chats = {u["id"]: api.private_chat(u) for u in (persian, english)}
        env = {"BENCHBOARD_RATE_OVERALL": str(TELEGRAM_RATE), "PTB_TIMEDELTA": "1"}
        async with running_bot(api, tmp_path, key=KEY, env=env) as bot:

            async def flood(user: JSONDict, n: int) -> None:
                for i in range(n):
                    await api.send_text(chats[user["id"]], user, texts[i % len(texts)])

            def notices(chat: int, marker: str) -> int:
                return sum(1 for _, c, text in api.sent if c == chat and marker in text)

            def stored(user: JSONDict) -> int:
                return sum(1 for c, _ in _stored(bot.data_dir).values() if c == user["id"])

            await asyncio.gather(flood(persian, 40), flood(english, 40))
            await wait(
                lambda: stored(persian) == 40 and stored(english) == 40,
                60,
                "both floods stored",
            )
            await wait(lambda: notices(english["id"], SLOW_DOWN) == 1, 30, "the notice")
            await wait(lambda: notices(persian["id"], SLOW_DOWN_FA) == 1, 30, "the notice")
            # calm: once CALM_SECONDS passed, the next message is answered as usual
            await asyncio.sleep(CALM_SECONDS + 1)
            mark = api.mark()
            await api.send_text(chats[english["id"]], english, texts[0])
            card = await api.wait_for(
                lambda c: (
                    c["ok"]
                    and c["method"] == "sendMessage"
                    and c["params"].get("chat_id") == english["id"]
                    and SCORE in str(c["params"].get("text"))
                ),
                15,
                since=mark,
            )
            assert card["ok"]
            # and a new flood gets a new notice
            await flood(english, 40)
            await wait(lambda: stored(english) == 81, 60, "the second flood stored")
            await wait(lambda: notices(english["id"], SLOW_DOWN) == 2, 30, "a second notice")
            await wait(lambda: _unfinished(bot.data_dir) == 0, 30, "every update done")
        persian_notice = [t for _, c, t in api.sent if c == persian["id"] and SLOW_DOWN_FA in t]
        assert persian_notice == [t_("fa", "slow_down")]
        assert notices(persian["id"], SLOW_DOWN) == 0
    finally:
        await api.stop()


async def test_a_paste_split_in_many_parts_is_still_one_submission(tmp_path: Path) -> None:
    """The first part's handler waits for the next parts: handling a user's messages a
    few at a time would leave the later parts unread until it gave up."""
    api = RateLimitedBotAPI()
    await api.start()
    try:
        user = api.user(94_000, "Long")
        chat = api.private_chat(user)
        filler = "the model weighs every option once more before it answers"
        body = answers(KEY, correct=104)
        parts = []
        for n in range(9):
            lines = ["model: long paste", *body[:10]] if n == 0 else []
            while len("\n".join(lines)) < 4000:
                lines.append(f"{n} {filler}")
            parts.append("\n".join(lines))
        parts.append("\n".join(body[10:]))
        env = {"BENCHBOARD_RATE_OVERALL": str(TELEGRAM_RATE)}
        async with running_bot(api, tmp_path, key=KEY, env=env):
            for text in parts:
                await api.send_text(chat, user, text)
            await wait(lambda: any(SCORE in t for _, _, t in api.sent), 60, "the card")
            await asyncio.sleep(4)  # the paste's window: any second card would be out
        cards = [t for _, c, t in api.sent if c == chat["id"] and SCORE in t]
        assert len(cards) == 1, cards
        assert "Correct: 104" in cards[0]
    finally:
        await api.stop()

"""Two real bot processes on one PostgreSQL database behind one webhook address: the
local Bot API server delivers every update to both. Each submission is stored and
answered once, the send rate holds for both together, a key set through one is used
by the other, the daily publication limit holds for both together, each backup run is
written by one of them.

Needs a PostgreSQL server (``BENCHBOARD_TEST_POSTGRES_URL``); skipped without one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sqlite3
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import psycopg
import pytest
import pytest_asyncio

from tests.storage.pg import pg_schema_url, pg_test_database

from .botapi import FakeBotAPI, free_port
from .botkit import KEY, answers, buttons, check_log, private_user, text_of
from .botkit import submission_id as sid_of
from .harness import BotProcess, healthy, make_key, running_bot, webhook_env

pytestmark = pytest.mark.asyncio(loop_scope="module")
SECRET = "two-instances"
ADMIN = 9501
RATE = 8  # messages a second, for both instances together
LIMIT = 3  # publications a day, for both instances together
BACKUP_EVERY = 2  # seconds between backup runs (instead of nightly)


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    for database in pg_test_database():
        with pg_schema_url(database) as url:
            yield url


class Pair:
    def __init__(
        self, api: FakeBotAPI, bots: list[BotProcess], urls: list[str], db: str, backups: Path
    ):
        self.api, self.bots, self.urls, self.db = api, bots, urls, db
        self.backups = backups

    async def deliver(self, update: dict[str, object]) -> list[int]:
        """POST the update to both instances at once (as a retrying balancer might)."""
        return list(
            await asyncio.gather(
                *(self.api.post_raw_update(update, SECRET, url=u) for u in self.urls)
            )
        )

    def count(self, sql: str) -> int:
        with psycopg.connect(self.db) as conn:
            row = conn.execute(sql.encode()).fetchone()
        assert row is not None
        return int(row[0])


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def pair(tmp_path_factory: pytest.TempPathFactory, pg_url: str) -> AsyncIterator[Pair]:
    api = FakeBotAPI()
    await api.start()
    ports = [free_port(), free_port()]
    backups = tmp_path_factory.mktemp("backups")  # one folder for both: duplicates show
    shared = {
        "BENCHBOARD_DB": pg_url,
        "BENCHBOARD_ADMINS": str(ADMIN),
        "BENCHBOARD_RATE_OVERALL": str(RATE),
        "BENCHBOARD_RATE_GROUP": "0",
        "BENCHBOARD_DAILY_LIMIT": str(LIMIT),
        "BENCHBOARD_BACKUP_INTERVAL": str(BACKUP_EVERY),
        "BENCHBOARD_BACKUP_DIR": str(backups),
        "BENCHBOARD_BACKUP_KEEP": "1000",
    }
    try:
        async with contextlib.AsyncExitStack() as stack:
            bots = []
            for i, port in enumerate(ports):
                env = {**webhook_env(port, SECRET), **shared}
                # the first registers the webhook with Telegram; the second does not
                env["BENCHBOARD_WEBHOOK_REGISTER"] = "true" if i == 0 else "false"
                tmp = tmp_path_factory.mktemp(f"instance{i}")
                bot = await stack.enter_async_context(
                    running_bot(api, tmp, key=KEY, env=env, wait=False)
                )
                await healthy(port, timeout=30.0)
                bots.append(bot)
            urls = [f"http://127.0.0.1:{p}/telegram" for p in ports]
            yield Pair(api, bots, urls, pg_url, backups)
            for bot in bots:
                check_log(bot)
    finally:
        await api.stop()


def _replies(pair: Pair, chat_id: int, since: int) -> list[dict[str, object]]:
    return [
        c
        for c in pair.api.calls[since:]
        if c["method"] == "sendMessage" and c["params"]["chat_id"] == chat_id
    ]


async def test_each_submission_is_stored_once_and_answered_once(pair: Pair) -> None:
    bot = type("B", (), {"api": pair.api})
    mark = pair.api.mark()
    chats = []
    for uid in range(9601, 9611):
        user, chat = private_user(bot, uid)  # type: ignore[arg-type]
        update = pair.api.make_text_update(chat, user, "\n".join(answers(KEY, correct=uid % 7 + 1)))
        assert await pair.deliver(update) == [200, 200]
        chats.append(chat["id"])
    for chat_id in chats:
        await pair.api.wait_call("sendMessage", chat_id=chat_id, since=mark, timeout=30)
    await asyncio.sleep(1.0)  # a second answer would have come by now
    assert all(len(_replies(pair, c, mark)) == 1 for c in chats)
    assert pair.count("SELECT COUNT(*) FROM submissions WHERE user_id BETWEEN 9601 AND 9610") == 10


async def test_the_send_rate_holds_for_both_instances_together(pair: Pair) -> None:
    bot = type("B", (), {"api": pair.api})
    mark = pair.api.mark()
    started = time.monotonic()
    chats = []
    for uid in range(9701, 9725):
        user, chat = private_user(bot, uid)  # type: ignore[arg-type]
        update = pair.api.make_text_update(chat, user, "\n".join(answers(KEY, correct=3)))
        # each update to one instance, alternating: both send at once
        url = pair.urls[uid % 2]
        assert await pair.api.post_raw_update(update, SECRET, url=url) == 200
        chats.append(chat["id"])
    for chat_id in chats:
        await pair.api.wait_call("sendMessage", chat_id=chat_id, since=mark, timeout=60)
    took = time.monotonic() - started
    # 24 replies at 8 a second for both together: about 3 s (each alone would allow 8)
    assert took >= (len(chats) - 1) / RATE * 0.85, took


async def test_a_key_set_through_one_instance_is_used_by_the_other(pair: Pair) -> None:
    bot = type("B", (), {"api": pair.api})
    new_key = make_key(seed=99)
    admin, chat = private_user(bot, ADMIN)  # type: ignore[arg-type]
    data = "".join(f"{q}:{o}\n" for q, o in new_key.items()).encode()
    msg = await pair.api.send_document(chat, admin, data, "A.txt", caption="/setkey primebench")
    await pair.api.reply_to(msg, timeout=30)  # through the registered webhook: the first
    # the second instance hears of it and loads the new key
    for _ in range(100):
        if "key version 2 now in use" in pair.bots[1].log():
            break
        await asyncio.sleep(0.1)
    assert "key version 2 now in use" in pair.bots[1].log()
    user, chat = private_user(bot, 9801)  # type: ignore[arg-type]
    update = pair.api.make_text_update(chat, user, "\n".join(answers(new_key, correct=50)))
    mark = pair.api.mark()
    assert await pair.api.post_raw_update(update, SECRET, url=pair.urls[1]) == 200
    reply = await pair.api.wait_call("sendMessage", chat_id=chat["id"], since=mark, timeout=30)
    assert "Correct: 50" in text_of(reply), text_of(reply)


async def _score(pair: Pair, chat: dict, user: dict, text: str, url: str) -> dict[str, object]:
    """Send ``text`` to the instance at ``url``; the bot's score reply."""
    update = pair.api.make_text_update(chat, user, text)
    mark = pair.api.mark()
    assert await pair.api.post_raw_update(update, SECRET, url=url) == 200
    return await pair.api.wait_call("sendMessage", chat_id=chat["id"], since=mark, timeout=30)


async def _publish(pair: Pair, chat: dict, user: dict, reply: dict, url: str) -> str:
    """Press Publish on a score reply, the press handled by the instance at ``url``;
    the bot's answer to the press."""
    sid = sid_of(text_of(reply))
    assert f"pub:{sid}" in buttons(reply)
    update = pair.api.make_callback_update(chat, user, reply, f"pub:{sid}")
    assert await pair.api.post_raw_update(update, SECRET, url=url) == 200
    answer = await pair.api.callback_answer(update["callback_query"], timeout=30)
    return str(answer["params"].get("text", ""))


async def test_the_daily_limit_holds_for_both_instances_together(pair: Pair) -> None:
    bot = type("B", (), {"api": pair.api})
    user, chat = private_user(bot, 9901)  # type: ignore[arg-type]
    for i in range(LIMIT):
        # scored by one instance, published through the other, alternately
        body = "\n".join(answers(KEY, correct=i + 1))
        reply = await _score(pair, chat, user, f"#think\nmodel: M{i}\n{body}", pair.urls[i % 2])
        # the count left, as either instance shows it, is the one both share
        assert f"{LIMIT - i} of {LIMIT} publications left today" in text_of(reply), text_of(reply)
        answer = await _publish(pair, chat, user, reply, pair.urls[(i + 1) % 2])
        assert "Published #" in answer, answer
        assert f"{LIMIT - i - 1} of {LIMIT}" in answer, answer
    # the allowance is used up, through both: each instance refuses the next one
    for i, url in enumerate(pair.urls):
        body = "\n".join(answers(KEY, correct=LIMIT + i + 1))
        reply = await _score(pair, chat, user, f"#think\nmodel: Over{i}\n{body}", url)
        assert f"0 of {LIMIT} publications left today" in text_of(reply), text_of(reply)[-400:]
        answer = await _publish(pair, chat, user, reply, url)
        assert answer.startswith(f"Daily limit reached: 0 of {LIMIT} publications"), answer
    published = pair.count(
        "SELECT COUNT(*) FROM submissions WHERE user_id = 9901 AND visibility = 'published'"
    )
    assert published == LIMIT


async def test_a_challenge_opened_through_one_instance_is_honoured_by_the_other(
    pair: Pair,
) -> None:
    """An opened challenge is in the database, not in the instance that opened it: the
    link is opened through the first instance, the answer scored by the second."""
    bot = type("B", (), {"api": pair.api})
    owner, chat = private_user(bot, 9921)  # type: ignore[arg-type]
    body = "\n".join(answers(KEY, correct=9, wrong=1))
    reply = await _score(pair, chat, owner, f"#think\nmodel: Champion\n{body}", pair.urls[0])
    mark = pair.api.mark()
    assert "Published #" in await _publish(pair, chat, owner, reply, pair.urls[0])
    msg = reply["result"]
    await pair.api.wait_for(  # the card, edited to its published form (its buttons)
        lambda c: (
            c["method"] == "editMessageText"
            and c["params"].get("message_id") == msg["message_id"]  # type: ignore[index]
            and c["params"].get("chat_id") == chat["id"]  # type: ignore[union-attr]
        ),
        timeout=30,
        since=mark,
    )
    mark = pair.api.mark()
    press = pair.api.make_callback_update(chat, owner, reply, f"chl:{sid_of(text_of(reply))}")
    assert await pair.api.post_raw_update(press, SECRET, url=pair.urls[0]) == 200
    link = await pair.api.wait_call("sendMessage", chat_id=chat["id"], since=mark, timeout=30)
    payload = re.search(r"\?start=(c_[A-Za-z0-9_-]{16})", text_of(link))
    assert payload is not None, text_of(link)
    friend, friend_chat = private_user(bot, 9922)  # type: ignore[arg-type]
    opened = await _score(pair, friend_chat, friend, f"/start {payload[1]}", pair.urls[0])
    # (the score to beat depends on the key in use: an earlier test sets a new one)
    beat = re.search(r"beat (\S+) by Champion on PrimeBench", text_of(opened))
    assert beat is not None, text_of(opened)
    body = "\n".join(answers(KEY, correct=10))
    answer = await _score(
        pair, friend_chat, friend, f"#think\nmodel: Challenger\n{body}", pair.urls[1]
    )
    assert f"Challenge: beat {beat[1]} by Champion" in text_of(answer), text_of(answer)
    again = await _score(
        pair, friend_chat, friend, f"#think\nmodel: Challenger\n{body}", pair.urls[0]
    )
    assert "Challenge: beat" not in text_of(again)


async def test_a_target_chosen_through_one_instance_is_the_others_too(pair: Pair) -> None:
    """Each instance has a data folder of its own (as in ``deploy/compose.scale.yaml``):
    an admin's choice of the day's target, made through one, is what the other shows
    and scores against."""
    bot = type("B", (), {"api": pair.api})
    admin, admin_chat = private_user(bot, ADMIN)  # type: ignore[arg-type]
    answer = await _score(pair, admin_chat, admin, "/natory set 7919", pair.urls[0])
    assert "set to 7919" in text_of(answer), text_of(answer)
    user, chat = private_user(bot, 9931)  # type: ignore[arg-type]
    for _ in range(100):  # the other instance hears of it at once
        today = text_of(await _score(pair, chat, user, "/natory", pair.urls[1]))
        if "7919" in today:
            break
        await asyncio.sleep(0.1)
    assert "7919" in today, today
    scored = text_of(await _score(pair, chat, user, "7919 - 1 + 1", pair.urls[1]))
    assert "7919" in scored, scored


def _backup_runs(pair: Pair) -> dict[str, list[tuple[int, str]]]:
    """Each backup run (its slot) the instances' logs show: which instance (0 or 1) did
    what (``written``, with the file, or ``left`` to the other)."""
    runs: dict[str, list[tuple[int, str]]] = {}
    for i, bot in enumerate(pair.bots):
        for line in bot.log().splitlines():
            if not line.startswith("{"):
                continue
            record = json.loads(line)
            if record.get("msg") == "backup written":
                runs.setdefault(record["slot"], []).append((i, record["path"]))
            elif record.get("msg") == "backup left to another instance":
                runs.setdefault(record["slot"], []).append((i, "left"))
    return runs


async def test_each_backup_run_is_written_by_one_instance(pair: Pair) -> None:
    # both timers fire at the same moments (multiples of the interval): wait for a few runs
    # both instances have reached
    for _ in range(300):
        runs = _backup_runs(pair)
        if sum(len(done) == 2 for done in runs.values()) >= 3:
            break
        await asyncio.sleep(0.1)
    both = {slot: done for slot, done in runs.items() if len(done) == 2}
    assert len(both) >= 3, runs
    for slot, done in both.items():
        # one instance wrote the run's backup; the other found it claimed
        assert sorted(i for i, _ in done) == [0, 1], (slot, done)
        assert sum(what != "left" for _, what in done) == 1, (slot, done)
    assert all(len(done) <= 2 for done in runs.values()), runs
    # one file for each run written, in the folder both write to; each a whole snapshot
    written = {what for done in _backup_runs(pair).values() for _, what in done} - {"left"}
    files = {str(p) for p in pair.backups.glob("benchboard-*.sqlite3")}
    assert files == written
    stored = pair.count("SELECT COUNT(*) FROM submissions")
    with contextlib.closing(sqlite3.connect(max(files))) as snapshot:
        assert 0 < snapshot.execute("SELECT COUNT(*) FROM submissions").fetchone()[0] <= stored


DUO = '''name = "duo"
title = "Duo"
kind = "choice"
options = 4
points = { right = 2, wrong = -1, none = 0 }
key = """
1:1
2:2
3:3
"""
'''


async def _added(pair: Pair, text: str) -> str:
    """An admin's ``/benchmark add`` document, through the registered webhook (the
    first instance); its answer."""
    bot = type("B", (), {"api": pair.api})
    admin, chat = private_user(bot, ADMIN)  # type: ignore[arg-type]
    mark = pair.api.mark()
    msg = await pair.api.send_document(
        chat, admin, text.encode(), "duo.toml", caption="/benchmark add"
    )
    said = text_of(await pair.api.reply_to(msg, timeout=30))
    if "Re-scoring" in said:  # its report, before anything else is asked
        await pair.api.wait_for(
            lambda c: c["method"] == "sendMessage" and "Re-score done" in str(c["params"]["text"]),
            timeout=30,
            since=mark,
        )
    return said


async def test_a_benchmark_added_through_one_instance_is_scored_by_the_other(pair: Pair) -> None:
    """A definition, then a corrected key, then new points, each sent to the first
    instance: the second scores with each at once (told by the first, or by the tag it
    does not know yet), never with what it held before."""
    bot = type("B", (), {"api": pair.api})
    user, chat = private_user(bot, 9951)  # type: ignore[arg-type]
    assert "Duo is a benchmark now" in await _added(pair, DUO)
    reply = await _score(pair, chat, user, "#duo\n1:1\n2:2\n3:4", pair.urls[1])
    assert "Duo" in text_of(reply) and "Final Score: 3" in text_of(reply), text_of(reply)
    said = await _added(pair, DUO.replace("3:3", "3:4"))
    assert "key version 2 is in use now" in said, said
    for _ in range(100):
        if "Duo key version 2 now in use" in pair.bots[1].log():
            break
        await asyncio.sleep(0.1)
    reply = await _score(pair, chat, user, "#duo\n1:1\n2:2\n3:4", pair.urls[1])
    assert "Final Score: 6" in text_of(reply), text_of(reply)
    said = await _added(pair, DUO.replace("3:3", "3:4").replace("right = 2", "right = 5"))
    assert "definition version 2" in said, said
    for _ in range(100):
        reply = await _score(pair, chat, user, "#duo\n1:1\n2:2\n3:4", pair.urls[1])
        if "Final Score: 15" in text_of(reply):
            break
        await asyncio.sleep(0.1)
    assert "Final Score: 15" in text_of(reply), text_of(reply)

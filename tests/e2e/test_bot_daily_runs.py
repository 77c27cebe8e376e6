"""Daily runs (issue 32), end to end: a providers file's ``[[daily]]`` entry makes the
bot run each model on the challenge's target of the day (once, however often it starts),
publish the attempts with the 🤖 mark, and tell admins what they cost."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.runs.fakeai import FakeAI, providers_toml

from .botapi import FakeBotAPI
from .botkit import BOT, Bot, check_log, private_user, text_of
from .harness import running_bot

ADMIN = 9201
DAILY = '[[daily]]\nbenchmark = "natory"\nmodels = ["local/m1"]\nattempts = 2\n'


def _the_target(request: dict[str, Any]) -> str:
    """An answer in prose ending with the target written out (valid, if trivial)."""
    found = re.search(r"exactly (\d+)", request["messages"][0]["content"])
    assert found
    return f"I could not find anything clever.\n\n{found[1]}"


def _env(folder: Path, fake: FakeAI, **toml: Any) -> dict[str, str]:
    """The bot's settings for runs against ``fake`` (its providers file written into
    ``folder``, with ``toml``'s options), ADMIN its admin."""
    providers = folder / "providers.toml"
    providers.write_text(providers_toml(fake.base_url, **toml))
    return {
        "BENCHBOARD_ADMINS": str(ADMIN),
        "BENCHBOARD_PROVIDERS": str(providers),
        "LOCAL_AI_KEY": "sk-local",
    }


def _cards(api: FakeBotAPI, chat: dict[str, Any], since: int = 0) -> int:
    """How many run cards were sent into ``chat`` (since the mark ``since``)."""
    return sum(
        1 for c in api.calls[since:]
        if c["method"] == "sendMessage" and c["params"].get("chat_id") == chat["id"]
        and c["ok"] and "run by Benchboard" in text_of(c)
    )  # fmt: skip


async def test_the_days_runs_are_made_once_published_and_costed(tmp_path: Path) -> None:
    async with FakeAI(key="sk-local", answer=_the_target) as fake:
        env = _env(tmp_path, fake, extra=DAILY)
        async with FakeBotAPI(bot_username=BOT) as api:
            async with running_bot(api, tmp_path, env=env) as proc:
                bot = Bot(api, proc, {})
                user, chat = private_user(bot, ADMIN)

                async def report() -> str:
                    return text_of(await bot.say(chat, user, "/runs"))

                await api.wait_until(lambda: fake.answered >= 2, 30, what="the daily calls")
                for _ in range(100):
                    costs = await report()
                    if "2 attempts" in costs:
                        break
                assert "local/m1 (daily): 2 attempts, $" in costs and "Total: $" in costs
                board = text_of(await bot.say(chat, user, "/leaderboard natory"))
                assert "local/m1" in board and "🤖" in board
            check_log(proc)
            # started again the same day: the day's runs are not made twice
            async with running_bot(api, tmp_path, env=env) as proc:
                bot = Bot(api, proc, {})
                user, chat = private_user(bot, ADMIN)
                assert "2 attempts" in text_of(await bot.say(chat, user, "/runs"))
                assert fake.answered == 2
            check_log(proc)


async def test_a_run_left_by_a_killed_bot_is_finished_after_the_restart(tmp_path: Path) -> None:
    async with FakeAI(key="sk-local", answer=_the_target, delay=30.0) as fake:
        env = _env(tmp_path, fake, timeout=60)
        async with FakeBotAPI(bot_username=BOT) as api:
            async with running_bot(api, tmp_path, env=env) as proc:
                bot = Bot(api, proc, {})
                user, chat = private_user(bot, ADMIN)
                progress = await bot.say(chat, user, "/run natory local/m1 2")
                await api.wait_until(lambda: fake.in_flight >= 2, 30, what="2 calls out")
                await proc.kill()  # mid-run: nothing finished, nothing released
            fake.delay = 0.0
            since = api.mark()
            async with running_bot(api, tmp_path, env=env) as proc:
                bot = Bot(api, proc, {})
                restarted = "the run's cards after the restart"
                await api.wait_until(lambda: _cards(api, chat, since) >= 2, 30, what=restarted)
                assert "2 of 2 attempts done" in text_of(bot.current(progress))
            check_log(proc)


async def test_a_run_asked_just_before_a_kill_is_queued_once(tmp_path: Path) -> None:
    # the run is queued, its progress reply still on its way when the bot dies: started
    # again, the bot handles the /run again, and finds the run it queued
    async with FakeAI(key="sk-local", answer=_the_target, delay=5.0) as fake:
        env = _env(tmp_path, fake, timeout=60)
        async with FakeBotAPI(bot_username=BOT) as api:
            async with running_bot(api, tmp_path, env=env) as proc:
                bot = Bot(api, proc, {})
                user, chat = private_user(bot, ADMIN)
                api.faults(methods=("sendMessage",), kinds=("timeout",), times=1, delay=30)
                await api.send_text(chat, user, "/run natory local/m1")
                for _ in range(600):  # the call is out (the attempt takes 5 s)
                    if fake.in_flight:
                        break
                    await asyncio.sleep(0.05)
                await proc.kill()
            api.clear_faults()
            fake.delay = 0.0
            async with running_bot(api, tmp_path, env=env) as proc:
                bot = Bot(api, proc, {})
                await api.wait_until(lambda: _cards(api, chat) >= 1, 30, what="the run's card")
                costs = text_of(await bot.say(chat, user, "/runs"))
                assert "local/m1 (chat): 1 attempt," in costs
                # the one call, made again
                assert _cards(api, chat) == 1 and len(fake.requests) == 2
            check_log(proc)


async def test_a_run_that_finished_as_the_bot_died_still_gets_its_cards(tmp_path: Path) -> None:
    # the run's last attempt is recorded, and the bot dies while it edits the progress
    # message (Telegram slow to answer), before the cards: started again, it sends them
    async with FakeAI(key="sk-local", answer=_the_target) as fake:
        env = _env(tmp_path, fake)
        async with FakeBotAPI(bot_username=BOT) as api:
            async with running_bot(api, tmp_path, env=env) as proc:
                bot = Bot(api, proc, {})
                user, chat = private_user(bot, ADMIN)
                api.faults(methods=("editMessageText",), kinds=("timeout",), times=1, delay=30)
                progress = await bot.say(chat, user, "/run natory local/m1")
                for _ in range(600):  # the progress edit is on its way
                    if api.fault_log:
                        break
                    await asyncio.sleep(0.05)
                await proc.kill()
            api.clear_faults()
            async with running_bot(api, tmp_path, env=env) as proc:
                bot = Bot(api, proc, {})
                await api.wait_until(lambda: _cards(api, chat) >= 1, 30, what="the run's card")
                assert "1 of 1 attempts done" in text_of(bot.current(progress))
                assert _cards(api, chat) == 1 and fake.answered == 1
            check_log(proc)


async def test_cards_claimed_by_a_bot_killed_before_it_sent_them_are_sent_after(
    tmp_path: Path,
) -> None:
    # the run is done and its cards claimed for sending when the bot dies before it sent
    # them: started again, it sends them, each once
    async with FakeAI(key="sk-local", answer=_the_target, delay=1.0) as fake:
        env = _env(tmp_path, fake)
        async with FakeBotAPI(bot_username=BOT) as api:
            async with running_bot(api, tmp_path, env=env) as proc:
                bot = Bot(api, proc, {})
                user, chat = private_user(bot, ADMIN)
                progress = await bot.say(chat, user, "/run natory local/m1 2")
                # Telegram asks to wait before a card: the bot is killed meanwhile
                api.faults(methods=("sendMessage",), kinds=("429",), times=1, retry_after=10)
                await api.wait_until(lambda: bool(api.fault_log), 30, what="a card out")
                await asyncio.sleep(1.0)  # (the other, sent beside it, is marked sent)
                await proc.kill()
            api.clear_faults()
            assert _cards(api, chat) < 2  # (the other card may have gone out beside it)
            async with running_bot(api, tmp_path, env=env) as proc:
                bot = Bot(api, proc, {})
                await api.wait_until(lambda: _cards(api, chat) >= 2, 30, what="2 cards")
                await asyncio.sleep(1.0)
                assert _cards(api, chat) == 2 and fake.answered == 2
                assert "2 of 2 attempts done" in text_of(bot.current(progress))
            check_log(proc)  # (a 429 waited out is no error)


async def test_a_start_after_the_day_turned_tells_the_admins_yesterdays_costs(
    tmp_path: Path,
) -> None:
    # the bot was down when the UTC day turned: its start tells what yesterday's runs cost
    async with FakeAI(key="sk-local", answer=_the_target) as fake:
        env = _env(tmp_path, fake)
        async with FakeBotAPI(bot_username=BOT) as api:
            async with running_bot(api, tmp_path, env=env) as proc:
                bot = Bot(api, proc, {})
                user, chat = private_user(bot, ADMIN)
                await bot.say(chat, user, "/run natory local/m1")
                await api.wait_until(lambda: _cards(api, chat) >= 1, 30, what="the run's card")
            # (as if it was made yesterday, before the bot went down)
            yesterday = datetime.now(UTC) - timedelta(days=1)
            moved = int(yesterday.timestamp() * 1000)
            with sqlite3.connect(tmp_path / "data" / "benchboard.sqlite3") as db:
                db.execute("UPDATE runs SET created_at = ?, finished_at = ?", (moved, moved))
                db.execute("UPDATE run_attempts SET finished_at = ?", (moved,))
            since = api.mark()
            async with running_bot(api, tmp_path, env=env) as proc:
                told = await api.wait_for(
                    lambda c: c["method"] == "sendMessage" and c["params"].get("chat_id") == ADMIN
                    and "Runs by Benchboard on" in text_of(c),
                    timeout=30, since=since,
                )  # fmt: skip
                assert yesterday.date().isoformat() in text_of(told)
                assert "local/m1 (chat): 1 attempt, $" in text_of(told)
            check_log(proc)
            since = api.mark()
            async with running_bot(api, tmp_path, env=env) as proc:  # told once
                bot = Bot(api, proc, {})
                await bot.say(chat, user, "/runs")
                assert not [
                    c for c in api.calls[since:] if c["method"] == "sendMessage"
                    and "Runs by Benchboard on " + yesterday.date().isoformat() in text_of(c)
                ]  # fmt: skip

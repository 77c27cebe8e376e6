"""A re-score's notices outlive the process that made them: a corrected key loaded and
re-scored from the command line while the bot is down (``benchboard data load``, then
``benchboard rescore``) tells every submitter once, when the bot next starts; one who
blocked the bot is passed over (403) without an error, and a later start tells nobody
again."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from tests.cli.test_cli import run_cli_async

from .botapi import FakeBotAPI
from .botkit import BOT, KEY, Bot, answers, check_log, private_user, submission_id, text_of
from .harness import key_text, running_bot

USERS = (9501, 9502, 9503)
BLOCKED = 9503


def told(api: FakeBotAPI, since: int) -> list[int]:
    return [
        int(c["params"]["chat_id"])
        for c in api.calls_of("sendMessage")
        if c["index"] >= since and "re-scored your" in str(c["params"]["text"])
    ]


async def _publish_one_each(bot: Bot) -> None:
    """Each of :data:`USERS` publishes a result (M0, M1, …; 30, 40, … right)."""
    for n, uid in enumerate(USERS):
        user, chat = private_user(bot, uid)
        lines = answers(KEY, correct=30 + 10 * n, wrong=20)
        reply = await bot.say(chat, user, "\n".join([f"model: M{n}", "#default", *lines]))
        sid = submission_id(text_of(reply))
        await bot.press(chat, user, reply, f"pub:{sid}")


async def test_a_command_line_rescore_is_told_by_the_next_start(tmp_path: Path) -> None:
    async with FakeBotAPI(bot_username=BOT) as api:
        async with running_bot(api, tmp_path, key=KEY) as proc:
            bot = Bot(api, proc, KEY)
            await _publish_one_each(bot)
        check_log(proc)
        api.block_bot(BLOCKED)
        # the bot is down: a corrected key (questions 1 to 20 had the wrong option)
        corrected = {q: (o % 4 + 1 if q <= 20 else o) for q, o in KEY.items()}
        (tmp_path / "A.txt").write_text(key_text(corrected))
        env = {"BENCHBOARD_FETCH_ON_START": "false"}
        code, out, err = await run_cli_async(
            "data", "load", "primebench", "--key", "A.txt", cwd=tmp_path, env=env
        )
        assert code == 0, err
        code, out, err = await run_cli_async("rescore", "primebench", cwd=tmp_path, env=env)
        assert code == 0, err
        assert "3 users whose published results changed get a notice from the bot" in out
        since = api.mark()
        async with running_bot(api, tmp_path) as proc:
            await api.wait_for(
                lambda c: c["method"] == "sendMessage" and c["params"]["chat_id"] == USERS[1],
                timeout=30,
                since=since,
            )
            await asyncio.sleep(1)
        check_log(proc)
        assert sorted(told(api, since)) == sorted(USERS)  # the blocked user: tried, 403
        again = api.mark()
        async with running_bot(api, tmp_path) as proc:
            await asyncio.sleep(2)
        check_log(proc)
        assert told(api, again) == []


async def _stopped_part_way(data_dir: Path, key: dict[int, int]) -> None:
    """What a bot killed during a corrected key's re-score leaves: the key in use, the
    scores before kept, one submission re-scored of three."""
    from bot.core import keys, notices
    from bot.core.rescore import rescore
    from bot.core.services import opened
    from bot.settings import Settings
    from tests.bot.core.test_admin import Crashing

    async with opened(Settings(data_dir=data_dir, fetch_on_start=False)) as services:
        await keys.load_key(services, "primebench", key_text(key).encode(), "test")
        await notices.before(services, "primebench")
        with contextlib.suppress(RuntimeError):  # the process died
            await rescore(services.store, "primebench", batch_size=1,
                          benchmarks=lambda _: Crashing(1))  # fmt: skip
        assert await services.store.pending_rescore("primebench") == 2


async def test_a_rescore_stopped_part_way_is_finished_at_the_next_start(tmp_path: Path) -> None:
    admin = 9599
    env = {"BENCHBOARD_ADMINS": str(admin)}
    async with FakeBotAPI(bot_username=BOT) as api:
        async with running_bot(api, tmp_path, key=KEY, env=env) as proc:
            bot = Bot(api, proc, KEY)
            private_user(bot, admin)
            await _publish_one_each(bot)
        check_log(proc)
        corrected = {q: (o % 4 + 1 if q <= 20 else o) for q, o in KEY.items()}
        await _stopped_part_way(tmp_path / "data", corrected)
        since = api.mark()
        async with running_bot(api, tmp_path, env=env) as proc:
            report = await api.wait_for(
                lambda c: c["method"] == "sendMessage" and c["params"]["chat_id"] == admin,
                timeout=30,
                since=since,
            )
            await asyncio.sleep(1)
        check_log(proc)
        text = text_of(report)
        assert text.startswith("A re-score that a restart stopped part way is finished:")
        assert "3 of 3 submissions" in text and "Top before" not in text
        assert "3 people were told of their changed results." in text
        assert sorted(told(api, since)) == sorted(USERS)


async def test_a_rescore_waits_for_the_one_another_process_runs_and_says_so(
    tmp_path: Path,
) -> None:
    """/setkey while another process (``benchboard rescore``, another instance) re-scores
    the benchmark: the admin is told it waits; it runs when that one ends; its user is
    told once."""
    from storage import Store

    admin = 9598
    env = {"BENCHBOARD_ADMINS": str(admin)}
    async with FakeBotAPI(bot_username=BOT) as api:
        async with running_bot(api, tmp_path, key=KEY, env=env) as proc:
            bot = Bot(api, proc, KEY)
            user, chat = private_user(bot, USERS[0])
            lines = answers(KEY, correct=40, wrong=20)
            reply = await bot.say(chat, user, "\n".join(["model: M", "#default", *lines]))
            await bot.press(chat, user, reply, f"pub:{submission_id(text_of(reply))}")
            store = await Store.open(tmp_path / "data" / "benchboard.sqlite3")
            try:
                assert await store.take_lease("rescore.primebench", "cli", ttl_ms=120_000)
                admin_user, admin_chat = private_user(bot, admin)
                since = api.mark()
                corrected = {q: (o % 4 + 1 if q <= 20 else o) for q, o in KEY.items()}
                doc = await api.send_document(
                    admin_chat, admin_user, key_text(corrected).encode(), "A.txt",
                    caption="/setkey primebench",
                )  # fmt: skip
                await api.reply_to(doc, timeout=20)
                said = await api.wait_for(
                    lambda c: (
                        c["method"] == "sendMessage"
                        and "Another re-score" in str(c["params"]["text"])
                    ),
                    timeout=20,
                    since=since,
                )
                assert text_of(said) == (
                    "Another re-score of PrimeBench is running; this one starts when it ends."
                )
                await asyncio.sleep(2)
                assert told(api, since) == []
                await store.drop_lease("rescore.primebench", "cli")
            finally:
                await store.close()
            await api.wait_for(
                lambda c: (
                    c["method"] == "sendMessage" and "Re-score done" in str(c["params"]["text"])
                ),
                timeout=30,
                since=since,
            )
            await asyncio.sleep(1)
            assert told(api, since) == [USERS[0]]
        check_log(proc)

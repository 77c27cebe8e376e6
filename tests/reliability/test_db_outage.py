"""PostgreSQL killed for 8 s in the middle of a burst (a cluster the test starts itself,
then starts again on the same data folder and port): nothing Telegram handed over is
lost. Every submission is answered once and stored once, every Publish press answered
and published, nobody is told "nothing was saved", each update gets at most one
"taking longer than usual" note, and every done-mark lands once the database is back
(a restart answers nothing again)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.botapi import FakeBotAPI, free_port
from tests.e2e.botkit import KEY, answers, button, text_of
from tests.e2e.harness import running_bot, webhook_env
from tests.reliability.burst import SCORE, SLOW
from tests.reliability.outage import run_outage
from tests.reliability.pgcluster import pg_cluster


@pytest.mark.parametrize("mode", ["polling", "webhook"])
async def test_postgres_killed_for_8_s_mid_burst_loses_nothing(tmp_path: Path, mode: str) -> None:
    env = webhook_env(free_port(), "outage") if mode == "webhook" else None
    async with pg_cluster() as cluster, FakeBotAPI() as api:
        run = await run_outage(
            api,
            tmp_path,
            cluster,
            users=20,
            submissions=200,
            presses=40,
            kill_at=0.3,
            down_for=8.0,
            rate=None,
            env=env,
            timeout=90.0,
        )
    out = run.burst
    line = out.line(f"postgres down 8 s, {mode}") + (
        f"  unfinished after {run.unfinished_after}  resent after restart "
        f"{run.resent_after_restart}  {out.notes}"
    )
    print(line)
    assert out.notes == [], line
    assert out.lost == 0 and out.stored == 200, line
    assert out.presses_answered == 40 and out.published == 40, line
    assert out.nothing_saved == 0 and out.went_wrong == 0, line
    assert out.slow_notes_max <= 1, line
    assert run.unfinished_after == 0
    assert run.resent_after_restart == 0


#: Long enough that the pool's own attempts to reconnect back off past the restart
#: (1, 2, 4, 8, 16, 32 s apart: none between about 31 s and 63 s after the kill).
LONG_OUTAGE = 40.0
#: What a user waits for their answer once the server is back (the prober's pause and
#: one probe; before, the pool's next attempt: some 20 s after this outage).
BACK_WITHIN = 12.0


def scored(call: dict[str, Any]) -> bool:
    return SCORE in str(call["params"].get("text", ""))


async def test_the_bot_answers_within_seconds_of_a_long_outages_end(tmp_path: Path) -> None:
    async with pg_cluster() as cluster, FakeBotAPI() as api:
        env = {"BENCHBOARD_DB": cluster.url}
        async with running_bot(api, tmp_path, key=KEY, env=env):
            user = api.user(9401, "Patient")
            chat = api.private_chat(user)
            warm = await api.send_text(chat, user, "/help")
            await api.reply_to(warm, timeout=30)
            await cluster.kill()
            text = "\n".join(["model: patient", "#think", *answers(KEY, correct=12)])
            mark = api.mark()
            await api.send_text(chat, user, text)
            await asyncio.sleep(LONG_OUTAGE)
            assert not [c for c in api.calls[mark:] if c["method"] == "sendMessage" and scored(c)]
            await cluster.start()
            back = time.monotonic()
            card = await api.wait_for(
                lambda c: c["method"] == "sendMessage" and scored(c),
                timeout=90,
                since=mark,
            )
            took = time.monotonic() - back
            print(f"\nanswered {took:.1f} s after a {LONG_OUTAGE:.0f} s outage ended")
            assert took <= BACK_WITHIN, took
            assert "Correct: 12" in text_of(card)


#: Seconds within which a user hears that the database is away (a press: its answer).
TOLD_WITHIN = 8.0


async def test_with_the_shared_send_rate_the_outage_is_told_at_once(tmp_path: Path) -> None:
    """On PostgreSQL every call reserves a slot of the send rate shared with the other
    instances, in the database: while it is down, the note and a press's answer must
    not wait for the pool's half minute (Telegram refuses a press answered that late)."""
    async with pg_cluster() as cluster, FakeBotAPI() as api:
        env = {"BENCHBOARD_DB": cluster.url, "BENCHBOARD_RATE_OVERALL": "30"}
        async with running_bot(api, tmp_path, key=KEY, env=env) as bot:
            user = api.user(9402, "Quick")
            chat = api.private_chat(user)
            text = "\n".join(["model: quick", "#think", *answers(KEY, correct=12)])
            card = await api.reply_to(await api.send_text(chat, user, text), timeout=30)
            await cluster.kill()
            started = time.monotonic()
            mark = api.mark()
            await api.send_text(chat, user, text.replace("quick", "quicker"))
            await api.wait_for(
                lambda c: c["method"] == "sendMessage" and SLOW in str(c["params"].get("text")),
                timeout=60,
                since=mark,
            )
            told = time.monotonic() - started
            started = time.monotonic()
            query = await api.press_button(chat, user, card["result"], button(card, "Publish"))
            answer = await api.callback_answer(query, timeout=60)
            pressed = time.monotonic() - started
            print(f"\npress answered after {pressed:.1f} s, message told after {told:.1f} s")
            assert SLOW in str(answer["params"].get("text")), answer
            assert pressed <= TOLD_WITHIN and told <= TOLD_WITHIN, (pressed, told)
            await cluster.start()
        # the intake's retries while it lasted are a transient fault's: warnings
        errors = [
            line
            for line in bot.log().splitlines()
            if '"level": "ERROR"' in line and '"logger": "benchboard.intake"' in line
        ]
        assert errors == [], errors[0][:2000]


def _cards_by_model(api: FakeBotAPI, chat_id: int) -> dict[str, int]:
    """The score cards in ``chat_id``: the model each is about -> how many."""
    seen: dict[str, int] = {}
    for m in api.messages_in(chat_id):
        text = str(m.get("text") or "")
        if SCORE in text:
            model = text.split("Model: ", 1)[1].split("\n", 1)[0]
            seen[model] = seen.get(model, 0) + 1
    return seen


def _notes(api: FakeBotAPI, chat_id: int) -> int:
    return sum(1 for m in api.messages_in(chat_id) if SLOW in str(m.get("text") or ""))


@pytest.mark.parametrize("mode", ["polling", "webhook"])
async def test_one_note_per_chat_per_outage_and_every_message_answered_once(
    tmp_path: Path, mode: str
) -> None:
    """A user who sends five submissions while the database is down gets one "taking
    longer" note, not five; once it is back each submission gets its card, once. The
    next outage is told again."""
    env = webhook_env(free_port(), "notes") if mode == "webhook" else {}
    async with pg_cluster() as cluster, FakeBotAPI() as api:
        env = {**env, "BENCHBOARD_DB": cluster.url}
        async with running_bot(api, tmp_path, key=KEY, env=env):
            user = api.user(9403, "Eager")
            other = api.user(9404, "Other")
            chat, other_chat = api.private_chat(user), api.private_chat(other)
            await api.reply_to(await api.send_text(chat, user, "/help"), timeout=30)
            await cluster.kill()
            for n in range(5):
                text = "\n".join([f"model: eager-{n}", "#think", *answers(KEY, correct=10 + n)])
                await api.send_text(chat, user, text)
                await asyncio.sleep(1.5)
            other_text = "\n".join(["model: other", "#think", *answers(KEY, correct=9)])
            await api.send_text(other_chat, other, other_text)
            await asyncio.sleep(6)  # what each message would be told is out by now
            assert _notes(api, chat["id"]) == 1, api.describe(40)
            assert _notes(api, other_chat["id"]) == 1, api.describe(40)
            await cluster.start()
            want = {f"eager-{n}" for n in range(5)}
            await api.wait_until(
                lambda: (
                    set(_cards_by_model(api, chat["id"])) >= want
                    and "other" in _cards_by_model(api, other_chat["id"])
                ),
                90,
                what="a card for every submission sent during the outage",
            )
            await asyncio.sleep(3)  # a second card would be out by now
            cards = _cards_by_model(api, chat["id"])
            assert cards == dict.fromkeys(want, 1), cards
            assert _cards_by_model(api, other_chat["id"]) == {"other": 1}
            assert _notes(api, chat["id"]) == 1
            # the next outage is another: told again, once
            await cluster.kill()
            text = "\n".join(["model: eager-again", "#think", *answers(KEY, correct=20)])
            await api.send_text(chat, user, text)
            await api.wait_until(lambda: _notes(api, chat["id"]) == 2, 30, what="a second note")
            await cluster.start()
            await api.wait_until(
                lambda: "eager-again" in _cards_by_model(api, chat["id"]),
                90,
                what="the card of the submission sent during the second outage",
            )
            assert _notes(api, chat["id"]) == 2


async def test_the_bot_waits_for_a_database_down_at_start(tmp_path: Path) -> None:
    """PostgreSQL down when the bot starts is a transient fault: the bot keeps trying
    (a warning each time, never an error or an exit), answers what was sent meanwhile
    once the database is up, and a SIGTERM while it waits stops it at once."""
    async with pg_cluster() as cluster, FakeBotAPI() as api:
        await cluster.kill()
        env = {"BENCHBOARD_DB": cluster.url}
        async with running_bot(api, tmp_path, key=KEY, env=env, wait=False) as bot:
            await api.wait_polling(timeout=30)  # updates are fetched (not confirmed) meanwhile
            user = api.user(9405, "Early")
            chat = api.private_chat(user)
            text = "\n".join(["model: early", "#think", *answers(KEY, correct=11)])
            await api.send_text(chat, user, text)
            deadline = time.monotonic() + 30
            while bot.log().count("does not answer yet") < 2:  # 1 s apart, then 2 s
                assert time.monotonic() < deadline, bot.log()[-2000:]
                await asyncio.sleep(0.1)
            assert bot.proc.returncode is None, bot.log()[-2000:]
            await cluster.start()
            card = await api.wait_for(
                lambda c: c["method"] == "sendMessage" and scored(c), timeout=90
            )
            assert "Correct: 11" in text_of(card)
        log = bot.log()
        assert '"level": "ERROR"' not in log and "Traceback" not in log, log[-3000:]
        assert not [line for line in log.splitlines() if line.startswith("benchboard: ")]
        # stopped while it waits: at once, cleanly
        await cluster.kill()
        async with running_bot(api, tmp_path, key=KEY, env=env, wait=False) as bot:
            before = len(log)  # the log goes on from the first process's
            deadline = time.monotonic() + 30
            while "does not answer yet" not in bot.log()[before:]:
                assert time.monotonic() < deadline, bot.log()[before:][-2000:]
                await asyncio.sleep(0.1)
            started = time.monotonic()
            bot.proc.terminate()
            code = await asyncio.wait_for(bot.proc.wait(), 30)
            assert code == 0 and time.monotonic() - started < 5, (code, bot.log()[-2000:])


async def test_chatter_in_a_group_gets_no_note_during_an_outage(tmp_path: Path) -> None:
    """In a group (where the bot may see every message), only what is addressed to the
    bot (a command, a reply to it) gets the "taking longer" note while the database is
    away; people talking among themselves are not answered."""
    async with pg_cluster() as cluster, FakeBotAPI() as api:
        env = {"BENCHBOARD_DB": cluster.url}
        async with running_bot(api, tmp_path, key=KEY, env=env):
            chatty, asking = api.user(9406, "Chatty"), api.user(9407, "Asking")
            group = api.group_chat(-100940, "Outage group")
            await api.add_bot(group, asking)
            board = await api.send_text(group, asking, "/leaderboard")
            await api.reply_to(board, timeout=30)
            await cluster.kill()
            await api.send_text(group, chatty, "is anyone around tonight?")
            await api.send_text(group, chatty, "the weather is nice")
            command = await api.send_text(group, asking, "/leaderboard")
            await asyncio.sleep(8)
            notes = [m for m in api.messages_in(group["id"]) if SLOW in str(m.get("text"))]
            assert len(notes) == 1, [m.get("reply_to_message") for m in notes]
            # (to the command, or to the first one, still being finished at the kill)
            assert notes[0]["reply_to_message"]["from"]["id"] == asking["id"], notes[0]
            await cluster.start()
            await api.wait_until(
                lambda: sum(
                    1 for c in api.calls_of("sendMessage")
                    if c["ok"] and api._reply_target(c["params"]) == command["message_id"]
                ) >= 1,
                60,
                what="the command answered once the database is back",
            )  # fmt: skip

"""SIGKILL during a burst, restart on the same database: nothing Telegram delivered is
lost, nothing is stored twice, and the replies sent again are bounded by what was in
flight when the process died."""

from __future__ import annotations

import asyncio
import sqlite3
from math import nan as NAN
from pathlib import Path

import pytest

from tests.e2e.botapi import FakeBotAPI
from tests.e2e.botkit import KEY, answers, submission_id, text_of
from tests.e2e.harness import running_bot
from tests.reliability.burst import run_burst, unfinished_in, wait


@pytest.mark.parametrize(
    ("kill_at", "rate"), [(0.5, None), (0.2, 60.0)], ids=["unthrottled-50%", "paced-20%"]
)
async def test_kill_during_a_burst_loses_nothing(
    tmp_path: Path, kill_at: float, rate: float | None
) -> None:
    async with FakeBotAPI() as api:
        out = await run_burst(
            api, tmp_path, users=15, submissions=150, presses=15, kill_at=kill_at, rate=rate
        )
    assert out.notes == []
    assert out.tried == 150
    assert out.lost == 0, out.line("burst")
    assert out.stored == 150  # each submission stored once
    assert out.presses_answered == 15 and out.published == 15
    assert out.went_wrong == 0
    assert out.unfinished_at_kill is not None
    assert out.duplicated <= out.unfinished_at_kill, out.line("burst")


def _stored(data_dir: Path) -> int:
    path = data_dir / "benchboard.sqlite3"
    if not path.exists():
        return 0
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return int(db.execute("SELECT count(*) FROM submissions").fetchone()[0])


async def test_a_stored_score_whose_reply_was_being_retried_is_answered_after_restart(
    tmp_path: Path,
) -> None:
    async with FakeBotAPI() as api:
        user = api.user(91_001, "Crash")
        chat = api.private_chat(user)
        # every reply fails with 502: the bot keeps retrying it
        api.faults(methods=("sendMessage",), kinds=("502",), probability=1.0)
        async with running_bot(api, tmp_path, key=KEY) as bot:
            text = "\n".join(["model: crash", *answers(KEY, correct=4)])
            await api.send_text(chat, user, text)
            await wait(lambda: _stored(bot.data_dir) == 1, 20, "the submission stored")
            await wait(lambda: len(api.fault_log) >= 2, 20, "a retried reply")
            await bot.kill()
            assert unfinished_in(bot.data_dir) == 1
        api.clear_faults()
        mark = api.mark()
        async with running_bot(api, tmp_path, key=KEY, wait=False):
            reply = await api.wait_call(
                "sendMessage", chat_id=chat["id"], since=mark, ok=True, timeout=30
            )
            assert "Correct: 4" in text_of(reply)
            await asyncio.sleep(0.5)
        cards = [m for m in api.messages_in(chat["id"]) if "Final Score" in str(m.get("text"))]
        assert len(cards) == 1
        assert submission_id(text_of(reply)) == 1
        assert _stored(tmp_path / "data") == 1
        assert unfinished_in(tmp_path / "data") == 0


async def test_a_split_paste_cut_by_a_crash_is_one_submission_after_restart(
    tmp_path: Path,
) -> None:
    """The bot dies while it waits for the rest of a paste Telegram split; the rest
    arrives while it is down. After the restart the paste is one submission, one card."""
    body = answers(KEY, correct=104)
    first_lines = ["model: split crash", *body[:40]]
    while len("\n".join(first_lines)) < 4000:
        first_lines.insert(1, "thinking thinking thinking thinking thinking")
    first, second = "\n".join(first_lines), "\n".join(body[40:])
    async with FakeBotAPI() as api:
        user = api.user(91_002, "Split")
        chat = api.private_chat(user)
        async with running_bot(api, tmp_path, key=KEY) as bot:
            await api.send_text(chat, user, first)
            # the first part kept; its handler waits for the rest
            await wait(lambda: unfinished_in(bot.data_dir) == 1, 20, "the first part kept")
            await bot.kill()
        await api.send_text(chat, user, second)  # the rest arrives while the bot is down
        assert _stored(tmp_path / "data") == 0
        mark = api.mark()
        async with running_bot(api, tmp_path, key=KEY, wait=False):
            reply = await api.wait_call(
                "sendMessage", chat_id=chat["id"], since=mark, ok=True, timeout=30
            )
            await wait(lambda: unfinished_in(tmp_path / "data") == 0, 20, "both parts done")
            await asyncio.sleep(0.5)
        plain = text_of(reply)
        assert "Correct: 104" in plain and "Unanswered: 0" in plain
        cards = [m for m in api.messages_in(chat["id"]) if "Final Score" in str(m.get("text"))]
        assert len(cards) == 1
        assert _stored(tmp_path / "data") == 1


async def test_an_update_ptb_cannot_read_is_kept_done_and_holds_nothing_up(
    tmp_path: Path,
) -> None:
    async with FakeBotAPI() as api:
        user = api.user(91_002, "Odd")
        chat = api.private_chat(user)
        async with running_bot(api, tmp_path, key=KEY) as bot:
            # a message whose sender is no object: PTB raises reading it
            odd = {"message_id": 7, "date": 0, "chat": chat, "from": 7, "text": "hi"}
            unreadable = await api.send_raw_update("message", odd)
            text = "\n".join(["model: after", *answers(KEY, correct=3)])
            reply = await api.reply_to(await api.send_text(chat, user, text), timeout=20)
            assert "Correct: 3" in text_of(reply)
            await wait(lambda: unfinished_in(bot.data_dir) == 0, 10, "both updates done")
        path = tmp_path / "data" / "benchboard.sqlite3"
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            row = db.execute(
                "SELECT done_at FROM intake WHERE update_id = ?", (unreadable["update_id"],)
            ).fetchone()
        assert row is not None and row[0] is not None  # kept, and marked done
        assert "malformed update ignored" in bot.log()


async def test_updates_the_store_cannot_take_as_given_hold_nothing_up(tmp_path: Path) -> None:
    """JSON can carry what the database's text cannot (a lone surrogate), Python reads
    NaN, and an update id may be beyond 64 bits: none of them stops its batch (the bot
    once fetched such a batch again and again, answering nobody)."""
    async with FakeBotAPI() as api:
        user = api.user(91_003, "Odd")
        chat = api.private_chat(user)
        async with running_bot(api, tmp_path, key=KEY) as bot:
            lone = await api.send_raw_update(
                "message",
                {"message_id": 70, "date": 0, "chat": chat, "from": user, "text": "1:3\ud800"},
            )
            await api.send_raw_update(
                "message",
                {"message_id": 71, "date": 0, "chat": chat, "from": user, "text": "hi", "x": NAN},
            )
            message = {"message_id": 72, "date": 0, "chat": chat, "from": user, "text": "hi"}
            await api.queue_update({"update_id": 2**70, "message": message})
            await api.send_text(chat, user, "\n".join(["model: after", *answers(KEY, correct=3)]))

            def replies() -> list[str]:
                calls = api.calls_of("sendMessage")
                return [text_of(c) for c in calls if c["params"]["chat_id"] == chat["id"]]

            # the surrogate one and the NaN one are answered like any other text
            await wait(lambda: len(replies()) == 3, 20, "three replies")
            assert sum("Correct: 3" in r for r in replies()) == 1, replies()
            await wait(lambda: unfinished_in(bot.data_dir) == 0, 10, "every update done")
        path = tmp_path / "data" / "benchboard.sqlite3"
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            kept = db.execute("SELECT COUNT(*) FROM intake").fetchone()[0]
        assert kept == 3  # the surrogate one, the NaN one and the last; not 2**70
        assert lone["update_id"] < 2**63
        assert "updates without a usable id ignored" in bot.log()

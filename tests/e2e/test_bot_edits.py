"""Edited messages: the stored score stands, and the user is told how to re-score."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .botapi import FakeBotAPI
from .harness import make_key, running_bot


async def test_an_edit_is_not_rescored_and_the_user_is_told(
    botapi: FakeBotAPI, tmp_path: Path
) -> None:
    key = make_key()
    async with running_bot(botapi, tmp_path, key=key) as bot:
        ann = botapi.user(4001, "Ann")
        chat = botapi.private_chat(ann)
        message = await botapi.send_text(chat, ann, f"1:{key[1]}")
        first = await botapi.reply_to(message, timeout=20)
        assert "Correct: 1" in first["params"]["text"]
        since = botapi.mark()
        await botapi.edit_text(message, f"1:{key[1] % 4 + 1}")
        call = await botapi.wait_call("sendMessage", chat_id=chat["id"], since=since, timeout=20)
        assert "not scored again" in call["params"]["text"]
        assert "Final Score" not in call["params"]["text"]
    db = sqlite3.connect(bot.data_dir / "benchboard.sqlite3")
    rows = list(db.execute("SELECT score FROM submissions"))
    db.close()
    assert rows == [(1.0,)]

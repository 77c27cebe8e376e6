"""Hostile uploads: the largest file Telegram lets a bot download, scored off the event
loop, while other users keep getting answers."""

from __future__ import annotations

import time
from pathlib import Path

from .botapi import FakeBotAPI
from .harness import make_key, running_bot


async def test_a_19_mb_one_line_file_is_scored_while_others_are_served(
    botapi: FakeBotAPI, tmp_path: Path
) -> None:
    key = make_key()
    line = " ".join(f"{q}:{(q % 4) + 1}" for q in range(1, 105)) + " junk "
    body = (line * (19_000_000 // len(line))).encode()
    async with running_bot(botapi, tmp_path, key=key) as bot:
        heavy_user = botapi.user(4101, "Heavy")
        heavy_chat = botapi.private_chat(heavy_user)
        light_user = botapi.user(4102, "Light")
        light_chat = botapi.private_chat(light_user)
        heavy = await botapi.send_document(heavy_chat, heavy_user, body, "huge.txt")
        start = time.monotonic()
        light = await botapi.send_text(light_chat, light_user, f"1:{key[1]}")
        light_reply = await botapi.reply_to(light, timeout=60)
        light_seconds = time.monotonic() - start
        heavy_reply = await botapi.reply_to(heavy, timeout=120)
        heavy_seconds = time.monotonic() - start
        text = heavy_reply["params"]["text"]
        assert "Total Questions: 104" in text
        assert "Invalid lines (1):" in text
        assert "Correct: 1" in light_reply["params"]["text"]
        # the small submission was not stuck behind the big one
        assert light_seconds < heavy_seconds
        assert "Traceback" not in bot.log()

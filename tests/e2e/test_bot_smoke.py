from __future__ import annotations

from pathlib import Path

from .botapi import FakeBotAPI
from .harness import make_key, running_bot


async def test_paste_gets_a_breakdown(botapi: FakeBotAPI, tmp_path: Path) -> None:
    key = make_key()
    async with running_bot(botapi, tmp_path, key=key):
        ann = botapi.user(1001, "Ann")
        chat = botapi.private_chat(ann)
        msg = await botapi.send_text(chat, ann, f"model: gpt-6 luna\n#think\n1:{key[1]}\n2:9\nQ3:1")
        call = await botapi.reply_to(msg, timeout=20)
        text = call["result"]["text"]
        print(text)
        assert "Correct: 1" in text
        assert botapi.errors() == []

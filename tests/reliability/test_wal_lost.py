"""The SQLite database's ``-wal`` file deleted by hand while the bot runs: what was
committed before and after is kept even though the bot then crashes (SIGKILL), and
another process can read the database meanwhile."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

from tests.e2e.botapi import FakeBotAPI
from tests.e2e.botkit import KEY, answers, text_of
from tests.e2e.harness import running_bot


def _count(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute("SELECT count(*) FROM submissions").fetchone()[0])
    finally:
        con.close()


async def test_a_deleted_wal_loses_nothing_even_through_a_crash(tmp_path: Path) -> None:
    async with FakeBotAPI() as api:
        user = api.user(9701, "Wal")
        chat = api.private_chat(user)

        def text(model: str) -> str:
            return "\n".join([f"model: {model}", "#think", *answers(KEY, correct=12)])

        async with running_bot(api, tmp_path, key=KEY) as bot:
            await api.reply_to(await api.send_text(chat, user, text("before")), timeout=30)
            db = tmp_path / "data" / "benchboard.sqlite3"
            Path(f"{db}-wal").unlink()  # noqa: ASYNC240
            await asyncio.sleep(2.5)  # past the store's look at its WAL
            for n in range(3):
                reply = await api.reply_to(
                    await api.send_text(chat, user, text(f"after-{n}")), timeout=30
                )
                assert "after-" in text_of(reply)
            deadline = time.monotonic() + 10
            while True:  # another process reads it (a disk I/O error while it is lost)
                try:
                    assert _count(db) == 4
                    break
                except sqlite3.OperationalError:
                    assert time.monotonic() < deadline, bot.log()[-2000:]
                    await asyncio.sleep(0.5)
            await bot.kill()  # a crash: no checkpoint at close
        assert _count(db) == 4
        con = sqlite3.connect(db)
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        con.close()

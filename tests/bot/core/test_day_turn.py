"""The day's turn: a server moves the Natory span lines to the new day even when nobody
publishes (``benchboard web`` runs it itself; the bot from its job queue)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from bot.core import boards
from bot.core.services import Services
from bot.settings import Settings
from storage import analytics
from tests.storage.test_analytics import FIELDS, NAME, put_natory


async def test_a_server_turns_the_day_at_start_and_the_window_reads_the_spans(
    tmp_path: Path,
) -> None:
    services = await Services.open(Settings(data_dir=tmp_path / "data"))
    store = services.store
    try:
        for model in ("Alpha", "Beta"):
            await put_natory(store, "2*5^5+6", model=model)
        async with store.db.write() as s:  # as if the last publication was yesterday
            await s.execute("UPDATE challenge_span_days SET from_day = from_day - 1")
        since = int(time.time() * 1000) - 30 * 86_400_000
        task = services.spawn(boards.turn_days(services))
        for _ in range(100):
            async with store.db.read() as s:
                row = await s.one("SELECT from_day FROM challenge_span_days WHERE span = 30")
            if row is not None and row[0] == since // 86_400_000 + 1:
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("the day was not turned")
        assert not task.done()  # it waits for the next midnight
        board = await analytics.challenge_board(store, NAME, FIELDS, since_ms=since)
        assert [(r.model, r.attempts) for r in board.rows] == [("Alpha", 1), ("Beta", 1)]
    finally:
        await services.close()

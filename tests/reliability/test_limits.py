"""Counted resources hold under concurrency: presses racing for the day's allowance."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.e2e.botkit import KEY, answers, bot_session, button, private_user, submission_id, text_of


async def test_ten_concurrent_presses_at_limit_three_publish_exactly_three(
    tmp_path: Path,
) -> None:
    async with bot_session(tmp_path, env={"BENCHBOARD_DAILY_LIMIT": "3"}) as bot:
        user, chat = private_user(bot, 7001)
        cards = []
        for n in range(10):
            body = "\n".join(["model: racer", "#think", *answers(KEY, correct=n + 1)])
            cards.append(await bot.say(chat, user, body))
        presses = [
            bot.api.press_button(chat, user, card, button(card, "Publish")) for card in cards
        ]
        queries = await asyncio.gather(*presses)
        answers_given = await asyncio.gather(
            *(bot.api.callback_answer(q, timeout=20) for q in queries)
        )
        texts = [str(a["params"].get("text", "")) for a in answers_given]
        published = [t for t in texts if t.startswith("Published")]
        refused = [t for t in texts if t.startswith("Daily limit reached")]
        assert len(published) == 3, texts
        assert len(refused) == 7, texts
        # each publication says what is left, counted in its own transaction
        lefts = sorted(t.split(". ", 1)[1] for t in published)
        assert lefts == [f"{n} of 3 publications left today." for n in range(3)], published
        board = await bot.say(chat, user, "/leaderboard")
        assert "racer" in text_of(board)
        ids = {submission_id(text_of(card)) for card in cards}
        assert len(ids) == 10

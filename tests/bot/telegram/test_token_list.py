"""``/token list``'s answer fits one Telegram message however many tokens a user made."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.render.format import MESSAGE_LIMIT
from bot.telegram.token_handlers import LISTED, token_list
from storage import ApiToken


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_long_list_of_tokens_fits_a_message(lang: str) -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    tokens = [
        ApiToken(i, 7, start + timedelta(hours=i), start + timedelta(hours=i + 1), None)
        for i in range(1, 201)
    ]
    text = token_list(lang, tokens)
    assert len(text) <= MESSAGE_LIMIT
    lines = text.splitlines()
    assert len(lines) == 1 + LISTED + 1  # the count, the latest, how many older
    if lang == "en":
        assert lines[0] == "You have 200 API tokens:"
        assert lines[1].startswith("171. made 2026-01-08 ")  # numbered from the oldest
        assert lines[-1] == "…and 170 older tokens, not shown."
    few = token_list(lang, tokens[:3])
    assert len(few.splitlines()) == 4

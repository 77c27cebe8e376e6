"""PTB keeps ``user_data``/``chat_data`` per user and chat forever unless dropped: the
bot keeps them for the most recently seen only."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from bot.telegram import handlers


def test_user_and_chat_data_beyond_the_bound_are_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    dropped: list[tuple[str, int]] = []
    application = SimpleNamespace(
        drop_user_data=lambda uid: dropped.append(("u", uid)),
        drop_chat_data=lambda cid: dropped.append(("c", cid)),
    )
    context: Any = SimpleNamespace(bot_data={}, application=application)
    monkeypatch.setattr(handlers, "RECENT_MAX", 4)
    for n in range(5):
        handlers._remember(context, n, -n)
    assert dropped == [("u", 0), ("c", 0), ("u", 1), ("c", -1), ("u", 2), ("c", -2)]
    handlers._remember(context, 4, None)  # seen again: kept, nothing else dropped
    assert len(dropped) == 6

"""``benchboard webhook set|info|delete`` against the local Bot API server: the webhook
is registered once for every instance."""

from __future__ import annotations

import asyncio

import pytest

from bot.cli import main
from tests.e2e.botapi import FakeBotAPI


async def test_webhook_set_info_and_delete(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    api = FakeBotAPI()
    await api.start()
    try:
        for name, value in api.bot_env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("BENCHBOARD_WEBHOOK_URL", "https://bot.example/telegram")
        monkeypatch.setenv("BENCHBOARD_WEBHOOK_SECRET", "s3cret")
        assert await asyncio.to_thread(main, ["webhook", "set"]) == 0
        assert api.webhook_url == "https://bot.example/telegram"
        assert "webhook set: https://bot.example/telegram" in capsys.readouterr().out
        assert await asyncio.to_thread(main, ["webhook", "info"]) == 0
        assert "https://bot.example/telegram" in capsys.readouterr().out
        assert await asyncio.to_thread(main, ["webhook", "delete"]) == 0
        assert api.webhook_url is None
        monkeypatch.delenv("BENCHBOARD_WEBHOOK_SECRET")
        assert await asyncio.to_thread(main, ["webhook", "set"]) == 2
        assert "WEBHOOK_SECRET" in capsys.readouterr().err
    finally:
        await api.stop()

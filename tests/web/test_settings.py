"""The web's settings: where it listens, and its public HTTPS address."""

from __future__ import annotations

import pytest

from bot.settings import SettingsError, load_settings


def test_defaults_and_the_public_address(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("WEB_HOST", "WEB_PORT", "WEB_URL", "WEBHOOK_URL", "BOT_USERNAME"):
        monkeypatch.delenv(f"BENCHBOARD_{name}", raising=False)
    monkeypatch.chdir("/")  # no .env
    settings = load_settings()
    assert (settings.web_host, settings.web_port) == ("127.0.0.1", 8080)
    assert settings.public_web_url is None
    hook = load_settings(webhook_url="https://bot.example.com/telegram")
    assert hook.public_web_url == "https://bot.example.com"
    assert load_settings(webhook_url="http://127.0.0.1:8443/telegram").public_web_url is None
    both = load_settings(webhook_url="https://a.example/t", web_url="https://b.example/")
    assert both.public_web_url == "https://b.example"
    monkeypatch.setenv("BENCHBOARD_WEB_PORT", "70000")
    with pytest.raises(SettingsError, match="BENCHBOARD_WEB_PORT"):
        load_settings()

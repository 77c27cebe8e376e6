"""The Mini App's "Share" over HTTP: ``POST /app/share`` checks the sign-in, then the
real preparer (``bot.telegram.miniapp``) saves the result as a prepared inline message
with ``savePreparedInlineMessage`` on the Bot API emulator (tests/e2e/botapi.py)."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator

import pytest
from telegram import Bot

from bot.render.i18n import t
from bot.telegram import miniapp
from bot.web.handler import CSP, TELEGRAM_WEB_APP_JS
from tests.e2e.botapi import FakeBotAPI

from . import fixtures
from .conftest import BOT_TOKEN, Site
from .test_initdata import fields, signed


@pytest.fixture
async def api() -> AsyncIterator[FakeBotAPI]:
    server = FakeBotAPI(token=BOT_TOKEN, bot_username="bench_test_bot")
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def post_share(site: Site, raw: str, token: str) -> tuple[int, dict[str, str]]:
    async with site.session.post(
        f"{site.base}/app/share", data={"init_data": raw, "token": token}
    ) as response:
        return response.status, json.loads(await response.text())


async def test_a_result_is_shared_as_a_prepared_inline_message(site: Site, api: FakeBotAPI) -> None:
    now = int(time.time())
    raw = signed(BOT_TOKEN, fields(user_id=fixtures.SECRET_USER, auth_date=now - 5))
    token = site.tokens["best"]
    # no Bot API reachable from this web process: said, never a 500
    assert await post_share(site, raw, token) == (503, {"error": "sharing is not available here"})
    bot = Bot(BOT_TOKEN, base_url=api.base_url)
    site.state.share = miniapp.preparer(bot, site.state.services)
    try:
        status, body = await post_share(site, raw, token)
        assert status == 200 and body["id"] in api.prepared
        prepared = api.prepared[body["id"]]
        assert prepared["user_id"] == fixtures.SECRET_USER  # the signed-in user, not the owner
        assert prepared["allow_group_chats"] and prepared["allow_user_chats"]
        result = prepared["result"]
        assert result["type"] == "article" and "Alpha Large" in result["title"]
        text = result["input_message_content"]["message_text"]
        assert "Alpha Large" in text and f"start=r_{token}" in text
        button = result["reply_markup"]["inline_keyboard"][0][0]
        assert button["url"] == f"https://t.me/bench_test_bot?start=r_{token}"
        # in the language the user reads the bot in (Persian here) when the page did not
        # choose one, whatever the phone's; in the page's when it did
        assert button["text"] == t("fa", "btn_open_in_bot") != t("en", "btn_open_in_bot")
        for lang, phone in (("", "en"), ("?lang=en", "fa")):
            async with site.session.post(
                f"{site.base}/app/share{lang}", data={"init_data": raw, "token": token},
                headers={"Accept-Language": phone},
            ) as response:  # fmt: skip
                shared = api.prepared[json.loads(await response.text())["id"]]
            button = shared["result"]["reply_markup"]["inline_keyboard"][0][0]
            assert button["text"] == t(lang[-2:] or "fa", "btn_open_in_bot"), lang
        api.prepared.clear()
        status, body = await post_share(site, raw, token)
        # a forged sign-in, a hidden result, a token nobody made: refused, nothing saved
        forged = signed("42:another-bot", fields(user_id=fixtures.SECRET_USER, auth_date=now))
        assert (await post_share(site, forged, token))[0] == 403
        assert (await post_share(site, raw, site.tokens["hidden"]))[0] == 404
        assert (await post_share(site, raw, "nobody-made-this"))[0] == 404
        assert (await post_share(site, raw, "<script>"))[0] == 404
        assert len(api.prepared) == 1
        # the Bot API refusing is a 502 with a short message
        api.faults(methods=("savePreparedInlineMessage",), kinds=("400",))
        assert (await post_share(site, raw, token))[0] == 502
    finally:
        await bot.shutdown()


async def test_the_app_loads_telegrams_script_and_the_csp_allows_only_it(site: Site) -> None:
    status, html, response = await site.get("/app")
    assert status == 200
    head = html.split("</head>")[0]
    # Telegram's script in <head>, before the site's own scripts (as Telegram documents)
    assert head.index(f'<script src="{TELEGRAM_WEB_APP_JS}"></script>') < head.index("app.js")
    assert '<meta name="benchboard-bot" content="https://t.me/bench_test_bot">' in head
    policy = response.headers["Content-Security-Policy"]
    assert policy == CSP
    scripts = policy.split("script-src ")[1].split(";")[0].split()
    assert scripts == ["'self'", TELEGRAM_WEB_APP_JS]
    assert "telegram.org" not in policy.split("script-src")[0]  # nothing else third-party
    # an ordinary page names no third-party script (the app's script loads it inside
    # Telegram only)
    _, board, _ = await site.get("/b/primebench")
    assert "telegram.org" not in board.split("</head>")[0]

"""The Mini App's sign-in check, against initData signed here the way Telegram's
documentation describes (written out independently of ``bot.web.initdata``), and the
``/app`` page and its ``/app/me`` endpoint over HTTP."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from urllib.parse import quote

import aiohttp
import pytest

from bot.web import initdata
from bot.web.initdata import InvalidInitData

from . import fixtures
from .conftest import BOT_TOKEN, Site

NOW = 1_780_000_000


def signed(token: str, fields: dict[str, str]) -> str:
    """initData as Telegram sends it: the fields URL-encoded, plus their hash."""
    lines = sorted(f"{key}={value}" for key, value in fields.items())
    secret = hmac.new(key=b"WebAppData", msg=token.encode("utf-8"), digestmod=hashlib.sha256)
    digest = hmac.new(
        key=secret.digest(), msg="\n".join(lines).encode("utf-8"), digestmod=hashlib.sha256
    ).hexdigest()
    pairs = [*fields.items(), ("hash", digest)]
    return "&".join(f"{quote(key, safe='')}={quote(value, safe='')}" for key, value in pairs)


def fields(
    user_id: int = 7, auth_date: int = NOW, language: str = "fa", **extra: str
) -> dict[str, str]:
    """A sign-in's fields; ``language``: the user's Telegram app's language."""
    user = {"id": user_id, "first_name": "Ada & <Co>", "language_code": language}
    return {
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "user": json.dumps(user, separators=(",", ":")),
        "auth_date": str(auth_date),
        **extra,
    }


def test_a_valid_sign_in_names_its_user() -> None:
    user = initdata.check(signed(BOT_TOKEN, fields()), BOT_TOKEN, now=NOW + 60)
    assert (user.id, user.first_name, user.language_code) == (7, "Ada & <Co>", "fa")


def test_a_fixed_vector() -> None:
    """One vector worked by hand: the secret and the hash as Telegram defines them."""
    data = 'auth_date=1700000000\nuser={"id":1,"first_name":"A"}'
    secret = hmac.new(b"WebAppData", b"1:T", hashlib.sha256).digest()
    digest = hmac.new(secret, data.encode(), hashlib.sha256).hexdigest()
    raw = 'user={"id":1,"first_name":"A"}&auth_date=1700000000&hash=' + digest
    assert initdata.check(raw.replace('"', "%22"), "1:T", now=1_700_000_100).id == 1
    assert initdata.data_check_string({"b": "2", "a": "1", "hash": "x"}) == "a=1\nb=2"


@pytest.mark.parametrize(
    "raw",
    [
        signed("999:other-bot", fields()),  # another bot's token
        signed(BOT_TOKEN, fields()).replace("user=", "user=%20", 1),  # tampered
        signed(BOT_TOKEN, fields(auth_date=NOW - 86_401)),  # older than a day
        signed(BOT_TOKEN, fields(auth_date=NOW + 3_600)),  # from the future
        signed(BOT_TOKEN, fields()).rsplit("&hash=", 1)[0],  # no hash
        signed(BOT_TOKEN, fields()) + "&auth_date=1",  # a field twice
        signed(BOT_TOKEN, {"auth_date": str(NOW)}),  # no user
        signed(BOT_TOKEN, fields(user_id=0)),
        signed(BOT_TOKEN, {"user": '{"id": "7"}', "auth_date": str(NOW)}),
        signed(BOT_TOKEN, {"user": "[]", "auth_date": str(NOW)}),
        signed(BOT_TOKEN, fields(auth_date=-5)),
        signed(BOT_TOKEN, fields(padding="x" * 5000)),
        "",
        "hash=",
        "not a query string at all",
        "%ZZ=1",
    ],
)
def test_anything_else_is_refused(raw: str) -> None:
    with pytest.raises(InvalidInitData):
        initdata.check(raw, BOT_TOKEN, now=NOW + 60)


def test_no_token_refuses_everything() -> None:
    with pytest.raises(InvalidInitData):
        initdata.check(signed("", fields()), "", now=NOW)


async def post_me(site: Site, raw: str, lang: str = "") -> tuple[int, str]:
    async with site.session.post(f"{site.base}/app/me{lang}", data={"init_data": raw}) as response:
        return response.status, await response.text()


async def test_the_app_page_and_my_results(site: Site) -> None:
    status, html, response = await site.get("/app")
    assert status == 200 and 'src="/static/app.js?v=' in html and 'id="my"' in html
    assert "frame-ancestors https://web.telegram.org" in response.headers["Content-Security-Policy"]
    now = int(time.time())
    raw = signed(BOT_TOKEN, fields(user_id=fixtures.SECRET_USER, auth_date=now - 10, language="en"))
    status, mine = await post_me(site, raw)
    assert status == 200 and "My results" in mine
    assert "Filler 29" in mine and mine.count("<li>") == 20  # their latest 20
    assert "Alpha Large" not in mine  # someone else's
    assert "Ada &amp; &lt;Co&gt;" in mine  # the name from initData, escaped
    assert str(fixtures.SECRET_USER) not in mine
    status, refused = await post_me(site, raw.replace("hash=", "hash=0", 1)[:-1])
    assert status == 403 and "Could not confirm" in refused and "Filler" not in refused
    stale = signed(BOT_TOKEN, fields(user_id=fixtures.SECRET_USER, auth_date=now - 90_000))
    assert (await post_me(site, stale))[0] == 403
    status, persian = await post_me(site, raw, "?lang=fa")
    assert status == 200 and "نتیجه‌های من" in persian


async def test_my_results_are_in_the_language_the_user_reads_the_bot_in(site: Site) -> None:
    """Asked without ?lang= (the menu button's /app), in the bot's language for the user
    (their /lang, else their Telegram app's), whatever the phone's (Accept-Language); it
    names that language (Content-Language) for the page to reload in."""
    now = int(time.time())
    persian_app = signed(BOT_TOKEN, fields(user_id=fixtures.PUBLIC_USER, auth_date=now - 5))
    async with site.session.post(
        f"{site.base}/app/me", data={"init_data": persian_app}, headers={"Accept-Language": "en"}
    ) as response:
        assert response.status == 200 and response.headers["Content-Language"] == "fa"
        assert "نتیجه‌های من" in await response.text()
    # /lang en in the bot beats the Persian Telegram app and a Persian phone
    await site.state.services.store.set_user_language(fixtures.PUBLIC_USER, "en")
    async with site.session.post(
        f"{site.base}/app/me", data={"init_data": persian_app}, headers={"Accept-Language": "fa"}
    ) as response:
        assert response.status == 200 and response.headers["Content-Language"] == "en"
        assert "My results" in await response.text()
    # a page that chose its language (?lang=) keeps it
    status, persian = await post_me(site, persian_app, "?lang=fa")
    assert status == 200 and "نتیجه‌های من" in persian


async def test_my_results_refuse_a_huge_body(site: Site) -> None:
    form = aiohttp.FormData({"init_data": "x" * 100_000})
    async with site.session.post(f"{site.base}/app/me", data=form) as response:
        assert response.status in (400, 403, 413)


async def test_my_results_and_the_apps_leaders_credit_the_scores_they_show(site: Site) -> None:
    """A PrimeBench score in "my results" comes with JibayAI's credit, as on every page;
    no PrimeBench score, no credit (nor on the app's PrimeBench card without leaders)."""
    credit = "PrimeBench by JibayAI (jibay.ir), CC BY-ND 4.0"
    now = int(time.time())
    raw = signed(BOT_TOKEN, fields(user_id=fixtures.SECRET_USER, auth_date=now - 5))
    status, mine = await post_me(site, raw, "?lang=en")
    assert status == 200 and "Filler" in mine and mine.count(credit) == 1
    nobody = signed(BOT_TOKEN, fields(user_id=2**40, auth_date=now - 5))
    status, none = await post_me(site, nobody, "?lang=en")
    assert status == 200 and "JibayAI" not in none
    _, app, _ = await site.get("/app")
    assert credit in app.split('<h2><a href="/b/primebench"', 1)[1].split("</section>", 1)[0]
    store = site.state.services.store
    for user in (fixtures.PUBLIC_USER, fixtures.SECRET_USER):
        for sub in await store.history(user, benchmark="primebench", limit=100):
            if sub.visibility.value == "published":
                await store.hide(sub.id)
    site.state.forget()
    _, app, _ = await site.get("/app")
    card = app.split('<h2><a href="/b/primebench"', 1)[1].split("</section>", 1)[0]
    assert "Alpha Large" not in card and "JibayAI" not in app

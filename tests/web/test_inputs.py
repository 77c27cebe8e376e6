"""Hostile and odd requests to the web boards (issue 29): each is answered with a 4xx
and a page, never a 500; a 405 names what is allowed; an error page kept in the cache
is served in each requester's language; the CSV download neutralises every cell a
spreadsheet would run as a formula."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from bot.render.csvboards import _csv_text
from bot.web import initdata

from .conftest import BOT_TOKEN, Site
from .test_initdata import fields, post_me, signed


async def test_odd_static_paths_are_4xx(site: Site) -> None:
    for path in ("/static/%00", "/static/a%00b.css", "/static/%2e%2e/pages.py", "/static/"):
        status, _, _ = await site.get(path)
        assert 400 <= status < 500, (path, status)
    status, _, _ = await site.get("/static/app.js")
    assert status == 200


async def test_a_signed_sign_in_with_a_huge_user_id_is_refused(site: Site) -> None:
    now = int(time.time())
    for user_id in (10**30, 2**63, 2**53):
        raw = signed(BOT_TOKEN, fields(user_id=user_id, auth_date=now - 10))
        status, page = await post_me(site, raw)
        assert status == 403, (user_id, status)
        assert "<" in page
    # the largest id Telegram can hand out (52 significant bits) still signs in
    raw = signed(BOT_TOKEN, fields(user_id=2**52, auth_date=now - 10))
    assert (await post_me(site, raw))[0] == 200
    assert initdata.check(raw, BOT_TOKEN).id == 2**52


async def test_a_405_names_the_allowed_methods(site: Site) -> None:
    cases = {
        "/b/primebench": {"GET", "HEAD"},
        "/": {"GET", "HEAD"},
        "/app/me": {"POST"},
        "/static/app.js": {"GET", "HEAD"},
    }
    for path, allowed in cases.items():
        for method in ("PUT", "DELETE", "PATCH", "POST" if "POST" not in allowed else "GET"):
            async with site.session.request(method, site.base + path) as r:
                assert r.status == 405, (path, method, r.status)
                given = {m.strip() for m in r.headers.get("Allow", "").split(",")}
                assert given == allowed, (path, method, r.headers.get("Allow"))
                assert "<html" in await r.text()


async def test_a_cached_404_is_served_in_each_requesters_language(site: Site) -> None:
    path = "/b/primebench?page=9"  # past the last page: a 404, kept a while
    for first, second in (("en", "fa"), ("fa", "en")):
        status, en_or_fa, _ = await site.get(path, headers={"Accept-Language": first})
        assert status == 404
        status, other, _ = await site.get(path, headers={"Accept-Language": second})
        assert status == 404
        persian, english = (other, en_or_fa) if second == "fa" else (en_or_fa, other)
        assert 'lang="fa"' in persian and 'dir="rtl"' in persian, persian[:300]
        assert 'lang="en"' in english and 'dir="rtl"' not in english
        site.state.forget()
    status, page, _ = await site.get("/b/primebench?page=9&lang=fa")
    assert status == 404 and 'lang="fa"' in page


def test_the_csv_neutraliser_covers_every_formula_prefix() -> None:
    dangerous = [
        "=1+1", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1", "\n=1",
        "\ufeff=1", "\u200b=1", "\u200c=1", "\u2060=1", "\u00a0=1",
        "\uff1d1+1", "\uff0b1", "\uff0d1", "\uff201",
        " =1", "  +1", "\t-1", " @x", "\u3000=1", "\ufeff\u200b =1",
    ]  # fmt: skip
    for value in dangerous:
        out = _csv_text(value)
        assert isinstance(out, str) and out.startswith("'"), repr(value)
    for value in ("Alpha", "GPT-4o", "1.5", "", "a=b", "x-1"):
        assert _csv_text(value) == value
    assert _csv_text(None) == "" and _csv_text(7) == 7


async def test_a_slow_page_is_never_dated_after_its_answer(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Last-Modified is at most the answer's Date (RFC 9110), also for a page whose
    making crosses a second: the front page, its leaders read a second and more late."""
    from email.utils import parsedate_to_datetime

    from bot.core import webboards

    real = webboards.leaders

    async def slow(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(1.2)
        return await real(*args, **kwargs)

    monkeypatch.setattr(webboards, "leaders", slow)
    status, _, response = await site.get("/")
    assert status == 200
    modified = parsedate_to_datetime(response.headers["Last-Modified"])
    assert modified <= parsedate_to_datetime(response.headers["Date"])


async def test_scripts_and_stylesheets_reach_browsers_as_soon_as_they_change(site: Site) -> None:
    """Pages name each script and stylesheet by its content's digest (kept for good);
    asked without one, a file is revalidated each time (a 304 when unchanged), never
    kept on a browser's own guess for days after a deploy changed it."""
    import hashlib
    import re

    from bot.web import pages

    _, html, _ = await site.get("/b/primebench")
    found = dict(re.findall(r'"/static/([a-z]+\.(?:css|js))\?v=([0-9a-f]+)"', html))
    assert set(found) == {"style.css", "app.js", "miniapp.js"}, found
    for name, version in found.items():
        data = (pages.STATIC / name).read_bytes()
        assert version == hashlib.blake2b(data, digest_size=6).hexdigest()
        status, _, response = await site.get(f"/static/{name}?v={version}")
        assert status == 200 and "immutable" in response.headers["Cache-Control"]
    _, app, _ = await site.get("/app")
    assert re.search(r'"/static/miniapp\.css\?v=[0-9a-f]+"', app)
    status, _, response = await site.get("/static/style.css")
    assert status == 200 and response.headers["Cache-Control"] == "no-cache"
    etag = response.headers["ETag"]
    status, _, _ = await site.get("/static/style.css", headers={"If-None-Match": etag})
    assert status == 304

"""Names people chose, at their longest, in a real browser: a model's name of one
unbroken word and a group's title of 128 characters (Telegram's most) break where
they must on a phone instead of making the page wider than the screen. Headless
Chromium as in ``test_browser``; the database is ``fixtures.fill`` plus those two."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from scoring import registry
from storage import NewSubmission, Store

from . import fixtures
from .test_browser import Browser, browser, serve  # noqa: F401 (a fixture)

LONG_MODEL = "Ultra-" + "x" * 180
LONG_TITLE = "G" * 128


async def add_long_names(path: Path) -> str:
    """A published result whose model is one long word, and the group's title at
    Telegram's longest; the result's token."""
    store = await Store.open(path)
    try:
        prime = registry.get("primebench")
        version = await store.save_key("primebench", fixtures.PRIME_KEY, source="tests")
        raw = fixtures.prime_text(11, 1)
        sub = await store.record_submission(
            NewSubmission(
                user_id=fixtures.PUBLIC_USER, chat_id=fixtures.GROUP, message_id=90_001,
                benchmark="primebench", raw=raw,
                result=prime.score(raw, prime.load_key(fixtures.PRIME_KEY)),
                scorer_version=prime.scorer_version, key_version_id=version.id,
                model=LONG_MODEL, mode="think",
            )
        )  # fmt: skip
        await store.publish(sub.id)
        await store.upsert_chat(fixtures.GROUP, type="supergroup", title=LONG_TITLE)
        return await store.link("result", sub.id)
    finally:
        await store.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    folder = tmp_path_factory.mktemp("web-names")
    path = folder / "web.sqlite3"
    asyncio.run(fixtures.fill(path))
    token = asyncio.run(add_long_names(path))
    with serve(folder, path) as base:
        yield base, {**fixtures.tokens(path), "long": token}


def test_long_names_do_not_widen_a_page_on_a_phone(
    site: tuple[str, dict[str, str]],
    browser: Browser,  # noqa: F811
) -> None:
    base, tokens = site
    phone = browser.new_page(viewport={"width": 375, "height": 800})
    wide = browser.new_page(viewport={"width": 1280, "height": 900})
    for path in (f"/r/{tokens['long']}", f"/r/{tokens['long']}?lang=fa", f"/g/{tokens['web']}",
                 f"/g/{tokens['web']}/zerobench", "/b/primebench"):  # fmt: skip
        for page in (phone, wide):
            page.goto(base + path)
            width = page.evaluate("document.documentElement.scrollWidth")
            inner = page.evaluate("window.innerWidth")
            assert width <= inner, f"{path}: {width} px wide on a {inner} px screen"
    phone.goto(f"{base}/r/{tokens['long']}")
    assert phone.locator("#model").inner_text() == LONG_MODEL  # broken, not cut
    phone.goto(f"{base}/g/{tokens['web']}")
    assert LONG_TITLE in phone.locator("h1").inner_text()
    phone.close()
    wide.close()

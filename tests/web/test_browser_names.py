"""Names people chose, at their longest, in a real browser: a model's name of one
unbroken word and a group's title of 128 characters (Telegram's most) break where
they must on a phone instead of making the page wider than the screen. Headless
Chromium as in ``test_browser``; the database is ``fixtures.fill`` plus those two."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

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


#: A left-to-right name ending in neutral characters, and a group's title like it: on a
#: right-to-left page, without an isolate, the closing '"!' take the paragraph's
#: direction and are drawn before the name.
BIDI_MODEL = 'Llama 3 "v2"!'
BIDI_TITLE = "Lab #1!"

#: The characters of the first text under ``selector``, left to right as drawn: each
#: one's left edge, in the text's order (spaces left out).
EDGES_JS = """
(selector) => {
  const el = document.querySelector(selector);
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const node = walker.nextNode();
  const out = [];
  for (let i = 0; i < node.textContent.length; i++) {
    if (node.textContent[i] === " ") continue;
    const range = document.createRange();
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    out.push([node.textContent[i], range.getBoundingClientRect().left]);
  }
  return out;
}
"""


async def add_bidi_names(path: Path) -> str:
    """The best PrimeBench result, by a model named :data:`BIDI_MODEL`, and the group's
    title :data:`BIDI_TITLE`; the result's token."""
    store = await Store.open(path)
    try:
        prime = registry.get("primebench")
        version = await store.save_key("primebench", fixtures.PRIME_KEY, source="tests")
        raw = fixtures.prime_text(20, 0)
        sub = await store.record_submission(
            NewSubmission(
                user_id=fixtures.PUBLIC_USER, chat_id=fixtures.GROUP, message_id=90_002,
                benchmark="primebench", raw=raw,
                result=prime.score(raw, prime.load_key(fixtures.PRIME_KEY)),
                scorer_version=prime.scorer_version, key_version_id=version.id,
                model=BIDI_MODEL, mode="think",
            )
        )  # fmt: skip
        await store.publish(sub.id)
        await store.upsert_chat(fixtures.GROUP, type="supergroup", title=BIDI_TITLE)
        return await store.link("result", sub.id)
    finally:
        await store.close()


@pytest.fixture(scope="module")
def bidi_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    folder = tmp_path_factory.mktemp("web-bidi")
    path = folder / "web.sqlite3"

    async def fill() -> str:
        await fixtures.fill(path)
        return await add_bidi_names(path)

    # on a thread of its own: the browser (sync Playwright) may be running a loop here
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        token = pool.submit(asyncio.run, fill()).result()
    with serve(folder, path) as base:
        yield base, {**fixtures.tokens(path), "bidi": token}


def test_names_keep_their_own_order_on_persian_pages(
    bidi_site: tuple[str, dict[str, str]],
    browser: Browser,  # noqa: F811
) -> None:
    """A model's name beside Persian words (the front page's and the Mini App's leaders,
    a result's lead) and a group's title in its board's heading are drawn as typed."""
    base, tokens = bidi_site
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    for path, selector, name in (
        ("/?lang=fa", "#bench-primebench .leaders .model", BIDI_MODEL),
        ("/app?lang=fa", ".leaders .model", BIDI_MODEL),
        (f"/r/{tokens['bidi']}?lang=fa", "#model", BIDI_MODEL),
        (f"/g/{tokens['web']}?lang=fa", "#group-title", BIDI_TITLE),
    ):
        page.goto(base + path)
        assert page.locator("html").get_attribute("dir") == "rtl"
        drawn = page.evaluate(EDGES_JS, selector)
        assert "".join(c for c, _ in drawn) == name.replace(" ", ""), path
        lefts = [left for _, left in drawn]
        assert lefts == sorted(lefts), (path, drawn)
    page.close()


#: The left edges of ``query``'s characters (spaces left out) where the first text under
#: ``selector`` holds it.
QUERY_EDGES_JS = """
([selector, query]) => {
  const el = document.querySelector(selector);
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const node = walker.nextNode();
  const at = node.textContent.indexOf(query);
  if (at < 0) return null;
  const out = [];
  for (let i = at; i < at + query.length; i++) {
    if (node.textContent[i] === " ") continue;
    const range = document.createRange();
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    out.push(range.getBoundingClientRect().left);
  }
  return out;
}
"""


def test_a_search_is_quoted_as_typed_on_a_persian_page(
    bidi_site: tuple[str, dict[str, str]],
    browser: Browser,  # noqa: F811
) -> None:
    base, _ = bidi_site
    query = 'zz 3 "v2"!'  # no model has it: the page says so, quoting it
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{base}/b/primebench?lang=fa&q={quote(query)}")
    lefts = page.evaluate(QUERY_EDGES_JS, ["#search-note", query])
    assert lefts is not None and lefts == sorted(lefts), lefts
    page.close()

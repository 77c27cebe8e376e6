"""The Mini App as a Telegram Mini App, and Persian figures, in a real browser: Debian's
headless Chromium through Playwright against ``benchboard web`` (its own process) over
the web tests' database, with the Bot API emulator (tests/e2e/botapi.py) behind the
Mini App's "Share". Telegram's ``telegram-web-app.js`` is served by routing its request
to a stub that records the calls (``tgstub.js``): nothing leaves the machine.

Screenshots go to ``docs/screens/`` (app-390.png, fa-board.png, ...)."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route, expect, sync_playwright

from tests.e2e.botapi import FakeBotAPI

from . import fixtures
from .conftest import BOT_TOKEN
from .test_browser import CHROMIUM, SCREENS, app_url
from .test_initdata import fields, signed
from .webproc import web_process

STUB = Path(__file__).with_name("tgstub.js").read_text()
SDK = "https://telegram.org/js/telegram-web-app.js"


@dataclass
class Served:
    base: str
    tokens: dict[str, str]
    api: FakeBotAPI
    loop: asyncio.AbstractEventLoop
    third_party: list[str] = field(default_factory=list)
    sdk_loads: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("webapp")
    path = folder / "web.sqlite3"
    asyncio.run(fixtures.fill(path))
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    api = FakeBotAPI(token=BOT_TOKEN, bot_username="bench_test_bot")
    asyncio.run_coroutine_threadsafe(api.start(), loop).result(10)
    env = {
        **os.environ,
        **api.bot_env(),
        "BENCHBOARD_DB": str(path),
        "BENCHBOARD_DATA_DIR": str(folder),
        "BENCHBOARD_BOT_USERNAME": "bench_test_bot",
    }
    try:
        with web_process(folder, env) as base:
            yield Served(base, fixtures.tokens(path), api, loop)
    finally:
        asyncio.run_coroutine_threadsafe(api.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


def new_page(
    browser: Browser, served: Served, width: int = 1280, height: int = 900, locale: str = "en-US"
) -> Page:
    """A page whose requests never leave the machine: Telegram's script is the stub,
    anything else third-party is refused and listed. ``locale``: the phone's language."""
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)

    def route(route: Route) -> None:
        url = route.request.url
        if url.split("?")[0] == SDK:
            served.sdk_loads.append(url)
            route.fulfill(body=STUB, content_type="application/javascript")
        elif url.startswith(served.base) or url.startswith(("data:", "about:")):
            route.continue_()
        else:
            served.third_party.append(url)
            route.abort()

    context.route("**/*", route)
    return context.new_page()


def screen(page: Page, name: str, *, full: bool = True) -> Path:
    SCREENS.mkdir(parents=True, exist_ok=True)
    path = SCREENS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full)
    return path


def calls(page: Page) -> list[list[Any]]:
    found: list[list[Any]] = page.evaluate("window.__tg || []")
    return found


def called(page: Page, name: str) -> list[list[Any]]:
    return [c for c in calls(page) if c[0] == name]


# --- the Mini App ----------------------------------------------------------------------


def test_the_mini_app_is_a_telegram_mini_app(served: Served, browser: Browser) -> None:
    theme = {"bg_color": "#102030", "text_color": "#fafafa", "button_color": "#ff0000",
             "button_text_color": "#000001"}  # fmt: skip
    raw = signed(
        BOT_TOKEN, fields(user_id=fixtures.SECRET_USER, auth_date=int(time.time()), language="en")
    )
    page = new_page(browser, served, 390, 844)
    page.goto(app_url(served.base, raw, theme))
    expect(page.locator("#my[data-state=signed-in]")).to_be_visible()
    # Telegram's script was loaded (the stub), and the app told Telegram it is ready
    assert len(served.sdk_loads) == 1
    page.wait_for_function("() => (window.__tg || []).some(c => c[0] === 'MainButton.show')")
    names = [c[0] for c in calls(page)]
    assert {"ready", "expand", "BackButton.hide", "MainButton.show"} <= set(names)
    assert ["onEvent", "themeChanged"] in calls(page)
    assert called(page, "MainButton.setText") == [["MainButton.setText", "Open in the chat"]]
    # the main action opens the chat with the bot
    page.evaluate("Telegram.WebApp.MainButton.click()")
    assert called(page, "openTelegramLink") == [["openTelegramLink", "https://t.me/bench_test_bot"]]
    # the theme follows Telegram's themeChanged
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(16, 32, 48)"
    # a button's text in the theme's colour for it, on the theme's button colour
    on_accent = "getComputedStyle(document.documentElement).getPropertyValue('--on-accent')"
    assert page.evaluate(on_accent).strip() == "#000001"
    page.evaluate(
        "Telegram.WebApp.themeParams = {bg_color: '#f0e0d0', text_color: '#101010'};"
        "__tgFire('themeChanged')"
    )
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(240, 224, 208)"
    page.evaluate("Telegram.WebApp.themeParams = " + str(theme).replace("'", '"')
                  + "; __tgFire('themeChanged')")  # fmt: skip
    # "my results" fits a 390 px phone: nothing scrolls sideways, every score on screen
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    scores = page.locator("#my-list .mine-score")
    assert scores.count() == 20
    for i in range(scores.count()):
        box = scores.nth(i).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    screen(page, "app-390", full=False)
    # a result opened from there: the BackButton, and "Share" as the main action
    page.locator("#my-list a").first.click()
    page.wait_for_url("**/r/**")
    page.wait_for_function("() => (window.__tg || []).some(c => c[0] === 'MainButton.show')")
    assert len(served.sdk_loads) == 2  # loaded on the pages opened from the app too
    assert ["BackButton.show"] in calls(page)
    assert called(page, "MainButton.setText") == [["MainButton.setText", "Share"]]
    page.evaluate("Telegram.WebApp.MainButton.click()")
    page.wait_for_function("() => (window.__tg || []).some(c => c[0] === 'shareMessage')")
    (prepared_id,) = called(page, "shareMessage")[0][1:]
    prepared = served.api.prepared[prepared_id]
    assert prepared["user_id"] == fixtures.SECRET_USER
    token = page.url.rsplit("/r/", 1)[1].split("?")[0]
    assert f"start=r_{token}" in prepared["result"]["input_message_content"]["message_text"]
    screen(page, "app-result-390", full=False)
    # back to the app with Telegram's BackButton
    page.evaluate("Telegram.WebApp.BackButton.click()")
    page.wait_for_url("**/app**")
    expect(page.locator("#my[data-state=signed-in]")).to_be_visible()
    # in Persian too: right to left, the scores (ltr isolates) still on screen
    page.goto("about:blank")
    page.goto(app_url(served.base, raw, theme).replace("/app#", "/app?lang=fa#"))
    expect(page.locator("#my[data-state=signed-in]")).to_be_visible()
    assert page.locator("html").get_attribute("dir") == "rtl"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    scores = page.locator("#my-list .mine-score bdi[dir=ltr]")
    assert scores.count() == 20
    for i in range(scores.count()):
        box = scores.nth(i).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    for sign in page.evaluate(SIGNS_JS):
        assert sign["left"], sign
    screen(page, "app-390-fa", full=False)
    assert served.third_party == []
    page.context.close()


def test_the_mini_app_opened_from_the_menu_is_in_the_bots_language(
    served: Served, browser: Browser
) -> None:
    """The menu button and the bot's main Mini App open /app with no ?lang=: the page
    reloads once in the language the user reads the bot in (Telegram's, or /lang), not
    the phone's, and the pages opened from there keep it."""
    theme = {"bg_color": "#ffffff", "text_color": "#000000"}
    now = int(time.time())
    for user_id, telegram, phone, want in (
        (9301, "fa", "en-US", "fa"),
        (9302, "en", "fa-IR", "en"),
    ):
        raw = signed(BOT_TOKEN, fields(user_id=user_id, auth_date=now, language=telegram))
        page = new_page(browser, served, 390, 844, locale=phone)
        page.goto(app_url(served.base, raw, theme))
        expect(page.locator("#my[data-state=signed-in]")).to_be_visible()
        assert page.locator("html").get_attribute("lang") == want
        assert f"lang={want}" in page.url and "tgWebAppData=" in page.url
        title = "نتیجه‌های من" if want == "fa" else "My results"
        expect(page.locator("#my-title")).to_contain_text(title)
        page.locator(".cards a").first.click()
        page.wait_for_url("**/b/**")
        assert page.locator("html").get_attribute("lang") == want
        # an address that chose its language keeps it: no reload into the bot's
        other = "en" if want == "fa" else "fa"
        page.goto(app_url(served.base, raw, theme).replace("/app#", f"/app?lang={other}#"))
        expect(page.locator("#my[data-state=signed-in]")).to_be_visible()
        assert page.locator("html").get_attribute("lang") == other
        page.context.close()


def test_an_ordinary_browser_loads_nothing_from_telegram(served: Served, browser: Browser) -> None:
    before = len(served.sdk_loads)
    page = new_page(browser, served)
    for path in ("/", "/b/primebench", "/b/zerobench?lang=fa", "/r/" + served.tokens["best"]):
        page.goto(served.base + path)
        expect(page.locator("main")).to_be_visible()
    assert len(served.sdk_loads) == before and served.third_party == []
    page.context.close()


# --- Persian figures ---------------------------------------------------------------------

#: For every left-to-right isolate on the page holding a sign or a percent: where each of
#: those characters is drawn against the digit that follows it in the text.
SIGNS_JS = """
() => {
  const out = [];
  const marks = "+−-٪%";
  for (const el of document.querySelectorAll("bdi")) {
    const text = el.textContent;
    const node = el.firstChild;
    if (!node || node.nodeType !== 3) continue;
    for (let i = 0; i < text.length - 1; i++) {
      if (!marks.includes(text[i]) || !/[0-9۰-۹]/.test(text[i + 1])) continue;
      const at = (k) => { const r = document.createRange(); r.setStart(node, k);
                          r.setEnd(node, k + 1); return r.getBoundingClientRect(); };
      const sign = at(i), digit = at(i + 1);
      out.push({text, char: text[i], dir: el.getAttribute("dir"),
                left: sign.right <= digit.left + 0.5});
    }
  }
  return out;
}
"""


def test_persian_pages_put_every_sign_and_percent_left_of_its_number(
    served: Served, browser: Browser
) -> None:
    page = new_page(browser, served)
    seen: set[str] = set()
    for path, name in (("/b/primebench?lang=fa", "fa-board"),
                       ("/b/zerobench?lang=fa", "fa-zerobench"),
                       ("/?lang=fa", "fa-index"),
                       ("/b/natory?lang=fa", "fa-natory"),
                       ("/r/" + served.tokens["best"] + "?lang=fa", "fa-result")):  # fmt: skip
        page.goto(served.base + path)
        assert page.locator("html").get_attribute("dir") == "rtl"
        # every figure cell is an ltr isolate, in Persian digits
        cells = page.locator("td.num, .leaders b.num, #score")
        assert cells.count() > 0
        for i in range(cells.count()):
            cell = cells.nth(i)
            figures = cell.locator("bdi")  # the figure, and a score's interval under it
            assert figures.count() >= 1, path
            for bdi in figures.all():
                assert bdi.get_attribute("dir") == "ltr", path
                text = bdi.inner_text()
                assert not any(c in "0123456789" for c in text), (path, text)
        found = page.evaluate(SIGNS_JS)
        for sign in found:
            assert sign["dir"] == "ltr" and sign["left"], (path, sign)
            seen.add(sign["char"])
        screen(page, name)
    assert {"+", "٪"} <= seen  # signed scores and percentages were on those pages
    # the SVG chart is drawn left to right, its ticks in Persian digits
    page.goto(served.base + "/b/natory?lang=fa")
    svg = page.locator("svg.chart")
    assert svg.get_attribute("direction") == "ltr"
    ticks = svg.locator("text:not(.label)").all_text_contents()
    assert any(c in "۰۱۲۳۴۵۶۷۸۹" for c in "".join(ticks))
    assert not any(c in "0123456789" for c in "".join(ticks))
    # so is the chart of scores with their intervals: its ticks and scores (not the
    # models' names, which are as their users wrote them)
    page.goto(served.base + "/b/primebench?lang=fa")
    figures = page.locator("svg.chart text:not(.label)").all_text_contents()
    assert figures and any(c in "۰۱۲۳۴۵۶۷۸۹" for c in "".join(figures))
    assert not any(c in "0123456789" for c in "".join(figures)), figures
    page.context.close()


# --- questions ---------------------------------------------------------------------------


def test_the_questions_page_lists_each_question_with_its_shares(
    served: Served, browser: Browser
) -> None:
    page = new_page(browser, served)
    page.goto(served.base + "/b/primebench")
    page.click("#questions-link")
    page.wait_for_url("**/b/primebench/questions")
    rows = page.locator("#questions tbody tr")
    expect(rows).to_have_count(20)  # the generated key's 20 questions
    first = rows.first.locator("td").all_inner_texts()
    assert first[0] == "1" and all(cell.endswith("%") for cell in first[1:4])
    assert sum(float(cell[:-1]) for cell in first[1:4]) == pytest.approx(100, abs=0.2)
    page.click("#sort-right")  # the most answered right first
    page.wait_for_url("**sort=right**")
    rights = [float(t[:-1]) for t in page.locator("#questions td.share-right").all_inner_texts()]
    assert rights == sorted(rights, reverse=True) and rights[0] > rights[-1]
    expect(page.locator("th[aria-sort=descending]")).to_contain_text("Right")
    screen(page, "questions")
    page.goto(served.base + "/b/primebench/questions?sort=none&lang=fa")
    for sign in page.evaluate(SIGNS_JS):
        assert sign["dir"] == "ltr" and sign["left"], sign
    screen(page, "fa-questions")
    page.context.close()

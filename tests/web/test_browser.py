"""The web boards in a real browser: Debian's headless Chromium driven by Playwright
(the system's browser, never a downloaded one), against ``benchboard web`` running as
its own process over a database filled by ``fixtures.fill``.

Skipped, saying how to install it, where there is no Chromium: ``apt-get install
chromium`` (or point ``BENCHBOARD_CHROMIUM`` at one). Screenshots are kept in
``tests/web/artifacts/`` (ignored by git)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from . import fixtures
from .conftest import BOT_TOKEN
from .test_initdata import fields, signed
from .webproc import web_process

ARTIFACTS = Path(__file__).with_name("artifacts")
CHROMIUM = os.environ.get("BENCHBOARD_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
INSTALL = (
    "needs a Chromium browser and Playwright for Python: apt-get install chromium "
    "(Debian/Ubuntu; or set BENCHBOARD_CHROMIUM to a Chromium binary) and "
    "pip install -e '.[dev]'"
)

try:
    from playwright.sync_api import Browser, Page, expect, sync_playwright
except ImportError:  # pragma: no cover - the dev extra brings it
    pytest.skip(f"Playwright is not installed: {INSTALL}", allow_module_level=True)
if not Path(CHROMIUM).is_file():
    pytest.skip(f"no Chromium at {CHROMIUM}: {INSTALL}", allow_module_level=True)


@contextlib.contextmanager
def serve(folder: Path, path: Path) -> Iterator[str]:
    """``benchboard web`` as its own process over the database at ``path``; its base URL."""
    env = {
        **os.environ,
        "BENCHBOARD_DB": str(path),
        "BENCHBOARD_DATA_DIR": str(folder),
        "BENCHBOARD_TOKEN": BOT_TOKEN,
        "BENCHBOARD_BOT_USERNAME": "bench_test_bot",
    }
    with web_process(folder, env) as base:
        yield base


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    folder = tmp_path_factory.mktemp("web")
    path = folder / "web.sqlite3"
    asyncio.run(fixtures.fill(path))
    with serve(folder, path) as base:
        yield base, fixtures.tokens(path)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


def shot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    print(f"screenshot: {path}")
    return path


def models(page: Page) -> list[str]:
    return [text.strip() for text in page.locator("#board tbody td.model").all_inner_texts()]


def test_a_board_its_filters_a_result_and_persian(
    server: tuple[str, dict[str, str]], browser: Browser
) -> None:
    base, _ = server
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(base + "/")
    expect(page.locator("#my-link")).to_be_hidden()  # outside Telegram
    page.get_by_role("link", name="PrimeBench").first.click()
    expect(page.locator("#board")).to_be_visible()
    assert models(page)[:2] == ["Alpha Large", "Beta"]
    assert page.locator("#credit").inner_text().startswith("PrimeBench by JibayAI")
    assert shot(page, "board").stat().st_size > 10_000
    page.select_option("#f-mode", "think")
    page.click("#f-apply")
    page.wait_for_url("**mode=think**")
    assert models(page) == ["Alpha Large"]
    page.goto(base + "/b/primebench")
    page.check("#f-verified")
    page.click("#f-apply")
    page.wait_for_url("**verified=1**")
    assert models(page) == ["Beta"]
    page.goto(base + "/b/primebench")
    page.get_by_role("link", name="Wrong").click()
    expect(page.locator("th[aria-sort=descending]")).to_have_text("Wrong ▼")
    page.click("#next")
    page.wait_for_url("**page=2**")
    page.goto(base + "/b/primebench")
    page.get_by_role("link", name="Alpha Large").click()
    page.wait_for_url("**/r/**")
    expect(page.locator("h1")).to_have_text("PrimeBench result")
    expect(page.locator("#invalid")).to_contain_text("I think that is all.")
    assert "start=r_" in (page.locator("#open-in-bot").get_attribute("href") or "")
    page.click("#lang-fa")
    assert page.locator("html").get_attribute("dir") == "rtl"
    assert page.locator("html").get_attribute("lang") == "fa"
    expect(page.locator("h1")).to_have_text("نتیجهٔ PrimeBench")
    page.goto(base + "/b/natory?lang=fa")
    assert page.locator("html").get_attribute("dir") == "rtl"
    expect(page.locator("svg.chart polyline")).to_have_count(1)
    shot(page, "natory-fa")
    page.close()


def test_every_page_works_without_javascript(
    server: tuple[str, dict[str, str]], browser: Browser
) -> None:
    base, _ = server
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(base + "/b/primebench")
    page.select_option("#f-window", "7d")
    page.click("#f-apply")
    page.wait_for_url("**window=7d**")
    expect(page.locator("#empty")).to_be_visible()
    page.goto(base + "/b/zerobench")
    assert models(page) == ["Zed One", "Zed Two"]
    context.close()


def app_url(base: str, init_data: str, theme: dict[str, Any]) -> str:
    fragment = f"tgWebAppData={quote(init_data, safe='')}&tgWebAppVersion=8.0"
    fragment += "&tgWebAppThemeParams=" + quote(json.dumps(theme), safe="")
    return f"{base}/app#{fragment}"


def test_the_mini_app_signs_in_with_valid_init_data_only(
    server: tuple[str, dict[str, str]], browser: Browser
) -> None:
    base, _ = server
    theme = {"bg_color": "#102030", "text_color": "#fafafa", "button_color": "#ff0000"}
    raw = signed(
        BOT_TOKEN, fields(user_id=fixtures.PUBLIC_USER, auth_date=int(time.time()), language="en")
    )
    page = browser.new_page(viewport={"width": 420, "height": 800})
    page.route("https://telegram.org/**", lambda route: route.abort())  # no network here
    page.goto(app_url(base, raw, theme))
    expect(page.locator("#my[data-state=signed-in]")).to_be_visible()
    expect(page.locator("#my-title")).to_contain_text("My results")
    expect(page.locator("#my")).to_contain_text("Alpha Large")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(16, 32, 48)"  # Telegram's theme colour
    shot(page, "mini-app")
    # the boards opened from there keep Telegram's theme, and the way back to "my results"
    page.locator("#bench-primebench a, .card h2 a").first.click()
    page.wait_for_url("**/b/primebench")
    expect(page.locator("#my-link")).to_be_visible()
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(16, 32, 48)"
    forged = signed("42:another-bot", fields(user_id=fixtures.PUBLIC_USER))
    page.goto("about:blank")
    page.goto(app_url(base, forged, theme))
    expect(page.locator("#my[data-state=refused]")).to_be_visible()
    expect(page.locator("#refused")).to_be_visible()
    assert "Alpha Large" not in page.locator("#my").inner_text()
    page.close()


#: Where the screenshots the README shows are kept: ``docs/screens/`` when
#: ``BENCHBOARD_DOC_SCREENS=1`` (to refresh them), else beside the others (a test run
#: leaves the work tree clean: the fixtures' dates change every day).
SCREENS = (
    Path(__file__).resolve().parents[2] / "docs" / "screens"
    if os.environ.get("BENCHBOARD_DOC_SCREENS") == "1"
    else ARTIFACTS
)


def doc_shot(page: Page, name: str) -> Path:
    """A screenshot of a page as the README shows it."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    path = SCREENS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 10_000
    return path


def meta(page: Page, name: str) -> str:
    found = page.locator(f'meta[property="{name}"], meta[name="{name}"]')
    return found.first.get_attribute("content") or ""


def fetch(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type", ""), exc.read()


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_link_previews_and_icons(server: tuple[str, dict[str, str]], browser: Browser) -> None:
    base, tokens = server
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{base}/r/{tokens['best']}")
    image = meta(page, "og:image")
    assert image == f"{base}/r/{tokens['best']}/card.png"  # absolute
    assert meta(page, "twitter:card") == "summary_large_image"
    assert meta(page, "twitter:image") == image
    description = meta(page, "og:description")
    assert "Alpha Large" in description and "+18" in description and "PrimeBench" in description
    status, kind, body = fetch(image)
    assert status == 200 and kind == "image/png"
    assert png_size(body) == (1080, 1350)  # the result's card
    assert fetch(image)[2] == body  # kept: the same bytes
    for path in ("/", "/b/primebench", "/b/zerobench", "/b/natory"):
        page.goto(base + path)
        assert meta(page, "og:title") and meta(page, "og:description")
        preview = meta(page, "og:image")
        assert preview.startswith(base + "/")
        status, kind, body = fetch(preview)
        assert status == 200 and kind == "image/png", path
        width, _ = png_size(body)
        assert width in (1080, 1200)
    status, kind, body = fetch(base + "/favicon.ico")
    assert status == 200 and body[:4] == b"\x00\x00\x01\x00"  # an ICO
    page.goto(base + "/")
    for rel in ("icon", "apple-touch-icon", "manifest"):
        href = page.locator(f'link[rel="{rel}"]').first.get_attribute("href") or ""
        assert fetch(base + href)[0] == 200, rel
    status, _, body = fetch(base + "/b/nosuch/card.png")
    assert status == 404
    page.close()


PAGES = ("/", "/b/primebench", "/b/zerobench", "/b/natory", "/b/primebench?lang=fa",
         "/b/natory?lang=fa", "/nosuch", "/b/primebench?q=alpha")  # fmt: skip


def test_no_page_scrolls_sideways_on_a_phone_and_boards_fit_a_wide_screen(
    server: tuple[str, dict[str, str]], browser: Browser
) -> None:
    base, tokens = server
    phone = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    for path in (*PAGES, f"/r/{tokens['best']}", f"/r/{tokens['best']}?lang=fa",
                 f"/g/{tokens['web']}"):  # fmt: skip
        phone.goto(base + path)
        width = phone.evaluate("document.documentElement.scrollWidth")
        inner = phone.evaluate("window.innerWidth")
        assert width <= inner, f"{path}: {width} px wide on a {inner} px screen"
    phone.goto(base + "/b/primebench")
    cells = phone.locator("#board tbody tr").first.locator("td")
    label = cells.nth(3).evaluate("e => getComputedStyle(e, '::before').content")
    assert label.strip('"') == "Score"  # each value beside its label
    doc_shot(phone, "board-390")
    phone.goto(f"{base}/r/{tokens['best']}")
    doc_shot(phone, "result-390")
    phone.close()
    wide = browser.new_page(viewport={"width": 1280, "height": 900})
    for path in ("/b/primebench", "/b/zerobench", "/b/natory", "/b/primebench?lang=fa",
                 f"/g/{tokens['web']}"):  # fmt: skip
        wide.goto(base + path)
        assert wide.evaluate("document.documentElement.scrollWidth") <= 1280, path
        table = wide.locator("#board")
        fits = table.evaluate("t => t.scrollWidth <= t.parentElement.clientWidth")
        assert fits, f"{path}: the table is wider than its box"
        last = wide.locator("#board thead th").last.bounding_box()
        assert last is not None and last["x"] + last["width"] <= 1280, path
    wide.goto(base + "/b/primebench")
    doc_shot(wide, "board-1280")
    wide.goto(base + "/b/zerobench")
    doc_shot(wide, "zerobench-1280")
    wide.goto(base + "/b/natory")
    doc_shot(wide, "natory-1280")
    wide.goto(base + "/")
    doc_shot(wide, "index")
    wide.goto(f"{base}/r/{tokens['best']}")
    doc_shot(wide, "result")
    wide.close()


#: Every text on the page whose colour against its background reads below WCAG AA (4.5:1,
#: 3:1 for large text): [text, ratio].
CONTRAST_JS = """
() => {
  const rgb = c => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = c => {
    const [r, g, b] = c.slice(0, 3).map(v => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const background = el => {
    for (; el; el = el.parentElement) {
      const c = rgb(getComputedStyle(el).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c;
    }
    return [255, 255, 255];
  };
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    const own = [...el.childNodes].filter(n => n.nodeType === 3)
      .map(n => n.textContent).join("").trim();
    const style = getComputedStyle(el);
    if (!own || !el.getClientRects().length || style.visibility === "hidden") continue;
    const a = lum(rgb(style.color)), b = lum(background(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (parseInt(style.fontWeight) >= 700 && size >= 18.66);
    if (ratio < (large ? 3 : 4.5)) out.push([own.slice(0, 40), Math.round(ratio * 100) / 100]);
  }
  return out;
}
"""


#: The smallest text of the board's chart as drawn, in pixels (None: no chart).
SMALLEST_CHART_TEXT_JS = """
() => {
  const svg = document.querySelector("#chart svg");
  if (!svg) return null;
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const sizes = [...svg.querySelectorAll("text")].map(t => Number(t.getAttribute("font-size")));
  return Math.min(...sizes) * scale;
}
"""


def test_every_page_fits_320_px_and_reads_in_light_and_dark(
    server: tuple[str, dict[str, str]], browser: Browser
) -> None:
    """The narrowest phone (320 px): no page scrolls sideways, the questions' table
    included; every text, buttons' too, reads at WCAG AA contrast in either colour
    scheme; every page has its one heading (the Mini App's for screen readers only)."""
    base, tokens = server
    paths = (*PAGES, "/b/primebench/questions", "/b/primebench/questions?lang=fa", "/app",
             f"/r/{tokens['best']}", f"/r/{tokens['best']}?lang=fa",
             f"/g/{tokens['web']}")  # fmt: skip
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport={"width": 320, "height": 700}, color_scheme=scheme)
        page = context.new_page()
        page.route("https://telegram.org/**", lambda route: route.abort())
        for path in paths:
            page.goto(base + path)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 320, f"{path}: {width} px wide on a 320 px screen"
            assert page.evaluate(CONTRAST_JS) == [], (scheme, path)
            assert page.locator("h1").count() == 1, path  # a heading to find the page by
            # every table named (by its heading) for a screen reader's list of tables
            tables = page.get_by_role("table")
            named = page.get_by_role("table", name=re.compile(r"\S"))
            assert tables.count() == named.count(), path
            # a chart's words stay legible (10 px or more), its box scrolling if need be
            smallest = page.evaluate(SMALLEST_CHART_TEXT_JS)
            assert smallest is None or smallest >= 10, (path, smallest)
        context.close()


def test_on_a_phone_the_keyboard_never_lands_on_what_is_not_drawn(
    server: tuple[str, dict[str, str]], browser: Browser
) -> None:
    """A board's column headings are hidden on a phone (each value has its label): the
    sort link the keyboard is on shows with them, and a score sits with its interval at
    the end of its line."""
    base, _ = server
    page = browser.new_page(viewport={"width": 390, "height": 800})
    page.goto(base + "/b/primebench")
    head = page.locator("#board thead")
    assert head.evaluate("e => e.getBoundingClientRect().width") <= 1  # not drawn
    page.locator("#board thead a").first.focus()
    # drawn where it is: what the screen shows at its middle is the link itself
    shown = page.evaluate(
        "() => { const e = document.activeElement; e.scrollIntoView({block: 'center'});"
        " const r = e.getBoundingClientRect();"
        " const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
        " return r.left >= 0 && r.right <= innerWidth && (at === e || e.contains(at)); }"
    )
    assert shown
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.locator("#f-q").focus()  # away again: hidden
    assert head.evaluate("e => e.getBoundingClientRect().width") <= 1
    cell = page.locator("#board tbody tr").first.locator("td.num:has(.ci)")
    score, interval = cell.locator("bdi").first, cell.locator(".ci")
    score_box, interval_box = score.bounding_box(), interval.bounding_box()
    assert score_box is not None and interval_box is not None
    gap = interval_box["x"] - (score_box["x"] + score_box["width"])
    assert 0 <= gap < 16, gap  # side by side, not spread over the line
    page.close()


def test_charts_search_credits_and_the_way_to_the_bot(
    server: tuple[str, dict[str, str]], browser: Browser
) -> None:
    base, _ = server
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    for name in ("primebench", "zerobench", "natory"):
        page.goto(f"{base}/b/{name}")
        expect(page.locator("#chart svg.chart")).to_have_count(1)
        expect(page.locator("#about")).to_be_visible()
    page.goto(base + "/b/zerobench")  # pass@1 with its Wilson interval
    expect(page.locator("#chart svg .dot")).to_have_count(2)
    expect(page.locator("#chart svg .interval")).to_have_count(2)
    page.goto(base + "/b/primebench")
    expect(page.locator("#about-prompt")).to_be_visible()
    page.fill("#f-q", "alpha")
    page.click("#f-apply")
    page.wait_for_url("**q=alpha**")
    assert models(page) == ["Alpha Large"]
    expect(page.locator("#chart svg .dot")).to_have_count(1)
    page.click("#search-clear")
    page.wait_for_url(lambda url: "q=" not in url)
    assert len(models(page)) == 25
    page.goto(base + "/b/primebench?q=filler&page=2")  # search pages
    assert models(page) and all(m.startswith("Filler") for m in models(page))
    assert "JibayAI" in page.content()
    for path in ("/b/zerobench", "/b/natory", "/nosuch", "/b/primebench?page=99"):
        page.goto(base + path)
        assert "JibayAI" not in page.content() and "CC BY-ND" not in page.content(), path
        expect(page.locator("#footer")).to_contain_text("Benchboard")
    page.goto(base + "/b/zerobench")
    expect(page.locator("#about-credit")).to_contain_text("Jonathan Roberts")
    page.goto(base + "/")
    expect(page.locator("#bot-link")).to_have_attribute("href", "https://t.me/bench_test_bot")
    page.close()

"""Intervals, ties, signed results and provenance in a real browser (headless Chromium),
against ``benchboard web`` running as its own process (``test_browser``'s server)."""

from __future__ import annotations

import base64
import json
import urllib.request
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from .test_browser import Browser, expect, server, shot  # noqa: F401 (fixtures)
from .test_browser import browser as browser


def fetch(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def test_benchmark_web_boards_have_ci95_and_signed_results(
    server: tuple[str, dict[str, str]],  # noqa: F811
) -> None:
    base, tokens = server
    for name in ("primebench", "zerobench", "natory"):
        data = fetch(f"{base}/b/{name}.json?per=100")
        for row in data["rows"]:
            assert "ci95" in row
            if row["ci95"] is not None:
                low, high = row["ci95"]
                assert low <= row["score"] <= high
        if name != "natory":  # one Natory attempt has no questions to measure
            assert all(row["ci95"] is not None for row in data["rows"])
    key = fetch(f"{base}/signing-key")
    public = Ed25519PublicKey.from_public_bytes(base64.b64decode(key["public_key"]))
    record = fetch(f"{base}/r/{tokens['best']}.json")
    rest = {k: v for k, v in record.items() if k != "signature"}
    text = json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    public.verify(base64.b64decode(record["signature"]), text.encode("utf-8"))


def test_the_board_shows_intervals_and_ties_and_the_result_its_json(
    server: tuple[str, dict[str, str]],  # noqa: F811
    browser: Browser,
) -> None:
    base, _ = server
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(base + "/b/primebench")
    first = page.locator("#board tbody tr").first
    expect(first.locator("td.num .ci").first).to_be_visible()
    expect(first.locator("td.num .ci").first).to_have_text("[15.3, 20.7]")  # 18 ± 1.96 x 1.38
    expect(page.locator("#board tbody .tied").first).to_be_visible()
    assert "overlaps" in (page.locator("#board tbody .tied").first.get_attribute("title") or "")
    expect(page.locator("#f-provider")).to_be_visible()
    page.fill("#f-provider", "nobody")
    page.click("#f-apply")
    page.wait_for_url("**provider=nobody**")
    expect(page.locator("#empty")).to_be_visible()
    page.goto(base + "/b/primebench")
    page.get_by_role("link", name="Alpha Large").click()
    page.wait_for_url("**/r/**")
    expect(page.locator("#signed-json")).to_be_visible()
    shot(page, "result-signed")
    with page.expect_response("**/r/*.json") as answer:
        page.click("#signed-json")
    signed = answer.value.json()
    assert signed["model"] == "Alpha Large" and signed["signature"]
    page.goto(base + "/b/primebench?lang=fa")
    expect(page.locator("#board tbody .tied").first).to_have_text("هم‌تراز")
    shot(page, "board-intervals-fa")
    page.close()

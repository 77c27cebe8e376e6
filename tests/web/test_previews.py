"""Link previews, icons, search, charts and credits over HTTP: OpenGraph tags with
absolute links, the card and board images (drawn once, kept by what they show), the
favicon and manifest, ``?q=`` on pages, CSV and JSON, each board's chart kind from the
Benchmark interface, and each benchmark's credit on its own pages only."""

from __future__ import annotations

import csv
import html
import io
import itertools
import json
import re

from bot.render.svgchart import render_intervals
from bot.render.webviews import IntervalPoint

from .conftest import Site
from .test_pages import models


def og(page: str, name: str) -> str:
    found = re.search(rf'<meta (?:property|name)="{re.escape(name)}" content="([^"]*)"', page)
    assert found, name
    return html.unescape(found[1])


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


async def test_a_result_page_previews_as_its_card(site: Site) -> None:
    token = site.tokens["best"]
    status, page, _ = await site.get(f"/r/{token}")
    assert status == 200
    image = og(page, "og:image")
    assert image == f"{site.base}/r/{token}/card.png"
    assert og(page, "og:url") == f"{site.base}/r/{token}"
    assert og(page, "twitter:card") == "summary_large_image"
    assert og(page, "og:image:width") == "1080" and og(page, "og:image:height") == "1350"
    description = og(page, "og:description")
    for part in ("Alpha Large", "think", "+18", "PrimeBench"):
        assert part in description
    async with site.session.get(image) as response:
        assert response.status == 200
        assert response.headers["Content-Type"] == "image/png"
        body = await response.read()
    assert png_size(body) == (1080, 1350)
    images = site.state.images
    assert images is not None and len(images.drawn_ms) == 1
    kept = list(images.folder.rglob("*.png")) if images.folder else []
    assert len(kept) == 1 and kept[0].read_bytes() == body  # on disk, by its digest
    site.state.forget()
    images.kept.clear()  # a restart: read back from the disk, not drawn again
    async with site.session.get(image) as response:
        assert await response.read() == body
    assert len(images.drawn_ms) == 1
    _, fa, _ = await site.get(f"/r/{token}?lang=fa")
    assert og(fa, "og:image").endswith("/card.png?lang=fa")
    assert og(fa, "og:locale") == "fa_IR"


async def test_hidden_results_and_unknown_boards_have_no_image(site: Site) -> None:
    for path in (f"/r/{site.tokens['hidden']}/card.png", "/r/nosuchtoken/card.png",
                 "/b/nosuch/card.png", "/b/primebench/card.png?x=1"):  # fmt: skip
        status, _, response = await site.get(path)
        assert status in (400, 404), path
        assert response.headers["Content-Type"].startswith("text/html")


async def test_boards_and_the_index_have_previews(site: Site) -> None:
    for path, image in (
        ("/", "/static/og.png"),
        ("/b/primebench", "/b/primebench/card.png"),
        ("/b/zerobench", "/b/zerobench/card.png"),
        ("/b/natory", "/b/natory/card.png"),
    ):
        _, page, _ = await site.get(path)
        assert og(page, "og:image") == site.base + image
        assert og(page, "og:title") and og(page, "twitter:image") == site.base + image
        async with site.session.get(site.base + image) as response:
            assert response.status == 200 and response.headers["Content-Type"] == "image/png"
            width, _ = png_size(await response.read())
            assert width in (1080, 1200)
    _, board, _ = await site.get("/b/primebench")
    assert "Alpha Large" in og(board, "og:description")
    _, group, _ = await site.get(f"/g/{site.tokens['web']}")
    assert og(group, "og:image") == site.base + "/static/og.png"  # no image of a group's


async def test_persian_previews_write_figures_in_persian_digits(site: Site) -> None:
    """A Persian page's preview text writes every figure as the page does: the score,
    and the board's ranks and leaders' scores (the model names stay as typed)."""
    _, result, _ = await site.get(f"/r/{site.tokens['best']}?lang=fa")
    for name in ("og:title", "og:description", "twitter:description"):
        text = og(result, name)
        assert "+۱۸" in text and "+18" not in text, name
    _, board, _ = await site.get("/b/primebench?lang=fa")
    text = og(board, "og:description")
    assert "۱." in text and "+۱۸" in text and "۲." in text, text
    # (the credit, a name and a license, stays as written)
    credit = "PrimeBench by JibayAI (jibay.ir), CC BY-ND 4.0"
    assert re.search("[0-9]", text.replace("Alpha Large", "").replace(credit, "")) is None, text
    _, zero, _ = await site.get("/b/zerobench?lang=fa")
    assert "٪۷۰٫۰" in og(zero, "og:description")


async def test_a_preview_says_the_size_of_its_image(site: Site) -> None:
    """og:image:width and height, when given, are the image's own (a group's board
    shows the site's 1200 x 630 image, not a board's 1080 px one)."""
    for path in ("/", f"/g/{site.tokens['web']}", f"/g/{site.tokens['web']}/zerobench",
                 f"/r/{site.tokens['best']}", "/b/primebench"):  # fmt: skip
        _, page, _ = await site.get(path)
        async with site.session.get(og(page, "og:image")) as response:
            width, height = png_size(await response.read())
        assert og(page, "og:image:width") == str(width), path
        if 'property="og:image:height"' in page:
            assert og(page, "og:image:height") == str(height), path


async def test_previews_use_the_public_address_when_set(site: Site) -> None:
    site.state.public_url = "https://boards.example.com"
    site.state.forget()
    _, page, _ = await site.get("/b/zerobench")
    assert og(page, "og:image") == "https://boards.example.com/b/zerobench/card.png"
    assert og(page, "og:url") == "https://boards.example.com/b/zerobench"


async def test_the_favicon_icons_and_manifest(site: Site) -> None:
    async with site.session.get(site.base + "/favicon.ico") as response:
        assert response.status == 200 and (await response.read())[:4] == b"\x00\x00\x01\x00"
    async with site.session.get(site.base + "/apple-touch-icon.png") as response:
        assert png_size(await response.read()) == (180, 180)
    async with site.session.get(site.base + "/manifest.webmanifest") as response:
        assert response.headers["Content-Type"].startswith("application/manifest+json")
        manifest = json.loads(await response.read())
    for icon in manifest["icons"]:
        async with site.session.get(site.base + icon["src"]) as response:
            assert response.status == 200, icon
    _, page, _ = await site.get("/")
    assert 'rel="icon" href="/favicon.ico"' in page and 'rel="apple-touch-icon"' in page


async def test_search_filters_models_on_pages_csv_and_json(site: Site) -> None:
    _, page, _ = await site.get("/b/primebench?q=ALPHA")
    assert models(page) == ["Alpha Large"]
    assert 'value="ALPHA"' in page and 'id="search-note"' in page
    _, fillers, _ = await site.get("/b/primebench?q=filler&per=10&page=2")
    assert len(models(fillers)) == 10 and all(m.startswith("Filler") for m in models(fillers))
    following = re.search(r'<a href="([^"]*)" rel="next"', fillers)
    assert following and "q=filler" in following[1] and "page=3" in following[1]
    data = json.loads((await site.get("/b/primebench.json?q=filler&per=50"))[1])
    assert data["total"] == 30 and len(data["rows"]) == 30
    assert data["filters"]["q"] == "filler"
    data = json.loads((await site.get("/b/primebench.json?q=filler&sort=wrong&order=desc"))[1])
    assert all(r["model"].startswith("Filler") for r in data["rows"])
    _, text, _ = await site.get("/b/zerobench.csv?q=two")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["model"] for r in rows if r["model"]] == ["Zed Two"]  # then its credit
    _, nat, _ = await site.get("/b/natory?q=cheap")
    assert models(nat) == ["Nat Cheap"]
    _, none, _ = await site.get("/b/primebench?q=no-such-model")
    assert 'id="empty"' in none and "No model matches" in none
    _, reported, _ = await site.get("/b/primebench?q=omega")
    assert "Omega" in reported  # the authors' reported results are searched too
    for bad in ("/b/primebench?q=" + "x" * 101, "/b/primebench?q=%00"):
        assert (await site.get(bad))[0] == 400
    spec = json.loads((await site.get("/openapi.json"))[1])
    params = spec["paths"]["/b/{benchmark}.json"]["get"]["parameters"]
    assert "q" in {p["name"] for p in params}


async def test_every_board_has_its_chart(site: Site) -> None:
    _, prime, _ = await site.get("/b/primebench")
    assert 'class="chart intervals"' in prime and prime.count('class="dot"') == 25
    _, zero, _ = await site.get("/b/zerobench")
    assert zero.count('class="interval"') == 2  # pass@1 with its Wilson interval
    _, nat, _ = await site.get("/b/natory")
    assert "<polyline" in nat and 'class="chart intervals"' not in nat
    _, group, _ = await site.get(f"/g/{site.tokens['web']}")
    assert 'class="chart intervals"' in group


def test_the_chart_of_scores_draws_intervals_and_isolates_numbers() -> None:
    svg = render_intervals(
        [
            IntervalPoint('<b onload="x"> · think', 0.7, (0.397, 0.892), "70.0%"),
            IntervalPoint("plain · default", 0.3, None, "30.0%"),
        ],
        fmt=lambda v: f"{v:.0%}",
        label="scores & <more>",
    )
    assert svg.startswith("<svg") and svg.endswith("</svg>") and "style=" not in svg
    assert "<b onload" not in svg and "&lt;b onload=&quot;x&quot;&gt;" in svg
    assert svg.count('class="interval"') == 1 and svg.count('class="dot"') == 2
    numbers = re.findall(r'<text [^>]*direction="ltr" unicode-bidi="isolate">([^<]*)</text>', svg)
    assert "70.0%" in numbers and "30.0%" in numbers and "0%" in numbers
    assert "40% – 89%" in svg  # the interval in the tooltip


async def test_each_benchmark_credits_its_own_authors_only(site: Site) -> None:
    _, prime, _ = await site.get("/b/primebench")
    assert "JibayAI" in prime and "CC BY-ND 4.0" in prime and 'id="about"' in prime
    assert "Based on the questions, choose the correct option." in prime  # the prompt
    _, result, _ = await site.get(f"/r/{site.tokens['best']}")
    assert "JibayAI" in result
    # a preview quoting PrimeBench scores carries the credit too; another's does not
    credit = "PrimeBench by JibayAI (jibay.ir), CC BY-ND 4.0"
    for path in (f"/r/{site.tokens['best']}", f"/r/{site.tokens['best']}?lang=fa",
                 "/b/primebench", "/b/primebench?lang=fa", f"/g/{site.tokens['web']}"):  # fmt: skip
        _, page, _ = await site.get(path)
        for name in ("og:description", "twitter:description", "description"):
            assert credit in og(page, name), (path, name)
    for path in ("/b/zerobench", f"/g/{site.tokens['web']}/zerobench", "/",
                 "/b/primebench?q=nothing-like-it"):  # fmt: skip
        _, page, _ = await site.get(path)
        assert "JibayAI" not in og(page, "og:description"), path
    for path in ("/b/zerobench", "/b/natory", "/nosuch", "/b/primebench?page=99",
                 "/r/nosuchtoken", "/b/primebench?mode=fast"):  # fmt: skip
        _, page, _ = await site.get(path)
        assert "JibayAI" not in page and "CC BY-ND" not in page, path
        assert "Benchboard" in page.split('id="footer"')[1]
    _, zero, _ = await site.get("/b/zerobench")
    assert "Jonathan Roberts" in zero and "arxiv.org/abs/2502.09696" in zero
    _, nat, _ = await site.get("/b/natory")
    assert "Natory game" in nat
    _, fa, _ = await site.get("/b/zerobench?lang=fa")
    assert "دربارهٔ این بنچمارک" in fa


def test_a_data_defined_benchmark_credits_its_file() -> None:
    from bot.web.pages import about
    from scoring.choice import ChoiceBenchmark, Definition, Points

    defined = ChoiceBenchmark(
        Definition(
            "tinymcq",
            "TinyMCQ",
            5,
            Points(2, -1, 0),
            prompt="Answer Q:O.",
            credit="TinyMCQ by Example Lab",
            license="CC BY 4.0",
        )
    )
    block = about(defined, "en")
    assert block.credit == "TinyMCQ by Example Lab · CC BY 4.0" and block.license == ""
    assert "options 1 to 5" in block.measures and "counts 2" in block.rule
    assert "-1" in block.rule and block.prompt == "Answer Q:O."
    assert "JibayAI" not in repr(block)


def test_costs_spread_wide_are_drawn_on_a_log_axis() -> None:
    from bot.render.svgchart import render_svg
    from bot.render.webviews import ChartPoint

    points = [ChartPoint(f"m{i}", cost, 10.0 + i, i == 3) for i, cost in
              enumerate((0.0005, 0.002, 0.01, 0.4))]  # fmt: skip
    svg = render_svg(points, cost_label="cost", score_label="score", log_cost_label="cost (log)")
    assert "cost (log)" in svg
    ticks = re.findall(r'text-anchor="middle" font-size="11" fill="currentColor" '
                       r'direction="ltr" unicode-bidi="isolate">([^<]*)<', svg)  # fmt: skip
    assert {"0.001", "0.01", "0.1"} <= set(ticks)
    xs = [float(x) for x in re.findall(r'<circle cx="([0-9.]+)"', svg)]
    gaps = [b - a for a, b in itertools.pairwise(xs)]
    assert min(gaps) > 40  # the cheap models are spread, not pressed against the axis
    narrow = render_svg(points[:2], cost_label="cost", score_label="s", log_cost_label="log")
    assert "log" not in narrow


async def test_the_index_has_no_bot_link_when_the_username_is_unknown(site: Site) -> None:
    site.state.bot_username = lambda: None
    site.state.forget()
    _, page, _ = await site.get("/")
    assert "t.me/" not in page and 'id="bot-link"' not in page
    assert "Benchboard" in page.split('id="footer"')[1]


async def test_searches_of_a_board_share_one_read_of_its_lines(site: Site) -> None:
    services = site.state.services
    services.scans.clear()
    _, first, _ = await site.get("/b/primebench?q=filler")
    assert len(models(first)) == 25 and len(services.scans) == 1
    _, other, _ = await site.get("/b/primebench?q=beta")
    assert models(other) == ["Beta"] and len(services.scans) == 1  # the same lines
    _, think, _ = await site.get("/b/primebench?q=alpha&mode=think")
    assert models(think) == ["Alpha Large"] and len(services.scans) == 2  # other filters


async def test_a_persian_boards_chart_names_modes_in_persian(site: Site) -> None:
    """The chart's model lines say their mode as the table beside them does."""
    from bot.render.format import mode_label

    for path, line in (("/b/natory", "Nat Cheap · "), ("/b/primebench", "Alpha Large · ")):
        _, page, _ = await site.get(path + "?lang=fa")
        svg = page.split("<svg", 1)[1].split("</svg>", 1)[0]
        labels = re.findall(rf"{re.escape(line)}([^<:]+)", html.unescape(svg))
        assert labels, path
        for shown in labels:
            assert shown.strip() in (mode_label("default", "fa"), mode_label("think", "fa"))
        _, english, _ = await site.get(path)
        assert line + "default" in english or line + "think" in english

"""The web boards over HTTP: pages, filters, paging, sorting, downloads, privacy,
escaping, caching and refusals, against a real store filled by the real scorers."""

from __future__ import annotations

import csv
import html
import io
import json
import math
import re

from storage import Store

from . import fixtures
from .conftest import Site

IDS = (str(fixtures.PUBLIC_USER), str(fixtures.SECRET_USER), str(abs(fixtures.GROUP)))


def no_ids(text: str) -> None:
    for user_id in IDS:
        assert user_id not in text
    assert "Secret Sam" not in text and "secretsam" not in text


def models(page: str) -> list[str]:
    body = page.split('id="board"', 1)[1].split("</table>", 1)[0]
    return [
        html.unescape(name)
        for name in re.findall(r'<td class="model"[^>]*>(?:<a href="[^"]*">)?([^<]*)', body)
    ]


async def test_the_front_page_lists_every_benchmark_with_its_leaders(site: Site) -> None:
    status, html, response = await site.get("/")
    assert status == 200
    assert response.headers["Content-Type"].startswith("text/html")
    for title in ("PrimeBench", "ZeroBench", "Natory"):
        assert title in html
    assert "Alpha Large" in html and "Zed One" in html and "Nat Cheap" in html
    # each benchmark's credit stands beside its own scores only; the site names Benchboard
    prime, rest = html.split('id="bench-primebench"')[1].split("</section>", 1)
    assert "PrimeBench by JibayAI" in prime
    assert "JibayAI" not in rest and "JibayAI" not in html.split('id="bench-primebench"')[0]
    assert 'id="footer"' in html and "Benchboard" in html.split('id="footer"')[1]
    assert 'href="https://t.me/bench_test_bot"' in html  # the way to the bot
    no_ids(html)


async def test_a_board_shows_its_columns_marks_and_names_only_of_public_users(site: Site) -> None:
    status, html, _ = await site.get("/b/primebench")
    assert status == 200
    assert '<html lang="en" dir="ltr">' in html
    shown = models(html)
    assert shown[:2] == ["Alpha Large", "Beta"]
    assert "Hidden Model" not in html and "Withdrawn Model" not in html
    for heading in ("Correct", "Wrong", "Unanswered", "Coverage", "Runs", "Mean", "First", "Last"):
        assert f">{heading}<" in html
    assert "verified" in html and "self-reported" in html
    assert "reported by the authors" in html and "Omega" in html  # the reported results
    assert ">Ada<" in html and "anonymous" in html
    assert "PrimeBench by JibayAI" in html  # the license's credit beside the scores
    first = html.split("<tbody>", 1)[1].split("</tr>", 1)[0]
    assert ">+18<" in first and ">18<" in first and "90.0%" in first  # score, correct, coverage
    assert re.search(r"<code>[0-9a-f]{8}</code>", first)  # the key's short hash
    no_ids(html)


async def test_model_names_are_escaped_everywhere(site: Site) -> None:
    _, html, _ = await site.get("/b/primebench")
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#34;quotes&#34;" in html
    _, group, _ = await site.get(f"/g/{site.tokens['web']}")
    assert "Test &lt;Group&gt;" in group and "<Group>" not in group


async def test_filters_narrow_the_board(site: Site) -> None:
    _, think, _ = await site.get("/b/primebench?mode=think")
    assert models(think) == ["Alpha Large"]
    _, verified, _ = await site.get("/b/primebench?verified=1")
    assert models(verified) == ["Beta"]
    _, week, _ = await site.get("/b/primebench?window=7d")  # everything is 60 days old
    assert 'id="empty"' in week
    _, both, _ = await site.get("/b/primebench?mode=default&verified=1&window=all")
    assert models(both) == ["Beta"]


async def test_pages_and_sorting(site: Site) -> None:
    _, first, _ = await site.get("/b/primebench")
    _, second, _ = await site.get("/b/primebench?page=2")
    assert len(models(first)) == 25 and models(second)
    assert not set(models(first)) & set(models(second))
    assert 'rel="next"' in first and 'rel="prev"' in second
    status, by_wrong, _ = await site.get("/b/primebench?sort=wrong&order=desc")
    assert status == 200 and 'aria-sort="descending"' in by_wrong
    data = json.loads((await site.get("/b/primebench.json?sort=wrong&order=desc&per=50"))[1])
    wrong = [r["wrong"] for r in data["rows"]]
    assert wrong == sorted(wrong, reverse=True) and wrong[0] == 2
    data = json.loads((await site.get("/b/primebench.json?sort=coverage&order=asc"))[1])
    coverage = [r["coverage"] for r in data["rows"]]
    assert coverage == sorted(coverage)
    _, by_model, _ = await site.get("/b/primebench?sort=model&order=asc")
    names = models(by_model)
    assert names == sorted(names, key=str.casefold)


async def test_bad_requests_get_an_error_page_never_a_server_error(site: Site) -> None:
    cases = {
        "/b/nosuch": 404,
        "/b/primebench?page=9": 404,  # past the last page
        "/b/primebench?page=0": 400,
        "/b/primebench?page=abc": 400,
        "/b/primebench?page=99999999999999": 400,
        "/b/primebench?page=1&page=2": 400,
        "/b/primebench?mode=fast": 400,
        "/b/primebench?window=2d": 400,
        "/b/primebench?verified=yes": 400,
        "/b/primebench?sort=user_id": 400,
        "/b/primebench?order=sideways": 400,
        "/b/primebench?per=100000": 400,
        "/b/primebench?ref=x": 400,  # unknown: a filter mistyped, not a link's tracker
        "/b/primebench?lang=de": 400,
        "/b/primebench.json?sort=1%27%3B%20DROP%20TABLE%20submissions": 400,
        "/b/PRIMEBENCH": 404,
        "/r/nosuchtoken": 404,
        "/r/" + "x" * 40: 404,
        "/r/%00%01": 404,
        "/g/nosuchtoken": 404,
        "/nothing/here": 404,
        "/b/primebench/../../etc/passwd": 404,
    }
    for path, expected in cases.items():
        status, html, response = await site.get(path)
        assert status == expected, path
        assert "Content-Security-Policy" in response.headers, path
        if ".json" in path:  # a script's address: the error as JSON, said in words
            assert response.headers["Content-Type"].startswith("application/json"), path
            error = json.loads(html)["error"]
            assert error["status"] == expected and error["message"], path
        else:
            assert "<html" in html, path
    for path in ("/b/nosuch.json", "/r/nosuchtoken.json", "/b/primebench.json?page=9"):
        status, text, response = await site.get(path)
        assert status == 404 and response.headers["Content-Type"].startswith("application/json")
        assert json.loads(text)["error"]["status"] == 404, path
    for method in ("PUT", "PATCH", "DELETE"):  # whatever the method
        async with site.session.request(method, site.base + "/nothing/here") as r:
            assert r.status == 404 and "<html" in await r.text(), method


async def test_a_shared_link_with_a_click_tracker_opens_its_page(site: Site) -> None:
    """Facebook appends ``fbclid`` to a link posted there, mailers ``utm_*``: the page
    is sent to its own address without them (once), not refused as a bad filter."""
    best = site.tokens["best"]
    cases = {
        f"/r/{best}?fbclid=IwAR0abc": f"/r/{best}",
        f"/r/{best}?lang=fa&utm_source=telegram&utm_medium=share": f"/r/{best}?lang=fa",
        "/b/primebench?mode=think&FBCLID=x&page=1": "/b/primebench?mode=think&page=1",
        "/?gclid=1": "/",
        f"/g/{site.tokens['web']}?utm_campaign=x": f"/g/{site.tokens['web']}",
        "/b/zerobench.json?utm_source=ci": "/b/zerobench.json",
    }
    for path, clean in cases.items():
        status, _, response = await site.get(path)
        assert status == 301 and response.headers["Location"] == clean, path
        status, _, _ = await site.get(clean)
        assert status == 200, clean
    for path in ("//example.com/?fbclid=1", "/%5Cexample.com?fbclid=1"):
        status, _, response = await site.get(path)  # never a way off the site
        assert status == 404 and "Location" not in response.headers, path


async def test_security_headers(site: Site) -> None:
    _, _, response = await site.get("/b/primebench")
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp
    assert "unsafe-inline" not in csp
    assert response.headers["X-Content-Type-Options"] == "nosniff"


async def test_unchanged_pages_are_answered_not_modified(site: Site) -> None:
    status, _, response = await site.get("/b/primebench")
    etag, modified = response.headers["ETag"], response.headers["Last-Modified"]
    assert status == 200 and etag.startswith('"')
    status, body, _ = await site.get("/b/primebench", headers={"If-None-Match": etag})
    assert status == 304 and body == ""
    status, _, _ = await site.get("/b/primebench", headers={"If-Modified-Since": modified})
    assert status == 304
    status, _, _ = await site.get("/b/primebench", headers={"If-None-Match": '"other"'})
    assert status == 200
    site.state.forget()  # rendered again: the same body keeps its ETag
    status, _, again = await site.get("/b/primebench", headers={"If-None-Match": etag})
    assert status == 304 and again.headers["ETag"] == etag


async def test_persian_pages_are_right_to_left(site: Site) -> None:
    _, html, _ = await site.get("/b/primebench?lang=fa")
    assert '<html lang="fa" dir="rtl">' in html
    assert "ناشناس" in html and "فیلترها" in html
    assert 'href="/r/' in html and "lang=fa" in html  # links keep the chosen language
    _, by_header, response = await site.get("/", headers={"Accept-Language": "fa-IR,fa;q=0.9"})
    assert 'dir="rtl"' in by_header and "Accept-Language" in response.headers["Vary"]
    _, english, _ = await site.get("/", headers={"Accept-Language": "de, en;q=0.5, fa;q=0.1"})
    assert 'dir="ltr"' in english


def wilson(p: float, n: int) -> tuple[float, float]:
    """The Wilson score interval, written out as in the literature (z = 1.96)."""
    z = 1.96
    denominator = 1 + z**2 / n
    centre = p + z**2 / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    return (centre - spread) / denominator, (centre + spread) / denominator


async def test_the_json_and_csv_downloads(site: Site) -> None:
    status, text, response = await site.get("/b/primebench.json?mode=default&per=5")
    assert status == 200 and response.headers["Content-Type"].startswith("application/json")
    data = json.loads(text)
    assert data["filters"]["mode"] == "default" and data["per"] == 5
    assert len(data["rows"]) == 5 and data["total"] > 5
    assert data["rows"][0]["model"] == "Beta" and data["rows"][0]["mark"] == "verified"
    assert data["rows"][0]["by"] is None and data["rows"][0]["result"].startswith("/r/")
    assert "JibayAI" in data["credit"]
    no_ids(text)
    status, text, _ = await site.get("/b/zerobench.json")
    rows = json.loads(text)["rows"]
    assert [r["model"] for r in rows] == ["Zed One", "Zed Two"]
    low, high = wilson(0.7, 10)
    assert abs(rows[0]["ci_low"] - low) < 1e-3 and abs(rows[0]["ci_high"] - high) < 1e-3
    assert rows[0]["n"] == 10 and rows[0]["pass_k"] == 0.7
    status, text, response = await site.get("/b/primebench.csv?verified=1")
    assert status == 200 and response.headers["Content-Type"].startswith("text/csv")
    table = list(csv.reader(io.StringIO(text)))
    assert table[0][:8] == ["rank", "model", "mode", "mark", "by", "key", "first_at", "last_at"]
    assert table[1][1] == "Beta" and table[1][4] == ""
    no_ids(text)
    status, text, _ = await site.get("/openapi.json")
    spec = json.loads(text)
    assert spec["openapi"].startswith("3.") and "/b/{benchmark}.json" in spec["paths"]


async def test_a_boards_download_links_keep_its_filters(site: Site) -> None:
    _, page, _ = await site.get("/b/primebench?mode=default&per=5")
    for kind in ("csv", "json"):
        found = re.search(rf'<a href="([^"]*)" id="{kind}">', page)
        assert found is not None
        link = html.unescape(found[1])
        assert link == f"/b/primebench.{kind}?mode=default&per=5"
        status, text, _ = await site.get(link)
        assert status == 200
    assert len(json.loads(text)["rows"]) == 5


async def test_the_natory_board_has_its_columns_and_the_cost_chart(site: Site) -> None:
    status, html, _ = await site.get("/b/natory")
    assert status == 200
    assert "Mean cost" in html and "Attempts" in html and "$0.002" in html
    assert "<svg" in html and "<polyline" in html  # the Pareto front
    data = json.loads((await site.get("/b/natory.json"))[1])
    cheap = next(r for r in data["rows"] if r["model"] == "Nat Cheap")
    assert cheap["cost"] == 0.002 and cheap["latency"] == 1.5 and cheap["attempts"] == 1


async def test_a_result_page_in_full(site: Site) -> None:
    token = site.tokens["best"]
    status, html, _ = await site.get(f"/r/{token}")
    assert status == 200
    assert "Alpha Large" in html and "+18" in html
    assert "Correct" in html and "Coverage" in html  # the breakdown
    assert "I think that is all." in html  # an invalid line
    assert "a Q before the question number" in html  # a hint
    assert re.search(r"key v1 · [0-9a-f]{8}", html)
    assert "primebench-" in html or "Scorer" in html
    assert f"https://t.me/bench_test_bot?start=r_{token}" in html
    assert "from a private chat" in html and ">Ada<" in html
    assert "JibayAI" in html
    no_ids(html)
    for gone in ("hidden", "withdrawn"):
        status, _, _ = await site.get(f"/r/{site.tokens[gone]}")
        assert status == 404, gone


async def test_a_group_board_by_its_link_until_revoked(site: Site) -> None:
    token = site.tokens["web"]
    status, html, _ = await site.get(f"/g/{token}")
    assert status == 200 and set(models(html)) == {"Gamma Group", fixtures.HOSTILE}
    assert 'name="verified"' not in html and ".csv" not in html
    # never listed: a search engine that finds the link somewhere keeps it out
    robots = '<meta name="robots" content="noindex, nofollow">'
    assert robots in html
    _, other, _ = await site.get(f"/g/{token}/zerobench")
    assert robots in other
    for path in ("/", "/b/primebench", f"/r/{site.tokens['best']}"):
        assert robots not in (await site.get(path))[1], path
    status, _, _ = await site.get(f"/g/{token}?verified=1")
    assert status == 400
    store: Store = site.state.services.store
    await store.revoke_links("web", fixtures.GROUP)
    site.state.forget()  # a revoked link dies once its cached page expires
    status, gone, _ = await site.get(f"/g/{token}")
    assert status == 404
    # what happened to it, in words true of a group's board (no result was withdrawn)
    said = re.search(r'<p id="error">(.*?)</p>', gone)
    assert said and "admins replaced it with a new one" in said[1] and "result" not in said[1]
    _, front, _ = await site.get("/")
    assert token not in front and "/g/" not in front  # group boards are never listed


def test_every_message_of_the_templates_is_in_both_catalogues() -> None:
    """A template's message missing from a catalogue would be a 500: each is listed for
    extraction (``pages.TEMPLATE_IDS``) and has English and Persian text."""
    from bot.render.i18n import translated
    from bot.web.pages import TEMPLATE_IDS, TEMPLATES

    used: set[str] = set()
    for template in TEMPLATES.glob("*.html"):
        text = template.read_text()
        used |= set(re.findall(r"""_\(\s*["']([a-z_]+)["']\s*[,)]""", text))
    assert len(used) > 40
    assert used <= set(TEMPLATE_IDS) | {"web_col_rank", "web_col_model", "web_col_mode"}
    for key in used | set(TEMPLATE_IDS):
        assert translated("en", key) and translated("fa", key), key


async def test_head_requests(site: Site) -> None:
    for path, expected in (("/b/primebench", 200), ("/", 200), ("/b/nosuch", 404)):
        async with site.session.head(site.base + path) as response:
            assert response.status == expected, path
            assert await response.read() == b""
            if expected == 200:
                assert response.headers["ETag"]


def test_every_benchmark_names_headings_the_web_boards_have() -> None:
    from bot.core.webboards import columns
    from bot.render.i18n import translated
    from scoring import registry
    from scoring.base import KINDS

    for benchmark in registry.all_benchmarks():
        assert all(c.kind in KINDS for c in benchmark.web_columns), benchmark.name
        for column in columns(benchmark):
            assert translated("fa", column.label), column.label


async def test_runs_by_benchboard_are_marked_and_filtered(site: Site) -> None:
    store = site.state.services.store
    board = await store.leaderboard("primebench")
    alpha = next(r for r in board.rows if r.model == "Alpha Large")
    assert alpha.submission_id is not None
    await store.mark_benchboard(alpha.submission_id)
    _, page, _ = await site.get("/b/primebench?mark=benchboard")
    assert models(page) == ["Alpha Large"] and "🤖 run by Benchboard" in page
    assert 'name="mark" value="benchboard"' in page
    _, everything, _ = await site.get("/b/primebench")
    assert "🤖 run by Benchboard" in everything and "self-reported" in everything
    _, text, _ = await site.get("/b/primebench.json?mark=benchboard")
    rows = json.loads(text)["rows"]
    assert [(r["model"], r["mark"]) for r in rows] == [("Alpha Large", "benchboard")]
    _, text, _ = await site.get("/b/primebench.csv?mark=benchboard")
    table = list(csv.reader(io.StringIO(text)))
    assert table[1][1] == "Alpha Large" and table[1][3] == "benchboard"
    status, _, _ = await site.get("/b/primebench?mark=mine")
    assert status == 400


async def test_an_empty_boards_csv_names_the_same_columns_as_one_with_rows(site: Site) -> None:
    """The header is the benchmark's, not what the rows happen to carry: a search that
    finds nothing (or a board before its first result) still names every score column."""
    for name in ("primebench", "zerobench", "natory"):
        _, full, _ = await site.get(f"/b/{name}.csv")
        status, empty, _ = await site.get(f"/b/{name}.csv?q=no-such-model-anywhere")
        assert status == 200
        head = next(csv.reader(io.StringIO(full)))
        table = list(csv.reader(io.StringIO(empty)))
        assert table[0] == head, name
        assert "score" in head and "ci95_low" in head
        assert all(not row or row[0].startswith("#") for row in table[1:])

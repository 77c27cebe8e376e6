"""``/b/<benchmark>/questions`` over HTTP: per question the share of published results
(on the boards: hidden, withdrawn and banned left out) answered right, wrong and not at
all, sortable; only for benchmarks that have questions (the Benchmark interface says);
never the key. The web tests' database uses a generated key (fixtures.PRIME_KEY)."""

from __future__ import annotations

import re

from scoring import registry

from . import fixtures
from .conftest import Site


def expected() -> dict[int, tuple[int, int, int]]:
    """(right, wrong, none) per question, from the fixture's published results."""
    published = [(18, 0), (15, 1), (12, 2), (10, 0)] + [(i % 9, 1) for i in range(30)]
    counts = {}
    for q in range(1, 21):
        right = sum(q <= c for c, _ in published)
        wrong = sum(c < q <= c + w for c, w in published)
        counts[q] = (right, wrong, len(published) - right - wrong)
    return counts


def shares(html: str) -> dict[int, tuple[str, str, str]]:
    rows = re.findall(
        r'<tr id="q-(\d+)">.*?share-right"><bdi dir="ltr">([^<]*)</bdi>.*?'
        r'share-wrong"><bdi dir="ltr">([^<]*)</bdi>.*?share-none"><bdi dir="ltr">([^<]*)</bdi>',
        html,
        re.S,
    )
    return {int(q): (r, w, n) for q, r, w, n in rows}


async def test_each_question_with_its_shares(site: Site) -> None:
    status, html, response = await site.get("/b/primebench/questions")
    assert status == 200, html
    found = shares(html)
    total = 34
    assert list(found) == list(range(1, 21))  # in question order
    for q, (right, wrong, none) in expected().items():
        assert found[q] == (
            f"{right / total:.1%}",
            f"{wrong / total:.1%}",
            f"{none / total:.1%}",
        ), q
    assert "Hidden Model" not in html and "34" in html
    # never the key: no answer line, no option of any question
    for line in fixtures.PRIME_KEY.decode().splitlines():
        assert line not in html
    assert "Content-Security-Policy" in response.headers


async def test_sorting_and_links(site: Site) -> None:
    _, html, _ = await site.get("/b/primebench/questions?sort=right")
    order = list(shares(html))
    counts = expected()
    assert [counts[q][0] for q in order] == sorted((c[0] for c in counts.values()), reverse=True)
    assert 'href="/b/primebench/questions?sort=right&amp;order=asc"' in html  # flips
    _, html, _ = await site.get("/b/primebench/questions?sort=right&order=asc")
    assert [counts[q][0] for q in shares(html)] == sorted(c[0] for c in counts.values())
    _, html, _ = await site.get("/b/primebench/questions?sort=question&order=desc")
    assert list(shares(html)) == list(range(20, 0, -1))
    _, fa, _ = await site.get("/b/primebench/questions?lang=fa")
    assert 'dir="rtl"' in fa and "٪" in fa and "?sort=right&amp;lang=fa" in fa
    for bad in ("?sort=key", "?order=up", "?page=2", "?sort=right&sort=wrong"):
        status, _, _ = await site.get("/b/primebench/questions" + bad)
        assert status == 400, bad


async def test_only_benchmarks_with_questions_have_the_page(site: Site) -> None:
    for name in registry.names():
        has = registry.get(name).has_questions
        status, page, _ = await site.get(f"/b/{name}/questions")
        assert status == (200 if has else 404), name
        if not has:  # said as it is: this benchmark has no such page (no result involved)
            said = re.search(r'<p id="error">(.*?)</p>', page)
            assert said and said[1].startswith("This benchmark has no page of questions"), name
        _, board, _ = await site.get(f"/b/{name}")
        assert ('id="questions-link"' in board) == has, name
    status, page, _ = await site.get("/b/nosuch/questions")
    assert status == 404 and '<p id="error">There is no such benchmark.</p>' in page

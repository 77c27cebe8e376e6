"""``/b/<benchmark>/questions`` over HTTP: per question the share of published results
(on the boards: hidden, withdrawn and banned left out) answered right, wrong and not at
all, sortable; only for benchmarks that have questions (the Benchmark interface says);
never the key. The web tests' database uses a generated key (fixtures.PRIME_KEY)."""

from __future__ import annotations

import re

from bot.core import benchmarks, submissions, submit
from scoring import choice, registry

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


MANY = 100_000


async def test_a_benchmark_of_many_questions_is_paged_and_counted_within_bounds(
    site: Site,
) -> None:
    """A benchmark defined by data may have 100,000 questions: its one page was 65 MB of
    HTML, rendered for seconds while every other page of the process waited, and it
    counted the latest 2,000 results (minutes, and a gigabyte of their raw text). Now
    500 questions a page, and as many results as hold 400,000 answers."""
    services = site.state.services
    key = "".join(f"{q}:{q % 4 + 1}\n" for q in range(1, MANY + 1))
    text = (
        'name = "manyq"\ntitle = "ManyQ"\nkind = "choice"\noptions = 4\n'
        f'points = {{ right = 1, wrong = 0, none = 0 }}\nkey = """\n{key}"""\n'
    )
    try:
        await benchmarks.add(services, choice.read_definition(text), source="t")
        for i in range(6):  # each answers its first 10,000 × (i + 1) questions right
            lines = "".join(f"{q}:{q % 4 + 1}\n" for q in range(1, 10_000 * (i + 1) + 1))
            sub, _ = await submit.submit(
                services, text=f"#manyq #think\nmodel: M{i}\n{lines}", user_id=700 + i,
                chat_id=700 + i, message_id=1,
            )  # fmt: skip
            await submissions.publish(services, sub)
        status, html, _ = await site.get("/b/manyq/questions")
        assert status == 200, html
        assert len(html) < 1_000_000
        found = shares(html)
        assert list(found) == list(range(1, 501))
        assert "page 1 of 200" in html and 'id="next"' in html and 'id="prev"' not in html
        # the latest 4 results (400,000 answers): M5, M4, M3 and M2 answered question 1
        assert "Counted over the latest 4 published results (at most 4)" in html
        assert found[1] == ("100.0%", "0.0%", "0.0%")
        _, last, _ = await site.get("/b/manyq/questions?page=200")
        assert list(shares(last)) == list(range(99_501, MANY + 1))
        _, fa, _ = await site.get("/b/manyq/questions?sort=right&page=2&lang=fa")
        assert "?sort=right&amp;order=desc&amp;page=3&amp;lang=fa" in fa  # next keeps all
        for bad in ("?page=201", "?page=0", "?page=x"):
            status, _, _ = await site.get("/b/manyq/questions" + bad)
            assert status == 400, bad
    finally:
        registry.unregister("manyq")

"""What a board line's interval over runs reads (issue 31): the runs of a line, the sum
of their scores and of their squares, kept in the summary (``board_totals``) through
publications, a hidden result and a rebuild, and read for each kind of board; and the
provider filter. On both engines."""

from __future__ import annotations

from dataclasses import replace

from storage import Store, web_rows
from tests.storage.helpers import Maker, answers, key_bytes


async def published(store: Store, make: Maker, raw: str, **kw: object) -> int:
    sub = await store.record_submission(make(raw, **kw))  # type: ignore[arg-type]
    await store.publish(sub.id)
    return sub.id


async def squares_kept(store: Store) -> list[tuple[float, float]]:
    """Each line's kept sum of squares beside the one its runs make."""
    async with store.db.single() as s:
        rows = await s.all(
            """SELECT t.score_sq_sum, (SELECT COALESCE(SUM(r.best * r.best), 0) FROM board_runs AS r
                   WHERE r.benchmark_id = t.benchmark_id AND r.model_norm = t.model_norm
                     AND r.mode = t.mode)
               FROM board_totals AS t ORDER BY t.model_norm, t.mode"""
        )
    return [(float(a), float(b)) for a, b in rows]


async def day_squares_kept(store: Store) -> list[tuple[float, float]]:
    """Each day line's kept sum of squares beside the one its runs make."""
    async with store.db.single() as s:
        rows = await s.all(
            """SELECT d.score_sq_sum, (SELECT COALESCE(SUM(r.best * r.best), 0)
                   FROM board_runs AS r WHERE r.benchmark_id = d.benchmark_id
                     AND r.model_norm = d.model_norm AND r.mode = d.mode
                     AND r.last_at / 86400000 = d.day)
               FROM board_days AS d ORDER BY d.model_norm, d.mode, d.day"""
        )
    return [(float(a), float(b)) for a, b in rows]


async def test_a_lines_runs_and_their_squares(store: Store, make: Maker) -> None:
    right = [int(line.split(":")[1]) for line in key_bytes(1).decode().splitlines()]
    wrong = [r % 4 + 1 for r in right]
    ids = []
    for n in (10, 7, 4):  # three runs: n right, the rest of 20 unanswered
        ids.append(await published(store, make, answers(*right[:n]), model="A", mode="think"))
    # the same answers again (another user): the same run
    await published(store, make, answers(*right[:10]), model="A", mode="think", user_id=2)
    await published(store, make, answers(*wrong[:2]), model="B", mode="think")
    line = ("a", "think")
    spreads = await web_rows.run_spreads(store, "primebench", [line, ("b", "think")])
    assert spreads[line] == (3, 21.0, 100 + 49 + 16)
    assert spreads[("b", "think")] == (1, -6.0, 36.0)
    assert all(a == b for a, b in await squares_kept(store))
    assert all(a == b for a, b in await day_squares_kept(store))
    # the group's, the last days' and the verified boards count their own runs
    assert (await web_rows.run_spreads(store, "primebench", [line], chat_id=-100))[line][0] == 3
    assert (await web_rows.run_spreads(store, "primebench", [line], days=7))[line] == (
        3, 21.0, 165.0)  # fmt: skip
    assert await web_rows.run_spreads(store, "primebench", [line], verified=True) == {}
    await store.verify(ids[0])
    assert (await web_rows.run_spreads(store, "primebench", [line], verified=True))[line] == (
        1, 10.0, 100.0)  # fmt: skip
    # a hidden result leaves its line (recomputed), and a rebuild keeps the same figures
    await store.hide(ids[1])
    assert (await web_rows.run_spreads(store, "primebench", [line]))[line] == (2, 14.0, 116.0)
    assert all(a == b for a, b in await squares_kept(store))
    assert all(a == b for a, b in await day_squares_kept(store))
    await store.rebuild_boards()
    assert (await web_rows.run_spreads(store, "primebench", [line]))[line] == (2, 14.0, 116.0)


async def test_the_provider_board(store: Store, make: Maker) -> None:
    right = [int(line.split(":")[1]) for line in key_bytes(1).decode().splitlines()]
    for n, provider in ((12, "OpenRouter"), (9, "openrouter "), (15, None), (5, "Groq")):
        new = replace(make(answers(*right[:n]), model=f"M{n}", mode="default"), provider=provider)
        await store.publish((await store.record_submission(new)).id)
    page = await web_rows.filtered_page(store, "primebench", provider="OPENROUTER")
    assert [(r.model, r.best, r.rank) for r in page.rows] == [("M12", 12, 1), ("M9", 9, 2)]
    assert page.total == 2
    groq = await web_rows.filtered_page(store, "primebench", provider="groq", mode="think")
    assert groq.rows == ()

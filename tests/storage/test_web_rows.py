"""storage.web_rows on a temp-file database: row details, result tokens, the verified
board (and that it reads its index, not the benchmark)."""

from __future__ import annotations

import pytest

from storage import InvalidData, Store, web_rows
from tests.storage.helpers import FakeClock, Maker, answers, key_bytes


async def published(store: Store, make: Maker, raw: str, **kw: object) -> int:
    sub = await store.record_submission(make(raw, **kw))  # type: ignore[arg-type]
    await store.publish(sub.id)
    return sub.id


async def test_row_info_names_only_public_users(store: Store, make: Maker) -> None:
    await store.upsert_user(1, first_name="Ada", last_name=None, username="ada", language_code=None)
    await store.upsert_user(2, first_name="Bo", last_name=None, username="bo", language_code=None)
    await store.set_user_public(1, True)
    a = await published(store, make, answers(1, 2, 3), user_id=1)
    b = await published(store, make, answers(4, 4, 4), user_id=2, model="B")
    info = await web_rows.row_info(store, [a, b, 999], ["$.correct", "$.total_questions"])
    assert set(info) == {a, b}
    assert info[a].author == "Ada" and info[b].author is None
    assert info[a].key_version == 1 and len(info[a].key_sha or "") == 64
    assert info[a].values["$.total_questions"] == 20
    with pytest.raises(InvalidData):
        await web_rows.row_info(store, [a], ["$.x') OR 1=1 --"])
    with pytest.raises(InvalidData):
        await web_rows.row_info(store, range(2000))


async def test_result_tokens_are_the_links_tokens(store: Store, make: Maker) -> None:
    a = await published(store, make, answers(1, 2, 3))
    b = await published(store, make, answers(2, 2, 3), model="B")
    made = await store.link("result", a)
    tokens = await web_rows.result_tokens(store, [a, b])
    assert tokens[a] == made and len(tokens[b]) == 16
    assert await web_rows.result_tokens(store, [a, b]) == tokens  # made once
    link = await store.resolve_link(tokens[b])
    assert link is not None and link.kind == "result" and link.submission_id == b


async def test_the_verified_board(store: Store, make: Maker, clock: FakeClock) -> None:
    key = key_bytes(1)
    right = [int(line.split(":")[1]) for line in key.decode().splitlines()]
    good = await published(store, make, answers(*right[:10]), model="Good", mode="think")
    again = await published(store, make, answers(*right[:8]), model="good ", mode="think")
    other = await published(store, make, answers(*right[:5]), model="Other")
    await published(store, make, answers(*right[:15]), model="Unverified")
    for sub in (good, again, other):
        await store.verify(sub)
    board = await web_rows.verified_page(store, "primebench")
    assert [(r.rank, r.model, r.runs) for r in board.rows] == [(1, "Good", 2), (2, "Other", 1)]
    assert board.rows[0].submission_id == good and board.rows[0].mean == 9
    assert board.total == 2 and board.key_version == 1 and board.rows[0].user_id is None
    assert (await web_rows.verified_page(store, "primebench", mode="default")).total == 1
    page2 = await web_rows.verified_page(store, "primebench", limit=1, offset=1)
    assert [(r.rank, r.model) for r in page2.rows] == [(2, "Other")]
    clock.advance(days=10)
    assert (await web_rows.verified_page(store, "primebench", days=7)).total == 0
    await store.ban(1, by=99)
    assert (await web_rows.verified_page(store, "primebench")).total == 0
    if store.db.dialect.postgres:
        return  # the plan below is SQLite's (PostgreSQL's planner scans a small table)
    async with store.db.read() as s:
        plan = await s.all(
            "EXPLAIN QUERY PLAN SELECT id FROM submissions WHERE benchmark_id = 1 "
            "AND visibility = 'published' AND verified = 1 AND mode = 'think'"
        )
    assert "submissions_board_verified" in " ".join(str(r[-1]) for r in plan)

"""Board pages, straight through ``bot.core.boards`` on a real store: rank order, equal
bests sharing a rank, pages of ten, the chat's and the user's boards, mode and time
filters, references beside their rows, and ``/me``."""

from __future__ import annotations

import pytest

from bot.core import boards, challenges, keys, submissions
from bot.core.errors import UserError
from bot.core.services import Services
from bot.render.views import BoardPage
from scoring import UnknownMode, registry
from storage import Store
from tests.storage.helpers import FakeClock

from .conftest import BOTH, engine_free
from .usecases import Submitter

ENGINES = BOTH


def query(scope: str = "g", *, mode: str | None = None, days: int = 0, page: int = 0
          ) -> boards.BoardQuery:  # fmt: skip
    return boards.BoardQuery("primebench", scope, mode, days, page)


async def all_pages(services: Services) -> list[BoardPage]:
    """Every page of the global board, read page by page."""
    first = await boards.page(services, query(), chat_id=-100, user_id=1)
    rest = [
        await boards.page(services, query(page=p), chat_id=-100, user_id=1)
        for p in range(1, first.pages)
    ]
    return [first, *rest]


async def test_a_board_is_ranked_and_paged(services: Services) -> None:
    post = Submitter(services)
    scores = [(i * 7) % 23 + 10 for i in range(23)]  # 23 distinct scores, shuffled
    for i, score in enumerate(scores):
        await post.published(score, model=f"Model {i:02}", user_id=100 + i)
    pages = await all_pages(services)
    assert [p.pages for p in pages] == [3, 3, 3]
    assert [len(p.board.rows) for p in pages] == [10, 10, 3]
    rows = [r for p in pages for r in p.board.rows]
    assert [r.best for r in rows] == sorted(map(float, scores), reverse=True)
    assert [r.rank for r in rows] == list(range(1, 24))
    assert len({r.model for r in rows}) == 23 and all(p.board.total == 23 for p in pages)
    # past the last page (an old message's, the board shrank since): the last page, not
    # an empty one (which says nothing is published)
    beyond = await boards.page(services, query(page=3), chat_id=-100, user_id=1)
    assert beyond.pages == 3 and beyond.query.page == 2
    assert [r.rank for r in beyond.board.rows] == [21, 22, 23]


@engine_free
async def test_equal_bests_share_a_rank_the_earlier_first(services: Services) -> None:
    post = Submitter(services)
    await post.published(20, model="Late Tie", user_id=3)  # submitted first
    await post.published(30, model="Top", user_id=1)
    await post.published(20, model="Tie", user_id=2)
    await post.published(10, model="Last", user_id=4)
    rows = (await boards.page(services, query(), chat_id=-100, user_id=1)).board.rows
    assert [(r.rank, r.model) for r in rows] == [
        (1, "Top"),
        (2, "Late Tie"),
        (2, "Tie"),
        (4, "Last"),
    ]


@engine_free
async def test_a_line_is_a_model_and_mode_with_its_best_and_mean(services: Services) -> None:
    post = Submitter(services)
    await post.published(10, model="GPT X", user_id=1)
    await post.published(30, model="gpt x", user_id=2)  # the same model, written otherwise
    await post.published(26, model="GPT X", user_id=3, mode="think")
    rows = (await boards.page(services, query(), chat_id=-100, user_id=1)).board.rows
    assert [(r.model, r.mode, r.best, r.runs, r.mean) for r in rows] == [
        ("gpt x", "default", 30.0, 2, 20.0), ("GPT X", "think", 26.0, 1, 26.0)
    ]  # fmt: skip
    think = await boards.page(services, query(mode="think"), chat_id=-100, user_id=1)
    assert [(r.rank, r.mode) for r in think.board.rows] == [(1, "think")]


@engine_free
async def test_the_chats_and_the_users_boards(services: Services) -> None:
    post = Submitter(services)
    await post.published(30, model="Here", user_id=1, chat_id=-100)
    await post.published(40, model="There", user_id=2, chat_id=-200)
    await post.published(20, model="Mine Elsewhere", user_id=1, chat_id=-200)
    await post.submit("model: Private\n1:1", user_id=1, chat_id=-100)  # never published
    chat = await boards.page(services, query("c"), chat_id=-100, user_id=1)
    assert [(r.rank, r.model) for r in chat.board.rows] == [(1, "Here")]
    own = await boards.page(services, query("u"), chat_id=-100, user_id=1)
    assert [(r.rank, r.model) for r in own.board.rows] == [(1, "Here"), (2, "Mine Elsewhere")]
    everyone = await boards.page(services, query("g"), chat_id=-100, user_id=1)
    assert [r.model for r in everyone.board.rows] == ["There", "Here", "Mine Elsewhere"]


async def test_the_last_days_leave_older_results_out(services: Services, clock: FakeClock) -> None:
    post = Submitter(services)
    await post.published(40, model="Old", user_id=1)
    clock.advance(days=10)
    await post.published(20, model="New", user_id=2)
    week = await boards.page(services, query(days=7), chat_id=-100, user_id=1)
    assert [r.model for r in week.board.rows] == ["New"]
    month = await boards.page(services, query(days=30), chat_id=-100, user_id=1)
    assert [r.model for r in month.board.rows] == ["Old", "New"]
    chat_week = await boards.page(services, query("c", days=7), chat_id=-100, user_id=1)
    assert [r.model for r in chat_week.board.rows] == ["New"]


@engine_free
async def test_references_sit_beside_their_rows(services: Services) -> None:
    post = Submitter(services)
    await post.published(40, model="GPT X", user_id=1)
    await post.published(30, model="Other", user_id=2)
    assert await keys.seed_references(services) > 0
    await services.store.add_reference("primebench", model="gpt x", mode="default", score=45.0,
                                       source="paper")  # fmt: skip
    await services.store.add_reference("primebench", model="Unsubmitted", mode="think", score=9.0,
                                       source="paper")  # fmt: skip
    page = await boards.page(services, query(), chat_id=-100, user_id=1)
    assert [r.model for r in page.board.rows] == ["GPT X", "Other"]  # never ranked among them
    assert page.reported[0].best == 45.0 and page.reported[0].reported
    assert "Unsubmitted" in {r.model for r in page.apart}
    assert 1 not in page.reported


@engine_free
@pytest.mark.parametrize("bad", [query("x"), boards.BoardQuery("nothing", "g", None, 0, 0)])
async def test_a_page_of_nothing_known_is_gone(services: Services, bad: boards.BoardQuery) -> None:
    with pytest.raises(UserError) as refused:
        await boards.page(services, bad, chat_id=-100, user_id=1)
    assert refused.value.key == "gone"


def test_leaderboard_words() -> None:
    assert boards.board_args([]) == ("primebench", None)
    assert boards.board_args(["zerobench", "thinking"]) == ("zerobench", "think")
    assert boards.board_args(["#tools"]) == ("primebench", "tools")
    with pytest.raises(UnknownMode):
        boards.board_args(["sideways"])
    natory = registry.get("natory")
    assert challenges.compared([]) is natory and challenges.compared(["natory"]) is natory
    assert challenges.compared(["primebench"]) is None
    assert challenges.compared(["natory", "x"]) is None


@engine_free
async def test_history_pages_a_users_submissions(services: Services, store: Store) -> None:
    post = Submitter(services)
    ids = [(await post.submit(f"model: M{i}\n1:1", user_id=1)).id for i in range(12)]
    best = await post.published(30, model="Best", user_id=1)
    await post.published(50, model="Someone Else", user_id=2)
    first = await boards.history(services, 1)
    assert (first.total, first.page, first.pages) == (13, 0, 2)
    assert [s.id for s in first.submissions] == [best.id, *reversed(ids[3:])]
    assert [(name, r.model) for name, r in first.bests] == [("primebench", "Best")]
    last = await boards.history(services, 1, page=7)  # clamped to the last page
    assert last.page == 1 and [s.id for s in last.submissions] == [ids[2], ids[1], ids[0]]
    assert last.bests == ()
    nobody = await boards.history(services, 404)
    assert (nobody.total, nobody.pages, nobody.submissions) == (0, 1, ())
    # a result on another benchmark: its best too, under its own benchmark
    attempt = await post.submit("#natory target: 13\nmodel: Solver #think\n3^(1+1)+(3+1)")
    await submissions.publish(services, attempt)
    again = await boards.history(services, 1)
    assert [(name, r.model) for name, r in again.bests] == [
        ("primebench", "Best"),
        ("natory", "Solver"),
    ]

"""The web boards' use cases, straight through ``bot.core.webboards`` on a real store:
a web board's rows are the chat board's rows, sorted views and pages, refused filters,
a group's board by its link, one result by its token, and a user's own results."""

from __future__ import annotations

import pytest

from bot.core import admin, boards, links, submissions, webboards, webresults
from bot.core.errors import UserError
from bot.core.services import Services
from bot.render.webviews import WebQuery, WebRow
from scoring import registry
from storage import BoardRow

from .conftest import BOT_ADMIN, BOTH, engine_free
from .usecases import Submitter, answer_text

ENGINES = BOTH
PRIME = registry.get("primebench")


async def fill(services: Services) -> Submitter:
    """14 lines over two groups and two modes, one verified by a bot admin, one line
    with two runs."""
    post = Submitter(services)
    for i in range(14):
        sub = await post.published(
            (i * 5) % 14 * 3 + 5, model=f"Model {i:02}", mode="think" if i % 3 else "default",
            user_id=10 + i, chat_id=-100 if i % 2 else -200,
        )  # fmt: skip
        if i == 4:
            bot_admin = admin.Actor(BOT_ADMIN, BOT_ADMIN, False, True, False)
            await admin.moderate(services, bot_admin, "verify", [str(sub.id)])
    await post.published(2, model="Model 01", mode="think", user_id=10, chat_id=-100)
    return post


def chat_line(row: BoardRow) -> tuple[object, ...]:
    return (row.rank, row.model, row.mode, PRIME.format_score(row.best), str(row.runs),
            PRIME.format_score(row.mean, mean=True), row.verified)  # fmt: skip


def web_line(row: WebRow) -> tuple[object, ...]:
    return (row.rank, row.model, row.mode, row.cells["score"], row.cells["runs"],
            row.cells["mean"], row.mark == "verified")  # fmt: skip


async def chat_rows(services: Services, scope: str, chat_id: int, mode: str | None = None
                    ) -> list[BoardRow]:  # fmt: skip
    out: list[BoardRow] = []
    page, pages = 0, 1
    while page < pages:
        shown = await boards.page(services, boards.BoardQuery("primebench", scope, mode, 0, page),
                                  chat_id=chat_id, user_id=1)  # fmt: skip
        out += shown.board.rows
        page, pages = page + 1, shown.pages
    return out


async def web_rows(services: Services, q: WebQuery, token: str | None = None) -> list[WebRow]:
    out: list[WebRow] = []
    page, pages = 0, 1
    while page < pages:
        at = WebQuery(q.benchmark, q.mode, q.days, q.verified, page, q.sort, q.descending, q.per)
        shown = (await webboards.group_board(services, token, at) if token
                 else await webboards.board(services, at))  # fmt: skip
        out += shown.rows
        page, pages = page + 1, shown.pages
    return out


async def test_web_rows_are_the_chat_boards_rows(services: Services) -> None:
    await fill(services)
    chat = [chat_line(r) for r in await chat_rows(services, "g", -100)]
    assert len(chat) == 14 and any(line[-1] for line in chat)
    assert [web_line(r) for r in await web_rows(services, WebQuery("primebench", per=4))] == chat
    think = [chat_line(r) for r in await chat_rows(services, "g", -100, "think")]
    web = await web_rows(services, WebQuery("primebench", mode="think", per=3))
    assert [web_line(r) for r in web] == think and len(think) == 9
    # a group's web board is that group's chat board
    token = await links.web_board_token(services, -100, by=1)
    await services.store.upsert_chat(-100, type="supergroup", title="Lab")
    group = [chat_line(r) for r in await chat_rows(services, "c", -100)]
    assert [web_line(r) for r in await web_rows(services, WebQuery("primebench"), token)] == group
    assert len(group) == 7
    first = await webboards.group_board(services, token, WebQuery("primebench"))
    assert first.group == "Lab" and first.total == 7


async def test_a_web_board_says_its_key_and_links_its_rows(services: Services) -> None:
    await fill(services)
    page = await webboards.board(services, WebQuery("primebench", per=5))
    loaded = services.keys["primebench"].version
    assert (page.key_version, page.key_hash) == (loaded.version, loaded.sha256[:8])
    assert (page.total, page.pages, len(page.rows)) == (14, 3, 5)
    assert [c.key for c in page.columns][-2:] == ["runs", "mean"]
    for row in page.rows:
        assert row.token is not None and row.key_hash == loaded.sha256[:8]
        opened = await links.open_result(services, row.token)
        assert opened is not None and opened.model == row.model
        assert PRIME.format_score(opened.score) == row.cells["score"]


async def test_sorted_views_order_the_board(services: Services) -> None:
    await fill(services)
    ranked = await web_rows(services, WebQuery("primebench", per=100))
    by_model = await web_rows(services, WebQuery("primebench", sort="model", per=5))
    assert [r.model for r in by_model] == sorted(r.model for r in ranked)
    down = await web_rows(services, WebQuery("primebench", sort="model", descending=True, per=6))
    assert [r.model for r in down] == sorted((r.model for r in ranked), reverse=True)
    by_runs = await web_rows(services, WebQuery("primebench", sort="runs", descending=True))
    assert by_runs[0].model == "Model 01" and by_runs[0].values["runs"] == 2
    verified = await web_rows(services, WebQuery("primebench", verified=True))
    assert [r.model for r in verified] == ["Model 04"] and verified[0].mark == "verified"


REFUSED = [
    (WebQuery("nothing"), "web_unknown_benchmark"),
    (WebQuery("primebench", days=3), "web_bad_filter"),
    (WebQuery("primebench", per=0), "web_bad_filter"),
    (WebQuery("primebench", per=webboards.MAX_PER + 1), "web_bad_filter"),
    (WebQuery("primebench", sort="user_id"), "web_bad_filter"),
    (WebQuery("primebench", page=webboards.MAX_PAGE + 1), "web_bad_filter"),
    (WebQuery("primebench", page=3, per=5), "web_no_page"),
    (WebQuery("primebench", page=1, sort="model", per=14), "web_no_page"),
]


@engine_free
async def test_a_refused_view(services: Services) -> None:
    await fill(services)
    for q, key in REFUSED:
        with pytest.raises(UserError) as refused:
            await webboards.board(services, q)
        assert refused.value.key == key, q
    assert (await webboards.board(services, WebQuery("primebench", page=2, per=5))).rows


@engine_free
async def test_a_group_board_link_and_its_renewal(services: Services) -> None:
    await fill(services)
    old = await links.web_board_token(services, -100, by=1)
    assert await links.web_board_token(services, -100, by=1) == old
    new = await links.web_board_token(services, -100, by=1, renew=True)
    assert new != old
    assert (await webboards.group_board(services, new, WebQuery("primebench"))).total == 7
    first = await services.store.get_submission(1)
    assert first is not None
    for token in (old, "nonsense", await links.result_token(services, first)):
        with pytest.raises(UserError) as refused:
            await webboards.group_board(services, token, WebQuery("primebench"))
        assert refused.value.key == "web_group_not_found"
    with pytest.raises(UserError) as refused:  # verified-only is the global board's filter
        await webboards.group_board(services, new, WebQuery("primebench", verified=True))
    assert refused.value.key == "web_bad_filter"


@engine_free
async def test_a_result_by_its_token(services: Services) -> None:
    post = Submitter(services)
    sub = await post.published(40, 2, model="Shown", mode="think", user_id=3)
    token = await links.result_token(services, sub)
    shown = await webresults.result(services, token, "benchboard_bot")
    assert (shown.benchmark, shown.model, shown.mode, shown.score) == ("primebench", "Shown",
                                                                      "think", "+34")  # fmt: skip
    fields = {f.field.key: f.value for f in shown.fields}  # as its benchmark declares them
    assert fields["correct"] == 40 and fields["wrong"] == 2
    assert shown.key_version == 1 and shown.mark == "self"
    assert shown.bot_link == f"https://t.me/benchboard_bot?start=r_{token}"
    await submissions.withdraw(services, sub.id, 3)
    with pytest.raises(UserError) as refused:
        await webresults.result(services, token, None)
    assert refused.value.key == "web_not_found"


@engine_free
async def test_my_results_link_only_what_is_published(services: Services) -> None:
    post = Submitter(services)
    private = await post.submit(answer_text(4, model="Private"), user_id=3)
    published = await post.published(9, model="Public", user_id=3)
    await post.published(20, model="Not Mine", user_id=4)
    mine = await webresults.my_results(services, 3, "Ada")
    assert mine.name == "Ada"
    assert [(r.model, r.state, r.score) for r in mine.results] == [
        ("Public", "published", "+9"), ("Private", "private", "+4")
    ]  # fmt: skip
    token = mine.results[0].token
    assert token is not None and mine.results[1].token is None
    opened = await links.open_result(services, token)
    assert opened is not None and opened.id == published.id and private.id != published.id


@engine_free
async def test_the_front_page_leads_with_each_boards_best(services: Services) -> None:
    await fill(services)
    found = {leader.name: leader for leader in await webboards.leaders(services)}
    assert set(found) == set(registry.names())
    prime = found["primebench"]
    assert prime.total == 14 and [r.rank for r in prime.rows] == [1, 2, 3]
    best = (await chat_rows(services, "g", -100))[:3]
    assert [r.model for r in prime.rows] == [r.model for r in best]
    assert found["zerobench"].total == 0 and found["zerobench"].rows == ()


async def test_a_group_admins_mark_shows_on_that_groups_web_board_only(
    services: Services,
) -> None:
    post = Submitter(services)
    sub = await post.published(30, model="Checked", chat_id=-100)
    group_admin = admin.Actor(50, -100, True, False, True)
    await admin.moderate(services, group_admin, "verify", [str(sub.id)])
    token = await links.web_board_token(services, -100, by=50)
    (row,) = (await webboards.group_board(services, token, WebQuery("primebench"))).rows
    assert row.mark == "verified"
    (row,) = (await webboards.board(services, WebQuery("primebench"))).rows
    assert row.mark == "self"
    assert (await webboards.board(services, WebQuery("primebench", verified=True))).rows == ()
    shown = await webresults.result(services, await links.result_token(services, sub), None)
    assert shown.mark == "self"


async def test_runs_by_benchboard_carry_their_mark_and_can_be_shown_alone(
    services: Services,
) -> None:
    post = Submitter(services)
    await post.published(20, model="Pasted", mode="default", user_id=31, chat_id=-100)
    run = await post.published(10, model="local/m1", mode="default", user_id=0, chat_id=0)
    await services.store.mark_benchboard(run.id)
    everything = await web_rows(services, WebQuery("primebench"))
    assert {r.model: r.mark for r in everything} == {"Pasted": "self", "local/m1": "benchboard"}
    alone = await webboards.board(services, WebQuery("primebench", mark="benchboard"))
    assert [(r.model, r.mark) for r in alone.rows] == [("local/m1", "benchboard")]
    verified = await webboards.board(services, WebQuery("primebench", verified=True))
    assert [r.model for r in verified.rows] == ["local/m1"]  # a run by Benchboard is verified
    shown = await boards.page(services, boards.BoardQuery("primebench", "g", None, 0, 0),
                              chat_id=-100, user_id=1)  # fmt: skip
    assert [r.mark for r in shown.board.rows] == ["self", "benchboard"]

"""Leaderboards: grouping, ranks, ties, filters, windows, paging, references, CSV."""

from __future__ import annotations

import csv
import io
import random
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from storage import InvalidData, Store, Submission
from tests.storage.helpers import PRIME, FakeClock, Maker, answers, key_bytes


@pytest.fixture(params=[False, True], ids=["one-trip", "per-statement"])
async def store(
    request: pytest.FixtureRequest, db_path: Path, clock: FakeClock
) -> AsyncIterator[Store]:
    """Every board test twice: a board's statements in one trip to the database thread,
    and one trip each (what happens on an aiosqlite without the calls for one trip)."""
    s = await Store.open(db_path, clock=clock, per_statement=request.param)
    try:
        yield s
    finally:
        await s.close()


def options_scoring(make: Maker, correct: int, wrong: int) -> str:
    """A submission with exactly ``correct`` right and ``wrong`` wrong answers."""
    key = make.key.answers
    out = []
    for q in sorted(key):
        if correct:
            out.append(key[q])
            correct -= 1
        elif wrong:
            out.append(key[q] % 4 + 1)
            wrong -= 1
        else:
            out.append("none")
    return answers(*out)


async def put(store: Store, make: Maker, correct: int, wrong: int = 0, **kw: object) -> int:
    sub = await store.record_submission(make(options_scoring(make, correct, wrong), **kw))
    await store.publish(sub.id)
    return sub.id


async def test_one_row_per_model_and_mode_with_runs_and_mean(store: Store, make: Maker) -> None:
    a1 = await put(store, make, 10, model="GPT 6")
    await put(store, make, 4, model="gpt  6")  # same model, normalised
    await put(store, make, 6, model="gpt 6", mode="think")  # another mode: another row
    b1 = await put(store, make, 8, model="Grok")
    await store.record_submission(make(options_scoring(make, 20, 0), model="GPT 6"))  # private
    board = await store.leaderboard("primebench")
    assert [(r.model, r.mode, r.best, r.runs, r.mean) for r in board.rows] == [
        ("GPT 6", "default", 10.0, 2, 7.0),
        ("Grok", "default", 8.0, 1, 8.0),
        ("gpt 6", "think", 6.0, 1, 6.0),
    ]
    assert [r.rank for r in board.rows] == [1, 2, 3] and board.total == 3
    assert board.rows[0].submission_id == a1 and board.rows[1].submission_id == b1
    assert board.key_version == 1 and not board.rows[0].reported


async def test_the_same_answers_published_twice_are_one_run(store: Store, make: Maker) -> None:
    raw = options_scoring(make, 5, 1)
    for _ in range(3):  # same answers, different messages (and different layout)
        sub = await store.record_submission(make(raw + "\n"))
        await store.publish(sub.id)
    await put(store, make, 1)
    (row,) = (await store.leaderboard("primebench")).rows
    assert row.runs == 2 and row.mean == (2.0 + 1.0) / 2 and row.best == 2.0


async def test_ties_share_a_rank_and_the_earlier_is_listed_first(
    store: Store, make: Maker, clock: FakeClock
) -> None:
    top = await put(store, make, 12, model="top")
    clock.advance(minutes=1)
    await put(store, make, 5, model="early")
    clock.advance(minutes=1)
    later = await put(store, make, 9, model="later")  # 9 right, 1 wrong: 6
    await put(store, make, 9, 1, model="later")
    clock.advance(minutes=1)
    await put(store, make, 6, model="tie")  # 6 — ties with "later"'s best, but later in time
    await put(store, make, 3, model="last")
    board = await store.leaderboard("primebench")
    got = [(r.rank, r.model, r.best) for r in board.rows]
    assert got == [
        (1, "top", 12.0),
        (2, "later", 9.0),
        (3, "tie", 6.0),
        (4, "early", 5.0),
        (5, "last", 3.0),
    ]
    assert board.rows[0].submission_id == top and board.rows[1].submission_id == later
    # now make a real three-way situation: 1, 2, 2, 4
    clock.advance(minutes=1)
    await put(store, make, 9, model="tie")  # tie's best becomes 9, reached later than "later"
    board = await store.leaderboard("primebench")
    assert [(r.rank, r.model) for r in board.rows[:4]] == [
        (1, "top"),
        (2, "later"),
        (2, "tie"),
        (4, "early"),
    ]


async def test_equal_best_in_one_group_points_at_the_earliest(
    store: Store, make: Maker, clock: FakeClock
) -> None:
    first = await put(store, make, 7, user_id=1)
    clock.advance(seconds=5)
    await put(store, make, 7, user_id=2, message_id=999)
    (row,) = (await store.leaderboard("primebench")).rows
    assert row.submission_id == first and row.user_id == 1 and row.runs == 1


async def test_paging_keeps_ranks_and_total(store: Store, make: Maker) -> None:
    scores = [15, 14, 14, 12, 11, 11, 11, 8, 7, 3, 2]
    for i, s in enumerate(scores):
        await put(store, make, s, model=f"m{i}")
    pages = [await store.leaderboard("primebench", limit=4, offset=o) for o in (0, 4, 8, 12)]
    ranks = [r.rank for p in pages for r in p.rows]
    assert ranks == [1, 2, 2, 4, 5, 5, 5, 8, 9, 10, 11]
    assert [r.model for p in pages for r in p.rows] == [f"m{i}" for i in range(11)]
    assert all(p.total == 11 for p in pages)
    assert pages[3].rows == ()
    with pytest.raises(InvalidData):
        await store.leaderboard("primebench", limit=0)
    with pytest.raises(InvalidData):
        await store.leaderboard("primebench", offset=-1)


async def test_mode_filter_and_scopes(store: Store, make: Maker) -> None:
    await put(store, make, 9, model="a", mode="think", user_id=1, chat_id=-1)
    await put(store, make, 8, model="b", mode="default", user_id=2, chat_id=-1)
    await put(store, make, 7, model="c", mode="think", user_id=2, chat_id=-2)
    await put(store, make, 6, model="a", mode="think", user_id=3, chat_id=-2)

    async def models(**kw: object) -> list[tuple[str, float]]:
        board = await store.leaderboard("primebench", **kw)  # type: ignore[arg-type]
        return [(r.model, r.best) for r in board.rows]

    assert await models(mode="think") == [("a", 9.0), ("c", 7.0)]
    assert await models(chat_id=-2) == [("c", 7.0), ("a", 6.0)]
    assert await models(user_id=2) == [("b", 8.0), ("c", 7.0)]
    assert await models(chat_id=-2, mode="think", user_id=3) == [("a", 6.0)]
    assert await models(chat_id=-3) == []
    assert (await store.leaderboard("nope")).rows == ()
    with pytest.raises(InvalidData):
        await store.leaderboard("primebench", mode="thinking")


async def test_time_windows(store: Store, make: Maker, clock: FakeClock) -> None:
    await put(store, make, 15, model="old")  # 40 days ago
    clock.advance(days=20)
    await put(store, make, 10, model="month")
    await put(store, make, 2, model="recent")
    clock.advance(days=15)
    await put(store, make, 5, model="recent")
    clock.advance(days=5)

    async def rows(days: int | None) -> list[tuple[str, float, int]]:
        board = await store.leaderboard("primebench", days=days)
        return [(r.model, r.best, r.runs) for r in board.rows]

    assert await rows(None) == [("old", 15.0, 1), ("month", 10.0, 1), ("recent", 5.0, 2)]
    assert await rows(30) == [("month", 10.0, 1), ("recent", 5.0, 2)]
    assert await rows(7) == [("recent", 5.0, 1)]
    with pytest.raises(InvalidData):
        await store.leaderboard("primebench", days=0)


async def test_hidden_withdrawn_and_private_leave_the_board(store: Store, make: Maker) -> None:
    best = await put(store, make, 12, user_id=1)
    second = await put(store, make, 4, user_id=2)
    await store.hide(best)
    (row,) = (await store.leaderboard("primebench")).rows
    assert (row.submission_id, row.best, row.runs) == (second, 4.0, 1)
    await store.withdraw(second, user_id=2)
    assert (await store.leaderboard("primebench")).total == 0
    await store.unhide(best)
    (row,) = (await store.leaderboard("primebench")).rows
    assert row.submission_id == best
    verified = await store.verify(best)
    assert verified.verified
    assert (await store.leaderboard("primebench")).rows[0].verified


async def test_a_group_admins_verification_shows_on_that_groups_board_only(
    store: Store, make: Maker
) -> None:
    from storage import web_rows

    grouped = await put(store, make, 12, model="Lab model", user_id=1, chat_id=-7)
    await put(store, make, 4, model="Other", user_id=2, chat_id=-7)
    sub = await store.verify(grouped, group=True)
    assert not sub.verified  # the bot admins' mark is untouched

    def marks(board: Any) -> dict[str, bool]:
        return {r.model: r.verified for r in board.rows}

    assert marks(await store.leaderboard("primebench", chat_id=-7)) == {
        "Lab model": True,
        "Other": False,
    }
    for scope in ({}, {"days": 7}, {"mode": "default"}, {"user_id": 1}):
        assert not any(marks(await store.leaderboard("primebench", **scope)).values()), scope
    assert (await web_rows.verified_page(store, "primebench")).rows == ()
    assert not (await web_rows.row_info(store, [grouped]))[grouped].verified
    # a bot admin's mark shows everywhere, the group's own board too
    await store.verify(grouped)
    for scope in ({}, {"days": 7}, {"chat_id": -7}):
        assert marks(await store.leaderboard("primebench", **scope))["Lab model"], scope
    (row,) = (await web_rows.verified_page(store, "primebench")).rows
    assert row.submission_id == grouped


async def test_reference_entries_are_apart_and_idempotent(store: Store, make: Maker) -> None:
    await put(store, make, 3, model="Jibay 5 High", mode="think_tools")
    for _ in range(2):
        await store.add_reference(
            "primebench", model="Jibay 5 High", mode="think_tools", score=18, source="JibayAI"
        )
    await store.add_reference(
        "primebench", model="Grok 4.6", mode="default", score=-77, source="JibayAI"
    )
    board = await store.leaderboard("primebench")
    assert [(r.model, r.best, r.reported) for r in board.rows] == [("Jibay 5 High", 3.0, False)]
    assert [(r.rank, r.model, r.best, r.reported, r.source) for r in board.references] == [
        (1, "Jibay 5 High", 18.0, True, "JibayAI"),
        (2, "Grok 4.6", -77.0, True, "JibayAI"),
    ]
    assert all(r.submission_id is None and r.user_id is None for r in board.references)
    assert (await store.leaderboard("primebench", mode="default")).references[0].model == (
        "Grok 4.6"
    )
    assert (await store.leaderboard("primebench", chat_id=-100)).references == ()
    await store.add_reference(
        "primebench", model="grok  4.6", mode="default", score=-70, source="JibayAI"
    )
    refs = await store.references("primebench")
    assert [(r.model, r.best) for r in refs] == [("Jibay 5 High", 18.0), ("grok 4.6", -70.0)]


async def test_csv_export_has_every_row(store: Store, make: Maker) -> None:
    for i in range(25):
        await put(store, make, i % 13, model=f"=cmd{i}" if i == 0 else f"model {i}")
    await store.add_reference("primebench", model="Ref", mode="default", score=1, source="a")
    text = await store.export_csv("primebench")
    rows = list(csv.DictReader(io.StringIO(text)))
    board = [r for r in rows if r["reported"] == "0"]
    assert len(board) == 25 and len(rows) == 26
    assert rows[-1]["model"] == "Ref" and rows[-1]["reported"] == "1"
    assert board[0]["rank"] == "1" and board[0]["key_version"] == "1"
    assert any(r["model"] == "'=cmd0" for r in rows)  # no spreadsheet formulas
    only_think = await store.export_csv("primebench", mode="think")
    assert only_think.count("\n") == 1  # the header only


async def test_csv_export_picks_and_orders_columns(store: Store, make: Maker) -> None:
    for i in range(3):
        await put(store, make, 5 + i, model=f"model {i}")
    whole = list(csv.DictReader(io.StringIO(await store.export_csv("primebench"))))
    picked = await store.export_csv("primebench", columns=("model", "rank", "score"))
    rows = list(csv.reader(io.StringIO(picked)))
    assert rows[0] == ["model", "rank", "score"]
    assert rows[1:] == [[r["model"], r["rank"], r["score"]] for r in whole]
    with pytest.raises(InvalidData, match="user"):
        await store.export_csv("primebench", columns=("model", "user"))


async def change_visibility(
    store: Store,
    rng: random.Random,
    ids: list[tuple[int, int]],
    chances: tuple[float, float, float, float],
) -> float:
    """Publish, hide, unhide or withdraw a random one of ``ids`` (id, owner) when a roll
    falls under the cumulative chance of an action its visibility allows; returns the
    roll (a roll over the last chance changed nothing)."""
    action = rng.random()
    target, owner = rng.choice(ids)
    current = await store.get_submission(target)
    assert current is not None
    publish, hide, unhide, withdraw = chances
    if action < publish and current.visibility in ("private", "withdrawn"):
        await store.publish(target)
    elif action < hide and current.visibility == "published":
        await store.hide(target)
    elif action < unhide and current.visibility == "hidden":
        await store.unhide(target)
    elif action < withdraw and current.visibility in ("private", "published"):
        await store.withdraw(target, owner)
    return action


async def test_summary_equals_a_rebuild_after_random_changes(
    store: Store, make: Maker, clock: FakeClock
) -> None:
    """The global board's summary table must always equal a recomputation from rows."""
    rng = random.Random(7)
    ids: list[tuple[int, int]] = []
    for i in range(120):
        clock.advance(minutes=rng.randint(0, 3))
        sub = await store.record_submission(
            make(
                options_scoring(make, rng.randint(0, 6), rng.randint(0, 3)),
                model=rng.choice(["A", "a ", "B", "C"]),
                mode=rng.choice(["default", "think"]),
                user_id=rng.randint(1, 4),
            )
        )
        ids.append((sub.id, sub.user_id))
        await change_visibility(store, rng, ids, (0.6, 0.7, 0.8, 0.9))
        if i % 20 == 19:
            from_summary = await store.leaderboard("primebench", limit=100)
            await store.rebuild_boards("primebench")
            rebuilt = await store.leaderboard("primebench", limit=100)
            # the on-the-fly path (a window wide enough to hold everything) agrees too
            on_the_fly = await store.leaderboard("primebench", limit=100, days=3650)
            assert from_summary == rebuilt
            assert on_the_fly.rows == rebuilt.rows and on_the_fly.total == rebuilt.total
            assert rebuilt.total > 0


def expected_board(
    subs: list[Submission], banned: set[int], now: datetime, days: int | None, mode: str | None
) -> list[tuple[object, ...]]:
    """A board recomputed in Python from the submissions (the definition, not the SQL)."""
    cutoff = None if days is None else now - timedelta(days=days)
    groups: dict[tuple[str, str], list[Submission]] = {}
    for s in subs:
        if s.visibility != "published" or s.user_id in banned:
            continue
        if (cutoff is not None and s.created_at < cutoff) or (mode and s.mode != mode):
            continue
        assert s.model_norm is not None and s.mode is not None
        groups.setdefault((s.model_norm, s.mode), []).append(s)
    lines = []
    for members in groups.values():
        best = min(members, key=lambda s: (-s.score, s.created_at, s.id))
        runs: dict[str, float] = {}
        for s in members:
            key = s.fingerprint or f"id:{s.id}"
            runs[key] = max(runs.get(key, s.score), s.score)
        first = min(s.created_at for s in members)
        last = max(s.created_at for s in members)
        mean = sum(runs.values()) / len(runs)
        lines.append((best, len(runs), mean, first, last))
    lines.sort(key=lambda line: (-line[0].score, line[0].created_at, line[0].id))
    out = []
    for best, runs_n, mean, first, last in lines:
        rank = 1 + sum(1 for other in lines if other[0].score > best.score)
        out.append(
            (rank, best.model, best.mode, best.score, runs_n, mean, best.id, best.user_id,
             first, last)
        )  # fmt: skip
    return out


async def assert_board(
    store: Store, want: list[tuple[object, ...]], page: int, **filters: Any
) -> None:
    """The PrimeBench board with ``filters`` is ``want`` (``expected_board``), its total is
    its length, and reading it ``page`` rows at a time gives the same rows."""
    board = await store.leaderboard("primebench", limit=1000, **filters)
    got = [
        (r.rank, r.model, r.mode, r.best, r.runs, pytest.approx(r.mean),
         r.submission_id, r.user_id, r.first_at, r.last_at)
        for r in board.rows
    ]  # fmt: skip
    assert got == want, filters
    assert board.total == len(want)
    paged = [
        row
        for offset in range(0, len(want) + page, page)
        for row in (
            await store.leaderboard("primebench", limit=page, offset=offset, **filters)
        ).rows
    ]
    assert paged == list(board.rows)


async def test_windowed_and_mode_boards_equal_a_recomputation(
    store: Store, make: Maker, clock: FakeClock
) -> None:
    """The walk (windows, modes) and the run summaries agree with the definition, through
    publishing, hiding, withdrawing, bans, equal answer sets published over several days
    and equal answers scored against two keys (a run whose scores differ)."""
    rng = random.Random(11)
    second = await store.save_key("primebench", key_bytes(2), source="v2")
    make2 = Maker(key=PRIME.load_key(key_bytes(2)), key_id=second.id)
    sheets = [options_scoring(make, rng.randint(0, 8), rng.randint(0, 4)) for _ in range(6)]
    ids: list[tuple[int, int]] = []
    for i in range(160):
        clock.advance(hours=rng.randint(0, 20))
        maker = make2 if rng.random() < 0.3 else make
        sub = await store.record_submission(
            maker(
                rng.choice(sheets),
                model=rng.choice(["A", "a ", "B", "C", "D"]),
                mode=rng.choice(["default", "think"]),
                user_id=rng.randint(1, 5),
                message_id=10_000 + i,
            )
        )
        ids.append((sub.id, sub.user_id))
        action = await change_visibility(store, rng, ids, (0.7, 0.75, 0.8, 0.85))
        if 0.85 <= action < 0.87:
            await store.ban(rng.randint(1, 5), by=99)
        elif 0.87 <= action < 0.9 and await store.bans():
            await store.unban((await store.bans())[0].user_id, by=99)
        if i % 40 == 39:
            subs = [s for s in [await store.get_submission(j) for j, _ in ids] if s]
            banned = {b.user_id for b in await store.bans()}
            for days in (1, 7, 30, None):
                for mode in (None, "think"):
                    want = expected_board(subs, banned, clock.now, days, mode)
                    await assert_board(store, want, 2, days=days, mode=mode)


async def test_chat_and_user_boards_equal_a_recomputation(
    store: Store, make: Maker, clock: FakeClock
) -> None:
    """A chat's and a user's board (grouped from their slice of rows) agree with the
    definition: runs, means, ties (1, 2, 2, 4: earlier first), windows, modes, paging."""
    rng = random.Random(5)
    sheets = [options_scoring(make, rng.randint(0, 6), rng.randint(0, 2)) for _ in range(5)]
    subs: list[Submission] = []
    for i in range(150):
        clock.advance(hours=rng.randint(0, 30))
        sub = await store.record_submission(
            make(
                rng.choice(sheets),
                model=rng.choice(["A", "a ", "B", "C", "D", "E"]),
                mode=rng.choice(["default", "think"]),
                user_id=rng.randint(1, 3),
                chat_id=-rng.randint(1, 2),
                message_id=20_000 + i,
            )
        )
        if rng.random() < 0.8:
            sub = await store.publish(sub.id)
        subs.append(sub)
    await store.hide(subs[-1].id)
    await store.ban(3, by=99)
    subs = [s for s in [await store.get_submission(s.id) for s in subs] if s]
    for scope in ({"chat_id": -1}, {"chat_id": -2}, {"user_id": 1}, {"user_id": 2}):
        column, value = next(iter(scope.items()))
        mine = [s for s in subs if getattr(s, column) == value]
        for days in (3, 30, None):
            for mode in (None, "think"):
                want = expected_board(mine, {3}, clock.now, days, mode)
                await assert_board(store, want, 3, days=days, mode=mode, **scope)
    assert (await store.leaderboard("primebench", user_id=3)).total == 0


async def test_a_window_after_the_newest_rows_is_empty(
    store: Store, make: Maker, clock: FakeClock
) -> None:
    await put(store, make, 5, model="old")
    clock.advance(days=40)
    for days, mode in ((7, None), (30, "default"), (1, None)):
        board = await store.leaderboard("primebench", days=days, mode=mode)
        assert board.rows == () and board.total == 0
    assert (await store.leaderboard("primebench", days=41)).total == 1
    assert (await store.leaderboard("primebench", days=400, mode="default")).total == 1


async def test_every_board_is_one_trip_to_the_database_thread(
    store: Store, make: Maker, clock: FakeClock
) -> None:
    """A board's statements run together on the connection's thread: a hand-off to it and
    back costs more than a board's SQL, so a board (any scope, window, mode or page) and
    the reference list take one trip each, however many statements they run there. Per
    statement, each of them is a trip (and the boards are the same: every test here)."""
    for i in range(30):
        await put(store, make, i % 13, model=f"m{i % 7}", mode=("default", "think")[i % 2],
                  user_id=i % 3, chat_id=-(i % 2))  # fmt: skip
        clock.advance(days=1)
    boards: list[dict[str, Any]] = [
        {},
        {"mode": "think"},
        {"days": 7},
        {"days": 30, "mode": "default", "limit": 2, "offset": 2},
        {"chat_id": -1, "days": 7},
        {"user_id": 2, "mode": "think"},
        {"offset": 50},  # past the end
    ]
    db = store.db
    for filters in boards:
        before = db.trips
        board = await store.leaderboard("primebench", **filters)
        trips = db.trips - before
        assert trips == 1 if not db.per_statement else trips > 1, filters
        assert board.rows or filters.get("offset") == 50
    before = db.trips
    await store.references("primebench")
    assert db.trips - before == 1


@pytest.mark.sqlite_only
async def test_one_trip_is_the_default_with_this_aiosqlite(db_path: Path) -> None:
    async with await Store.open(db_path) as store:
        assert not store.db.per_statement

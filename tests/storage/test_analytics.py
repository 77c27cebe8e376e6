"""storage.analytics on a temp-file database: challenge boards (Natory's), stored
expressions, records."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest

from scoring import natory
from storage import ChallengeFields, InvalidData, NewSubmission, Store, analytics

from .helpers import START, FakeClock, Maker

_message = iter(range(1, 10_000))

#: Natory's challenge, as the bot declares it to the store (bot.core.challenges).
SPEC = natory.BENCHMARK.challenge
assert SPEC is not None
FIELDS = ChallengeFields(
    SPEC.target_field, SPEC.shown_field, SPEC.valid_field, SPEC.trivial,
    SPEC.cost_option, SPEC.latency_option,
)  # fmt: skip
NAME = natory.NAME


async def put_natory(
    store: Store,
    expression: str,
    target: int = 6256,
    *,
    model: str | None = "Model A",
    mode: str | None = "default",
    cost: float | None = None,
    latency: float | None = None,
    publish: bool = True,
    user_id: int = 1,
    chat_id: int = -100,
) -> int:
    await store.declare_challenges({NAME: FIELDS})
    previous = await analytics.challenge_previous(store, NAME, FIELDS, target)
    result = natory.score(expression, natory.Challenge.for_target(target), previous=previous)
    extra: dict[str, Any] = {"target": target}
    if cost is not None:
        extra["cost"] = cost
    if latency is not None:
        extra["latency"] = latency
    sub = await store.record_submission(
        NewSubmission(
            user_id=user_id,
            chat_id=chat_id,
            message_id=next(_message),
            benchmark="natory",
            raw=expression,
            result=result,
            scorer_version=natory.SCORER_VERSION,
            model=model,
            mode=mode,
            extra=extra,
        )
    )
    if publish:
        await store.publish(sub.id)
    return sub.id


async def test_previous_lists_distinct_valid_simplified_expressions_of_the_target(
    store: Store,
) -> None:
    assert await analytics.challenge_previous(store, NAME, FIELDS, 6256) == ()
    first = await put_natory(store, "2*5^5+6", publish=False)
    await put_natory(store, "(2*5^5+6)")  # the same simplified expression
    await put_natory(store, "2*5^5+5")  # invalid: not stored as an expression
    await put_natory(store, "2*sopfr(6)^5+6")
    await put_natory(store, "13", target=13)
    assert await analytics.challenge_previous(store, NAME, FIELDS, 6256) == (
        "2 * 5^5 + 6",
        "2 * sopfr(6)^5 + 6",
    )
    # valid (scores 0)
    assert await analytics.challenge_previous(store, NAME, FIELDS, 13) == ("13",)
    assert await analytics.challenge_previous(store, NAME, FIELDS, 6256, before_id=first) == ()
    with pytest.raises(InvalidData):
        await analytics.challenge_previous(store, NAME, FIELDS, 0)


async def test_unique_bonus_is_paid_once_per_simplified_expression(store: Store) -> None:
    first = await put_natory(store, "2*5^5+6")
    again = await put_natory(store, "(2*5^5+6)")
    subs = [await store.get_submission(i) for i in (first, again)]
    assert [s.record["uniqueResultBonus"] for s in subs if s] == [5, 0]


async def test_target_board_ranks_best_then_mean_with_cost_and_latency(store: Store) -> None:
    await put_natory(store, "2*sopfr(6)^5+6", model="Alpha", cost=0.02, latency=4.0)
    # invalid (published before that was refused): never on a board
    await put_natory(store, "2*5^5+5", model="Alpha", cost=0.04, latency=2.0)
    await put_natory(store, "2*5^5+6", model="Beta", mode="think", cost=0.001)
    await put_natory(store, "2*5^5+6", model="beta", mode="default")
    await put_natory(store, "6256", model="Gamma", publish=False)  # private: not on boards
    await put_natory(store, "13", target=13, model="Alpha", latency=1.0)
    board = await analytics.challenge_board(store, NAME, FIELDS, target=6256)
    assert board.target == 6256 and board.total == 3
    alpha, beta_think, beta_default = board.rows
    assert (alpha.rank, alpha.model, alpha.mode, alpha.attempts, alpha.valid) == (
        1, "Alpha", "default", 1, 1,
    )  # fmt: skip
    assert alpha.best == 133 + 5 and alpha.mean == pytest.approx(138)  # +5: unique
    assert alpha.mean_cost == pytest.approx(0.02) and alpha.mean_latency == pytest.approx(4.0)
    assert alpha.best_expression == "2 * sopfr(6)^5 + 6"
    # Beta in think scored first (unique bonus), so it ranks above Beta in default
    assert (beta_think.model, beta_think.mode, beta_think.rank) == ("Beta", "think", 2)
    assert beta_think.best == beta_default.best + 5
    assert beta_default.mean_cost is None and beta_default.mean_latency is None
    assert (await analytics.challenge_board(store, NAME, FIELDS, target=9999)).rows == ()


async def test_window_and_verified_boards_read_only_those_attempts(
    store: Store, clock: FakeClock
) -> None:
    old = await put_natory(store, "2*sopfr(6)^5+6", model="Old")
    await put_natory(store, "2*5^5+6", model="Both")
    clock.advance(days=10)
    since = int(clock().timestamp() * 1000)
    await put_natory(store, "2*5^5+6", model="Both", mode="default")
    fresh = await put_natory(store, "2*5^5+6", model="New", mode="think")
    await put_natory(store, "2*5^5+5", model="New", mode="think")  # invalid: never shown
    for target in (None, 6256):
        recent = await analytics.challenge_board(store, NAME, FIELDS, target=target, since_ms=since)
        assert {(r.model, r.mode, r.attempts) for r in recent.rows} == {
            ("Both", "default", 1),
            ("New", "think", 1),
        }
        assert recent.total == 2
        assert all(r.first_ms >= since for r in recent.rows)
    assert (await analytics.challenge_board(store, NAME, FIELDS, verified=True)).rows == ()
    await store.verify(old)
    await store.verify(fresh)
    verified = await analytics.challenge_board(store, NAME, FIELDS, verified=True)
    assert [(r.model, r.attempts) for r in verified.rows] == [("Old", 1), ("New", 1)]
    both = await analytics.challenge_board(
        store, NAME, FIELDS, verified=True, since_ms=since, mode="think"
    )
    assert [r.model for r in both.rows] == ["New"]
    await store.ban(1, by=99)  # a banned user's attempts leave these boards too
    assert (await analytics.challenge_board(store, NAME, FIELDS, verified=True)).rows == ()
    assert (await analytics.challenge_board(store, NAME, FIELDS, since_ms=since)).rows == ()


async def test_model_board_over_all_targets_ranks_by_mean(store: Store) -> None:
    await put_natory(store, "2*sopfr(6)^5+6", model="Alpha", cost=0.02, latency=4.0)
    # the target written out: zeroed, and no part of the mean that ranks
    await put_natory(store, "13", target=13, model="Alpha", latency=1.0)
    await put_natory(store, "2*5^5+6", model="Beta", cost=0.01)
    board = await analytics.challenge_board(store, NAME, FIELDS)
    assert board.target is None
    alpha, beta = board.rows
    assert alpha.rank == 1 and alpha.targets == 2 and alpha.attempts == 2 and alpha.valid == 1
    assert alpha.mean == pytest.approx(138) and alpha.best == 138 and not alpha.trivial
    assert alpha.mean_cost == pytest.approx(0.02)  # only the attempt that gave a cost
    assert alpha.mean_latency == pytest.approx(2.5)
    assert beta.model == "Beta" and beta.rank == 2 and beta.targets == 1
    assert beta.mean == 41 + 5 and beta.mean_latency is None
    assert sorted(await analytics.challenge_targets(store, NAME, FIELDS)) == [(13, 1), (6256, 2)]
    page = await analytics.challenge_board(store, NAME, FIELDS, limit=1, offset=1)
    assert [r.model for r in page.rows] == ["Beta"] and page.total == 2


async def test_only_valid_attempts_rank_and_trivial_ones_rank_last(store: Store) -> None:
    """A wrong value never ranks; the target written out (zeroed) ranks below a valid
    expression even at a negative score, on the target's board, the model board and
    so the chart."""
    await put_natory(store, "2*5^5+5", model="Wrong")  # 6255: not the target
    await put_natory(store, "6256", model="Trivial")  # scores 0, trivially
    await put_natory(store, "2*5^5+6+6-6+6-6", model="Clumsy")  # valid, negative
    for board in (
        await analytics.challenge_board(store, NAME, FIELDS, target=6256),
        await analytics.challenge_board(store, NAME, FIELDS),
    ):
        clumsy, trivial = board.rows
        assert (clumsy.model, clumsy.rank, clumsy.trivial) == ("Clumsy", 1, False)
        assert clumsy.best < 0
        assert (trivial.model, trivial.rank, trivial.trivial) == ("Trivial", 2, True)
        assert trivial.best == 0 and trivial.valid == 0 and trivial.attempts == 1
        assert board.total == 2
    assert await analytics.challenge_targets(store, NAME, FIELDS) == ((6256, 2),)


async def test_chat_scope_and_withdrawn_attempts(store: Store) -> None:
    await put_natory(store, "2*5^5+6", model="Alpha", chat_id=-1)
    gone = await put_natory(store, "2*sopfr(6)^5+6", model="Beta", chat_id=-2, user_id=2)
    chat = await analytics.challenge_board(store, NAME, FIELDS, chat_id=-1)
    assert [r.model for r in chat.rows] == ["Alpha"]
    await store.withdraw(gone, 2)
    left = await analytics.challenge_board(store, NAME, FIELDS)
    assert [r.model for r in left.rows] == ["Alpha"]


async def test_empty_database_has_empty_boards(store: Store) -> None:
    assert (await analytics.challenge_board(store, NAME, FIELDS)).rows == ()
    assert await analytics.challenge_targets(store, NAME, FIELDS) == ()
    with pytest.raises(InvalidData):
        await analytics.challenge_board(store, NAME, FIELDS, limit=0)


async def test_records_by_id_in_one_query(store: Store, make: Maker, clock: FakeClock) -> None:
    ids = [(await store.record_submission(make("1:1\n2:2"))).id for _ in range(3)]
    found = await analytics.records(store, [*ids, 999_999])
    assert set(found) == set(ids)
    assert all(r["fingerprint"] for r in found.values())
    assert await analytics.records(store, []) == {}


#: Windows of the equivalence checks: from the first attempt's day, from inside the
#: first and the second day, from a day boundary, and one holding nothing.
_SINCE = (
    None,
    int(START.timestamp() * 1000) - 13 * 3_600_000,
    int(START.timestamp() * 1000) + 3_600_000,
    int(START.timestamp() * 1000) + 20 * 3_600_000,
    int(START.timestamp() * 1000) + 36 * 3_600_000,
    int(START.timestamp() * 1000) + 400 * 86_400_000,
)


async def _same_from_summary_and_rows(
    store: Store,
    since_values: tuple[int | None, ...] = _SINCE,
    targets: tuple[int | None, ...] = (None, 6256, 7, 13),
) -> None:
    """Every Natory board read from the summaries (``challenge_lines``; for a window,
    ``challenge_days`` or ``challenge_spans``) equals the board read from the rows (what a
    stale summary makes the store read), its means to the last bits."""
    for target in targets:
        for mode in (None, "default", "think"):
            for since in since_values:
                for limit, offset in ((20, 0), (2, 1), (1, 2), (3, 2), (1, 4)):
                    kw: dict[str, Any] = {
                        "target": target, "mode": mode, "limit": limit, "since_ms": since,
                    }  # fmt: skip
                    fast = await analytics.challenge_board(store, NAME, FIELDS, offset=offset, **kw)
                    async with store.db.write() as s:
                        await s.execute("UPDATE benchmarks SET boards_stale = 1")
                    slow = await analytics.challenge_board(store, NAME, FIELDS, offset=offset, **kw)
                    async with store.db.write() as s:
                        await s.execute("UPDATE benchmarks SET boards_stale = 0")
                    assert (fast.target, fast.total) == (slow.target, slow.total)
                    for a, b in zip(fast.rows, slow.rows, strict=True):
                        for field in fields(a):
                            x, y = getattr(a, field.name), getattr(b, field.name)
                            # means of sums added in another order: equal to the last bits
                            expected = pytest.approx(y, rel=1e-12) if isinstance(y, float) else y
                            assert x == expected


async def test_summary_follows_publications_and_moderation(store: Store, clock: FakeClock) -> None:
    """The Natory summaries are kept where the rows change: publish, withdraw, hide and
    unhide, ban and unban, a rebuild. The attempts come seven hours apart, so windows
    start inside days and day lines hold several attempts."""
    made: list[tuple[int, int]] = []
    plays = [
        ("2*5^5+6", 6256, "Alpha", "default", 0.02, 4.0, 1),
        ("6256", 6256, "Alpha", "default", None, 1.0, 2),
        ("2*sopfr(6)^5+6", 6256, "Beta", "think", 0.01, None, 2),
        ("2*5^5+5", 6256, "Beta", "think", None, None, 3),  # invalid
        ("7*7/7", 7, "Alpha", "default", 0.5, 2.0, 3),
        ("7", 7, "Gamma", "default", None, None, 1),
        ("3*3+1+3", 13, "Gamma", "think", 0.03, 3.0, 2),
        ("-(1-3)*3!+1", 13, "Beta", "think", None, 5.0, 1),
        ("(2*5^5+6)", 6256, "Gamma", "default", None, None, 3),
        ("2*5^5+6+6-6+6-6", 6256, "Alpha", "think", 0.04, None, 1),
        ("11+1+1", 13, "Alpha", "default", 0.07, 0.5, 2),
        ("2*5^5+6", 6256, "Delta", "default", None, None, 1),  # ties with Gamma
    ]
    for expression, target, model, mode, cost, latency, user in plays:
        sub = await put_natory(
            store, expression, target, model=model, mode=mode, cost=cost, latency=latency,
            user_id=user,
        )  # fmt: skip
        made.append((sub, user))
        clock.advance(hours=7)
        await _same_from_summary_and_rows(store)
    board = await analytics.challenge_board(store, NAME, FIELDS, target=6256)
    assert [r.rank for r in board.rows] == [1, 2, 3, 3, 5]
    await store.withdraw(made[0][0], 1)
    await _same_from_summary_and_rows(store)
    await store.hide(made[2][0])
    await _same_from_summary_and_rows(store)
    await store.unhide(made[2][0])
    await _same_from_summary_and_rows(store)
    await store.ban(2, by=9)
    await _same_from_summary_and_rows(store)
    await store.unban(2, by=9)
    await _same_from_summary_and_rows(store)
    await store.publish(made[0][0])
    await _same_from_summary_and_rows(store)
    async with store.db.write() as s:
        await s.execute("DELETE FROM challenge_lines")
        await s.execute("DELETE FROM challenge_days")
    await store.rebuild_boards("natory")
    await _same_from_summary_and_rows(store)


async def test_span_lines_rank_the_last_days_as_the_rows_do(store: Store, clock: FakeClock) -> None:
    """Boards over the last 7 and 30 days rank from the span lines, which the day's first
    publication moves forward, and moderation keeps; they equal the rows' boards."""
    plays = [
        ("2*5^5+6", 6256), ("6256", 6256), ("2*sopfr(6)^5+6", 6256), ("2*5^5+5", 6256),
        ("7*7/7", 7), ("7", 7), ("3*3+1+3", 13), ("-(1-3)*3!+1", 13), ("11+1+1", 13),
    ]  # fmt: skip
    made: list[tuple[int, int]] = []
    for i in range(40):  # 40 attempts, 23 hours apart: about 38 days
        expression, target = plays[i % len(plays)]
        user = 1 + i % 3
        made.append((
            await put_natory(
                store, expression, target, model=("Alpha", "Beta", "Gamma", "Delta")[i % 4],
                mode=("default", "think")[i % 2 if i % 5 else 0], cost=i / 100 or None,
                latency=None if i % 3 else i / 7, user_id=user,
            ),
            user,
        ))  # fmt: skip
        clock.advance(hours=23)
    await put_natory(store, "2*5^5+6", model="Epsilon")  # today's first: the spans roll
    today = int(clock.now.timestamp() * 1000) // 86_400_000
    async with store.db.read() as s:
        found = await s.all("SELECT span, from_day FROM challenge_span_days ORDER BY span")
    assert [tuple(r) for r in found] == [(7, today - 6), (30, today - 29)]

    def windows() -> tuple[int, ...]:
        now = int(clock.now.timestamp() * 1000)
        return tuple(now - days * 86_400_000 for days in (7, 30))

    await _same_from_summary_and_rows(store, windows(), (None,))
    # the window's days come from the span lines: a changed line changes the board
    kept = await analytics.challenge_board(store, NAME, FIELDS, since_ms=windows()[1])
    async with store.db.write() as s:
        await s.execute("UPDATE challenge_spans SET score_sum = score_sum + 1000 WHERE span = 30")
    moved = await analytics.challenge_board(store, NAME, FIELDS, since_ms=windows()[1])
    assert {r.model: r.mean for r in moved.rows} != {r.model: r.mean for r in kept.rows}
    await store.rebuild_boards("natory")  # puts the lines right
    await _same_from_summary_and_rows(store, windows(), (None,))
    await store.withdraw(made[-1][0], made[-1][1])
    await store.hide(made[-2][0])
    await store.ban(made[-3][1], by=9)
    await _same_from_summary_and_rows(store, windows(), (None,))
    await store.unban(made[-3][1], by=9)
    clock.advance(days=1)
    await _same_from_summary_and_rows(store, windows(), (None,))  # behind: the day lines
    await store.roll_boards()  # a day without a publication: the bot turns it at midnight
    async with store.db.read() as s:
        found = await s.all("SELECT span, from_day FROM challenge_span_days ORDER BY span")
    assert [tuple(r) for r in found] == [(7, today - 5), (30, today - 28)]
    await _same_from_summary_and_rows(store, windows(), (None,))
    await put_natory(store, "7*7/7", 7, model="Alpha", mode="think")
    await _same_from_summary_and_rows(store, windows(), (None,))


async def test_a_challenge_attempt_ranks_among_the_attempts_at_its_target(store: Store) -> None:
    await put_natory(store, "2*sopfr(6)^5+6", model="Alpha")  # 138 at 6256
    beta = await put_natory(store, "2*5^5+6", model="Beta")  # fewer points, same target
    gamma = await put_natory(store, "13", target=13, model="Gamma")  # alone at 13 (0)
    ranks = {}
    for sub_id in (beta, gamma):
        sub = await store.get_submission(sub_id)
        assert sub is not None
        ranks[sub_id] = (await store.global_rank(sub, FIELDS), await store.global_rank(sub))
    # among its target's attempts, and on the benchmark's global board without the fields
    assert ranks == {beta: (2, 2), gamma: (1, 3)}

"""Re-scoring a benchmark without stored keys (Natory): stored natory-v1 attempts move to
the current scorer version, each against the challenge it names, on both engines."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from bot.core.rescore import rescore
from scoring import registry
from scoring.natory.rules import load_rules
from scoring.natory.scorer import Challenge, score
from storage import NewSubmission, Store, analytics
from tests.storage.conftest import pg_database
from tests.storage.test_analytics import FIELDS, NAME

__all__ = ["pg_database"]

NATORY = registry.get("natory")
V1 = load_rules("natory-v1")

#: (expression, model) for target 6840; v1's scores in the comments
ATTEMPTS = (
    ("(6+4)*684", "Honest"),  # 12 in both versions
    ("6840+0*4", "Padder"),  # v1 32 (padding), v2 0
    ("6840*8^0", "Padder"),  # v1 38, v2 0
    ("(6+4)*684+0*444444444", "Wild"),  # v1 -20,464 (11 extra digits), v2 floored at -100
    ("(6+4)*684", "Echo"),  # the same simplified result again: no unique bonus
)


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def store_v1(store: Store, *, extra: Mapping[str, Any] | None = None) -> list[int]:
    """The attempts as natory-v1 stored them (published, with ``previous`` as then)."""
    await store.declare_challenges({NAME: FIELDS})  # as the bot does at start
    challenge = Challenge.for_target(6840)
    ids = []
    for message_id, (expression, model) in enumerate(ATTEMPTS, start=1):
        previous = await analytics.challenge_previous(store, NAME, FIELDS, 6840)
        result = score(expression, challenge, previous=previous, rules=V1)
        assert result.valid and result.scorer_version == "natory-v1"
        sub = await store.record_submission(
            NewSubmission(
                user_id=7,
                chat_id=7,
                message_id=message_id,
                benchmark="natory",
                key_version_id=None,
                model=model,
                mode="default",
                raw=expression,
                result=result,
                scorer_version="natory-v1",
                extra=dict(extra or {"target": 6840, "cost": 0.01}),
            )
        )
        await store.publish(sub.id)
        ids.append(sub.id)
    return ids


async def test_stored_v1_attempts_are_rescored_to_v2(store: Store) -> None:
    ids = await store_v1(store)
    scores = [(await store.get_submission(i)).score for i in ids]  # type: ignore[union-attr]
    assert scores[1] > 0 and scores[2] > 0 and scores[3] < -20_000  # what v1 paid
    before = await store.leaderboard("natory")
    assert [(r.model, r.best) for r in before.rows] == [
        ("Padder", 43.0),
        ("Honest", 17.0),
        ("Echo", 12.0),
        ("Wild", -20441.0),
    ]
    current = NATORY.scorer_version
    assert current == "natory-v2"
    assert await store.pending_rescore("natory", scorer_version=current, keyless=True) == 5
    assert await store.pending_rescore("natory") == 0  # no key: nothing for /setkey

    report = await rescore(store, "natory", batch_size=2)
    assert (report.total, report.rescored, report.skipped) == (5, 5, 0)
    assert report.key_version is None and report.scorer_version == "natory-v2"
    assert report.changed >= 3 and report.batches == 3
    assert await store.pending_rescore("natory", scorer_version=current, keyless=True) == 0

    # each row as v2 scores it today, with what was stored before it as ``previous``
    challenge = Challenge.for_target(6840)
    seen: list[str] = []
    for i, (expression, _) in zip(ids, ATTEMPTS, strict=True):
        sub = await store.get_submission(i)
        assert sub is not None and sub.scorer_version == "natory-v2"
        want = score(expression, challenge, previous=tuple(seen))
        assert sub.score == want.primary and sub.record["scorer_version"] == "natory-v2"
        assert sub.record == want.to_record()
        if want.simplified not in seen:
            seen.append(want.simplified)
    paddings = [(await store.get_submission(i)).score for i in ids[1:3]]  # type: ignore[union-attr]
    assert paddings == [0.0, 0.0]
    wild = await store.get_submission(ids[3])
    assert wild is not None and wild.score == -100
    honest, echo = [await store.get_submission(i) for i in (ids[0], ids[4])]
    assert honest is not None and echo is not None
    assert honest.record["uniqueResultBonus"] == 5
    assert echo.record["uniqueResultBonus"] == 0  # Honest wrote it first

    after = await store.leaderboard("natory")
    assert not after.rescoring
    assert [(r.model, r.best) for r in after.rows] == [
        ("Honest", 17.0),
        ("Echo", 12.0),
        ("Padder", 0.0),
        ("Wild", -100.0),
    ]
    board = await analytics.challenge_board(store, NAME, FIELDS, target=6840)
    assert min(r.mean for r in board.rows) >= -100  # one wild attempt flattens nobody
    # done: a second run scores nothing
    again = await rescore(store, "natory")
    assert (again.total, again.rescored, again.skipped, again.changed) == (5, 0, 5, 0)


async def test_a_row_naming_no_challenge_is_left_as_it_is(store: Store) -> None:
    ids = await store_v1(store, extra={"cost": 0.01})  # no target kept
    report = await rescore(store, "natory")
    assert (report.rescored, report.skipped) == (0, 5)
    sub = await store.get_submission(ids[1])
    assert sub is not None and sub.scorer_version == "natory-v1" and sub.score > 0

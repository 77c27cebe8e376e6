"""Corrections reach people: after a re-score, each user whose published results
changed score or rank gets one message listing them, before → after.

:func:`before` is taken before the re-score (every published result's score, kept
as arrays, and the global board's line ranks), :func:`changes` after it; the telegram
side sends one message per user (``bot.telegram.trust_handlers.send_notices``), minus
those who sent ``/notices off``. What :func:`before` took is kept in the database until
:func:`changes` is done: a re-score interrupted (a crash, a restart) and run again still
tells the people whose results its first batches changed, from their first scores.
"""

from __future__ import annotations

import json
from array import array
from collections import defaultdict
from dataclasses import dataclass

from scoring import Benchmark
from storage import PublishedScores

from ..render.trust_format import Change
from .services import Services

#: Board lines read for ranks at most (pages of 1,000).
MAX_LINES = 20_000
#: Results one message lists at most (a user's first ones).
MAX_LISTED = 20


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Published results and board ranks at one moment."""

    scores: PublishedScores
    #: the global board's rank of each line's best result, by submission id
    ranks: dict[int, int]


@dataclass(frozen=True, slots=True)
class Notice:
    """What one user is told after a re-score."""

    user_id: int
    changes: tuple[Change, ...]
    #: how many of the user's results changed (``changes`` lists the first
    #: :data:`MAX_LISTED`)
    total: int = 0


async def _ranks(services: Services, benchmark: str) -> dict[int, int]:
    ranks: dict[int, int] = {}
    offset = 0
    while offset < MAX_LINES:
        board = await services.store.leaderboard(benchmark, limit=1000, offset=offset)
        for row in board.rows:
            if row.submission_id is not None:
                ranks[row.submission_id] = row.rank
        offset += 1000
        if offset >= board.total:
            break
    return ranks


async def snapshot(services: Services, benchmark: str) -> Snapshot:
    scores = await services.store.published_scores(benchmark)
    return Snapshot(scores, await _ranks(services, benchmark))


def _dumps(snap: Snapshot) -> str:
    scores = snap.scores
    return json.dumps(
        {
            "ids": scores.ids.tolist(),
            "users": scores.users.tolist(),
            "scores": scores.scores.tolist(),
            "ranks": list(snap.ranks.items()),
        },
        separators=(",", ":"),
    )


def _loads(text: str) -> Snapshot:
    data = json.loads(text)
    scores = PublishedScores(
        array("q", data["ids"]), array("q", data["users"]), array("d", data["scores"])
    )
    return Snapshot(scores, {int(sid): int(rank) for sid, rank in data["ranks"]})


async def before(services: Services, benchmark: str) -> Snapshot:
    """The snapshot a re-score's notices compare with: the one an interrupted re-score
    of the benchmark kept, else one taken now (and kept until :func:`changes`)."""
    store = services.store
    kept = await store.scores_before(benchmark)
    if kept is None:
        taken = await snapshot(services, benchmark)
        kept = await store.keep_scores_before(benchmark, _dumps(taken))
    return _loads(kept)


async def changes(services: Services, benchmark: Benchmark, before: Snapshot) -> list[Notice]:
    """The notices a re-score makes: per user (those who opted out left out), each of
    their published results whose score or line rank changed since ``before``."""
    after = await snapshot(services, benchmark.name)
    await services.store.drop_scores_before(benchmark.name)
    old = {sid: i for i, sid in enumerate(before.scores.ids)}
    by_user: dict[int, list[tuple[int, float, float]]] = defaultdict(list)
    for i, sid in enumerate(after.scores.ids):
        j = old.get(sid)
        if j is None:
            continue  # published since
        score, was = after.scores.scores[i], before.scores.scores[j]
        if score != was or before.ranks.get(sid) != after.ranks.get(sid):
            by_user[after.scores.users[i]].append((sid, was, score))
    if not by_user:
        return []
    off = await services.store.notices_off(by_user)
    told = {user: found for user, found in by_user.items() if user not in off}
    listed = (sid for found in told.values() for sid, _, _ in found[:MAX_LISTED])
    models = await services.store.models_of(listed)
    notices = []
    for user_id, found in told.items():
        shown = []
        for sid, was, score in found[:MAX_LISTED]:
            shown.append(
                Change(
                    sid,
                    models.get(sid),
                    benchmark.title,
                    benchmark.format_score(was),
                    benchmark.format_score(score),
                    before.ranks.get(sid),
                    after.ranks.get(sid),
                )
            )
        notices.append(Notice(user_id, tuple(shown), len(found)))
    return notices

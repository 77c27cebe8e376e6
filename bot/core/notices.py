"""Corrections reach people: after a re-score, each user whose published results
changed score or rank gets one message listing them, before → after.

:func:`before` is taken before the re-score (every published result's score, kept
as arrays, and the global board's line ranks), :func:`changes` after it; the telegram
side sends one message per user (``bot.telegram.trust_handlers.send_notices``), minus
those who sent ``/notices off``. What :func:`before` took is kept in the database until
:func:`changes` is done: a re-score interrupted (a crash, a restart) and run again still
tells the people whose results its first batches changed, from their first scores.

The notices :func:`changes` makes are kept in the database too (``shared_state``), in
the transaction that forgets the scores before, until they are sent (:func:`deliver`):
each is taken before it is sent, so none goes twice, and those a process did not send
before it ended (or that a command-line re-score made) are sent by the next instance
that looks (:func:`send_left`, at a start and every minute).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from array import array
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import astuple, dataclass

from scoring import Benchmark
from storage import PublishedScores, StorageError

from ..render.trust_format import Change
from . import leases
from .services import Services

log = logging.getLogger(__name__)

#: Board lines read for ranks at most (pages of 1,000).
MAX_LINES = 20_000
#: Results one message lists at most (a user's first ones).
MAX_LISTED = 20
#: Notices not sent within this long are dropped (old news).
KEEP_MS = 7 * 24 * 3600 * 1000
#: Every instance looks for notices left to send this often.
SWEEP_S = 60.0
#: The topic a maker that leaves its notices to the bot announces.
TOPIC = "notices"


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

    def dumps(self) -> str:
        """As kept until sent (without the user: the row names them)."""
        changes = [astuple(c) for c in self.changes]
        return json.dumps({"total": self.total, "changes": changes}, ensure_ascii=False)

    @classmethod
    def loads(cls, user_id: int, text: str) -> Notice:
        data = json.loads(text)
        changes = tuple(Change(*c) for c in data["changes"])
        return cls(user_id, changes, int(data["total"]))


@dataclass(frozen=True, slots=True)
class Batch:
    """A re-score's notices, kept until sent: ``owner`` holds the lease to send them."""

    id: str
    owner: str
    notices: tuple[Notice, ...]


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


async def changes(
    services: Services, benchmark: Benchmark, before: Snapshot, *, owner: str
) -> Batch:
    """The notices a re-score makes: per user (those who opted out left out), each of
    their published results whose score or line rank changed since ``before``; kept
    until sent, ``owner`` (the re-score's holder) to send them. When another
    re-score made them from the same scores before, an empty batch."""
    after = await snapshot(services, benchmark.name)
    made = await _notices(services, benchmark, before, after)
    batch = f"{benchmark.name}.{int(time.time() * 1000)}.{leases.owner()[:6]}"
    kept = await services.store.queue_notices(
        benchmark.name,
        batch,
        [(n.user_id, n.dumps()) for n in made],
        owner=owner,
        lease_ms=leases.LEASE_MS,
        keep_ms=KEEP_MS,
    )
    return Batch(batch, owner, tuple(made) if kept else ())


#: Sends one notice (the Telegram side's): True when it reached the user, False when it
#: cannot (they blocked the bot), None when not now (Telegram did not answer: kept for a
#: later look).
Send = Callable[[Notice], Awaitable[bool | None]]


async def deliver(services: Services, batch: str, owner: str, send: Send) -> int:
    """Send what is left of a batch whose lease ``owner`` holds, each notice taken
    first (so sent once at most); how many reached their user. One that cannot go now
    is put back, and the rest wait with it for the next look (:func:`sweep`)."""
    store, told = services.store, 0
    async with leases.kept(services, f"notices.{batch}", owner):
        for user_id in await store.queued_notices(batch):
            text = await store.take_notice(batch, user_id)
            if text is None:
                continue  # sent by another
            if await store.notices_off([user_id]):
                continue  # they sent /notices off since it was made
            sent = await send(Notice.loads(user_id, text))
            if sent is None:
                await store.put_notice_back(batch, user_id, text, keep_ms=KEEP_MS)
                return told
            told += sent
        await store.end_notices(batch)
    return told


async def leave(services: Services, batch: Batch) -> None:
    """A maker that does not send its notices (a command-line re-score) leaves them to
    the bot: any instance sends them at its next look (at once, with PostgreSQL: it is
    announced)."""
    if batch.notices:
        await services.store.drop_lease(f"notices.{batch.id}", batch.owner)
        await services.announce(TOPIC)


async def send_left(services: Services, send: Send) -> int:
    """Send the notices nobody is sending (their sender ended, or a command-line
    re-score made them); how many reached their user."""
    told = 0
    for batch in await services.store.notice_batches():
        holder = leases.owner()
        if await leases.take(services, f"notices.{batch}", holder):
            told += await deliver(services, batch, holder, send)
    return told


async def sweep(services: Services, send: Send) -> None:
    """At a start, every :data:`SWEEP_S`, and when another process left notices to send
    (announced, PostgreSQL): :func:`send_left`."""
    wake = asyncio.Event()

    def heard(topic: str) -> None:
        if topic in (TOPIC, ""):
            wake.set()

    if services.store.shared:
        services.listeners[TOPIC] = heard
    while True:
        wake.clear()
        try:
            await send_left(services, send)
        except StorageError as exc:
            log.warning("notices left to send not looked at: %s", exc)
        except Exception:  # a background task: nobody else would see it
            log.exception("notices left to send not sent")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), SWEEP_S)


async def _notices(
    services: Services, benchmark: Benchmark, before: Snapshot, after: Snapshot
) -> list[Notice]:
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

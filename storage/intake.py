"""The durable intake: updates kept from their arrival until they are handled.

The bot writes every update here before Telegram is told it arrived, so an update
fetched but not handled when the process dies is handled after the restart. Handling
is idempotent where it has an effect (a submission is unique on its chat and message, a
publication is a state), so an update handled but not yet marked done is at worst
answered twice.

Marking done is group-committed: the ids finished within :data:`FINISH_GATHER` seconds
of the first go together in one ``UPDATE`` (one commit for a few dozen updates under
load, not one for every few). An update finished but not yet marked when the process
dies is handled again after the restart, like one still being handled. A commit that
fails because the database does not answer is tried again (with backoff) with the ids
finished meanwhile, until it lands: the marks of updates answered during an outage are
not lost, so a restart does not answer them again.

Several instances on one database share the intake as a work queue. An update is
handled by the instance that holds its lease: the row's ``owner`` (the store's
:attr:`IntakeStore.instance`, random for each opening) until ``lease_until`` (UTC
milliseconds). The instance that admits an update owns it from the same statement that
inserts it. While it handles the update — queued, running, kept for a later try, its
done mark on its way — it is *held* (:attr:`IntakeStore.held`) and :meth:`renew`
extends its lease by :data:`LEASE_MS`; once its done mark is committed it is held no
more. An instance that dies stops renewing: its leases lapse within :data:`LEASE_MS`
and :meth:`claim_lapsed` lets any other instance take those updates (on PostgreSQL with
``FOR UPDATE SKIP LOCKED``: two instances claiming at once take different rows; on
SQLite the write lock serialises a plain guarded ``UPDATE``). A stopping store releases
what it still holds (:meth:`release`), so the others need not wait for the lapse.

At start (:meth:`claim_at_start`) an instance on PostgreSQL takes only lapsed leases,
never a live one (those are being handled by a running instance). SQLite is one
process's database: the previous process is gone, so a starting one takes every
unfinished update at once, as before leases.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from .base import Clock, StoreBase
from .db import Database
from .errors import StorageError, StoreUnavailable

log = logging.getLogger("benchboard.storage")

_T = TypeVar("_T")

#: Ids per statement (well under SQLite's limit on bound values).
_CHUNK = 500
#: Seconds the ids finished after one another are gathered before they are committed.
FINISH_GATHER = 0.02
#: Updates per INSERT of :meth:`IntakeStore.admit` (five values each, under the 999 bound
#: values an older SQLite allows).
_ADMIT_CHUNK = 190
#: Milliseconds an instance's lease on an update lasts unless renewed (the Telegram
#: layer renews every quarter of it): how long the updates a dead instance held wait
#: before another instance takes them, and how long an instance's event loop may stall
#: before an update it is handling may be handled by another as well.
LEASE_MS = 6_000
#: Updates claimed per statement of :meth:`IntakeStore.claim_lapsed`.
CLAIM_LIMIT = 100
#: A ``lease_until`` later than any lease: :meth:`IntakeStore.claim_at_start` on SQLite.
_ANY_LEASE = 1 << 62
#: Seconds before a finish-mark commit that failed is tried again, doubled up to
#: :data:`FINISH_RETRY_MAX` while the database does not answer.
FINISH_RETRY_FIRST = 0.5
FINISH_RETRY_MAX = 5.0


@dataclass(frozen=True, slots=True)
class IntakeEntry:
    """An update not yet handled: Telegram's id and its JSON body."""

    update_id: int
    body: str


class IntakeStore(StoreBase):
    def __init__(self, db: Database, path: Path, *, clock: Clock) -> None:
        super().__init__(db, path, clock=clock)
        #: this store's name as the owner of leases (unique to each opening)
        self.instance = secrets.token_hex(8)
        # the updates this store is handling: their leases are renewed
        self._held: set[int] = set()
        # ids handled, waiting for the next group-committed UPDATE, and the task running it
        self._finished: list[int] = []
        self._finisher: asyncio.Task[None] | None = None
        # set when the store closes: what is gathered is committed at once
        self._settling = asyncio.Event()

    async def admit(self, updates: Sequence[tuple[int, str]]) -> list[int]:
        """Keep updates (id, JSON body) in one transaction; return the ids that were not
        kept before, in the order given (a redelivered update is not handled twice).

        The ids returned are the rows this call inserted (``RETURNING`` of an insert that
        does nothing on a conflict): of several instances given the same update at the
        same moment, exactly one admits it, and that one handles it. The insert is the
        claim: the rows carry this store's lease, and the ids are held."""
        updates = list(dict(updates).items())  # one entry per id
        if not updates:
            return []
        now = self._now_ms()
        lease = now + LEASE_MS
        inserted: set[int] = set()
        chunks = _chunks(updates, _ADMIT_CHUNK)
        async with self._writing(len(chunks)) as s:
            for chunk in chunks:
                rows = await s.all(
                    "INSERT INTO intake (update_id, body, received_at, owner, lease_until) "
                    "VALUES "
                    + ", ".join(["(?, ?, ?, ?, ?)"] * len(chunk))
                    + " ON CONFLICT (update_id) DO NOTHING RETURNING update_id",
                    [v for u, body in chunk for v in (u, body, now, self.instance, lease)],
                )
                inserted.update(int(r[0]) for r in rows)
        self._held.update(inserted)
        return [u for u, _ in updates if u in inserted]

    # --- leases ----------------------------------------------------------------------

    @property
    def held(self) -> frozenset[int]:
        """The updates this store is handling (admitted or claimed, not yet marked done)."""
        return frozenset(self._held)

    async def claim_lapsed(self, *, limit: int = CLAIM_LIMIT) -> list[IntakeEntry]:
        """Take up to ``limit`` unfinished updates whose lease has lapsed (their instance
        died, or released them), oldest first: they are this store's now, and held.
        Updates this store already holds are not returned (they are being handled here;
        the claim only renewed them)."""
        return (await self._claim(self._now_ms(), limit))[0]

    async def claim_at_start(self) -> list[IntakeEntry]:
        """What a starting instance takes, oldest first: on PostgreSQL every update whose
        lease has lapsed, never a live one (a running instance is handling it); on SQLite
        (one process) every unfinished update, the previous process's live leases too."""
        if self._db.kind != "postgresql":
            return (await self._claim(_ANY_LEASE, -1))[0]  # one statement, no limit
        taken: list[IntakeEntry] = []
        cutoff = self._now_ms()
        while True:  # what is claimed leases past the cutoff: each round takes new rows
            fresh, claimed = await self._claim(cutoff, _CHUNK)
            taken.extend(fresh)
            if claimed < _CHUNK:
                return sorted(taken, key=_by_id)

    async def _claim(self, cutoff: int, limit: int) -> tuple[list[IntakeEntry], int]:
        """Take up to ``limit`` (SQLite: -1, no limit) unfinished updates whose lease
        ends before ``cutoff``, the longest lapsed first (a range of ``intake_leases``,
        read in its order: however many live leases there are, only lapsed ones are
        read); the ones not held before (now held, oldest first), and how many rows the
        claim took."""
        lease = self._now_ms() + LEASE_MS
        async with self._db.single() as s:
            if self._db.kind == "postgresql":
                # rows another instance is claiming right now are skipped, not waited for
                rows = await s.all(
                    "WITH lapsed AS (SELECT update_id FROM intake"
                    " WHERE done_at IS NULL AND lease_until < ?"
                    " ORDER BY lease_until, update_id LIMIT ? FOR UPDATE SKIP LOCKED)"
                    " UPDATE intake SET owner = ?, lease_until = ? FROM lapsed"
                    " WHERE intake.update_id = lapsed.update_id"
                    " RETURNING intake.update_id, intake.body",
                    (cutoff, limit, self.instance, lease),
                )
            else:
                rows = await s.all(
                    "UPDATE intake SET owner = ?, lease_until = ? WHERE update_id IN"
                    " (SELECT update_id FROM intake WHERE done_at IS NULL AND lease_until < ?"
                    " ORDER BY lease_until, update_id LIMIT ?)"
                    " RETURNING update_id, body",
                    (self.instance, lease, cutoff, limit),
                )
        entries = sorted((IntakeEntry(int(r[0]), str(r[1])) for r in rows), key=_by_id)
        fresh = [e for e in entries if e.update_id not in self._held]
        self._held.update(e.update_id for e in fresh)
        return fresh, len(rows)

    async def renew(self) -> int:
        """Extend the leases of the updates this store holds by :data:`LEASE_MS`; return
        how many it still holds. One that is no longer this store's (done, or taken by
        another instance after its lease lapsed) is held no more.

        A renewal never waits for a row lock (on PostgreSQL its rows are taken ``FOR
        UPDATE SKIP LOCKED``): a row locked now is being marked done or claimed, and a
        renewal waiting for it while that statement waits for one of the renewal's rows
        would be a deadlock. A row skipped so is looked at without a lock: still this
        store's, it stays held (renewed next time)."""
        held = sorted(self._held)
        if not held:
            return 0
        lease = self._now_ms() + LEASE_MS
        chunks = _chunks(held, _CHUNK)
        kept: set[int] = set()
        postgres = self._db.kind == "postgresql"
        async with self._writing(len(chunks)) as s:
            for chunk in chunks:
                marks = ", ".join("?" * len(chunk))
                if postgres:
                    sql = (
                        "WITH mine AS (SELECT update_id FROM intake WHERE update_id IN "
                        f"({marks}) AND owner = ? AND done_at IS NULL "
                        "ORDER BY update_id FOR UPDATE SKIP LOCKED) "
                        "UPDATE intake SET lease_until = ? FROM mine "
                        "WHERE intake.update_id = mine.update_id RETURNING intake.update_id"
                    )
                    params: tuple[object, ...] = (*chunk, self.instance, lease)
                else:
                    sql = (
                        f"UPDATE intake SET lease_until = ? WHERE update_id IN ({marks}) "
                        "AND owner = ? AND done_at IS NULL RETURNING update_id"
                    )
                    params = (lease, *chunk, self.instance)
                rows = await s.all(sql, params)
                kept.update(int(r[0]) for r in rows)
        gone = set(held) - kept
        if gone and postgres:
            skipped = sorted(gone)
            async with self._db.single() as s:  # a plain read waits for no lock
                rows = await s.all(
                    f"SELECT update_id FROM intake WHERE update_id IN "
                    f"({', '.join('?' * len(skipped))}) AND owner = ? AND done_at IS NULL",
                    (*skipped, self.instance),
                )
            gone -= {int(r[0]) for r in rows}
        self._held.difference_update(gone)
        return len(self._held)

    async def release(self, update_ids: Sequence[int] | None = None) -> None:
        """Give up the leases of ``update_ids`` (default: every update held), unfinished:
        any instance may take them at once (:meth:`claim_lapsed`)."""
        ids = sorted(self._held if update_ids is None else set(update_ids) & self._held)
        if not ids:
            return
        self._held.difference_update(ids)
        chunks = _chunks(ids, _CHUNK)
        async with self._writing(len(chunks)) as s:
            for chunk in chunks:
                await s.execute(
                    f"UPDATE intake SET owner = NULL, lease_until = 0 WHERE update_id IN "
                    f"({', '.join('?' * len(chunk))}) AND owner = ? AND done_at IS NULL",
                    (*chunk, self.instance),
                )

    async def unfinished(self) -> list[IntakeEntry]:
        """Updates kept but not handled, oldest first."""
        async with self._db.single() as s:
            rows = await s.all(
                "SELECT update_id, body FROM intake WHERE done_at IS NULL ORDER BY update_id"
            )
        return [IntakeEntry(int(r[0]), str(r[1])) for r in rows]

    def finish_soon(self, update_id: int) -> asyncio.Task[None]:
        """Mark an update handled, gathered with the others finishing within
        :data:`FINISH_GATHER` seconds; returns the task that commits them (nobody need
        wait for it: the store's closing does)."""
        self._finished.append(update_id)
        if self._finisher is None or self._finisher.done():
            self._finisher = asyncio.get_running_loop().create_task(self._commit_finished())
        return self._finisher

    async def finish(self, update_id: int) -> None:
        """Mark an update handled; returns once that is committed."""
        await asyncio.shield(self.finish_soon(update_id))

    async def _commit_finished(self) -> None:
        pause = FINISH_RETRY_FIRST
        while self._finished:
            if not self._settling.is_set():
                with suppress(TimeoutError):
                    await asyncio.wait_for(self._settling.wait(), FINISH_GATHER)
            batch, self._finished = self._finished, []
            try:
                await self._mark_done(batch)
            except StoreUnavailable as exc:
                if self._settling.is_set():
                    # closing: left unfinished, handled again (answered twice) after the start
                    log.warning(
                        "done-marks not committed before closing",
                        extra={"count": len(batch), "error": str(exc)},
                    )
                    return
                self._finished[:0] = batch  # kept, with the ids finishing meanwhile
                log.warning(
                    "done-marks not committed; trying again",
                    extra={"count": len(self._finished), "error": str(exc)},
                )
                with suppress(TimeoutError):
                    await asyncio.wait_for(self._settling.wait(), pause)
                pause = min(pause * 2, FINISH_RETRY_MAX)
                continue
            pause = FINISH_RETRY_FIRST

    async def _mark_done(self, batch: list[int]) -> None:
        now = self._now_ms()
        chunks = _chunks(batch, _CHUNK)
        async with self._writing(len(chunks)) as s:
            for chunk in chunks:
                await s.execute(
                    f"UPDATE intake SET done_at = ? WHERE update_id IN "
                    f"({', '.join('?' * len(chunk))}) AND done_at IS NULL",
                    (now, *chunk),
                )
        # marked: no longer this store's to renew (until then, a mark that failed
        # leaves the update held, and its lease renewed, while this process lives)
        self._held.difference_update(batch)

    async def prune_intake(self, *, older_than_ms: int) -> int:
        """Forget handled updates received more than ``older_than_ms`` ago (Telegram keeps
        undelivered updates 24 hours, so a day is enough); return how many."""
        cutoff = self._now_ms() - older_than_ms
        async with self._db.write() as s:
            done = await s.execute(
                "DELETE FROM intake WHERE done_at IS NOT NULL AND received_at < ?", (cutoff,)
            )
        return done.rowcount

    async def _intake_settled(self) -> None:
        """Commit the finished ids gathered now and wait until they land, then release
        the leases of what is still held (before closing): another instance takes those
        at once instead of after their lapse."""
        self._settling.set()
        if self._finisher is not None:
            await asyncio.wait([self._finisher])
        if self._held:
            with suppress(StorageError):  # unreleased, they lapse
                await self.release()


def _chunks(items: Sequence[_T], size: int) -> list[Sequence[_T]]:
    """``items`` in runs of at most ``size`` (one statement each)."""
    return [items[i : i + size] for i in range(0, len(items), size)]


def _by_id(entry: IntakeEntry) -> int:
    return entry.update_id

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
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from .base import Clock, StoreBase
from .db import Database
from .errors import StoreUnavailable

log = logging.getLogger("benchboard.storage")

#: Ids per statement (well under SQLite's limit on bound values).
_CHUNK = 500
#: Seconds the ids finished after one another are gathered before they are committed.
FINISH_GATHER = 0.02
#: Updates per INSERT of :meth:`IntakeStore.admit` (three values each, under the 999 bound
#: values an older SQLite allows).
_ADMIT_CHUNK = 300
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
        same moment, exactly one admits it, and that one handles it."""
        updates = list(dict(updates).items())  # one entry per id
        if not updates:
            return []
        now = self._now_ms()
        inserted: set[int] = set()
        chunks = [updates[i : i + _ADMIT_CHUNK] for i in range(0, len(updates), _ADMIT_CHUNK)]
        async with self._writing(len(chunks)) as s:
            for chunk in chunks:
                rows = await s.all(
                    "INSERT INTO intake (update_id, body, received_at) VALUES "
                    + ", ".join(["(?, ?, ?)"] * len(chunk))
                    + " ON CONFLICT (update_id) DO NOTHING RETURNING update_id",
                    [v for u, body in chunk for v in (u, body, now)],
                )
                inserted.update(int(r[0]) for r in rows)
        return [u for u, _ in updates if u in inserted]

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
        chunks = [batch[i : i + _CHUNK] for i in range(0, len(batch), _CHUNK)]
        async with self._writing(len(chunks)) as s:
            for chunk in chunks:
                await s.execute(
                    f"UPDATE intake SET done_at = ? WHERE update_id IN "
                    f"({', '.join('?' * len(chunk))}) AND done_at IS NULL",
                    (now, *chunk),
                )

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
        """Commit the finished ids gathered now and wait until they land (before closing)."""
        self._settling.set()
        if self._finisher is not None:
            await asyncio.wait([self._finisher])

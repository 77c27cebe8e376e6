"""Benchboard's own runs: a queue of attempts in the database, claimed with a lease.

A run (``add_run``) asks for ``attempts`` attempts of one model at one benchmark; each
attempt is a row any instance may claim (:meth:`RunStore.claim_attempt`) once its lease
has lapsed, as the intake's updates are (:mod:`storage.intake`): the claim writes this
store's ``owner`` and a ``lease_until`` (UTC ms), renewed while the attempt runs
(:meth:`renew_attempts`); an instance that dies stops renewing, and another takes the
attempt after the lapse. Finishing (:meth:`finish_attempt`) writes only while the lease
is still this store's, so two instances never record one attempt twice (on PostgreSQL
the claim is ``FOR UPDATE SKIP LOCKED``; on SQLite the write lock serialises it).

The store also keeps who sponsored a challenge's target (Telegram Stars payments), and
marks a submission as made by Benchboard (``origin``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, time
from typing import Any

from .base import StoreBase
from .errors import NotFound
from .values import dt, opt_dt

#: Milliseconds an attempt's lease lasts unless renewed (renewed every quarter of it).
RUN_LEASE_MS = 60_000
#: ``submissions.origin`` of a run Benchboard made.
BENCHBOARD = "benchboard"
#: ``shared_state`` names of a finished attempt's card: ``runcard:<attempt id>``, its
#: value the store that claimed it for sending (until ``expires_at``), or ``sent``.
_CARD = "runcard:"
_SENT = "sent"
#: How long a card's sent mark is kept (ms): longer than a start looks back for cards.
CARD_KEPT_MS = 48 * 3600 * 1000

_RUN_COLUMNS = (
    "id, benchmark, model, mode, target, attempts, origin, requested_by, chat_id, "
    "progress_id, sponsorship_id, state, created_at, finished_at"
)
_ATTEMPT_COLUMNS = (
    "id, run_id, n, state, submission_id, score, input_tokens, output_tokens, cost_usd, "
    "latency_s, error, finished_at"
)


@dataclass(frozen=True, slots=True)
class NewRun:
    benchmark: str
    model: str
    mode: str
    attempts: int
    origin: str  # chat | daily | sponsor | cli
    target: int | None = None
    requested_by: int | None = None
    chat_id: int | None = None
    sponsorship_id: int | None = None
    #: a run asked for once (a day's run of a model, a sponsorship's): the second ask
    #: finds the first
    dedupe: str | None = None


@dataclass(frozen=True, slots=True)
class Run:
    id: int
    benchmark: str
    model: str
    mode: str
    target: int | None
    attempts: int
    origin: str
    requested_by: int | None
    chat_id: int | None
    progress_id: int | None
    sponsorship_id: int | None
    state: str  # queued | done | cancelled
    created_at: datetime
    finished_at: datetime | None
    created: bool = False


@dataclass(frozen=True, slots=True)
class RunAttempt:
    id: int
    run_id: int
    n: int
    state: str  # queued | done | failed | cancelled
    submission_id: int | None
    score: float | None
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    latency_s: float | None
    error: str | None
    finished_at: datetime | None
    #: what a queued attempt given back kept of its calls answered before (JSON text,
    #: set by :meth:`RunStore.claim_attempt` only): a later try makes only the others
    kept: str | None = None


@dataclass(frozen=True, slots=True)
class AttemptDone:
    """What an attempt made (``error`` set: it failed, nothing else is)."""

    submission_id: int | None = None
    score: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    latency_s: float | None = None
    transcript: str | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Sponsorship:
    id: int
    user_id: int
    benchmark: str
    target: int
    name: str
    link: str | None
    stars: int
    charge_id: str
    created_at: datetime
    refunded_at: datetime | None
    created: bool = False


def _run(row: Any, *, created: bool = False) -> Run:
    return Run(
        id=int(row[0]),
        benchmark=row[1],
        model=row[2],
        mode=row[3],
        target=None if row[4] is None else int(row[4]),
        attempts=int(row[5]),
        origin=row[6],
        requested_by=None if row[7] is None else int(row[7]),
        chat_id=None if row[8] is None else int(row[8]),
        progress_id=None if row[9] is None else int(row[9]),
        sponsorship_id=None if row[10] is None else int(row[10]),
        state=row[11],
        created_at=dt(row[12]),
        finished_at=opt_dt(row[13]),
        created=created,
    )


def _attempt(row: Any, kept: Any = None) -> RunAttempt:
    def num(v: Any) -> float | None:
        return None if v is None else float(v)

    def whole(v: Any) -> int | None:
        return None if v is None else int(v)

    return RunAttempt(
        id=int(row[0]),
        run_id=int(row[1]),
        n=int(row[2]),
        state=row[3],
        submission_id=whole(row[4]),
        score=num(row[5]),
        input_tokens=whole(row[6]),
        output_tokens=whole(row[7]),
        cost_usd=num(row[8]),
        latency_s=num(row[9]),
        error=row[10],
        finished_at=opt_dt(row[11]),
        kept=None if kept is None else str(kept),
    )


_SPONSOR_COLUMNS = (
    "id, user_id, benchmark, target, name, link, stars, charge_id, created_at, refunded_at"
)


def _sponsorship(row: Any, *, created: bool = False) -> Sponsorship:
    return Sponsorship(
        id=int(row[0]),
        user_id=int(row[1]),
        benchmark=row[2],
        target=int(row[3]),
        name=row[4],
        link=row[5],
        stars=int(row[6]),
        charge_id=row[7],
        created_at=dt(row[8]),
        refunded_at=opt_dt(row[9]),
        created=created,
    )


class RunStore(StoreBase):
    #: this store's name as the owner of attempt leases (its own, apart from the intake's)
    run_owner: str = ""

    def _run_owner(self) -> str:
        if not self.run_owner:
            self.run_owner = secrets.token_hex(8)
        return self.run_owner

    async def add_run(self, new: NewRun) -> Run:
        """Queue a run and its attempts in one transaction; a run with the ``dedupe`` of
        one already queued is that one (``created`` False)."""
        now = self._now_ms()
        async with self._db.write() as s:
            if new.dedupe is not None:
                row = await s.one(
                    f"SELECT {_RUN_COLUMNS} FROM runs WHERE dedupe = ?", (new.dedupe,)
                )
                if row is not None:
                    return _run(row)
            row = await s.one(
                "INSERT INTO runs (benchmark, model, mode, target, attempts, origin, "
                "requested_by, chat_id, sponsorship_id, dedupe, created_at) "
                f"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING {_RUN_COLUMNS}",
                (new.benchmark, new.model, new.mode, new.target, new.attempts, new.origin,
                 new.requested_by, new.chat_id, new.sponsorship_id, new.dedupe, now),
            )  # fmt: skip
            assert row is not None
            await s.executemany(
                "INSERT INTO run_attempts (run_id, n) VALUES (?, ?)",
                [(int(row[0]), n) for n in range(1, new.attempts + 1)],
            )
        return _run(row, created=True)

    async def set_run_progress(self, run_id: int, message_id: int) -> None:
        """The chat message that shows the run's progress (edited as attempts finish)."""
        async with self._db.single() as s:
            await s.execute("UPDATE runs SET progress_id = ? WHERE id = ?", (message_id, run_id))

    async def get_run(self, run_id: int) -> Run:
        async with self._db.single() as s:
            row = await s.one(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = ?", (run_id,))
        if row is None:
            raise NotFound(f"no run {run_id}")
        return _run(row)

    async def run_by_dedupe(self, dedupe: str) -> Run | None:
        """The run queued with this ``dedupe``, if one was."""
        async with self._db.single() as s:
            row = await s.one(f"SELECT {_RUN_COLUMNS} FROM runs WHERE dedupe = ?", (dedupe,))
        return None if row is None else _run(row)

    async def runs_finished_since(self, since: datetime) -> list[Run]:
        """The runs done since ``since`` that were asked for from a chat, oldest first."""
        async with self._db.single() as s:
            rows = await s.all(
                f"SELECT {_RUN_COLUMNS} FROM runs WHERE state = 'done' AND finished_at >= ?"
                " AND chat_id IS NOT NULL AND chat_id <> 0 ORDER BY id",
                (int(since.timestamp() * 1000),),
            )
        return [_run(r) for r in rows]

    async def run_attempts(self, run_id: int) -> list[RunAttempt]:
        async with self._db.single() as s:
            rows = await s.all(
                f"SELECT {_ATTEMPT_COLUMNS} FROM run_attempts WHERE run_id = ? ORDER BY n",
                (run_id,),
            )
        return [_attempt(r) for r in rows]

    async def claim_attempt(
        self, *, lease_ms: int = RUN_LEASE_MS, run_id: int | None = None
    ) -> tuple[Run, RunAttempt] | None:
        """Take the oldest queued attempt whose lease has lapsed (never claimed, or its
        instance died), of any run or of ``run_id``'s: it is this store's until
        ``lease_ms`` from now. None: none."""
        now = self._now_ms()
        owner = self._run_owner()
        of_run = "" if run_id is None else f" AND run_id = {int(run_id)}"
        async with self._db.single() as s:
            if self._db.kind == "postgresql":
                row = await s.one(
                    "WITH lapsed AS (SELECT id FROM run_attempts"
                    f" WHERE state = 'queued' AND lease_until < ?{of_run}"
                    " ORDER BY lease_until, id LIMIT 1 FOR UPDATE SKIP LOCKED)"
                    " UPDATE run_attempts SET owner = ?, lease_until = ? FROM lapsed"
                    " WHERE run_attempts.id = lapsed.id RETURNING run_attempts.id",
                    (now, owner, now + lease_ms),
                )
            else:
                row = await s.one(
                    "UPDATE run_attempts SET owner = ?, lease_until = ? WHERE id ="
                    " (SELECT id FROM run_attempts WHERE state = 'queued' AND lease_until < ?"
                    f"{of_run} ORDER BY lease_until, id LIMIT 1) RETURNING id",
                    (owner, now + lease_ms, now),
                )
        if row is None:
            return None
        async with self._db.read() as s:
            found = await s.one(
                f"SELECT {', '.join('a.' + c.strip() for c in _ATTEMPT_COLUMNS.split(','))}, "
                f"{', '.join('r.' + c.strip() for c in _RUN_COLUMNS.split(','))}, "
                "a.transcript FROM run_attempts AS a JOIN runs AS r ON r.id = a.run_id"
                " WHERE a.id = ?",
                (int(row[0]),),
            )
        assert found is not None
        width = len(_ATTEMPT_COLUMNS.split(","))
        return _run(found[width:-1]), _attempt(found[:width], found[-1])

    async def reclaim_at_start(self) -> int:
        """At a start on SQLite (one process's database: the previous one is gone), the
        leases it left are released for this one at once; on PostgreSQL a live lease is
        another running instance's and stays. How many were released."""
        if self._db.kind == "postgresql":
            return 0
        async with self._db.single() as s:
            done = await s.execute(
                "UPDATE run_attempts SET owner = NULL, lease_until = 0"
                " WHERE state = 'queued' AND owner IS NOT NULL"
            )
        return done.rowcount

    async def renew_attempts(self, attempt_ids: list[int], *, lease_ms: int = RUN_LEASE_MS) -> int:
        """Extend this store's leases on these attempts; how many are still its own."""
        if not attempt_ids:
            return 0
        marks = ", ".join("?" * len(attempt_ids))
        async with self._db.single() as s:
            done = await s.execute(
                f"UPDATE run_attempts SET lease_until = ? WHERE id IN ({marks}) AND owner = ?"
                " AND state = 'queued'",
                (self._now_ms() + lease_ms, *attempt_ids, self._run_owner()),
            )
        return done.rowcount

    async def release_attempt(
        self, attempt_id: int, *, after_ms: int = 0, kept: AttemptDone | None = None
    ) -> None:
        """Give an unfinished attempt up (closing): any instance may take it at once, or
        ``after_ms`` from now (to be tried again later). ``kept``: what its calls answered
        so far made (their answers as ``transcript``, their tokens and cost, counted in
        the budget at once: they were paid for), for the next try to use, not pay again."""
        until = self._now_ms() + after_ms if after_ms > 0 else 0
        keep = ""
        values: tuple[Any, ...] = ()
        if kept is not None:
            keep = ", transcript = ?, input_tokens = ?, output_tokens = ?, cost_usd = ?"
            values = (kept.transcript, kept.input_tokens, kept.output_tokens, kept.cost_usd)
        async with self._db.single() as s:
            await s.execute(
                f"UPDATE run_attempts SET owner = NULL, lease_until = ?{keep} WHERE id = ?"
                " AND owner = ? AND state = 'queued'",
                (until, *values, attempt_id, self._run_owner()),
            )

    async def finish_attempt(self, attempt_id: int, done: AttemptDone) -> bool:
        """Record what an attempt made while this store holds its lease (and the run is
        not cancelled); the run is done once none of its attempts is queued. False: the
        attempt is not this store's to finish (taken by another, or cancelled)."""
        now = self._now_ms()
        async with self._db.write() as s:
            row = await s.one(
                "UPDATE run_attempts SET state = ?, submission_id = ?, score = ?,"
                " input_tokens = ?, output_tokens = ?, cost_usd = ?, latency_s = ?,"
                " transcript = ?, error = ?, finished_at = ?, owner = NULL"
                " WHERE id = ? AND owner = ? AND state = 'queued' RETURNING run_id",
                ("failed" if done.error else "done", done.submission_id, done.score,
                 done.input_tokens, done.output_tokens, done.cost_usd, done.latency_s,
                 done.transcript, done.error, now, attempt_id, self._run_owner()),
            )  # fmt: skip
            if row is None:
                return False
            await s.execute(
                "UPDATE runs SET state = 'done', finished_at = ? WHERE id = ?"
                " AND state = 'queued' AND NOT EXISTS (SELECT 1 FROM run_attempts"
                " WHERE run_id = ? AND state = 'queued')",
                (now, int(row[0]), int(row[0])),
            )
        return True

    async def spent_cancelled(self, attempt_id: int, done: AttemptDone) -> bool:
        """Keep what a cancelled attempt's calls cost (made before the cancel dropped its
        answer): its tokens, cost and latency, once; counted in the budget and the day's
        cost. ``done`` holds all its calls', those an earlier try kept included, so it
        replaces only less (what a try given back kept). False: the attempt is not a
        cancelled one, or its cost is kept already."""
        async with self._db.single() as s:
            row = await s.execute(
                "UPDATE run_attempts SET input_tokens = ?, output_tokens = ?, cost_usd = ?,"
                " latency_s = ? WHERE id = ? AND state = 'cancelled'"
                " AND (cost_usd IS NULL OR cost_usd < ?)",
                (done.input_tokens, done.output_tokens, done.cost_usd, done.latency_s,
                 attempt_id, done.cost_usd or 0.0),
            )  # fmt: skip
        return row.rowcount == 1

    async def cancel_run(self, run_id: int) -> int:
        """Cancel a run's attempts not yet finished (a running one's answer is then not
        recorded); how many were cancelled."""
        now = self._now_ms()
        async with self._db.write() as s:
            done = await s.execute(
                "UPDATE run_attempts SET state = 'cancelled', finished_at = ?, owner = NULL"
                " WHERE run_id = ? AND state = 'queued'",
                (now, run_id),
            )
            await s.execute(
                "UPDATE runs SET state = 'cancelled', finished_at = ? WHERE id = ?"
                " AND state = 'queued'",
                (now, run_id),
            )
        return done.rowcount

    # --- a finished run's cards, each sent once -----------------------------------------
    #
    # A card is claimed for sending with a lease (``claim_card``) and marked sent after
    # the send (``card_sent``): an instance that dies between the two leaves the claim to
    # lapse, and the card is sent by whichever instance looks next (``unsent_cards``).

    async def claim_card(self, attempt_id: int, *, lease_ms: int) -> bool:
        """Claim an attempt's card for sending for ``lease_ms``; False when it was sent,
        or another claim of it has not lapsed."""
        now, name = self._now_ms(), f"{_CARD}{int(attempt_id)}"
        async with self._db.write() as s:
            await s.execute(
                "DELETE FROM shared_state WHERE name = ? AND value <> ? AND expires_at <= ?",
                (name, _SENT, now),
            )
            row = await s.one(
                "INSERT INTO shared_state (name, value, expires_at) VALUES (?, ?, ?)"
                " ON CONFLICT (name) DO NOTHING RETURNING name",
                (name, self._run_owner(), now + lease_ms),
            )
        return row is not None

    async def card_sent(self, attempt_id: int) -> None:
        """An attempt's card is sent: never again."""
        async with self._db.single() as s:
            await s.execute(
                "UPDATE shared_state SET value = ?, expires_at = ? WHERE name = ?",
                (_SENT, self._now_ms() + CARD_KEPT_MS, f"{_CARD}{int(attempt_id)}"),
            )

    async def release_card(self, attempt_id: int) -> None:
        """Give up this store's claim of a card not sent (to be sent at the next look)."""
        async with self._db.single() as s:
            await s.execute(
                "DELETE FROM shared_state WHERE name = ? AND value = ?",
                (f"{_CARD}{int(attempt_id)}", self._run_owner()),
            )

    async def release_cards_at_start(self) -> int:
        """At a start on SQLite (the previous process is gone), the claims of cards it
        did not send are released at once (on PostgreSQL they lapse); how many."""
        if self._db.kind == "postgresql":
            return 0
        async with self._db.single() as s:
            done = await s.execute(
                "DELETE FROM shared_state WHERE name LIKE ? AND value <> ?",
                (f"{_CARD}%", _SENT),
            )
        return done.rowcount

    async def unsent_cards(self, since: datetime) -> list[tuple[Run, list[RunAttempt]]]:
        """The runs asked for from a chat and done since ``since`` with cards not sent
        nor claimed (a claim lapsed counts as none), each with those attempts, oldest
        first. (A run whose cards were claimed whole, as before cards were claimed one
        by one, ``job:run-cards:<run id>``, is not among them: they were sent.)"""
        now = self._now_ms()
        async with self._db.single() as s:
            rows = await s.all(
                f"SELECT {', '.join('a.' + c.strip() for c in _ATTEMPT_COLUMNS.split(','))}, "
                f"{', '.join('r.' + c.strip() for c in _RUN_COLUMNS.split(','))} "
                "FROM runs AS r JOIN run_attempts AS a ON a.run_id = r.id"
                " WHERE r.state = 'done' AND r.finished_at >= ? AND r.chat_id IS NOT NULL"
                " AND r.chat_id <> 0 AND a.submission_id IS NOT NULL"
                " AND NOT EXISTS (SELECT 1 FROM shared_state AS c"
                f" WHERE c.name = '{_CARD}' || CAST(a.id AS TEXT)"
                " AND (c.value = ? OR c.expires_at > ?))"
                " AND NOT EXISTS (SELECT 1 FROM shared_state AS o"
                " WHERE o.name = 'job:run-cards:' || CAST(r.id AS TEXT))"
                " ORDER BY r.id, a.n",
                (int(since.timestamp() * 1000), _SENT, now),
            )
        width = len(_ATTEMPT_COLUMNS.split(","))
        found: dict[int, tuple[Run, list[RunAttempt]]] = {}
        for row in rows:
            attempt = _attempt(row[:width])
            found.setdefault(attempt.run_id, (_run(row[width:]), []))[1].append(attempt)
        return list(found.values())

    async def attempt_of_submission(self, submission_id: int) -> tuple[RunAttempt, str] | None:
        """The attempt that made a submission, and its transcript (JSON text)."""
        async with self._db.single() as s:
            row = await s.one(
                f"SELECT {_ATTEMPT_COLUMNS}, transcript FROM run_attempts WHERE submission_id = ?",
                (submission_id,),
            )
        if row is None:
            return None
        return _attempt(row[:-1]), str(row[-1] or "")

    async def mark_benchboard(self, submission_id: int) -> None:
        """Mark a submission as made by Benchboard itself: the strongest mark (it is
        also verified: nobody typed it)."""
        async with self._db.single() as s:
            await s.execute(
                "UPDATE submissions SET origin = ?, verified = 1 WHERE id = ?",
                (BENCHBOARD, submission_id),
            )

    async def spent_since(self, user_id: int, since: datetime) -> float:
        """What the runs a user asked for in the chat (``/run``; not the ones they paid
        for) since ``since`` cost, in USD."""
        async with self._db.single() as s:
            row = await s.one(
                "SELECT COALESCE(SUM(a.cost_usd), 0) FROM runs AS r"
                " JOIN run_attempts AS a ON a.run_id = r.id"
                " WHERE r.requested_by = ? AND r.created_at >= ? AND r.origin = 'chat'",
                (user_id, int(since.timestamp() * 1000)),
            )
        return float(row[0]) if row else 0.0

    async def running_chat_run(self, user_id: int) -> Run | None:
        """The newest run a user asked for in the chat that is not finished yet."""
        async with self._db.single() as s:
            row = await s.one(
                f"SELECT {_RUN_COLUMNS} FROM runs WHERE requested_by = ? AND origin = 'chat'"
                " AND state = 'queued' ORDER BY id DESC LIMIT 1",
                (user_id,),
            )
        return None if row is None else _run(row)

    async def spent_today(self, user_id: int) -> float:
        """:meth:`spent_since` the start of the store's UTC day."""
        now = self._clock().astimezone(UTC)
        return await self.spent_since(user_id, datetime.combine(now.date(), time(), UTC))

    async def runs_cost(
        self, since: datetime, until: datetime
    ) -> list[tuple[str, str, int, float, int]]:
        """The attempts finished in [since, until) by origin and model (a cancelled one
        when its calls were made): (origin, model, attempts, cost in USD, attempts made
        whose cost is not known: their provider did not report it), the dearest first."""
        async with self._db.single() as s:
            rows = await s.all(
                "SELECT r.origin, r.model, COUNT(*), COALESCE(SUM(a.cost_usd), 0),"
                " SUM(CASE WHEN a.state = 'done' AND a.cost_usd IS NULL THEN 1 ELSE 0 END)"
                " FROM run_attempts AS a JOIN runs AS r ON r.id = a.run_id"
                " WHERE a.finished_at >= ? AND a.finished_at < ?"
                " AND (a.state IN ('done', 'failed') OR a.cost_usd IS NOT NULL)"
                " GROUP BY r.origin, r.model ORDER BY 4 DESC, 1, 2",
                (int(since.timestamp() * 1000), int(until.timestamp() * 1000)),
            )
        return [(str(r[0]), str(r[1]), int(r[2]), float(r[3]), int(r[4] or 0)) for r in rows]

    # --- sponsorships ------------------------------------------------------------------

    async def add_sponsorship(
        self, *, user_id: int, benchmark: str, target: int, name: str, link: str | None,
        stars: int, charge_id: str,
    ) -> Sponsorship:  # fmt: skip
        """Keep a paid sponsorship; Telegram's charge id makes a repeated payment update
        the same one (``created`` False)."""
        async with self._db.write() as s:
            row = await s.one(
                f"SELECT {_SPONSOR_COLUMNS} FROM sponsorships WHERE charge_id = ?", (charge_id,)
            )
            if row is not None:
                return _sponsorship(row)
            row = await s.one(
                "INSERT INTO sponsorships (user_id, benchmark, target, name, link, stars,"
                " charge_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                f" RETURNING {_SPONSOR_COLUMNS}",
                (user_id, benchmark, target, name, link, stars, charge_id, self._now_ms()),
            )
        assert row is not None
        return _sponsorship(row, created=True)

    async def get_sponsorship(self, sponsorship_id: int) -> Sponsorship:
        async with self._db.single() as s:
            row = await s.one(
                f"SELECT {_SPONSOR_COLUMNS} FROM sponsorships WHERE id = ?", (sponsorship_id,)
            )
        if row is None:
            raise NotFound(f"no sponsorship {sponsorship_id}")
        return _sponsorship(row)

    async def refund_sponsorship(self, sponsorship_id: int) -> bool:
        """Mark a sponsorship refunded; False when it already was (refund once)."""
        async with self._db.single() as s:
            done = await s.execute(
                "UPDATE sponsorships SET refunded_at = ? WHERE id = ? AND refunded_at IS NULL",
                (self._now_ms(), sponsorship_id),
            )
        return done.rowcount == 1

    async def unrefund_sponsorship(self, sponsorship_id: int) -> None:
        """A refund that could not be made: the sponsorship is not refunded (to try again)."""
        async with self._db.single() as s:
            await s.execute(
                "UPDATE sponsorships SET refunded_at = NULL WHERE id = ?", (sponsorship_id,)
            )

    async def sponsorships_unsettled(self, since: datetime, until: datetime) -> list[Sponsorship]:
        """The sponsorships paid in [since, until) with neither a run queued nor a refund
        made (their payment's handling was cut short, or their refund failed), oldest
        first."""
        async with self._db.single() as s:
            rows = await s.all(
                f"SELECT {_SPONSOR_COLUMNS} FROM sponsorships AS s WHERE refunded_at IS NULL"
                " AND created_at >= ? AND created_at < ? AND NOT EXISTS (SELECT 1 FROM runs"
                " AS r WHERE r.sponsorship_id = s.id AND r.created_at >= s.created_at)"
                " ORDER BY id",
                (int(since.timestamp() * 1000), int(until.timestamp() * 1000)),
            )
        return [_sponsorship(r) for r in rows]

    async def sponsors(self, benchmark: str, target: int) -> list[Sponsorship]:
        """A target's sponsorships not refunded, whose runs are queued, oldest first (one
        whose refund is still to be made is not shown)."""
        async with self._db.single() as s:
            rows = await s.all(
                f"SELECT {_SPONSOR_COLUMNS} FROM sponsorships AS s WHERE benchmark = ?"
                " AND target = ? AND refunded_at IS NULL AND EXISTS (SELECT 1 FROM runs AS r"
                " WHERE r.sponsorship_id = s.id AND r.created_at >= s.created_at) ORDER BY id",
                (benchmark, target),
            )
        return [_sponsorship(r) for r in rows]

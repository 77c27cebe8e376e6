"""Trust: answer sets found again by their bands, results held for review, notices.

The copy check (``bot.core.trust``) compares a new answer set with earlier ones of
other people without scanning a board: each published or held answer set is kept
(``trust_answers``) with the hashes of its bands (``trust_bands``, one row per band
that holds a wrong answer), so the candidates are an indexed lookup of a few hashes,
each bounded, and only they are compared. The database writes those rows itself, from
what the check kept in the submission's ``extra`` (:data:`EXTRA`: ``{"answers": ...,
"bands": [...]}``), when the result is published or held (triggers: migration 22): a
publication costs no commit and no trip more.

A held result stays private (on no board, its owner sees it) with a ``trust_flags``
row until an admin releases it (published, verified) or rejects it (hidden).
``notice_prefs`` keeps who opted out of the notices a re-score sends.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from .base import Clock, StoreBase
from .batched import Batched
from .db import Conn, Database
from .models import Submission
from .values import SUBMISSION_COLUMNS, SUBMISSION_FROM, benchmark_name, check_page, dt, submission

#: Flag states: held (waiting for an admin), released (published by one), rejected.
HELD, RELEASED, REJECTED = "held", "released", "rejected"
#: ``Submission.extra``'s entry the copy check keeps: {"answers": joined answers,
#: "bands": [hashes], "flag": why it was flagged}; the triggers of migration 22 index the
#: first two when the result is published or held.
EXTRA = "trust"


@dataclass(frozen=True, slots=True)
class AnswerIndex:
    """An answer set as the copy check finds it again: its answers joined with ``,``
    (a ``trust_answers`` row) and the hashes of its bands (``trust_bands`` rows)."""

    answers: str
    bands: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Candidate:
    """An earlier answer set of another user sharing ``hits`` bands with the one
    checked."""

    submission_id: int
    user_id: int
    answers: str
    hits: int


@dataclass(frozen=True, slots=True)
class Flag:
    """A result held for review (or decided): the submission, why (JSON, the copy
    check's), its state and when it was held; who decided, when."""

    submission: Submission
    reason: str
    state: str
    held_at: datetime
    decided_by: int | None = None
    decided_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class PublishedScores:
    """Every published result of a benchmark: ids, owners and scores, as arrays."""

    ids: array[int]
    users: array[int]
    scores: array[float]


_FLAG_COLUMNS = "f.reason, f.state, f.held_at, f.decided_by, f.decided_at"


def _flag(row: Sequence[Any]) -> Flag:
    n = len(row) - 5
    reason, state, held_at, by, at = row[n:]
    return Flag(submission(row[:n]), reason, state, dt(held_at), by, None if at is None else dt(at))


#: Copy checks whose candidates are read in one statement (SQLite allows 500 SELECTs in
#: a compound statement; a check sends at most 64 hashes).
_CHECKS_AT_ONCE = 32


@dataclass(frozen=True, slots=True)
class _Asked:
    """One copy check's read of candidates (see :meth:`TrustStore.candidates`)."""

    bench_id: int
    hashes: tuple[int, ...]
    user_id: int
    scanned: int
    limit: int
    offset: int


def _candidates_sql(count: int, hashes: int) -> str:
    """The candidates of ``count`` checks of ``hashes`` hashes each, every row led by
    its check's place (a check with fewer repeats one: ``IN`` is a set)."""
    marks = ", ".join("?" * hashes)
    return " UNION ALL ".join(
        f"SELECT {n}, c.submission_id, c.user_id, c.hits, a.answers FROM ("
        "SELECT submission_id, MIN(user_id) AS user_id, COUNT(*) AS hits FROM ("
        "SELECT submission_id, user_id FROM trust_bands "
        f"WHERE benchmark_id = ? AND hash IN ({marks}) AND user_id <> ? LIMIT ?"
        ") AS p GROUP BY submission_id ORDER BY hits DESC, submission_id "
        "LIMIT ? OFFSET ?"
        ") AS c JOIN trust_answers AS a "
        "ON a.benchmark_id = ? AND a.submission_id = c.submission_id"
        for n in range(count)
    )


class TrustStore(StoreBase):
    def __init__(self, db: Database, path: Path, *, clock: Clock) -> None:
        super().__init__(db, path, clock=clock)
        self._candidate_reads = Batched(self._read_candidates, _CHECKS_AT_ONCE)

    # --- the copy check's candidates ---------------------------------------------------

    async def candidates(
        self,
        benchmark: str,
        bands: Sequence[int],
        *,
        user_id: int,
        per_band: int = 16,
        limit: int = 32,
        offset: int = 0,
    ) -> list[Candidate]:
        """Earlier answer sets of other users sharing a band hash with ``bands``: one
        statement reading at most ``per_band`` rows a hash on average (each hash's rows
        in key order, the scan stopped there), the ``limit`` sharing most bands first
        after ``offset`` of them (counted and cut in SQL: only they are joined to their
        answers, each a page of its own to read).
        One trip on the shared connection (its cache is warm; a reader of its own would
        read back every page the last commit changed), shared with the checks asking at
        the same moment (:mod:`storage.batched`)."""
        name = benchmark_name(benchmark)
        wanted = tuple(dict.fromkeys(bands))
        if not wanted:
            return []
        bench_id = self._bench_ids.get(name)
        if bench_id is None:
            async with self._db.single() as s:
                row = await s.one("SELECT id FROM benchmarks WHERE name = ?", (name,))
            if row is None:
                return []
            bench_id = self._bench_ids[name] = int(row[0])
        asked = _Asked(bench_id, wanted, user_id, per_band * len(wanted), limit, offset)
        return await self._candidate_reads(asked)

    async def _read_candidates(self, checks: Sequence[_Asked]) -> list[list[Candidate]]:
        """The candidates of each check, in one statement: for each, those sharing most
        bands first."""
        hashes = max(len(c.hashes) for c in checks)
        params: list[Any] = []
        for c in checks:
            padded = c.hashes + c.hashes[-1:] * (hashes - len(c.hashes))
            params += (c.bench_id, *padded, c.user_id, c.scanned, c.limit, c.offset, c.bench_id)
        async with self._db.single() as s:
            rows = await s.all(_candidates_sql(len(checks), hashes), params)
        found: list[list[Candidate]] = [[] for _ in checks]
        for n, i, owner, hits, answers in rows:
            found[n].append(Candidate(int(i), int(owner), str(answers), int(hits)))
        for candidates in found:
            candidates.sort(key=lambda c: (-c.hits, c.submission_id))
        return found

    async def recent_answers(self, benchmark: str, limit: int = 500) -> list[str]:
        """The latest ``limit`` answer sets kept for a benchmark (how often each answer
        is given: what makes a shared wrong answer rare)."""
        name = benchmark_name(benchmark)
        async with self._db.single() as s:
            rows = await s.all(
                "SELECT t.answers FROM trust_answers AS t JOIN benchmarks AS b "
                "ON b.id = t.benchmark_id WHERE b.name = ? "
                "ORDER BY t.benchmark_id DESC, t.submission_id DESC LIMIT ?",
                (name, limit),
            )
        return [str(r[0]) for r in rows]

    async def index_many(self, rows: Iterable[tuple[int, int, str, AnswerIndex]]) -> int:
        """Keep many answer sets at once, each (submission id, its user, its benchmark,
        the index): a back-fill, the benchmark script. One transaction per call, two
        statements."""
        answers: list[tuple[int, int, str]] = []
        bands: list[tuple[int, int, int, int]] = []
        async with self._db.write() as s:
            for sub_id, user_id, benchmark, index in rows:
                bench_id = await self._ensure_bench(s, benchmark_name(benchmark))
                answers.append((bench_id, sub_id, index.answers))
                bands += [(bench_id, h, sub_id, user_id) for h in dict.fromkeys(index.bands)]
            await s.executemany(
                "INSERT INTO trust_answers (benchmark_id, submission_id, answers) "
                "VALUES (?, ?, ?) ON CONFLICT (benchmark_id, submission_id) DO NOTHING",
                answers,
            )
            await s.executemany(
                "INSERT INTO trust_bands (benchmark_id, hash, submission_id, user_id) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (benchmark_id, hash, submission_id) DO NOTHING",
                bands,
            )
        return len(answers)

    # --- held for review ---------------------------------------------------------------

    async def hold(self, sub: Submission, reason: str) -> Flag:
        """Hold ``sub`` for review (it stays where it is: off the boards): its flag (and,
        by the trigger, its answer set) in one transaction. Holding it again keeps the
        first time."""
        now = self._now_ms()
        async with self._db.write() as s:
            await s.execute(
                "INSERT INTO trust_flags (submission_id, reason, state, held_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (submission_id) DO NOTHING",
                (sub.id, reason, HELD, now),
            )
            row = await s.one(
                f"SELECT {SUBMISSION_COLUMNS}, {_FLAG_COLUMNS} {SUBMISSION_FROM} "
                "JOIN trust_flags AS f ON f.submission_id = s.id WHERE s.id = ?",
                (sub.id,),
            )
        assert row is not None
        return _flag(row)

    async def flag_of(self, submission_id: int) -> Flag | None:
        """The submission's flag, if it was ever held."""
        async with self._db.single() as s:
            row = await s.one(
                f"SELECT {SUBMISSION_COLUMNS}, {_FLAG_COLUMNS} {SUBMISSION_FROM} "
                "JOIN trust_flags AS f ON f.submission_id = s.id WHERE s.id = ?",
                (submission_id,),
            )
        return None if row is None else _flag(row)

    async def held_results(
        self, *, chat_id: int | None = None, limit: int = 5, offset: int = 0
    ) -> tuple[list[Flag], int]:
        """The results held for review, newest first (``chat_id``: those published from
        that chat), and how many there are."""
        check_page(limit, offset)
        # a held result its owner withdrew waits for no one (published again, it does)
        where = "f.state = ? AND s.visibility = ?"
        params: list[Any] = [HELD, "private"]
        if chat_id is not None:
            where += " AND s.chat_id = ?"
            params.append(chat_id)
        joined = f"{SUBMISSION_FROM} JOIN trust_flags AS f ON f.submission_id = s.id"
        async with self._db.read() as s:
            count = await s.one(f"SELECT COUNT(*) {joined} WHERE {where}", params)
            rows = await s.all(
                f"SELECT {SUBMISSION_COLUMNS}, {_FLAG_COLUMNS} {joined} WHERE {where} "
                "ORDER BY f.held_at DESC, s.id DESC LIMIT ? OFFSET ?",
                [*params, limit, offset],
            )
        return [_flag(r) for r in rows], int(count[0]) if count else 0

    async def decide(self, submission_id: int, state: str, *, by: int) -> bool:
        """Record an admin's decision on a held result (``released`` or ``rejected``);
        False when it was not held (decided already, or never held)."""
        now = self._now_ms()
        async with self._db.single() as s:
            done = await s.execute(
                "UPDATE trust_flags SET state = ?, decided_by = ?, decided_at = ? "
                "WHERE submission_id = ? AND state = ?",
                (state, by, now, submission_id, HELD),
            )
        return done.rowcount > 0

    async def undecide(self, submission_id: int, state: str) -> bool:
        """Take back a decision recorded by :meth:`decide` that could not be carried out
        (the result changed meanwhile): held again. False when it was not ``state``."""
        async with self._db.single() as s:
            done = await s.execute(
                "UPDATE trust_flags SET state = ?, decided_by = NULL, decided_at = NULL "
                "WHERE submission_id = ? AND state = ?",
                (HELD, submission_id, state),
            )
        return done.rowcount > 0

    # --- notices after a re-score -----------------------------------------------------

    async def set_notices(self, user_id: int, on: bool) -> None:
        """``/notices on|off``: whether the user is told when a re-score changes their
        published results."""
        async with self._db.single() as s:
            await s.execute(
                "INSERT INTO notice_prefs (user_id, off) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET off = excluded.off",
                (user_id, int(not on)),
            )

    async def notices_off(self, user_ids: Iterable[int]) -> set[int]:
        """Those of ``user_ids`` who opted out of notices."""
        ids = list(dict.fromkeys(user_ids))
        out: set[int] = set()
        async with self._db.read() as s:
            for start in range(0, len(ids), 500):
                part = ids[start : start + 500]
                marks = ", ".join("?" * len(part))
                rows = await s.all(
                    f"SELECT user_id FROM notice_prefs WHERE off = 1 AND user_id IN ({marks})",
                    part,
                )
                out.update(int(r[0]) for r in rows)
        return out

    async def models_of(self, submission_ids: Iterable[int]) -> dict[int, str | None]:
        """The model names of submissions, by id (500 to a statement)."""
        ids = list(dict.fromkeys(submission_ids))
        out: dict[int, str | None] = {}
        async with self._db.read() as s:
            for start in range(0, len(ids), 500):
                part = ids[start : start + 500]
                marks = ", ".join("?" * len(part))
                rows = await s.all(f"SELECT id, model FROM submissions WHERE id IN ({marks})", part)
                out.update((int(r[0]), r[1]) for r in rows)
        return out

    async def keep_scores_before(self, benchmark: str, value: str) -> str:
        """Keep what a re-score's notices compare with (``value``, the caller's text)
        until :meth:`drop_scores_before`; returns the one kept first: a re-score that was
        interrupted and runs again compares with the scores before its first run."""
        key = f"notices:{benchmark_name(benchmark)}"
        async with self._db.write() as s:
            await s.execute(
                "INSERT INTO shared_state (name, value) VALUES (?, ?) "
                "ON CONFLICT (name) DO NOTHING",
                (key, value),
            )
            row = await s.one("SELECT value FROM shared_state WHERE name = ?", (key,))
        assert row is not None
        return str(row[0])

    async def scores_before(self, benchmark: str) -> str | None:
        """What :meth:`keep_scores_before` keeps for the benchmark, if anything."""
        async with self._db.single() as s:
            row = await s.one(
                "SELECT value FROM shared_state WHERE name = ?",
                (f"notices:{benchmark_name(benchmark)}",),
            )
        return None if row is None else str(row[0])

    async def scores_kept_before(self) -> list[str]:
        """The benchmarks whose re-score keeps the scores before (running, or stopped
        part way: :meth:`keep_scores_before` until its notices are made)."""
        async with self._db.read() as s:
            rows = await s.all(
                "SELECT name FROM shared_state WHERE substr(name, 1, 8) = 'notices:' ORDER BY name"
            )
        return [str(r[0])[len("notices:") :] for r in rows]

    async def drop_scores_before(self, benchmark: str) -> None:
        """The re-score's notices are made: forget what they compared with."""
        async with self._db.single() as s:
            await s.execute(
                "DELETE FROM shared_state WHERE name = ?", (f"notices:{benchmark_name(benchmark)}",)
            )

    # --- notices made, kept until sent -------------------------------------------------
    #
    # A re-score's notices wait in ``shared_state`` until sent: ``notice_batch:<batch>``
    # (the benchmark; each re-score's notices are one batch) and ``notice_to:<batch>:
    # <user id>`` (one user's notice, the caller's JSON), each sent once: whoever sends
    # it takes it first (:meth:`take_notice`). Kept at most ``keep_ms``.

    async def queue_notices(
        self,
        benchmark: str,
        batch: str,
        notices: Sequence[tuple[int, str]],
        *,
        owner: str,
        lease_ms: int,
        keep_ms: int,
    ) -> bool:
        """Keep a re-score's notices (``(user id, JSON)``) to send, in the transaction
        that forgets the scores they were compared with (:meth:`keep_scores_before`),
        the batch leased to ``owner`` (its sender) for ``lease_ms``. False, and nothing
        kept, when those scores were forgotten already: another re-score made the
        notices of the same change."""
        now = self._now_ms()
        async with self._db.write() as s:
            gone = await s.one(
                "DELETE FROM shared_state WHERE name = ? RETURNING name",
                (f"notices:{benchmark_name(benchmark)}",),
            )
            if gone is None:
                return False
            if not notices:
                return True
            await s.execute(
                "INSERT INTO shared_state (name, value, number, expires_at) VALUES (?, ?, ?, ?)",
                (f"notice_batch:{batch}", benchmark_name(benchmark), len(notices), now + keep_ms),
            )
            await s.execute(
                "INSERT INTO shared_state (name, value, expires_at) VALUES (?, ?, ?) "
                "ON CONFLICT (name) DO UPDATE SET value = excluded.value, "
                "expires_at = excluded.expires_at",
                (f"lease:notices.{batch}", owner, now + lease_ms),
            )
            await s.executemany(
                "INSERT INTO shared_state (name, value, expires_at) VALUES (?, ?, ?)",
                [(f"notice_to:{batch}:{user}", text, now + keep_ms) for user, text in notices],
            )
        return True

    async def notice_batches(self) -> list[str]:
        """The batches of notices with some still to send, oldest first."""
        async with self._db.read() as s:
            rows = await s.all(
                "SELECT name FROM shared_state WHERE substr(name, 1, 13) = 'notice_batch:' "
                "AND expires_at > ? ORDER BY expires_at, name",
                (self._now_ms(),),
            )
        return [str(r[0])[len("notice_batch:") :] for r in rows]

    async def queued_notices(self, batch: str) -> list[int]:
        """The users a batch's notices still go to."""
        prefix = f"notice_to:{batch}:"
        async with self._db.read() as s:
            rows = await s.all(
                "SELECT name FROM shared_state WHERE substr(name, 1, ?) = ? AND expires_at > ?",
                (len(prefix), prefix, self._now_ms()),
            )
        return sorted(int(str(r[0])[len(prefix) :]) for r in rows)

    async def take_notice(self, batch: str, user_id: int) -> str | None:
        """Take a notice to send it: its JSON for the one caller that took it, None for
        any other (sent, or being sent, already)."""
        async with self._db.write() as s:
            row = await s.one(
                "DELETE FROM shared_state WHERE name = ? AND expires_at > ? RETURNING value",
                (f"notice_to:{batch}:{user_id}", self._now_ms()),
            )
        return None if row is None else str(row[0])

    async def put_notice_back(self, batch: str, user_id: int, text: str, *, keep_ms: int) -> None:
        """A notice taken that could not be sent now, kept again for a later sender."""
        async with self._db.write() as s:
            await s.execute(
                "INSERT INTO shared_state (name, value, expires_at) VALUES (?, ?, ?) "
                "ON CONFLICT (name) DO NOTHING",
                (f"notice_to:{batch}:{user_id}", text, self._now_ms() + keep_ms),
            )

    async def end_notices(self, batch: str) -> bool:
        """Forget a batch whose notices were all taken (True), or leave it (False)."""
        prefix = f"notice_to:{batch}:"
        async with self._db.write() as s:
            left = await s.one(
                "SELECT COUNT(*) FROM shared_state WHERE substr(name, 1, ?) = ? AND expires_at > ?",
                (len(prefix), prefix, self._now_ms()),
            )
            if left is not None and int(left[0]) > 0:
                return False
            await s.execute(
                "DELETE FROM shared_state WHERE substr(name, 1, ?) = ?", (len(prefix), prefix)
            )
            await s.execute(
                "DELETE FROM shared_state WHERE name IN (?, ?)",
                (f"notice_batch:{batch}", f"lease:notices.{batch}"),
            )
        return True

    async def published_scores(self, benchmark: str) -> PublishedScores:
        """Every published result of a benchmark (id order): what a re-score compares
        before and after, kept compact (arrays: 24 bytes a result)."""
        name = benchmark_name(benchmark)

        def work(conn: Conn) -> PublishedScores:
            out = PublishedScores(array("q"), array("q"), array("d"))
            rows = conn.execute(
                "SELECT s.id, s.user_id, s.score FROM submissions AS s "
                "JOIN benchmarks AS b ON b.id = s.benchmark_id "
                "WHERE b.name = ? AND s.visibility = 'published' ORDER BY s.id",
                (name,),
            ).fetchall()
            for sub_id, user, score in rows:
                out.ids.append(sub_id)
                out.users.append(user)
                out.scores.append(float(score))
            return out

        return await self._db.run(work)

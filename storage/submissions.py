"""Submissions: recording (group-committed), reading, and their visibility.

Recording is group-committed: the submissions that arrive while one insert is on the
database thread go together in the next statement, so under load many callers share
one trip and one commit, and each still gets its answer only once its row is durable.

Visibility is a small state machine: private -> published -> withdrawn (by the owner)
or hidden (by an admin), each change keeping the board summaries current.
"""

from __future__ import annotations

import asyncio
import math
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, tzinfo
from pathlib import Path
from typing import Any

from . import summaries
from .base import Clock, StoreBase
from .batched import Batched
from .db import Conn, Database, Session
from .errors import (
    InvalidData,
    LimitReached,
    MissingModeOrModel,
    NotAllowed,
    NotFound,
    StoreUnavailable,
)
from .models import NewSubmission, PackedText, Submission, Visibility
from .values import (
    SUBMISSION_COLUMNS,
    SUBMISSION_FROM,
    benchmark_name,
    check_page,
    clean_mode,
    clean_model,
    compress,
    decompress,
    dt,
    dumps,
    optional_provider,
    pack,
    submission,
)

#: At most this many submissions go into one group-committed INSERT (18 values each,
#: well under SQLite's limit on bound values).
_GROUP_ROWS = 256

_INSERT_INTO = """
INSERT INTO submissions (user_id, chat_id, message_id, benchmark_id, key_version_id, model,
                         model_norm, mode, raw, raw_chars, result, score, fingerprint,
                         scorer_version, extra, created_at, visibility, published_at,
                         score_se, provider)
VALUES """
_INSERT_ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
_ON_CONFLICT = " ON CONFLICT (chat_id, message_id) DO NOTHING"
_INSERT_SUBMISSION = _INSERT_INTO + _INSERT_ROW + _ON_CONFLICT
_BY_ID = f"SELECT {SUBMISSION_COLUMNS} {SUBMISSION_FROM} WHERE s.id = ?"
_TO_CHANGE = f"SELECT {SUBMISSION_COLUMNS}, b.challenge {SUBMISSION_FROM} WHERE s.id = ?"
_BY_MESSAGE = (
    f"SELECT {SUBMISSION_COLUMNS} {SUBMISSION_FROM} WHERE s.chat_id = ? AND s.message_id = ?"
)


def _insert_rows_sql(count: int) -> str:
    """One INSERT of ``count`` submissions, returning the new rows' ids and keys."""
    rows = ", ".join([_INSERT_ROW] * count)
    return f"{_INSERT_INTO}{rows}{_ON_CONFLICT} RETURNING id, chat_id, message_id"


@dataclass(frozen=True, slots=True)
class _Prepared:
    """A NewSubmission turned into column values (done outside the lock)."""

    values: tuple[Any, ...]
    user_id: int
    chat_id: int
    message_id: int
    benchmark: str
    #: score_se and provider (the columns after published_at)
    tail: tuple[Any, ...] = (None, None)


def _prepare(sub: NewSubmission, now_ms: int) -> _Prepared:
    model, model_norm = clean_model(sub.model)
    mode = clean_mode(sub.mode)
    score = float(sub.result.primary)
    if not math.isfinite(score):
        raise InvalidData(f"the score must be a finite number, not {score}")
    if not sub.scorer_version:
        raise InvalidData("the scorer version is empty")
    try:
        record = dumps(sub.result.to_record())
        extra = dumps(sub.extra) if sub.extra else None
    except (TypeError, ValueError) as exc:
        raise InvalidData(f"the result or extra data is not JSON-able: {exc}") from exc
    fingerprint = sub.result.fingerprint or None
    raw: str | PackedText = sub.raw
    if isinstance(raw, str) and len(raw) > _PACK_LATER:
        raw = pack(raw)
    values = (
        sub.user_id,
        sub.chat_id,
        sub.message_id,
        sub.key_version_id,
        model,
        model_norm,
        mode,
        raw if isinstance(raw, str) else raw.blob,
        len(raw) if isinstance(raw, str) else raw.chars,
        record,
        score,
        fingerprint,
        sub.scorer_version,
        extra,
        now_ms,
    )
    se = sub.score_se
    if se is not None and not (math.isfinite(se) and (se >= 0 or se == -1)):
        raise InvalidData(f"the score's standard error must be -1 or a finite number >= 0: {se}")
    provider = optional_provider(sub.provider)
    return _Prepared(
        values, sub.user_id, sub.chat_id, sub.message_id, sub.benchmark, (se, provider)
    )


def _insert_values(
    p: _Prepared, bench_id: int, visibility: str = "private", published_at: int | None = None
) -> tuple[Any, ...]:
    """The parameters of ``_INSERT_SUBMISSION`` for one prepared submission (its raw
    input still a text when it is short: see :func:`_pack_raw`)."""
    return (*p.values[:3], bench_id, *p.values[3:], visibility, published_at, *p.tail)


#: A raw input up to this many characters is compressed on the database thread, in the
#: trip that inserts it: zlib lets go of the interpreter lock while it works, so there
#: it runs beside the event loop, which on the loop it would stop (and then wait to
#: take the lock back). A longer one is packed at once (in a worker thread when large).
_PACK_LATER = 1 << 16
#: Where the raw input stands in ``_insert_values``, and how many values a row has.
_RAW_AT, _ROW_VALUES = 8, _INSERT_ROW.count("?")


class _Unpacked:
    """A short raw input that SQLite's binding compresses (:func:`_adapt_unpacked`, an
    adapter registered with ``sqlite3``): on the database thread, in the trip that
    inserts it."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _adapt_unpacked(value: _Unpacked) -> bytes:
    return compress(value.text)


sqlite3.register_adapter(_Unpacked, _adapt_unpacked)


def _pack_later(params: list[Any]) -> list[Any]:
    """Insert parameters with each raw input that is still a text wrapped to be
    compressed as SQLite binds it (see :class:`_Unpacked`)."""
    for at in range(_RAW_AT, len(params), _ROW_VALUES):
        if isinstance(params[at], str):
            params[at] = _Unpacked(params[at])
    return params


def _pack_raw(params: list[Any]) -> list[Any]:
    """Insert parameters of whole rows with each raw input that is still a text
    compressed as the store keeps it."""
    for at in range(_RAW_AT, len(params), _ROW_VALUES):
        if isinstance(params[at], str):
            params[at] = compress(params[at])
    return params


def _recorded(p: _Prepared, submission_id: int, benchmark: str) -> Submission:
    """The Submission a fresh insert stored, built from its own values (no read back)."""
    (user, chat, message, key_version, model, model_norm, mode, _raw, chars, record, score,
     fingerprint, scorer, extra, created_at) = p.values  # fmt: skip
    row = (
        submission_id, user, chat, message, benchmark, key_version, model, model_norm, mode,
        score, fingerprint, record, scorer, extra, chars, created_at, None, "private", 0,
    )  # fmt: skip
    return submission(row, created=True)


def _require_editable(sub: Submission) -> None:
    if sub.visibility in (Visibility.PUBLISHED, Visibility.HIDDEN):
        raise NotAllowed(f"submission {sub.id} is {sub.visibility}: its model and mode are fixed")


async def _published_since(s: Session, user_id: int, since_ms: int) -> int:
    row = await s.one(
        "SELECT COUNT(*) FROM submissions WHERE user_id = ? AND published_at >= ?",
        (user_id, since_ms),
    )
    return int(row[0]) if row else 0


async def _to_change(s: Session, submission_id: int) -> tuple[Submission, str | None]:
    """A submission whose visibility changes, and its benchmark's challenge fields as
    stored (None: no challenge), which counting a publication needs: one read for both."""
    row = await s.one(_TO_CHANGE, (submission_id,))
    if row is None:
        raise NotFound(f"no submission {submission_id}")
    return submission(row), row[-1]


async def _locked_submission(s: Session, submission_id: int) -> Submission:
    row = await s.one(_BY_ID, (submission_id,))
    if row is None:
        raise NotFound(f"no submission {submission_id}")
    return submission(row)


class SubmissionStore(StoreBase):
    def __init__(self, db: Database, path: Path, *, clock: Clock) -> None:
        super().__init__(db, path, clock=clock)
        # submissions recorded at the same moment go into one INSERT (_insert_group)
        self._inserts = Batched(self._insert_group, _GROUP_ROWS)

    async def _recorded_all(self) -> None:
        """Wait until the submissions being recorded have landed (before closing)."""
        await self._inserts.idle()

    # --- recording -----------------------------------------------------------------------

    async def record_submission(self, sub: NewSubmission) -> Submission:
        """Store a scored submission (private). Idempotent on (chat_id, message_id): a
        second delivery of the same Telegram update returns the stored one with
        ``created=False``. Unknown users and chats get a placeholder row, filled in by
        the next ``upsert_user``/``upsert_chat``."""
        now = self._now_ms()
        chars = len(sub.raw) if isinstance(sub.raw, str) else sub.raw.chars
        if chars > 1 << 20:
            # compressing megabytes, or the record of what they held: keep the event
            # loop free
            prepared = await asyncio.to_thread(_prepare, sub, now)
        else:
            prepared = _prepare(sub, now)
        name = benchmark_name(sub.benchmark)
        bench_id = self._bench_ids.get(name)
        if (
            bench_id is not None
            and sub.user_id in self._known_users
            and sub.chat_id in self._known_chats
        ):
            # Everything it refers to exists: one INSERT, shared with whatever else is
            # being recorded at the same moment (see _insert_group).
            if self._db.closed:
                raise StoreUnavailable("the store is closed")
            submission_id = await self._inserts((prepared, bench_id))
            if submission_id is not None:
                return _recorded(prepared, submission_id, name)
            stored = await self.find_submission(sub.chat_id, sub.message_id)
            assert stored is not None  # delivered before: the stored one
            return stored
        async with self._db.write() as s:
            inserted = await self._insert(s, [prepared], name, now)
            row = await s.one(_BY_MESSAGE, (sub.chat_id, sub.message_id))
            bench_id = await self._ensure_bench(s, name)
        self._bench_ids[name] = bench_id  # committed now
        self._known_users.add(sub.user_id)
        self._known_chats.add(sub.chat_id)
        assert row is not None
        return submission(row, created=inserted == 1)

    async def _insert_group(
        self, rows: Sequence[tuple[_Prepared, int]]
    ) -> list[int | Exception | None]:
        """Submissions waiting together, in one INSERT (up to ``_GROUP_ROWS``), which
        commits on its own (autocommit: all its rows or none): each one's new row id,
        None when it was stored before, or the error that kept it out."""
        try:
            ids = await self._insert_rows(rows)
        except Exception:
            if len(rows) == 1:
                raise
            # one bad row must not fail the others: each again on its own
            outcomes: list[int | Exception | None] = []
            for row in rows:
                try:
                    one = await self._insert_rows([row])
                except Exception as error:
                    outcomes.append(error)
                else:
                    outcomes.append(one.get((row[0].chat_id, row[0].message_id)))
            return outcomes
        # of two deliveries of one message in a group, the first is the new one
        return [ids.pop((p.chat_id, p.message_id), None) for p, _ in rows]

    async def _insert_rows(
        self, rows: Sequence[tuple[_Prepared, int]]
    ) -> dict[tuple[int, int], int]:
        """One multi-row INSERT; the new rows' ids by (chat_id, message_id). The raw inputs
        are compressed on the database thread, in the same trip."""
        sql = _insert_rows_sql(len(rows))
        params = [value for p, bench_id in rows for value in _insert_values(p, bench_id)]

        def insert(conn: Conn) -> list[Any]:
            return conn.execute(sql, _pack_raw(params)).fetchall()

        async with self._db.single() as s:
            if s.dialect.postgres:  # psycopg: in a worker thread (``PgSession.run``)
                returned = await s.run(insert)
            else:  # one statement, compressed as it is bound, in one trip
                returned = await s.all(sql, _pack_later(params))
        return {(chat_id, message_id): sub_id for sub_id, chat_id, message_id in returned}

    async def record_many(
        self, subs: Iterable[NewSubmission], *, publish: bool = False, batch_size: int = 1000
    ) -> int:
        """Bulk import (back-fills, the benchmark script): one transaction per batch.

        Idempotent like :meth:`record_submission`; returns how many were new. With
        ``publish=True`` every new submission is published (each must have a mode and a
        model) and the boards of the touched benchmarks are rebuilt once at the end.
        """
        new = 0
        touched: set[str] = set()
        batch: list[NewSubmission] = []

        async def flush() -> None:
            nonlocal new
            now = self._now_ms()
            by_bench: dict[str, list[_Prepared]] = {}
            for item in batch:
                if publish and (item.mode is None or item.model is None):
                    raise InvalidData(
                        f"message {item.message_id}: publishing needs a mode and a model"
                    )
                by_bench.setdefault(benchmark_name(item.benchmark), []).append(_prepare(item, now))
            async with self._db.write() as s:
                for name, items in by_bench.items():
                    new += await self._insert(s, items, name, now, publish=publish)
                    touched.add(name)
                if publish:
                    await s.executemany(
                        "UPDATE benchmarks SET boards_stale = 1 WHERE name = ?",
                        [(n,) for n in by_bench],
                    )
            batch.clear()

        for sub in subs:
            batch.append(sub)
            if len(batch) >= batch_size:
                await flush()
        if batch:
            await flush()
        if publish:
            for name in sorted(touched):
                await summaries.rebuild_boards(self._db, name)
        return new

    async def _insert(
        self, s: Session, items: list[_Prepared], benchmark: str, now: int, *, publish: bool = False
    ) -> int:
        bench_id = await self._ensure_bench(s, benchmark)
        users = {(p.user_id, now, now) for p in items}
        chats = {(p.chat_id, now, now) for p in items}
        await s.executemany(
            "INSERT INTO users (id, first_seen, last_seen) VALUES (?, ?, ?) "
            "ON CONFLICT (id) DO NOTHING",
            users,
        )
        await s.executemany(
            "INSERT INTO chats (id, first_seen, last_seen) VALUES (?, ?, ?) "
            "ON CONFLICT (id) DO NOTHING",
            chats,
        )
        visibility, published_at = ("published", now) if publish else ("private", None)
        return await s.executemany(
            _INSERT_SUBMISSION,
            [_pack_raw(list(_insert_values(p, bench_id, visibility, published_at))) for p in items],
        )

    # --- reading -------------------------------------------------------------------------

    async def get_submission(self, submission_id: int) -> Submission | None:
        async with self._db.single() as s:
            row = await s.one(_BY_ID, (submission_id,))
        return None if row is None else submission(row)

    async def find_submission(self, chat_id: int, message_id: int) -> Submission | None:
        """The submission recorded for a Telegram message, if any."""
        async with self._db.single() as s:
            row = await s.one(_BY_MESSAGE, (chat_id, message_id))
        return None if row is None else submission(row)

    async def raw_text(self, submission_id: int) -> str:
        """The raw input of a submission, exactly as it was scored."""
        async with self._db.single() as s:
            row = await s.one("SELECT raw FROM submissions WHERE id = ?", (submission_id,))
        if row is None:
            raise NotFound(f"no submission {submission_id}")
        return await asyncio.to_thread(decompress, row[0])

    async def history(
        self, user_id: int, *, benchmark: str | None = None, limit: int = 10, offset: int = 0
    ) -> list[Submission]:
        """A user's submissions (every visibility), newest first."""
        check_page(limit, offset)
        sql = f"SELECT {SUBMISSION_COLUMNS} {SUBMISSION_FROM} WHERE s.user_id = ?"
        params: list[Any] = [user_id]
        if benchmark is not None:
            sql += " AND b.name = ?"
            params.append(benchmark_name(benchmark))
        sql += " ORDER BY s.created_at DESC, s.id DESC LIMIT ? OFFSET ?"
        params += [limit, offset]
        async with self._db.single() as s:
            rows = await s.all(sql, params)
        return [submission(r) for r in rows]

    async def count_history(self, user_id: int) -> int:
        """How many submissions a user has (every visibility): :meth:`history`'s total."""
        async with self._db.single() as s:
            row = await s.one("SELECT COUNT(*) FROM submissions WHERE user_id = ?", (user_id,))
        return int(row[0]) if row else 0

    def _day_start_ms(self, tz: tzinfo) -> int:
        now = self._clock().astimezone(tz)
        start = now.replace(hour=0, minute=0, second=0, microsecond=0)
        return int(start.timestamp() * 1000)

    async def published_today(self, user_id: int, *, tz: tzinfo = UTC) -> int:
        """How many submissions the user published since midnight (in ``tz``); a result
        withdrawn and published again counts on the day of its last publication."""
        async with self._db.read() as s:
            return await _published_since(s, user_id, self._day_start_ms(tz))

    async def submitted_today(self, user_id: int, *, tz: tzinfo = UTC) -> int:
        """How many submissions the user sent since midnight (in ``tz``)."""
        since = self._day_start_ms(tz)
        async with self._db.single() as s:
            row = await s.one(
                "SELECT COUNT(*) FROM submissions WHERE user_id = ? AND created_at >= ?",
                (user_id, since),
            )
        return int(row[0]) if row else 0

    # --- model, mode and visibility ------------------------------------------------------

    async def set_mode(self, submission_id: int, mode: str) -> Submission:
        """Set the mode of a private or withdrawn submission."""
        value = clean_mode(mode)
        async with self._db.write() as s:
            sub = await _locked_submission(s, submission_id)
            _require_editable(sub)
            await s.execute("UPDATE submissions SET mode = ? WHERE id = ?", (value, sub.id))
            return replace(sub, mode=value)  # (as in _transition: not read back)

    async def set_model(self, submission_id: int, model: str) -> Submission:
        """Set the model name (as typed) of a private or withdrawn submission."""
        shown, norm = clean_model(model)
        async with self._db.write() as s:
            sub = await _locked_submission(s, submission_id)
            _require_editable(sub)
            await s.execute(
                "UPDATE submissions SET model = ?, model_norm = ? WHERE id = ?",
                (shown, norm, sub.id),
            )
            return replace(sub, model=shown, model_norm=norm)

    async def _transition(
        self,
        submission_id: int,
        *,
        allowed_from: tuple[Visibility, ...],
        to: Visibility,
        user_id: int | None = None,
        verb: str,
        daily_limit: tuple[int, tzinfo] | None = None,
    ) -> tuple[Submission, int]:
        """Change a submission's visibility; with ``daily_limit`` (a publication), also
        check and use the owner's allowance of the day, in the same transaction. Returns
        the submission and, for a publication, the owner's publications of the day."""
        now = self._now_ms()
        async with self._db.write() as s:
            sub, challenge = await _to_change(s, submission_id)
            # another instance publishing for the same owner waits here (PostgreSQL)
            if await s.lock("user", sub.user_id):
                sub, challenge = await _to_change(s, submission_id)
            if user_id is not None and sub.user_id != user_id:
                raise NotAllowed(f"submission {submission_id} belongs to another user")
            used, counted = 0, False
            if daily_limit is not None:
                since = self._day_start_ms(daily_limit[1])
                used = await _published_since(s, sub.user_id, since)
                # published earlier today (then withdrawn): already counted
                counted = (
                    sub.published_at is not None and sub.published_at.timestamp() * 1000 >= since
                )
            if sub.visibility == to:
                return sub, used  # idempotent
            if sub.visibility not in allowed_from:
                raise NotAllowed(f"a {sub.visibility} submission cannot be {verb}")
            if to is Visibility.PUBLISHED:
                missing = tuple(
                    what
                    for what, value in (("mode", sub.mode), ("model name", sub.model))
                    if value is None
                )
                if missing:
                    raise MissingModeOrModel(submission_id, missing)
                if daily_limit is not None and not counted and used >= daily_limit[0]:
                    raise LimitReached(daily_limit[0], used)
            # a publication is stamped (and counted) on the day it is made; an admin's
            # unhide keeps the original date
            stamped = to is Visibility.PUBLISHED and sub.visibility is not Visibility.HIDDEN
            await s.execute(
                "UPDATE submissions SET visibility = ?, "
                "published_at = CASE WHEN ? THEN ? ELSE published_at END WHERE id = ?",
                (to.value, stamped, now, submission_id),
            )
            if to is Visibility.PUBLISHED:
                used += daily_limit is not None and not counted
                bench_id = await self._bench_id(s, sub.benchmark)
                await summaries.add_to_group(s, bench_id, sub, challenge)
            elif (
                sub.visibility is Visibility.PUBLISHED
                and sub.model_norm is not None
                and sub.mode is not None
            ):
                bench_id = await self._bench_id(s, sub.benchmark)
                await summaries.refresh_line(s, (bench_id, sub.model_norm, sub.mode))
            # what the UPDATE changed (no trigger changes a submission's row): not read back
            changed = replace(
                sub, visibility=to, published_at=dt(now) if stamped else sub.published_at
            )
            return changed, used

    async def publish(self, submission_id: int) -> Submission:
        """Put a private (or withdrawn) submission on the boards.

        Raises :class:`MissingModeOrModel` without a mode or model name, and
        :class:`NotAllowed` for a hidden one. Publishing twice is harmless.
        """
        sub, _ = await self._transition(
            submission_id,
            allowed_from=(Visibility.PRIVATE, Visibility.WITHDRAWN),
            to=Visibility.PUBLISHED,
            verb="published",
        )
        return sub

    async def release_held(self, submission_id: int) -> Submission:
        """An admin puts a result held for review (private) on the boards: never one its
        owner withdrew meanwhile (:class:`NotAllowed`), which stays withdrawn."""
        sub, _ = await self._transition(
            submission_id,
            allowed_from=(Visibility.PRIVATE,),
            to=Visibility.PUBLISHED,
            verb="released",
        )
        return sub

    async def reopen(self, submission_id: int) -> Submission:
        """A withdrawn result its owner asks to publish again, while it is held for
        review: private again, waiting for an admin's decision."""
        sub, _ = await self._transition(
            submission_id,
            allowed_from=(Visibility.WITHDRAWN,),
            to=Visibility.PRIVATE,
            verb="reopened",
        )
        return sub

    async def reject(self, submission_id: int) -> Submission:
        """An admin hides a result held for review (private) from every board for good:
        its owner can no longer publish it. One its owner withdrew stays withdrawn
        (:class:`NotAllowed`)."""
        sub, _ = await self._transition(
            submission_id,
            allowed_from=(Visibility.PRIVATE, Visibility.PUBLISHED),
            to=Visibility.HIDDEN,
            verb="rejected",
        )
        return sub

    async def publish_within(
        self,
        submission_id: int,
        *,
        daily_limit: int,
        tz: tzinfo = UTC,
    ) -> tuple[Submission, int]:
        """:meth:`publish`, within the owner's daily allowance: the day's publications are
        counted and the new one made in one transaction, so concurrent presses publish
        exactly the allowance. Raises :class:`LimitReached` when it is used up. Returns
        the submission and the owner's publications of the day, this one included
        (already published: unchanged, and the count as it is). The answer set the copy
        check kept in its ``extra`` is indexed in the same transaction (a trigger:
        ``storage.trust``)."""
        return await self._transition(
            submission_id,
            allowed_from=(Visibility.PRIVATE, Visibility.WITHDRAWN),
            to=Visibility.PUBLISHED,
            verb="published",
            daily_limit=(daily_limit, tz),
        )

    async def withdraw(self, submission_id: int, user_id: int) -> Submission:
        """The owner takes a private or published submission off the boards."""
        sub, _ = await self._transition(
            submission_id,
            allowed_from=(Visibility.PRIVATE, Visibility.PUBLISHED),
            to=Visibility.WITHDRAWN,
            user_id=user_id,
            verb="withdrawn",
        )
        return sub

    async def hide(self, submission_id: int) -> Submission:
        """An admin takes a published submission off the boards."""
        sub, _ = await self._transition(
            submission_id,
            allowed_from=(Visibility.PUBLISHED,),
            to=Visibility.HIDDEN,
            verb="hidden",
        )
        return sub

    async def unhide(self, submission_id: int) -> Submission:
        """An admin puts a hidden submission back on the boards."""
        sub, _ = await self._transition(
            submission_id,
            allowed_from=(Visibility.HIDDEN,),
            to=Visibility.PUBLISHED,
            verb="unhidden",
        )
        return sub

    async def verify(
        self, submission_id: int, verified: bool = True, *, group: bool = False
    ) -> Submission:
        """An admin marks (or unmarks) a submission as verified: a bot admin on every
        board (``verified``); with ``group``, an admin of the group it was published
        from, on that group's board only (``group_verified``)."""
        column = "group_verified" if group else "verified"
        async with self._db.write() as s:
            sub = await _locked_submission(s, submission_id)
            await s.execute(
                f"UPDATE submissions SET {column} = ? WHERE id = ?", (int(verified), sub.id)
            )
            return await _locked_submission(s, submission_id)

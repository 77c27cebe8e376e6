"""Moderation: bans, the audit log, and results with the same answers.

Hiding, unhiding and verifying a submission are in :mod:`storage.submissions` (they
change the submission); the bot logs them here with :meth:`ModerationStore.log_action`.
"""

from __future__ import annotations

from typing import Any

from . import summaries
from .base import StoreBase
from .db import Session
from .errors import InvalidData
from .models import AuditEntry, Ban
from .values import check_page, clean_reason, dt, storable_text


async def _audit(
    s: Session,
    now: int,
    actor_id: int,
    chat_id: int | None,
    action: str,
    target: str,
    reason: str | None,
) -> int:
    row = await s.one(
        """INSERT INTO audit_log (at, actor_id, chat_id, action, target, reason)
           VALUES (?, ?, ?, ?, ?, ?) RETURNING id""",
        (now, actor_id, chat_id, action, target, reason),
    )
    return int(row[0]) if row else 0


class ModerationStore(StoreBase):
    async def ban(self, user_id: int, *, by: int, reason: str | None = None) -> Ban:
        """Take every submission of a user off every board, now and later.

        The user can still score privately (the bot refuses to publish for them). A second
        ban updates the reason. The ban and its audit entry commit together, and the
        board lines the user's results were in are recomputed.
        """
        why = clean_reason(reason)
        now = self._now_ms()
        async with self._db.write() as s:
            await s.execute(
                """INSERT INTO bans (user_id, reason, banned_by, banned_at) VALUES (?, ?, ?, ?)
                   ON CONFLICT (user_id) DO UPDATE SET reason = excluded.reason,
                       banned_by = excluded.banned_by, banned_at = excluded.banned_at""",
                (user_id, why, by, now),
            )
            await _audit(s, now, by, None, "ban", str(user_id), why)
            await summaries.refresh_user_lines(s, user_id)
        return Ban(user_id, why, by, dt(now))

    async def unban(self, user_id: int, *, by: int, reason: str | None = None) -> bool:
        """Lift a ban (their published results return to the boards); False when the
        user was not banned (nothing is written then)."""
        why = clean_reason(reason)
        now = self._now_ms()
        async with self._db.write() as s:
            done = await s.execute("DELETE FROM bans WHERE user_id = ?", (user_id,))
            lifted = done.rowcount > 0
            if lifted:
                await _audit(s, now, by, None, "unban", str(user_id), why)
                await summaries.refresh_user_lines(s, user_id)
        return lifted

    async def is_banned(self, user_id: int) -> Ban | None:
        async with self._db.single() as s:
            row = await s.one(
                "SELECT user_id, reason, banned_by, banned_at FROM bans WHERE user_id = ?",
                (user_id,),
            )
        return None if row is None else Ban(row[0], row[1], row[2], dt(row[3]))

    async def bans(self) -> list[Ban]:
        """Every banned user, latest first."""
        async with self._db.single() as s:
            rows = await s.all(
                "SELECT user_id, reason, banned_by, banned_at FROM bans "
                "ORDER BY banned_at DESC, user_id",
            )
        return [Ban(r[0], r[1], r[2], dt(r[3])) for r in rows]

    async def log_action(
        self,
        actor_id: int,
        action: str,
        target: str,
        *,
        chat_id: int | None = None,
        reason: str | None = None,
    ) -> AuditEntry:
        """Record a moderation action (hide, unhide, verify, setkey, ...) in the audit log."""
        if not action or not target:
            raise InvalidData("an audit entry needs an action and a target")
        target = storable_text(target)
        why = clean_reason(reason)
        now = self._now_ms()
        async with self._db.write() as s:
            entry_id = await _audit(s, now, actor_id, chat_id, action, target, why)
        return AuditEntry(entry_id, dt(now), actor_id, chat_id, action, target, why)

    async def audit_log(self, *, chat_id: int | None = None, limit: int = 20) -> list[AuditEntry]:
        """The latest audit entries, newest first: every one, or one chat's board's."""
        check_page(limit, 0)
        sql = "SELECT id, at, actor_id, chat_id, action, target, reason FROM audit_log"
        params: list[Any] = []
        if chat_id is not None:
            sql += " WHERE chat_id = ?"
            params.append(chat_id)
        sql += " ORDER BY id DESC LIMIT ?"
        async with self._db.single() as s:
            rows = await s.all(sql, [*params, limit])
        return [AuditEntry(r[0], dt(r[1]), r[2], r[3], r[4], r[5], r[6]) for r in rows]

    async def same_answers_as(self, submission_id: int) -> int | None:
        """The earliest other result on the boards with the same normalised answers
        (fingerprint), benchmark, model and mode: the boards count both as one run."""
        async with self._db.single() as s:
            row = await s.one(
                """SELECT MIN(o.id) FROM submissions AS s JOIN board_source AS o
                       ON o.benchmark_id = s.benchmark_id AND o.model_norm = s.model_norm
                      AND o.mode = s.mode AND o.fingerprint = s.fingerprint AND o.id <> s.id
                   WHERE s.id = ?""",
                (submission_id,),
            )
        return None if row is None or row[0] is None else int(row[0])

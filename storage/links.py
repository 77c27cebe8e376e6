"""Opaque links: random tokens that stand for a published result, a challenge, a
group's board in the bot (``group``) or on the web (``web``, revocable by the group's
admins).

A token says nothing about what it stands for: it is random (``secrets``), not an
encoding of a submission or chat id, so links cannot be enumerated or guessed. Tokens
are URL-safe (``A-Z a-z 0-9 _ -``) and short enough for a Telegram ``start`` payload
(at most 64 characters) with a prefix. One live token per (kind, target): asking again
returns the same one until it is revoked.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from .base import StoreBase
from .errors import InvalidData
from .values import dt

LinkKind = Literal["result", "challenge", "group", "web"]
_FOR_SUBMISSION = frozenset({"result", "challenge"})
#: Characters of a token (``secrets.token_urlsafe(12)``: 16, 96 random bits).
TOKEN_CHARS = 16
_TOKEN_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


@dataclass(frozen=True, slots=True)
class Link:
    token: str
    kind: LinkKind
    submission_id: int | None
    chat_id: int | None
    created_by: int | None
    created_at: datetime


def well_formed(token: str) -> bool:
    """Whether ``token`` could be a token at all (checked before any query)."""
    return 0 < len(token) <= 32 and set(token) <= _TOKEN_ALPHABET


class LinkStore(StoreBase):
    async def link(self, kind: LinkKind, target: int, *, created_by: int | None = None) -> str:
        """The live token for a submission (``result``, ``challenge``) or a chat (``group``,
        ``web``); made on first request. The caller checks that the target may be linked."""
        column = "submission_id" if kind in _FOR_SUBMISSION else "chat_id"
        if kind not in ("result", "challenge", "group", "web"):
            raise InvalidData(f"unknown link kind {kind!r}")
        async with self._db.write() as s:
            await s.lock(f"link:{kind}", target)
            row = await s.one(
                f"SELECT token FROM links WHERE kind = ? AND {column} = ? AND revoked_at IS NULL",
                (kind, target),
            )
            if row is not None:
                return str(row[0])
            token = secrets.token_urlsafe(12)
            await s.execute(
                f"INSERT INTO links (token, kind, {column}, created_by, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (token, kind, target, created_by, self._now_ms()),
            )
        return token

    async def resolve_link(self, token: str) -> Link | None:
        """What a live token stands for; None for a malformed, unknown or revoked one."""
        if not well_formed(token):
            return None
        async with self._db.single() as s:
            row = await s.one(
                "SELECT token, kind, submission_id, chat_id, created_by, created_at "
                "FROM links WHERE token = ? AND revoked_at IS NULL",
                (token,),
            )
        if row is None:
            return None
        return Link(row[0], row[1], row[2], row[3], row[4], dt(row[5]))

    async def revoke_links(self, kind: LinkKind, target: int) -> int:
        """Revoke the live token of a target (the next request makes a new one)."""
        column = "submission_id" if kind in _FOR_SUBMISSION else "chat_id"
        async with self._db.write() as s:
            done = await s.execute(
                f"UPDATE links SET revoked_at = ? WHERE kind = ? AND {column} = ? "
                "AND revoked_at IS NULL",
                (self._now_ms(), kind, target),
            )
        return done.rowcount

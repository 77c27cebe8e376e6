"""Personal API tokens, the API's idempotent requests, and their rate.

A token is kept only as its SHA-256 (the caller hashes it: the store never sees the
token itself), so a copy of the database lets no one act as its owners. Each submission
made through the API has a row in ``api_requests``; its id names the submission's
message (``-id`` in the owner's private chat), so a request repeated with the same
idempotency key finds the submission the first one made, on any instance, after any
restart. The rate limit is a GCRA schedule per key (the API's: per user) kept in
``shared_state``: every instance on the database counts against the same one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .base import StoreBase
from .errors import InvalidData
from .values import dt

#: A token's ``last_used_at`` is written at most this often (ms): not on every request.
TOUCH_EVERY_MS = 60_000
#: The longest idempotency key kept.
IDEMPOTENCY_KEY_MAX = 200
#: How long the message that asked for a token is remembered (ms): handled again
#: within it, its earlier token is replaced, not joined by a second.
DEDUPE_MS = 7 * 24 * 3600 * 1000
_DEDUPE = "api_token:"


@dataclass(frozen=True, slots=True)
class ApiToken:
    id: int
    user_id: int
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


@dataclass(frozen=True, slots=True)
class ApiRequest:
    """An API submission's request: ``message_id`` names its submission in the owner's
    private chat; ``created``: made by this call (else the same key came before)."""

    id: int
    user_id: int
    created: bool

    @property
    def message_id(self) -> int:
        return -self.id


def _check_hash(token_hash: str) -> None:
    if len(token_hash) != 64 or not all(c in "0123456789abcdef" for c in token_hash):
        raise InvalidData("a token hash is 64 lowercase hex digits")


_TOKEN_COLUMNS = "id, user_id, created_at, last_used_at, revoked_at"


def _token(row: Any) -> ApiToken:
    used, revoked = row[3], row[4]
    return ApiToken(
        int(row[0]),
        int(row[1]),
        dt(int(row[2])),
        None if used is None else dt(int(used)),
        None if revoked is None else dt(int(revoked)),
    )


class TokenStore(StoreBase):
    async def add_api_token(self, user_id: int, token_hash: str) -> ApiToken:
        """Keep a new token (its hash) for ``user_id``, who must have a user row."""
        token, _ = await self.replace_api_token(user_id, token_hash, dedupe=None)
        return token

    async def replace_api_token(
        self, user_id: int, token_hash: str, *, dedupe: str | None
    ) -> tuple[ApiToken, bool]:
        """Keep a new token (its hash) for ``user_id``, who must have a user row. With
        ``dedupe`` (e.g. the chat message that asked for it), one live token per
        ``dedupe``: one made for it before (its answer lost, the message handled again)
        is revoked in the same transaction. Returns the token and whether it replaced
        one."""
        _check_hash(token_hash)
        now = self._now_ms()
        async with self._db.write() as s:
            replaced = False
            name = None if dedupe is None else f"{_DEDUPE}{dedupe}"
            if name is not None:
                if len(name) > 200:
                    raise InvalidData("a token's dedupe key is at most 200 characters")
                await s.lock("user", user_id)
                earlier = await s.one(
                    "SELECT number FROM shared_state WHERE name = ? AND expires_at > ?",
                    (name, now),
                )
                if earlier is not None and earlier[0] is not None:
                    done = await s.execute(
                        "UPDATE api_tokens SET revoked_at = ? "
                        "WHERE id = ? AND user_id = ? AND revoked_at IS NULL",
                        (now, int(earlier[0]), user_id),
                    )
                    replaced = done.rowcount > 0
            row = await s.one(
                f"""INSERT INTO api_tokens (user_id, hash, created_at) VALUES (?, ?, ?)
                    RETURNING {_TOKEN_COLUMNS}""",
                (user_id, token_hash, now),
            )
            assert row is not None
            token = _token(row)
            if name is not None:
                await s.execute(
                    """INSERT INTO shared_state (name, number, expires_at) VALUES (?, ?, ?)
                       ON CONFLICT (name) DO UPDATE SET number = excluded.number,
                           expires_at = excluded.expires_at""",
                    (name, token.id, now + DEDUPE_MS),
                )
        return token, replaced

    async def api_tokens(self, user_id: int) -> list[ApiToken]:
        """The user's live tokens, oldest first."""
        async with self._db.single() as s:
            rows = await s.all(
                f"""SELECT {_TOKEN_COLUMNS} FROM api_tokens
                    WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at, id""",
                (user_id,),
            )
        return [_token(r) for r in rows]

    async def revoke_api_tokens(self, user_id: int) -> int:
        """Revoke every live token of the user; how many there were."""
        async with self._db.single() as s:
            done = await s.execute(
                "UPDATE api_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL",
                (self._now_ms(), user_id),
            )
        return int(done.rowcount)

    async def api_token_owner(self, token_hash: str) -> ApiToken | None:
        """The live token with this hash (its last use noted, at most once a minute), or
        None for an unknown or revoked one."""
        if len(token_hash) != 64:
            return None
        now = self._now_ms()
        async with self._db.single() as s:
            row = await s.one(
                f"SELECT {_TOKEN_COLUMNS} FROM api_tokens WHERE hash = ? AND revoked_at IS NULL",
                (token_hash,),
            )
        if row is None:
            return None
        token = _token(row)
        used = row[3]
        if used is None or now - int(used) >= TOUCH_EVERY_MS:
            async with self._db.single() as s:
                await s.execute(
                    "UPDATE api_tokens SET last_used_at = ? WHERE id = ?", (now, token.id)
                )
        return token

    async def api_request(self, user_id: int, idempotency_key: str | None) -> ApiRequest:
        """A new API request of ``user_id``; with an idempotency key this user sent
        before, that earlier request (``created`` False)."""
        if idempotency_key is not None and not 0 < len(idempotency_key) <= IDEMPOTENCY_KEY_MAX:
            raise InvalidData(f"an idempotency key is 1 to {IDEMPOTENCY_KEY_MAX} characters")
        async with self._db.write() as s:
            row = await s.one(
                """INSERT INTO api_requests (user_id, idempotency_key, created_at)
                   VALUES (?, ?, ?) ON CONFLICT DO NOTHING RETURNING id""",
                (user_id, idempotency_key, self._now_ms()),
            )
            if row is not None:
                return ApiRequest(int(row[0]), user_id, True)
            row = await s.one(
                "SELECT id FROM api_requests WHERE user_id = ? AND idempotency_key = ?",
                (user_id, idempotency_key),
            )
        assert row is not None
        return ApiRequest(int(row[0]), user_id, False)

    async def take_rate(self, key: str, *, interval_ms: int, burst: int) -> int:
        """One request on the ``key`` schedule (e.g. a token's id), allowed at one per
        ``interval_ms`` with up to ``burst`` at once (GCRA: the row keeps the
        theoretical arrival time). Returns 0 when allowed, else the milliseconds until
        one more is."""
        if interval_ms <= 0 or burst < 1:
            raise InvalidData("a rate needs a positive interval and burst")
        now = self._now_ms()
        # allowed when the schedule (at least now) is no further ahead than this
        slack = interval_ms * (burst - 1)
        name = f"api_rate:{key}"
        async with self._db.single() as s:
            row = await s.one(
                """INSERT INTO shared_state AS r (name, value, number, expires_at)
                   VALUES (?, 'ok', ?, ?)
                   ON CONFLICT (name) DO UPDATE SET
                       value = CASE WHEN r.number - ? > ? THEN 'no' ELSE 'ok' END,
                       number = CASE WHEN r.number - ? > ? THEN r.number
                                     WHEN r.number > ? THEN r.number + ?
                                     ELSE ? END,
                       expires_at = CASE WHEN r.number - ? > ? THEN r.expires_at
                                         WHEN r.number > ? THEN r.number + ?
                                         ELSE ? END
                   RETURNING value, number""",
                (
                    name, now + interval_ms, now + interval_ms,
                    now, slack,
                    now, slack, now, interval_ms, now + interval_ms,
                    now, slack, now, interval_ms, now + interval_ms,
                ),
            )  # fmt: skip
        assert row is not None
        if row[0] == "ok":
            return 0
        return max(1, int(row[1]) - slack - now)

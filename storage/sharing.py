"""Sharing: the result card's theme per user, the file ids of uploaded card images, a
user's published results for inline mode, and a result's rank on the global board.

Card images are uploaded to Telegram once and sent again by their ``file_id``; the
cache key is a digest of what the image shows (the caller makes it), so a card whose
score, rank, mark or theme changed is a new key and a new upload.
"""

from __future__ import annotations

from typing import Any, Literal

from .base import StoreBase
from .challenge_lines import ChallengeFields
from .errors import InvalidData
from .models import Submission, Visibility
from .values import SUBMISSION_COLUMNS, SUBMISSION_FROM, check_page, storable_text, submission

Theme = Literal["light", "dark"]
THEMES: tuple[Theme, ...] = ("light", "dark")
#: The longest cache key and file id kept (Telegram's file ids are well below this).
_MAX_KEY = 128
_MAX_FILE_ID = 512

#: The rank of a published result: 1 + the (model, mode) lines of its benchmark's
#: global board whose best is higher. A challenge's attempt ranks among the valid
#: attempts at the same target (a published one is valid).
_RANK = """SELECT 1 + COUNT(*) FROM board_totals
           WHERE benchmark_id = (SELECT benchmark_id FROM submissions WHERE id = ?)
             AND best > ?"""
_RANK_SAME_TARGET = """
SELECT 1 + COUNT(*) FROM (
    SELECT v.model_norm, v.mode, MAX(v.score) AS best
    FROM board_source AS v JOIN submissions AS s ON s.id = v.id
    WHERE v.benchmark_id = (SELECT benchmark_id FROM submissions WHERE id = ?)
      AND {target} = ?
      AND {valid}
    GROUP BY v.model_norm, v.mode
) AS lines WHERE best > ?"""


class ShareStore(StoreBase):
    async def set_card_theme(self, user_id: int, theme: str) -> None:
        """The user's choice of result card theme (``light`` or ``dark``)."""
        if theme not in THEMES:
            raise InvalidData(f"unknown card theme {theme!r}")
        async with self._db.write() as s:
            await s.execute(
                "INSERT INTO card_themes (user_id, theme) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET theme = excluded.theme",
                (user_id, theme),
            )

    async def card_theme(self, user_id: int) -> Theme:
        """The user's card theme; ``light`` until they choose."""
        async with self._db.single() as s:
            row = await s.one("SELECT theme FROM card_themes WHERE user_id = ?", (user_id,))
        return "dark" if row is not None and row[0] == "dark" else "light"

    async def card_file(self, key: str) -> str | None:
        """The Telegram file id of an uploaded card image, by its cache key."""
        async with self._db.single() as s:
            row = await s.one("SELECT file_id FROM card_files WHERE key = ?", (key,))
        return None if row is None else str(row[0])

    async def forget_card_file(self, key: str, file_id: str) -> None:
        """Forget an uploaded card image's file id that Telegram refused (a database moved
        to another bot): the next send draws and uploads it again. A newer upload's id,
        saved meanwhile, is kept."""
        async with self._db.write() as s:
            await s.execute("DELETE FROM card_files WHERE key = ? AND file_id = ?", (key, file_id))

    async def save_card_file(self, key: str, file_id: str) -> None:
        """Remember the file id of an uploaded card image (the latest upload wins)."""
        if not key or len(key) > _MAX_KEY or not file_id or len(file_id) > _MAX_FILE_ID:
            raise InvalidData("a card file needs a key and a file id of sensible length")
        async with self._db.write() as s:
            await s.execute(
                "INSERT INTO card_files (key, file_id, created_at) VALUES (?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET file_id = excluded.file_id, "
                "created_at = excluded.created_at",
                (key, file_id, self._now_ms()),
            )

    async def published_by(
        self, user_id: int, *, search: str = "", limit: int = 10, offset: int = 0
    ) -> list[Submission]:
        """A user's published results, newest first; ``search`` keeps those whose model
        name or benchmark name contains it (case-folded)."""
        check_page(limit, offset)
        sql = (
            f"SELECT {SUBMISSION_COLUMNS} {SUBMISSION_FROM} "
            "WHERE s.user_id = ? AND s.visibility = ?"
        )
        params: list[Any] = [user_id, Visibility.PUBLISHED.value]
        words = storable_text(search).casefold().split()  # (a lone surrogate cannot bind)
        for word in words[:5]:
            pattern = "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            sql += (
                " AND (s.model_norm LIKE ? ESCAPE '\\' OR b.name LIKE ? ESCAPE '\\'"
                " OR lower(s.model) LIKE ? ESCAPE '\\')"
            )
            params += [pattern, pattern, pattern]
        sql += " ORDER BY s.published_at DESC, s.id DESC LIMIT ? OFFSET ?"
        params += [limit, offset]
        async with self._db.single() as s:
            rows = await s.all(sql, params)
        return [submission(r) for r in rows]

    async def global_rank(
        self, sub: Submission, challenge: ChallengeFields | None = None
    ) -> int | None:
        """Where a published result stands on its benchmark's global board now (None: not
        published). An attempt at a challenge (``challenge``: where its benchmark's
        results keep it) ranks among the attempts at its target."""
        if sub.visibility is not Visibility.PUBLISHED:
            return None
        target = None if challenge is None else sub.record.get(challenge.target)
        async with self._db.read() as s:
            if challenge is not None and isinstance(target, int) and not isinstance(target, bool):
                d = self._db.dialect
                sql = _RANK_SAME_TARGET.format(
                    target=d.json_number("s.result", challenge.target),
                    valid=d.json_true("s.result", challenge.valid),
                )
                row = await s.one(sql, (sub.id, target, sub.score))
            else:
                row = await s.one(_RANK, (sub.id, sub.score))
        return int(row[0]) if row is not None else None

    async def key_sha256(self, key_version_id: int | None) -> str | None:
        """The SHA-256 of a stored key version (None: no such version, or no key)."""
        if key_version_id is None:
            return None
        async with self._db.single() as s:
            row = await s.one("SELECT sha256 FROM key_versions WHERE id = ?", (key_version_id,))
        return None if row is None else str(row[0])

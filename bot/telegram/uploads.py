"""A Telegram document as a submission's upload (``bot.core.submit.Upload``): checked
for size, downloaded on the bot's transport, and what Telegram refuses or keeps failing
told to its sender as a refusal (nothing was saved)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from telegram import Document, File
from telegram.error import BadRequest, InvalidToken, NetworkError

from ..core import submit
from ..core.errors import UserError
from .http import AiohttpRequest

log = logging.getLogger(__name__)

_T = TypeVar("_T")

#: Tries of a file's download that fails for a transient fault (each Bot API call in it
#: is retried too, by ``RetryingRateLimiter``) before its sender is told to send it again.
DOWNLOAD_TRIES = 3


@dataclass(frozen=True, slots=True)
class DocumentUpload:
    """A Telegram document as ``bot.core.submit.Upload``: its size is checked again
    when Telegram says where the file is, before it is downloaded. What Telegram
    refuses (a file too big for bots, a file id it no longer knows, a download it
    answers 404) is told to the sender at once; a download that keeps failing for a
    transient fault is tried :data:`DOWNLOAD_TRIES` times, then told too (nothing was
    saved: sending it again is all it takes)."""

    document: Document

    @property
    def file_name(self) -> str | None:
        return self.document.file_name

    @property
    def file_size(self) -> int | None:
        return self.document.file_size

    async def download(self) -> bytearray:
        return await self._fetched(lambda file: file.download_as_bytearray())

    async def download_to(self, path: Path) -> None:
        """Download the file into ``path``: streamed in chunks on the bot's own
        transport (a large upload never sits in memory whole), else as PTB does it (a
        local Bot API server's file path)."""

        async def into(file: File) -> None:
            request = file.get_bot().request
            url = file.file_path or ""
            if isinstance(request, AiohttpRequest) and url.startswith(("https://", "http://")):
                await request.download_to(url, path, limit=submit.MAX_DOWNLOAD)
            else:
                await file.download_to_drive(path)

        await self._fetched(into)

    async def _fetched(self, fetch: Callable[[File], Awaitable[_T]]) -> _T:
        submit.check_size(self.document.file_size)
        attempt = 0
        while True:
            attempt += 1
            try:
                file = await self.document.get_file()
                submit.check_size(file.file_size)
                return await fetch(file)
            except (BadRequest, InvalidToken) as exc:  # refused: trying again cannot help
                # (PTB reads a download's 404 as InvalidToken)
                if any(s in str(exc).lower() for s in ("too big", "larger than")):
                    raise UserError("too_big_unsized") from exc
                raise UserError("download_failed") from exc
            except NetworkError as exc:
                if attempt == DOWNLOAD_TRIES:
                    raise UserError("download_failed") from exc
                log.info("download failed, trying again", extra={"error": str(exc)})
                await asyncio.sleep(attempt)

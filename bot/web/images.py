"""The link previews' images (a result's card, a board's image), kept by the digest of
what they show: in memory (the most recently used, up to a byte budget) and on disk (a
restart, or another process on the same data folder, draws nothing twice). A digest
names exactly one picture, so a kept image is never stale: what changes (a rank, a
score, the day) makes another digest."""

from __future__ import annotations

import logging
import os
import re
import tempfile
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path

log = logging.getLogger("benchboard.web")

#: Bytes of images kept in memory.
MEMORY_BYTES = 32 << 20
_KEY = re.compile(r"[0-9a-f]{16,64}")


class ImageCache:
    """PNG bytes by key (a hex digest); ``folder`` None: memory only."""

    def __init__(self, folder: Path | None, budget: int = MEMORY_BYTES) -> None:
        self.folder = folder
        self.budget = budget
        self.kept: OrderedDict[str, bytes] = OrderedDict()
        self.size = 0
        #: the milliseconds each image drawn here took (the first render's cost)
        self.drawn_ms: list[float] = []

    def get(self, key: str) -> bytes | None:
        found = self.kept.get(key)
        if found is not None:
            self.kept.move_to_end(key)
            return found
        path = self._path(key)
        if path is None:
            return None
        try:
            found = path.read_bytes()
        except OSError:
            return None
        self._keep(key, found)
        return found

    def put(self, key: str, data: bytes) -> None:
        self._keep(key, data)
        path = self._path(key)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, path)
        except OSError as exc:  # a read-only data folder: memory only
            log.warning("a preview image was not kept on disk: %s", exc)

    async def fetch(self, key: str, draw: Callable[[], Awaitable[bytes]]) -> bytes:
        """The image ``key`` names: kept, or drawn now (and kept)."""
        found = self.get(key)
        if found is not None:
            return found
        started = time.perf_counter()
        found = await draw()
        took = (time.perf_counter() - started) * 1000
        self.drawn_ms = [*self.drawn_ms[-99:], took]
        log.info("preview image drawn in %.0f ms (%d bytes)", took, len(found))
        self.put(key, found)
        return found

    def _keep(self, key: str, data: bytes) -> None:
        old = self.kept.pop(key, None)
        self.size -= len(old) if old is not None else 0
        self.kept[key] = data
        self.size += len(data)
        while self.size > self.budget and len(self.kept) > 1:
            self.size -= len(self.kept.popitem(last=False)[1])

    def _path(self, key: str) -> Path | None:
        if self.folder is None or not _KEY.fullmatch(key):
            return None
        return self.folder / key[:2] / f"{key}.png"

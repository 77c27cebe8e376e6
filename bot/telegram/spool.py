"""Webhook updates kept on disk while the database does not answer.

Telegram gives up on an update its webhook refused "after a reasonable amount of
attempts", and delivers the next ones only after it: answering 503 through an outage
would hold every user up and, past a few minutes, lose their updates. So an update the
database cannot admit is appended to a file of this process's own in
``<data dir>/spool/`` (written and synced before the 200), and admitted into the intake
once the database answers again (:meth:`Spool.drain`, after a probe answered and at
start, for what a stopped process left). Admitting is idempotent on the update id, so
an update both spooled and committed is handled once.

Several processes may share the folder: a file is taken by renaming it, so each is
drained by one of them; a writer appends under an exclusive ``flock`` to the file it
finds at its path, and the taker reads a file only once it holds that lock, so no line
lands in a file already read. A taken file still there :data:`ABANDONED` seconds later
belongs to a process that stopped while draining it: any process takes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import os
import secrets
import time
from pathlib import Path
from typing import Any

log = logging.getLogger("benchboard.spool")

#: The file suffixes: being written, and taken by a process draining it.
OPEN = ".jsonl"
TAKEN = ".draining"
#: Seconds after which a file taken by another process and still there is taken again.
ABANDONED = 120.0


class Spool:
    """The updates of one process waiting on disk for the database."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.name = secrets.token_hex(6)
        self._lock = asyncio.Lock()  # one writer of the file, one drain at a time
        self.count = 0  # updates written and not drained yet

    @property
    def path(self) -> Path:
        return self.folder / f"{self.name}{OPEN}"

    async def add(self, data: Any) -> None:
        """Append ``data`` and sync it to disk (an ``OSError``: not kept)."""
        line = json.dumps(data, separators=(",", ":")) + "\n"
        async with self._lock:
            await asyncio.to_thread(self._append, line.encode())
            self.count += 1

    def _append(self, line: bytes) -> None:
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        while True:
            # users' messages: readable by the bot's user only, as the database is
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            with os.fdopen(fd, "ab") as f:
                fcntl.flock(f, fcntl.LOCK_EX)
                try:
                    here = os.stat(self.path).st_ino
                except FileNotFoundError:
                    here = None
                if here != os.fstat(f.fileno()).st_ino:
                    continue  # taken (renamed) since it was opened: a new file
                f.write(line)
                f.flush()
                os.fsync(f.fileno())
                return

    def pending(self) -> bool:
        """Any file to drain (this process's, or one a stopped process left)."""
        return self.count > 0 or (self.folder.is_dir() and any(self.folder.glob(f"*{OPEN}")))

    async def take(self) -> list[tuple[Path, list[Any]]]:
        """The spooled files, each renamed as this process's to drain, with their
        updates (a line cut short by a crash is skipped)."""
        async with self._lock:
            self.count = 0
            return await asyncio.to_thread(self._take)

    def _take(self) -> list[tuple[Path, list[Any]]]:
        if not self.folder.is_dir():
            return []
        taken = []
        now = time.time()
        for path in sorted(self.folder.iterdir()):
            if path.suffix == TAKEN:
                ours = path.name.startswith(f"{self.name}.")
                with contextlib.suppress(FileNotFoundError):
                    if not ours and now - path.stat().st_ctime < ABANDONED:
                        continue  # another process drains it now
            elif path.suffix != OPEN:
                continue
            mine = self.folder / f"{self.name}.{path.name.split('.', 1)[0]}{TAKEN}"
            if mine != path:
                try:
                    path.rename(mine)
                except FileNotFoundError:
                    continue  # another process took it
            try:
                with mine.open("rb") as f:
                    fcntl.flock(f, fcntl.LOCK_EX)  # a line being written is in first
                    raw = f.read()
            except FileNotFoundError:
                continue  # taken again by a process that found it abandoned
            updates = []
            for line in raw.splitlines():
                with contextlib.suppress(ValueError):
                    updates.append(json.loads(line))
            taken.append((mine, updates))
        return taken

    @staticmethod
    def done(path: Path) -> None:
        """Every update of ``path`` is admitted: the file goes."""
        with contextlib.suppress(FileNotFoundError):
            path.unlink()

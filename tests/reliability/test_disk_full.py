"""The SQLite database on a disk that is nearly full (a small tmpfs of the test's own):
an upload too big for the room left is not answered "busy" or "nothing was saved"; its
user is told once that the disk is full, the admins are told, and once there is room
again the upload is handled (scored, stored, answered) without being sent again."""

from __future__ import annotations

import base64
import contextlib
import os
import random
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.botapi import FakeBotAPI
from tests.e2e.botkit import KEY, answers, text_of
from tests.e2e.harness import running_bot
from tests.reliability.burst import NOTHING_SAVED, SCORE, wait

MOUNT_SKIP = (
    "needs a small filesystem of its own: run the tests as root where `mount -t tmpfs` "
    "is allowed (a container needs CAP_SYS_ADMIN)"
)
DISK_MB = 24
ROOM = 256 * 1024  # bytes left free: room for an update, not for the upload
ADMIN = 96_001


@contextlib.contextmanager
def small_disk(path: Path, megabytes: int) -> Iterator[Path]:
    path.mkdir()
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={megabytes}m,mode=0700", "tmpfs", str(path)],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        pytest.skip(MOUNT_SKIP)
    if done.returncode != 0:
        pytest.skip(f"{MOUNT_SKIP} ({done.stderr.decode(errors='replace').strip()})")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True, timeout=30, check=False)


def fill(disk: Path, *, leave: int) -> Path:
    """A file taking all the room on ``disk`` but ``leave`` bytes."""
    filler = disk / "filler"
    chunk = b"\0" * (1 << 16)
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        with contextlib.suppress(OSError):  # ENOSPC: full
            while os.write(fd, chunk):
                pass
        size = os.fstat(fd).st_size
        os.ftruncate(fd, max(0, size - leave))
    finally:
        os.close(fd)
    return filler


def upload_size(db: Path) -> int:
    """Bigger than the room left, and than any WAL the store could write it into."""
    wal = Path(f"{db}-wal")
    return max(4 << 20, 2 * ((wal.stat().st_size if wal.exists() else 0) + ROOM))


def noise(size: int) -> list[str]:
    """Lines that do not compress (the store keeps the upload compressed)."""
    rng = random.Random(5)
    raw = rng.randbytes(size * 3 // 4)
    text = base64.b64encode(raw).decode()
    return [text[i : i + 76] for i in range(0, len(text), 76)]


async def test_a_full_disk_is_named_and_the_upload_is_handled_once_there_is_room(
    tmp_path: Path,
) -> None:
    with small_disk(tmp_path / "small", DISK_MB) as disk:
        db = disk / "benchboard.sqlite3"
        env = {"BENCHBOARD_DB": str(db), "BENCHBOARD_ADMINS": str(ADMIN)}
        async with FakeBotAPI() as api, running_bot(api, tmp_path, key=KEY, env=env):
            admin = api.user(ADMIN, "Admin")
            admin_chat = api.private_chat(admin)
            user = api.user(96_002, "Full")
            chat = api.private_chat(user)
            first = "\n".join(["model: small", *answers(KEY, correct=3)])
            reply = await api.reply_to(await api.send_text(chat, user, first), timeout=30)
            assert "Correct: 3" in text_of(reply)

            size = upload_size(db)
            filler = fill(disk, leave=ROOM)
            upload = "\n".join(["model: big", *answers(KEY, correct=5), *noise(size)])
            await api.send_document(chat, user, upload.encode(), "run.txt")

            def texts() -> list[str]:
                return [str(m.get("text") or "") for m in api.messages_in(chat["id"])]

            await wait(lambda: any("disk is full" in t for t in texts()), 60, "the note")
            await wait(
                lambda: any(
                    "disk is full" in str(m.get("text")) for m in api.messages_in(admin_chat["id"])
                ),
                30,
                "the admins told",
            )
            assert not any(NOTHING_SAVED in t or "busy" in t for t in texts()), texts()
            assert sum(SCORE in t for t in texts()) == 1  # not scored yet

            filler.unlink()  # room again
            await wait(lambda: sum(SCORE in t for t in texts()) == 2, 60, "the upload answered")
            assert any("Correct: 5" in t for t in texts())
            assert sum("taking longer than usual" in t for t in texts()) == 1, texts()
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
                assert con.execute("SELECT count(*) FROM submissions").fetchone()[0] == 2

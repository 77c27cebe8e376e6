"""The webhook spool (``bot/telegram/spool.py``) on a real folder: every update written
is taken exactly once, by whichever of two processes sharing the folder takes it, and
a file taken by a process that stopped is taken again later."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.telegram import spool as spool_module
from bot.telegram.spool import Spool


def _ids(taken: list[tuple[Path, list[dict[str, int]]]]) -> list[int]:
    return sorted(u["update_id"] for _, updates in taken for u in updates)


async def test_each_update_is_taken_once_across_two_spools(tmp_path: Path) -> None:
    one, two = Spool(tmp_path), Spool(tmp_path)
    for n in range(3):
        await one.add({"update_id": n})
    await two.add({"update_id": 10})
    assert one.pending() and two.pending()
    # the other process takes everything, this one's open file too
    taken = await two.take()
    assert _ids(taken) == [0, 1, 2, 10]
    # this one goes on writing: into a new file, not the one taken
    await one.add({"update_id": 3})
    for path, _ in taken:
        Spool.done(path)
    assert _ids(await two.take()) == [3]
    assert _ids(await one.take()) == []


async def test_a_file_left_while_draining_is_taken_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stopped, other = Spool(tmp_path), Spool(tmp_path)
    await stopped.add({"update_id": 1})
    assert _ids(await stopped.take()) == [1]  # then it stopped before done()
    assert _ids(await other.take()) == []  # being drained, for all it knows
    monkeypatch.setattr(spool_module, "ABANDONED", 0.0)
    taken = await other.take()
    assert _ids(taken) == [1]
    for path, _ in taken:
        Spool.done(path)
    assert not one_left(tmp_path)


def one_left(folder: Path) -> list[Path]:
    return list(folder.iterdir())


async def test_spooled_messages_are_readable_by_the_bot_only(tmp_path: Path) -> None:
    import os
    import stat

    old = os.umask(0o022)  # as in a container without the unit's UMask
    try:
        spool = Spool(tmp_path / "spool")
        await spool.add({"update_id": 1, "message": {"text": "private"}})
    finally:
        os.umask(old)
    assert stat.S_IMODE(spool.path.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "spool").stat().st_mode) == 0o700

"""The use-case tests' databases start as a freshly migrated one: the emptied
PostgreSQL schema (``conftest._emptied``) holds nothing of an earlier test, and its ids
start again from 1."""

from __future__ import annotations

from pathlib import Path

from storage import Store
from tests.storage.helpers import PRIME, FakeClock, Maker, answers

from .conftest import _emptied

ENGINES = ("postgresql",)
KEY = b"1:1\n2:2\n"


async def test_an_emptied_schema_is_a_fresh_one(db_path: Path, clock: FakeClock) -> None:
    async def fill() -> tuple[int, int]:
        async with await Store.open(db_path, clock=clock) as store:
            key = await store.save_key("primebench", KEY, source="t")
            make = Maker(key=PRIME.load_key(KEY), key_id=key.id)
            sub = await store.record_submission(make(answers(1, 2), user_id=7))
            await store.publish(sub.id)
            await store.ban(8, by=1)
            await store.link("result", sub.id)
            return key.id, sub.id

    assert await fill() == (1, 1)
    _emptied(str(db_path))
    async with await Store.open(db_path, clock=clock) as store:
        assert await store.count_history(7) == 0
        assert await store.key_versions("primebench") == []
        assert (await store.leaderboard("primebench")).total == 0
        assert await store.is_banned(8) is None and await store.audit_log() == []
    assert await fill() == (1, 1)

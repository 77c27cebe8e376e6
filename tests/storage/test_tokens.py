"""Personal API tokens (kept as hashes), idempotent API requests, the rate per token."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import pytest

from storage import InvalidData, Store
from tests.storage.helpers import FakeClock


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def _user(store: Store, user_id: int = 42) -> int:
    await store.upsert_user(
        user_id, first_name="Ada", last_name=None, username=None, language_code="en"
    )
    return user_id


async def test_a_token_is_found_by_its_hash_until_revoked(store: Store, clock: FakeClock) -> None:
    uid = await _user(store)
    made = await store.add_api_token(uid, _hash("first"))
    second = await store.add_api_token(uid, _hash("second"))
    assert made.user_id == uid and made.last_used_at is None and made.revoked_at is None
    assert [t.id for t in await store.api_tokens(uid)] == [made.id, second.id]

    found = await store.api_token_owner(_hash("first"))
    assert found is not None and found.id == made.id and found.user_id == uid
    assert await store.api_token_owner(_hash("made up")) is None
    assert await store.api_token_owner("not a hash") is None
    # the first use is noted
    listed = {t.id: t for t in await store.api_tokens(uid)}
    assert listed[made.id].last_used_at == clock.now
    assert listed[second.id].last_used_at is None

    assert await store.revoke_api_tokens(uid) == 2
    assert await store.revoke_api_tokens(uid) == 0
    assert await store.api_token_owner(_hash("first")) is None
    assert await store.api_tokens(uid) == []


async def test_last_use_is_written_at_most_once_a_minute(store: Store, clock: FakeClock) -> None:
    uid = await _user(store)
    await store.add_api_token(uid, _hash("t"))
    await store.api_token_owner(_hash("t"))
    first = clock.now
    clock.advance(seconds=30)
    await store.api_token_owner(_hash("t"))
    assert (await store.api_tokens(uid))[0].last_used_at == first
    clock.advance(seconds=31)
    await store.api_token_owner(_hash("t"))
    assert (await store.api_tokens(uid))[0].last_used_at == clock.now


async def test_only_hashes_are_kept(store: Store) -> None:
    uid = await _user(store)
    with pytest.raises(InvalidData):
        await store.add_api_token(uid, "plain-token-" + "x" * 52)
    await store.add_api_token(uid, _hash("secret-token"))
    async with store.db.read() as s:
        rows = await s.all("SELECT hash FROM api_tokens")
    assert [r[0] for r in rows] == [_hash("secret-token")]


async def test_an_idempotency_key_returns_the_first_request(
    db_path: Path, clock: FakeClock, store: Store
) -> None:
    uid = await _user(store)
    other_user = await _user(store, 43)
    first = await store.api_request(uid, "run-1")
    assert first.created and first.message_id == -first.id
    again = await store.api_request(uid, "run-1")
    assert not again.created and again.id == first.id
    # another owner's same key is another request; no key: always a new one
    assert (await store.api_request(other_user, "run-1")).id != first.id
    plain = [await store.api_request(uid, None) for _ in range(2)]
    assert all(p.created for p in plain) and plain[0].id != plain[1].id
    # another instance (and a restart) sees the same
    other = await Store.open(db_path, clock=clock)
    try:
        assert (await other.api_request(uid, "run-1")).id == first.id
        racing = await asyncio.gather(
            store.api_request(uid, "run-2"), other.api_request(uid, "run-2")
        )
        assert racing[0].id == racing[1].id
        assert sorted(r.created for r in racing) == [False, True]
    finally:
        await other.close()
    with pytest.raises(InvalidData):
        await store.api_request(uid, "x" * 201)


async def test_the_rate_allows_a_burst_then_one_per_interval(
    db_path: Path, clock: FakeClock, store: Store
) -> None:
    other = await Store.open(db_path, clock=clock)
    try:
        # 3 at once, then one a second, counted across both instances
        waits = [
            await (store if i % 2 else other).take_rate("t1", interval_ms=1000, burst=3)
            for i in range(3)
        ]
        assert waits == [0, 0, 0]
        assert await other.take_rate("t1", interval_ms=1000, burst=3) == 1000
        assert await store.take_rate("t2", interval_ms=1000, burst=3) == 0  # its own
        clock.advance(seconds=0.4)
        assert await store.take_rate("t1", interval_ms=1000, burst=3) == 600
        clock.advance(seconds=0.6)
        assert await store.take_rate("t1", interval_ms=1000, burst=3) == 0
        assert await store.take_rate("t1", interval_ms=1000, burst=3) == 1000
        # idle for long: the whole burst again
        clock.advance(seconds=60)
        waits = [await store.take_rate("t1", interval_ms=1000, burst=3) for _ in range(4)]
        assert waits == [0, 0, 0, 1000]
    finally:
        await other.close()


async def test_a_message_handled_again_replaces_the_token_it_made(store: Store) -> None:
    """One live token per asking message: the same ``dedupe`` again revokes the one made
    for it before (its answer lost); another message makes another."""
    uid = await _user(store)
    first, replaced = await store.replace_api_token(uid, _hash("one"), dedupe="chat:42:7")
    assert not replaced
    again, replaced = await store.replace_api_token(uid, _hash("two"), dedupe="chat:42:7")
    assert replaced and again.id != first.id
    assert await store.api_token_owner(_hash("one")) is None
    assert [t.id for t in await store.api_tokens(uid)] == [again.id]
    other, replaced = await store.replace_api_token(uid, _hash("three"), dedupe="chat:42:8")
    assert not replaced
    assert [t.id for t in await store.api_tokens(uid)] == [again.id, other.id]
    # a token revoked since (/token revoke) is not brought back nor counted as replaced
    assert await store.revoke_api_tokens(uid) == 2
    _, replaced = await store.replace_api_token(uid, _hash("four"), dedupe="chat:42:8")
    assert not replaced and len(await store.api_tokens(uid)) == 1

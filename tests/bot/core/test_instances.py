"""Two instances of the bot on one PostgreSQL database: a key set on one is used by
the other, a model name asked on one is taken on the other, the send rate is shared."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.core import awaiting, keys
from bot.core.sendrate import SharedSendRate
from bot.core.services import Services
from bot.settings import Settings
from tests.storage.conftest import pg_database
from tests.storage.helpers import key_bytes
from tests.storage.pg import pg_schema_url
from tests.storage.test_analytics import FIELDS, NAME

__all__ = ["pg_database"]


@pytest.fixture
def pg_url(pg_database: str) -> Iterator[str]:
    with pg_schema_url(pg_database) as url:
        yield url


async def _instance(url: str, data_dir: Path) -> Services:
    """Services as the bot opens them: the keys loaded (and followed)."""
    settings = Settings(db=url, data_dir=data_dir, fetch_on_start=False)
    services = await Services.open(settings, worker=True)
    await keys.load_keys(services)
    return services


async def test_a_key_set_on_one_instance_is_used_by_the_other(pg_url: str, tmp_path: Path) -> None:
    one, two = await _instance(pg_url, tmp_path), await _instance(pg_url, tmp_path)
    try:
        assert "primebench" not in two.keys
        loaded = await keys.load_key(one, "primebench", key_bytes(3), "test")
        for _ in range(100):
            if "primebench" in two.keys:
                break
            await asyncio.sleep(0.05)
        assert two.keys["primebench"].version.id == loaded.version.id
        newer = await keys.load_key(one, "primebench", key_bytes(4), "test")
        for _ in range(100):
            if two.keys["primebench"].version.id == newer.version.id:
                break
            await asyncio.sleep(0.05)
        assert two.keys["primebench"].version.version == 2
    finally:
        await one.close()
        await two.close()


async def test_the_model_name_asked_on_one_instance_is_taken_on_the_other(
    pg_url: str, tmp_path: Path
) -> None:
    one, two = await _instance(pg_url, tmp_path), await _instance(pg_url, tmp_path)
    try:
        asked = awaiting.AwaitedModel(submission_id=5, chat_id=9, card_id=10, prompt_id=11)
        await awaiting.expect_model(one, 42, asked)
        assert await awaiting.awaited_model(two, 42) == asked
        assert await awaiting.take_model(two, 42, asked)
        assert not await awaiting.take_model(one, 42, asked)
        assert await awaiting.awaited_model(one, 42) is None
    finally:
        await one.close()
        await two.close()


async def test_the_send_rate_holds_across_instances(pg_url: str, tmp_path: Path) -> None:
    one, two = await _instance(pg_url, tmp_path), await _instance(pg_url, tmp_path)
    try:
        limits = [SharedSendRate(s, overall=50, group=0) for s in (one, two)]
        started = time.monotonic()
        await asyncio.gather(*(limits[i % 2]("sendMessage", 1) for i in range(40)))
        # 40 calls at 50 a second from two instances together: no sooner than ~0.78 s
        assert time.monotonic() - started >= 0.7
    finally:
        await one.close()
        await two.close()


async def test_the_nightly_backup_runs_on_one_instance(pg_url: str, tmp_path: Path) -> None:
    from types import SimpleNamespace

    from bot.telegram import ops
    from bot.telegram.context import SERVICES

    instances = [await _instance(pg_url, tmp_path / f"i{i}") for i in range(3)]
    try:
        contexts = [SimpleNamespace(bot_data={SERVICES: s}) for s in instances]
        await asyncio.gather(*(ops.nightly_backup(c) for c in contexts))  # type: ignore[arg-type]
        written = [p for i in range(3) for p in (tmp_path / f"i{i}" / "backups").glob("*")]
        assert len(written) == 1, written
    finally:
        for s in instances:
            await s.close()


async def test_instances_turning_the_day_at_once_turn_it_once(pg_url: str, tmp_path: Path) -> None:
    """The day's turn runs on every instance at midnight: the Natory span lines move
    once, as one instance alone would move them."""
    from types import SimpleNamespace

    from bot.telegram import ops
    from bot.telegram.context import SERVICES
    from storage import analytics
    from tests.storage.test_analytics import put_natory

    instances = [await _instance(pg_url, tmp_path / f"i{i}") for i in range(3)]
    try:
        store = instances[0].store
        for model in ("Alpha", "Beta", "Gamma"):
            await put_natory(store, "2*5^5+6", model=model)
        async with store.db.write() as s:  # as if the last publication was yesterday
            await s.execute("UPDATE challenge_span_days SET from_day = from_day - 1")
            await s.execute("UPDATE challenge_spans SET valid = valid + 5")
        contexts = [SimpleNamespace(bot_data={SERVICES: s}) for s in instances]
        await asyncio.gather(*(ops.turn_day(c) for c in contexts))  # type: ignore[arg-type]
        async with store.db.read() as s:
            spans = await s.all("SELECT span, from_day FROM challenge_span_days ORDER BY span")
            lines = await s.all("SELECT span, model_norm, valid FROM challenge_spans ORDER BY 1, 2")
        today = int(time.time() * 1000) // 86_400_000
        assert [tuple(r) for r in spans] == [(7, today - 6), (30, today - 29)]
        assert [tuple(r) for r in lines] == [
            (span, model, 1) for span in (7, 30) for model in ("alpha", "beta", "gamma")
        ]
        since = int(time.time() * 1000) - 7 * 86_400_000
        board = await analytics.challenge_board(store, NAME, FIELDS, since_ms=since)
        assert [(r.model, r.valid) for r in board.rows] == [("Alpha", 1), ("Beta", 1), ("Gamma", 1)]
    finally:
        for s in instances:
            await s.close()


async def test_a_rescore_on_postgresql_leaves_the_boards_readable(pg_url: str) -> None:
    from bot.core.rescore import rescore
    from storage import Store
    from tests.storage.helpers import PRIME, FakeClock, Maker, answers

    clock = FakeClock()
    store = await Store.open(pg_url, clock=clock)
    try:
        key = await store.save_key("primebench", key_bytes(1), source="t")
        make = Maker(key=PRIME.load_key(key_bytes(1)), key_id=key.id)
        subs = [
            make(answers(*[(q + i) % 4 + 1 for q in range(20)]), model=f"m{i % 7}", user_id=i)
            for i in range(400)
        ]
        assert await store.record_many(subs, publish=True) == 400
        await store.save_key("primebench", key_bytes(2), source="t")
        reads: list[float] = []
        seen_rescoring = False

        async def read_boards() -> None:
            nonlocal seen_rescoring
            while True:
                started = time.monotonic()
                board = await store.leaderboard("primebench", days=30)
                reads.append(time.monotonic() - started)
                seen_rescoring |= board.rescoring
                await asyncio.sleep(0)

        reader = asyncio.create_task(read_boards())
        report = await rescore(store, "primebench", batch_size=25, workers=1)
        reader.cancel()
        assert report.rescored == 400 and report.batches == 16
        assert seen_rescoring and len(reads) >= 4 and max(reads) < 2.0
        board = await store.leaderboard("primebench")
        assert not board.rescoring and board.key_version == 2
        before = [(r.model, r.best, r.runs) for r in board.rows]
        await store.rebuild_boards()
        after = await store.leaderboard("primebench")
        assert [(r.model, r.best, r.runs) for r in after.rows] == before
    finally:
        await store.close()


async def test_a_move_to_postgresql_keeps_the_signing_key(pg_url: str, tmp_path: Path) -> None:
    """An SQLite deployment moved to PostgreSQL (``db port``) and started there on its
    data folder signs with the key it had: the records signed before still verify. A
    later instance without that file signs with the same key too."""
    from bot.core import signing

    before = signing.file_key(tmp_path / signing.KEY_FILE)  # the SQLite deployment's
    one = await _instance(pg_url, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    two = await _instance(pg_url, elsewhere)
    try:
        for services in (one, two):
            key = await signing.load(services)
            assert signing.public_bytes(key) == signing.public_bytes(before)
    finally:
        await one.close()
        await two.close()

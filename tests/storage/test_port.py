"""Porting a database to the other engine, and PostgreSQL's backup (a port into an
SQLite file)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from storage import NotAllowed, Store
from storage.port import NOT_COPIED, TABLES, board_checksums, port
from storage.runs import NewRun
from tests.storage.helpers import PRIME, FakeClock, Maker, answers, key_bytes
from tests.storage.pg import pg_schema_url
from tests.storage.test_analytics import put_natory


async def fill(store: Store, make: Maker, clock: FakeClock) -> None:
    """Something in every table."""
    await store.upsert_user(1, first_name="A", last_name=None, username="a", language_code="fa")
    await store.upsert_chat(-5, type="group", title="G")
    for q in range(1, 30):
        sub = await store.record_submission(
            make(answers(*[q % 4 + 1] * (q % 7 + 1)), chat_id=-5 if q % 2 else 1)
        )
        await store.set_model(sub.id, f"model {q % 5}")
        await store.set_mode(sub.id, ("default", "think")[q % 2])
        if q % 3:
            await store.publish(sub.id)
        clock.advance(hours=7)
    await put_natory(store, "2*sopfr(6)^5+6", cost=0.01)  # a Natory board line
    await store.add_reference("primebench", model="ref", mode="think", score=3.0, source="paper")
    await store.ban(77, by=1, reason="spam")
    await store.log_action(1, "hide", "3", chat_id=-5, reason="why")
    await store.admit([(10, '{"update_id": 10}'), (11, '{"update_id": 11}')])
    await store.finish(10)
    await store.link("result", 2)
    await store.link("group", -5)
    await store.set_card_theme(1, "dark")
    await store.save_card_file("card:2:dark", "AgACAgQAAxkBAAIB")
    await store.save_definition("tinymcq", "choice", '{"name": "tinymcq"}', b"1:2\n", source="t")
    await store.add_api_token(1, "ab" * 32)
    await store.api_request(1, "run-1")
    private = await store.record_submission(
        make(answers(1, 2), message_id=8888, extra={"trust": {"answers": "1,2", "bands": [5, 6]}})
    )
    await store.set_model(private.id, "held")
    held = await store.set_mode(private.id, "default")
    await store.hold(held, '{"reason": "key"}')
    await store.set_notices(1, False)
    await store.add_sponsorship(
        user_id=1, benchmark="natory", target=21, name="A", link=None, stars=5, charge_id="c"
    )
    await store.add_run(NewRun("natory", "local/m1", "default", 1, "chat", target=21))
    await store.mark_benchboard(1)
    key = await store.current_key("primebench")
    assert key is not None
    job = await store.start_rescore("primebench", key_version_id=key.id, scorer_version="t")
    await store.finish_rescore(job)


@pytest.fixture
def other_url(pg_database: str) -> Iterator[str]:
    with pg_schema_url(pg_database) as url:
        yield url


@pytest.fixture
async def filled(
    tmp_path: Path, clock: FakeClock, other_url: str
) -> AsyncIterator[tuple[Store, Store, Maker]]:
    """An SQLite store with something in every table, an empty PostgreSQL one, and the
    maker of the SQLite store's submissions."""
    source = await Store.open(tmp_path / "bb.sqlite3", clock=clock)
    target = await Store.open(other_url, clock=clock)
    try:
        key = await source.save_key("primebench", key_bytes(1), source="t")
        make = Maker(key=PRIME.load_key(key_bytes(1)), key_id=key.id)
        await fill(source, make, clock)
        yield source, target, make
    finally:
        await source.close()
        await target.close()


async def test_sqlite_ports_to_postgresql_whole_and_verified(
    filled: tuple[Store, Store, Maker],
) -> None:
    source, target, make = filled
    report = await port(source, target, source_name="bb.sqlite3", batch=7)
    assert report.ok, report.mismatches
    assert [t.name for t in TABLES if not report.counts[t.name]] == []
    assert report.boards >= 5
    assert await board_checksums(source) == await board_checksums(target)
    assert (await target.current_key("primebench")) == (await source.current_key("primebench"))
    assert await target.raw_text(1) == await source.raw_text(1)
    # ids continue after the copied ones
    sub = await target.record_submission(make(answers(1), message_id=9999))
    assert sub.id == max(report.counts["submissions"], 29) + 1
    # run again: a finished port of the same source resumes (copies nothing new)
    again = await port(source, target, source_name="bb.sqlite3")
    assert again.resumed and sum(again.copied.values()) == 0
    # another source into a non-empty target: refused unless asked
    with pytest.raises(NotAllowed, match="not empty"):
        await port(source, target, source_name="other.sqlite3")


async def test_an_interrupted_port_resumes(filled: tuple[Store, Store, Maker]) -> None:
    source, target, _ = filled
    calls = 0

    def stop_midway(table: str, done: int) -> None:
        nonlocal calls
        calls += 1
        if table == "submissions" and done >= 10:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        await port(source, target, source_name="bb", batch=5, progress=stop_midway)
    report = await port(source, target, source_name="bb", batch=5)
    assert report.resumed and report.ok, report.mismatches
    assert report.copied["users"] == 0 and report.copied["submissions"] > 0


async def test_a_postgresql_backup_is_an_sqlite_file_that_ports_back(
    tmp_path: Path, clock: FakeClock, other_url: str, pg_database: str
) -> None:
    store = await Store.open(other_url, clock=clock)
    try:
        key = await store.save_key("primebench", key_bytes(1), source="t")
        await fill(store, Maker(key=PRIME.load_key(key_bytes(1)), key_id=key.id), clock)
        copy = tmp_path / "backups" / "b.sqlite3"
        await store.backup(copy)
        async with await Store.open(copy, clock=clock) as backup:
            assert await board_checksums(backup) == await board_checksums(store)
            with pg_schema_url(pg_database) as fresh_url:
                async with await Store.open(fresh_url, clock=clock) as fresh:
                    report = await port(backup, fresh, source_name=str(copy))
                    assert report.ok, report.mismatches
    finally:
        await store.close()


async def test_the_port_knows_every_table(tmp_path: Path, clock: FakeClock) -> None:
    """A table a migration adds is copied (TABLES) or said not to be (NOT_COPIED)."""
    async with await Store.open(tmp_path / "s.sqlite3", clock=clock) as store:
        rows = await store.db.run(
            lambda conn: conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            ).fetchall()
        )
    assert {r[0] for r in rows} == {t.name for t in TABLES} | set(NOT_COPIED)

"""Benchmarks defined by data, through ``bot.core.benchmarks`` on a real store: added,
scored from ``#tinymcq``, re-scored (in worker processes too) after a corrected key or
new points, read again by another process's services, refused without a change."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import pytest

import bot.core.rescore as rescore_module
from bot.core import admin, benchmarks, notices, offload, submit
from bot.core.admin import Actor
from bot.core.errors import UserError
from bot.core.offload import Worker
from bot.core.rescore import rescore
from bot.core.services import Services
from scoring import choice, registry
from scoring.errors import DefinitionError
from storage import Store

from .conftest import BOT_ADMIN, BOTH

ENGINES = BOTH

TINY = """name = "tinymcq"
title = "TinyMCQ"
kind = "choice"
options = 5
points = { right = 2, wrong = -1, none = 0 }
key = "1:3\\n2:1\\n3:5\\n4:2\\n"
"""
T = TypeVar("T")
ADMIN = Actor(BOT_ADMIN, BOT_ADMIN, in_group=False, bot_admin=True, group_admin=False)


@pytest.fixture(autouse=True)
def forget() -> Iterator[None]:
    """The registry is the process's: each test starts and ends without tinymcq."""
    registry.unregister("tinymcq")
    yield
    registry.unregister("tinymcq")


async def _submit(services: Services, text: str, message_id: int) -> tuple[int, float]:
    sub, _ = await submit.submit(services, text=text, user_id=1, chat_id=1, message_id=message_id)
    assert sub.benchmark == "tinymcq"
    return sub.id, sub.score


async def _score(services: Services, submission_id: int) -> float:
    sub = await services.store.get_submission(submission_id)
    assert sub is not None
    return sub.score


async def test_added_then_scored_and_rescored_on_a_corrected_key(services: Services) -> None:
    added = await benchmarks.add(services, choice.read_definition(TINY), source="t")
    assert (added.definition.version, added.key.version, added.pending) == (1, 1, 0)
    assert added.change == "new"
    assert registry.get("tinymcq") is added.benchmark
    sid, score = await _submit(services, "#tinymcq\n1:3\n2:4\n3:5\n4:none", 1)
    assert score == 3.0
    corrected = TINY.replace("2:1", "2:4")
    again = await benchmarks.add(services, choice.read_definition(corrected), source="fix")
    assert (again.definition.version, again.definition.created) == (1, False)
    assert (again.key.version, again.pending) == (2, 1)
    # the answer said "unchanged" here, while the key changed and a re-score was due
    assert again.change == "key" and again.key_changed
    report = await rescore(services.store, "tinymcq", workers=1)
    assert report.rescored == 1
    assert await _score(services, sid) == 2 + 2 + 2  # 2:4 is right now
    board = await services.store.leaderboard("tinymcq", limit=5)
    assert board.rows == ()  # nothing published; the stored score is the new one
    stored = (
        await services.store.submissions_of_user(1, benchmark="tinymcq")
        if hasattr(services.store, "submissions_of_user")
        else None
    )
    del stored
    assert (
        await services.store.pending_rescore(
            "tinymcq", scorer_version=again.benchmark.scorer_version
        )
        == 0
    )
    same = await benchmarks.add(services, choice.read_definition(corrected), source="fix")
    assert (same.change, same.key_changed, same.pending) == ("none", False, 0)
    # the first key again: no new version, but another key in use, and a re-score
    back = await benchmarks.add(services, choice.read_definition(TINY), source="back")
    assert (back.key.version, back.key.created, back.change, back.pending) == (1, False, "key", 1)


async def test_new_points_are_a_new_version_and_rescore_in_worker_processes(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    await benchmarks.add(services, choice.read_definition(TINY), source="t")
    ids = [(await _submit(services, f"#tinymcq\n1:3\n2:{1 + i}", 10 + i))[0] for i in range(6)]
    more = TINY.replace("right = 2", "right = 7")
    added = await benchmarks.add(services, choice.read_definition(more), source="t2")
    assert (added.definition.version, added.key.version, added.pending) == (2, 1, 6)
    assert added.change == "definition"
    both = more.replace("right = 7", "right = 8").replace("3:5", "3:4")
    changed = await benchmarks.add(services, choice.read_definition(both), source="t3")
    assert (changed.definition.version, changed.key.version, changed.change) == (3, 2, "both")
    added = await benchmarks.add(services, choice.read_definition(more), source="t2")
    assert (added.definition.version, added.key.version, added.change) == (4, 1, "both")
    monkeypatch.setattr(rescore_module, "_POOL_MIN_TEXTS", 1)
    report = await rescore(services.store, "tinymcq", workers=2)  # spawned processes
    assert report.rescored == 6
    # 1:3 right (+7); 2:1 right (+7), 2:2..2:6 wrong (-1)
    assert [await _score(services, i) for i in ids] == [14.0, 6.0, 6.0, 6.0, 6.0, 6.0]
    assert (
        await services.store.pending_rescore(
            "tinymcq", scorer_version=added.benchmark.scorer_version
        )
        == 0
    )


async def test_another_process_reads_them_and_refusals_change_nothing(
    services: Services,
) -> None:
    await benchmarks.add(services, choice.read_definition(TINY), source="t")
    registry.unregister("tinymcq")  # as a process that has not read them
    services.keys.pop("tinymcq")
    assert await benchmarks.refresh(services)
    assert registry.find("tinymcq") is not None and "tinymcq" in services.keys
    assert not await benchmarks.refresh(services)  # nothing new: one count, no reading
    stamp = await services.store.definitions_stamp()
    with pytest.raises(UserError) as refused:
        await benchmarks.add_upload(
            services, ADMIN, TINY.replace("3:5", "3:6").encode(), source="u"
        )
    assert refused.value.key == "bad_definition"
    clash = TINY.replace('"tinymcq"', '"natory"').encode()
    with pytest.raises(UserError) as taken:
        await benchmarks.add_upload(services, ADMIN, clash, source="u")
    assert "name: 'natory' is taken" in str(taken.value.values["reason"])
    user = Actor(5, 5, in_group=False, bot_admin=False, group_admin=False)
    with pytest.raises(UserError) as not_admin:
        await benchmarks.add_upload(services, user, TINY.encode(), source="u")
    assert not_admin.value.key == "not_admin"
    assert await services.store.definitions_stamp() == stamp


async def test_a_running_process_reads_another_ones_definition_within_a_while(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `benchboard web` beside the bot on one SQLite file: an admin's /benchmark add in
    # the bot reaches the web's /b/NAME without a restart
    await benchmarks.add(services, choice.read_definition(TINY), source="t")
    registry.unregister("tinymcq")  # as the other process, which has not read it
    services.keys.pop("tinymcq")
    monkeypatch.setattr(benchmarks, "REFRESH_S", 0.05)
    await benchmarks.follow(services)  # what that process started with
    for _ in range(100):
        if registry.find("tinymcq") is not None:
            break
        await asyncio.sleep(0.05)
    assert registry.find("tinymcq") is not None and "tinymcq" in services.keys


async def test_a_benchmark_another_process_defined_is_registered_with_its_key(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another bot instance registered the benchmark, then loaded its key: a message
    naming it in between (the new benchmark's first users) was answered "the key is not
    loaded yet, the admins have been told". The key is in use before the name is."""
    await benchmarks.add(services, choice.read_definition(TINY), source="t")
    registry.unregister("tinymcq")  # as the other instance, before it reads them
    services.keys.pop("tinymcq")
    keyed_when_registered: list[bool] = []
    register = registry.register

    def watched(benchmark: Any) -> None:
        keyed_when_registered.append(benchmark.name in services.keys)
        register(benchmark)

    monkeypatch.setattr(registry, "register", watched)
    assert await benchmarks.refresh(services)
    assert keyed_when_registered == [True]
    assert services.keys["tinymcq"].version.version == 1


async def test_a_tag_of_a_benchmark_another_process_just_defined_is_read(
    services: Services,
) -> None:
    """`benchboard benchmark add` beside the bot on SQLite: the first message tagged
    with the new benchmark was "unknown tag" for up to a minute (only instances on
    PostgreSQL read the definitions again for a tag they did not know)."""
    definition = choice.read_definition(TINY)
    # what the command line stores, from its own process (this one is not told)
    await services.store.save_definition(
        "tinymcq", definition.kind, definition.dumps(), definition.key, source="file t.toml"
    )
    assert registry.find("tinymcq") is None
    _, score = await _submit(services, "#tinymcq\n1:3\n2:1", 1)
    assert score == 2 + 2


async def test_a_running_process_uses_a_key_corrected_by_another_within_a_while(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``benchboard benchmark add`` with a corrected key beside the running bot (one
    SQLite file): the definition is unchanged, so no definition is stored and the count
    the bot watches stays; the bot scored with the old key until it was restarted."""
    await benchmarks.add(services, choice.read_definition(TINY), source="t")
    assert await benchmarks.refresh(services)  # this process is up to date
    corrected = choice.read_definition(TINY.replace("2:1", "2:4"))
    # what the command line stores, from its own process (this one is not told)
    await services.store.save_definition(
        "tinymcq", corrected.kind, corrected.dumps(), corrected.key, source="file t.toml"
    )
    assert services.keys["tinymcq"].version.version == 1
    monkeypatch.setattr(benchmarks, "REFRESH_S", 0.05)
    await benchmarks.follow(services)
    for _ in range(100):
        if services.keys["tinymcq"].version.version == 2:
            break
        await asyncio.sleep(0.05)
    assert services.keys["tinymcq"].version.version == 2
    _, score = await _submit(services, "#tinymcq\n1:3\n2:4", 1)
    assert score == 2 + 2  # 2:4 is right by the corrected key


async def test_a_name_of_the_bots_own_is_refused_and_changes_nothing(
    services: Services,
) -> None:
    """``top`` was accepted, but ``@bot top`` is inline mode's top five: the benchmark
    could never be reached there. Every word of the bot's own is refused so."""
    stamp = await services.store.definitions_stamp()
    for name, said in (
        ("top", "name: 'top' is the bot's own word: inline mode's keyword (@bot top) and "
                "a command (/top)"),
        ("leaderboard", "name: 'leaderboard' is the bot's own word: a command (/leaderboard)"),
        ("webhook", "name: 'webhook' is the bot's own word: a command-line command "
                    "(benchboard webhook)"),
    ):  # fmt: skip
        named = TINY.replace('"tinymcq"', f'"{name}"').encode()
        with pytest.raises(UserError) as refused:
            await benchmarks.add_upload(services, ADMIN, named, source="u")
        assert (refused.value.key, refused.value.values["reason"]) == ("bad_definition", said)
        with pytest.raises(DefinitionError, match=r"^name: "):  # the command line's way in
            await benchmarks.add(services, choice.read_definition(named), source="f")
        assert registry.find(name) is None
    assert await services.store.definitions_stamp() == stamp
    assert await services.store.definitions() == []


async def test_a_title_that_reads_as_another_benchmarks_is_refused(services: Services) -> None:
    """A second benchmark titled "PrimeBench" (or "TinyMCQ" again, a copied file with
    only its name changed) was accepted: its cards, boards and pages, which show the
    title and not the tag, passed for the other benchmark's."""
    await benchmarks.add(services, choice.read_definition(TINY), source="t")
    stamp = await services.store.definitions_stamp()
    for title, said in (
        ("PrimeBench", "'PrimeBench' reads as PrimeBench (#primebench)"),
        ("\u0420rime Bench", "'\u0420rime Bench' reads as PrimeBench (#primebench)"),  # Cyrillic
        ("ＺＥＲＯ-bench", "'ＺＥＲＯ-bench' reads as ZeroBench (#zerobench)"),
        ("Tiny MCQ", "'Tiny MCQ' reads as TinyMCQ (#tinymcq)"),
        ("Nat0ry", "'Nat0ry' reads as Natory (#natory)"),
    ):
        copied = TINY.replace('"tinymcq"', '"copied"').replace('"TinyMCQ"', f'"{title}"')
        with pytest.raises(UserError) as refused:
            await benchmarks.add_upload(services, ADMIN, copied.encode(), source="u")
        reason = refused.value.values["reason"]
        assert reason == f"title: {said}: a benchmark needs a title of its own"
        assert registry.find("copied") is None
    assert await services.store.definitions_stamp() == stamp
    # its own title again, and a title of its own, are fine
    renamed = TINY.replace('"TinyMCQ"', '"TinyMCQ (2026)"')
    again = await benchmarks.add(services, choice.read_definition(renamed), source="t")
    assert again.definition.version == 2 and again.benchmark.title == "TinyMCQ (2026)"


async def test_a_file_nested_too_deeply_is_refused_and_changes_nothing(
    services: Services,
) -> None:
    """Thousands of nested arrays or inline tables made tomllib raise RecursionError:
    the admin was told "Something went wrong". It is a refused file, named as such."""
    stamp = await services.store.definitions_stamp()
    for nested in ("[" * 3000 + "]" * 3000, "{a = " * 3000 + "1" + "}" * 3000):
        hostile = TINY.replace('key = "1:3\\n2:1\\n3:5\\n4:2\\n"', f"key = {nested}")
        assert hostile != TINY
        with pytest.raises(UserError) as refused:
            await benchmarks.add_upload(services, ADMIN, hostile.encode(), source="u")
        assert refused.value.key == "bad_definition"
        reason = refused.value.values["reason"]
        assert reason == "TOML: arrays or inline tables nested too deeply"
    assert await services.store.definitions_stamp() == stamp
    assert registry.find("tinymcq") is None


def _large(questions: int) -> bytes:
    """TINY with a key of ``questions`` lines, inline (as an upload holds it)."""
    key = "".join(f"{q}:{q % 5 + 1}\n" for q in range(1, questions + 1))
    return TINY.replace('key = "1:3\\n2:1\\n3:5\\n4:2\\n"', f'key = """\n{key}"""').encode()


async def test_a_large_definition_is_read_in_the_worker_and_nobody_waits(
    services: Services,
) -> None:
    """A definition with a key of 400,000 lines (3.5 MB) was read and checked on the
    event loop: another user's reply waited 2.5 s. A large one is read in the worker
    process now, as a large submission is scored; the event loop stays free."""
    services.worker = True  # as the bot's services
    data = _large(150_000)
    assert len(data) > 1_000_000
    try:
        added, late = await _timed(benchmarks.add_upload(services, ADMIN, data, source="big"))
    finally:
        if services.pool is not None:
            services.pool.close()
    assert max(late) < 0.3, f"the event loop was held {max(late):.2f} s"
    assert services.pool is not None and services.pool.started == 1  # read in the worker
    assert (added.definition.version, added.key.version) == (1, 1)
    loaded = services.keys["tinymcq"]
    assert loaded.version == added.key and len(loaded.key.answers) == 150_000
    assert registry.get("tinymcq") is added.benchmark
    # what the worker sent back is what reading it here makes
    assert loaded.key == added.benchmark.load_key(choice.read_definition(data).key)


async def test_another_instance_reads_a_large_key_off_the_event_loop(
    services: Services,
) -> None:
    """Another bot instance on the database reads the definition and its key when told
    (``refresh``): a key of many thousand lines is loaded in a thread there too."""
    await benchmarks.add(services, choice.read_definition(_large(150_000)), source="big")
    registry.unregister("tinymcq")  # as the other instance, before it reads them
    services.keys.pop("tinymcq")
    read, late = await _timed(benchmarks.refresh(services))
    assert read
    assert max(late) < 0.3, f"the event loop was held {max(late):.2f} s"
    assert len(services.keys["tinymcq"].key.answers) == 150_000


async def _timed(work: Coroutine[Any, Any, T]) -> tuple[T, list[float]]:
    """What ``work`` returns, and how late a task sleeping 10 ms at a time (another
    user's reply) woke each time while it ran."""
    loop = asyncio.get_running_loop()
    late: list[float] = []
    done = asyncio.Event()

    async def tick() -> None:
        while not done.is_set():
            start = loop.time()
            await asyncio.sleep(0.01)
            late.append(loop.time() - start - 0.01)

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.05)  # ticking before the work starts
    try:
        value = await work
    finally:
        done.set()
        await ticker
    return value, late


async def test_a_large_refused_definition_is_told_as_a_small_one(services: Services) -> None:
    """The refusal crosses from the worker process as it was made: field and reason."""
    services.worker = True
    data = _large(20_000).replace(b"20000:1\n", b"20000:9\n")
    assert len(data) > offload.OFFLOAD_BYTES
    stamp = await services.store.definitions_stamp()
    try:
        with pytest.raises(UserError) as refused:
            await benchmarks.add_upload(services, ADMIN, data, source="big")
    finally:
        if services.pool is not None:
            services.pool.close()
    assert services.pool is not None and services.pool.started == 1
    assert refused.value.key == "bad_definition"
    reason = refused.value.values["reason"]
    assert reason == "key: line 20000: the option must be 1 to 5: '20000:9'"
    assert await services.store.definitions_stamp() == stamp


async def test_a_small_definition_is_read_without_the_worker(services: Services) -> None:
    services.worker = True
    added = await benchmarks.add_upload(services, ADMIN, TINY.encode(), source="small")
    assert services.pool is None  # no process started for a few lines
    assert added.key.version == 1 and len(services.keys["tinymcq"].key.answers) == 4


async def test_a_worker_process_is_told_the_defined_benchmarks() -> None:
    """A large input is read and scored in a worker process: it knows ``#tinymcq``, and
    forgets it when this process does."""
    bench = choice.ChoiceBenchmark(choice.read_definition(TINY))
    worker = Worker()
    try:
        assert (await worker.run(30, offload.read_job, "#tinymcq\n1:3", "", None)).error
        registry.register(bench)
        reading = await worker.run(30, offload.read_job, "#tinymcq\n1:3", "", None)
        assert reading.benchmark == "tinymcq"
        key = bench.load_key(bench.definition.key)
        done = await worker.run(30, offload.score_text, "tinymcq", "1:3\n2:2", key, {})
        assert done.result.final_score == 2 - 1 and done.result.benchmark == "tinymcq"
        registry.unregister("tinymcq")
        assert (await worker.run(30, offload.read_job, "#tinymcq\n1:3", "", None)).error
    finally:
        worker.close()


async def test_a_corrected_key_added_elsewhere_is_used_by_a_running_process(
    services: Services, store: Any, db_path: Any, clock: Any
) -> None:
    """``benchboard benchmark add`` again with only the key corrected (the same options
    and points: no new definition version) while the bot runs: the bot scores with the
    corrected key from its next look on, not with the old one until a restart."""
    other = Services(settings=services.settings, store=await Store.open(db_path, clock=clock))
    try:
        await benchmarks.add(other, choice.read_definition(TINY), source="cli")
        assert await benchmarks.refresh(services)  # the bot's look: the benchmark is read
        assert services.keys["tinymcq"].version.version == 1
        _, first = await _submit(services, "#tinymcq\n1:3\n2:1\n3:5\n4:2", 1)
        corrected = TINY.replace("4:2", "4:3")
        added = await benchmarks.add(other, choice.read_definition(corrected), source="cli")
        assert (added.definition.version, added.key.version) == (1, 2)
        assert await benchmarks.refresh(services)  # the next look reads the new key
        assert services.keys["tinymcq"].version.version == 2
        _, second = await _submit(services, "#tinymcq\n1:3\n2:1\n3:5\n4:2", 2)
        assert (first, second) == (8, 5)  # 4:2 is wrong now: 3 x 2 - 1
    finally:
        await other.store.close()


async def test_what_was_scored_on_the_old_key_meanwhile_is_rescored(
    services: Services, store: Any, db_path: Any, clock: Any
) -> None:
    """The key corrected from the command line and its re-score done, the bot scores on
    the old key until its next look (up to a minute): at that look it re-scores what it
    scored meanwhile, once the command's re-score is done, and tells its owner."""
    other = Services(settings=services.settings, store=await Store.open(db_path, clock=clock))
    changed: list[str] = []
    services.key_changed = changed.append
    try:
        await benchmarks.add(other, choice.read_definition(TINY), source="cli")
        await benchmarks.refresh(services)
        assert changed == []  # a new benchmark: nothing scored on another key
        corrected = TINY.replace("4:2", "4:3")
        added = await benchmarks.add(other, choice.read_definition(corrected), source="cli")
        _, _, batch = await admin.rescore(other, admin.RescoreAsk(added.benchmark, 0, ()))
        await notices.leave(other, batch)
        sid, meanwhile = await _submit(
            services, "#tinymcq\nmodel: M\n#default\n1:3\n2:1\n3:5\n4:2", 1
        )
        await services.store.publish(sid)
        assert meanwhile == 8  # the old key's score
        assert await benchmarks.refresh(services)
        assert changed == ["tinymcq"]
        done = await admin.catch_up(services, "tinymcq", delay=0)
        assert done is not None and done.report.rescored == 1
        assert await _score(services, sid) == 5 and not await store.pending_rescore("tinymcq")
        (notice,) = done.notices.notices
        assert notice.user_id == 1 and (notice.changes[0].before, notice.changes[0].after) == (
            "+8",
            "+5",
        )
        assert await admin.catch_up(services, "tinymcq", delay=0) is None  # nothing left
    finally:
        await other.store.close()

"""Large uploads are worked on in the worker process: what is stored is what was sent,
errors read as for a small upload, and a job that overruns its time is stopped with its
process so the next heavy input does not wait behind it."""

from __future__ import annotations

import asyncio
import itertools
import os
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.core import offload, submit
from bot.core.errors import UserError
from bot.core.offload import OFFLOAD_BYTES, FileScore, Worker
from bot.core.services import LoadedKey, Services
from bot.core.tags import Spans
from bot.settings import Settings
from scoring import registry
from storage import Store
from tests.storage.helpers import key_bytes

PRIME = registry.get("primebench")
KEY = key_bytes(1)


@dataclass
class FileUpload:
    """An upload as ``bot.core.submit.Upload`` (no Telegram)."""

    data: bytes
    file_name: str | None = "run.txt"

    @property
    def file_size(self) -> int | None:
        return len(self.data)

    async def download(self) -> bytes:
        return self.data

    async def download_to(self, path: Path) -> None:
        with open(path, "wb") as file:  # noqa: ASYNC230 (a test's small file)
            file.write(self.data)


def long_output(lines: str = "\n") -> bytes:
    """A PrimeBench output well over the worker's threshold: prose, then the answers."""
    prose = f"The model weighs option three, \u06f1 and \u00e9.{lines}" * (OFFLOAD_BYTES // 20)
    answers = lines.join(KEY.decode().splitlines())
    return (prose + answers + lines).encode()


@pytest.fixture
async def services(store: Store, tmp_path: Path) -> AsyncIterator[Services]:
    version = await store.save_key("primebench", KEY, source="test")
    settings = Settings(data_dir=tmp_path / "data", fetch_on_start=False)
    services = Services(settings=settings, store=store, worker=True)
    services.keys["primebench"] = LoadedKey(version, PRIME.load_key(KEY))
    try:
        yield services
    finally:
        if services.pool is not None:
            services.pool.close()


async def submit_upload(
    services: Services, data: bytes, *, caption: str = "", message_id: int = 1
) -> tuple[int, Any]:
    sub, result = await submit.submit(
        services,
        text=None,
        upload=FileUpload(data),
        command_args=caption,
        user_id=7,
        chat_id=7,
        message_id=message_id,
    )
    return sub.id, result


async def test_an_offloaded_upload_is_stored_as_sent(services: Services) -> None:
    data = long_output()
    sub_id, result = await submit_upload(services, data, caption="#think model: Big One")
    assert services.pool is not None and services.pool.started == 1  # it went to the worker
    assert await services.store.raw_text(sub_id) == data.decode()
    text = data.decode()
    assert result.to_record() == PRIME.score(text, PRIME.load_key(KEY)).to_record()
    stored = await services.store.get_submission(sub_id)
    assert stored is not None
    assert (stored.model, stored.mode, stored.raw_chars) == ("Big One", "think", len(text))


async def test_an_offloaded_upload_reads_tags_and_line_breaks_as_a_small_one(
    services: Services,
) -> None:
    """Tag lines in the file are blanked, CRLF becomes LF: as for a pasted text."""
    data = b"#think\r\nmodel: Wide\r\n" + long_output("\r\n")
    sub_id, result = await submit_upload(services, data)
    expected = "\n\n" + long_output().decode()
    assert await services.store.raw_text(sub_id) == expected
    assert result.to_record() == PRIME.score(expected, PRIME.load_key(KEY)).to_record()
    stored = await services.store.get_submission(sub_id)
    assert stored is not None and (stored.model, stored.mode) == ("Wide", "think")


async def test_offloaded_errors_read_as_for_a_small_upload(services: Services) -> None:
    with pytest.raises(UserError) as bad:
        await submit_upload(services, long_output()[:-200] + b"\xff\xfe" + b"x" * 100)
    assert bad.value.key == "bad_encoding" and "offset" in str(bad.value.values["reason"])
    with pytest.raises(UserError) as tag:
        await submit_upload(services, long_output(), caption="#nosuchbench", message_id=2)
    assert tag.value.key == "unknown_tag" and tag.value.values["tag"] == "#nosuchbench"
    with pytest.raises(UserError) as empty:
        await submit_upload(services, b"#think\n" + b" \n" * OFFLOAD_BYTES, message_id=3)
    assert empty.value.key == "empty"


def slow_score_file(
    path: str, spans: Spans, name: str, key: Any, options: Mapping[str, Any]
) -> FileScore:
    time.sleep(60)
    raise AssertionError("not stopped")


async def test_a_timed_out_job_does_not_block_the_next_heavy_input(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert await services.offload(60, pow, 2, 2) == 4  # the worker is up
    real = offload.score_file
    monkeypatch.setattr(offload, "score_file", slow_score_file)
    monkeypatch.setattr(submit, "SCORE_TIMEOUT", 3.0)
    started = time.monotonic()
    with pytest.raises(UserError) as slow:
        await submit_upload(services, long_output())
    assert slow.value.key == "too_slow"
    assert services.pool is not None and services.pool.pid is None  # killed with its job
    monkeypatch.setattr(offload, "score_file", real)
    monkeypatch.setattr(submit, "SCORE_TIMEOUT", 60.0)
    sub_id, result = await submit_upload(services, long_output(), message_id=2)
    assert result is not None and services.pool.started == 2
    assert time.monotonic() - started < 30  # not behind the 60 s job
    assert await services.store.raw_text(sub_id) == long_output().decode()


async def test_a_worker_that_dies_is_replaced() -> None:
    worker = Worker()
    try:
        with pytest.raises(offload.WorkerLost):
            await worker.run(10, os._exit, 3)
        assert await worker.run(10, pow, 2, 10) == 1024
        assert worker.started == 2
    finally:
        worker.close()


class Awkward(Exception):
    def __init__(self, a: int, b: int) -> None:
        super().__init__(f"{a}/{b}")


def raise_awkward() -> None:
    raise Awkward(1, 2)


async def test_errors_cross_from_the_worker() -> None:
    worker = Worker()
    try:
        with pytest.raises(ZeroDivisionError):
            await worker.run(10, divmod, 1, 0)
        with pytest.raises(RuntimeError, match="Awkward: 1/2"):  # does not unpickle as is
            await worker.run(10, raise_awkward)
        assert await worker.run(10, pow, 3, 2) == 9
        assert worker.started == 1
    finally:
        worker.close()


# --- fair to every user --------------------------------------------------------------


def nap(seconds: float) -> tuple[float, float]:
    """A job of ``seconds`` in the worker: when it started and ended (wall clock)."""
    start = time.time()
    time.sleep(seconds)
    return start, time.time()


async def test_one_users_heavy_jobs_do_not_hold_every_process() -> None:
    """Alice's four long jobs run one after another in one process; Bob's job, sent
    after them all, takes the other process at once instead of waiting behind them."""
    worker = Worker(processes=2)
    alice: list[asyncio.Task[tuple[float, float]]] = []
    try:
        await asyncio.gather(worker.run(30, pow, 2, 2), worker.run(30, pow, 2, 3, owner="b"))
        assert worker.started == 2  # both processes up: start-up time is not measured
        alice = [asyncio.create_task(worker.run(30, nap, 1.5, owner="alice")) for _ in range(4)]
        await asyncio.sleep(0.2)
        assert worker.busy == 1 and worker.queued("alice") == 3
        sent = time.time()
        bob = await worker.run(30, nap, 0.2, owner="bob")
        # its own 0.2 s and a margin; behind Alice's four it would be over 6 s
        assert bob[1] - sent < 2.5, bob[1] - sent
        spans = sorted(await asyncio.gather(*alice))
        assert bob[1] < spans[1][1]  # before Alice's second job ended
        for before, after in itertools.pairwise(spans):  # one of Alice's at a time
            assert after[0] >= before[1] - 0.05, spans
    finally:
        for task in alice:
            task.cancel()
        worker.close()


async def test_users_waiting_are_served_in_turn() -> None:
    """With one process busy, the waiting users are served round-robin: one who was
    just served goes behind those still waiting, whatever order the jobs came in."""
    worker = Worker(processes=1)
    done: list[str] = []
    tasks: list[asyncio.Task[None]] = []

    async def job(owner: str, name: str) -> None:
        await worker.run(30, pow, 2, 2, owner=owner)
        done.append(name)

    try:
        await worker.run(30, pow, 2, 2)  # the process is up
        first = asyncio.create_task(worker.run(30, nap, 0.5, owner="a"))
        await asyncio.sleep(0.1)
        names = ["a2", "a3", "a4", "b1", "b2", "c1"]
        tasks += [asyncio.create_task(job(name[0], name)) for name in names]
        await asyncio.sleep(0.1)
        assert worker.queued("a") == 3 and worker.queued("b") == 2
        await first
        await asyncio.gather(*tasks)
        assert done == ["b1", "c1", "a2", "b2", "a3", "a4"]
    finally:
        for task in tasks:
            task.cancel()
        worker.close()


async def test_a_waiting_job_given_up_leaves_the_queue() -> None:
    worker = Worker(processes=1)
    try:
        busy = asyncio.create_task(worker.run(30, nap, 0.5, owner="a"))
        await asyncio.sleep(0.1)
        waiting = asyncio.create_task(worker.run(30, pow, 2, 2, owner="b"))
        await asyncio.sleep(0.05)
        assert worker.queued("b") == 1
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert worker.queued("b") == 0
        await busy
        assert await worker.run(30, pow, 2, 5, owner="b") == 32
        assert worker.busy == 0 and not worker._served  # nothing kept of who was served
    finally:
        worker.close()

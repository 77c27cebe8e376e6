"""Heavy inputs beside light ones: the workload of ``tests/benchmarks/bench_heavy.py`` and
of the short check in ``test_heavy.py``.

One user uploads a large PrimeBench file and another a long ZeroBench JSONL; while the
bot works on them a third user sends a 104-line submission again and again, and each
reply's latency is measured.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.e2e.botapi import FakeBotAPI
from tests.e2e.harness import make_key

KEY = make_key()
#: ZeroBench key of the JSONL workload: ten main questions.
ZB_KEY = {str(q): str(q * 7) for q in range(1, 11)}


def write_zerobench_key(data_dir: Path) -> None:
    path = data_dir / "zerobench" / "key.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"zerobench": ZB_KEY, "zerobench_subquestions": {}}))


def primebench_file(size: int) -> bytes:
    """A valid PrimeBench output of ``size`` bytes: a model's long reasoning (plain
    prose), then its 104 answer lines."""
    answers = "".join(f"{q}:{o}\n" for q, o in KEY.items()).encode()
    prose = b"The model thinks about question seven and weighs option three. " * 4 + b"\n"
    filler = prose * ((size - len(answers)) // len(prose))
    return filler + answers


def zerobench_jsonl(lines: int) -> bytes:
    """``lines`` ZeroBench attempts spread over the key's questions."""
    out = []
    for n in range(lines):
        qid = str(n % 10 + 1)
        out.append(json.dumps({"question_id": qid, "response": f"So the answer is {{{n % 70}}}"}))
    return "\n".join(out).encode()


def probe_text() -> str:
    return "".join(f"{q}:{o}\n" for q, o in KEY.items())


def rss_kib(pid: int, field_name: str = "VmRSS") -> int:
    """A process's resident memory (``VmRSS``) or its peak (``VmHWM``), in KiB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field_name + ":"):
                return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except FileNotFoundError:
        return found
    for task in tasks:
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ValueError):
            continue
    return found


@dataclass
class HeavyRun:
    probes: list[float] = field(default_factory=list)
    #: probes answered while at least one heavy input was still being worked on
    during: int = 0
    heavy_seconds: list[float] = field(default_factory=list)
    heavy_replies: list[str] = field(default_factory=list)
    #: the bot's resident memory before the heavy inputs were sent
    idle_rss_kib: int = 0
    peak_rss_kib: int = 0
    peak_worker_rss_kib: int = 0

    @property
    def growth_kib(self) -> int:
        """How far the bot's peak rose above its idle memory."""
        return self.peak_rss_kib - self.idle_rss_kib

    def percentile(self, p: float) -> float:
        ordered = sorted(self.probes)
        return ordered[min(len(ordered) - 1, max(0, round(p * len(ordered)) - 1))]


async def heavy_run(
    api: FakeBotAPI,
    pid: int,
    *,
    upload_bytes: int,
    jsonl_lines: int,
    probes: int,
    gap: float = 0.1,
) -> HeavyRun:
    """Send the heavy inputs, then ``probes`` light submissions ``gap`` seconds apart,
    while the bot works; measure each probe's reply latency and the bot's memory."""
    run = HeavyRun(idle_rss_kib=rss_kib(pid))
    big = primebench_file(upload_bytes)
    jsonl = zerobench_jsonl(jsonl_lines) if jsonl_lines else b""
    heavy_user, zed_user = api.user(9101, "Heavy"), api.user(9102, "Zed")
    light_user = api.user(9103, "Light")
    light_chat = api.private_chat(light_user)
    worker_peak = 0
    stop = asyncio.Event()

    async def watch_memory() -> None:
        nonlocal worker_peak
        while not stop.is_set():
            for child in children(pid):
                worker_peak = max(worker_peak, rss_kib(child, "VmHWM"))
            await asyncio.sleep(0.05)

    watcher = asyncio.create_task(watch_memory())
    start = time.perf_counter()
    pending: list[asyncio.Task[None]] = []

    async def heavy(user: dict, body: bytes, name: str, caption: str | None) -> None:
        message = await api.send_document(api.private_chat(user), user, body, name, caption=caption)
        call = await api.reply_to(message, timeout=300)
        run.heavy_seconds.append(time.perf_counter() - start)
        run.heavy_replies.append(str(call["params"].get("text", "")))

    pending.append(asyncio.create_task(heavy(heavy_user, big, "huge.txt", None)))
    if jsonl:
        pending.append(asyncio.create_task(heavy(zed_user, jsonl, "run.jsonl", "#zerobench")))
    await asyncio.sleep(0.2)
    text = probe_text()
    for _ in range(probes):
        sent = time.perf_counter()
        message = await api.send_text(light_chat, light_user, text)
        call = await api.reply_to(message, timeout=120)
        run.probes.append(time.perf_counter() - sent)
        assert "Total Questions: 104" in str(call["params"]["text"]), call["params"]["text"]
        if not all(task.done() for task in pending):
            run.during += 1
        await asyncio.sleep(gap)
    await asyncio.gather(*pending)
    stop.set()
    await watcher
    for child in children(pid):
        worker_peak = max(worker_peak, rss_kib(child, "VmHWM"))
    run.peak_rss_kib = rss_kib(pid, "VmHWM")
    run.peak_worker_rss_kib = worker_peak
    return run

"""API throughput: submissions per second through ``benchboard web`` on loopback.

    .venv/bin/python tests/benchmarks/bench_api.py [--clients 64] [--seconds 10]
        [--questions 104] [--publish]

Makes a fresh SQLite database with a generated PrimeBench key and one user and token per
client, starts ``benchboard web`` as its own process (the rate limit off:
``BENCHBOARD_API_RATE=0``), and has ``--clients`` concurrent clients each POST a
PrimeBench output to ``/api/v1/submissions`` as soon as the last one was answered, for
``--seconds``. Prints submissions per second, the latency p50/p99, and the server's CPU
time per submission (from /proc, steadier than wall-clock rates on a shared machine).
Compare with the chat's path: ``bench_bot.py`` (the same scorer and store behind the
Bot API's round trips).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bot.core import api  # noqa: E402
from storage import Store  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def prepare(db: Path, clients: int, questions: int) -> tuple[list[str], dict[int, int]]:
    rng = random.Random(1)
    key = {q: rng.randint(1, 4) for q in range(1, questions + 1)}
    store = await Store.open(db, synchronous="FULL")
    try:
        await store.save_key(
            "primebench", "\n".join(f"{q}:{o}" for q, o in key.items()).encode(), source="bench"
        )
        tokens = []
        for i in range(clients):
            uid = 10_000 + i
            await store.upsert_user(
                uid, first_name=f"C{i}", last_name=None, username=None, language_code="en"
            )
            token = api.new_token()
            await store.add_api_token(uid, api.token_hash(token))
            tokens.append(token)
    finally:
        await store.close()
    return tokens, key


async def drive(
    base: str, tokens: list[str], key: dict[int, int], seconds: float, publish: bool
) -> tuple[int, list[float], int]:
    latencies: list[float] = []
    failed = 0
    stop = time.monotonic() + seconds

    async def client(token: str, seed: int) -> None:
        nonlocal failed
        rng = random.Random(seed)
        headers = {"Authorization": f"Bearer {token}"}
        async with aiohttp.ClientSession() as session:
            while time.monotonic() < stop:
                lines = [f"{q}:{o if rng.random() < 0.7 else o % 4 + 1}" for q, o in key.items()]
                body = {
                    "benchmark": "primebench",
                    "output": "\n".join(lines),
                    "model": f"bench-{rng.randint(1, 50)}",
                    "mode": "think",
                    "publish": publish,
                }
                started = time.perf_counter()
                async with session.post(
                    base + "/api/v1/submissions", json=body, headers=headers
                ) as r:
                    await r.read()
                    if r.status != 201:
                        failed += 1
                        continue
                latencies.append(time.perf_counter() - started)

    await asyncio.gather(*(client(t, i) for i, t in enumerate(tokens)))
    return len(latencies), latencies, failed


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--questions", type=int, default=104)
    parser.add_argument("--publish", action="store_true", help="publish each (limit raised)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "api.sqlite3"
        tokens, key = await prepare(db, args.clients, args.questions)
        port = free_port()
        env = {
            **os.environ,
            "BENCHBOARD_DB": str(db),
            "BENCHBOARD_DATA_DIR": tmp,
            "BENCHBOARD_API_RATE": "0",
            "BENCHBOARD_DAILY_LIMIT": "1000000",
            "BENCHBOARD_LOG_LEVEL": "WARNING",
        }
        server = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "web", "--port", str(port),
            env=env, cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        try:
            assert server.stdout is not None
            await server.stdout.readline()  # "web boards on http://..."
            base = f"http://127.0.0.1:{port}"
            await drive(base, tokens[:4], key, 1.0, args.publish)  # warm-up
            cpu = cpu_seconds(server.pid)
            started = time.perf_counter()
            done, latencies, failed = await drive(base, tokens, key, args.seconds, args.publish)
            elapsed = time.perf_counter() - started
            cpu = cpu_seconds(server.pid) - cpu
        finally:
            server.terminate()
            await asyncio.wait_for(server.wait(), 10)
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(
        f"API: {done} submissions ({args.questions} answers each"
        f"{', published' if args.publish else ''}) from {args.clients} clients in "
        f"{elapsed:.1f} s: {done / elapsed:.1f}/s; latency p50 "
        f"{statistics.median(latencies) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms; "
        f"server CPU {cpu / max(done, 1) * 1000:.2f} ms a submission; {failed} refused"
    )


if __name__ == "__main__":
    asyncio.run(main())

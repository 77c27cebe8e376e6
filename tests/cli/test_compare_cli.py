"""``benchboard compare natory --out chart.png`` against a database the bot wrote."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from storage import Store
from tests.storage.test_analytics import put_natory

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"


def run(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("BENCHBOARD_")}
    full.update(env, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=full,
        timeout=120,
    )


async def _fill(path: Path) -> None:
    store = await Store.open(path)
    try:
        await put_natory(store, "2*sopfr(6)^5+6", model="Alpha", cost=0.02, latency=4.0)
        await put_natory(store, "2*5^5+6", model="Beta", mode="think", cost=0.001, latency=1.5)
        await put_natory(store, "6256", model="Gamma", publish=False)
    finally:
        await store.close()


def test_compare_writes_a_png_and_lists_the_models(tmp_path: Path) -> None:
    data = tmp_path / "data"
    asyncio.run(_fill(data / "benchboard.sqlite3"))
    done = run(
        "compare", "natory", "--out", "chart.png", cwd=tmp_path,
        env={"BENCHBOARD_DATA_DIR": str(data)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    chart = (tmp_path / "chart.png").read_bytes()
    assert chart.startswith(PNG) and len(chart) > 10_000
    lines = done.stdout.splitlines()
    assert lines[0].startswith("1. Alpha · default: mean 138.0, best 138, 1 attempt, 1 target,")
    assert "cost $0.02, latency 4s" in lines[0]
    assert lines[1].startswith("2. Beta · think: mean 46.0")
    assert "Gamma" not in done.stdout  # not published
    assert "chart of 2 models written to chart.png" in done.stdout


def test_compare_reads_benchboard_db(tmp_path: Path) -> None:
    db = tmp_path / "elsewhere.sqlite3"
    asyncio.run(_fill(db))
    out = tmp_path / "out" / "c.png"
    out.parent.mkdir()
    done = run(
        "compare", "natory", "--out", str(out), cwd=tmp_path,
        env={"BENCHBOARD_DB": str(db), "BENCHBOARD_DATA_DIR": str(tmp_path / "none")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert out.read_bytes().startswith(PNG)


def test_compare_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    env = {"BENCHBOARD_DATA_DIR": str(tmp_path / "data")}
    missing = run("compare", "natory", cwd=tmp_path, env=env)
    assert missing.returncode == 2 and "no database at" in missing.stderr
    assert not (tmp_path / "data" / "benchboard.sqlite3").exists()  # not created
    other = run("compare", "primebench", cwd=tmp_path, env=env)
    assert other.returncode == 2 and "only natory" in other.stderr

    async def empty() -> None:
        await (await Store.open(tmp_path / "data" / "benchboard.sqlite3")).close()

    asyncio.run(empty())
    nothing = run("compare", "natory", cwd=tmp_path, env=env)
    assert nothing.returncode == 2 and "no published Natory attempts" in nothing.stderr
    assert len(nothing.stderr.strip().splitlines()) == 1


def test_a_large_score_is_written_as_the_benchmark_writes_it() -> None:
    from scoring import natory

    # what `compare` prints for a best of -5,243,420 (a natory-v1 attempt): never -5.24342e+06
    assert natory.BENCHMARK.format_score(-5_243_420.0) == "-5243420"

"""ZeroBench through the real command line, and the key fetch against a local HTTP server."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from bot.core import datafiles
from scoring import zerobench as zb

ROOT = str(Path(__file__).resolve().parents[2])
REQUESTS = web.AppKey("requests", list)

KEY = {
    zb.MAIN_SPLIT: {"1": "42", "2": "11.90", "3": "paris"},
    zb.SUB_SPLIT: {"1_1": "7", "1_2": "8"},
}


def run_cli(
    tmp_path: Path, *args: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BENCHBOARD_")}
    env["BENCHBOARD_DATA_DIR"] = str(tmp_path / "data")
    env["PYTHONPATH"] = ROOT
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=tmp_path,  # no stray .env is read
        env=env,
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    path = tmp_path / "key.json"
    path.write_text(json.dumps(KEY))
    return path


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + "this line is not JSON\n")
    return path


SUBMISSION = [
    {"question_id": "1", "response": "so {42}"},
    {"question_id": "1", "response": "{ 42 }"},
    {"question_id": "2", "response": "{11.9}"},
    {"question_id": "1_1", "responses": ["{7}", "{7}"]},
    {"question_id": "nope", "response": "{1}"},
]


def test_score_json(tmp_path: Path, key_file: Path) -> None:
    sub = write_jsonl(tmp_path / "out.jsonl", SUBMISSION)
    done = run_cli(
        tmp_path, "score", str(sub), "-b", "zerobench", "--key", str(key_file), "--k", "2", "--json"
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["k"] == 2 and data["format"] == "jsonl"
    main = data["main"]
    assert main["questions"] == 3
    assert main["attempts"] == 3
    assert main["pass_at_1"] == pytest.approx(0.5 / 3)
    assert (main["pass_at_k"], main["pass_at_k_count"]) == (pytest.approx(1 / 3), 1)
    assert main["reliability_k_of_k_count"] == 0
    assert main["fewer_than_k"] == ["2"]
    assert main["unattempted_ids"] == ["3"]
    assert main["lenient"]["pass_at_1_count"] == 2.0
    sub_part = data["subquestions"]
    assert (sub_part["pass_at_1"], sub_part["reliability_k_of_k_count"]) == (0.5, 1)
    assert data["primary"] == main["pass_at_1"]
    assert data["invalid_lines"] == [{"line": 6, "text": "this line is not JSON"}]
    assert data["unknown_ids"] == ["nope"]
    codes = {h["code"] for h in data["hints"]}
    assert {"spaces_in_braces", "number_format", "fewer_than_k"} <= codes


def test_score_human_output(tmp_path: Path, key_file: Path) -> None:
    sub = write_jsonl(tmp_path / "out.jsonl", SUBMISSION)
    done = run_cli(tmp_path, "score", str(sub), "--benchmark", "zerobench", "--key", str(key_file))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Main questions — pass@1: 16.7% (0.5/3)" in out
    assert "Subquestions — pass@k: 50.0% (1/2)" in out
    assert "lenient pass@1 (not official, never ranks)" in out
    assert "line 6: this line is not JSON" in out
    assert "Ignored (not in the key): nope" in out
    assert "ZeroBench by Jonathan Roberts" in out


def test_score_official_csv_from_stdin(tmp_path: Path, key_file: Path) -> None:
    csv_text = 'Question_ID, Ground_Truth, Model_Output, Correct?\n1, 42, "x, {42}", True\n'
    done = run_cli(
        tmp_path, "score", "-", "-b", "zerobench", "--key", str(key_file), "--k", "1", "--json",
        stdin=csv_text.encode(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["format"] == "official_csv"
    assert data["main"]["pass_at_1_count"] == 1


@pytest.mark.parametrize("k", ["0", "-3"])
def test_bad_k_is_a_clear_error(tmp_path: Path, key_file: Path, k: str) -> None:
    sub = write_jsonl(tmp_path / "out.jsonl", SUBMISSION)
    done = run_cli(tmp_path, "score", str(sub), "-b", "zerobench", "--key", str(key_file), "--k", k)
    assert done.returncode == 2
    assert "k must be a whole number from 1 to 10000" in done.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"\xff\xfe{}", "not valid UTF-8"), (b"\x00\x01\x02", "binary")],
)
def test_undecodable_submissions(
    tmp_path: Path, key_file: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "bad.bin"
    path.write_bytes(content)
    done = run_cli(tmp_path, "score", str(path), "-b", "zerobench", "--key", str(key_file))
    assert done.returncode == 2 and message in done.stderr


def test_empty_submission(tmp_path: Path, key_file: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    done = run_cli(
        tmp_path, "score", str(path), "-b", "zerobench", "--key", str(key_file), "--json"
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["format"] == "empty" and data["main"]["unattempted"] == 3


def test_bad_key_is_refused(tmp_path: Path) -> None:
    key = tmp_path / "key.json"
    key.write_text('{"1": 11.9}')
    sub = write_jsonl(tmp_path / "out.jsonl", SUBMISSION)
    done = run_cli(tmp_path, "score", str(sub), "-b", "zerobench", "--key", str(key))
    assert done.returncode == 2 and "must be text" in done.stderr


def test_data_load_then_score_with_the_stored_key(tmp_path: Path) -> None:
    csv_key = tmp_path / "key.csv"
    csv_key.write_text(
        "question_id,question_answer,split\n1,42,zerobench\n1_1,7,zerobench_subquestions\n"
    )
    done = run_cli(tmp_path, "data", "load", "zerobench", "--key", str(csv_key))
    assert done.returncode == 0, done.stderr
    stored = tmp_path / "data" / "zerobench" / "key.json"
    assert json.loads(stored.read_text()) == {
        zb.MAIN_SPLIT: {"1": "42"},
        zb.SUB_SPLIT: {"1_1": "7"},
    }
    assert hashlib.sha256(stored.read_bytes()).hexdigest() in done.stdout
    assert "1 main questions, 1 subquestions" in done.stdout
    sub = write_jsonl(tmp_path / "out.jsonl", [{"question_id": "1", "response": "{42}"}])
    done = run_cli(tmp_path, "score", str(sub), "-b", "zerobench", "--k", "1", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["primary"] == 1.0


def test_score_without_a_key_says_how_to_get_one(tmp_path: Path) -> None:
    sub = write_jsonl(tmp_path / "out.jsonl", SUBMISSION)
    done = run_cli(tmp_path, "score", str(sub), "-b", "zerobench")
    assert done.returncode == 2
    assert "benchboard data fetch zerobench" in done.stderr


def test_bad_key_load_keeps_the_earlier_copy(tmp_path: Path, key_file: Path) -> None:
    assert run_cli(tmp_path, "data", "load", "zerobench", "--key", str(key_file)).returncode == 0
    stored = tmp_path / "data" / "zerobench" / "key.json"
    before = stored.read_bytes()
    bad = tmp_path / "bad.json"
    bad.write_text('{"1": "42",\n "1": "43"}')
    done = run_cli(tmp_path, "data", "load", "zerobench", "--key", str(bad))
    assert done.returncode == 2 and "line 2" in done.stderr
    assert stored.read_bytes() == before


# --- fetching from the dataset viewer's rows endpoint --------------------------------

ROWS = {
    zb.MAIN_SPLIT: [(str(i), str(i * 2)) for i in range(1, 251)],  # three pages
    zb.SUB_SPLIT: [(f"{i}_1", f"a{i}") for i in range(1, 6)],
}


def viewer_app(fail: Callable[[web.Request], bool] = lambda r: False) -> web.Application:
    requests: list[dict[str, str]] = []

    async def rows(request: web.Request) -> web.Response:
        query = dict(request.query)
        requests.append(query)
        if fail(request):
            return web.Response(status=500, text="boom")
        assert query["dataset"] == zb.DATASET and query["config"] == "default"
        split, offset, length = query["split"], int(query["offset"]), int(query["length"])
        assert length == 100
        page = ROWS[split][offset : offset + length]
        return web.json_response(
            {
                "features": [],
                "rows": [
                    {
                        "row_idx": offset + n,
                        "row": {
                            "question_id": qid,
                            "question_text": "look at the picture",
                            "question_images_decoded": [{"src": "https://img/x.png"}],
                            "question_answer": answer,
                        },
                        "truncated_cells": [],
                    }
                    for n, (qid, answer) in enumerate(page)
                ],
                "num_rows_total": len(ROWS[split]),
                "num_rows_per_page": 100,
                "partial": False,
            }
        )

    app = web.Application()
    app.router.add_get("/rows", rows)
    app[REQUESTS] = requests
    return app


async def serve(app: web.Application) -> AsyncIterator[str]:
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


async def test_fetch_pages_through_both_splits(tmp_path: Path) -> None:
    app = viewer_app()
    async for base in serve(app):
        report = await datafiles.fetch(tmp_path, zb.BENCHMARK, base + "/")
    assert report.questions == 255
    stored = json.loads((tmp_path / "zerobench" / "key.json").read_text())
    assert stored == {split: dict(rows) for split, rows in ROWS.items()}
    offsets = [(q["split"], q["offset"]) for q in app[REQUESTS]]
    assert offsets == [
        (zb.MAIN_SPLIT, "0"),
        (zb.MAIN_SPLIT, "100"),
        (zb.MAIN_SPLIT, "200"),
        (zb.SUB_SPLIT, "0"),
    ]
    meta = datafiles.read_meta(tmp_path, zb.BENCHMARK)
    assert meta["files"]["key.json"]["sha256"] == report.files[0].sha256
    assert "official ZeroBench has 100 and 334" in report.note


async def test_failed_fetch_leaves_the_earlier_copy(tmp_path: Path) -> None:
    async for base in serve(viewer_app()):
        await datafiles.fetch(tmp_path, zb.BENCHMARK, base)
    path = tmp_path / "zerobench" / "key.json"
    before = path.read_bytes()
    failing = viewer_app(lambda r: r.query["split"] == zb.SUB_SPLIT)
    async for base in serve(failing):
        with pytest.raises(datafiles.DataError, match="HTTP 500"):
            await datafiles.fetch(tmp_path, zb.BENCHMARK, base)
    assert path.read_bytes() == before


async def test_fetch_refuses_rows_without_answers(tmp_path: Path) -> None:
    async def rows(request: web.Request) -> web.Response:
        return web.json_response(
            {"rows": [{"row_idx": 0, "row": {"question_id": "1"}}], "num_rows_total": 1}
        )

    app = web.Application()
    app.router.add_get("/rows", rows)
    async for base in serve(app):
        with pytest.raises(datafiles.DataError, match="without question_id and question_answer"):
            await datafiles.fetch(tmp_path, zb.BENCHMARK, base)
    assert not (tmp_path / "zerobench").exists()


async def test_cli_data_fetch_prints_sha256(tmp_path: Path) -> None:
    async for base in serve(viewer_app()):
        env = {k: v for k, v in os.environ.items() if not k.startswith("BENCHBOARD_")}
        env.update(
            BENCHBOARD_DATA_DIR=str(tmp_path / "data"),
            BENCHBOARD_ZEROBENCH_URL=base,
            PYTHONPATH=ROOT,
        )
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "data", "fetch", "zerobench",
            cwd=tmp_path, env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    assert proc.returncode == 0, err.decode()
    stored = tmp_path / "data" / "zerobench" / "key.json"
    assert hashlib.sha256(stored.read_bytes()).hexdigest() in out.decode()
    assert "zerobench: 255 questions" in out.decode()

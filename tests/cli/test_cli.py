"""The `benchboard` command, run as a user would: a subprocess."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from aiohttp import web

from scoring import primebench as pb
from tests.e2e.botapi import free_port


def run_cli(
    *args: str, cwd: Path, stdin: bytes | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        env=_env(cwd, env),
        timeout=60,
    )


def _env(cwd: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BENCHBOARD_")}
    env["BENCHBOARD_DATA_DIR"] = str(cwd / "data")
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    env.update(extra or {})
    return env


def make_key(n: int = 104, seed: int = 3) -> dict[int, int]:
    rng = random.Random(seed)
    return {q: rng.randint(1, 4) for q in range(1, n + 1)}


def key_bytes(key: dict[int, int]) -> bytes:
    return "".join(f"{q}:{o}\n" for q, o in key.items()).encode()


def questions_bytes(key: dict[int, int]) -> bytes:
    body = {
        f"Question_{q}": {
            "question": f"Question {q}\u200b with a hidden mark",
            **{f"option_{o}": f"option {o}" for o in range(1, 5)},
        }
        for q in key
    }
    return json.dumps(body, ensure_ascii=False, indent=1).encode()


@pytest.fixture
def workdir(tmp_path: Path) -> Iterator[Path]:
    key = make_key()
    (tmp_path / "A.txt").write_bytes(key_bytes(key))
    (tmp_path / "Q.json").write_bytes(questions_bytes(key))
    yield tmp_path


def test_score_json_with_a_key(workdir: Path) -> None:
    key = make_key()
    wrong_q1 = key[1] % 4 + 1
    submission = f"1:{wrong_q1}\n2:{key[2]}, 3:none\nQ4:1\n2:{key[2]}\n200:1\n"
    (workdir / "out.txt").write_text(submission)
    proc = run_cli("score", "out.txt", "--key", "A.txt", "--json", cwd=workdir)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data == {
        "total_questions": 104,
        "correct": 1,
        "wrong": 1,
        "unanswered": 102,
        "positive_points": 1,
        "negative_points": 3,
        "final_score": -2,
        "invalid_lines": [{"line": 3, "text": "Q4:1"}],
        "invalid_line_count": 1,
        "duplicates": [2],
        "duplicate_count": 1,
        "unknown_questions": [200],
        "unknown_question_count": 1,
        "hints": [data["hints"][0]],
    }
    assert "Q before the question number" in data["hints"][0]


def test_score_human_output_from_stdin(workdir: Path) -> None:
    proc = run_cli("score", "-", "--key", "A.txt", cwd=workdir, stdin="1:1\n۱:۲\n".encode())
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    for label in (
        "Total Questions: 104",
        "Correct:",
        "Wrong:",
        "Unanswered:",
        "Positive Points:",
        "Negative Points:",
        "Final Score:",
    ):
        assert label in out
    assert "line 2: ۱:۲" in out
    assert "Persian/Arabic-Indic digits" in out
    assert "JibayAI" in out and "jibay.ir" in out


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (("score", "missing.txt", "--key", "A.txt"), None, "no such file: missing.txt"),
        (("score", "-", "--key", "A.txt"), b"1:1\n\xff\xfe\n", "not valid UTF-8"),
        (("score", "-", "--key", "A.txt"), b"\x00\x01binary", "binary"),
        (("score", "-", "--key", "bad.txt"), b"1:1", "bad key bad.txt: line 2"),
        (("score", "-"), b"1:1", "no PrimeBench key loaded"),
        (("score", "-", "--benchmark", "nope", "--key", "A.txt"), b"1:1", "unknown benchmark"),
        (("prompt", "nope"), None, "unknown benchmark"),
        (("data", "load", "primebench", "--key", "bad.txt"), None, "line 2"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    workdir: Path, args: tuple[str, ...], stdin: bytes | None, message: str
) -> None:
    (workdir / "bad.txt").write_bytes(b"1:1\n2:9\n")
    proc = run_cli(*args, cwd=workdir, stdin=stdin)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert message in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_prompt_is_byte_exact(workdir: Path) -> None:
    proc = run_cli("prompt", "primebench", cwd=workdir)
    assert proc.returncode == 0
    assert proc.stdout == pb.PROMPT.encode()


def test_data_load_then_score_without_key(workdir: Path) -> None:
    proc = run_cli(
        "data", "load", "primebench", "--key", "A.txt", "--questions", "Q.json", cwd=workdir
    )
    assert proc.returncode == 0, proc.stderr
    sha = hashlib.sha256((workdir / "A.txt").read_bytes()).hexdigest()
    assert sha in proc.stdout.decode()
    assert (workdir / "data/primebench/Q.json").read_bytes() == (workdir / "Q.json").read_bytes()
    proc = run_cli("score", "-", "--json", cwd=workdir, stdin=b"1:1\n")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["total_questions"] == 104


def test_data_load_refuses_a_mismatched_pair_and_keeps_the_old_copy(workdir: Path) -> None:
    assert run_cli("data", "load", "primebench", "--key", "A.txt", cwd=workdir).returncode == 0
    (workdir / "short.txt").write_bytes(key_bytes(make_key(10)))
    proc = run_cli(
        "data", "load", "primebench", "--key", "short.txt", "--questions", "Q.json", cwd=workdir
    )
    assert proc.returncode == 2
    assert "disagree" in proc.stderr.decode()
    assert (workdir / "data/primebench/A.txt").read_bytes() == (workdir / "A.txt").read_bytes()


# --- fetch against a local HTTP server ---------------------------------------------


@pytest.fixture
async def mirror(workdir: Path) -> AsyncIterator[dict[str, bytes]]:
    files = {"A.txt": (workdir / "A.txt").read_bytes(), "Q.json": (workdir / "Q.json").read_bytes()}

    async def serve(request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in files:
            return web.Response(status=404)
        return web.Response(body=files[name])

    app = web.Application()
    app.router.add_get("/{prefix:.*}/{name}", serve)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    files["__url__"] = f"http://127.0.0.1:{port}/datasets/x/resolve/main".encode()
    yield files
    await runner.cleanup()


async def run_cli_async(*args: str, cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        *args,
        cwd=cwd,
        env=_env(cwd, env),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_fetch_downloads_validates_and_records_sha(
    workdir: Path, mirror: dict[str, bytes]
) -> None:
    url = mirror["__url__"].decode()
    code, out, err = await run_cli_async(
        "data", "fetch", "primebench", cwd=workdir, env={"BENCHBOARD_PRIMEBENCH_URL": url}
    )
    assert code == 0, err
    for name in ("A.txt", "Q.json"):
        assert hashlib.sha256(mirror[name]).hexdigest() in out
        assert (workdir / "data/primebench" / name).read_bytes() == mirror[name]
    meta = json.loads((workdir / "data/primebench/meta.json").read_text())
    assert meta["source"] == url
    assert meta["files"]["A.txt"]["sha256"] == hashlib.sha256(mirror["A.txt"]).hexdigest()


async def test_fetch_refuses_a_bad_file_and_keeps_the_good_copy(
    workdir: Path, mirror: dict[str, bytes]
) -> None:
    url = mirror["__url__"].decode()
    env = {"BENCHBOARD_PRIMEBENCH_URL": url}
    assert (await run_cli_async("data", "fetch", "primebench", cwd=workdir, env=env))[0] == 0
    good = (workdir / "data/primebench/A.txt").read_bytes()
    mirror["A.txt"] = b"1:1\n2:x\n"
    code, _, err = await run_cli_async("data", "fetch", "primebench", cwd=workdir, env=env)
    assert code == 2
    assert "line 2" in err
    assert (workdir / "data/primebench/A.txt").read_bytes() == good


async def test_fetch_reports_http_and_network_failures(
    workdir: Path, mirror: dict[str, bytes]
) -> None:
    del mirror["Q.json"]
    url = mirror["__url__"].decode()
    code, _, err = await run_cli_async(
        "data", "fetch", "primebench", cwd=workdir, env={"BENCHBOARD_PRIMEBENCH_URL": url}
    )
    assert code == 2
    assert "HTTP 404" in err
    code, _, err = await run_cli_async(
        "data",
        "fetch",
        "primebench",
        cwd=workdir,
        env={"BENCHBOARD_PRIMEBENCH_URL": "http://127.0.0.1:9/x"},
    )
    assert code == 2
    assert "download failed" in err
    assert not (workdir / "data/primebench/A.txt").exists()


def test_counts_and_seconds_out_of_range_are_refused_by_name(tmp_path: Path) -> None:
    """``--batch 0`` used to port no row and then report the copy as differing;
    ``--models 0`` blamed the database. Each is now refused before anything runs."""
    (tmp_path / "out.txt").write_text("1:1\n")
    cases = [
        (["db", "port", "--from", "a.db", "--to", "b.db", "--batch", "0"], "--batch"),
        (["compare", "natory", "--out", "c.png", "--models", "-3"], "--models"),
        (["submit", "out.txt", "--server", "http://x", "--wait", "nan"], "--wait"),
        (["submit", "out.txt", "--server", "http://x", "--wait", "-1"], "--wait"),
    ]
    for args, option in cases:
        done = run_cli(*args, cwd=tmp_path, env={"BENCHBOARD_API_TOKEN": "bb_x"})
        err = done.stderr.decode()
        assert done.returncode == 2 and f"argument {option}: expected" in err, (args, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_a_device_is_refused_not_read_until_memory_runs_out(tmp_path: Path) -> None:
    for args in (["score", "/dev/zero"], ["data", "load", "primebench", "--key", "/dev/zero"]):
        done = run_cli(*args, cwd=tmp_path)
        assert done.returncode == 2
        assert done.stderr.decode().strip() == "benchboard: /dev/zero is a device, not a file"


def test_an_unreachable_database_is_one_line(tmp_path: Path) -> None:
    """The key in an unreachable PostgreSQL (nothing listens on the port): one line, no
    traceback, none of the pool's tries."""
    (tmp_path / "out.txt").write_text("1:1\n")
    env = _env(tmp_path, {"BENCHBOARD_DB": f"postgresql://postgres@127.0.0.1:{free_port()}/x"})
    commands = [["score", "out.txt", "--benchmark", "primebench"], ["benchmark", "list"]]
    running = [
        subprocess.Popen(
            [sys.executable, "-m", "bot", *args],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for args in commands
    ]
    for proc in running:
        out, err = proc.communicate(timeout=90)
        assert proc.returncode == 2 and out == b""
        assert err.decode().startswith("benchboard: the database is unavailable")
        assert len(err.decode().strip().splitlines()) == 1, err.decode()


def test_a_bot_api_address_without_its_scheme_is_refused_by_name(tmp_path: Path) -> None:
    """``localhost:8081/bot`` (no ``http://``) failed a minute later with an error that
    quoted the address, the token appended: printed on the terminal."""
    token = "123456:AAE-not-to-be-printed"
    for name in ("BENCHBOARD_API_BASE_URL", "BENCHBOARD_API_FILE_URL"):
        env = {"BENCHBOARD_TOKEN": token, name: "127.0.0.1:9/bot"}
        done = run_cli("run", cwd=tmp_path, env=env)
        err = done.stderr.decode()
        assert done.returncode == 2 and token not in err + done.stdout.decode(), err
        said = "must be an http:// or https:// address (the token is added to it)"
        assert err.strip() == f"benchboard: {name}: {said}"

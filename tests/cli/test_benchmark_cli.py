"""``benchboard benchmark add FILE.toml``, run as a user would: the benchmark is stored,
then scored from the command line with its own points; a bad file changes nothing."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

from tests.cli.test_cli import _env, run_cli
from tests.web.webproc import web_process

DEFINITION = '''name = "tinymcq"
title = "TinyMCQ"
kind = "choice"
options = 5
points = { right = 2, wrong = -1, none = 0 }
prompt = """Answer each question as Q:O, options 1 to 5.
Example: 1:5
"""
credit = "TinyMCQ by Example Lab"
license = "CC BY 4.0"
key_file = "key.txt"
'''


def _write(folder: Path, points: str = "right = 2, wrong = -1, none = 0") -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "key.txt").write_text("1:3\n2:1\n3:5\n4:2\n")
    path = folder / "tiny.toml"
    path.write_text(DEFINITION.replace("right = 2, wrong = -1, none = 0", points))
    return path


def test_add_then_score_with_its_points_and_prompt(tmp_path: Path) -> None:
    path = _write(tmp_path / "def")
    added = run_cli("benchmark", "add", str(path), cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    out = added.stdout.decode()
    assert "tinymcq: TinyMCQ, stored as definition version 1" in out
    assert "key version 1 (new)" in out
    (tmp_path / "out.txt").write_text("1:3\n2:4\n3:5\n4:none\n")
    scored = run_cli("score", "out.txt", "--benchmark", "tinymcq", "--json", cwd=tmp_path)
    assert scored.returncode == 0, scored.stderr
    data = json.loads(scored.stdout)
    assert (data["correct"], data["wrong"], data["unanswered"]) == (2, 1, 1)
    assert data["final_score"] == 2 * 2 - 1 and data["points"]["right"] == 2
    prompt = run_cli("prompt", "tinymcq", cwd=tmp_path)
    assert prompt.stdout == b"Answer each question as Q:O, options 1 to 5.\nExample: 1:5\n"
    tagged = run_cli("score", "-", "--json", cwd=tmp_path, stdin=b"#tinymcq\n1:3\n")
    assert tagged.returncode == 0, tagged.stderr
    assert json.loads(tagged.stdout)["final_score"] == 2
    assert b"as TinyMCQ (named by a tag in it" in tagged.stderr
    listed = run_cli("benchmark", "list", cwd=tmp_path).stdout.decode()
    assert "tinymcq\tTinyMCQ\tdefined by data, version 1" in listed
    assert "primebench\tPrimeBench\tbuilt in" in listed
    # new points: the next definition version; the score follows them
    again = run_cli(
        "benchmark",
        "add",
        str(_write(tmp_path / "def", "right = 5, wrong = 0, none = 0")),
        cwd=tmp_path,
    )
    assert again.returncode == 0, again.stderr
    assert "stored as definition version 2" in again.stdout.decode()
    rescored = run_cli("score", "out.txt", "--benchmark", "tinymcq", "--json", cwd=tmp_path)
    assert json.loads(rescored.stdout)["final_score"] == 10


def test_benchboard_web_serves_a_benchmark_added_before_it_started(tmp_path: Path) -> None:
    added = run_cli("benchmark", "add", str(_write(tmp_path / "def")), cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    with web_process(tmp_path, _env(tmp_path)) as base:
        for path in ("/b/tinymcq", "/b/tinymcq.csv", "/b/tinymcq/questions"):
            try:
                with urllib.request.urlopen(base + path, timeout=10) as answer:
                    status = answer.status
            except urllib.error.HTTPError as exc:
                status = exc.code
            assert status == 200, path
        with urllib.request.urlopen(base + "/", timeout=10) as answer:
            assert "/b/tinymcq" in answer.read().decode()


def test_a_bad_file_is_one_line_and_changes_nothing(tmp_path: Path) -> None:
    path = _write(tmp_path / "def")
    (tmp_path / "def" / "key.txt").write_text("1:3\n2:7\n")
    bad = run_cli("benchmark", "add", str(path), cwd=tmp_path)
    assert bad.returncode == 2
    assert bad.stderr == b"benchboard: key: line 2: the option must be 1 to 5: '2:7'\n"
    clash = path.read_text().replace('"tinymcq"', '"zerobench"')
    path.write_text(clash.replace("2:7", "2:1"))
    (tmp_path / "def" / "key.txt").write_text("1:3\n")
    refused = run_cli("benchmark", "add", str(path), cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.decode().startswith("benchboard: name: 'zerobench' is taken")
    listed = run_cli("benchmark", "list", cwd=tmp_path).stdout.decode()
    assert "defined by data" not in listed
    unknown = run_cli("score", "-", "--benchmark", "tinymcq", cwd=tmp_path, stdin=b"1:3\n")
    assert unknown.returncode == 2 and b"unknown benchmark 'tinymcq'" in unknown.stderr


def test_a_file_nested_too_deeply_is_one_line_and_changes_nothing(tmp_path: Path) -> None:
    """tomllib reads nested arrays and inline tables recursively: thousands of them were
    a RecursionError's traceback, now one line naming the problem (exit 2)."""
    good = run_cli("benchmark", "add", str(_write(tmp_path / "def")), cwd=tmp_path)
    assert good.returncode == 0, good.stderr  # stored first: what must not change
    for n, nested in enumerate(("[" * 3000 + "]" * 3000, "{a = " * 3000 + "1" + "}" * 3000)):
        path = tmp_path / f"deep{n}.toml"
        path.write_text(DEFINITION.replace('key_file = "key.txt"', f"key = {nested}"))
        refused = run_cli("benchmark", "add", str(path), cwd=tmp_path)
        assert refused.returncode == 2
        assert refused.stderr == b"benchboard: TOML: arrays or inline tables nested too deeply\n"
        assert refused.stdout == b""
    listed = run_cli("benchmark", "list", cwd=tmp_path).stdout.decode()
    assert "tinymcq\tTinyMCQ\tdefined by data, version 1" in listed


def test_a_changed_key_is_said_also_when_it_is_an_earlier_one(tmp_path: Path) -> None:
    path = _write(tmp_path / "def")
    assert run_cli("benchmark", "add", str(path), cwd=tmp_path).returncode == 0
    key = tmp_path / "def" / "key.txt"
    key.write_text("1:3\n2:1\n3:5\n4:3\n")
    fixed = run_cli("benchmark", "add", str(path), cwd=tmp_path).stdout.decode()
    assert "unchanged, definition version 1" in fixed and "key version 2 (new)" in fixed
    key.write_text("1:3\n2:1\n3:5\n4:2\n")  # the first key again: in use, no new version
    back = run_cli("benchmark", "add", str(path), cwd=tmp_path).stdout.decode()
    assert "key version 1 (in use again)" in back, back
    same = run_cli("benchmark", "add", str(path), cwd=tmp_path).stdout.decode()
    assert "key version 1 (unchanged)" in same, same


def test_a_name_of_the_bots_own_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "def")
    path.write_text(path.read_text().replace('"tinymcq"', '"top"'))
    refused = run_cli("benchmark", "add", str(path), cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr == (
        b"benchboard: name: 'top' is the bot's own word: inline mode's keyword (@bot top) "
        b"and a command (/top)\n"
    )
    listed = run_cli("benchmark", "list", cwd=tmp_path).stdout.decode()
    assert "top\t" not in listed and "defined by data" not in listed

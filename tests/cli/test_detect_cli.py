"""``benchboard score`` without ``--benchmark`` reads a file as the bot reads a message:
the same detection (``bot.core.classify.read``), said on stderr so ``--json`` stays clean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_cli import key_bytes, make_key, run_cli

ZERO_KEY = {"zerobench": {str(q): str(q * 7) for q in range(1, 429)}}


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "A.txt").write_bytes(key_bytes(make_key()))
    (tmp_path / "zb.json").write_text(json.dumps(ZERO_KEY))
    return tmp_path


def zerobench_jsonl(n: int = 428) -> str:
    return "".join(
        json.dumps({"question_id": str(q), "response": f"so {{{q * 7}}}"}) + "\n"
        for q in range(1, n + 1)
    )


def test_a_zerobench_jsonl_without_benchmark_is_read_as_zerobench(workdir: Path) -> None:
    (workdir / "out.jsonl").write_text(zerobench_jsonl())
    done = run_cli("score", "out.jsonl", "--key", "zb.json", "--json", cwd=workdir)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)  # stdout is the JSON alone
    assert data["format"] == "jsonl"
    assert data["invalid_line_count"] == 0
    assert data["main"]["attempts"] == 428 and data["main"]["pass_at_1"] == 1.0
    err = done.stderr.decode()
    assert err.count("\n") == 1
    assert "scoring out.jsonl as ZeroBench (recognised from its content;" in err
    assert "--benchmark NAME chooses another" in err


def test_a_pandas_csv_from_stdin_is_detected(workdir: Path) -> None:
    text = (
        ",Question_ID,Ground_Truth,Model_Output,Correct?\n"
        "0,1,7,Let me think\rso {7},True\n1,2,14,{14},True\n"
    )
    done = run_cli("score", "-", "--key", "zb.json", "--json", cwd=workdir, stdin=text.encode())
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["format"], data["invalid_line_count"]) == ("official_csv", 0)
    assert data["main"]["attempts"] == 2 and data["main"]["correct_attempts"] == 2
    assert "scoring stdin as ZeroBench" in done.stderr.decode()


def test_primebench_answers_are_still_primebench(workdir: Path) -> None:
    key = make_key()
    (workdir / "out.txt").write_text("".join(f"{q}:{o}\n" for q, o in key.items()))
    done = run_cli("score", "out.txt", "--key", "A.txt", "--json", cwd=workdir)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["correct"] == 104
    assert "as PrimeBench (recognised from its content" in done.stderr.decode()


def test_a_tag_in_the_file_names_the_benchmark_and_is_not_scored(workdir: Path) -> None:
    (workdir / "out.jsonl").write_text("#zerobench\nmodel: m1\n" + zerobench_jsonl(3))
    done = run_cli("score", "out.jsonl", "--key", "zb.json", "--json", cwd=workdir)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["invalid_line_count"] == 0  # the tag lines are blanked, as in the bot
    assert data["main"]["attempts"] == 3
    assert "as ZeroBench (named by a tag in it;" in done.stderr.decode()


def test_the_files_tag_fields_apply_and_the_command_line_wins(workdir: Path) -> None:
    (workdir / "out.jsonl").write_text("#zerobench\nk: 2\n" + zerobench_jsonl(3))
    done = run_cli("score", "out.jsonl", "--key", "zb.json", "--json", cwd=workdir)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["k"] == 2
    done = run_cli("score", "out.jsonl", "--key", "zb.json", "--json", "--k", "4", cwd=workdir)
    assert json.loads(done.stdout)["k"] == 4
    (workdir / "answer.txt").write_text("#natory\ntarget: 6840\n(6+4)*684\n")
    done = run_cli("score", "answer.txt", "--json", cwd=workdir)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["target"] == 6840
    (workdir / "bad.jsonl").write_text("#zerobench\nk: 0\n" + zerobench_jsonl(3))
    done = run_cli("score", "bad.jsonl", "--key", "zb.json", cwd=workdir)
    assert done.returncode == 2 and b"bad tag in bad.jsonl: k must be" in done.stderr


def test_with_benchmark_given_the_tag_lines_are_read_as_without(workdir: Path) -> None:
    # the same file scores the same with --benchmark: its tag lines are no invalid
    # lines, and their fields apply (the command line's still win)
    key = make_key()
    answers = "".join(f"{q}:{o}\n" for q, o in list(key.items())[:5])
    (workdir / "out.txt").write_text("#primebench\nmodel: m1\n" + answers + "#think\n")
    for benchmark in ([], ["--benchmark", "primebench"]):
        done = run_cli("score", "out.txt", "--key", "A.txt", "--json", *benchmark, cwd=workdir)
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        assert (data["invalid_line_count"], data["correct"]) == (0, 5), benchmark
    (workdir / "out.jsonl").write_text("model: m1\nk: 2\n" + zerobench_jsonl(3))
    args = ("score", "out.jsonl", "--benchmark", "zerobench", "--key", "zb.json", "--json")
    done = run_cli(*args, cwd=workdir)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["invalid_line_count"], data["k"]) == (0, 2)
    assert json.loads(run_cli(*args, "--k", "4", cwd=workdir).stdout)["k"] == 4
    (workdir / "answer.txt").write_text("#natory\ntarget: 6840\n(6+4)*684\n")
    done = run_cli("score", "answer.txt", "--benchmark", "natory", "--json", cwd=workdir)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["target"] == 6840
    # a tag the bot would refuse stays a line of the text: the benchmark is named
    (workdir / "odd.txt").write_text("#thnk\n" + answers)
    done = run_cli("score", "odd.txt", "--benchmark", "primebench", "--key", "A.txt", "--json",
                   cwd=workdir)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["invalid_lines"] == [{"line": 1, "text": "#thnk"}]


def test_jsonl_after_a_line_of_prose_is_zerobench(workdir: Path) -> None:
    text = "Here are the results:\n" + zerobench_jsonl(3)
    (workdir / "out.jsonl").write_text(text)
    for benchmark in ([], ["--benchmark", "zerobench"]):
        done = run_cli("score", "out.jsonl", "--key", "zb.json", "--json", *benchmark, cwd=workdir)
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        assert data["format"] == "jsonl" and data["main"]["correct_attempts"] == 3


def test_target_names_natory(workdir: Path) -> None:
    done = run_cli("score", "--target", "6840", "(6+4)*684", "--json", cwd=workdir)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["valid"] is True and data["value"] == 6840
    assert "as Natory (--target given;" in done.stderr.decode()


def test_a_natory_expression_file_is_detected_and_asks_for_the_target(workdir: Path) -> None:
    (workdir / "answer.txt").write_text("(6+4)*684\n")
    done = run_cli("score", "answer.txt", cwd=workdir)
    assert done.returncode == 2
    err = done.stderr.decode()
    assert err.count("\n") == 1 and "natory needs --target N" in err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("hello there\nnothing to score here\n", "out.txt: no benchmark reads it"),
        ("#nosuchbench\n1:2\n", "out.txt: "),
    ],
    ids=["prose", "bad tag"],
)
def test_what_no_benchmark_reads_is_refused_in_one_line(
    workdir: Path, text: str, message: str
) -> None:
    (workdir / "out.txt").write_text(text)
    done = run_cli("score", "out.txt", "--key", "A.txt", cwd=workdir)
    assert done.returncode == 2 and done.stdout == b""
    err = done.stderr.decode()
    assert err.count("\n") == 1 and message in err and "--benchmark" in err

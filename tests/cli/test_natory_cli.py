"""``benchboard score --benchmark natory`` and ``benchboard natory today``, run as a user would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from scoring.natory import daily_challenge

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BENCHBOARD_")}
    env["BENCHBOARD_DATA_DIR"] = str(cwd / "data")
    env["BENCHBOARD_NATORY_SEED"] = "test-seed"
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


BREAKDOWN = [
    "baseScore",
    "eleganceBonus",
    "operatorDiversityBonus",
    "allDigitsBonus",
    "exactUsageBonus",
    "repetitionPenalty",
    "complexityPenalty",
    "trivialExpressionPenalty",
    "specialNumberBonus",
    "uniqueResultBonus",
    "finalScore",
    "specialNumberKey",
]


def test_expression_argument_json(tmp_path: Path) -> None:
    done = run(
        "score", "--benchmark", "natory", "--target", "6256",
        r"2 \times \operatorname{\mathrm{sopfr}}(6)^5 + 6", "--json",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert all(name in data for name in BREAKDOWN)
    assert data["finalScore"] == 133
    assert data["value"] == 6256 and data["valid"] is True
    assert "error" not in data
    assert data["scorer_version"] == "natory-v2"  # new submissions are scored with v2


def test_file_argument_with_prose(tmp_path: Path) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text("Thinking...\n\nFinal answer: $3^{1+1} + (3+1)$\n", encoding="utf-8")
    done = run("score", "-b", "natory", "--target", "13", str(answer), "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    # natory-v2: (1+1) and (3+1) re-create digits, the simplified 3^2 + 4 loses the
    # all-digits bonus (-20); v1 gave 37
    assert data["valid"] is True and data["finalScore"] == 17
    assert data["trivialExpressionPenalty"] == -20 and data["simplified"] == "3^2 + 4"


def test_prose_and_persian_digits_are_read(tmp_path: Path) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text("After some thought, the answer is (6+4)*684 = 6840.\n", encoding="utf-8")
    done = run("score", "-b", "natory", "--target", "6840", str(answer), "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["valid"] is True and data["expression"] == "(6+4)*684"
    assert data["finalScore"] > 0
    done = run("score", "-b", "natory", "--target", "6840", "(۶+۴)×۶۸۴", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    persian = json.loads(done.stdout)
    assert persian["valid"] is True and persian["finalScore"] == data["finalScore"]


def test_padding_scores_zero(tmp_path: Path) -> None:
    done = run("score", "-b", "natory", "--target", "6840", "6840-4+4", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["valid"] is True and data["simplified"] == "6840" and data["finalScore"] == 0


def test_stdin(tmp_path: Path) -> None:
    done = run("score", "-b", "natory", "--target", "13", "-", "--json", cwd=tmp_path,
               stdin=b"p_n(3!)\n")  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["specialNumberKey"] == ["prime"] and data["finalScore"] == 35


def test_invalid_expression_is_a_result_with_the_error(tmp_path: Path) -> None:
    done = run("score", "-b", "natory", "--target", "132", "13/2", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["valid"] is False and data["finalScore"] == 0
    assert data["value"] == "13/2"
    assert data["error"] == "the expression equals 13/2, not the target 132"


def test_text_output(tmp_path: Path) -> None:
    done = run("score", "-b", "natory", "--target", "13", "3^(1+1)+(3+1)", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # readable labels, not the game's camelCase field names (those are --json's)
    assert "Final score: 17" in done.stdout  # natory-v2 (v1: 37)
    assert "Null operations: -20" in done.stdout
    assert "Extra digits: -3" in done.stdout
    assert "finalScore" not in done.stdout and "Valid: yes" in done.stdout


@pytest.mark.parametrize("target", ["abc", "0", "-5", "12.5", "", "9" * 40])
def test_bad_target_is_one_line_and_exit_2(tmp_path: Path, target: str) -> None:
    done = run("score", "-b", "natory", f"--target={target}", "1+1", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("benchboard: bad --target")


def test_missing_target_names_todays(tmp_path: Path) -> None:
    done = run("score", "-b", "natory", "1+1", cwd=tmp_path)
    assert done.returncode == 2
    assert "natory needs --target N (today's target is" in done.stderr


def test_target_is_only_for_natory(tmp_path: Path) -> None:
    (tmp_path / "out.txt").write_text("1:1\n")
    done = run("score", "-b", "primebench", "--target", "13", "out.txt", cwd=tmp_path)
    assert done.returncode == 2
    assert "--target is only for natory" in done.stderr


def test_today(tmp_path: Path) -> None:
    done = run("natory", "today", "--date", "2025-01-01", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    expected = daily_challenge(date(2025, 1, 1), "test-seed")
    assert data["target"] == expected.target
    assert data["allowed_digits"] == sorted(expected.allowed_digits)
    text = run("natory", "today", "--date", "2025-01-01", cwd=tmp_path)
    assert f"Natory target for 2025-01-01: {expected.target}" in text.stdout
    assert "allowed digits: " + expected.allowed_text in text.stdout
    plain = run("natory", "today", cwd=tmp_path)
    assert plain.returncode == 0 and "Natory target for" in plain.stdout


def test_bad_date(tmp_path: Path) -> None:
    done = run("natory", "today", "--date", "yesterday", cwd=tmp_path)
    assert done.returncode == 2 and "use YYYY-MM-DD" in done.stderr

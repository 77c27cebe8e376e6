"""Natory's scanning is linear in the input: 1 MB of the worst shapes for each scan
(digits, parentheses, letters, math delimiters without closers, Markdown, LaTeX
commands, one line or many) is read within the issue's bound of 2 s.

``score`` reads only the last 64 KiB; the two scans it uses (math blocks, expression-like
spans) are also fed the whole megabyte here, so a backtracking pattern in either would
show whatever the tail bound hides."""

from __future__ import annotations

import time

import pytest

from scoring.natory import Challenge, score
from scoring.natory.extract import clean, last_span, math_blocks

MB = 1_000_000
BOUND_S = 2.0
#: Every digit allowed: the hostile text reaches the parser, not the digit check.
CHALLENGE = Challenge.for_target(1234567890)


def _fill(unit: str) -> str:
    return unit * (MB // len(unit))


SHAPES = {
    "digits": _fill("1"),
    "open parentheses": _fill("("),
    "close parentheses": _fill(")"),
    "parenthesis pairs": _fill("()"),
    "letters": _fill("a"),
    "dollars": _fill("$"),
    "dollar, letter": _fill("$x"),
    "double dollars": _fill("$$x"),
    "\\( never closed": _fill("\\("),
    "\\[ never closed": _fill("\\["),
    "$ then a line break": _fill("$1\n"),
    "bold markers": _fill("**"),
    "operators": _fill("1+"),
    "open sums": _fill("(1+"),
    "functions never closed": _fill("sqrt("),
    "prose and sums": _fill("a 1+1 "),
    "equals signs": _fill("1="),
    "p_{n}(": _fill("p_{n}("),
    "p_n names then prose": _fill("p_n ") + "x",
    "Persian digits": _fill("۶+"),
    "Arabic-Indic digits": _fill("٦×"),
    "many short lines": _fill("1+1 a\n"),
    "spaces": _fill(" "),
    "backslashes": _fill("\\"),
    "LaTeX commands": _fill("\\times"),
    "LaTeX wrappers never closed": _fill("\\operatorname{"),
    "everything at once": _fill("(1+$\\(**a=۶\\times "),
    "a long label": _fill("a" * 30 + " ") + ":",
    "prose then an expression": _fill("lorem ipsum ") + " so (6+4)*684 = 6840.",
}


def _timed(work: object, text: str) -> float:
    assert callable(work)
    start = time.perf_counter()
    work(text)
    return time.perf_counter() - start


@pytest.mark.parametrize("name", list(SHAPES))
def test_score_reads_a_megabyte_of_it_quickly(name: str) -> None:
    text = SHAPES[name]
    assert len(text) >= MB - 31
    start = time.perf_counter()
    result = score(text, CHALLENGE)
    elapsed = time.perf_counter() - start
    assert elapsed < BOUND_S, f"{name}: {elapsed:.2f} s"
    # never an internal error: valid, or a refusal with its reason
    assert result.valid or result.error


@pytest.mark.parametrize("name", list(SHAPES))
def test_each_scan_is_linear_on_the_whole_megabyte(name: str) -> None:
    text = SHAPES[name]
    for scan in (math_blocks, last_span):
        elapsed = _timed(scan, text)
        assert elapsed < BOUND_S, f"{scan.__name__} on {name}: {elapsed:.2f} s"


def test_cleaning_a_long_candidate_is_linear() -> None:
    # the label pattern is anchored and bounded; '=' splitting is one pass
    for text in (_fill("a "), _fill("1="), _fill("**1")):
        assert _timed(clean, text) < BOUND_S


def test_the_expression_after_a_megabyte_of_prose_is_found() -> None:
    text = SHAPES["prose then an expression"]
    result = score(text, Challenge.for_target(6840))
    assert result.valid and result.expression == "(6+4)*684"

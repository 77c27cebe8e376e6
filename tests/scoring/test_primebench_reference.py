"""PrimeBench's fast parser against a plain reading of the rules, result for result.

``reference`` below follows shared/specs/primebench.md step by step (lines, segments,
tokens, one answer per token), with none of the parser's shortcuts. Every test compares
complete results (``to_record``, and the result objects themselves) on three routes:
``pb.score`` as called, the fast path for short texts (``_score_small``) on its own, and
the full parser forced by setting ``_SMALL_TEXT`` below any length.
"""

from __future__ import annotations

import hashlib
import pickle
import random
import re
from collections import Counter
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import MAX_REPORTED_INVALID_LINES
from scoring import primebench as pb
from scoring.base import InvalidLine
from scoring.primebench import hints as pb_hints
from scoring.primebench import parse as pb_parse
from scoring.primebench import scorer as pb_scorer
from scoring.text import normalise_newlines

_rng = random.Random(11)
KEY = pb.load_key("\n".join(f"{q}:{_rng.randint(1, 4)}" for q in range(1, 105)).encode())
#: a short key in an unusual order: questions missing in the middle, not sorted
KEY_ODD = pb.load_key(b"7:1\n2:4\n10:2\n3:3\n")

_ANSWER_TOKEN = re.compile(r"([0-9]+):([0-9]+|[nN][oO][nN][eE])")
#: significant digits a question number may have, and an option keeps (any option is
#: one: a longer one counts wrong, as 1:7 does) (scoring/primebench/parse.py)
_MAX_DIGITS = 1000


def reference(text: str, key: pb.PrimeKey) -> pb.PrimeBenchResult:
    """The rules read literally: slow, simple, and independent of the parser."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()  # a final line break ends the last line; it does not start another
    final: dict[int, str] = {}
    seen: Counter[int] = Counter()
    invalid: list[tuple[int, str]] = []
    for number, line in enumerate(lines, start=1):
        line_is_invalid = False
        for segment in re.split("[,;]", line):
            for token in re.sub(r"\s*:\s*", ":", segment).split():
                match = _ANSWER_TOKEN.fullmatch(token)
                question = match[1].lstrip("0") if match else ""
                option = match[2].lower() if match else ""
                if option != pb.NONE:
                    option = option.lstrip("0")
                if match is None or len(question) > _MAX_DIGITS:
                    line_is_invalid = True
                    continue
                option = option[:_MAX_DIGITS]  # a longer option is kept as its first digits
                final[int(question or "0")] = option if option == pb.NONE else option or "0"
                seen[int(question or "0")] += 1
        if line_is_invalid:
            invalid.append((number, line))
    expected = {str(q): str(o) for q, o in key.answers.items()}
    known = {q: o for q, o in final.items() if str(q) in expected}
    correct = sum(1 for q, o in known.items() if o == expected[str(q)])
    wrong = sum(1 for q, o in known.items() if o not in (expected[str(q)], pb.NONE))
    shown = invalid[:MAX_REPORTED_INVALID_LINES]
    # the fingerprint is of the answers that count (the key's questions)
    standing = ";".join(f"{q}:{final[q]}" for q in sorted(known))
    duplicates = sorted(q for q, n in seen.items() if n > 1)
    # the hints never change the score: they are the hints module's own (its tests
    # in test_primebench.py), given the lines and the repeated questions found here
    hints = pb_hints.hints_for([InvalidLine(n, t) for n, t in shown], frozenset(duplicates))
    unknown = sorted(q for q in final if str(q) not in expected)
    return pb.PrimeBenchResult(
        total_questions=len(key.answers),
        correct=correct,
        wrong=wrong,
        unanswered=len(key.answers) - correct - wrong,
        invalid_lines=tuple(InvalidLine(n, t) for n, t in shown),
        invalid_line_count=len(invalid),
        duplicates=tuple(duplicates),
        unknown_questions=tuple(unknown),
        hints=tuple(hints),
        fingerprint=hashlib.sha256(standing.encode()).hexdigest(),
        duplicate_count=len(duplicates),
        unknown_question_count=len(unknown),
    )


def full_parser(text: str, key: pb.PrimeKey) -> pb.PrimeBenchResult:
    with mock.patch.object(pb_scorer, "_SMALL_TEXT", -1):
        return pb.score(text, key)


def assert_same(got: pb.PrimeBenchResult, want: pb.PrimeBenchResult) -> None:
    assert got.to_record() == want.to_record()
    assert got == want


def assert_all_routes_agree(text: str, key: pb.PrimeKey) -> None:
    want = reference(text, key)
    assert_same(pb.score(text, key), want)
    assert_same(full_parser(text, key), want)
    fast = pb_scorer._score_small(normalise_newlines(text), key)
    if fast is not None:
        assert_same(fast, want)


# --- what texts are made of ------------------------------------------------------------

OPTIONS = ["1", "2", "3", "4", "none", "None", "NONE", "0", "7"]
SPACES = ["", " ", "  ", "\t", "\u00a0", "\u3000", " \t "]

#: one answer to a key question, the way models usually write it
plain_line = st.builds(lambda q, o: f"{q}:{o}", st.integers(1, 104), st.sampled_from(OPTIONS))
#: the same with whitespace around the colon
spaced_line = st.builds(
    lambda q, a, b, o: f"{q}{a}:{b}{o}",
    st.integers(1, 104),
    st.sampled_from(SPACES),
    st.sampled_from(SPACES),
    st.sampled_from(OPTIONS),
)
#: an answer with whitespace around it (a markdown line break, an indent)
padded_line = st.builds(
    lambda a, line, b: f"{a}{line}{b}",
    st.sampled_from(SPACES),
    st.one_of(plain_line, spaced_line),
    st.sampled_from(SPACES),
)
#: lines without any answer: prose, blanks, near misses (these keep the fast path)
ANSWERLESS = [
    "",
    " ",
    "\t",
    ",",
    ";;",
    " , ; ",
    "Final answers:",
    "Let me think step by step.",
    "Question 12: option 3 looks right.",
    "Q1:2",
    "q12: 3",
    "۱:۳",
    "١:٣",
    "1：3",
    "1:3.",
    "1-3",
    "1:2:3",
    "none:1",
    "1:nonee",
    "1:",
    ":3",
    "**1:2**",
    "12:three",
    "\u2028",
    "\x0b",
    "\x1c",
    "\x85",
    "x" * 3000,
    "0" * 5 + "1" * 1001 + ":1",
]
answerless_line = st.sampled_from(ANSWERLESS)
#: lines the fast path leaves to the full parser: answers it does not know by heart
other_answer_line = st.one_of(
    st.sampled_from(
        [
            "1:2 3:4",
            "1:2, 2:3; 3:4",
            "x 5:1",
            "5:1 because",
            "1:2\u3000",
            "\x1c1:2",
            "1:2\x85",
            "01:2",
            "3:04",
            "0:1",
            "0:none",
            "5:nOnE",
            "0000:0000",
            "105:1",
            "1:" + "9" * 1000,
            "1" * 1000 + ":2",
            "0" * 3000 + "7:" + "0" * 3000 + "2",
            "9" * 40 + ":none",
        ]
    ),
    st.builds(lambda q, o: f"{q}:{o}", st.integers(0, 10**6), st.integers(0, 10**6)),
    st.lists(plain_line, min_size=2, max_size=6).map(", ".join),
    st.lists(plain_line, min_size=1, max_size=400).map(" ".join),  # a long line
)
NEWLINES = st.sampled_from(["\n", "\r\n", "\r"])
ENDINGS = st.sampled_from(["", "\n", "\n\n", "\r\n", " \n"])


def texts(*odd: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    line = st.one_of(plain_line, plain_line, plain_line, spaced_line, padded_line, *odd)
    return st.builds(
        lambda body, newline, ending: newline.join(body) + ending,
        st.lists(line, max_size=150),
        NEWLINES,
        ENDINGS,
    )


# --- properties --------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(text=texts(answerless_line))
def test_fast_path_takes_answers_with_prose_and_agrees(text: str) -> None:
    """Plain answers (any spacing, case, order, repeats) among answer-free lines are the
    fast path's to score, and it scores them exactly as the rules say."""
    result = pb_scorer._score_small(normalise_newlines(text), KEY)
    assert result is not None
    assert_same(result, reference(text, KEY))
    assert_all_routes_agree(text, KEY)


@settings(max_examples=400, deadline=None)
@given(text=texts(answerless_line, other_answer_line))
def test_every_route_agrees_with_the_rules(text: str) -> None:
    assert_all_routes_agree(text, KEY)


@settings(max_examples=200, deadline=None)
@given(text=texts(answerless_line, other_answer_line, st.text(max_size=20)))
def test_every_route_agrees_on_arbitrary_lines(text: str) -> None:
    assert_all_routes_agree(text, KEY)
    assert_all_routes_agree(text, KEY_ODD)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=" \t\u00a0\u3000\n:1a", max_size=40))
def test_tightening_colons_is_the_regular_expression(text: str) -> None:
    assert pb_parse.tighten_colons(text) == pb_parse._WS_AROUND_COLON.sub(":", text)


# --- cases worth naming --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n",
        "\n\n\n",
        "1:2",
        "1:2\n",
        "1: none\n2 :3\n3 : 4\n4:\u00a01",
        "1:3\n1:2\n1:2\n2:none\n2:4",  # last answer stands; duplicates listed
        "Final answers:\n1:1\n\nQ2:3\n۳:۴\n1：2\n4:1.\n",  # every hint, on the fast path
        "\n".join(f"{q}:{q % 4 + 1}" for q in range(104, 0, -1)),  # all, in reverse order
        "\n".join(f"{q}:{q % 4 + 1}" for q in range(1, 105)),  # all, in order
        "\r\n".join(f"{q}: None" for q in range(1, 105)),
        "1:2\n1:2 3:4\n1:3",  # an answer off the fast path between two on it
        "1:2\n105:1\n1:3",
        "1:" + " " * 50 + "2\n" + "3" + " " * 9 + ":4",  # long runs of spaces by a colon
        "x\n" * (MAX_REPORTED_INVALID_LINES + 7) + "1:2",  # the cap, on the fast path
        "1:2\n" + "y" * 70_000 + "\n3:4",  # too long for the fast path
    ],
)
def test_named_cases(text: str) -> None:
    assert_all_routes_agree(text, KEY)
    assert_all_routes_agree(text, KEY_ODD)


def test_the_fast_path_counts_invalid_lines_beyond_the_cap() -> None:
    text = "x\n" * (MAX_REPORTED_INVALID_LINES + 7) + "1:2"
    result = pb_scorer._score_small(text, KEY)
    assert result is not None
    assert result.invalid_line_count == MAX_REPORTED_INVALID_LINES + 7
    assert len(result.invalid_lines) == MAX_REPORTED_INVALID_LINES


def test_the_fast_path_leaves_answers_in_prose_to_the_full_parser() -> None:
    for line in ("1:2 3:4", "the answer is 1:2", "01:2", "105:1", "0:1"):
        assert pb_scorer._score_small(f"2:3\n{line}\n", KEY) is None


def test_a_pickled_key_scores_the_same() -> None:
    text = "1:2\n2: none\nprose\n3:4\n1:1"
    key = pickle.loads(pickle.dumps(KEY))
    assert key == KEY
    assert key.order == KEY.order and key.plain == KEY.plain
    assert_same(pb.score(text, key), pb.score(text, KEY))

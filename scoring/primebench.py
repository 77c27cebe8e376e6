"""PrimeBench (JibayAI, jibay.ir; CC BY-ND 4.0): answer lines ``Q:O``, +1 / −3 / 0.

The rules are ``shared/specs/primebench.md``. Parsing works on the whole text with a few
compiled regular expressions, a megabyte at a time, so a 20 MB submission scores in well
under a second and in bounded memory; only the lines that fail are visited one by one.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from itertools import compress, islice
from typing import Any

from .base import MAX_REPORTED_INVALID_LINES, Hint, InvalidLine
from .errors import KeyFormatError
from .text import decode, normalise_newlines

NAME = "primebench"
TITLE = "PrimeBench"
SCORER_VERSION = "primebench-1"
CREDIT = "PrimeBench by JibayAI (jibay.ir), CC BY-ND 4.0"
OFFICIAL_QUESTIONS = 104
OPTIONS = (1, 2, 3, 4)
POINTS_CORRECT = 1
POINTS_WRONG = -3

#: The official prompt, verbatim. Never edit it (the license forbids altering it).
PROMPT = """Based on the questions, choose the correct option.

Explanation:
Each correct option you choose earns one positive point.
Each incorrect option you choose incurs three negative points.
If you do not select an option for a question, you receive neither a negative nor a positive point.

Your output must only and exclusively be in this format Q:O
For example; the first question, option three:
1:3

If you do not want to or cannot answer a question, put none instead of the option number.
You have only one choice for each question.
Your score will be evaluated from 0 to 100 percent.
Provide the final answer.
"""

# --- parsing -------------------------------------------------------------------------
#
# Rule: lines; segments at "," and ";"; whitespace around ":" removed; tokens split at
# whitespace. A token is an answer when it is NUMBER:NUMBER or NUMBER:none, NUMBER being
# ASCII digits only (never \d, which would admit Persian digits). Leading zeros are
# folded (4:04 is option 4); a number may have at most 1,000 significant digits, so no
# token becomes an integer too large to print.
#
# Speed: a model's output repeats itself a lot (a 20 MB file of answer lines has at most
# a few hundred distinct lines), so each chunk of the text is split into lines, the
# distinct lines are counted in C, and only distinct lines are parsed in Python. Order
# is kept: within a chunk, lines are applied in the order of their last occurrence,
# which is all "the last answer stands" needs.

_WS_AROUND_COLON = re.compile(r"\s*:\s*")
_SEPARATORS = re.compile(r"[\s,;]+")
_TOKEN = re.compile(r"([0-9]+):([0-9]+|[nN][oO][nN][eE])")
_MAX_DIGITS = 1000
_CHUNK = 1 << 20
NONE = "none"

#: (question, option) as canonical digit strings; option may be "none".
_Answer = tuple[str, str]


def _canonical(number: str) -> str | None:
    digits = number.lstrip("0") or "0"
    return digits if len(digits) <= _MAX_DIGITS else None


def parse_line(line: str) -> tuple[tuple[_Answer, ...], bool]:
    """The answers on one line, and whether the line holds an invalid token."""
    match = _TOKEN.fullmatch(line)  # the common case: the line is one answer
    if match is None:
        return _parse_general(line)
    question, option = _canonical(match[1]), match[2]
    option = NONE if option[0] in "nN" else _canonical(option)
    if question is None or option is None:
        return (), True
    return ((question, option),), False


def _parse_general(line: str) -> tuple[tuple[_Answer, ...], bool]:
    answers: list[_Answer] = []
    invalid = False
    for token in _SEPARATORS.split(_WS_AROUND_COLON.sub(":", line)):
        if not token:
            continue
        match = _TOKEN.fullmatch(token)
        question = option = None
        if match is not None:
            question = _canonical(match[1])
            option = NONE if match[2][0] in "nN" else _canonical(match[2])
        if question is None or option is None:
            invalid = True
        else:
            answers.append((question, option))
    return tuple(answers), invalid


# Near misses the rule counts invalid, recognised only to explain them (never scored).
_PERSIAN_DIGIT = "[\u06f0-\u06f9\u0660-\u0669]"
_NONE_RE = "[nN][oO][nN][eE]"
_HINT_PATTERNS: tuple[tuple[str, re.Pattern[str], str], ...] = (
    (
        "persian_digits",
        re.compile(rf"{_PERSIAN_DIGIT}+\s*[:：]\s*(?:{_PERSIAN_DIGIT}|[0-9])+"),
        "Persian/Arabic-Indic digits on {lines}: the official rules count such lines "
        "invalid (answers must use ASCII digits 0-9)",
    ),
    (
        "fullwidth_colon",
        re.compile(r"[0-9\u06f0-\u06f9\u0660-\u0669]+\s*："),
        "a full-width colon (：) on {lines}: the official rules count such lines invalid "
        "(use the ASCII colon :)",
    ),
    (
        "q_prefix",
        re.compile(r"(?<![^\s,;])[Qq]\s*[0-9]+\s*[:：.)]"),
        "a Q before the question number on {lines}: the official rules count such lines "
        "invalid (write 1:3, not Q1:3)",
    ),
    (
        "trailing_period",
        re.compile(rf"(?<![^\s,;])[0-9]+\s*:\s*(?:[0-9]+|{_NONE_RE})\.(?!\S)"),
        "an answer ending in a period on {lines}: the official rules count such lines "
        "invalid (write 1:3, not 1:3.)",
    ),
)


@dataclass(frozen=True, slots=True)
class PrimeKey:
    """An answer key: question number → option (1–4), in file order."""

    answers: Mapping[int, int]
    sha256: str = ""

    def __len__(self) -> int:
        return len(self.answers)


@dataclass(frozen=True, slots=True)
class PrimeBenchResult:
    total_questions: int
    correct: int
    wrong: int
    unanswered: int
    invalid_lines: tuple[InvalidLine, ...]
    invalid_line_count: int
    duplicates: tuple[int, ...]
    unknown_questions: tuple[int, ...]
    hints: tuple[Hint, ...]
    fingerprint: str
    benchmark: str = field(default=NAME)

    @property
    def positive_points(self) -> int:
        return self.correct * POINTS_CORRECT

    @property
    def negative_points(self) -> int:
        return -self.wrong * POINTS_WRONG

    @property
    def final_score(self) -> int:
        return self.positive_points - self.negative_points

    @property
    def primary(self) -> float:
        return float(self.final_score)

    @property
    def answered(self) -> int:
        return self.correct + self.wrong

    @property
    def accuracy(self) -> float | None:
        """Share of answered questions that are correct (None when nothing was answered)."""
        return self.correct / self.answered if self.answered else None

    @property
    def coverage(self) -> float:
        """Share of the key's questions that were answered."""
        return self.answered / self.total_questions if self.total_questions else 0.0

    def summary_fields(self) -> tuple[tuple[str, str], ...]:
        fields = [
            ("total_questions", str(self.total_questions)),
            ("correct", str(self.correct)),
            ("wrong", str(self.wrong)),
            ("unanswered", str(self.unanswered)),
            ("positive_points", str(self.positive_points)),
            ("negative_points", str(self.negative_points)),
            ("final_score", str(self.final_score)),
        ]
        if self.accuracy is not None:
            fields.append(("accuracy", f"{self.accuracy:.1%} ({self.correct}/{self.answered})"))
        fields.append(("coverage", f"{self.coverage:.1%} ({self.answered}/{self.total_questions})"))
        return tuple(fields)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "total_questions": self.total_questions,
            "correct": self.correct,
            "wrong": self.wrong,
            "unanswered": self.unanswered,
            "positive_points": self.positive_points,
            "negative_points": self.negative_points,
            "final_score": self.final_score,
            "invalid_lines": [il.to_json() for il in self.invalid_lines],
            "duplicates": list(self.duplicates),
            "unknown_questions": list(self.unknown_questions),
            "hints": [h.message for h in self.hints],
        }
        return data

    def to_record(self) -> dict[str, Any]:
        """Everything needed to rebuild this result (``to_json`` plus internals)."""
        data = self.to_json()
        data["invalid_line_count"] = self.invalid_line_count
        data["hint_codes"] = [[h.code, list(h.lines)] for h in self.hints]
        data["fingerprint"] = self.fingerprint
        return data


# --- the key -------------------------------------------------------------------------

_KEY_LINE = re.compile(r"([0-9]+)[^\S\n]*:[^\S\n]*([0-9]+)")


def load_key(data: bytes, *, filename: str = "A.txt") -> PrimeKey:
    """Parse ``A.txt`` strictly: one ``question:option`` line per question, option 1–4.

    Blank lines and surrounding whitespace are tolerated; anything else is refused with
    the first bad line's number and text.
    """
    text = normalise_newlines(decode(data))
    answers: dict[int, int] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        match = _KEY_LINE.fullmatch(stripped)
        if match is None:
            raise KeyFormatError("expected question:option such as 12:3", line=number, text=line)
        question, option = int(match[1]), int(match[2])
        if option not in OPTIONS:
            raise KeyFormatError("the option must be 1, 2, 3 or 4", line=number, text=line)
        if question < 1:
            raise KeyFormatError("question numbers start at 1", line=number, text=line)
        if question in answers:
            raise KeyFormatError(f"question {question} appears twice", line=number, text=line)
        answers[question] = option
    if not answers:
        raise KeyFormatError(f"{filename} holds no answers")
    return PrimeKey(answers=answers, sha256=hashlib.sha256(data).hexdigest())


def load_questions(data: bytes) -> dict[int, dict[str, str]]:
    """Validate ``Q.json`` and return question number → its fields (text untouched).

    The caller keeps the original bytes: this parse is only a check.
    """
    try:
        parsed = json.loads(decode(data))
    except json.JSONDecodeError as exc:
        raise KeyFormatError(f"Q.json is not valid JSON: {exc.msg}", line=exc.lineno) from None
    if not isinstance(parsed, dict) or not parsed:
        raise KeyFormatError('Q.json must be an object {"Question_1": {...}, ...}')
    questions: dict[int, dict[str, str]] = {}
    for name, body in parsed.items():
        match = re.fullmatch(r"Question_([0-9]+)", name)
        if match is None:
            raise KeyFormatError(f"unexpected entry {name!r} in Q.json (want Question_N)")
        fields = ("question", *(f"option_{o}" for o in OPTIONS))
        if not isinstance(body, dict) or any(not isinstance(body.get(f), str) for f in fields):
            raise KeyFormatError(f"{name} must have question and option_1 … option_4 as text")
        questions[int(match[1])] = body
    return questions


def check_pair(key: PrimeKey, questions: Mapping[int, object]) -> None:
    """The key and the question file must cover the same question numbers."""
    missing = sorted(set(questions) - set(key.answers))
    extra = sorted(set(key.answers) - set(questions))
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"no key line for question(s) {_short_list(missing)}")
        if extra:
            parts.append(f"key lines for unknown question(s) {_short_list(extra)}")
        raise KeyFormatError("A.txt and Q.json disagree: " + "; ".join(parts))


def _short_list(numbers: list[int], limit: int = 10) -> str:
    shown = ", ".join(map(str, numbers[:limit]))
    return shown + (f" and {len(numbers) - limit} more" if len(numbers) > limit else "")


# --- scoring -------------------------------------------------------------------------


def _chunks(text: str) -> Iterator[str]:
    """Yield pieces of about a megabyte, each ending just after a newline (but the last)."""
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start + _CHUNK)
        end = size if end < 0 else end + 1
        yield text[start:end]
        start = end


def score(text: str, key: PrimeKey) -> PrimeBenchResult:
    """Score decoded text against a key. Never raises on any text."""
    text = normalise_newlines(text)
    final: dict[str, str] = {}  # question -> option, the last answer standing
    seen: Counter[str] = Counter()  # question -> how many times it was answered
    invalid: list[InvalidLine] = []
    invalid_count = 0
    parsed: dict[str, tuple[tuple[_Answer, ...], bool]] = {}
    first_line = 1
    for chunk in _chunks(text):
        lines = chunk.split("\n")
        if chunk.endswith("\n"):
            lines.pop()  # the empty piece after the final newline is not a line
        # Counting the lines backwards keeps them in order of their last occurrence,
        # reversed: one pass in C gives both the counts and the order to apply them in.
        counts = Counter(reversed(lines))
        bad: set[str] = set()
        if len(parsed) > 100_000:
            parsed.clear()  # bounded memory on files of all-different lines
        for line in reversed(counts):
            entry = parsed.get(line)
            if entry is None:
                entry = parsed[line] = parse_line(line)
            answers, is_invalid = entry
            times = counts[line]
            for question, option in answers:
                final[question] = option
                seen[question] += times
            if is_invalid:
                bad.add(line)
                invalid_count += times
        room = MAX_REPORTED_INVALID_LINES - len(invalid)
        if bad and room > 0:
            where = compress(range(len(lines)), map(bad.__contains__, lines))
            invalid.extend(InvalidLine(first_line + i, lines[i]) for i in islice(where, room))
        first_line += len(lines)
    return _result(key, final, seen, invalid, invalid_count)


def _result(
    key: PrimeKey,
    final: dict[str, str],
    seen: Counter[str],
    invalid: list[InvalidLine],
    invalid_count: int,
) -> PrimeBenchResult:
    correct = wrong = 0
    unknown: list[int] = []
    answers: list[tuple[int, str]] = []
    for q, option in final.items():
        question = int(q)
        answers.append((question, option))
        expected = key.answers.get(question)
        if expected is None:
            unknown.append(question)
        elif option == NONE:
            continue
        elif int(option) == expected:
            correct += 1
        else:
            wrong += 1  # includes options outside 1-4 ("malformed but parseable")
    answers.sort()
    fingerprint = hashlib.sha256(";".join(f"{q}:{o}" for q, o in answers).encode()).hexdigest()
    return PrimeBenchResult(
        total_questions=len(key.answers),
        correct=correct,
        wrong=wrong,
        unanswered=len(key.answers) - correct - wrong,
        invalid_lines=tuple(invalid),
        invalid_line_count=invalid_count,
        duplicates=tuple(sorted(int(q) for q, n in seen.items() if n > 1)),
        unknown_questions=tuple(sorted(unknown)),
        hints=_hints(invalid),
        fingerprint=fingerprint,
    )


def _hints(invalid: list[InvalidLine]) -> tuple[Hint, ...]:
    hints = []
    for code, pattern, message in _HINT_PATTERNS:
        lines = tuple(il.line for il in invalid if pattern.search(il.text))
        if lines:
            hints.append(Hint(code, message.format(lines=_lines_phrase(lines)), lines))
    return tuple(hints)


def _lines_phrase(lines: tuple[int, ...]) -> str:
    if len(lines) == 1:
        return f"line {lines[0]}"
    return "lines " + _short_list(list(lines), limit=8)


def result_from_record(data: Mapping[str, Any]) -> PrimeBenchResult:
    """Rebuild a result from :meth:`PrimeBenchResult.to_record` output."""
    hints = tuple(
        Hint(code, message, tuple(lines))
        for (code, lines), message in zip(data.get("hint_codes", []), data["hints"], strict=True)
    )
    return PrimeBenchResult(
        total_questions=data["total_questions"],
        correct=data["correct"],
        wrong=data["wrong"],
        unanswered=data["unanswered"],
        invalid_lines=tuple(InvalidLine(il["line"], il["text"]) for il in data["invalid_lines"]),
        invalid_line_count=data.get("invalid_line_count", len(data["invalid_lines"])),
        duplicates=tuple(data["duplicates"]),
        unknown_questions=tuple(data["unknown_questions"]),
        hints=hints,
        fingerprint=data.get("fingerprint", ""),
    )


class PrimeBench:
    """The registry's PrimeBench object (see :class:`scoring.base.Benchmark`)."""

    name = NAME
    title = TITLE
    scorer_version = SCORER_VERSION
    credit = CREDIT
    prompt = PROMPT

    def load_key(self, data: bytes, *, filename: str = "A.txt") -> PrimeKey:
        return load_key(data, filename=filename)

    def score(
        self, text: str, key: PrimeKey, *, options: Mapping[str, Any] | None = None
    ) -> PrimeBenchResult:
        return score(text, key)

    def result_from_record(self, data: Mapping[str, Any]) -> PrimeBenchResult:
        return result_from_record(data)


BENCHMARK = PrimeBench()

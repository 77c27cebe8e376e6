"""PrimeBench (JibayAI, jibay.ir; CC BY-ND 4.0): answer lines ``Q:O``, +1 / −3 / 0.

The rules are ``shared/specs/primebench.md``. Parsing works on the whole text with a few
compiled regular expressions, a megabyte at a time, in bounded memory; only the lines
that fail are visited one by one.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import is_, itemgetter
from typing import TYPE_CHECKING, Any, cast

from .base import MAX_REPORTED_INVALID_LINES, Benchmark, Hint, InvalidLine, KeyCheck
from .errors import KeyFormatError
from .text import decode, normalise_newlines

NAME = "primebench"
TITLE = "PrimeBench"
SCORER_VERSION = "primebench-1"
CREDIT = "PrimeBench by JibayAI (jibay.ir), CC BY-ND 4.0"
OFFICIAL_QUESTIONS = 104
#: Where the key and the question file live in the data folder.
KEY_FILE = "primebench/A.txt"
QUESTIONS_FILE = "primebench/Q.json"
OPTIONS = (1, 2, 3, 4)
POINTS_CORRECT = 1
POINTS_WRONG = -3
#: How much of an invalid line's text a stored record keeps.
RECORD_LINE_TEXT = 500

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
# folded (4:04 is option 4); a number has at most 1,000 significant digits, so no token
# becomes an integer too large to print.
#
# Once whitespace around colons is removed, a token is a maximal run of characters that
# are neither whitespace nor "," / ";", so one regular expression finds every answer
# with its boundaries, and another finds every line that is not made of answers only.
#
# Speed: a model's output repeats itself (a 20 MB file of answer lines has at most a few
# hundred distinct lines), so each chunk of about a megabyte is split into lines, the
# distinct lines are counted in C, and only distinct lines are parsed. Counting the
# lines backwards keeps them in order of their last occurrence, which is all "the last
# answer stands" needs. A chunk of mostly different lines is scanned with the regular
# expressions instead, and a line longer than a chunk is read a piece at a time.
#
# A short text (the usual submission: about a hundred lines such as 12:3) is first tried
# on a fast path that looks each line up in a table of the key's plain answer lines
# (PrimeKey.plain) and parses none of them; see _score_small for when it steps aside.

_DIGITS = r"(?=[0-9])0*+([1-9][0-9]{0,999}+)?(?![0-9])"  # group: significant digits
_OPTION = rf"(?:{_DIGITS}|([nN][oO][nN][eE]))"  # groups: digits, "none"
_PAIR = f"{_DIGITS}:{_OPTION}"
#: One answer token; groups (question, option digits, "none"). Empty digits mean 0.
_TOKEN = re.compile(_PAIR)
_ANSWER = re.compile(rf"(?<![^\s,;]){_PAIR}(?![^\s,;])")
_SEP = r"(?:[^\S\n]|[,;])"
_BARE_PAIR = _PAIR.replace("([", "(?:[")  # the same, without capturing groups
#: A line that is NOT made only of answer tokens and separators (an invalid line).
_INVALID_LINE = re.compile(
    rf"^(?!{_SEP}*(?:{_BARE_PAIR}(?:{_SEP}+{_BARE_PAIR})*{_SEP}*)?$)[^\n]*",
    re.MULTILINE,
)
_WS_AROUND_COLON = re.compile(r"[^\S\n]+:[^\S\n]*|:[^\S\n]+")
#: ASCII whitespace other than space and newline (what \s also matches).
_RARE_ASCII_SPACE = ("\t", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f")
_SEPARATOR = re.compile(r"[\s,;]")
_CHUNK = 1 << 20
NONE = "none"
#: Texts up to this many characters are first tried on the fast path (_score_small);
#: well under a chunk, so to the full parser such a text is one chunk too.
_SMALL_TEXT = 1 << 16
#: The options of the answer lines PrimeKey.plain recognises without parsing.
_PLAIN_OPTIONS = (*"0123456789", NONE, "None", "NONE")

#: question digits -> (option digits, "none" text); see _TOKEN's groups.
_Answers = dict[str, tuple[str, str]]
_Parsed = tuple[tuple[tuple[str, str, str], ...], bool]


def _pieces(text: str) -> Iterator[str]:
    """Cut text into pieces of about a chunk, only at separators (token boundaries)."""
    start, size = 0, len(text)
    while start < size:
        cut = _SEPARATOR.search(text, min(start + _CHUNK, size))
        end = size if cut is None else cut.end()
        yield text[start:end]
        start = end


def _tighten_colons(text: str) -> str:
    """Remove the whitespace around every ":" (but newlines), as _WS_AROUND_COLON does.

    Both remove exactly the runs of whitespace next to a colon. When the only such
    whitespace can be the ASCII space (the usual ``12: 3``), str.replace does it without
    the regular expression; a run of many spaces is left to it.
    """
    if text.isascii() and not any(space in text for space in _RARE_ASCII_SPACE):
        for _ in range(4):
            if " :" not in text and ": " not in text:
                return text
            text = text.replace(" :", ":").replace(": ", ":")
    return _WS_AROUND_COLON.sub(":", text)


def parse_line(line: str) -> _Parsed:
    """The answer tokens on one (colon-normalised) line, and whether it is invalid."""
    match = _TOKEN.fullmatch(line)  # the common case: the line is one answer
    if match is not None:
        question, option, none = match.groups("")
        return ((question, option, none),), False
    return tuple(_ANSWER.findall(line)), _INVALID_LINE.match(line) is not None


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
    #: the same answers as digit strings, the form the parser produces
    by_text: Mapping[str, str] = field(init=False, repr=False, compare=False)
    #: the key's question numbers (digit strings) in numeric order
    order: tuple[str, ...] = field(init=False, repr=False, compare=False)
    #: the correct answers, and the "none" answers, as a result lists them (``12:3``)
    correct_lines: frozenset[str] = field(init=False, repr=False, compare=False)
    none_lines: frozenset[str] = field(init=False, repr=False, compare=False)
    _plain: dict[str, tuple[str, str]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        by_text = {str(q): str(o) for q, o in self.answers.items()}
        object.__setattr__(self, "by_text", by_text)
        object.__setattr__(self, "order", tuple(sorted(by_text, key=int)))
        correct = frozenset(f"{q}:{o}" for q, o in by_text.items())
        object.__setattr__(self, "correct_lines", correct)
        object.__setattr__(self, "none_lines", frozenset(f"{q}:{NONE}" for q in by_text))

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as what it is made from: a key travels to the worker process with every
        # large submission, and the tables built from it are larger than the key.
        return (PrimeKey, (self.answers, self.sha256))

    @property
    def plain(self) -> Mapping[str, tuple[str, str]]:
        """A line that is exactly one answer to a key question, in the forms models
        usually write (``12:3``, ``12:none``) → (question, the answer as a result lists
        it). Built on first use: only short texts need it (see _score_small)."""
        plain = self._plain
        if plain is None:
            plain = {}
            for question in self.by_text:
                for option in _PLAIN_OPTIONS:
                    canonical = NONE if option.lower() == NONE else option
                    plain[f"{question}:{option}"] = (question, f"{question}:{canonical}")
            object.__setattr__(self, "_plain", plain)
        return plain

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
        """Everything needed to rebuild this result (``to_json`` plus internals).

        An invalid line's text is kept up to ``RECORD_LINE_TEXT`` characters (the raw
        input is stored whole beside the record), so one 20 MB line does not make a
        20 MB record that every button press reads back.
        """
        data = self.to_json()
        for line in data["invalid_lines"]:
            if len(line["text"]) > RECORD_LINE_TEXT:
                line["text"] = line["text"][: RECORD_LINE_TEXT - 1] + "…"
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
    """Yield pieces of about a chunk, each ending just after a newline (but the last)."""
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start + _CHUNK)
        end = size if end < 0 else end + 1
        yield text[start:end]
        start = end


class _Tally:
    """What scoring accumulates while it reads the text in order."""

    def __init__(self) -> None:
        self.final: _Answers = {}  # the last answer standing per question
        self.seen: Counter[str] = Counter()  # how many times each question was answered
        self.invalid: list[InvalidLine] = []
        self.invalid_count = 0

    def answers(self, found: Sequence[tuple[str, str, str]], times: int = 1) -> None:
        self.final.update(zip(map(itemgetter(0), found), map(itemgetter(1, 2), found), strict=True))
        if times == 1:
            self.seen.update(map(itemgetter(0), found))
        else:
            for question, _, _ in found:
                self.seen[question] += times

    def invalid_at(self, line: int, text: str) -> None:
        self.invalid_count += 1
        if len(self.invalid) < MAX_REPORTED_INVALID_LINES:
            self.invalid.append(InvalidLine(line, text))


def score(text: str, key: PrimeKey) -> PrimeBenchResult:
    """Score decoded text against a key. Never raises on any text."""
    text = normalise_newlines(text)
    if len(text) <= _SMALL_TEXT:
        result = _score_small(text, key)
        if result is not None:
            return result
    tally = _Tally()
    parsed: dict[str, _Parsed] = {}
    first_line = 1
    for raw in _chunks(text):
        chunk = _tighten_colons(raw)
        lines = chunk.split("\n")
        if chunk.endswith("\n"):
            lines.pop()  # the empty piece after the final newline is not a line
        if len(lines) == 1 and len(chunk) > _CHUNK:
            _score_long_line(tally, chunk, raw, first_line)
        else:
            counts = Counter(reversed(lines))
            if len(counts) * 4 > len(lines) > 64:
                _score_scan(tally, chunk, raw, first_line)
            else:
                _score_distinct(tally, lines, counts, raw, first_line, parsed)
        first_line += len(lines)
    return _result(key, tally)


def _score_small(text: str, key: PrimeKey) -> PrimeBenchResult | None:
    """The fast path for a short text, or None to leave it to the full parser.

    A line the key recognises as one plain answer (``PrimeKey.plain``), maybe with
    whitespace around it, needs no parsing; every other distinct line is checked with
    the regular expressions, all of them together. This path only takes texts whose
    other lines hold no answer: then the plain lines alone, in order, decide which
    answer stands, and the other lines can only be invalid or blank. Anything else (an
    answer in prose, two answers on a line, ``01:3``, a question the key lacks) goes to
    the full parser.
    """
    chunk = _tighten_colons(text)
    lines = chunk.split("\n")
    if chunk.endswith("\n"):
        lines.pop()  # the empty piece after the final newline is not a line
    plain = key.plain
    looked_up = list(map(plain.get, lines))
    bad: set[str] = set()
    if None in looked_up:  # some lines are not plain answers: the distinct ones
        others = set(compress(lines, map(is_, looked_up, repeat(None))))
        others.discard("")
        # a plain answer with whitespace around it (12:3 and two spaces) is one too
        padded = {line: answer for line in others if (answer := plain.get(line.strip()))}
        if padded:
            looked_up = list(map(padded.get, lines, looked_up))
            others.difference_update(padded)
        if others:
            joined = "\n".join(others)
            if _ANSWER.search(joined) is not None:
                return None
            bad.update(map(itemgetter(0), _INVALID_LINE.finditer(joined)))
        found = list(filter(None, looked_up))
    else:
        found = cast(list[tuple[str, str]], looked_up)
    final = dict(found)
    duplicates: tuple[int, ...] = ()
    if len(final) != len(found):
        seen = Counter(map(itemgetter(0), found))
        duplicates = tuple(sorted(int(q) for q, n in seen.items() if n > 1))
    invalid: list[InvalidLine] = []
    invalid_count = 0
    if bad:
        raw_lines = text.split("\n")
        numbers = list(compress(range(1, len(lines) + 1), map(bad.__contains__, lines)))
        invalid_count = len(numbers)
        del numbers[MAX_REPORTED_INVALID_LINES:]
        invalid = [InvalidLine(n, raw_lines[n - 1]) for n in numbers]
    return _build_result(key, final, duplicates, invalid, invalid_count, all_known=True)


def _score_distinct(
    tally: _Tally,
    lines: list[str],
    counts: Counter[str],
    raw: str,
    first_line: int,
    parsed: dict[str, _Parsed],
) -> None:
    """A chunk of repeated lines: parse each distinct line once."""
    if len(parsed) > 100_000:
        parsed.clear()  # bounded memory on files of all-different lines
    bad: set[str] = set()
    for line in reversed(counts):
        entry = parsed.get(line)
        if entry is None:
            entry = parsed[line] = parse_line(line)
        found, is_invalid = entry
        times = counts[line]
        if found:
            tally.answers(found, times)
        if is_invalid:
            bad.add(line)
    if not bad:
        return
    raw_lines = raw.split("\n")
    for index in compress(range(len(lines)), map(bad.__contains__, lines)):
        tally.invalid_at(first_line + index, raw_lines[index])


def _score_scan(tally: _Tally, chunk: str, raw: str, first_line: int) -> None:
    """A chunk of mostly different lines: regular expressions over the whole chunk."""
    tally.answers(_ANSWER.findall(chunk))
    raw_lines: list[str] | None = None
    position, line = 0, first_line
    for match in _INVALID_LINE.finditer(chunk):
        line += chunk.count("\n", position, match.start())
        position = match.start()
        if len(tally.invalid) >= MAX_REPORTED_INVALID_LINES:
            tally.invalid_count += 1
            continue
        if raw_lines is None:
            raw_lines = raw.split("\n")
        tally.invalid_at(line, raw_lines[line - first_line])


def _score_long_line(tally: _Tally, line: str, raw: str, number: int) -> None:
    """One line longer than a chunk: its tokens, a piece at a time, each distinct token
    parsed once (counted backwards, like lines, to keep the order of last occurrence)."""
    is_invalid = False
    for piece in _pieces(line.rstrip("\n")):
        # str.split() splits at exactly the characters \s matches; "," and ";" join them
        tokens = piece.replace(",", " ").replace(";", " ").split()
        counts = Counter(reversed(tokens))
        for token in reversed(counts):
            match = _TOKEN.fullmatch(token)
            if match is None:
                is_invalid = True
            else:
                question, option, none = match.groups("")
                tally.answers(((question, option, none),), counts[token])
    if is_invalid:
        tally.invalid_at(number, raw.rstrip("\n"))


def _result(key: PrimeKey, tally: _Tally) -> PrimeBenchResult:
    final: dict[str, Any] = tally.final
    zero = final.pop("", None)  # question 0 (its significant digits are empty)
    for digits, (option_digits, none) in final.items():  # in place: no second big dict
        final[digits] = f"{digits}:{NONE if none else option_digits or '0'}"
    if zero is not None:
        final["0"] = f"0:{NONE if zero[1] else zero[0] or '0'}"
    duplicates = tuple(sorted(int(q or "0") for q, n in tally.seen.items() if n > 1))
    return _build_result(key, final, duplicates, tally.invalid, tally.invalid_count)


def _build_result(
    key: PrimeKey,
    final: Mapping[str, str],
    duplicates: tuple[int, ...],
    invalid: list[InvalidLine],
    invalid_count: int,
    *,
    all_known: bool = False,
) -> PrimeBenchResult:
    """The result from the answers standing: question digits → ``question:option``,
    both in canonical form (no leading zeros, ``none`` in lower case). ``all_known``
    says the caller knows every question is in the key."""
    standing = final.values()
    if all_known or final.keys() <= key.by_text.keys():
        unknown: tuple[int, ...] = ()
        answered = len(final)
        in_order: Iterable[str]
        if len(final) == len(key.order) and tuple(final) == key.order:
            in_order = standing  # every question, answered in order (the usual case)
        else:
            in_order = filter(None, map(final.get, key.order))
    else:
        unknown_digits = final.keys() - key.by_text.keys()
        unknown = tuple(sorted(map(int, unknown_digits)))
        answered = len(final) - len(unknown_digits)
        in_order = map(final.__getitem__, sorted(final, key=int))
    fingerprint = hashlib.sha256(";".join(in_order).encode()).hexdigest()
    correct = len(key.correct_lines.intersection(standing))
    # options outside 1-4 ("malformed but parseable") are wrong like any other
    wrong = answered - correct - len(key.none_lines.intersection(standing))
    total = len(key.answers)
    return PrimeBenchResult(
        total_questions=total,
        correct=correct,
        wrong=wrong,
        unanswered=total - correct - wrong,
        invalid_lines=tuple(invalid),
        invalid_line_count=invalid_count,
        duplicates=duplicates,
        unknown_questions=unknown,
        hints=_hints(invalid) if invalid else (),
        fingerprint=fingerprint,
    )


def _hints(invalid: list[InvalidLine]) -> tuple[Hint, ...]:
    hints = []
    # a pattern that matches no line does not match them all joined (a line's ends
    # border on whitespace there too), so one search rules it out for every line
    joined = "\n".join(il.text for il in invalid)
    for code, pattern, message in _HINT_PATTERNS:
        if pattern.search(joined) is None:
            continue
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


def check_key(data: bytes, *, filename: str = "A.txt", questions: bytes | None = None) -> KeyCheck:
    """Validate ``A.txt`` (and ``Q.json`` when given, against it) before it is stored.

    The key is kept as uploaded; the note says when it does not have the official
    number of questions.
    """
    key = load_key(data, filename=filename or "A.txt")
    if questions is not None:
        check_pair(key, load_questions(questions))
    note = ""
    if len(key) != OFFICIAL_QUESTIONS:
        note = (
            f"note: this key has {len(key)} questions; the official PrimeBench has "
            f"{OFFICIAL_QUESTIONS}"
        )
    return KeyCheck(data=data, questions=len(key), note=note)


def format_score(value: float, *, mean: bool = False) -> str:
    """A signed count (``+18``, ``-71``); a mean is rounded to two places first and a
    fraction keeps three significant digits (``12.3``)."""
    if mean:
        value = round(value, 2)
    return f"{value:+g}" if value == int(value) else f"{value:.3g}"


class PrimeBench:
    """The registry's PrimeBench object (see :class:`scoring.base.Benchmark`)."""

    name = NAME
    title = TITLE
    scorer_version = SCORER_VERSION
    credit = CREDIT
    prompt = PROMPT
    tags: tuple[str, ...] = (NAME,)
    key_file: str | None = KEY_FILE
    questions_file: str | None = QUESTIONS_FILE
    essential = True
    daily = False
    tag_fields: tuple[str, ...] = ()
    board_columns: tuple[str, ...] = ()

    def load_key(self, data: bytes, *, filename: str = "A.txt") -> PrimeKey:
        return load_key(data, filename=filename)

    def check_key(
        self, data: bytes, *, filename: str = "", questions: bytes | None = None
    ) -> KeyCheck:
        return check_key(data, filename=filename, questions=questions)

    def score(
        self, text: str, key: PrimeKey, *, options: Mapping[str, Any] | None = None
    ) -> PrimeBenchResult:
        return score(text, key)

    def result_from_record(self, data: Mapping[str, Any]) -> PrimeBenchResult:
        return result_from_record(data)

    def format_score(self, value: float, *, mean: bool = False) -> str:
        return format_score(value, mean=mean)

    def board_cells(self, record: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
        return ()

    def options_from_tags(self, fields: Mapping[str, str]) -> dict[str, Any]:
        return {}

    def key_for(self, options: Mapping[str, Any], default: Any) -> tuple[Any, dict[str, Any]]:
        return default, dict(options)


BENCHMARK = PrimeBench()

if TYPE_CHECKING:  # the registry object satisfies the interface
    _CHECKED: Benchmark = BENCHMARK

"""The answer key (``A.txt``) and the question file (``Q.json``): strict loading and checks."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Mapping
from typing import Any

from ..base import KeyCheck
from ..errors import KeyFormatError
from ..text import decode, normalise_newlines
from .dataset import NONE, OFFICIAL_QUESTIONS, OPTIONS
from .hints import short_list

#: The options of the answer lines PrimeKey.plain recognises without parsing.
_PLAIN_OPTIONS = (*"0123456789", NONE, "None", "NONE")


class PrimeKey:
    """An answer key: question number → option (1–4), in file order. Read-only; two
    keys are equal when their answers and checksums are."""

    __slots__ = (
        "_plain",
        "answers",
        "by_text",
        "correct_lines",
        "none_lines",
        "order",
        "right",
        "sha256",
    )

    answers: Mapping[int, int]
    sha256: str
    #: the same answers as digit strings, the form the parser produces
    by_text: Mapping[str, str]
    #: the key's question numbers (digit strings) in numeric order
    order: tuple[str, ...]
    #: the key's options (digit strings) in that order: the right side of an answer set
    right: tuple[str, ...]
    #: the correct answers, and the "none" answers, as a result lists them (``12:3``)
    correct_lines: frozenset[str]
    none_lines: frozenset[str]
    _plain: dict[str, tuple[str, str]] | None

    def __init__(self, answers: Mapping[int, int], sha256: str = "") -> None:
        by_text = {str(q): str(o) for q, o in answers.items()}
        init = object.__setattr__
        init(self, "answers", answers)
        init(self, "sha256", sha256)
        init(self, "by_text", by_text)
        init(self, "order", tuple(sorted(by_text, key=int)))
        init(self, "right", tuple(map(by_text.__getitem__, self.order)))
        init(self, "correct_lines", frozenset(f"{q}:{o}" for q, o in by_text.items()))
        init(self, "none_lines", frozenset(f"{q}:{NONE}" for q in by_text))
        init(self, "_plain", None)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a PrimeKey is read-only: cannot set {name}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PrimeKey):
            return NotImplemented
        return (self.answers, self.sha256) == (other.answers, other.sha256)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PrimeKey(answers={self.answers!r}, sha256={self.sha256!r})"

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


_KEY_LINE = re.compile(r"([0-9]++)[^\S\n]*+:[^\S\n]*+([0-9]++)")
#: The largest question number a key may have (a larger one is a typing mistake).
_MAX_QUESTION = 10**9


def _number(digits: str) -> int:
    """``digits`` as a number, or one past :data:`_MAX_QUESTION` when it is larger."""
    significant = digits.lstrip("0")
    return int(significant or "0") if len(significant) <= 10 else _MAX_QUESTION + 1


def _options_phrase(options: Collection[int]) -> str:
    """``1, 2, 3 or 4`` (PrimeBench's), ``1 to 5`` for a longer run."""
    ordered = sorted(options)
    if len(ordered) > 4:
        return f"{ordered[0]} to {ordered[-1]}"
    return ", ".join(map(str, ordered[:-1])) + f" or {ordered[-1]}"


def load_key(
    data: bytes, *, filename: str = "A.txt", options: Collection[int] = OPTIONS
) -> PrimeKey:
    """Parse ``A.txt`` strictly: one ``question:option`` line per question, option 1–4
    (or one of ``options``: a multiple-choice benchmark of its own, ``scoring.choice``).

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
        # int() of thousands of digits raises (and is slow): such numbers are refused
        # by their length, with the message the number would get
        question, option = _number(match[1]), _number(match[2])
        if question > _MAX_QUESTION:
            raise KeyFormatError("the question number is too large", line=number, text=line)
        if option not in options:
            raise KeyFormatError(
                f"the option must be {_options_phrase(options)}", line=number, text=line
            )
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
            parts.append(f"no key line for question(s) {short_list(missing)}")
        if extra:
            parts.append(f"key lines for unknown question(s) {short_list(extra)}")
        raise KeyFormatError("A.txt and Q.json disagree: " + "; ".join(parts))


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

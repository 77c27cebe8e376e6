"""Near misses the rule counts invalid, recognised only to explain them (never scored).

Each hint names the lines, says how many answers on them the official rule still read
(the answer tokens on an invalid line count: ``- 1:2`` is the answer 1:2 on an invalid
line; ``**1:2**`` and a table row ``| 1 | 2 |`` hold none) and how to write them. One
more hint lists the answers found inside other text (a model's reasoning, "question 2:
4 options") to questions answered more than once: the last answer to each stands.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from functools import cache
from typing import Any

from ..base import Hint, InvalidLine

_PERSIAN_DIGIT = "[\u06f0-\u06f9\u0660-\u0669]"
_ANY_DIGIT = "[0-9\u06f0-\u06f9\u0660-\u0669]"
_NONE_RE = "[nN][oO][nN][eE]"
#: (code, pattern, message), compiled on first use (see :func:`_patterns`).
#:
#: Every pattern is searched over whole lines of whatever a user sent, so each runs in
#: time linear in the text: a run (of digits, of spaces) is entered only at its start
#: (a look-behind at its first character turns every later position away at once) and
#: taken whole, never given back (possessive ``++``/``*+``: what follows a run can never
#: be part of it, so giving some back could not make a match). Each starts with the
#: character class it needs first, so that the search skips to where one stands.
#: Without that, ``[0-9]+\s*：`` over one line of 80,000 ``9`` tried every start and
#: every length: 35 s. Only whether a pattern matches is used, so a trailing run is
#: matched by its first character alone.
#: ``tests/scoring/test_linear_inputs.py`` feeds each a megabyte of its worst case.
_HINT_SOURCES: tuple[tuple[str, str, str], ...] = (
    (
        "persian_digits",
        rf"{_PERSIAN_DIGIT}(?<!{_PERSIAN_DIGIT}{{2}}){_PERSIAN_DIGIT}*+\s*+[:：]\s*+{_ANY_DIGIT}",
        "Persian/Arabic-Indic digits on {lines}: the official rules count such lines "
        "invalid (answers must use ASCII digits 0-9)",
    ),
    (
        "fullwidth_colon",
        rf"{_ANY_DIGIT}(?<!{_ANY_DIGIT}{{2}}){_ANY_DIGIT}*+\s*+：",
        "a full-width colon (：) on {lines}: the official rules count such lines invalid "
        "(use the ASCII colon :)",
    ),
    (
        "q_prefix",
        r"[Qq](?<![^\s,;][Qq])\s*+[0-9]++\s*+[:：.)]",
        "a Q before the question number on {lines}: the official rules count such lines "
        "invalid (write 1:3, not Q1:3)",
    ),
    (
        "trailing_period",
        rf"[0-9](?<![^\s,;][0-9])[0-9]*+\s*+:\s*+(?:[0-9]++|{_NONE_RE})\.(?!\S)",
        "an answer ending in a period on {lines}: the official rules count such lines "
        "invalid (write 1:3, not 1:3.)",
    ),
    (
        "markdown_bold",
        # **1:3**, **1:** 3, **1**: 3
        rf"(?:\*\*|__)\s*+[0-9]++\s*+(?:\*\*|__)?+\s*+:\s*+(?:\*\*|__)?+\s*+"
        rf"(?:[0-9]|{_NONE_RE})",
        "an answer in markdown bold (**1:3**) on {lines}: the official rules count such "
        "lines invalid and read {answers} from them (write 1:3, without the asterisks)",
    ),
    (
        "bullets",
        # - 1: 2, * 1: 2, + 1:2, • 1:2, 1. 1:2, 1) 1:2 at the start of a line
        rf"(?m)^[^\S\n]*+(?:[-*+•]|[0-9]++[.)])[^\S\n]++[0-9]++[^\S\n]*+[:：][^\S\n]*+"
        rf"(?:[0-9]|{_NONE_RE})",
        "answers after a list bullet or number (- 1:2, 1. 1:2) on {lines}: the official "
        "rules count such lines invalid, and {answers} on them still counted (write one "
        "answer per line as 1:2, without the bullet)",
    ),
    (
        "markdown_table",
        # | 1 | 2 |, | **1** | none |, | 1:2 |
        r"(?m)^[^\S\n]*+\|[^\S\n]*+(?:\*\*)?+[Qq]?+[0-9]++(?:\*\*)?+[^\S\n]*+"
        rf"(?:[:：]|\|[^\S\n]*+(?:\*\*)?+(?:[0-9]|{_NONE_RE}))",
        "answers in a markdown table on {lines}: the official rules count table rows "
        "invalid and read {answers} from them (write one answer per line as 1:2, not a "
        "table)",
    ),
)

#: The hint about answers inside other text (reasoning) to questions answered again.
_PROSE_MESSAGE = (
    "answers inside other text on {lines} were read as answers to questions answered "
    "more than once ({questions}): the last answer to each question stands, so an "
    "answer in reasoning can replace the final one or be replaced by it (send only the "
    "final answers, one per line as 1:2)"
)


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str], str], ...]:
    """The hint patterns, compiled when first asked for: a file where every line is
    read never needs them (nor the start-up time they cost)."""
    return tuple((code, re.compile(source), message) for code, source, message in _HINT_SOURCES)


def __getattr__(name: str) -> Any:
    if name == "_HINT_PATTERNS":
        return _patterns()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def hints_for(invalid: list[InvalidLine], duplicates: Collection[int] = ()) -> tuple[Hint, ...]:
    """The hints about the invalid lines reported; ``duplicates``: the questions
    answered more than once (as the result lists them), for the hint about answers
    inside other text."""
    hints = []
    # a pattern that matches no line does not match them all joined (a line's ends
    # border on whitespace there too), so one search rules it out for every line
    joined = "\n".join(il.text for il in invalid)
    hinted: set[int] = set()
    for code, pattern, message in _patterns():
        if pattern.search(joined) is None:
            continue
        found = [il for il in invalid if pattern.search(il.text)]
        if not found:
            continue
        lines = tuple(il.line for il in found)
        hinted.update(lines)
        params: tuple[tuple[str, str], ...] = ()
        values = {"lines": _lines_phrase(lines)}
        if "{answers}" in message:
            counted = sum(1 for il in found for _ in _answers(il.text))
            params = (("counted", str(counted)),)
            values["answers"] = _answers_phrase(counted)
        hints.append(Hint(code, message.format(**values), lines, params))
    if duplicates:
        prose = _answers_in_prose([il for il in invalid if il.line not in hinted], duplicates)
        if prose is not None:
            hints.append(prose)
    return tuple(hints)


def _answers(text: str) -> Iterator[int]:
    """The questions of the answers the official rule reads on a line, in order."""
    from .parse import ANSWER, tighten_colons  # parse imports this module

    for match in ANSWER.finditer(tighten_colons(text)):
        yield int(match[1] or "0")


def _answers_phrase(counted: int) -> str:
    if counted == 0:
        return "no answer"
    return "1 answer" if counted == 1 else f"{counted:,} answers"


def _answers_in_prose(invalid: list[InvalidLine], duplicates: Collection[int]) -> Hint | None:
    """The invalid lines (other text than answers) holding an answer to a question
    answered more than once: reasoning read as answers."""
    repeated = duplicates if isinstance(duplicates, (set, frozenset)) else set(duplicates)
    lines: list[int] = []
    questions: dict[int, None] = {}
    joined = "\n".join(il.text for il in invalid)
    if not any(True for _ in _answers(joined)):
        return None  # no invalid line holds an answer at all
    for il in invalid:
        mine = [q for q in _answers(il.text) if q in repeated]
        if mine:
            lines.append(il.line)
            questions.update(dict.fromkeys(mine))
    if not lines:
        return None
    shown = short_list(sorted(questions), limit=8)  # "2, 5 and 3 more"
    message = _PROSE_MESSAGE.format(lines=_lines_phrase(tuple(lines)), questions=shown)
    ids = sorted(questions)
    params = (("ids", ", ".join(map(str, ids[:8])) + (" …" if len(ids) > 8 else "")),)
    return Hint("answers_in_prose", message, tuple(lines), params)


def _lines_phrase(lines: tuple[int, ...]) -> str:
    if len(lines) == 1:
        return f"line {lines[0]}"
    return "lines " + short_list(list(lines), limit=8)


def short_list(numbers: list[int], limit: int = 10) -> str:
    shown = ", ".join(map(str, numbers[:limit]))
    return shown + (f" and {len(numbers) - limit} more" if len(numbers) > limit else "")


def near_miss(text: str) -> bool:
    """Whether ``text`` holds an answer written in a way a hint explains."""
    return any(pattern.search(text) is not None for _, pattern, _ in _patterns())

"""Near misses the rule counts invalid, recognised only to explain them (never scored)."""

from __future__ import annotations

import re
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
        rf"(?:\*\*|__)\s*+[0-9]++\s*+:\s*+(?:[0-9]++|{_NONE_RE})\s*+(?:\*\*|__)",
        "an answer in markdown bold (**1:3**) on {lines}: the official rules count such "
        "lines invalid (write 1:3, without the asterisks)",
    ),
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


def hints_for(invalid: list[InvalidLine]) -> tuple[Hint, ...]:
    hints = []
    # a pattern that matches no line does not match them all joined (a line's ends
    # border on whitespace there too), so one search rules it out for every line
    joined = "\n".join(il.text for il in invalid)
    for code, pattern, message in _patterns():
        if pattern.search(joined) is None:
            continue
        lines = tuple(il.line for il in invalid if pattern.search(il.text))
        if lines:
            hints.append(Hint(code, message.format(lines=_lines_phrase(lines)), lines))
    return tuple(hints)


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

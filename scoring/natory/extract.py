"""Finding the expression in a model's answer.

A submission is often prose around one expression. The rule, in order of preference:

1. math blocks — ``$$…$$``, ``\\[…\\]``, ``$…$``, ``\\(…\\)`` — the last one first;
2. then lines, the last one first.

Each candidate is cleaned: Markdown emphasis and backticks, a trailing ``.`` or ``,``, and
a leading label such as ``Answer:`` are dropped; around ``=`` the parts that are bare
numbers are dropped (``2*5^5+6 = 6256`` and ``6256 = 2*5^5+6`` both give the
expression), and of several expressions joined by ``=`` the last is taken. The first
candidate that *parses* is the expression (its value is checked later: a wrong value
is a scored, invalid result, not a reason to look further). When none parses, the
error is the one of the most preferred candidate.

Only the last 64 KiB of the text and at most 40 candidates are looked at, and a
candidate over the length limit is refused without being read, so a 20 MB upload
costs no more than a short one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import ExpressionError
from .parser import Node, parse
from .rules import Limits

TAIL = 64 * 1024
MAX_CANDIDATES = 40
_CLEAN_SLACK = 200

_BLOCKS = re.compile(
    r"\$\$(?P<a>.+?)\$\$|\\\[(?P<b>.+?)\\\]|\$(?P<c>[^$\n]+?)\$|\\\((?P<d>.+?)\\\)",
    re.DOTALL,
)
_LABEL = re.compile(r"^[^\W\d_][^\W\d]{0,30}(?:[ \t]+[^\W\d_][^\W\d]{0,30}){0,5}[ \t]*[:：][ \t]*")
_EMPHASIS = re.compile(r"\*\*|__|`")
_NUMBER = re.compile(r"\s*[0-9]+\s*")


@dataclass(frozen=True, slots=True)
class Extracted:
    expression: str
    tree: Node
    #: the line (from 1) of the whole text where the expression starts
    line: int


@dataclass(frozen=True, slots=True)
class NotFound:
    """No candidate parses: the most preferred one, and why it was refused."""

    expression: str
    line: int | None
    error: ExpressionError


@dataclass(frozen=True, slots=True)
class _Candidate:
    text: str
    line: int


def clean(candidate: str) -> str:
    """A candidate without its Markdown, trailing punctuation, label and ``= N`` parts."""
    text = _EMPHASIS.sub("", candidate).strip()
    text = _LABEL.sub("", text, count=1).strip()
    text = text.rstrip(".,;").strip()
    if "=" in text:
        parts = [part.strip() for part in text.split("=")]
        expressions = [p for p in parts if p and not _NUMBER.fullmatch(p)]
        text = expressions[-1] if expressions else parts[0]
    return text


def _candidates(text: str) -> list[_Candidate]:
    first_line = 1
    if len(text) > TAIL:
        cut = text.find("\n", len(text) - TAIL)
        cut = len(text) - TAIL if cut < 0 else cut + 1
        first_line += text.count("\n", 0, cut)
        text = text[cut:]
    found: list[_Candidate] = []
    blocks = list(_BLOCKS.finditer(text))
    for match in reversed(blocks[-MAX_CANDIDATES:]):
        group = match.lastgroup
        assert group is not None
        line = first_line + text.count("\n", 0, match.start())
        found.append(_Candidate(match[group], line))
    lines = text.split("\n")
    for index in range(len(lines) - 1, -1, -1):
        if len(found) >= MAX_CANDIDATES:
            break
        if lines[index].strip():
            found.append(_Candidate(lines[index], first_line + index))
    return found


def extract(text: str, limits: Limits) -> Extracted | NotFound:
    """The expression in ``text`` and its tree, or the error of the best candidate."""
    candidates = _candidates(text)
    if not candidates:
        return NotFound("", None, ExpressionError("there is no expression", code="empty"))
    first: NotFound | None = None
    for candidate in candidates:
        # cleaning drops a few characters at most: a far longer candidate is not cleaned
        raw = candidate.text.strip()
        expression = clean(raw) if len(raw) <= limits.max_length + _CLEAN_SLACK else raw
        if len(expression) > limits.max_length:
            error = ExpressionError(
                f"the expression is {len(expression):,} characters long; the limit is "
                f"{limits.max_length:,}",
                code="too_long",
                params={"length": f"{len(expression):,}", "limit": f"{limits.max_length:,}"},
            )
        else:
            try:
                tree = parse(
                    expression,
                    max_length=limits.max_length,
                    max_depth=limits.max_depth,
                    max_nesting=limits.max_nesting,
                )
            except ExpressionError as exc:
                error = exc
            else:
                return Extracted(expression, tree, candidate.line)
        if first is None:
            first = NotFound(expression, candidate.line, error)
    assert first is not None
    return first

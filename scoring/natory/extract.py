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

Prose (what ``score`` reads; ``recognises`` does not, so a chat message with a time in
it is not taken for an attempt): a candidate that does not parse as a whole is read
for its *last expression-like span* — the last run of digits (ASCII, Persian,
Arabic-Indic), operators, parentheses, ``=``, Markdown ``**`` and backticks, the
function names and the LaTeX commands of the language, holding a digit and an
operator. "After some thought, the answer is (6+4)*684 = 6840." reads ``(6+4)*684``.

Everything here is linear in the length of the text: the blocks are found by a scan
that looks for each closing delimiter at most once past any point, the spans by one
regular expression without nested repetition, and only the last 64 KiB of the text and
at most 40 candidates are looked at; a candidate over the length limit is refused
without being read, so a 20 MB upload costs no more than a short one
(``tests/scoring/test_natory_linear.py`` times the worst shapes).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

from ..errors import ExpressionError
from .parser import _COMMANDS, _WRAPPERS, Node, parse
from .rules import Limits

TAIL = 64 * 1024
MAX_CANDIDATES = 40
_CLEAN_SLACK = 200

_LABEL = re.compile(r"^[^\W\d_][^\W\d]{0,30}(?:[ \t]+[^\W\d_][^\W\d]{0,30}){0,5}[ \t]*[:：][ \t]*")
_EMPHASIS = re.compile(r"\*\*|__|`")

#: The digits an expression may be written in (the parser reads all three).
_DIGITS = "0-9\u06f0-\u06f9\u0660-\u0669"
#: The LaTeX commands the parser reads (longest first).
_COMMAND_NAMES = sorted({*_COMMANDS, *(w.rstrip("*") for w in _WRAPPERS)}, key=len, reverse=True)
#: One run of the characters and words an expression is written with. Each alternative
#: starts differently from the others and nothing follows the repetition, so the scan
#: never backtracks: linear in the text.
_SPAN = re.compile(
    "(?:[" + _DIGITS + r"+\-*/^!()\[\]{}×÷·⋅∗−–√%=$`_ \t\u00a0]"
    r"|\\(?:" + "|".join(_COMMAND_NAMES) + r")(?![A-Za-z])\*?"
    r"|\\[,;:! {}()\[\]]"
    r"|(?<![A-Za-z])(?i:sqrt|sopfr|mod|frac|p_n|p|n)(?![A-Za-z])"
    ")+"
)
_SPAN_DIGIT = re.compile("[" + _DIGITS + "]")
_SPAN_OPERATOR = re.compile(r"[+\-*/^!×÷·⋅∗−√%]")
_SPAN_WORDS = ("\\", "sqrt", "sopfr", "mod", "frac", "p_")

#: (opener, closer, may span lines) of the math blocks, in the order they are tried.
_DELIMITERS = (("$$", "$$", True), ("\\[", "\\]", True), ("$", "$", False), ("\\(", "\\)", True))
#: The refusals that say "there is prose around it" (a word, a comma): only then does a
#: span that does not parse either give the error (a bad digit is reported as it is).
_PROSE_ERRORS = frozenset(("unknown_name", "unexpected_char", "one_only", "too_long"))
_OPENER = re.compile("|".join(re.escape(d[0]) for d in _DELIMITERS))


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
    #: the whole line's length (stripped), when ``text`` is the last 64 KB of it
    length: int | None = None


def clean(candidate: str) -> str:
    """A candidate without its Markdown, trailing punctuation, label and ``= N`` parts."""
    text = _EMPHASIS.sub("", candidate).strip()
    text = _LABEL.sub("", text, count=1).strip()
    text = text.rstrip(".,;").strip()
    if "=" in text:
        parts = [part.strip() for part in text.split("=")]
        expressions = [p for p in parts if p and not p.isdecimal()]
        text = expressions[-1] if expressions else parts[0]
    return text


def math_blocks(text: str, keep: int = MAX_CANDIDATES) -> list[tuple[int, str]]:
    """The last ``keep`` math blocks of ``text`` in reading order: (start, content).

    One pass: a closing delimiter looked for and not found is not looked for again (and
    its openers are no longer looked for), so the scan is linear in the text."""
    found: deque[tuple[int, str]] = deque(maxlen=keep)
    delimiters = list(_DELIMITERS)
    opener = _OPENER
    position = 0
    while (match := opener.search(text, position)) is not None:
        start = match.start()
        position = start + 1
        pair = text[start : start + 2]
        for open_, close, multiline in delimiters:
            if open_ != pair and open_ != pair[0]:
                continue
            inner = start + len(open_)
            # something inside (at least one character), then the first closer
            end = text.find(close, inner + 1)
            if end < 0:
                if multiline:  # none after ``inner``: none after any later opener
                    delimiters = [d for d in delimiters if d[1] != close]
                    opener = re.compile("|".join(re.escape(d[0]) for d in delimiters))
                continue
            if not multiline and (text[inner] == "$" or "\n" in text[inner:end]):
                continue  # ``$…$`` holds neither ``$`` nor a line break
            found.append((start, text[inner:end]))
            position = end + len(close)
            break
    return list(found)


def _balanced(span: str) -> str:
    """The span without the unmatched parentheses at its ends: ``6840)`` → ``6840``,
    ``((6+4)*684`` → ``(6+4)*684``. One pass."""
    start, end, depth, digit = 0, len(span), 0, False
    for index, char in enumerate(span):
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:  # unmatched: the span ends here, or starts after it
                if digit:
                    end = index
                    break
                start = index + 1
                continue
            depth -= 1
        elif not digit and _SPAN_DIGIT.match(char):
            digit = True
    span = span[start:end].strip()
    while depth > 0 and span.startswith("("):
        span = span[1:].lstrip()
        depth -= 1
    while depth > 0 and span.endswith("("):
        span = span[:-1].rstrip()
        depth -= 1
    return span


def _all_expression(text: str) -> bool:
    """Whether ``text`` is one span (no prose). ``match`` and its end, not ``fullmatch``:
    nothing must follow the repetition, or ``p_n`` (one name, or ``p`` ``_`` ``n``) could
    be tried both ways at every occurrence."""
    match = _SPAN.match(text)
    return match is not None and match.end() == len(text)


def _expression_like(span: str) -> bool:
    """A digit and an operator (a sign, a function name or a LaTeX command) in it."""
    if not _SPAN_DIGIT.search(span):
        return False
    if _SPAN_OPERATOR.search(span):
        return True
    lowered = span.lower()
    return any(word in lowered for word in _SPAN_WORDS)


def last_span(text: str, longest: int | None = None) -> str | None:
    """The last expression-like span of ``text`` (a digit and an operator in it), or None.
    A span over ``longest`` characters is returned as found (it is refused as too long;
    trimming its parentheses, one Python step per character, would change nothing)."""
    if not _SPAN_DIGIT.search(text):  # no digit, no span (a C-speed test)
        return None
    spans: list[str] = _SPAN.findall(text)  # one C-speed pass; then from the end
    last = next((s for s in reversed(spans) if _expression_like(s)), None)
    if last is None:
        return None
    last = last.strip(" \t\u00a0=")
    if longest is not None and len(last) > longest:
        return last
    span = _balanced(last).strip(" \t\u00a0=")
    return span or None


def _candidates(text: str) -> list[_Candidate]:
    first_line = 1
    partial: int | None = None  # the whole length of a line cut in two
    if len(text) > TAIL:
        cut = text.find("\n", len(text) - TAIL)
        if cut < 0 or not text[cut:].strip():
            # the last line is longer than the tail: its last 64 KB are read (an
            # expression may end it, after prose), and its own length is told (a line
            # ending with a line break was cut after it: nothing, "no expression")
            cut = len(text) - TAIL
            start, end = text.rfind("\n", 0, cut) + 1, text.find("\n", cut)
            partial = len(text[start : len(text) if end < 0 else end].strip())
        else:
            cut += 1
        first_line += text.count("\n", 0, cut)
        text = text[cut:]
    found: list[_Candidate] = []
    for start, inner in reversed(math_blocks(text)):
        found.append(_Candidate(inner, first_line + text.count("\n", 0, start)))
    lines = text.split("\n")
    for index in range(len(lines) - 1, -1, -1):
        if len(found) >= MAX_CANDIDATES:
            break
        if lines[index].strip():
            whole = partial if index == 0 else None
            found.append(_Candidate(lines[index], first_line + index, whole))
    return found


def _too_long(length: int, limits: Limits) -> ExpressionError:
    return ExpressionError(
        f"the expression is {length:,} characters long; the limit is {limits.max_length:,}",
        code="too_long",
        params={"length": f"{length:,}", "limit": f"{limits.max_length:,}"},
    )


def _read(expression: str, limits: Limits) -> Node | ExpressionError:
    if len(expression) > limits.max_length:
        return _too_long(len(expression), limits)
    try:
        return parse(
            expression,
            max_length=limits.max_length,
            max_depth=limits.max_depth,
            max_nesting=limits.max_nesting,
        )
    except ExpressionError as exc:
        return exc


def extract(text: str, limits: Limits, *, prose: bool = True) -> Extracted | NotFound:
    """The expression in ``text`` and its tree, or the error of the best candidate.
    ``prose``: read a candidate's last expression-like span when it does not parse
    whole (``score`` does; ``recognises`` does not)."""
    candidates = _candidates(text)
    if not candidates:
        return NotFound("", None, ExpressionError("there is no expression", code="empty"))
    first: NotFound | None = None
    for candidate in candidates:
        # cleaning drops a few characters at most: a far longer candidate is not cleaned
        raw = candidate.text.strip()
        expression = clean(raw) if len(raw) <= limits.max_length + _CLEAN_SLACK else raw
        read = _read(expression, limits)
        # prose around it (the candidate is not all expression characters): its span
        # (a candidate too long to read whole is not tested for prose first: its span,
        # if it is all expression, is as long and refused the same way)
        short = len(raw) <= limits.max_length + _CLEAN_SLACK
        if prose and isinstance(read, ExpressionError) and not (short and _all_expression(raw)):
            span = last_span(raw, limits.max_length + _CLEAN_SLACK)
            if span is not None:
                spanned = clean(span) if len(span) <= limits.max_length + _CLEAN_SLACK else span
                if spanned != expression:
                    read_span = _read(spanned, limits)
                    # the span when it parses; when it does not either, its error when
                    # the candidate's was only about the prose around it
                    if not isinstance(read_span, ExpressionError) or read.code in _PROSE_ERRORS:
                        expression, read = spanned, read_span
        if not isinstance(read, ExpressionError):
            return Extracted(expression, read, candidate.line)
        if candidate.length is not None and read.code == "too_long":
            read = _too_long(candidate.length, limits)  # the line's, not its tail's
        if first is None:
            first = NotFound(expression, candidate.line, read)
    assert first is not None
    return first

"""The official answer check, reproduced exactly, and the lenient re-check beside it.

The official rule ``\\{(.*?)\\}`` is run as an equivalent pattern that cannot go
quadratic on a line full of ``{`` (see :data:`SCAN`), so a hostile response costs the
same as an ordinary one.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache

#: Shown beside the lenient figures wherever they appear.
LENIENT_NOTE = (
    "lenient re-check: trims spaces inside the braces, drops a trailing period and "
    "compares numbers numerically; not the official rule, never used to rank"
)

# --- the official check --------------------------------------------------------------

#: The official extraction pattern, as published (kept for reference and the tests).
OFFICIAL_PATTERN = re.compile(r"\{(.*?)\}")

#: The same matches in linear time. ``\{(.*?)\}`` (no DOTALL) matches ``{``, then the
#: shortest run of non-newline characters up to the first ``}``: exactly
#: ``\{([^}\n]*)\}``. Where it fails (no ``}`` before the line ends), it also fails at
#: every later ``{`` on that line, so the regex engine would rescan the rest of the line
#: once per ``{`` -- quadratic. This pattern consumes such a failed stretch in one go
#: (possessively, group 2 empty) and yields real matches with group 2 == "}".
SCAN = re.compile(r"\{([^}\n]*+)(\}?)")


def official_parse(response: str) -> str:
    """The official extraction: the last ``{...}`` on one line of the lowercased,
    stripped response, or "" when there is none."""
    formatted = response.strip().lower()
    if "}" not in formatted:
        return ""
    for inner, close in reversed(SCAN.findall(formatted)):
        if close:
            return str(inner)
    return ""


def official_check(response: str, ground_truth: str) -> bool:
    """The official answer check, verbatim in effect (see the spec)."""
    gt = ground_truth
    parsed = official_parse(response)
    return parsed[: len(gt)].lower() == gt.strip().lower() and len(parsed) == len(gt.strip())


# --- the lenient re-check (information only) -----------------------------------------

_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,6})?")
_MAX_NUMBER_TEXT = 100


@lru_cache(maxsize=4096)
def number(text: str) -> Decimal | None:
    if len(text) > _MAX_NUMBER_TEXT or _NUMBER.fullmatch(text) is None:
        return None
    try:
        return Decimal(text)
    except InvalidOperation:  # pragma: no cover - the pattern only admits numbers
        return None


def lenient_reasons(
    parsed: str, gt_norm: str, gt_number: Decimal | None = None
) -> tuple[str, ...] | None:
    """Why ``parsed`` is right under the lenient rule (hint codes), or None if it is not.

    ``parsed`` is the officially extracted (lowercased) text, ``gt_norm`` the stripped,
    lowercased ground truth.
    """
    reasons: list[str] = []
    text = parsed.strip()
    if text != parsed:
        reasons.append("spaces_in_braces")
    if text.endswith(".") and text[:-1].rstrip() != "":
        text = text[:-1].rstrip()
        reasons.append("trailing_period")
    if text == gt_norm:
        return tuple(reasons)
    b = number(gt_norm) if gt_number is None else gt_number
    if b is None:
        return None
    a = number(text)
    if a is not None and a == b:
        reasons.append("number_format")
        return tuple(reasons)
    return None


def lenient_check(response: str, ground_truth: str) -> bool:
    """Official check, or the lenient re-check. Information only: never ranks."""
    if official_check(response, ground_truth):
        return True
    formatted = response.strip().lower()
    if not any(close for _, close in SCAN.findall(formatted)):
        return False
    return lenient_reasons(official_parse(response), ground_truth.strip().lower()) is not None


_BRACE = re.compile(r"[{}]")


def nested_group(formatted: str) -> tuple[str, str] | None:
    """For a response whose last ``{...}`` sits inside a larger balanced ``{...}`` on its
    line, return (the outer group's text, the text the official rule read)."""
    last: re.Match[str] | None = None
    for match in SCAN.finditer(formatted):
        if match[2]:
            last = match
    if last is None:
        return None
    start, end = last.span()
    line_start = formatted.rfind("\n", 0, start) + 1
    line_end = formatted.find("\n", end)
    line_end = len(formatted) if line_end < 0 else line_end
    if "{" not in formatted[line_start:start] or "}" not in formatted[end:line_end]:
        return None  # nothing can enclose the match
    depth, opened = 0, -1
    for brace in _BRACE.finditer(formatted, line_start, line_end):
        i = brace.start()
        if brace[0] == "{":
            if depth == 0:
                opened = i
            depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0 and opened <= start and i + 1 >= end:
                if (opened, i + 1) == (start, end):
                    return None
                return formatted[opened : i + 1], last[1]
    return None

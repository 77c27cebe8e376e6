"""Reading answer lines: the tokens of a line, and whether it is invalid.

Rule: lines; segments at "," and ";"; whitespace around ":" removed; tokens split at
whitespace. A token is an answer when it is NUMBER:NUMBER or NUMBER:none, NUMBER being
ASCII digits only (never \\d, which would admit Persian digits). Leading zeros are
folded (4:04 is option 4); a question number has at most 1,000 significant digits, so
no token becomes an integer too large to print (an option is compared as text: any
length is an option, and a wrong one).

Once whitespace around colons is removed, a token is a maximal run of characters that
are neither whitespace nor "," / ";", so one regular expression finds every answer
with its boundaries (:data:`ANSWER`), and another finds every line that is not made of
answers only (:data:`INVALID_LINE`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .hints import near_miss

_DIGITS = r"(?=[0-9])0*+([1-9][0-9]{0,999}+)?(?![0-9])"  # group: significant digits
#: An option of any length: one of more than 1,000 significant digits is kept as its
#: first 1,000 (no key's option, so it counts wrong, as the rule says of 1:7).
_OPTION_DIGITS = r"(?=[0-9])0*+([1-9][0-9]{0,999}+)?+[0-9]*+"
_OPTION = rf"(?:{_OPTION_DIGITS}|([nN][oO][nN][eE]))"  # groups: digits, "none"
_PAIR = f"{_DIGITS}:{_OPTION}"
#: One answer token; groups (question, option digits, "none"). Empty digits mean 0.
TOKEN = re.compile(_PAIR)
ANSWER = re.compile(rf"(?<![^\s,;]){_PAIR}(?![^\s,;])")
_SEP = r"(?:[^\S\n]|[,;])"
_BARE_PAIR = _PAIR.replace("([", "(?:[")  # the same, without capturing groups
#: A line that is NOT made only of answer tokens and separators (an invalid line).
INVALID_LINE = re.compile(
    rf"^(?!{_SEP}*(?:{_BARE_PAIR}(?:{_SEP}+{_BARE_PAIR})*{_SEP}*)?$)[^\n]*",
    re.MULTILINE,
)
#: Whitespace (but newlines) around a colon. A run of blanks is entered only at its start
#: and taken whole (without the look-behind, a long run of blanks not followed by a
#: colon was scanned again from each of its characters: quadratic).
_WS_AROUND_COLON = re.compile(r"[^\S\n](?<![^\S\n]{2})[^\S\n]*+:[^\S\n]*+|:[^\S\n]++")
#: ASCII whitespace other than space and newline (what \s also matches).
_RARE_ASCII_SPACE = ("\t", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f")
_SEPARATOR = re.compile(r"[\s,;]")
#: About how much text is parsed at a time (characters).
CHUNK = 1 << 20

#: question digits -> (option digits, "none" text); see TOKEN's groups.
Answers = dict[str, tuple[str, str]]
Parsed = tuple[tuple[tuple[str, str, str], ...], bool]


def pieces(text: str) -> Iterator[str]:
    """Cut text into pieces of about a chunk, only at separators (token boundaries)."""
    start, size = 0, len(text)
    while start < size:
        cut = _SEPARATOR.search(text, min(start + CHUNK, size))
        end = size if cut is None else cut.end()
        yield text[start:end]
        start = end


def tighten_colons(text: str) -> str:
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


def parse_line(line: str) -> Parsed:
    """The answer tokens on one (colon-normalised) line, and whether it is invalid."""
    match = TOKEN.fullmatch(line)  # the common case: the line is one answer
    if match is not None:
        question, option, none = match.groups("")
        return ((question, option, none),), False
    return tuple(ANSWER.findall(line)), INVALID_LINE.match(line) is not None


#: An answer as it may be written before whitespace around its colon is removed
#: (compiled on first use, by re's cache: scoring alone never needs it).
_LOOSE_ANSWER = (
    r"[0-9](?<![^\s,;][0-9])[0-9]*+[^\S\n]*+:[^\S\n]*+(?:[0-9]++|[nN][oO][nN][eE])(?![^\s,;])"
)


def recognises(text: str) -> bool:
    """Whether any line of ``text`` holds an answer, or a near miss that earns a hint."""
    return re.search(_LOOSE_ANSWER, text) is not None or near_miss(text)

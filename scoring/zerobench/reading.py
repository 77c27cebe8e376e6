"""Text helpers shared by the key and submission readers: CSV, JSON pairs, safe text."""

from __future__ import annotations

import io
import itertools
import json
import re
from collections.abc import Iterator
from typing import Any

#: The csv module's field limit is process-wide; raised once so a 10 MB cell reads.
_CSV_FIELD_LIMIT = 2**31 - 1


#: A run of carriage returns; a run not followed by ``\n`` (nor at the end) is data.
_CR_RUN = re.compile(r"\r+")


class CsvRows:
    """CSV rows of ``text``, the way tools write them: lines end at ``\n`` (or
    ``\r\n``), and a bare ``\r`` inside a field is data even unquoted, as pandas
    leaves it with its default line terminator. ``line_num`` counts ``\n`` lines. A
    text without any ``\n`` keeps ``\r`` as its line break (old Mac files)."""

    def __init__(self, text: str, *, skip_space: bool) -> None:
        import csv  # (here: JSON Lines, the usual submission, never needs it)

        if csv.field_size_limit() < _CSV_FIELD_LIMIT:
            csv.field_size_limit(_CSV_FIELD_LIMIT)
        self._mark = ""
        if "\r" in text and "\n" in text:
            text = self._hide_bare_cr(text)
            source = io.StringIO(text, newline="\n")  # iterates on \n only
        else:
            source = io.StringIO(text, newline="")
        self._reader = csv.reader(source, skipinitialspace=skip_space)

    def _hide_bare_cr(self, text: str) -> str:
        mark = _unused_char(text)

        def hide(match: re.Match[str]) -> str:
            end = match.end()
            if end == len(text) or text[end] == "\n":
                return match.group()  # part of a line break (\r\n, \r\r\n)
            self._mark = mark
            return mark * (end - match.start())

        return _CR_RUN.sub(hide, text)

    @property
    def line_num(self) -> int:
        return self._reader.line_num

    def __iter__(self) -> Iterator[list[str]]:
        # without a hidden bare CR the rows are the csv module's own, read at C speed
        return self if self._mark else self._reader

    def __next__(self) -> list[str]:
        row = next(self._reader)
        mark = self._mark
        if mark:
            return [cell.replace(mark, "\r") if mark in cell else cell for cell in row]
        return row


def _unused_char(text: str) -> str:
    """A private-use character that ``text`` does not hold (to stand for a bare CR)."""
    used = set(text)
    for point in itertools.chain(range(0xE000, 0xF900), range(0xF0000, 0xFFFFE)):
        if chr(point) not in used:
            return chr(point)
    raise AssertionError("unreachable: a text cannot hold every private-use character")


def csv_reader(text: str, *, skip_space: bool) -> CsvRows:
    return CsvRows(text, skip_space=skip_space)


class LineFinder:
    """Line numbers of JSON object keys, found in order (for messages only)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._pos = 0
        self._line = 1

    def line_of(self, key: str) -> int:
        if key.isascii() and key.isprintable() and '"' not in key and "\\" not in key:
            needles: tuple[str, ...] = (f'"{key}"',)  # as JSON writes it, either way
        else:
            needles = (json.dumps(key), json.dumps(key, ensure_ascii=False))
        for needle in needles:
            found = self._text.find(needle, self._pos)
            if found >= 0:
                self._line += self._text.count("\n", self._pos, found)
                self._pos = found + len(needle)
                return self._line
        return self._line


def line_of_last(text: str, names: list[str]) -> int:
    """The line of the last of ``names``, JSON object keys found in order (for a message:
    the usual entry never looks for its line)."""
    finder = LineFinder(text)
    line = 1
    for name in names:
        line = finder.line_of(name)
    return line


def json_pairs(pairs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return pairs


def key_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


#: The longest piece of an invalid line kept for the report.
_SHOWN_CHARS = 1000


def shown(text: str) -> str:
    if len(text) <= _SHOWN_CHARS:
        return safe(text)
    return safe(text[:_SHOWN_CHARS]) + f"… ({len(text):,} characters)"


def encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def safe(text: str) -> str:
    """Text fit to print and send: lone surrogates (from JSON escapes) made visible."""
    if text.isascii() or encodable(text):
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def line_break(text: str) -> str:
    """``\n``, or ``\r`` in a text without any ``\n`` (old Mac files)."""
    return "\r" if "\n" not in text and "\r" in text else "\n"


def iter_lines(text: str) -> Iterator[str]:
    """The lines :func:`lines_of` gives, one at a time (a large text's lines are never
    all held at once)."""
    sep = line_break(text)
    find = text.find
    start = 0
    while (end := find(sep, start)) >= 0:
        yield text[start:end]
        start = end + 1
    yield text[start:]


def line_at(text: str, number: int) -> str:
    """Line ``number`` (from 1) of ``text``, or "" when it has none (the lines before it
    are read, not the whole text)."""
    if number < 1:
        return ""
    return next(itertools.islice(iter_lines(text), number - 1, None), "")


def lines_of(text: str) -> list[str]:
    return text.split(line_break(text))

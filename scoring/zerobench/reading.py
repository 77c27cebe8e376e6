"""Text helpers shared by the key and submission readers: CSV, JSON pairs, safe text."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

#: The csv module's field limit is process-wide; raised once so a 10 MB cell reads.
_CSV_FIELD_LIMIT = 2**31 - 1


def csv_reader(text: str, *, skip_space: bool) -> Iterator[list[str]]:
    if csv.field_size_limit() < _CSV_FIELD_LIMIT:
        csv.field_size_limit(_CSV_FIELD_LIMIT)
    return csv.reader(io.StringIO(text, newline=""), skipinitialspace=skip_space)


class LineFinder:
    """Line numbers of JSON object keys, found in order (for messages only)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._pos = 0
        self._line = 1

    def line_of(self, key: str) -> int:
        for needle in (json.dumps(key), json.dumps(key, ensure_ascii=False)):
            found = self._text.find(needle, self._pos)
            if found >= 0:
                self._line += self._text.count("\n", self._pos, found)
                self._pos = found + len(needle)
                return self._line
        return self._line


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


def lines_of(text: str) -> list[str]:
    if "\n" not in text and "\r" in text:
        return text.split("\r")
    return text.split("\n")

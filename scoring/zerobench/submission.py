"""Reading a submission: JSON Lines, a JSON object, a JSON array of records, or CSV (the
official snippet's too).

Every line or row that cannot be read is kept as an invalid line; nothing is scored here.
"""

from __future__ import annotations

import itertools
import json
import json.scanner
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from ..base import MAX_REPORTED_INVALID_LINES, InvalidLine
from .hints import Notes
from .reading import (
    LineFinder,
    csv_reader,
    encodable,
    iter_lines,
    json_pairs,
    key_text,
    line_at,
    line_break,
    lines_of,
    shown,
)

FORMATS = ("jsonl", "json", "csv", "official_csv", "empty", "unknown")


class Submission:
    """A submission as read: its format, attempts, invalid lines and notes."""

    __slots__ = ("attempts", "claims", "fmt", "invalid", "invalid_count", "notes")

    def __init__(self) -> None:
        self.fmt = "empty"
        #: (question id, response, line) in file order
        self.attempts: list[tuple[str, str, int]] = []
        self.invalid: list[InvalidLine] = []
        self.invalid_count = 0
        self.notes = Notes()
        #: (question id, the file's own Correct? value, line) from the official CSV
        self.claims: list[tuple[str, bool, int]] = []

    def bad(self, line: int, text: str) -> None:
        self.invalid_count += 1
        if len(self.invalid) < MAX_REPORTED_INVALID_LINES:
            self.invalid.append(InvalidLine(line, shown(text)))


def _question_id(value: Any) -> str | None:
    text = key_text(value)
    if text is None:
        return None
    text = text.strip()
    if not text.isascii() and not encodable(text):
        return None  # a lone surrogate from a JSON escape: not a usable id
    return text or None


def read_submission(text: str) -> Submission:
    sub, attempts = stream_submission(text)
    if attempts is not sub.attempts:
        sub.attempts.extend(attempts)
    return sub


def stream_submission(text: str) -> tuple[Submission, Iterable[tuple[str, str, int]]]:
    """The submission (its format) and its attempts (question id, response, line), in
    file order. JSON Lines attempts come one at a time as they are read: the submission's
    invalid lines and notes are complete once they all have been taken; ``attempts``
    stays empty. Any other format is read whole (its attempts are ``sub.attempts``)."""
    sub = Submission()
    if text.startswith("\ufeff"):
        text = text[1:]  # a byte order mark, when the caller did not decode with decode()
    first = re.match(r"\s*", text)
    start = first.end() if first else 0
    if start >= len(text):
        return sub, sub.attempts
    if text[start] in "{[" or _looks_like_jsonl(text):  # JSON Lines after a line of prose too
        return sub, _read_json_or_jsonl(text, sub)
    _read_csv(text, sub)
    return sub, sub.attempts


def _read_json_or_jsonl(text: str, sub: Submission) -> Iterable[tuple[str, str, int]]:
    try:
        whole: Any = json.loads(text, object_pairs_hook=json_pairs)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data" or _looks_like_jsonl(text):
            sub.fmt = "jsonl"
            return _jsonl_attempts(text, sub)
        sub.fmt = "json"
        line = line_at(text, exc.lineno)
        sub.bad(exc.lineno, line)
        sub.notes.add("invalid_json", exc.lineno, (f"{exc.msg} at line {exc.lineno}",))
        return sub.attempts
    except RecursionError:
        if _looks_like_jsonl(text):
            sub.fmt = "jsonl"
            return _jsonl_attempts(text, sub)
        sub.fmt = "json"
        sub.bad(1, line_at(text, 1))
        sub.notes.add("too_deeply_nested", 1)
        return sub.attempts
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        sub.fmt = "json"
        sub.bad(1, line_at(text, 1))
        sub.notes.add("invalid_json", 1, (str(exc),))
        return sub.attempts
    if text.lstrip().startswith("[") and _records_in(whole):
        _read_json_array(text, sub)
        return sub.attempts
    if isinstance(whole, list) and not whole and text.lstrip().startswith("{"):
        sub.fmt = "json"  # {}: an empty object, nothing to score
        return sub.attempts
    if isinstance(whole, list) and whole and isinstance(whole[0], tuple):
        if any(name in ("question_id", "response", "responses") for name, _ in whole):
            sub.fmt = "jsonl"  # one JSON Lines record, perhaps spread over lines
            if not _add_record(sub, dict(whole), 1):
                sub.bad(1, line_at(text, 1))
        else:
            _read_json_object(text, whole, sub)
        return sub.attempts
    sub.fmt = "unknown"
    sub.bad(1, line_at(text, 1))
    sub.notes.add("unknown_format", 1)
    return sub.attempts


#: What lies between the records of a JSON array.
_BETWEEN = re.compile(r"[\s,]*")


def _records_in(whole: Any) -> bool:
    """Whether a JSON value read with :func:`json_pairs` (an object is a list of pairs)
    is an array with a record in it."""
    return isinstance(whole, list) and any(
        isinstance(item, list) and item and isinstance(item[0], tuple) for item in whole
    )


def _read_json_array(text: str, sub: Submission) -> None:
    """A JSON array of records (``[{"question_id": ..., "response": ...}, ...]``, as
    ``json.dump`` of a list or pandas' ``to_json(orient="records")`` writes it), read
    as JSON Lines records, each numbered by the line where it starts; a line with an
    item that is no record is an invalid line. ``text`` is valid JSON."""
    sub.fmt = "json"
    position = text.index("[") + 1
    line, counted, last_bad = 1, 0, 0
    while True:
        match = _BETWEEN.match(text, position)
        position = match.end() if match else position
        if position >= len(text) or text[position] == "]":
            break
        line += text.count("\n", counted, position)
        counted = position
        value, position = _SCAN_JSON(text, position)
        if (type(value) is not dict or not _add_record(sub, value, line)) and line != last_bad:
            sub.bad(line, line_at(text, line))  # once a line, however many items fail on it
            last_bad = line


def _looks_like_jsonl(text: str) -> bool:
    """Does any of the first lines hold a JSON Lines record on its own?"""
    for line in itertools.islice(iter_lines(text), 50):
        stripped = line.strip()
        if not stripped.startswith("{"):
            continue
        try:
            record = json.loads(stripped)
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict) and "question_id" in record:
            return True
    return False


#: The json module's own (C) scanner: one call per line, without json.loads' wrapping.
_SCAN_JSON: Callable[[str, int], tuple[Any, int]] = json.scanner.make_scanner(
    json.JSONDecoder()  # type: ignore[arg-type]  # typeshed's make_scanner signature is odd
)


def _jsonl_attempts(text: str, sub: Submission) -> Iterator[tuple[str, str, int]]:
    """The attempts of JSON Lines ``text``, line by line as read (see stream_submission).

    The usual line, a record starting at the line's start, is scanned where it lies in
    ``text`` (no copy of the line is made); a scan that fails or runs past the line's
    end, and any other line, is read from a copy of the line (:func:`_jsonl_line`)."""
    scan_json = _SCAN_JSON
    sep = line_break(text)
    find = text.find
    startswith = text.startswith
    size = len(text)
    pos = number = 0
    while pos <= size:  # as iter_lines: the piece after the last break is a line too
        number += 1
        stop = find(sep, pos)
        if stop < 0:
            stop = size
        if startswith("{", pos):
            try:
                record, end = scan_json(text, pos)
            except (RecursionError, StopIteration, ValueError):
                end = size + 1  # read again from the line alone
            if end <= stop and type(record) is dict and (end == stop or text[end:stop].isspace()):
                # the common record, read inline: {"question_id": "...", "response": "..."}
                qid = record.get("question_id")
                response = record.get("response")
                if type(qid) is str and type(response) is str and "responses" not in record:
                    qid = qid.strip()
                    if qid and (qid.isascii() or encodable(qid)):
                        yield qid, response, number
                        pos = stop + 1
                        continue
        yield from _jsonl_line(sub, text[pos:stop], number)
        pos = stop + 1


def _jsonl_line(sub: Submission, line: str, number: int) -> list[tuple[str, str, int]]:
    """The attempts of one JSON Lines line (none when it is blank or cannot be read)."""
    start = 0
    if line[:1] != "{":
        stripped = line.lstrip()
        if not stripped:
            return []
        start = len(line) - len(stripped)
    try:
        record, end = _SCAN_JSON(line, start)
    except RecursionError:
        sub.bad(number, line)
        sub.notes.add("too_deeply_nested", number)
        return []
    except (StopIteration, ValueError):  # StopIteration: no JSON value starts here
        sub.bad(number, line)
        return []
    if end != len(line) and not line[end:].isspace():
        sub.bad(number, line)
        return []
    if type(record) is dict:
        attempts = _record_attempts(sub, record, number)
        if attempts is not None:
            return attempts
    sub.bad(number, line)
    return []


def _add_record(sub: Submission, record: dict[str, Any], line: int) -> bool:
    """Add one JSON Lines record's attempts; False when it cannot be read."""
    attempts = _record_attempts(sub, record, line)
    if attempts is None:
        return False
    sub.attempts += attempts
    return True


def _record_attempts(
    sub: Submission, record: dict[str, Any], line: int
) -> list[tuple[str, str, int]] | None:
    """One JSON Lines record's attempts; None when it cannot be read."""
    qid = _question_id(record.get("question_id"))
    response = record.get("response")
    responses = record.get("responses")
    if qid is None or (response is None) == (responses is None):
        return None
    if isinstance(response, str):
        return [(qid, response, line)]
    if isinstance(responses, list) and all(isinstance(r, str) for r in responses):
        return [(qid, r, line) for r in responses]
    sub.notes.add("response_not_text", line)
    return None


def _read_json_object(text: str, pairs: list[tuple[str, Any]], sub: Submission) -> None:
    sub.fmt = "json"
    finder = LineFinder(text)
    seen: set[str] = set()
    for name, value in pairs:
        line = finder.line_of(name)
        qid = _question_id(name) or ""
        if qid and qid in seen:
            sub.notes.add("duplicate_ids", line)
        seen.add(qid)
        if qid and isinstance(value, str):
            sub.attempts.append((qid, value, line))
        elif qid and isinstance(value, list) and all(isinstance(r, str) for r in value):
            sub.attempts.extend((qid, r, line) for r in value)
        else:
            shown = f"{json.dumps(name, ensure_ascii=False)}: {_json_preview(value)}"
            sub.bad(line, shown)
            if qid:
                sub.notes.add("response_not_text", line)


def _json_preview(value: Any) -> str:
    if isinstance(value, list) and value and isinstance(value[0], tuple):
        value = dict(value)  # an object, read as pairs
    try:
        return shown(json.dumps(value, ensure_ascii=False))
    except (ValueError, TypeError, RecursionError):  # pragma: no cover - defensive
        return type(value).__name__


_ID_COLUMNS = ("question_id",)
_RESPONSE_COLUMNS = ("response", "model_output", "model_response")
_CORRECT_COLUMNS = ("correct?", "correct")


def _read_csv(text: str, sub: Submission) -> None:
    import csv  # (here: see CsvRows)

    reader = csv_reader(text, skip_space=True)
    header: list[str] | None = None
    id_col = response_col = correct_col = -1
    previous_line = 0
    source_lines: list[str] | None = None

    def raw(first: int, last: int) -> str:
        nonlocal source_lines
        if source_lines is None:
            source_lines = lines_of(text)
        return "\n".join(source_lines[first - 1 : last])

    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error:
            line = previous_line + 1
            now = reader.line_num
            sub.bad(line, raw(line, max(line, now)))
            if now <= previous_line:
                break  # pragma: no cover - the reader always moves on
            previous_line = now
            continue
        line = previous_line + 1
        previous_line = reader.line_num
        if not row or all(not cell.strip() for cell in row):
            continue
        if header is None:
            names = [cell.strip().lower() for cell in row]
            id_col = _column(names, _ID_COLUMNS)
            response_col = _column(names, _RESPONSE_COLUMNS)
            if id_col < 0 or response_col < 0:
                _read_unknown(text, sub)
                return
            header = names
            correct_col = _column(names, _CORRECT_COLUMNS)
            official = "model_output" in names and "ground_truth" in names
            sub.fmt = "official_csv" if official else "csv"
            continue
        qid = row[id_col].strip() if len(row) == len(header) else ""
        if not qid:
            sub.bad(line, raw(line, previous_line))
            continue
        sub.attempts.append((qid, row[response_col], line))
        if correct_col >= 0:
            claim = row[correct_col].strip().lower()
            if claim in ("true", "false"):
                sub.claims.append((qid, claim == "true", line))
    if header is None:
        _read_unknown(text, sub)


def _column(names: list[str], wanted: Sequence[str]) -> int:
    for name in wanted:
        if name in names:
            return names.index(name)
    return -1


def _read_unknown(text: str, sub: Submission) -> None:
    sub.fmt = "unknown"
    sub.attempts.clear()
    for number, line in enumerate(iter_lines(text), start=1):
        if line.strip():
            sub.bad(number, line)
    sub.notes.add("unknown_format", 1)


#: How much of the start of a text :func:`recognises` looks at.
_HEAD = 64 * 1024
#: A JSON object whose first member maps a name to text or to a list (``{"q1": "..."``).
_JSON_OBJECT = re.compile(r'\{\s*"[^"\n]{1,200}"\s*:\s*["\[]')
#: A JSON array whose first record names its question or response first.
_JSON_ARRAY = re.compile(r'\[\s*\{\s*"(?:question_id|responses?)"\s*:')


def recognises(text: str) -> bool:
    """Whether ``text`` starts as a submission this module reads: JSON Lines records
    with a ``question_id``, a JSON object of responses, or CSV with a ``question_id``
    and a response column. Only the first 64 KiB are looked at."""
    head = text[:_HEAD].lstrip("\ufeff \t\r\n")
    if not head:
        return False
    if head[0] in "{[":
        if len(text) <= _HEAD:
            return bool(read_submission(text).attempts)
        if _JSON_ARRAY.match(head) is not None:
            return True
        return _looks_like_jsonl(head) or _JSON_OBJECT.match(head) is not None
    if _looks_like_jsonl(head):
        return True
    first = head.split("\n", 1)[0].lower()
    names = [cell.strip().strip('"') for cell in first.split(",")]
    return "question_id" in names and any(name in names for name in _RESPONSE_COLUMNS)

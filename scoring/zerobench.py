"""ZeroBench (Roberts et al., arXiv:2502.09696): answers in curly braces, pass@k.

The rules are ``shared/specs/zerobench.md``. The answer check is the official one,
reproduced exactly (:func:`official_check`); near misses it counts wrong are explained
as hints, and a clearly labelled *lenient* re-check is reported beside the official
figures, never used to rank.

Decisions the spec leaves open, made here:

- Denominators are the key's questions of each split. A question of the key with no
  attempt counts as failed and is listed as unattempted.
- pass@1 of a question is the share of correct attempts among its first ``k``; a
  question with fewer than ``k`` attempts uses the attempts it has (it is not padded
  with failures) and is listed under ``fewer_than_k``. Such a question cannot count for
  k/k reliability, which needs ``k`` correct attempts.
- The figure that ranks (``primary``) is official pass@1 over the main split, as a
  fraction in [0, 1]. Only when the *key* has no main questions (a subquestions-only
  key) does it fall back to subquestion pass@1; ``primary_split`` says which. A
  submission that answers only subquestions against a full key ranks by main pass@1,
  which is then 0 (a hint says so): ranking it by the far easier subquestions would
  put it above honest full runs.
- Several lines (rows, list items) for one question id are several attempts, in file
  order; attempts after the first ``k`` are counted and reported, never scored.

Scoring is pure and linear in the input: the official regex ``\\{(.*?)\\}`` is run as
an equivalent pattern that cannot go quadratic on a line full of ``{`` (see
:data:`_SCAN`), so a hostile 20 MB response costs the same as an ordinary one.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import json.scanner
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import lru_cache
from typing import Any

from .base import MAX_REPORTED_INVALID_LINES, Hint, InvalidLine
from .errors import KeyFormatError, ScoringError
from .text import decode

NAME = "zerobench"
TITLE = "ZeroBench"
SCORER_VERSION = "zerobench-1"
CREDIT = (
    "ZeroBench by Jonathan Roberts et al. (arXiv:2502.09696); "
    "data: huggingface.co/datasets/jonathan-roberts1/zerobench"
)
DATASET = "jonathan-roberts1/zerobench"
MAIN_SPLIT = "zerobench"
SUB_SPLIT = "zerobench_subquestions"
SPLITS = (MAIN_SPLIT, SUB_SPLIT)
OFFICIAL_QUESTIONS = {MAIN_SPLIT: 100, SUB_SPLIT: 334}
DEFAULT_K = 5

#: Appended to every question's text by the official evaluation, verbatim.
PROMPT_SUFFIX = (
    "\n\n\nLet's think step by step and give the final answer in curly braces, "
    "like this: {final answer}"
)

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
_SCAN = re.compile(r"\{([^}\n]*+)(\}?)")


def official_parse(response: str) -> str:
    """The official extraction: the last ``{...}`` on one line of the lowercased,
    stripped response, or "" when there is none."""
    formatted = response.strip().lower()
    if "}" not in formatted:
        return ""
    for inner, close in reversed(_SCAN.findall(formatted)):
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
def _number(text: str) -> Decimal | None:
    if len(text) > _MAX_NUMBER_TEXT or _NUMBER.fullmatch(text) is None:
        return None
    try:
        return Decimal(text)
    except InvalidOperation:  # pragma: no cover - the pattern only admits numbers
        return None


def _lenient_reasons(
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
    b = _number(gt_norm) if gt_number is None else gt_number
    if b is None:
        return None
    a = _number(text)
    if a is not None and a == b:
        reasons.append("number_format")
        return tuple(reasons)
    return None


def lenient_check(response: str, ground_truth: str) -> bool:
    """Official check, or the lenient re-check. Information only: never ranks."""
    if official_check(response, ground_truth):
        return True
    formatted = response.strip().lower()
    if not any(close for _, close in _SCAN.findall(formatted)):
        return False
    return _lenient_reasons(official_parse(response), ground_truth.strip().lower()) is not None


_BRACE = re.compile(r"[{}]")


def _nested_group(formatted: str) -> tuple[str, str] | None:
    """For a response whose last ``{...}`` sits inside a larger balanced ``{...}`` on its
    line, return (the outer group's text, the text the official rule read)."""
    last: re.Match[str] | None = None
    for match in _SCAN.finditer(formatted):
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


# --- the key -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ZeroKey:
    """The answer key: question id → ground-truth answer (exact text), per split."""

    main: Mapping[str, str]
    sub: Mapping[str, str]
    sha256: str = ""

    def __len__(self) -> int:
        return len(self.main) + len(self.sub)

    def split(self, name: str) -> Mapping[str, str]:
        return self.main if name == MAIN_SPLIT else self.sub


def dump_key(key: ZeroKey) -> bytes:
    """The canonical two-split JSON form of a key (what the data folder stores)."""
    data = {MAIN_SPLIT: dict(key.main), SUB_SPLIT: dict(key.sub)}
    return (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


#: The csv module's field limit is process-wide; raised once so a 10 MB cell reads.
_CSV_FIELD_LIMIT = 2**31 - 1


def _csv_reader(text: str, *, skip_space: bool) -> Iterator[list[str]]:
    if csv.field_size_limit() < _CSV_FIELD_LIMIT:
        csv.field_size_limit(_CSV_FIELD_LIMIT)
    return csv.reader(io.StringIO(text, newline=""), skipinitialspace=skip_space)


class _LineFinder:
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


def _pairs(pairs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return pairs


def _key_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def load_key(data: bytes, *, filename: str = "") -> ZeroKey:
    """Parse a key strictly: JSON ``{id: answer}`` (main split only), JSON
    ``{"zerobench": {...}, "zerobench_subquestions": {...}}``, or CSV
    ``question_id,question_answer[,split]``. Answers are kept exactly as written."""
    text = decode(data)
    start = text.lstrip()[:1]
    if start in ("{", "[") or (filename.lower().endswith(".json") and start != ""):
        main, sub = _load_json_key(text)
    else:
        main, sub = _load_csv_key(text)
    if not main and not sub:
        raise KeyFormatError(f"{filename or 'the key'} holds no answers")
    return ZeroKey(main=main, sub=sub, sha256=hashlib.sha256(data).hexdigest())


def _load_json_key(text: str) -> tuple[dict[str, str], dict[str, str]]:
    try:
        parsed = json.loads(text, object_pairs_hook=_pairs)
    except json.JSONDecodeError as exc:
        raise KeyFormatError(f"not valid JSON: {exc.msg}", line=exc.lineno) from None
    except (ValueError, RecursionError):
        raise KeyFormatError("not a key: the JSON is nested too deeply or too large") from None
    if not isinstance(parsed, list) or (parsed and not isinstance(parsed[0], tuple)):
        raise KeyFormatError('the key must be a JSON object {"question_id": "answer", ...}')
    finder = _LineFinder(text)
    seen: set[str] = set()
    main: dict[str, str] = {}
    sub: dict[str, str] = {}
    two_split = any(name in SPLITS and isinstance(value, list) for name, value in parsed)
    splits_seen: set[str] = set()
    if not two_split:
        _json_split(parsed, main, seen, finder)
        return main, sub
    for name, value in parsed:
        line = finder.line_of(name)
        if name not in SPLITS:
            raise KeyFormatError(
                f"unexpected entry {name!r}: a two-split key holds only "
                f"{MAIN_SPLIT!r} and {SUB_SPLIT!r}",
                line=line,
            )
        if not isinstance(value, list) or (value and not isinstance(value[0], tuple)):
            raise KeyFormatError(f"{name} must be an object {{question_id: answer}}", line=line)
        if name in splits_seen:
            raise KeyFormatError(f"{name} appears twice", line=line)
        splits_seen.add(name)
        _json_split(value, main if name == MAIN_SPLIT else sub, seen, finder)
    return main, sub


def _json_split(
    pairs: list[tuple[str, Any]], into: dict[str, str], seen: set[str], finder: _LineFinder
) -> None:
    for qid, value in pairs:
        line = finder.line_of(qid)
        answer = _key_text(value)
        _add_key_entry(into, seen, qid, answer, line, shown=f"{json.dumps(qid)}: ...")


def _add_key_entry(
    into: dict[str, str], seen: set[str], qid: str, answer: str | None, line: int, shown: str
) -> None:
    qid = qid.strip()
    if not qid:
        raise KeyFormatError("empty question id", line=line, text=shown)
    if answer is None:
        raise KeyFormatError(
            f"the answer to {qid} must be text (write numbers as strings: 11.90, not 11.9)",
            line=line,
            text=shown,
        )
    if not answer.strip():
        raise KeyFormatError(f"the answer to {qid} is empty", line=line, text=shown)
    if qid in seen:
        raise KeyFormatError(f"question {qid} appears twice", line=line, text=shown)
    seen.add(qid)
    into[qid] = answer


def _load_csv_key(text: str) -> tuple[dict[str, str], dict[str, str]]:
    reader = _csv_reader(text, skip_space=False)
    main: dict[str, str] = {}
    sub: dict[str, str] = {}
    seen: set[str] = set()
    header: list[str] | None = None
    previous_line = 0
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise KeyFormatError(f"unreadable CSV: {exc}", line=previous_line + 1) from None
        line = previous_line + 1
        previous_line = reader.line_num  # type: ignore[attr-defined]
        if not row or all(not cell.strip() for cell in row):
            continue
        shown = ",".join(row)
        if header is None:
            header = [cell.strip().lower() for cell in row]
            if "question_id" not in header or "question_answer" not in header:
                raise KeyFormatError(
                    "a CSV key needs a header with question_id and question_answer "
                    "(and optionally split); or give a JSON key",
                    line=line,
                    text=shown,
                )
            continue
        if len(row) != len(header):
            raise KeyFormatError(
                f"expected {len(header)} fields, found {len(row)}", line=line, text=shown
            )
        cells = dict(zip(header, row, strict=True))
        split = cells.get("split", MAIN_SPLIT).strip() or MAIN_SPLIT
        if split not in SPLITS:
            raise KeyFormatError(
                f"split must be {MAIN_SPLIT} or {SUB_SPLIT}", line=line, text=shown
            )
        into = main if split == MAIN_SPLIT else sub
        _add_key_entry(into, seen, cells["question_id"], cells["question_answer"], line, shown)
    if header is None:
        raise KeyFormatError("the key is empty")
    return main, sub


# --- reading a submission ------------------------------------------------------------

#: The longest piece of an invalid line kept for the report.
_SHOWN_CHARS = 1000
#: How many line numbers or ids a hint keeps.
_HINT_ITEMS = 1000

FORMATS = ("jsonl", "json", "csv", "official_csv", "empty", "unknown")


def _shown(text: str) -> str:
    if len(text) <= _SHOWN_CHARS:
        return _safe(text)
    return _safe(text[:_SHOWN_CHARS]) + f"… ({len(text):,} characters)"


@dataclass(slots=True)
class _Notes:
    """Hints gathered while reading and scoring: code → lines (or ids), count, example."""

    items: dict[str, list[Any]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    examples: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def add(self, code: str, item: Any, example: tuple[str, ...] = ()) -> None:
        kept = self.items.setdefault(code, [])
        if len(kept) < _HINT_ITEMS:
            kept.append(item)
        self.counts[code] = self.counts.get(code, 0) + 1
        if example and code not in self.examples:
            self.examples[code] = example


@dataclass(slots=True)
class _Submission:
    fmt: str = "empty"
    #: (question id, response, line) in file order
    attempts: list[tuple[str, str, int]] = field(default_factory=list)
    invalid: list[InvalidLine] = field(default_factory=list)
    invalid_count: int = 0
    notes: _Notes = field(default_factory=_Notes)
    #: (question id, the file's own Correct? value, line) from the official CSV
    claims: list[tuple[str, bool, int]] = field(default_factory=list)

    def bad(self, line: int, text: str) -> None:
        self.invalid_count += 1
        if len(self.invalid) < MAX_REPORTED_INVALID_LINES:
            self.invalid.append(InvalidLine(line, _shown(text)))


def _question_id(value: Any) -> str | None:
    text = _key_text(value)
    if text is None:
        return None
    text = text.strip()
    if not text.isascii() and not _encodable(text):
        return None  # a lone surrogate from a JSON escape: not a usable id
    return text or None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _safe(text: str) -> str:
    """Text fit to print and send: lone surrogates (from JSON escapes) made visible."""
    if text.isascii() or _encodable(text):
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _read_submission(text: str) -> _Submission:
    sub = _Submission()
    if text.startswith("\ufeff"):
        text = text[1:]  # a byte order mark, when the caller did not decode with decode()
    first = re.match(r"\s*", text)
    start = first.end() if first else 0
    if start >= len(text):
        return sub
    if text[start] in "{[":
        _read_json_or_jsonl(text, sub)
    else:
        _read_csv(text, sub)
    return sub


def _lines(text: str) -> list[str]:
    if "\n" not in text and "\r" in text:
        return text.split("\r")
    return text.split("\n")


def _read_json_or_jsonl(text: str, sub: _Submission) -> None:
    try:
        whole: Any = json.loads(text, object_pairs_hook=_pairs)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data" or _looks_like_jsonl(text):
            _read_jsonl(text, sub)
        else:
            sub.fmt = "json"
            line = _lines(text)[exc.lineno - 1] if exc.lineno >= 1 else ""
            sub.bad(exc.lineno, line)
            sub.notes.add("invalid_json", exc.lineno, (f"{exc.msg} at line {exc.lineno}",))
        return
    except RecursionError:
        if _looks_like_jsonl(text):
            _read_jsonl(text, sub)
        else:
            sub.fmt = "json"
            sub.bad(1, _lines(text)[0])
            sub.notes.add("too_deeply_nested", 1)
        return
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        sub.fmt = "json"
        sub.bad(1, _lines(text)[0])
        sub.notes.add("invalid_json", 1, (str(exc),))
        return
    if isinstance(whole, list) and not whole and text.lstrip().startswith("{"):
        sub.fmt = "json"  # {}: an empty object, nothing to score
        return
    if isinstance(whole, list) and whole and isinstance(whole[0], tuple):
        if any(name in ("question_id", "response", "responses") for name, _ in whole):
            sub.fmt = "jsonl"  # one JSON Lines record, perhaps spread over lines
            if not _add_record(sub, dict(whole), 1):
                sub.bad(1, _lines(text)[0])
        else:
            _read_json_object(text, whole, sub)
        return
    sub.fmt = "unknown"
    sub.bad(1, _lines(text)[0])
    sub.notes.add("unknown_format", 1)


def _looks_like_jsonl(text: str) -> bool:
    """Does any of the first lines hold a JSON Lines record on its own?"""
    for line in _lines(text)[:50]:
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


def _read_jsonl(text: str, sub: _Submission) -> None:
    sub.fmt = "jsonl"
    scan_json = _SCAN_JSON
    attempts = sub.attempts
    for number, line in enumerate(_lines(text), start=1):
        start = 0
        if line[:1] != "{":
            stripped = line.lstrip()
            if not stripped:
                continue
            start = len(line) - len(stripped)
        try:
            record, end = scan_json(line, start)
        except RecursionError:
            sub.bad(number, line)
            sub.notes.add("too_deeply_nested", number)
            continue
        except (StopIteration, ValueError):  # StopIteration: no JSON value starts here
            sub.bad(number, line)
            continue
        if end != len(line) and not line[end:].isspace():
            sub.bad(number, line)
            continue
        if type(record) is dict:
            # the common record, read inline: {"question_id": "...", "response": "..."}
            qid = record.get("question_id")
            response = record.get("response")
            if type(qid) is str and type(response) is str and "responses" not in record:
                qid = qid.strip()
                if qid and (qid.isascii() or _encodable(qid)):
                    attempts.append((qid, response, number))
                    continue
            if _add_record(sub, record, number):
                continue
        sub.bad(number, line)


def _add_record(sub: _Submission, record: dict[str, Any], line: int) -> bool:
    """Add one JSON Lines record's attempts; False when it cannot be read."""
    qid = _question_id(record.get("question_id"))
    response = record.get("response")
    responses = record.get("responses")
    if qid is None or (response is None) == (responses is None):
        return False
    if isinstance(response, str):
        sub.attempts.append((qid, response, line))
    elif isinstance(responses, list) and all(isinstance(r, str) for r in responses):
        sub.attempts.extend((qid, r, line) for r in responses)
    else:
        sub.notes.add("response_not_text", line)
        return False
    return True


def _read_json_object(text: str, pairs: list[tuple[str, Any]], sub: _Submission) -> None:
    sub.fmt = "json"
    finder = _LineFinder(text)
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
        return _shown(json.dumps(value, ensure_ascii=False))
    except (ValueError, TypeError, RecursionError):  # pragma: no cover - defensive
        return type(value).__name__


_ID_COLUMNS = ("question_id",)
_RESPONSE_COLUMNS = ("response", "model_output", "model_response")
_CORRECT_COLUMNS = ("correct?", "correct")


def _read_csv(text: str, sub: _Submission) -> None:
    reader = _csv_reader(text, skip_space=True)
    header: list[str] | None = None
    id_col = response_col = correct_col = -1
    previous_line = 0
    source_lines: list[str] | None = None

    def raw(first: int, last: int) -> str:
        nonlocal source_lines
        if source_lines is None:
            source_lines = _lines(text)
        return "\n".join(source_lines[first - 1 : last])

    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error:
            line = previous_line + 1
            now = reader.line_num  # type: ignore[attr-defined]
            sub.bad(line, raw(line, max(line, now)))
            if now <= previous_line:
                break  # pragma: no cover - the reader always moves on
            previous_line = now
            continue
        line = previous_line + 1
        previous_line = reader.line_num  # type: ignore[attr-defined]
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


def _read_unknown(text: str, sub: _Submission) -> None:
    sub.fmt = "unknown"
    sub.attempts.clear()
    for number, line in enumerate(_lines(text), start=1):
        if line.strip():
            sub.bad(number, line)
    sub.notes.add("unknown_format", 1)


# --- the result ----------------------------------------------------------------------


def _fraction(count: float, total: int) -> float | None:
    return count / total if total else None


@dataclass(frozen=True, slots=True)
class Figures:
    """pass@1, pass@k and k/k reliability over one split, under one rule."""

    correct_attempts: int
    pass_at_1_count: float
    pass_at_k_count: int
    reliability_count: int
    questions: int
    #: pass@1 as the correctly rounded exact ratio (sum of shares / questions)
    exact_pass_at_1: float | None = None

    @property
    def pass_at_1(self) -> float | None:
        if self.exact_pass_at_1 is not None:
            return self.exact_pass_at_1
        return _fraction(self.pass_at_1_count, self.questions)

    @property
    def pass_at_k(self) -> float | None:
        return _fraction(self.pass_at_k_count, self.questions)

    @property
    def reliability(self) -> float | None:
        return _fraction(self.reliability_count, self.questions)

    def to_json(self) -> dict[str, Any]:
        return {
            "correct_attempts": self.correct_attempts,
            "pass_at_1": self.pass_at_1,
            "pass_at_1_count": self.pass_at_1_count,
            "pass_at_k": self.pass_at_k,
            "pass_at_k_count": self.pass_at_k_count,
            "reliability_k_of_k": self.reliability,
            "reliability_k_of_k_count": self.reliability_count,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], questions: int) -> Figures:
        return cls(
            correct_attempts=data["correct_attempts"],
            pass_at_1_count=data["pass_at_1_count"],
            pass_at_k_count=data["pass_at_k_count"],
            reliability_count=data["reliability_k_of_k_count"],
            questions=questions,
            exact_pass_at_1=data["pass_at_1"],
        )


@dataclass(frozen=True, slots=True)
class SplitResult:
    """One split of the key: how many questions, attempts, and the figures."""

    split: str
    questions: int
    attempts: int
    attempts_scored: int
    official: Figures
    lenient: Figures
    unattempted: tuple[str, ...]
    fewer_than_k: tuple[str, ...]

    @property
    def attempted(self) -> int:
        return self.questions - len(self.unattempted)

    def to_json(self) -> dict[str, Any]:
        official = self.official.to_json()
        lenient = self.lenient.to_json()
        return {
            "split": self.split,
            "questions": self.questions,
            "attempted": self.attempted,
            "unattempted": len(self.unattempted),
            "unattempted_ids": list(self.unattempted),
            "attempts": self.attempts,
            "attempts_scored": self.attempts_scored,
            "attempts_beyond_k": self.attempts - self.attempts_scored,
            **official,
            "fewer_than_k": list(self.fewer_than_k),
            "fewer_than_k_count": len(self.fewer_than_k),
            "lenient": {"note": LENIENT_NOTE, **lenient},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SplitResult:
        questions = data["questions"]
        return cls(
            split=data["split"],
            questions=questions,
            attempts=data["attempts"],
            attempts_scored=data["attempts_scored"],
            official=Figures.from_json(data, questions),
            lenient=Figures.from_json(data["lenient"], questions),
            unattempted=tuple(data["unattempted_ids"]),
            fewer_than_k=tuple(data["fewer_than_k"]),
        )


def _count_text(count: float) -> str:
    if float(count).is_integer():
        return str(int(count))
    return f"{count:.2f}".rstrip("0").rstrip(".")


def _figure(fraction: float | None, count: float, total: int) -> str:
    if fraction is None:
        return "—"
    return f"{fraction:.1%} ({_count_text(count)}/{total})"


@dataclass(frozen=True, slots=True)
class ZeroBenchResult:
    k: int
    main: SplitResult
    sub: SplitResult
    submission_format: str
    invalid_lines: tuple[InvalidLine, ...]
    invalid_line_count: int
    unknown_ids: tuple[str, ...]
    unknown_id_count: int
    hints: tuple[Hint, ...]
    fingerprint: str
    benchmark: str = field(default=NAME)

    @property
    def primary_split(self) -> str:
        """The split that ranks: main, unless the key has no main questions."""
        return MAIN_SPLIT if self.main.questions or not self.sub.questions else SUB_SPLIT

    @property
    def primary(self) -> float:
        """Official pass@1 (a fraction in [0, 1]) over :attr:`primary_split`."""
        split = self.main if self.primary_split == MAIN_SPLIT else self.sub
        return split.official.pass_at_1 or 0.0

    @property
    def unknown_questions(self) -> tuple[str, ...]:
        """The ids not in the key (what ``bot.format`` lists as ignored)."""
        return self.unknown_ids

    def splits(self) -> tuple[tuple[str, SplitResult], ...]:
        return (("main", self.main), ("sub", self.sub))

    def summary_fields(self) -> tuple[tuple[str, str], ...]:
        fields: list[tuple[str, str]] = [("k_attempts", str(self.k))]
        for prefix, split in self.splits():
            shown = split.questions and (
                split.split == self.primary_split or split.attempts or not self.main.questions
            )
            if not shown:
                continue
            o, n = split.official, split.lenient
            fields.append((f"{prefix}_questions", str(split.questions)))
            if split.unattempted:
                fields.append((f"{prefix}_unattempted", str(len(split.unattempted))))
            if split.fewer_than_k:
                fields.append((f"{prefix}_fewer_than_k", str(len(split.fewer_than_k))))
            fields += [
                (f"{prefix}_pass_at_1", _figure(o.pass_at_1, o.pass_at_1_count, o.questions)),
                (f"{prefix}_pass_at_k", _figure(o.pass_at_k, o.pass_at_k_count, o.questions)),
                (
                    f"{prefix}_reliability",
                    _figure(o.reliability, o.reliability_count, o.questions),
                ),
                (
                    f"{prefix}_lenient_pass_at_1",
                    _figure(n.pass_at_1, n.pass_at_1_count, n.questions),
                ),
                (
                    f"{prefix}_lenient_pass_at_k",
                    _figure(n.pass_at_k, n.pass_at_k_count, n.questions),
                ),
            ]
        return tuple(fields)

    def to_json(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "scorer_version": SCORER_VERSION,
            "format": self.submission_format,
            "k": self.k,
            "primary": self.primary,
            "primary_metric": "pass_at_1",
            "primary_split": self.primary_split,
            "main": self.main.to_json(),
            "subquestions": self.sub.to_json(),
            "invalid_line_count": self.invalid_line_count,
            "invalid_lines": [il.to_json() for il in self.invalid_lines],
            "unknown_ids": list(self.unknown_ids),
            "unknown_id_count": self.unknown_id_count,
            "hints": [
                {"code": h.code, "message": h.message, "lines": list(h.lines)} for h in self.hints
            ],
        }

    def to_record(self) -> dict[str, Any]:
        data = self.to_json()
        data["fingerprint"] = self.fingerprint
        return data


def result_from_record(data: Mapping[str, Any]) -> ZeroBenchResult:
    """Rebuild a result from :meth:`ZeroBenchResult.to_record` output."""
    return ZeroBenchResult(
        k=data["k"],
        main=SplitResult.from_json(data["main"]),
        sub=SplitResult.from_json(data["subquestions"]),
        submission_format=data["format"],
        invalid_lines=tuple(InvalidLine(il["line"], il["text"]) for il in data["invalid_lines"]),
        invalid_line_count=data["invalid_line_count"],
        unknown_ids=tuple(data["unknown_ids"]),
        unknown_id_count=data["unknown_id_count"],
        hints=tuple(Hint(h["code"], h["message"], tuple(h["lines"])) for h in data["hints"]),
        fingerprint=data.get("fingerprint", ""),
    )


# --- scoring -------------------------------------------------------------------------


def _k_option(options: Mapping[str, Any] | None) -> int:
    value = (options or {}).get("k", DEFAULT_K)
    if value is None:
        return DEFAULT_K
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ScoringError(f"k must be a whole number of at least 1 (got {value!r})")
    return value


def _natural(qid: str) -> tuple[tuple[int, int, str], ...]:
    return tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part)
        for part in re.split(r"([0-9]+)", qid)
        if part
    )


def _sorted_ids(ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(ids, key=_natural))


@dataclass(slots=True)
class _Question:
    split: str
    attempts: int = 0
    correct: int = 0
    lenient: int = 0
    #: the officially extracted answer of every attempt, in order (for the fingerprint)
    answers: list[str] = field(default_factory=list)


def score(text: str, key: ZeroKey, *, k: int = DEFAULT_K) -> ZeroBenchResult:
    """Score decoded submission text against a key. Never raises on any text."""
    if k < 1:
        raise ScoringError(f"k must be a whole number of at least 1 (got {k!r})")
    submission = _read_submission(text)
    notes = submission.notes
    # id -> (split, gt, len(gt), gt.strip().lower(), len(gt.strip()), gt as a number)
    truth: dict[str, tuple[str, str, int, str, int, Decimal | None]] = {}
    for split in SPLITS:
        for qid, gt in key.split(split).items():
            norm = gt.strip()
            truth[qid] = (split, gt, len(gt), norm.lower(), len(norm), _number(norm.lower()))
    questions: dict[str, _Question] = {}
    unknown: dict[str, None] = {}
    # line -> verdict, kept only to compare with the official CSV's own Correct? column
    official_of: dict[int, bool] | None = {} if submission.claims else None
    scan = _SCAN.findall
    for qid, response, line in submission.attempts:
        entry = truth.get(qid)
        if entry is None:
            unknown[qid] = None
            continue
        split, gt, gt_len, gt_norm, gt_slen, gt_number = entry
        question = questions.get(qid)
        if question is None:
            question = questions[qid] = _Question(split)
        question.attempts += 1
        # The official extraction and check (see official_check), inlined for speed.
        formatted = response.strip().lower()
        parsed = ""
        found = False
        matches: list[tuple[str, str]] = []
        if "}" in formatted:
            matches = scan(formatted)
            for inner, close in reversed(matches):
                if close:
                    parsed, found = inner, True
                    break
        question.answers.append(parsed)
        correct = parsed[:gt_len].lower() == gt_norm and len(parsed) == gt_slen
        if official_of is not None:
            official_of[line] = correct
        if question.attempts > k:
            continue
        if correct:
            question.correct += 1
            question.lenient += 1
            continue
        reasons = _lenient_reasons(parsed, gt_norm, gt_number) if found else None
        if reasons is not None:
            question.lenient += 1
            for code in reasons:
                notes.add(code, line)
                if code not in notes.examples:
                    notes.examples[code] = (qid, _safe(_short("{" + parsed + "}", 40)), gt)
            continue
        _explain_wrong(notes, qid, line, formatted, matches, found, gt_len, gt_norm, gt_slen)
    for qid, claimed, line in submission.claims:
        if qid in truth and official_of is not None and official_of.get(line, claimed) != claimed:
            notes.add("correct_column_differs", line)
    splits = {split: _split_result(split, key, questions, k) for split in SPLITS}
    main, sub = splits[MAIN_SPLIT], splits[SUB_SPLIT]
    _question_notes(notes, main, sub, questions, k)
    return ZeroBenchResult(
        k=k,
        main=main,
        sub=sub,
        submission_format=submission.fmt,
        invalid_lines=tuple(submission.invalid),
        invalid_line_count=submission.invalid_count,
        unknown_ids=_sorted_ids(unknown)[:_HINT_ITEMS],
        unknown_id_count=len(unknown),
        hints=_hints(notes, k, main),
        fingerprint=_fingerprint({qid: q.answers for qid, q in questions.items()}),
    )


def _explain_wrong(
    notes: _Notes,
    qid: str,
    line: int,
    formatted: str,
    matches: list[tuple[str, str]],
    has_match: bool,
    gt_len: int,
    gt_norm: str,
    gt_slen: int,
) -> None:
    """Hints for an attempt the official check counts wrong (never changes the score)."""
    if not has_match:
        opening = formatted.find("{")
        if opening >= 0 and formatted.find("}", opening) > 0:
            notes.add("braces_across_lines", line)
        else:
            notes.add("no_braces", line)
        return
    # Cheap test first: some "{" opens no match of its own (it sits inside one).
    nested = _nested_group(formatted) if formatted.count("{") > len(matches) else None
    if nested is not None:
        outer, read = nested
        notes.add("nested_braces", line, (qid, _safe(_short(outer, 40)), _safe(_short(read, 40))))
        return
    if len(matches) < 2 or "{" + gt_norm + "}" not in formatted:
        return  # no earlier {...} can hold the right answer
    for inner, close in matches:  # the last real match is wrong, so any right one is earlier
        if close and inner[:gt_len].lower() == gt_norm and len(inner) == gt_slen:
            notes.add("earlier_braces", line)
            return


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _split_result(split: str, key: ZeroKey, questions: dict[str, _Question], k: int) -> SplitResult:
    ids = key.split(split)
    attempts = scored = 0
    unattempted: list[str] = []
    fewer: list[str] = []
    # Exact sums: sum of correct/n over questions == sum over n of (correct with n) / n.
    official_by_n: dict[int, int] = {}
    lenient_by_n: dict[int, int] = {}
    official = [0, 0, 0]  # correct attempts, pass@k, k/k
    lenient = [0, 0, 0]
    for qid in ids:
        question = questions.get(qid)
        if question is None:
            unattempted.append(qid)
            continue
        n = min(question.attempts, k)
        attempts += question.attempts
        scored += n
        if n < k:
            fewer.append(qid)
        for tally, by_n, correct in (
            (official, official_by_n, question.correct),
            (lenient, lenient_by_n, question.lenient),
        ):
            by_n[n] = by_n.get(n, 0) + correct
            tally[0] += correct
            tally[1] += correct > 0
            tally[2] += correct == k
    total = len(ids)

    def figures(tally: list[int], by_n: dict[int, int]) -> Figures:
        exact = sum((Fraction(c, n) for n, c in by_n.items()), Fraction(0))
        share = float(exact / total) if total else None
        return Figures(tally[0], float(exact), tally[1], tally[2], total, share)

    return SplitResult(
        split=split,
        questions=total,
        attempts=attempts,
        attempts_scored=scored,
        official=figures(official, official_by_n),
        lenient=figures(lenient, lenient_by_n),
        unattempted=_sorted_ids(unattempted),
        fewer_than_k=_sorted_ids(fewer),
    )


def _question_notes(
    notes: _Notes,
    main: SplitResult,
    sub: SplitResult,
    questions: dict[str, _Question],
    k: int,
) -> None:
    for split in (main, sub):
        for qid in split.fewer_than_k:
            notes.add("fewer_than_k", qid)
    for qid in _sorted_ids(q for q, question in questions.items() if question.attempts > k):
        notes.add("more_than_k", qid)
    if main.questions and not main.attempts and sub.attempts:
        notes.add("no_main_attempts", main.questions)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _list_phrase(items: Sequence[Any], total: int, limit: int = 8) -> str:
    shown = ", ".join(str(i) for i in items[:limit])
    return shown + (f" and {total - min(limit, len(items))} more" if total > limit else "")


def _where(lines: Sequence[int], total: int) -> str:
    return ("line " if total == 1 else "lines ") + _list_phrase(lines, total)


_ATTEMPT_HINTS: dict[str, str] = {
    "no_braces": "no {{…}} answer in {n} ({where}): the official check needs the final "
    "answer in curly braces on one line, so these count as wrong",
    "braces_across_lines": "the braces span a line break in {n} ({where}): the official "
    "check reads {{…}} only within one line, so these count as wrong",
    "spaces_in_braces": "spaces inside the braces in {n} ({where}; e.g. question {ex0}: "
    "{ex1}): the official check does not trim them, so these count as wrong",
    "trailing_period": "a period after the answer in {n} ({where}; e.g. question {ex0}: "
    "{ex1}): the official check counts these wrong",
    "number_format": "the right number written differently in {n} ({where}; e.g. question "
    "{ex0}: {ex1} for {ex2}): the official check compares text (11.9 is not 11.90), so "
    "these count as wrong",
    "nested_braces": "nested braces in {n} ({where}; e.g. question {ex0}: {ex1} is read as "
    '"{ex2}"): the official check takes the last innermost {{…}}, so these count as wrong',
    "earlier_braces": "the right answer in an earlier {{…}} in {n} ({where}): the official "
    "check reads only the last {{…}} of a response",
}

_HINT_ORDER = (
    "unknown_format",
    "invalid_json",
    "too_deeply_nested",
    "response_not_text",
    "duplicate_ids",
    *_ATTEMPT_HINTS,
    "correct_column_differs",
    "no_main_attempts",
    "fewer_than_k",
    "more_than_k",
)


def _hints(notes: _Notes, k: int, main: SplitResult) -> tuple[Hint, ...]:
    hints: list[Hint] = []
    for code in _HINT_ORDER:
        items = notes.items.get(code)
        if not items:
            continue
        n = notes.counts[code]
        example = notes.examples.get(code, ())
        lines: tuple[int, ...] = ()
        if code in _ATTEMPT_HINTS:
            ex = dict(zip(("ex0", "ex1", "ex2"), example, strict=False))
            message = _ATTEMPT_HINTS[code].format(
                n=_plural(n, "attempt"), where=_where(items, n), **ex
            )
            lines = tuple(items)
        elif code in ("fewer_than_k", "more_than_k"):
            fewer = code == "fewer_than_k"
            message = (
                f"{_plural(n, 'question')} with {'fewer' if fewer else 'more'} than "
                f"{k} attempts ({_list_phrase(items, n)}): "
                + (
                    f"their pass@1 and pass@{k} use the attempts given (not padded), and "
                    f"they cannot count for {k}/{k} reliability; if you ran fewer attempts "
                    "per question, score with k set to that number"
                    if fewer
                    else f"only the first {k} of each, in file order, are scored"
                )
            )
        elif code == "no_main_attempts":
            message = (
                f"no attempt at any of the {main.questions} main questions: the ranking "
                "figure is pass@1 over the main questions, so it is 0"
            )
        else:
            lines = tuple(items)
            where = _where(items, n)
            message = {
                "unknown_format": "could not tell the file's format: send JSON Lines "
                '({"question_id": ..., "response": ...} per line), a JSON object '
                "{question_id: response}, or CSV with a header question_id,response",
                "invalid_json": f"the file is not valid JSON ({', '.join(example)}); "
                "nothing in it was scored",
                "too_deeply_nested": f"JSON nested too deeply to read on {where}",
                "response_not_text": f"a response that is not text on {where}: "
                "responses must be strings (or lists of strings)",
                "duplicate_ids": f"a question id repeated in the JSON object on {where}: "
                "each repeat is read as a further attempt, in file order",
                "correct_column_differs": f"the file's own Correct? column disagrees with "
                f"this check on {where}: the file was perhaps made with another key",
            }[code]
        hints.append(Hint(code, message, lines))
    return tuple(hints)


def _fingerprint(parsed_answers: Mapping[str, list[str]]) -> str:
    """SHA-256 over the extracted answers, question by question (ids sorted)."""
    text = "\x1d".join(
        qid + "\x1f" + "\x1e".join(parsed_answers[qid]) for qid in sorted(parsed_answers)
    )
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class ZeroBench:
    """The registry's ZeroBench object (see :class:`scoring.base.Benchmark`)."""

    name = NAME
    title = TITLE
    scorer_version = SCORER_VERSION
    credit = CREDIT
    prompt_suffix = PROMPT_SUFFIX

    def load_key(self, data: bytes, *, filename: str = "") -> ZeroKey:
        return load_key(data, filename=filename)

    def score(
        self, text: str, key: ZeroKey, *, options: Mapping[str, Any] | None = None
    ) -> ZeroBenchResult:
        return score(text, key, k=_k_option(options))

    def result_from_record(self, data: Mapping[str, Any]) -> ZeroBenchResult:
        return result_from_record(data)


BENCHMARK = ZeroBench()

"""The answer key: question id → ground-truth answer per split, read from JSON or CSV."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from ..base import KeyCheck, worked_out
from ..errors import KeyFormatError
from ..text import decode
from .dataset import MAIN_SPLIT, OFFICIAL_QUESTIONS, SPLITS, SUB_SPLIT, TITLE
from .reading import csv_reader, json_pairs, key_text, line_of_last


class ZeroKey:
    """The answer key: question id → ground-truth answer (exact text), per split.
    Read-only; two keys are equal when their answers and checksums are.

    A plain class, like the rest of the scorer's values (see scoring.base): importing
    ``dataclasses`` would be a good part of the start-up of ``benchboard score``. The
    checksum is given as a value or as a function, called when it is first read (the
    key file's SHA-256: ``benchboard score`` never reads it, and hashlib's OpenSSL is a
    good part of a start-up too)."""

    __slots__ = ("_sha256", "main", "sub")

    main: Mapping[str, str]
    sub: Mapping[str, str]
    _sha256: str | Callable[[], str]

    def __init__(
        self,
        main: Mapping[str, str],
        sub: Mapping[str, str],
        sha256: str | Callable[[], str] = "",
    ) -> None:
        init = object.__setattr__
        init(self, "main", main)
        init(self, "sub", sub)
        init(self, "_sha256", sha256)

    @property
    def sha256(self) -> str:
        sha256: str = worked_out(self, "_sha256", str)
        return sha256

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a ZeroKey is read-only: cannot set {name}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ZeroKey):
            return NotImplemented
        return (self.main, self.sub, self.sha256) == (other.main, other.sub, other.sha256)

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return (ZeroKey, (self.main, self.sub, self.sha256))

    def __repr__(self) -> str:
        return f"ZeroKey({len(self.main)} main, {len(self.sub)} sub, sha256={self.sha256!r})"

    def __len__(self) -> int:
        return len(self.main) + len(self.sub)

    def split(self, name: str) -> Mapping[str, str]:
        return self.main if name == MAIN_SPLIT else self.sub


def dump_key(key: ZeroKey) -> bytes:
    """The canonical two-split JSON form of a key (what the data folder stores)."""
    data = {MAIN_SPLIT: dict(key.main), SUB_SPLIT: dict(key.sub)}
    return (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def check_key(data: bytes, *, filename: str = "", questions: bytes | None = None) -> KeyCheck:
    """Validate a key (JSON or CSV) before it is stored; what is stored is its canonical
    two-split JSON (:func:`dump_key`), and the note counts both splits."""
    if questions is not None:
        raise KeyFormatError(f"{TITLE} takes no question file, only the key")
    key = load_key(data, filename=filename)
    main, sub = len(key.main), len(key.sub)
    note = f"{main} main questions, {sub} subquestions"
    if (main, sub) != (OFFICIAL_QUESTIONS[MAIN_SPLIT], OFFICIAL_QUESTIONS[SUB_SPLIT]):
        note += (
            f" (the official {TITLE} has {OFFICIAL_QUESTIONS[MAIN_SPLIT]} and "
            f"{OFFICIAL_QUESTIONS[SUB_SPLIT]})"
        )
    return KeyCheck(data=dump_key(key), questions=len(key), note=note)


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
    return ZeroKey(main=main, sub=sub, sha256=lambda: _sha256(data))


def _sha256(data: bytes) -> str:
    import hashlib  # (here: see ZeroKey)

    return hashlib.sha256(data).hexdigest()


def _load_json_key(text: str) -> tuple[dict[str, str], dict[str, str]]:
    try:
        parsed = json.loads(text, object_pairs_hook=json_pairs)
    except json.JSONDecodeError as exc:
        raise KeyFormatError(f"not valid JSON: {exc.msg}", line=exc.lineno) from None
    except (ValueError, RecursionError):
        raise KeyFormatError("not a key: the JSON is nested too deeply or too large") from None
    if not isinstance(parsed, list) or (parsed and not isinstance(parsed[0], tuple)):
        raise KeyFormatError('the key must be a JSON object {"question_id": "answer", ...}')
    entries = dict(parsed)
    if _usual(entries, len(parsed)):
        return entries, {}
    seen: set[str] = set()
    main: dict[str, str] = {}
    sub: dict[str, str] = {}
    two_split = any(name in SPLITS and isinstance(value, list) for name, value in parsed)
    if not two_split:
        _json_split(text, [], parsed, main, seen)
        return main, sub
    splits_seen: set[str] = set()
    before: list[str] = []  # the names read so far, in order (a line found on error)
    for name, value in parsed:
        before.append(name)
        if name not in SPLITS:
            raise KeyFormatError(
                f"unexpected entry {name!r}: a two-split key holds only "
                f"{MAIN_SPLIT!r} and {SUB_SPLIT!r}",
                line=line_of_last(text, before),
            )
        if not isinstance(value, list) or (value and not isinstance(value[0], tuple)):
            raise KeyFormatError(
                f"{name} must be an object {{question_id: answer}}",
                line=line_of_last(text, before),
            )
        if name in splits_seen:
            raise KeyFormatError(f"{name} appears twice", line=line_of_last(text, before))
        splits_seen.add(name)
        _json_split(text, before, value, main if name == MAIN_SPLIT else sub, seen)
        before += (qid for qid, _ in value)
    return main, sub


def _usual(entries: dict[str, Any], pairs: int) -> bool:
    """Whether a key's ``{id: answer}`` entries (from ``pairs`` pairs) are all as the
    usual key writes them: no id twice, ids without surrounding spaces, answers text and
    not blank (so none is a split of a two-split key). Such a key is kept as it is read;
    any other goes entry by entry through the checks that name what is wrong. The tests
    run over the entries in C (``map``, ``all``): a key of 20,000 questions loads in 30%
    fewer instructions than through the loop that checks each (valgrind: 78M, 110M)."""
    return (
        len(entries) == pairs
        and set(map(type, entries.values())) <= {str}
        and all(map(str.strip, entries.values()))
        and all(map(str.__eq__, entries, map(str.strip, entries)))
        and all(entries)
    )


def _json_split(
    text: str, before: list[str], pairs: list[tuple[str, Any]], into: dict[str, str], seen: set[str]
) -> None:
    """Keep a split's entries; ``before``: the names the text holds ahead of them (an
    entry's line is only looked for when it is refused)."""
    for i, (qid, value) in enumerate(pairs):
        answer = key_text(value)
        stripped = qid.strip()
        if stripped and answer is not None and answer.strip() and stripped not in seen:
            seen.add(stripped)  # the usual entry: kept without building its error text
            into[stripped] = answer
        else:
            line = line_of_last(text, [*before, *(q for q, _ in pairs[: i + 1])])
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
    import csv  # (here: see CsvRows)

    reader = csv_reader(text, skip_space=False)
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
        previous_line = reader.line_num
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

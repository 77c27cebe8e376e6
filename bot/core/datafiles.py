"""The data folder: official benchmark files fetched or loaded at run time.

PrimeBench's files are CC BY-ND 4.0 (JibayAI, jibay.ir): the project never ships them,
it downloads them (or an operator loads them) into ``<data>/primebench/``. A file is
validated before anything on disk changes, and written atomically, so a failed fetch
leaves the earlier good copy untouched.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import httpx

from scoring import KeyFormatError, ScoringError, natory, primebench, zerobench

if TYPE_CHECKING:
    from ..settings import Settings

#: Largest file a fetch accepts (the official ones are a few hundred kilobytes).
MAX_DOWNLOAD = 50 * 1024 * 1024
FETCH_TIMEOUT = httpx.Timeout(30.0, connect=10.0)

#: Where each benchmark's loaded key lives inside the data folder.
KEY_FILES: dict[str, str] = {"primebench": "primebench/A.txt", "zerobench": "zerobench/key.json"}
PRIMEBENCH_QUESTIONS = "primebench/Q.json"
#: Natory targets chosen by an admin, by day: {"2026-11-29": 6256}.
NATORY_TARGETS = "natory/targets.json"


class DataError(Exception):
    """A fetch or load failed; the message is fit to show as is."""


@dataclass(frozen=True, slots=True)
class StoredFile:
    name: str
    path: Path
    sha256: str
    size: int


@dataclass(frozen=True, slots=True)
class LoadReport:
    benchmark: str
    source: str
    files: tuple[StoredFile, ...]
    questions: int
    note: str = ""


def key_path(data_dir: Path, benchmark: str) -> Path | None:
    relative = KEY_FILES.get(benchmark)
    return data_dir / relative if relative else None


def read_key_bytes(data_dir: Path, benchmark: str) -> bytes | None:
    """The loaded key file's bytes, or None when no key is loaded."""
    path = key_path(data_dir, benchmark)
    if path is None or not path.is_file():
        return None
    return path.read_bytes()


def questions_path(data_dir: Path) -> Path | None:
    path = data_dir / PRIMEBENCH_QUESTIONS
    return path if path.is_file() else None


def read_meta(data_dir: Path, benchmark: str) -> dict[str, Any]:
    path = data_dir / benchmark / "meta.json"
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def store_files(
    data_dir: Path,
    benchmark: str,
    files: dict[str, bytes],
    *,
    source: str,
    questions: int,
    note: str = "",
) -> LoadReport:
    """Write already-validated files and their ``meta.json`` into ``<data>/<benchmark>/``."""
    folder = data_dir / benchmark
    stored = []
    for name, data in files.items():
        path = folder / name
        _write_atomic(path, data)
        stored.append(StoredFile(name, path, hashlib.sha256(data).hexdigest(), len(data)))
    meta = {
        "benchmark": benchmark,
        "source": source,
        "loaded_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "files": {f.name: {"sha256": f.sha256, "size": f.size} for f in stored},
        "questions": questions,
    }
    _write_atomic(folder / "meta.json", json.dumps(meta, indent=2).encode())
    return LoadReport(benchmark, source, tuple(stored), questions, note)


def validate_primebench(key_data: bytes, questions_data: bytes | None) -> tuple[int, str]:
    """Check A.txt (and Q.json when given) and return (questions, a note for the user)."""
    try:
        key = primebench.load_key(key_data)
        if questions_data is not None:
            primebench.check_pair(key, primebench.load_questions(questions_data))
    except KeyFormatError as exc:
        raise DataError(str(exc)) from None
    note = ""
    if len(key) != primebench.OFFICIAL_QUESTIONS:
        note = (
            f"note: this key has {len(key)} questions; the official PrimeBench has "
            f"{primebench.OFFICIAL_QUESTIONS}"
        )
    return len(key), note


def load_primebench(
    data_dir: Path, key_data: bytes, questions_data: bytes | None, *, source: str
) -> LoadReport:
    count, note = validate_primebench(key_data, questions_data)
    files = {"A.txt": key_data}
    if questions_data is not None:
        files["Q.json"] = questions_data
    return store_files(data_dir, "primebench", files, source=source, questions=count, note=note)


async def download(client: httpx.AsyncClient, url: str) -> bytes:
    """GET a file with a size cap; every failure becomes a :class:`DataError`."""
    try:
        async with client.stream("GET", url) as response:
            if response.status_code != 200:
                raise DataError(f"download failed: {url} answered HTTP {response.status_code}")
            declared = response.headers.get("content-length")
            if declared and declared.isdigit() and int(declared) > MAX_DOWNLOAD:
                raise DataError(f"download refused: {url} is larger than {MAX_DOWNLOAD} bytes")
            chunks, size = [], 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > MAX_DOWNLOAD:
                    raise DataError(f"download refused: {url} is larger than {MAX_DOWNLOAD} bytes")
                chunks.append(chunk)
            return b"".join(chunks)
    except httpx.HTTPError as exc:
        reason = str(exc) or type(exc).__name__
        raise DataError(f"download failed: {url}: {reason}") from None


def http_client() -> httpx.AsyncClient:
    return httpx.AsyncClient(
        timeout=FETCH_TIMEOUT,
        follow_redirects=True,
        headers={"User-Agent": "benchboard/0.1"},
    )


async def fetch_primebench(data_dir: Path, base_url: str) -> LoadReport:
    """Download ``Q.json`` and ``A.txt`` from ``base_url``, validate, then store them."""
    base = base_url.rstrip("/")
    async with http_client() as client:
        questions = await download(client, f"{base}/Q.json")
        key = await download(client, f"{base}/A.txt")
    return load_primebench(data_dir, key, questions, source=base)


# --- ZeroBench: the key from the dataset viewer's rows -------------------------------

#: Rows per page (the dataset viewer's maximum) and a bound on pages per split.
ZEROBENCH_PAGE = 100
ZEROBENCH_MAX_PAGES = 1000


def validate_zerobench(key_data: bytes) -> tuple[zerobench.ZeroKey, str]:
    """Parse a ZeroBench key (JSON or CSV) and return it with a note for the user."""
    try:
        key = zerobench.load_key(key_data)
    except ScoringError as exc:
        raise DataError(f"bad ZeroBench key: {exc}") from None
    counts = {zerobench.MAIN_SPLIT: len(key.main), zerobench.SUB_SPLIT: len(key.sub)}
    note = (
        f"{counts[zerobench.MAIN_SPLIT]} main questions, {counts[zerobench.SUB_SPLIT]} subquestions"
    )
    if counts != zerobench.OFFICIAL_QUESTIONS:
        official = zerobench.OFFICIAL_QUESTIONS
        note += (
            f" (the official ZeroBench has {official[zerobench.MAIN_SPLIT]} and "
            f"{official[zerobench.SUB_SPLIT]})"
        )
    return key, note


def load_zerobench(data_dir: Path, key_data: bytes, *, source: str) -> LoadReport:
    """Validate a key (JSON or CSV) and store it as ``zerobench/key.json`` (two-split form)."""
    key, note = validate_zerobench(key_data)
    canonical = zerobench.dump_key(key)
    return store_files(
        data_dir, "zerobench", {"key.json": canonical}, source=source, questions=len(key), note=note
    )


def _rows_url(base: str, split: str, offset: int) -> str:
    query = urlencode(
        {
            "dataset": zerobench.DATASET,
            "config": "default",
            "split": split,
            "offset": offset,
            "length": ZEROBENCH_PAGE,
        },
        safe="/",
    )
    return f"{base}/rows?{query}"


async def _fetch_split(client: httpx.AsyncClient, base: str, split: str) -> dict[str, str]:
    """Page through one split's rows, keeping only question_id and question_answer."""
    answers: dict[str, str] = {}
    offset = 0
    for _ in range(ZEROBENCH_MAX_PAGES):
        url = _rows_url(base, split, offset)
        try:
            page = json.loads(await download(client, url))
        except ValueError:
            raise DataError(f"download failed: {url} did not answer JSON") from None
        rows = page.get("rows") if isinstance(page, dict) else None
        total = page.get("num_rows_total") if isinstance(page, dict) else None
        if not isinstance(rows, list) or not isinstance(total, int) or isinstance(total, bool):
            raise DataError(f"download failed: {url} did not answer rows and num_rows_total")
        for item in rows:
            row = item.get("row") if isinstance(item, dict) else None
            truncated = item.get("truncated_cells", []) if isinstance(item, dict) else []
            qid = row.get("question_id") if isinstance(row, dict) else None
            answer = row.get("question_answer") if isinstance(row, dict) else None
            if not isinstance(qid, str | int) or not isinstance(answer, str | int):
                raise DataError(f"{split}: a row without question_id and question_answer ({url})")
            if "question_answer" in truncated or "question_id" in truncated:
                raise DataError(f"{split}: question {qid} arrived truncated ({url})")
            if str(qid) in answers:
                raise DataError(f"{split}: question {qid} appears twice ({url})")
            answers[str(qid)] = str(answer)
        offset += len(rows)
        if offset >= total:
            return answers
        if not rows:
            raise DataError(f"{split}: the rows stopped at {offset} of {total} ({url})")
    raise DataError(f"{split}: more than {ZEROBENCH_MAX_PAGES} pages of rows; giving up")


async def fetch_zerobench(data_dir: Path, base_url: str) -> LoadReport:
    """Download both splits' ids and answers (never the images), validate, then store."""
    base = base_url.rstrip("/")
    async with http_client() as client:
        splits = {split: await _fetch_split(client, base, split) for split in zerobench.SPLITS}
    key_data = json.dumps(splits, ensure_ascii=False, indent=2).encode("utf-8") + b"\n"
    return load_zerobench(data_dir, key_data, source=f"{base} ({zerobench.DATASET})")


# --- Natory's daily target ---------------------------------------------------------


def _natory_choices(data_dir: Path) -> dict[str, int]:
    try:
        data = json.loads((data_dir / NATORY_TARGETS).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, int) and v > 0}


def natory_challenge(data_dir: Path, day: date, seed: str) -> natory.Challenge:
    """The day's Natory challenge: an admin's choice for that day, else the seeded one
    (the same for every user and group)."""
    chosen = _natory_choices(data_dir).get(day.isoformat())
    if chosen is not None:
        return natory.Challenge.for_target(chosen)
    return natory.daily_challenge(day, seed)


def natory_today(settings: Settings, day: date | None = None) -> natory.Challenge:
    """The Natory challenge of ``day`` (default: today, UTC) for this bot's data folder
    and seed: what /natory shows, what a submission without a target is scored against,
    and what ``benchboard natory today`` prints."""
    return natory_challenge(
        settings.data_dir, day or datetime.now(UTC).date(), settings.natory_seed
    )


def set_natory_target(data_dir: Path, day: date, target: str) -> natory.Challenge:
    """Choose the target of ``day`` (validated like any target); kept in the data folder."""
    try:
        challenge = natory.parse_target(target)
    except KeyFormatError as exc:
        raise DataError(str(exc)) from None
    choices = _natory_choices(data_dir)
    choices[day.isoformat()] = challenge.target
    _write_atomic(data_dir / NATORY_TARGETS, json.dumps(choices, indent=2, sort_keys=True).encode())
    return challenge

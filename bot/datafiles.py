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
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from scoring import KeyFormatError, primebench

#: Largest file a fetch accepts (the official ones are a few hundred kilobytes).
MAX_DOWNLOAD = 50 * 1024 * 1024
FETCH_TIMEOUT = httpx.Timeout(30.0, connect=10.0)

#: Where each benchmark's loaded key lives inside the data folder.
KEY_FILES: dict[str, str] = {"primebench": "primebench/A.txt"}
PRIMEBENCH_QUESTIONS = "primebench/Q.json"


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

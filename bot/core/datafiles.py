"""The data folder as an import path: official files fetched or placed there, checked.

Answer keys live in the database (``storage`` keeps every version; :mod:`.keys` loads
the current one). The data folder is where official files arrive: ``data fetch``
downloads them, ``data load`` copies them in, an operator may place a key file there
by hand; each is validated (:meth:`scoring.Benchmark.check_key`) before anything on
disk changes, written atomically (a failed fetch leaves the earlier good copy), and
then imported into the database by :mod:`.keys`. Files whose license forbids
sharing them (``Benchmark.license``) are downloaded at run time: the project never ships
them.

Which files a benchmark has, and where they are published, is the benchmark's to say
(``key_file``, ``questions_file``, ``source``); nothing here asks for a name.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx

from scoring import Benchmark, KeyCheck, KeyFormatError, Source

#: Largest file a fetch accepts (the official ones are a few hundred kilobytes).
MAX_DOWNLOAD = 50 * 1024 * 1024
FETCH_TIMEOUT = httpx.Timeout(30.0, connect=10.0)


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
    """Files written into the data folder; ``key`` is the key as the database takes it
    (the benchmark's canonical form)."""

    benchmark: str
    source: str
    files: tuple[StoredFile, ...]
    questions: int
    key: bytes
    note: str = ""


def key_path(data_dir: Path, benchmark: Benchmark) -> Path | None:
    """Where a key file for ``benchmark`` is imported from (None: it takes none)."""
    return None if benchmark.key_file is None else data_dir / benchmark.key_file


def read_key_file(data_dir: Path, benchmark: Benchmark) -> bytes | None:
    """The bytes of the key file placed in the data folder, or None when there is none."""
    path = key_path(data_dir, benchmark)
    if path is None or not path.is_file():
        return None
    return path.read_bytes()


def questions_path(data_dir: Path, benchmark: Benchmark) -> Path | None:
    """The benchmark's question file in the data folder, when it has one and it is there."""
    if benchmark.questions_file is None:
        return None
    path = data_dir / benchmark.questions_file
    return path if path.is_file() else None


def read_meta(data_dir: Path, benchmark: Benchmark) -> dict[str, Any]:
    """What the last fetch or load wrote beside the files (``meta.json``)."""
    if benchmark.key_file is None:
        return {}
    path = data_dir / Path(benchmark.key_file).parent / "meta.json"
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all. A folder that cannot be written
    (read-only, a file where a folder should be, a full disk) is a :class:`DataError`
    naming the file, not a traceback."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise DataError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise DataError(f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_key(
    benchmark: Benchmark, key: bytes, *, filename: str = "", questions: bytes | None = None
) -> KeyCheck:
    """Validate a key (and its question file) for ``benchmark``; every refusal is a
    :class:`DataError` worded the same way for every benchmark."""
    if benchmark.key_file is None:
        raise DataError(f"{benchmark.title} takes no key file")
    try:
        return benchmark.check_key(key, filename=filename, questions=questions)
    except KeyFormatError as exc:
        raise DataError(f"bad {benchmark.title} key: {exc}") from None


def load(
    data_dir: Path,
    benchmark: Benchmark,
    key: bytes,
    questions: bytes | None = None,
    *,
    source: str,
    filename: str = "",
) -> LoadReport:
    """Validate the files, then write them (the key in its canonical form) and their
    ``meta.json`` into the data folder. Nothing changes on disk when they are refused."""
    checked = check_key(benchmark, key, filename=filename, questions=questions)
    assert benchmark.key_file is not None  # check_key refuses a benchmark without one
    files = {benchmark.key_file: checked.data}
    if questions is not None and benchmark.questions_file is not None:
        files[benchmark.questions_file] = questions
    stored = []
    for relative, data in files.items():
        path = data_dir / relative
        write_atomic(path, data)
        stored.append(StoredFile(path.name, path, hashlib.sha256(data).hexdigest(), len(data)))
    meta = {
        "benchmark": benchmark.name,
        "source": source,
        "loaded_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "files": {f.name: {"sha256": f.sha256, "size": f.size} for f in stored},
        "questions": checked.questions,
    }
    folder = data_dir / Path(benchmark.key_file).parent
    write_atomic(folder / "meta.json", json.dumps(meta, indent=2).encode())
    return LoadReport(
        benchmark.name, source, tuple(stored), checked.questions, checked.data, checked.note
    )


# --- downloading a benchmark's official files --------------------------------------


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


#: What a fetcher returns: the key, the question file (or None), and where they came from.
Fetched = tuple[bytes, bytes | None, str]


async def _fetch_files(benchmark: Benchmark, source: Source, base: str) -> Fetched:
    """Each of the source's files from ``base``; the key and the question file by name."""
    async with http_client() as client:
        files = {name: await download(client, f"{base}/{name}") for name in source.files}
    key_name = Path(benchmark.key_file or "").name
    questions_name = Path(benchmark.questions_file or "").name
    if key_name not in files:
        raise DataError(f"{benchmark.title}: its source lists no {key_name}")
    return files[key_name], files.get(questions_name), base


#: Rows per page (the dataset viewer's maximum) and a bound on pages per split.
ROWS_PAGE = 100
ROWS_MAX_PAGES = 1000


def _rows_url(base: str, source: Source, split: str, offset: int) -> str:
    query = urlencode(
        {
            "dataset": source.dataset,
            "config": "default",
            "split": split,
            "offset": offset,
            "length": ROWS_PAGE,
        },
        safe="/",
    )
    return f"{base}/rows?{query}"


async def _fetch_split(
    client: httpx.AsyncClient, base: str, source: Source, split: str
) -> dict[str, str]:
    """Page through one split's rows, keeping only the id and answer columns."""
    id_column, answer_column = source.columns
    answers: dict[str, str] = {}
    offset = 0
    for _ in range(ROWS_MAX_PAGES):
        url = _rows_url(base, source, split, offset)
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
            qid = row.get(id_column) if isinstance(row, dict) else None
            answer = row.get(answer_column) if isinstance(row, dict) else None
            if not isinstance(qid, str | int) or not isinstance(answer, str | int):
                raise DataError(f"{split}: a row without {id_column} and {answer_column} ({url})")
            if answer_column in truncated or id_column in truncated:
                raise DataError(f"{split}: question {qid} arrived truncated ({url})")
            if str(qid) in answers:
                raise DataError(f"{split}: question {qid} appears twice ({url})")
            answers[str(qid)] = str(answer)
        offset += len(rows)
        if offset >= total:
            return answers
        if not rows:
            raise DataError(f"{split}: the rows stopped at {offset} of {total} ({url})")
    raise DataError(f"{split}: more than {ROWS_MAX_PAGES} pages of rows; giving up")


async def _fetch_rows(benchmark: Benchmark, source: Source, base: str) -> Fetched:
    """Every split's ids and answers (never the images) as one JSON key."""
    async with http_client() as client:
        splits = {split: await _fetch_split(client, base, source, split) for split in source.splits}
    key = json.dumps(splits, ensure_ascii=False, indent=2).encode("utf-8") + b"\n"
    return key, None, f"{base} ({source.dataset})"


#: How each kind of :class:`scoring.Source` is downloaded.
_FETCHERS: dict[str, Callable[[Benchmark, Source, str], Awaitable[Fetched]]] = {
    "files": _fetch_files,
    "dataset_rows": _fetch_rows,
}


def can_fetch(benchmark: Benchmark) -> bool:
    return benchmark.source is not None and benchmark.source.kind in _FETCHERS


async def fetch(data_dir: Path, benchmark: Benchmark, url: str | None = None) -> LoadReport:
    """Download a benchmark's official files (from ``url``, else its source's own
    address), validate them, then write them into the data folder (:func:`load`)."""
    source = benchmark.source
    if source is None or source.kind not in _FETCHERS:
        raise DataError(f"{benchmark.title} has no files to fetch")
    base = (url or source.url).rstrip("/")
    key, questions, origin = await _FETCHERS[source.kind](benchmark, source, base)
    filename = Path(benchmark.key_file or "").name
    return load(data_dir, benchmark, key, questions, source=origin, filename=filename)

"""Pure helpers the store modules share: cleaning input, encoding stored text and JSON,
turning rows into the dataclasses of :mod:`storage.models`. No I/O.

``compress``/``decompress`` (the raw input as stored) and ``dumps`` (a result record as
stored) are public: a re-score reads raw text and writes records in these forms.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any

from scoring import Mode
from scoring.text import MAX_MODEL_NAME as MAX_MODEL_NAME
from scoring.text import folded_name
from scoring.text import without_controls as without_controls

from .errors import InvalidData
from .models import PackedText, Submission, Visibility

Row = Sequence[Any]

MS_PER_DAY = 86_400_000
MODES = tuple(m.value for m in Mode)
EMPTY: Mapping[str, Any] = MappingProxyType({})


#: What neither engine's text can hold: a lone surrogate (JSON carries one, UTF-8 cannot
#: encode it) and NUL (PostgreSQL's text refuses it).
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def storable_text(text: str) -> str:
    """Text from a user (a name, a model, a reason) as the store keeps it: what neither
    engine can hold becomes U+FFFD, the replacement character."""
    if text.isascii() and "\x00" not in text:
        return text
    return _UNSTORABLE.sub("\ufffd", text)


def optional_text(text: str | None) -> str | None:
    return None if text is None else storable_text(text)


def name_text(text: str) -> str:
    """A name (a model's, a person's, a group's) as the store keeps it."""
    return without_controls(storable_text(text))


def optional_name(text: str | None) -> str | None:
    return None if text is None else name_text(text)


def normalise_model(model: str) -> str:
    """The grouping form of a model name: whitespace collapsed, controls dropped,
    case folded."""
    return folded_name(model).casefold()


def clean_model(model: str | None) -> tuple[str | None, str | None]:
    """A model name as shown (whitespace collapsed) and its grouping form."""
    if model is None:
        return None, None
    shown = folded_name(storable_text(model))
    if not shown:
        raise InvalidData("the model name is empty")
    if len(shown) > MAX_MODEL_NAME:
        raise InvalidData(f"the model name is longer than {MAX_MODEL_NAME} characters")
    return shown, normalise_model(shown)


def clean_mode(mode: str | None) -> str | None:
    if mode is None:
        return None
    try:
        return Mode(mode).value
    except ValueError:
        valid = ", ".join(m.value for m in Mode)
        raise InvalidData(f"unknown mode {mode!r}; one of: {valid}") from None


#: The longest provider name kept (``provider:`` tag; the board's ``?provider=``).
MAX_PROVIDER = 64


def optional_provider(name: str | None) -> str | None:
    """A provider as kept and filtered by: whitespace folded, lower case, at most
    :data:`MAX_PROVIDER` characters; None for none."""
    if name is None:
        return None
    folded = " ".join(name.split()).casefold()[:MAX_PROVIDER]
    return folded or None


def benchmark_name(name: str) -> str:
    cleaned = name.strip().casefold()
    if not cleaned:
        raise InvalidData("the benchmark name is empty")
    return cleaned


def clean_reason(reason: str | None) -> str | None:
    """A moderation reason as stored: trimmed, at most 500 characters, None when empty."""
    if reason is None or not reason.strip():
        return None
    return storable_text(reason.strip()[:500])


def check_page(limit: int, offset: int) -> None:
    if not 1 <= limit <= 1000:
        raise InvalidData("limit must be between 1 and 1000")
    if offset < 0:
        raise InvalidData("offset must not be negative")


#: Characters encoded at a time while compressing (a large input is never encoded whole).
_COMPRESS_CHUNK = 1 << 20


#: An input of at most this many bytes is compressed with a window of that size and
#: smaller hash tables: setting up zlib's defaults (a 32 KiB window) costs several
#: times more than compressing such an input, to the same size. Any zlib reader reads
#: both.
_SMALL_BYTES = 1 << 12


def compress(text: str) -> bytes:
    """A raw input as stored. surrogatepass keeps even lone surrogates: what was scored
    is what is stored. Encoded a piece at a time (the bytes are those of encoding it
    whole: surrogatepass encodes each code point on its own)."""
    if len(text) <= _COMPRESS_CHUNK:
        data = text.encode("utf-8", "surrogatepass")
        if len(data) <= _SMALL_BYTES:
            small = zlib.compressobj(6, zlib.DEFLATED, _SMALL_BYTES.bit_length() - 1, 4)
            return small.compress(data) + small.flush()
        return zlib.compress(data, 6)
    packer = zlib.compressobj(6)
    parts = [
        packer.compress(text[i : i + _COMPRESS_CHUNK].encode("utf-8", "surrogatepass"))
        for i in range(0, len(text), _COMPRESS_CHUNK)
    ]
    parts.append(packer.flush())
    return b"".join(parts)


def pack(text: str) -> PackedText:
    """A raw input as stored, with its length (see :class:`PackedText`)."""
    return PackedText(compress(text), len(text))


def decompress(blob: bytes) -> str:
    """A stored raw input as it was scored."""
    return zlib.decompress(blob).decode("utf-8", "surrogatepass")


#: (compact, escaped) encoders by whether NaN and the infinities are written, made once
#: (json.dumps with options makes one per call)
_ENCODERS = {
    allow_nan: (
        json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=allow_nan),
        json.JSONEncoder(separators=(",", ":"), allow_nan=allow_nan),
    )
    for allow_nan in (False, True)
}


def json_text(data: Mapping[str, Any], *, allow_nan: bool = False) -> str:
    """Compact JSON, UTF-8 where it can be: text holding a lone surrogate (which UTF-8
    cannot encode, nor the store keep) is written escaped. ``allow_nan=False`` refuses
    NaN and the infinities (``ValueError``)."""
    compact, escaped = _ENCODERS[allow_nan]
    text = compact.encode(data)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return escaped.encode(data)
    return text


def dumps(data: Mapping[str, Any]) -> str:
    """JSON as stored (result records, extra data): :func:`json_text`, without NaN."""
    return json_text(data)


class JsonRecord(Mapping[str, Any]):
    """A stored JSON object, decoded when it is first looked into. A submission carries
    its result record, which most of those who get one never read: a fresh card is
    drawn from the result itself, a button press needs the row's state. A record of ten
    thousand invalid lines is some megabytes of objects once decoded."""

    __slots__ = ("_data", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._data: dict[str, Any] | None = None

    def _loaded(self) -> dict[str, Any]:
        data = self._data
        if data is None:
            data = self._data = json.loads(self._text)
            self._text = ""
        return data

    def __getitem__(self, key: str) -> Any:
        return self._loaded()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())

    def __repr__(self) -> str:
        return f"JsonRecord({self._loaded()!r})"


def dt(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def opt_dt(ms: int | None) -> datetime | None:
    return None if ms is None else dt(ms)


SUBMISSION_COLUMNS = """
s.id, s.user_id, s.chat_id, s.message_id, b.name, s.key_version_id, s.model, s.model_norm,
s.mode, s.score, s.fingerprint, s.result, s.scorer_version, s.extra, s.raw_chars,
s.created_at, s.published_at, s.visibility, s.verified, s.origin
"""
SUBMISSION_FROM = "FROM submissions AS s JOIN benchmarks AS b ON b.id = s.benchmark_id"


def submission(row: Row, *, created: bool = False) -> Submission:
    """A row of ``SUBMISSION_COLUMNS`` as a Submission."""
    extra = MappingProxyType(json.loads(row[13])) if row[13] is not None else EMPTY
    return Submission(
        id=row[0],
        user_id=row[1],
        chat_id=row[2],
        message_id=row[3],
        benchmark=row[4],
        key_version_id=row[5],
        model=row[6],
        model_norm=row[7],
        mode=row[8],
        score=row[9],
        fingerprint=row[10],
        record=JsonRecord(row[11]),
        scorer_version=row[12],
        extra=extra,
        raw_chars=row[14],
        created_at=dt(row[15]),
        published_at=opt_dt(row[16]),
        visibility=Visibility(row[17]),
        verified=bool(row[18]),
        origin=row[19] if len(row) > 19 else None,  # a fresh insert has none
        created=created,
    )

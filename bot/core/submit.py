"""Submitting: check an upload, read the tags, pick benchmark and key, score, record.

Nothing here builds Telegram replies: the handlers send what ``bot.render`` makes of the
result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from scoring import Benchmark, DecodeError, OptionError, Result, decode, registry
from scoring.text import normalise_newlines
from storage import NewSubmission, Submission, analytics

from . import datafiles
from .classify import Reading, read
from .errors import UserError
from .offload import OFFLOAD_BYTES, decode_job, read_job, score_job
from .services import Services
from .submissions import ASKED_BY
from .tags import Tags, blank

#: Inputs at least this large are decoded, scored and compressed in a worker process.
POOL_THRESHOLD = OFFLOAD_BYTES
#: The longest a scoring job may take before the user is told it is too heavy.
SCORE_TIMEOUT = 60.0
MAX_DOWNLOAD = 20 * 1024 * 1024
TEXT_EXTENSIONS = ("", ".txt", ".md", ".csv", ".json", ".jsonl")

T = TypeVar("T")


class Upload(Protocol):
    """A file sent for scoring: its name and size as announced, and its bytes."""

    @property
    def file_name(self) -> str | None: ...

    @property
    def file_size(self) -> int | None: ...

    async def download(self) -> bytes | bytearray: ...


@dataclass(frozen=True, slots=True)
class Scored:
    benchmark: Benchmark
    result: Result
    tags: Tags
    body: str
    key_version_id: int | None
    options: Mapping[str, Any]
    #: ``body`` as the store keeps it, when the worker compressed it while scoring.
    packed: bytes | None = None
    #: the benchmark was chosen from the content (no tag named it)
    detected: bool = False


def check_size(file_size: int | None) -> None:
    """Refuse a file larger than a bot may download (named with the limit)."""
    if file_size is not None and file_size > MAX_DOWNLOAD:
        raise UserError("too_big", size=f"{file_size / 1_048_576:.1f}", limit=20)


def check_document(file_name: str | None, file_size: int | None) -> None:
    """Refuse a document before downloading it (size and kind)."""
    check_size(file_size)
    name = (file_name or "").lower()
    extension = name[name.rfind(".") :] if "." in name else ""
    if extension not in TEXT_EXTENSIONS:
        raise UserError("bad_extension", extensions=".txt .md .csv .json .jsonl")


def decode_upload(data: bytes | bytearray) -> str:
    try:
        return decode(bytes(data))
    except DecodeError as exc:
        raise UserError("bad_encoding", reason=str(exc)) from None


async def _offloaded(services: Services, fn: Callable[..., T], *args: Any) -> T:
    try:
        return await services.offload(SCORE_TIMEOUT, fn, *args)
    except TimeoutError:
        raise UserError("too_slow") from None
    except BrokenProcessPool:
        raise UserError("too_heavy") from None


async def read_upload(services: Services, data: bytes | bytearray) -> str:
    """An upload's text: a large one is decoded in the worker process."""
    if len(data) < OFFLOAD_BYTES:
        return decode_upload(data)
    try:
        return await _offloaded(services, decode_job, data)
    except DecodeError as exc:
        raise UserError("bad_encoding", reason=str(exc)) from None


async def run_scorer(
    services: Services, benchmark: Benchmark, text: str, key: Any, options: Mapping[str, Any]
) -> tuple[Result, bytes | None]:
    """Score small inputs inline; large ones in the worker process, with a time limit,
    where they are also compressed as the store keeps them (returned beside the result)."""
    if len(text) < POOL_THRESHOLD:
        return benchmark.score(text, key, options=options), None
    return await _offloaded(services, score_job, benchmark.name, text, key, dict(options))


async def read_submission(
    services: Services, text: str, command_args: str = "", benchmark_hint: str | None = None
) -> tuple[str, Reading]:
    """The body (tag lines blanked) and what the text is; a large one is read in the
    worker process. Raises :class:`UserError` for a bad tag and for a text no benchmark
    can read (``not_submission``: nothing is scored or stored)."""
    text = normalise_newlines(text)
    if len(text) < POOL_THRESHOLD:
        reading = read(text, command_args, benchmark_hint)
    else:
        reading = await _offloaded(services, read_job, text, command_args, benchmark_hint)
    if reading.error is not None:
        raise UserError("bad_tag", reason=reading.error)
    body = blank(text, reading.spans)
    if reading.benchmark is None:
        if not body.strip():
            raise UserError("empty")
        raise UserError("not_submission")
    return body, reading


async def score_submission(
    services: Services, text: str, *, command_args: str = "", benchmark_hint: str | None = None
) -> Scored:
    """Split tags from the text, pick the benchmark and key, and score."""
    body, reading = await read_submission(services, text, command_args, benchmark_hint)
    tags = reading.tags
    assert reading.benchmark is not None
    benchmark = registry.get(reading.benchmark)
    if not body.strip():
        raise UserError("empty")
    # Tag fields (Natory's target, cost in USD, latency in s) as validated options; the
    # store keeps them with the submission.
    try:
        options = benchmark.options_from_tags(tags.fields)
    except OptionError as exc:
        raise UserError(f"bad_{exc.name}", value=exc.value) from None
    key_version_id: int | None = None
    if benchmark.daily:
        # The challenge the options name, else the day's (Natory is the daily one).
        key, options = benchmark.key_for(options, datafiles.natory_today(services.settings))
        # uniqueResultBonus: the simplified expressions already stored for this target.
        options["previous"] = await analytics.natory_previous(services.store, options["target"])
    else:
        loaded = services.keys.get(benchmark.name)
        if loaded is None:
            raise UserError("no_key", benchmark=benchmark.title)
        key, options = benchmark.key_for(options, loaded.key)
        key_version_id = loaded.version.id
    result, packed = await run_scorer(services, benchmark, body, key, options)
    return Scored(benchmark, result, tags, body, key_version_id, options, packed, reading.detected)


async def record(
    services: Services,
    scored: Scored,
    *,
    user_id: int,
    chat_id: int,
    message_id: int,
    asked_by: int | None = None,
) -> Submission:
    """Store a scored submission under the message that asked for scoring (a delivery
    repeated by Telegram is stored once: ``created`` is then False). ``user_id`` is the
    output's author; ``asked_by`` who asked for the scoring when someone else did."""
    extra = {k: v for k, v in scored.options.items() if k != "previous"}
    if asked_by is not None and asked_by != user_id:
        extra[ASKED_BY] = asked_by
    return await services.store.record_submission(
        NewSubmission(
            user_id=user_id,
            chat_id=chat_id,
            message_id=message_id,
            benchmark=scored.benchmark.name,
            raw=scored.body,
            result=scored.result,
            scorer_version=scored.benchmark.scorer_version,
            key_version_id=scored.key_version_id,
            model=scored.tags.model,
            mode=scored.tags.mode.value if scored.tags.mode else None,
            extra=extra or None,
            raw_compressed=scored.packed,
        )
    )


async def submit(
    services: Services,
    *,
    text: str | None,
    upload: Upload | None = None,
    command_args: str = "",
    user_id: int,
    chat_id: int,
    message_id: int,
    asked_by: int | None = None,
) -> tuple[Submission, Result | None]:
    """Score a text or an uploaded file and record it under the message that asked.

    Returns the stored submission and, when it was stored just now, its result (a
    delivery repeated by Telegram shows what was stored the first time: None).
    """
    if upload is not None:
        check_document(upload.file_name, upload.file_size)
        text = await read_upload(services, await upload.download())
    scored = await score_submission(services, text or "", command_args=command_args)
    sub = await record(
        services,
        scored,
        user_id=user_id,
        chat_id=chat_id,
        message_id=message_id,
        asked_by=asked_by,
    )
    return sub, scored.result if sub.created else None

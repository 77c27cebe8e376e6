"""Submitting: check an upload, read the tags, pick benchmark and key, score, record.

Nothing here builds Telegram replies: the handlers send what ``bot.render`` makes of the
result.
"""

from __future__ import annotations

import asyncio
import math
import os
import re
import tempfile
from collections.abc import AsyncIterator, Callable, Hashable, Mapping
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from scoring import AnswerSet, Benchmark, DecodeError, Mode, OptionError, Result, decode, registry
from scoring.text import normalise_line_ends
from storage import NewSubmission, PackedText, Submission

from . import benchmarks, challenges, intervals, offload, provenance, trust
from .classify import Reading, read
from .errors import UserError
from .offload import OFFLOAD_BYTES
from .services import Services
from .submissions import ASKED_BY, DETECTED
from .tags import Tags, blank

#: Inputs at least this large are read, scored and packed in a worker process.
POOL_THRESHOLD = OFFLOAD_BYTES
#: The longest a scoring job may take before the user is told it is too heavy.
SCORE_TIMEOUT = 60.0
MAX_DOWNLOAD = 20 * 1024 * 1024
TEXT_EXTENSIONS = ("", ".txt", ".md", ".csv", ".json", ".jsonl")

T = TypeVar("T")


class Upload(Protocol):
    """A file sent for scoring: its name and size as announced, and its bytes (a large
    one saved to a file instead)."""

    @property
    def file_name(self) -> str | None: ...

    @property
    def file_size(self) -> int | None: ...

    async def download(self) -> bytes | bytearray: ...

    async def download_to(self, path: Path) -> None: ...


@dataclass(frozen=True, slots=True)
class Scored:
    benchmark: Benchmark
    result: Result
    tags: Tags
    #: The text scored (tag lines blanked), or, when the worker process scored it, that
    #: text packed as the store keeps it.
    body: str | PackedText
    key_version_id: int | None
    options: Mapping[str, Any]
    #: the benchmark was chosen from the content (no tag named it)
    detected: bool = False
    #: what it answers to each key question, for the copy check (``bot.core.trust``)
    answers: AnswerSet | None = None


def check_size(file_size: int | None) -> None:
    """Refuse a file larger than a bot may download (named with the limit)."""
    if file_size is not None and file_size > MAX_DOWNLOAD:
        # rounded up: a byte over 20 MB is not "20.0 MB"
        raise UserError("too_big", size=f"{math.ceil(file_size / 104_857.6) / 10:.1f}", limit=20)


#: What an extension looks like: a letter, then a few letters or digits (``.jsonl``,
#: ``.mp4``); the rest of a name after a dot is part of the name (``gemini-2.5-pro``,
#: ``gpt-4.1 answers``, ``run.2026-12-05``: a file without an extension).
_EXTENSION = re.compile(r"\.[a-z][a-z0-9]{0,7}")


def extension_of(file_name: str | None) -> str:
    """A file name's extension (``.txt``), lower-cased; "" for none."""
    name = (file_name or "").lower()
    at = name.rfind(".")
    found = _EXTENSION.fullmatch(name, at) if at > 0 else None
    return found[0] if found else ""


def check_document(file_name: str | None, file_size: int | None) -> None:
    """Refuse a document before downloading it (size and kind)."""
    check_size(file_size)
    extension = extension_of(file_name)
    if extension not in TEXT_EXTENSIONS:
        raise UserError("bad_extension", extensions=".txt .md .csv .json .jsonl")


def decode_upload(data: bytes | bytearray) -> str:
    try:
        return decode(bytes(data))
    except DecodeError as exc:
        raise UserError("bad_encoding", reason=str(exc), offset=exc.offset) from None


async def _offloaded(
    services: Services, fn: Callable[..., T], *args: Any, owner: Hashable = None
) -> T:
    try:
        return await services.offload(SCORE_TIMEOUT, fn, *args, owner=owner)
    except TimeoutError:
        raise UserError("too_slow") from None
    except offload.WorkerLost:
        raise UserError("too_heavy") from None
    except offload.Refused as exc:
        raise UserError(exc.kind, reason=exc.reason, offset=exc.offset) from None


@asynccontextmanager
async def saved(upload: Upload) -> AsyncIterator[Path]:
    """The upload downloaded to a temporary file (removed afterwards), so that its bytes
    pass through this process once and the worker reads them from the file."""
    handle, name = tempfile.mkstemp(prefix="benchboard-upload-")
    os.close(handle)
    path = Path(name)
    try:
        await upload.download_to(path)
        yield path
    finally:
        with suppress(FileNotFoundError):
            os.unlink(name)


async def run_scorer(
    services: Services,
    benchmark: Benchmark,
    text: str,
    key: Any,
    options: Mapping[str, Any],
    *,
    owner: Hashable = None,
) -> tuple[Result, PackedText | None, AnswerSet | None]:
    """Score small inputs inline; large ones in a worker process (in ``owner``'s turn),
    with a time limit, where they are also packed as the store keeps them (returned
    beside the result), with the answer set the copy check compares."""
    if len(text) < POOL_THRESHOLD:
        result, answers = offload.scored_with_answers(benchmark, text, key, options)
        return result, None, answers
    done = await _offloaded(
        services, offload.score_text, benchmark.name, text, key, dict(options), owner=owner
    )
    return done.result, done.raw, done.answers


async def read_submission(
    services: Services,
    text: str,
    command_args: str = "",
    benchmark_hint: str | None = None,
    *,
    owner: Hashable = None,
) -> tuple[str, Reading]:
    """The body (tag lines blanked) and what the text is; a large one is read in the
    worker process. Raises :class:`UserError` for a bad tag and for a text no benchmark
    can read (``not_submission``: nothing is scored or stored)."""
    text = normalise_line_ends(text)
    for _ in range(2):
        if len(text) < POOL_THRESHOLD:
            reading = read(text, command_args, benchmark_hint)
        else:
            reading = await _offloaded(
                services, offload.read_job, text, command_args, benchmark_hint, owner=owner
            )
        if not await _defined_since(services, reading):
            break
    body = blank(text, reading.spans)
    _check_reading(reading, blank=not body.strip())
    return body, reading


async def _defined_since(services: Services, reading: Reading) -> bool:
    """Whether a text with a bad tag is worth reading again: its tag may name a benchmark
    another process defined since this one read the definitions (read again now): an
    instance beside it on PostgreSQL, or `benchboard benchmark add` beside it on SQLite."""
    return reading.error is not None and await benchmarks.defined_since(services)


def _check_reading(reading: Reading, *, blank: bool) -> None:
    """Refuse a bad tag, a text of nothing but tags (``empty``) and one no benchmark
    reads (``not_submission``)."""
    if reading.refusal is not None:
        key, values = reading.refusal
        raise UserError(key, **dict(values))
    if blank:
        raise UserError("empty")
    if reading.benchmark is None:
        raise UserError("not_submission")


async def _key_and_options(
    services: Services, reading: Reading, given: Mapping[str, Any] | None = None
) -> tuple[Benchmark, Any, dict[str, Any], int | None]:
    """The benchmark of a read submission, its key and the scorer's options (validated
    tag fields over the ``given`` ones), and the stored key version they score against."""
    assert reading.benchmark is not None
    benchmark = registry.get(reading.benchmark)
    # Tag fields (a challenge's target, cost in USD, latency in s) as validated options;
    # the store keeps them with the submission.
    try:
        options = {**(given or {}), **benchmark.options_from_tags(reading.tags.fields)}
    except OptionError as exc:
        raise UserError(f"bad_{exc.name}", value=exc.value) from None
    try:  # provider, temperature, seed, reasoning, run date, log: kept, never scored
        told = provenance.check(reading.tags.fields)
    except provenance.BadProvenance as exc:
        raise UserError(f"bad_{exc.field}", value=exc.value) from None
    if told:
        options[provenance.KEY] = {**provenance.of(options), **told}
    key_version_id: int | None = None
    if benchmark.challenge is not None:
        # The challenge the options name, else the day's.
        spec = benchmark.challenge
        key, options = benchmark.key_for(options, challenges.today(services.settings, benchmark))
        if spec.previous_option:  # the shown answers already stored for this target
            options[spec.previous_option] = await challenges.previous(
                services.store, benchmark, options[spec.target_option]
            )
    else:
        loaded = services.keys.get(benchmark.name)
        if loaded is None:
            raise UserError("no_key", benchmark=benchmark.title, name=benchmark.name)
        key, options = benchmark.key_for(options, loaded.key)
        key_version_id = loaded.version.id
    return benchmark, key, dict(options), key_version_id


async def score_submission(
    services: Services,
    text: str,
    *,
    command_args: str = "",
    benchmark_hint: str | None = None,
    given: Mapping[str, Any] | None = None,
    owner: Hashable = None,
) -> Scored:
    """Split tags from the text, pick the benchmark and key, and score (a large text in
    a worker process, in ``owner``'s turn). ``given``: scorer options the caller knows
    for ``benchmark_hint``'s benchmark (its tags in the text win)."""
    body, reading = await read_submission(services, text, command_args, benchmark_hint, owner=owner)
    if reading.benchmark != benchmark_hint:
        given = None
    benchmark, key, options, key_version_id = await _key_and_options(services, reading, given)
    result, packed, answers = await run_scorer(services, benchmark, body, key, options, owner=owner)
    return Scored(
        benchmark,
        result,
        reading.tags,
        packed or body,
        key_version_id,
        options,
        reading.detected,
        answers,
    )


async def score_run(
    services: Services,
    benchmark_name: str,
    text: str,
    given: Mapping[str, Any],
    *,
    model: str,
    mode: str,
    owner: Hashable = None,
) -> Scored:
    """A model's answer from a run Benchboard made, scored as its paste would be: the same
    key, options (``given``: the run plan's, and the run's cost and latency) and scorer,
    so the reading, hints and invalid lines are the same. No tag lines are read from it:
    a model's answer does not choose its benchmark, model or mode."""
    tags = Tags(benchmark=benchmark_name, mode=Mode(mode), model=model)
    reading = Reading(tags=tags, benchmark=benchmark_name)
    benchmark, key, options, key_version_id = await _key_and_options(services, reading, given)
    body = normalise_line_ends(text)
    result, packed, answers = await run_scorer(services, benchmark, body, key, options, owner=owner)
    return Scored(benchmark, result, tags, packed or body, key_version_id, options, answers=answers)


async def score_file(
    services: Services,
    path: Path,
    *,
    command_args: str = "",
    benchmark_hint: str | None = None,
    owner: Hashable = None,
) -> Scored:
    """:func:`score_submission` of a large upload saved at ``path``: a worker process
    reads it, then scores and packs it (each in ``owner``'s turn); the text never comes
    to this process."""
    for _ in range(2):
        found = await _offloaded(
            services, offload.read_file, str(path), command_args, benchmark_hint, owner=owner
        )
        if not await _defined_since(services, found.reading):
            break
    reading = found.reading
    _check_reading(reading, blank=found.blank)
    benchmark, key, options, key_version_id = await _key_and_options(services, reading)
    done = await _offloaded(
        services,
        offload.score_file,
        str(path),
        reading.spans,
        benchmark.name,
        key,
        options,
        owner=owner,
    )
    return Scored(
        benchmark,
        done.result,
        reading.tags,
        done.raw,
        key_version_id,
        options,
        reading.detected,
        done.answers,
    )


async def score_upload(
    services: Services, upload: Upload, *, command_args: str = "", owner: Hashable = None
) -> Scored:
    """Check and score an uploaded file: a small one here, a large one (saved to a
    temporary file) in a worker process, in ``owner``'s turn."""
    check_document(upload.file_name, upload.file_size)
    if upload.file_size is not None and upload.file_size < OFFLOAD_BYTES:
        text = decode_upload(await upload.download())
        return await score_submission(services, text, command_args=command_args, owner=owner)
    async with saved(upload) as path:
        size = await asyncio.to_thread(os.path.getsize, path)
        check_size(size)
        if size >= OFFLOAD_BYTES:
            return await score_file(services, path, command_args=command_args, owner=owner)
        text = decode_upload(await asyncio.to_thread(path.read_bytes))
    return await score_submission(services, text, command_args=command_args, owner=owner)


async def record(
    services: Services,
    scored: Scored,
    *,
    user_id: int,
    chat_id: int,
    message_id: int,
    asked_by: int | None = None,
    challenge: tuple[str, Mapping[str, Any]] | None = None,
    check_copies: bool = True,
    more: Mapping[str, Any] | None = None,
) -> Submission:
    """Store a scored submission under the message that asked for scoring (a delivery
    repeated by Telegram is stored once: ``created`` is then False). ``user_id`` is the
    output's author; ``asked_by`` who asked for the scoring when someone else did;
    ``challenge``: (benchmark, what to keep) of a challenge the user opened, kept in
    ``extra["challenge"]`` when the submission is of that benchmark (and, for a daily
    benchmark, of the challenge's target); ``more``: what else its ``extra`` keeps (a
    run's figures)."""
    extra = {k: v for k, v in scored.options.items() if k != "previous"}
    extra.update(more or {})
    if asked_by is not None and asked_by != user_id:
        extra[ASKED_BY] = asked_by
    if scored.detected:
        extra[DETECTED] = True
    if (
        challenge is not None
        and challenge[0] == scored.benchmark.name
        and challenge[1].get("target") in (None, scored.options.get("target"))
    ):
        extra["challenge"] = dict(challenge[1])
    if check_copies:  # (a run the bot made itself is no paste: its caller skips it)
        kept = await trust.check(services, scored.benchmark, scored.answers, user_id)
        if kept is not None:
            extra[trust.EXTRA] = kept
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
            score_se=intervals.result_se(scored.benchmark, scored.result),
            provider=provenance.provider_of(extra),
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
    challenge: tuple[str, Mapping[str, Any]] | None = None,
    given: tuple[str, Mapping[str, Any]] | None = None,
) -> tuple[Submission, Result | None]:
    """Score a text or an uploaded file and record it under the message that asked.

    ``given``: the benchmark a text is of, as the handler knows it, and scorer options
    it knows (a reply to a challenge's message: its target); tags in the text win.

    Returns the stored submission and, when it was stored just now, its result (a
    delivery repeated by Telegram shows what was stored the first time: None).
    """
    # heavy work is shared out by who sent it (not by whose output it is)
    owner = asked_by if asked_by is not None else user_id
    if upload is not None:
        scored = await score_upload(services, upload, command_args=command_args, owner=owner)
    else:
        hint, options = given or (None, None)
        scored = await score_submission(
            services,
            text or "",
            command_args=command_args,
            benchmark_hint=hint,
            given=options,
            owner=owner,
        )
    sub = await record(
        services,
        scored,
        user_id=user_id,
        chat_id=chat_id,
        message_id=message_id,
        asked_by=asked_by,
        challenge=challenge,
    )
    return sub, scored.result if sub.created else None

"""The submission flow between Telegram handlers, scoring and storage.

Handlers stay thin: they read the update, call one function here, and send what the
formatter renders. Nothing here builds Telegram replies.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib import resources
from typing import Any

from scoring import (
    Benchmark,
    DecodeError,
    Result,
    ScoringError,
    decode,
    natory,
    parse_mode,
    registry,
)
from storage import analytics

from . import datafiles
from .services import LoadedKey, Services
from .tags import FieldError, Tags, parse_cost, parse_latency, split_tags

log = logging.getLogger(__name__)

#: Inputs at least this large are scored in a worker process, off the event loop.
POOL_THRESHOLD = 256 * 1024
#: The longest a scoring job may take before the user is told it is too heavy.
SCORE_TIMEOUT = 60.0
MAX_DOWNLOAD = 20 * 1024 * 1024
TEXT_EXTENSIONS = ("", ".txt", ".md", ".csv", ".json", ".jsonl")


class UserError(Exception):
    """Bad input: ``key`` names an i18n message, ``values`` fill it in."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


@dataclass(frozen=True, slots=True)
class Scored:
    benchmark: Benchmark
    result: Result
    tags: Tags
    body: str
    key_version_id: int | None
    options: Mapping[str, Any]


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


def decode_upload(data: bytes) -> str:
    try:
        return decode(data)
    except DecodeError as exc:
        raise UserError("bad_encoding", reason=str(exc)) from None


def _score_job(name: str, text: str, key: Any, options: Mapping[str, Any]) -> Result:
    return registry.get(name).score(text, key, options=options)


async def run_scorer(
    services: Services, benchmark: Benchmark, text: str, key: Any, options: Mapping[str, Any]
) -> Result:
    """Score small inputs inline and large ones in the worker process, with a time limit."""
    if len(text) < POOL_THRESHOLD or services.pool is None:
        return benchmark.score(text, key, options=options)
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(
        services.pool, _score_job, benchmark.name, text, key, dict(options)
    )
    try:
        return await asyncio.wait_for(future, SCORE_TIMEOUT)
    except TimeoutError:
        raise UserError("too_slow") from None


def natory_today(services: Services) -> natory.Challenge:
    """Today's (UTC) Natory challenge: an admin's choice, else the seeded daily target."""
    settings = services.settings
    return datafiles.natory_challenge(
        settings.data_dir, datetime.now(UTC).date(), settings.natory_seed
    )


def natory_target(services: Services, tags: Tags) -> int:
    typed = tags.fields.get("target")
    if typed is None:
        return natory_today(services).target
    if not typed.isdigit() or not 0 < int(typed) < 10**12:
        raise UserError("bad_target", target=typed)
    return int(typed)


async def score_submission(
    services: Services, text: str, *, command_args: str = "", benchmark_hint: str | None = None
) -> Scored:
    """Split tags from the text, pick the benchmark and key, and score."""
    try:
        body, tags = split_tags(text, command_args)
    except (ScoringError, ValueError) as exc:
        raise UserError("bad_tag", reason=str(exc)) from None
    benchmark = registry.get(tags.benchmark or benchmark_hint or registry.DEFAULT)
    if not body.strip():
        raise UserError("empty")
    options: dict[str, Any] = {}
    key_version_id: int | None = None
    if benchmark.name == "natory":
        target = natory_target(services, tags)
        key = benchmark.load_key(str(target).encode())
        options = {"target": target}
        # cost (USD) and latency (s) are validated numbers; the store keeps them in extra.
        for name, parse in (("cost", parse_cost), ("latency", parse_latency)):
            if name in tags.fields:
                try:
                    options[name] = parse(tags.fields[name])
                except FieldError:
                    raise UserError(f"bad_{name}", value=tags.fields[name]) from None
        # uniqueResultBonus: the simplified expressions already stored for this target.
        options["previous"] = await analytics.natory_previous(services.store, target)
    else:
        loaded = services.keys.get(benchmark.name)
        if loaded is None:
            raise UserError("no_key", benchmark=benchmark.title)
        key, key_version_id = loaded.key, loaded.version.id
    result = await run_scorer(services, benchmark, body, key, options)
    return Scored(benchmark, result, tags, body, key_version_id, options)


# --- keys --------------------------------------------------------------------------


async def load_key(services: Services, benchmark_name: str, data: bytes, source: str) -> LoadedKey:
    """Validate a key, store its version (new when the SHA-256 differs) and use it."""
    benchmark = registry.get(benchmark_name)
    key = benchmark.load_key(data)
    version = await services.store.save_key(benchmark.name, data, source=source)
    loaded = LoadedKey(version, key, source)
    services.keys[benchmark.name] = loaded
    return loaded


async def load_keys(services: Services) -> None:
    """Load every benchmark key found in the data folder, or else the last stored one."""
    data_dir = services.settings.data_dir
    for name in datafiles.KEY_FILES:
        data = datafiles.read_key_bytes(data_dir, name)
        source = str(datafiles.key_path(data_dir, name))
        if data is None:
            stored = await services.store.current_key(name)
            if stored is None:
                continue
            data, source = await services.store.key_data(stored.id), stored.source
        try:
            await load_key(services, name, data, source)
        except ScoringError as exc:
            log.error("the %s key in %s does not load: %s", name, source, exc)


async def fetch_missing_primebench(services: Services) -> None:
    """Fetch PrimeBench's files when none are loaded; failures are logged, not fatal."""
    settings = services.settings
    if "primebench" in services.keys or not settings.fetch_on_start:
        return
    try:
        report = await datafiles.fetch_primebench(settings.data_dir, settings.primebench_url)
    except datafiles.DataError as exc:
        log.warning("PrimeBench files are not loaded and the fetch failed: %s", exc)
        return
    data = datafiles.read_key_bytes(settings.data_dir, "primebench")
    if data is not None:
        await load_key(services, "primebench", data, report.source)
        log.info("PrimeBench key fetched from %s", report.source)


async def seed_references(services: Services) -> int:
    """Store the benchmarks' published results (idempotent); returns how many."""
    data = json.loads(resources.files("bot").joinpath("references.json").read_text("utf-8"))
    count = 0
    for name, table in data.items():
        if name.startswith("_") or name not in registry.names():
            continue
        for entry in table["results"]:
            await services.store.add_reference(
                name,
                model=entry["model"],
                mode=parse_mode(entry["mode"]).value,
                score=float(entry["score"]),
                source=table["source"],
            )
            count += 1
    return count


# --- limits ------------------------------------------------------------------------


async def publish_allowance(services: Services, user_id: int) -> tuple[int, datetime]:
    """How many more results the user may publish today, and when the count resets."""
    used = await services.store.published_today(user_id)
    now = datetime.now(UTC)
    reset = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return max(0, services.settings.daily_limit - used), reset

"""Answer keys: the database holds them (every version, one current per benchmark);
the data folder is only where new ones arrive from.

At start (and before the command line scores against a stored key) a key file placed in
the data folder is imported when the database has never seen it (its SHA-256 is not
among the stored versions): validated, stored as the next version, made current. A file
already imported is left alone, so a key an admin set later with /setkey stays current
across restarts. ``data fetch``/``data load`` and /setkey import explicitly: the key
they bring becomes current even when it is an older version again.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Callable

from scoring import Benchmark, ScoringError, parse_mode, registry
from storage import KeyVersion

from . import datafiles, shipped
from .services import LoadedKey, Services, read_until_answered

log = logging.getLogger(__name__)


def keyed() -> tuple[Benchmark, ...]:
    """The benchmarks that keep an answer key (in the registry's order)."""
    return tuple(b for b in registry.all_benchmarks() if b.key_file is not None)


async def load_key(services: Services, benchmark_name: str, data: bytes, source: str) -> LoadedKey:
    """Parse a key (in a thread: a defined benchmark's key may be many thousand lines),
    store its version (new when the SHA-256 differs), make it current and use it."""
    benchmark = registry.get(benchmark_name)
    key = await asyncio.to_thread(benchmark.load_key, data)
    version = await services.store.save_key(benchmark.name, data, source=source)
    loaded = LoadedKey(version, key, source)
    services.keys[benchmark.name] = loaded
    await services.announce("keys")
    return loaded


async def reload_keys(services: Services) -> None:
    """Use each benchmark's current stored key, where another instance changed it."""
    for benchmark in keyed():
        await use_current(services, benchmark)


async def use_current(services: Services, benchmark: Benchmark) -> None:
    """Use the benchmark's current stored key, unless it is the one in use (also for a
    benchmark not registered yet: one another process defined is given its key first)."""
    version = await services.store.current_key(benchmark.name)
    held = services.keys.get(benchmark.name)
    if version is None or (held is not None and held.version.id == version.id):
        return
    if await _use(services, benchmark, await services.store.key_data(version.id), version):
        log.info("%s key version %d now in use", benchmark.title, version.version)
        if held is not None and services.key_changed is not None:
            services.key_changed(benchmark.name)


def _follow(services: Services) -> Callable[[str], None]:
    """A listener of other instances' announcements (``Services.listeners``): when one
    says the keys changed (or anything may have), the current keys are read again."""

    def heard(topic: str) -> None:
        if topic in ("keys", ""):
            services.spawn(read_until_answered(lambda: reload_keys(services), "the keys"))

    return heard


async def _use(services: Services, benchmark: Benchmark, data: bytes, version: KeyVersion) -> bool:
    """Use a stored key version (read in a thread, as :func:`load_key` reads one); False
    (logged) when it does not load."""
    try:
        key = await asyncio.to_thread(benchmark.load_key, data)
    except ScoringError as exc:
        log.error("the stored %s key version %d does not load: %s", benchmark.title,
                  version.version, exc)  # fmt: skip
        return False
    services.keys[benchmark.name] = LoadedKey(version, key, version.source)
    return True


async def import_placed(services: Services, benchmark: Benchmark) -> KeyVersion | None:
    """Import the key file placed in the data folder when the database has never seen
    it; None when there is none, it is known, or it is refused (logged)."""
    data_dir = services.settings.data_dir
    data = datafiles.read_key_file(data_dir, benchmark)
    if data is None:
        return None
    source = str(datafiles.key_path(data_dir, benchmark))
    try:
        checked = datafiles.check_key(benchmark, data)
    except datafiles.DataError as exc:
        log.error("the key file %s is not imported: %s", source, exc)
        return None
    known = {v.sha256 for v in await services.store.key_versions(benchmark.name)}
    if hashlib.sha256(checked.data).hexdigest() in known:
        return None
    version = await services.store.save_key(benchmark.name, checked.data, source=source)
    log.info("imported %s as %s key version %d", source, benchmark.title, version.version)
    return version


async def current(services: Services, benchmark: Benchmark) -> tuple[bytes, KeyVersion] | None:
    """The benchmark's current key as stored (its bytes and version), or None."""
    stored = await services.store.current_key(benchmark.name)
    if stored is None:
        return None
    return await services.store.key_data(stored.id), stored


async def load_keys(services: Services) -> None:
    """Import new key files from the data folder, then use every benchmark's current key
    (and, with other instances on the database, the key another one makes current)."""
    if services.store.shared:
        services.listeners["keys"] = _follow(services)
    for benchmark in keyed():
        await import_placed(services, benchmark)
        found = await current(services, benchmark)
        if found is not None:
            await _use(services, benchmark, *found)


async def fetch_missing(services: Services) -> None:
    """Fetch the official files of every essential benchmark without a key, and import
    them; failures are logged, not fatal."""
    settings = services.settings
    if not settings.fetch_on_start:
        return
    for benchmark in registry.all_benchmarks():
        if not benchmark.essential or benchmark.name in services.keys:
            continue
        url = settings.source_url(benchmark.name)
        try:
            report = await datafiles.fetch(settings.data_dir, benchmark, url)
        except datafiles.DataError as exc:
            log.warning("%s files are not loaded and the fetch failed: %s", benchmark.title, exc)
            continue
        await load_key(services, benchmark.name, report.key, report.source)
        log.info("%s key fetched from %s", benchmark.title, report.source)


def missing_essential(services: Services) -> bool:
    """Whether an essential benchmark has no key loaded (the start fetches it)."""
    return any(b.essential and b.name not in services.keys for b in registry.all_benchmarks())


async def seed_references(services: Services) -> int:
    """Store the benchmarks' published results, shipped in ``data/references.json``
    (idempotent); returns how many."""
    data = json.loads(shipped.path("references.json").read_text("utf-8"))
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

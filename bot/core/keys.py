"""Answer keys and reference results: load them at start, and when an admin uploads one."""

from __future__ import annotations

import json
import logging
from importlib import resources

from scoring import ScoringError, parse_mode, registry

from . import datafiles
from .services import LoadedKey, Services

log = logging.getLogger(__name__)


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

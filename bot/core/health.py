"""Whether the bot can serve: the database answers and the key of every benchmark marked
``essential`` is there. One check for the webhook's ``/healthz`` and for
``benchboard health``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scoring import registry

from . import datafiles
from .services import Services


@dataclass(frozen=True, slots=True)
class Health:
    database: str  # "ok", or what went wrong
    schema: int | None
    #: each essential benchmark's name -> (its key is there, its current version)
    keys: Mapping[str, tuple[bool, int | None]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.database == "ok" and all(has for has, _ in self.keys.values())

    def report(self) -> dict[str, Any]:
        data: dict[str, Any] = {"database": self.database}
        for name, (has, version) in self.keys.items():
            data[f"{name}_key"] = has
            data[f"{name}_key_version"] = version
        return data


def _essential() -> dict[str, tuple[bool, int | None]]:
    return {b.name: (False, None) for b in registry.all_benchmarks() if b.essential}


NOT_OPEN = Health("not open", None, _essential())


async def check(services: Services | None, *, stored: bool = False) -> Health:
    """The running bot asks about the keys it loaded; a command (``stored``) about the
    keys a start would load: the current stored version, else a key file waiting in the
    data folder to be imported."""
    if services is None:
        return NOT_OPEN
    try:
        schema: int | None = await services.store.schema_version()
        database = "ok"
    except Exception as exc:  # any failure to answer is "not healthy", with the reason
        schema, database = None, f"error: {type(exc).__name__}"
    keys: dict[str, tuple[bool, int | None]] = {}
    for benchmark in registry.all_benchmarks():
        if not benchmark.essential:
            continue
        loaded = services.keys.get(benchmark.name)
        has_key = loaded is not None
        version = loaded.version.version if loaded is not None else None
        if stored and not has_key and database == "ok":
            current = await services.store.current_key(benchmark.name)
            placed = datafiles.read_key_file(services.settings.data_dir, benchmark)
            has_key = current is not None or placed is not None
            version = current.version if current is not None else None
        keys[benchmark.name] = (has_key, version)
    return Health(database, schema, keys)

"""Whether the bot can serve: the database answers and the PrimeBench key is there.
One check for the webhook's ``/healthz`` and for ``benchboard health``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import datafiles
from .services import Services


@dataclass(frozen=True, slots=True)
class Health:
    database: str  # "ok", or what went wrong
    schema: int | None
    primebench_key: bool
    key_version: int | None = None

    @property
    def ok(self) -> bool:
        return self.database == "ok" and self.primebench_key

    def report(self) -> dict[str, Any]:
        return {
            "database": self.database,
            "primebench_key": self.primebench_key,
            "key_version": self.key_version,
        }


NOT_OPEN = Health("not open", None, False)


async def check(services: Services | None, *, stored: bool = False) -> Health:
    """The running bot asks about the key it loaded; a command (``stored``) about the
    key a start would load: the data folder's file, else the last stored version."""
    if services is None:
        return NOT_OPEN
    try:
        schema: int | None = await services.store.schema_version()
        database = "ok"
    except Exception as exc:  # any failure to answer is "not healthy", with the reason
        schema, database = None, f"error: {type(exc).__name__}"
    loaded = services.keys.get("primebench")
    version = loaded.version.version if loaded is not None else None
    has_key = loaded is not None
    if stored and not has_key and database == "ok":
        current = await services.store.current_key("primebench")
        in_folder = datafiles.read_key_bytes(services.settings.data_dir, "primebench")
        has_key = current is not None or in_folder is not None
        version = current.version if current is not None else None
    return Health(database, schema, has_key, version)

"""Keys live in the database; the data folder is where new key files are imported from."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core import datafiles, health, keys
from bot.core.services import Services
from bot.settings import Settings
from scoring import registry
from storage import Store
from tests.storage.helpers import key_bytes

PRIME = registry.get("primebench")


def services_for(store: Store, data_dir: Path) -> Services:
    return Services(settings=Settings(data_dir=data_dir, fetch_on_start=False), store=store)


def place(data_dir: Path, data: bytes) -> Path:
    path = data_dir / "primebench" / "A.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


async def test_a_placed_key_file_is_imported_once(store: Store, tmp_path: Path) -> None:
    services = services_for(store, tmp_path)
    path = place(tmp_path, key_bytes(1))
    await keys.load_keys(services)
    loaded = services.keys["primebench"]
    assert loaded.version.version == 1 and loaded.source == str(path)
    await keys.load_keys(services_for(store, tmp_path))  # a restart: nothing new
    assert [v.version for v in await store.key_versions("primebench")] == [1]


async def test_a_key_set_later_stays_current_across_restarts(store: Store, tmp_path: Path) -> None:
    place(tmp_path, key_bytes(1))
    await keys.load_keys(services_for(store, tmp_path))
    services = services_for(store, tmp_path)
    await keys.load_key(services, "primebench", key_bytes(2), "Telegram upload")
    restarted = services_for(store, tmp_path)
    await keys.load_keys(restarted)  # the folder still holds version 1's file
    assert restarted.keys["primebench"].version.version == 2
    assert restarted.keys["primebench"].source == "Telegram upload"
    place(tmp_path, key_bytes(3))  # a new file placed there is imported and used
    await keys.load_keys(restarted)
    assert restarted.keys["primebench"].version.version == 3


async def test_a_bad_placed_file_is_not_imported(
    store: Store, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    await keys.load_key(services_for(store, tmp_path), "primebench", key_bytes(1), "earlier")
    place(tmp_path, b"1:1\n2:x\n")
    services = services_for(store, tmp_path)
    await keys.load_keys(services)
    assert services.keys["primebench"].source == "earlier"
    assert "bad PrimeBench key: line 2" in caplog.text


async def test_health_asks_for_the_essential_keys(store: Store, tmp_path: Path) -> None:
    services = services_for(store, tmp_path)
    state = await health.check(services)
    assert not state.ok and state.report()["primebench_key"] is False
    assert (await health.check(services, stored=True)).ok is False
    place(tmp_path, key_bytes(1))
    assert (await health.check(services, stored=True)).ok  # a start would import it
    await keys.load_keys(services)
    state = await health.check(services)
    assert state.ok and state.report()["primebench_key_version"] == 1


def test_one_wording_for_a_refused_key() -> None:
    for name, bad in (("primebench", b"1:1\n2:x\n"), ("zerobench", b"<not a key>")):
        benchmark = registry.get(name)
        with pytest.raises(datafiles.DataError, match=f"^bad {benchmark.title} key: "):
            datafiles.check_key(benchmark, bad)
    with pytest.raises(datafiles.DataError, match="Natory takes no key file"):
        datafiles.check_key(registry.get("natory"), b"6256")

"""Benchmarks defined by data: their definitions stored and versioned, their keys in the
key tables (on SQLite, and on PostgreSQL where a server is configured)."""

from __future__ import annotations

import json

from storage import Store


def _definition(points: int = 2) -> str:
    return json.dumps({"name": "tinymcq", "kind": "choice", "points": {"right": points}})


async def test_a_definition_is_stored_with_its_key_as_the_current_key(store: Store) -> None:
    stamp = await store.definitions_stamp()
    saved, key = await store.save_definition(
        "tinymcq", "choice", _definition(), b"1:3\n2:1\n", source="file t.toml"
    )
    assert (saved.benchmark, saved.version, saved.kind, saved.created) == (
        "tinymcq", 1, "choice", True,
    )  # fmt: skip
    assert json.loads(saved.definition)["points"] == {"right": 2}
    assert key.created and key.version == 1
    current = await store.current_key("tinymcq")
    assert current is not None and current.id == key.id
    assert await store.key_data(key.id) == b"1:3\n2:1\n"
    assert [d.benchmark for d in await store.definitions()] == ["tinymcq"]
    assert await store.definitions_stamp() != stamp


async def test_the_same_definition_again_is_no_new_version(store: Store) -> None:
    await store.save_definition("tinymcq", "choice", _definition(), b"1:3\n", source="a")
    stamp = await store.definitions_stamp()
    again, key = await store.save_definition(
        "tinymcq", "choice", _definition(), b"1:3\n", source="b"
    )
    assert (again.version, again.created, key.version, key.created) == (1, False, 1, False)
    assert await store.definitions_stamp() == stamp


async def test_a_corrected_key_is_a_new_key_version_under_the_same_definition(
    store: Store,
) -> None:
    await store.save_definition("tinymcq", "choice", _definition(), b"1:3\n", source="a")
    same, key = await store.save_definition(
        "tinymcq", "choice", _definition(), b"1:4\n", source="b"
    )
    assert (same.version, same.created) == (1, False)
    assert (key.version, key.created) == (2, True)
    current = await store.current_key("tinymcq")
    assert current is not None and current.version == 2
    # another process sees it changed: the key in use is part of the stamp
    stamp = await store.definitions_stamp()
    await store.save_definition("tinymcq", "choice", _definition(), b"1:3\n", source="c")
    assert await store.definitions_stamp() != stamp  # the first key in use again


async def test_a_changed_definition_is_the_next_version_and_the_latest_counts(
    store: Store,
) -> None:
    await store.save_definition("tinymcq", "choice", _definition(2), b"1:3\n", source="a")
    await store.save_definition("other", "choice", _definition(1), b"1:1\n", source="a")
    changed, _ = await store.save_definition(
        "tinymcq", "choice", _definition(5), b"1:3\n", source="c"
    )
    assert (changed.version, changed.created) == (2, True)
    latest = {d.benchmark: d for d in await store.definitions()}
    assert list(latest) == ["tinymcq", "other"]  # in the order first defined
    assert json.loads(latest["tinymcq"].definition)["points"] == {"right": 5}
    versions = await store.definition_versions("tinymcq")
    assert [v.version for v in versions] == [1, 2]
    assert [v.source for v in versions] == ["a", "c"]

"""ZeroBench: the figures (official and lenient) at once, the hints and the fingerprint on
first read."""

from __future__ import annotations

import gc
import hashlib
import json
import pickle

import pytest

from scoring import registry
from scoring import zerobench as zb

KEY = zb.load_key(json.dumps({zb.MAIN_SPLIT: {"1": "42", "2": "11.90", "3": "paris"}}).encode())
LINES = [
    {"question_id": "1", "response": "so {42}"},
    {"question_id": "1", "response": "so { 42 }"},  # lenient: spaces in the braces
    {"question_id": "2", "response": "about {11.9}"},  # lenient: the same number
    {"question_id": "3", "response": "no braces at all"},
    {"question_id": "9", "response": "{1}"},  # not in the key
]
TEXT = "".join(json.dumps(line) + "\n" for line in LINES)


def test_primary_needs_no_recheck_and_the_rest_comes_when_read() -> None:
    result = zb.score(TEXT, KEY, k=2)
    assert result.primary == (1 / 2) / 3  # question 1: 1 of 2; the others 0
    full = zb.score(TEXT, KEY, k=2)
    assert full.main.lenient.correct_attempts == 3
    codes = {hint.code for hint in full.hints}
    assert {"spaces_in_braces", "number_format", "no_braces"} <= codes
    assert result == full  # equality reads the rest of both
    assert result.unknown_id_count == 1


def test_a_result_pickles_and_rebuilds_whole() -> None:
    result = zb.score(TEXT, KEY, k=2)
    again = pickle.loads(pickle.dumps(result))
    assert again == result and again.hints == result.hints
    rebuilt = registry.get("zerobench").result_from_record(result.to_record())
    assert rebuilt == result


def test_a_result_is_read_only() -> None:
    result = zb.score(TEXT, KEY, k=2)
    try:
        result.k = 3  # type: ignore[misc]
    except AttributeError:
        pass
    else:
        raise AssertionError("a result took a new value")


def test_the_garbage_collector_is_left_as_it_was() -> None:
    assert gc.isenabled()
    zb.score(TEXT, KEY).hints  # noqa: B018
    assert gc.isenabled()
    gc.disable()
    try:
        zb.score(TEXT, KEY).hints  # noqa: B018
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_registry_find_names_or_none() -> None:
    assert registry.find("#ZeroBench") is registry.get("zerobench")
    assert registry.find("think") is None


def test_a_key_is_read_only_and_pickles_whole() -> None:
    again = pickle.loads(pickle.dumps(KEY))
    assert again == KEY and again.sha256 == KEY.sha256
    with pytest.raises(AttributeError, match="read-only"):
        KEY.sha256 = "0" * 64  # type: ignore[misc]
    assert again == KEY


def test_a_keys_checksum_is_its_files_sha256_when_read() -> None:
    data = json.dumps({zb.MAIN_SPLIT: {"1": "42"}}).encode()
    key = zb.load_key(data)
    assert key.sha256 == hashlib.sha256(data).hexdigest()
    assert key != zb.load_key(data + b"\n")  # the same answers, another file
    assert pickle.loads(pickle.dumps(key)).sha256 == key.sha256

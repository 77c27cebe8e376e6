"""Bounded numbers and bounded caches."""

from __future__ import annotations

import pytest

from bot.core.admin import AdminCache
from bot.core.bounded import MAX_ID, Lru, parse_count, parse_id, storable
from bot.core.services import SEEN_MAX, Services


@pytest.mark.parametrize(
    ("text", "value"),
    [("1", 1), ("42", 42), (str(MAX_ID), MAX_ID), (str(MAX_ID + 1), None), ("0", None),
     ("9" * 36, None), ("9" * 5000, None), ("-3", None), ("", None), ("\u0669", None),
     ("\u00b2", None), (" 4", None), ("4x", None)],
)  # fmt: skip
def test_parse_id(text: str, value: int | None) -> None:
    assert parse_id(text) == value


def test_parse_id_with_a_maximum_and_parse_count() -> None:
    assert parse_id("999999999999", maximum=10**12 - 1) == 10**12 - 1
    assert parse_id("1000000000000", maximum=10**12 - 1) is None
    assert parse_count("0", 30) == 0 and parse_count("30", 30) == 30
    assert parse_count("31", 30) is None and parse_count("-1", 30) is None
    assert storable(-(2**63)) and not storable(2**63) and not storable(-(2**63) - 1)


def test_lru_keeps_the_most_recently_used() -> None:
    evicted: list[tuple[str, int]] = []
    lru: Lru[str, int] = Lru(2, on_evict=lambda k, v: evicted.append((k, v)))
    lru["a"], lru["b"] = 1, 2
    assert lru["a"] == 1  # a is now the most recent
    lru["c"] = 3
    assert dict(lru) == {"a": 1, "c": 3} and evicted == [("b", 2)]
    with pytest.raises(ValueError):
        Lru(0)


def test_admin_cache_is_bounded() -> None:
    now = [0.0]
    cache = AdminCache(ttl=60, clock=lambda: now[0], maxsize=100)
    for n in range(1_000):
        cache.put(-100, n, n % 2 == 0)
    assert len(cache) == 100
    assert cache.get(-100, 999) is False and cache.get(-100, 998) is True
    assert cache.get(-100, 0) is None  # forgotten: asked of Telegram again
    now[0] = 61
    assert cache.get(-100, 999) is None  # expired


def test_seen_users_and_chats_are_bounded() -> None:
    seen = Services.__dataclass_fields__["seen"].default_factory()  # type: ignore[misc]
    assert isinstance(seen, Lru) and seen.maxsize == SEEN_MAX
    for n in range(SEEN_MAX + 500):
        seen[("u", n)] = n
    assert len(seen) == SEEN_MAX and ("u", 0) not in seen and ("u", SEEN_MAX + 499) in seen


def test_lru_get_and_pop_behave_as_a_dicts() -> None:
    lru: Lru[str, int] = Lru(2)
    lru["a"], lru["b"] = 1, 2
    assert lru.get("a") == 1 and lru.get("x") is None and lru.get("x", 5) == 5
    lru["c"] = 3  # "a" was used last: "b" goes
    assert list(lru) == ["a", "c"]
    assert lru.pop("a", 9) == 1 and lru.pop("a", 9) == 9 and lru.pop("c") == 3
    with pytest.raises(KeyError):
        lru.pop("c")

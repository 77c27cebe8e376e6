"""Bounds for what users type and for what the bot remembers of them.

Numbers from a message, a command or callback data are parsed with bounds before they
are used (SQLite integers are 64-bit; ``int()`` of thousands of digits is an error or
slow), and every in-memory cache that grows with users or chats is an :class:`Lru`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator, MutableMapping
from typing import Generic, TypeVar

#: The largest integer the store keeps (SQLite's and PostgreSQL's BIGINT).
MAX_ID = 2**63 - 1
#: Digits of :data:`MAX_ID`.
_ID_DIGITS = len(str(MAX_ID))

K = TypeVar("K")
V = TypeVar("V")


def parse_id(text: str, *, maximum: int = MAX_ID) -> int | None:
    """A positive whole number of ASCII digits, at most ``maximum``; else None."""
    if not text or len(text) > _ID_DIGITS or not (text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if 0 < value <= maximum else None


def parse_count(text: str, maximum: int) -> int | None:
    """A whole number from 0 to ``maximum`` in ASCII digits (a page, a number of days)."""
    if not text or len(text) > len(str(maximum)) or not (text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if value <= maximum else None


def storable(value: int) -> bool:
    """Whether the store can keep ``value`` (a user, chat or message id)."""
    return -MAX_ID - 1 <= value <= MAX_ID


class Lru(MutableMapping[K, V], Generic[K, V]):
    """A dict of at most ``maxsize`` entries; the least recently used goes first (to
    ``on_evict``, when given)."""

    def __init__(self, maxsize: int, on_evict: Callable[[K, V], object] | None = None) -> None:
        if maxsize < 1:
            raise ValueError("maxsize must be at least 1")
        self.maxsize = maxsize
        self._on_evict = on_evict
        self._data: OrderedDict[K, V] = OrderedDict()

    def __getitem__(self, key: K) -> V:
        value = self._data[key]
        self._data.move_to_end(key)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.maxsize:
            old_key, old_value = self._data.popitem(last=False)
            if self._on_evict is not None:
                self._on_evict(old_key, old_value)

    def __delitem__(self, key: K) -> None:
        del self._data[key]

    # get and pop without the KeyError that Mapping's own raise and catch for a
    # missing key (most lookups of the caches miss, once per update)

    def get(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]
        data = self._data
        if key not in data:
            return default
        data.move_to_end(key)
        return data[key]

    def pop(self, key: K, *default: V | None) -> V | None:  # type: ignore[override]
        return self._data.pop(key, *default)

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

"""The errors the outer layers tell apart: bad input (:class:`UserError`, what to tell
the user) and the storage errors they answer differently (so they need not import
storage)."""

from __future__ import annotations

from storage import NotFound, StorageError, StoreUnavailable


class UserError(Exception):
    """Bad input: ``key`` names a catalogue message, ``values`` fill it in."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


class DailyLimit(UserError):
    """The day's publications are used up: ``limit`` of them, again after ``reset``."""

    def __init__(self, limit: int, reset: str) -> None:
        super().__init__("limit_reached", reset=reset)
        self.limit = limit


__all__ = ["DailyLimit", "NotFound", "StorageError", "StoreUnavailable", "UserError"]

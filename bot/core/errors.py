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


__all__ = ["NotFound", "StorageError", "StoreUnavailable", "UserError"]

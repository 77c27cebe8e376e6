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


class StartupError(Exception):
    """A server cannot start (Telegram unreachable, the token refused, the database or
    the port unavailable); the message says why, in one line."""


def listen_failed(host: str, port: int, error: OSError) -> StartupError:
    """The start-up error of a port that cannot be listened on (taken, not allowed)."""
    reason = error.strerror or str(error)
    return StartupError(f"cannot listen on {host}:{port}: {reason.lower()}")


__all__ = [
    "DailyLimit",
    "NotFound",
    "StartupError",
    "StorageError",
    "StoreUnavailable",
    "UserError",
    "listen_failed",
]

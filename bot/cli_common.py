"""What the ``benchboard`` commands share (bot.cli and bot.cli_ops): bad input as one
line and exit code 2, and the settings read when a command first asks."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from .settings import Settings

EXIT_BAD_INPUT = 2

#: Settings, read (with pydantic) the first time a command asks for them.
Load = Callable[[], "Settings"]


class CliError(Exception):
    """Bad input: printed as one line on stderr, exit code 2."""


def fail(message: str) -> NoReturn:
    raise CliError(message)

"""Pure scoring: parse and score benchmark outputs. No I/O, no Telegram, no database."""

from typing import TYPE_CHECKING, Any

from .base import (
    MAX_REPORTED_INVALID_LINES,
    MAX_REPORTED_QUESTIONS,
    About,
    AnswerSet,
    Benchmark,
    ChallengeKey,
    ChallengeSpec,
    Hint,
    InvalidLine,
    KeyCheck,
    Result,
    Source,
    WebCells,
    WebColumn,
    publishable,
)
from .errors import (
    DecodeError,
    ExpressionError,
    KeyFormatError,
    OptionError,
    ScoringError,
    UnknownBenchmark,
    UnknownMode,
)
from .registry import get, names
from .text import decode

if TYPE_CHECKING:
    from .modes import Mode, parse_mode, valid_modes

#: Imported when first asked for: scoring a file from the command line needs no mode.
_LAZY = {"Mode": "modes", "parse_mode": "modes", "valid_modes": "modes"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "MAX_REPORTED_INVALID_LINES",
    "MAX_REPORTED_QUESTIONS",
    "About",
    "AnswerSet",
    "Benchmark",
    "ChallengeKey",
    "ChallengeSpec",
    "DecodeError",
    "ExpressionError",
    "Hint",
    "InvalidLine",
    "KeyCheck",
    "KeyFormatError",
    "Mode",
    "OptionError",
    "Result",
    "ScoringError",
    "Source",
    "UnknownBenchmark",
    "UnknownMode",
    "WebCells",
    "WebColumn",
    "decode",
    "get",
    "names",
    "parse_mode",
    "publishable",
    "valid_modes",
]

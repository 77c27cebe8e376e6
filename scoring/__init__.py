"""Pure scoring: parse and score benchmark outputs. No I/O, no Telegram, no database."""

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
from .modes import Mode, parse_mode, valid_modes
from .registry import get, names
from .text import decode

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

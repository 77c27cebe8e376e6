"""PrimeBench (JibayAI, jibay.ir; CC BY-ND 4.0): answer lines ``Q:O``, +1 / −3 / 0.

The rules are ``shared/specs/primebench.md``. Parsing works on the whole text with a few
compiled regular expressions, a megabyte at a time, in bounded memory; only the lines
that fail are visited one by one.

Modules: ``dataset`` (names, constants, the official prompt), ``parse`` (answer lines),
``key`` (``A.txt`` and ``Q.json``), ``scorer``, ``result``, ``hints``, ``benchmark``
(the registry object). Everything is pure: no I/O.
"""

from __future__ import annotations

from .benchmark import BENCHMARK, HINT_MESSAGES, PrimeBench
from .dataset import (
    CREDIT,
    KEY_FILE,
    NAME,
    NONE,
    OFFICIAL_QUESTIONS,
    OPTIONS,
    POINTS_CORRECT,
    POINTS_WRONG,
    PROMPT,
    QUESTIONS_FILE,
    RECORD_LINE_TEXT,
    SCORER_VERSION,
    SOURCE,
    TITLE,
)
from .key import PrimeKey, check_key, check_pair, load_key, load_questions
from .parse import parse_line
from .result import PrimeBenchResult, answers_card, format_score, result_from_record
from .scorer import score

__all__ = [
    "BENCHMARK",
    "CREDIT",
    "HINT_MESSAGES",
    "KEY_FILE",
    "NAME",
    "NONE",
    "OFFICIAL_QUESTIONS",
    "OPTIONS",
    "POINTS_CORRECT",
    "POINTS_WRONG",
    "PROMPT",
    "QUESTIONS_FILE",
    "RECORD_LINE_TEXT",
    "SCORER_VERSION",
    "SOURCE",
    "TITLE",
    "PrimeBench",
    "PrimeBenchResult",
    "PrimeKey",
    "answers_card",
    "check_key",
    "check_pair",
    "format_score",
    "load_key",
    "load_questions",
    "parse_line",
    "result_from_record",
    "score",
]

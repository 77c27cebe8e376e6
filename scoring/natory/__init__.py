"""Natory: build a target number from its own digits, scored for elegance.

New submissions are scored with natory-v2 (``SPEC-v2.md`` beside this file, constants in
``natory-v2.json``); natory-v1 (``shared/specs/natory.md``, ``natory-v1.json``) stays for
the results stored with it until they are re-scored.

Public surface (what the bot and the CLI call):

- :class:`Challenge` — ``Challenge.for_target(6256)``, ``parse_target("6256")``
- :func:`daily_target` / :func:`daily_challenge` — the day's target from a date and a seed
- :func:`parse_expression` — text (plain or LaTeX) to a tree, :class:`ExpressionError` on failure
- :func:`evaluate` — the exact value (a ``Fraction``), every bound enforced
- :func:`score` — a submission (prose allowed) to a :class:`NatoryResult`; never raises
- :data:`BENCHMARK` — the registry object (``load_key(b"6256")`` gives the challenge)
"""

from __future__ import annotations

from .benchmark import BENCHMARK, Natory
from .parser import Node, Num, Op, to_text
from .result import (
    CREDIT,
    FIELDS,
    NAME,
    SCORER_VERSION,
    TITLE,
    Breakdown,
    NatoryResult,
    result_from_record,
)
from .rules import DEFAULT_VERSION, Rules, load_rules
from .scorer import (
    Challenge,
    daily_challenge,
    daily_target,
    evaluate,
    parse_expression,
    parse_target,
    score,
    simplify,
)

__all__ = [
    "BENCHMARK",
    "CREDIT",
    "DEFAULT_VERSION",
    "FIELDS",
    "NAME",
    "SCORER_VERSION",
    "TITLE",
    "Breakdown",
    "Challenge",
    "Natory",
    "NatoryResult",
    "Node",
    "Num",
    "Op",
    "Rules",
    "daily_challenge",
    "daily_target",
    "evaluate",
    "load_rules",
    "parse_expression",
    "parse_target",
    "result_from_record",
    "score",
    "simplify",
    "to_text",
]

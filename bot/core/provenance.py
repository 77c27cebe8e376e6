"""Provenance: how a result was produced, as its submitter tells it. Pure functions.

Optional tags on a submission — ``provider:``, ``temperature:``, ``seed:``,
``reasoning: low|medium|high``, ``run date:`` and ``log: URL`` — in the chat (tag lines,
:mod:`bot.core.tags`), as fields of the HTTP API and as options of ``benchboard
submit``. Each is checked here (:class:`BadProvenance` names the field and what it must
be) and kept with the submission, in ``extra["provenance"]`` (the provider also in its
own column, folded, for the board's ``?provider=`` filter). Nothing here is verified:
it is the submitter's word, shown as such (the marks say who vouches for a result).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from scoring.text import folded_name

#: The checked fields, in the order they are shown.
FIELDS = ("provider", "temperature", "seed", "reasoning", "run_date", "log")
#: The reasoning efforts a ``reasoning:`` tag may name.
REASONING = ("low", "medium", "high")
#: Where a submission keeps its provenance (``extra[KEY]``).
KEY = "provenance"
MAX_PROVIDER = 64
MAX_TEMPERATURE = 2.0
MAX_URL = 500
#: A seed is a whole number a 64-bit integer holds.
SEED_LIMIT = 2**63
EARLIEST_RUN = date(2015, 1, 1)


class BadProvenance(ValueError):
    """A refused provenance value: ``field`` (one of :data:`FIELDS`) and the value as
    given; the message says what it must be (English: the API's and the CLI's)."""

    def __init__(self, field: str, value: str, message: str) -> None:
        super().__init__(f"{field.replace('_', ' ')}: {message}")
        self.field = field
        self.value = value[:80]


def _provider(typed: str) -> str:
    name = folded_name(typed)
    if not 0 < len(name) <= MAX_PROVIDER:
        raise BadProvenance("provider", typed, f"1 to {MAX_PROVIDER} characters")
    return name


def _temperature(typed: str) -> float:
    try:
        value = float(typed)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 <= value <= MAX_TEMPERATURE):
        raise BadProvenance("temperature", typed, f"a number from 0 to {MAX_TEMPERATURE:g}")
    return value


def _seed(typed: str) -> int:
    text = typed.strip()
    digits = text[1:] if text[:1] in "+-" else text
    if not (digits.isascii() and digits.isdigit() and len(digits) <= 19):
        raise BadProvenance("seed", typed, "a whole number")
    value = int(text)
    if not -SEED_LIMIT <= value < SEED_LIMIT:
        raise BadProvenance("seed", typed, "a whole number")
    return value


def _reasoning(typed: str) -> str:
    value = typed.strip().casefold()
    if value not in REASONING:
        raise BadProvenance("reasoning", typed, "low, medium or high")
    return value


def _run_date(typed: str, today: date) -> str:
    try:
        value = date.fromisoformat(typed.strip())
    except ValueError:
        value = None
    if value is None or len(typed.strip()) != 10:
        raise BadProvenance("run_date", typed, "a date as YYYY-MM-DD")
    if not EARLIEST_RUN <= value <= today + timedelta(days=1):
        raise BadProvenance("run_date", typed, "a date from 2015 to today")
    return value.isoformat()


def _log(typed: str) -> str:
    url = typed.strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        parts = None
    good = (
        parts is not None
        and parts.scheme in ("http", "https")
        and bool(parts.hostname)
        and len(url) <= MAX_URL
        and url.isprintable()
        and not any(c.isspace() for c in url)
    )
    if not good:
        raise BadProvenance("log", typed, f"an http(s) address of at most {MAX_URL} characters")
    return url


def check(values: Mapping[str, object], *, today: date | None = None) -> dict[str, Any]:
    """The provenance fields among ``values`` (by their names in :data:`FIELDS`; others
    are ignored), checked and in their kept form; :class:`BadProvenance` for the first
    refused one. A value may be text as typed or (from JSON) a number."""
    day = today or datetime.now(UTC).date()
    out: dict[str, Any] = {}
    for name in FIELDS:
        given = values.get(name)
        if given is None:
            continue
        if isinstance(given, bool) or not isinstance(given, str | int | float):
            raise BadProvenance(name, repr(given), "text or a number")
        typed = given if isinstance(given, str) else repr(given)
        if name == "provider":
            out[name] = _provider(typed)
        elif name == "temperature":
            out[name] = _temperature(typed)
        elif name == "seed":
            out[name] = _seed(typed)
        elif name == "reasoning":
            out[name] = _reasoning(typed)
        elif name == "run_date":
            out[name] = _run_date(typed, day)
        else:
            out[name] = _log(typed)
    return out


def of(extra: Mapping[str, Any] | None) -> dict[str, Any]:
    """A submission's kept provenance (its checked fields, in :data:`FIELDS` order)."""
    kept = (extra or {}).get(KEY)
    if not isinstance(kept, Mapping):
        return {}
    return {name: kept[name] for name in FIELDS if kept.get(name) is not None}


def provider_of(extra: Mapping[str, Any] | None) -> str | None:
    """The provider a submission names (as given), or None."""
    value = of(extra).get("provider")
    return value if isinstance(value, str) else None

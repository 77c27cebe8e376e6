"""Reading option values typed in tag fields (``cost: $0.012``, ``latency: 3200ms``).

Persian and Arabic-Indic digits are read as ASCII digits. Every refusal is an
:class:`~scoring.errors.OptionError` naming the field.
"""

from __future__ import annotations

import re

from .errors import OptionError

_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)"
_COST = re.compile(rf"\$?\s*({_NUMBER})\s*(?:\$|usd)?", re.IGNORECASE)
_LATENCY = re.compile(rf"({_NUMBER})\s*(ms|s|sec|secs|seconds?)?", re.IGNORECASE)
_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩٫", "01234567890123456789.")
#: Larger values are typing mistakes, not costs or latencies.
MAX_COST_USD = 1_000_000.0
MAX_LATENCY_S = 86_400.0 * 7


def parse_cost(text: str) -> float:
    """A cost in US dollars: ``0.012``, ``$0.012``, ``0.012 USD``; never negative."""
    match = _COST.fullmatch(text.strip().translate(_DIGITS))
    if match is None:
        raise OptionError(
            "cost",
            text,
            f"cost must be a non-negative number of US dollars such as 0.012, not {text!r}",
        )
    value = float(match[1])
    if value > MAX_COST_USD:
        raise OptionError(
            "cost", text, f"cost {text!r} is too large (at most {MAX_COST_USD:,.0f} USD)"
        )
    return value


def parse_latency(text: str) -> float:
    """A latency in seconds: ``3.2``, ``3.2s``, ``3200ms``; never negative."""
    match = _LATENCY.fullmatch(text.strip().translate(_DIGITS))
    if match is None:
        raise OptionError(
            "latency",
            text,
            f"latency must be a non-negative time such as 3.2s or 3200ms, not {text!r}",
        )
    value = float(match[1])
    if (match[2] or "s").lower() == "ms":
        value /= 1000
    if value > MAX_LATENCY_S:
        raise OptionError("latency", text, f"latency {text!r} is too large (at most 7 days)")
    return value

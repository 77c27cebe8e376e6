"""How a benchmark hands its headline figures to run_all.py: one tab-separated line
each, ``FIGURE  name  value  goal  ok|not|-`` (``-``: a figure without a goal)."""

from __future__ import annotations

import statistics


def figure(name: str, value: str, goal: str = "", ok: bool | None = None) -> None:
    verdict = "-" if ok is None else "ok" if ok else "not"
    print(f"FIGURE\t{name}\t{value}\t{goal or '-'}\t{verdict}", flush=True)


def span(values: list[float], fmt: str, unit: str = "") -> str:
    """A range over repeats (one value when they agree at this precision)."""
    low, high = format(min(values), fmt), format(max(values), fmt)
    return f"{low}{unit}" if low == high else f"{low}–{high}{unit}"


def spread(values: list[float], fmt: str = ".2f", unit: str = "", runs: str = "runs") -> str:
    """The median of per-run values, which a figure's goal is judged on, and their range
    (a shared machine's slow spells move single runs far from it)."""
    median = format(statistics.median(values), fmt)
    return f"{median}{unit} ({runs} {span(values, fmt, unit)})"

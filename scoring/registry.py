"""Benchmarks by name. Adding a benchmark is one module plus one line here."""

from __future__ import annotations

from .base import Benchmark
from .errors import UnknownBenchmark
from .natory import BENCHMARK as NATORY
from .primebench import BENCHMARK as PRIMEBENCH
from .zerobench import BENCHMARK as ZEROBENCH

_BENCHMARKS: dict[str, Benchmark] = {b.name: b for b in (PRIMEBENCH, ZEROBENCH, NATORY)}

#: The benchmark used when none is named.
DEFAULT = PRIMEBENCH.name


def names() -> tuple[str, ...]:
    return tuple(_BENCHMARKS)


def all_benchmarks() -> tuple[Benchmark, ...]:
    return tuple(_BENCHMARKS.values())


def get(name: str) -> Benchmark:
    """Look a benchmark up by name (case-insensitive, a leading ``#`` allowed)."""
    wanted = name.strip().lstrip("#").casefold().replace("-", "").replace("_", "")
    try:
        return _BENCHMARKS[wanted]
    except KeyError:
        raise UnknownBenchmark(name, names()) from None

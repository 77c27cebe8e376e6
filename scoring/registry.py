"""Benchmarks by name. Adding a benchmark is one module (or package) plus one line here."""

from __future__ import annotations

from importlib import import_module
from typing import cast

from .base import Benchmark
from .errors import UnknownBenchmark

#: The benchmark modules, in the order the bot lists them; the first is the default.
#: Each exposes ``BENCHMARK``, an object satisfying :class:`Benchmark`.
_MODULES = ("primebench", "zerobench", "natory")

_BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in (cast(Benchmark, import_module(f".{m}", __package__).BENCHMARK) for m in _MODULES)
}

#: The benchmark used when none is named.
DEFAULT = next(iter(_BENCHMARKS))


def _folded(word: str) -> str:
    return word.strip().lstrip("#").casefold().replace("-", "").replace("_", "")


#: Every tag (folded) → its benchmark; two benchmarks never share a tag.
_BY_TAG: dict[str, Benchmark] = {}
for _benchmark in _BENCHMARKS.values():
    for _tag in _benchmark.tags:
        if _BY_TAG.setdefault(_folded(_tag), _benchmark) is not _benchmark:
            raise RuntimeError(f"tag {_tag!r} names two benchmarks")


def names() -> tuple[str, ...]:
    return tuple(_BENCHMARKS)


def all_benchmarks() -> tuple[Benchmark, ...]:
    return tuple(_BENCHMARKS.values())


def recognising(text: str) -> Benchmark | None:
    """The benchmark that reads ``text`` (tag lines blanked) when no tag names one: of
    those that recognise it, the lowest :attr:`Benchmark.recognise_order`; None when
    no benchmark can read a line of it."""
    for benchmark in sorted(_BENCHMARKS.values(), key=lambda b: b.recognise_order):
        if benchmark.recognises(text):
            return benchmark
    return None


def get(name: str) -> Benchmark:
    """Look a benchmark up by name or tag (case-insensitive; ``#``, ``-``, ``_`` ignored)."""
    try:
        return _BY_TAG[_folded(name)]
    except KeyError:
        raise UnknownBenchmark(name, names()) from None

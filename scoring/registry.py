"""Benchmarks by name. Adding a benchmark is one module (or package) plus one line here.

A benchmark's module is imported when it is first asked for by its name: scoring a
PrimeBench file loads neither ZeroBench nor Natory. Asking by another tag, or for all
benchmarks, imports them all (a tag is the benchmark's to say).
"""

from __future__ import annotations

import functools
from importlib import import_module
from typing import cast

from .base import Benchmark
from .errors import UnknownBenchmark

#: The benchmark modules, in the order the bot lists them; the first is the default.
#: Each exposes ``BENCHMARK``, an object satisfying :class:`Benchmark` whose ``name``
#: is the module's name.
_MODULES = ("primebench", "zerobench", "natory")

#: The benchmark used when none is named.
DEFAULT = _MODULES[0]

_loaded: dict[str, Benchmark] = {}
#: Every tag (folded) → its benchmark, once all are loaded; two never share a tag.
_by_tag: dict[str, Benchmark] = {}


def _folded(word: str) -> str:
    return word.strip().lstrip("#").casefold().replace("-", "").replace("_", "")


def _load(module: str) -> Benchmark:
    benchmark = _loaded.get(module)
    if benchmark is None:
        found = import_module(f".{module}", __package__).BENCHMARK
        benchmark = _loaded[module] = cast(Benchmark, found)
    return benchmark


def _tags() -> dict[str, Benchmark]:
    if not _by_tag:
        tags: dict[str, Benchmark] = {}
        for benchmark in map(_load, _MODULES):
            for tag in benchmark.tags:
                if tags.setdefault(_folded(tag), benchmark) is not benchmark:
                    raise RuntimeError(f"tag {tag!r} names two benchmarks")
        _by_tag.update(tags)
    return _by_tag


def names() -> tuple[str, ...]:
    return _MODULES


@functools.cache
def all_benchmarks() -> tuple[Benchmark, ...]:
    return tuple(map(_load, _MODULES))


@functools.cache
def _in_recognise_order() -> tuple[Benchmark, ...]:
    return tuple(sorted(all_benchmarks(), key=lambda b: b.recognise_order))


def recognising(text: str) -> Benchmark | None:
    """The benchmark that reads ``text`` (tag lines blanked) when no tag names one: of
    those that recognise it, the lowest :attr:`Benchmark.recognise_order`; None when
    no benchmark can read a line of it."""
    for benchmark in _in_recognise_order():
        if benchmark.recognises(text):
            return benchmark
    return None


def find(name: str) -> Benchmark | None:
    """:func:`get`, or None for a name or tag of no benchmark (nothing raised)."""
    folded = _folded(name)
    if folded in _MODULES:
        return _load(folded)
    return _tags().get(folded)


def get(name: str) -> Benchmark:
    """Look a benchmark up by name or tag (case-insensitive; ``#``, ``-``, ``_`` ignored)."""
    folded = _folded(name)
    if folded in _MODULES:
        return _load(folded)
    try:
        return _tags()[folded]
    except KeyError:
        raise UnknownBenchmark(name, names()) from None

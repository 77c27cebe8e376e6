"""Benchmarks by name. Adding a benchmark is one module (or package) plus one line here,
or, for a multiple-choice one, a definition registered at run time (:func:`register`:
``scoring.choice``, from the database).

A benchmark's module is imported when it is first asked for by its name: scoring a
PrimeBench file loads neither ZeroBench nor Natory. Asking by another tag, or for all
benchmarks, imports them all (a tag is the benchmark's to say). Registered benchmarks
come after the modules' in every listing; :func:`generation` counts the changes, for
whoever remembers what a name meant.
"""

from __future__ import annotations

import functools
import unicodedata
from importlib import import_module
from typing import cast

from .base import Benchmark
from .errors import DefinitionError, UnknownBenchmark, UnknownMode

#: The benchmark modules, in the order the bot lists them; the first is the default.
#: Each exposes ``BENCHMARK``, an object satisfying :class:`Benchmark` whose ``name``
#: is the module's name.
_MODULES = ("primebench", "zerobench", "natory")

#: The benchmark used when none is named.
DEFAULT = _MODULES[0]

_loaded: dict[str, Benchmark] = {}
#: Every tag (folded) → its benchmark, once all are loaded; two never share a tag.
_by_tag: dict[str, Benchmark] = {}
#: The benchmarks registered at run time (defined by data), by name, in order.
_defined: dict[str, Benchmark] = {}
_generation = [0]


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
        for benchmark in (*map(_load, _MODULES), *_defined.values()):
            for tag in benchmark.tags:
                if tags.setdefault(_folded(tag), benchmark) is not benchmark:
                    raise RuntimeError(f"tag {tag!r} names two benchmarks")
        _by_tag.update(tags)
    return _by_tag


def names() -> tuple[str, ...]:
    return (*_MODULES, *_defined) if _defined else _MODULES


@functools.cache
def all_benchmarks() -> tuple[Benchmark, ...]:
    return (*map(_load, _MODULES), *_defined.values())


def check(benchmark: Benchmark) -> None:
    """Refuse (:class:`DefinitionError` on ``name``) a benchmark to register whose name
    or a tag is a module benchmark's name or tag, another registered benchmark's tag,
    or a mode's word (``#think``). A registered benchmark of the same name is replaced."""
    for tag in benchmark.tags:
        folded = _folded(tag)
        if folded in _MODULES:
            raise DefinitionError("name", f"{tag!r} is taken by a built-in benchmark")
        taken = _tags().get(folded)
        if taken is not None and taken.name != benchmark.name:
            raise DefinitionError("name", f"{tag!r} is taken by {taken.title} (#{taken.name})")
        from .modes import parse_mode  # here: scoring a file needs no mode

        try:
            parse_mode(folded)
        except UnknownMode:
            continue
        raise DefinitionError("name", f"{tag!r} is a mode's tag (#{tag} names a mode)")


#: Letters of other scripts that are drawn as Latin ones (Cyrillic, Greek), and the
#: digits drawn as letters: a title spelled with them reads as one spelled without.
#: Mapped before case is folded (Greek ``Η`` is drawn as ``H``, its ``η`` as ``n``).
_LOOKALIKES = str.maketrans(
    "АВЕКМНОРСТХУЅІЈаеорсухѕіјԁԛԝһүɡΑΒΕΖΗΙΚΜΝΟΡΤΥΧαβεηικνορτυχ01",
    "ABEKMHOPCTXYSIJaeopcyxsijdqwhygABEZHIKMNOPTYXabenikvoptuxol",
)


def _skeleton(text: str) -> str:
    """How a title reads: compatibility forms folded (full-width letters), lookalike
    letters as the Latin ones, case folded, only letters and digits kept."""
    folded = unicodedata.normalize("NFKC", text).translate(_LOOKALIKES).casefold()
    return "".join(c for c in folded if c.isalnum())


def title_taken(benchmark: Benchmark) -> Benchmark | None:
    """Another benchmark whose title or name ``benchmark``'s title reads as (ignoring
    case, spaces and punctuation, and letters of other scripts drawn alike): a title
    names a benchmark on its cards, boards and pages, where its tag is not shown."""
    mine = _skeleton(benchmark.title)
    for other in all_benchmarks():
        if other.name != benchmark.name and mine in (_skeleton(other.title), _skeleton(other.name)):
            return other
    return None


def register(benchmark: Benchmark) -> None:
    """Add a benchmark defined at run time, or replace the registered one of its name
    (checked first: :func:`check`)."""
    check(benchmark)
    _defined[benchmark.name] = benchmark
    _changed()


def unregister(name: str) -> None:
    """Forget a benchmark registered at run time (nothing for another name)."""
    if _defined.pop(_folded(name), None) is not None:
        _changed()


def adopt(benchmarks: tuple[Benchmark, ...]) -> None:
    """Make ``benchmarks`` the registered ones (another process's :func:`defined`,
    already checked there): what a worker process is told."""
    if tuple(_defined.values()) != benchmarks:
        _defined.clear()
        _defined.update((b.name, b) for b in benchmarks)
        _changed()


def defined() -> tuple[Benchmark, ...]:
    """The benchmarks registered at run time, in order."""
    return tuple(_defined.values())


def generation() -> int:
    """How many times the registered benchmarks changed (in this process)."""
    return _generation[0]


def _changed() -> None:
    _by_tag.clear()
    all_benchmarks.cache_clear()
    _in_recognise_order.cache_clear()
    _generation[0] += 1


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
    if folded in _defined:
        return _defined[folded]
    return _tags().get(folded)


def get(name: str) -> Benchmark:
    """Look a benchmark up by name or tag (case-insensitive; ``#``, ``-``, ``_`` ignored)."""
    folded = _folded(name)
    if folded in _MODULES:
        return _load(folded)
    if folded in _defined:
        return _defined[folded]
    try:
        return _tags()[folded]
    except KeyError:
        raise UnknownBenchmark(name, names()) from None

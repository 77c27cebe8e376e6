"""The small interface every benchmark module implements, and the shared result parts.

A benchmark module exposes one object satisfying :class:`Benchmark`. Scoring is pure:
``score(text, key)`` takes already-decoded text and an already-loaded key and returns a
frozen result. Loading bytes (keys, submissions) is separate from scoring, and no
function here touches the network, a database or Telegram.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

#: How many invalid lines a result keeps with their text. The total is always counted
#: (``invalid_line_count``); a hostile 20 MB file of prose must not cost gigabytes.
MAX_REPORTED_INVALID_LINES = 10_000


@dataclass(frozen=True, slots=True)
class InvalidLine:
    """A line (or row) of a submission that could not be read. ``line`` counts from 1."""

    line: int
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "text": self.text}


@dataclass(frozen=True, slots=True)
class Hint:
    """Advice that never changes the score.

    ``code`` is stable (the bot translates it), ``lines`` are the line numbers it is
    about, ``message`` is the English text (what the CLI prints).
    """

    code: str
    message: str
    lines: tuple[int, ...] = ()

    def __str__(self) -> str:
        return self.message


@runtime_checkable
class Result(Protocol):
    """What every benchmark's ``score`` returns (a frozen dataclass)."""

    @property
    def benchmark(self) -> str: ...

    @property
    def primary(self) -> float:
        """The figure a leaderboard ranks by (higher is better)."""
        ...

    @property
    def invalid_lines(self) -> tuple[InvalidLine, ...]: ...

    @property
    def invalid_line_count(self) -> int: ...

    @property
    def hints(self) -> tuple[Hint, ...]: ...

    @property
    def fingerprint(self) -> str:
        """A digest of the normalised answers: equal answers give equal fingerprints."""
        ...

    def summary_fields(self) -> tuple[tuple[str, str], ...]:
        """The breakdown a person reads, as (field key, value text) pairs in order.

        Field keys are stable identifiers (``final_score``); the bot and the CLI turn
        them into labels in the reader's language.
        """
        ...

    def to_json(self) -> dict[str, Any]:
        """The machine-readable breakdown (what ``benchboard score --json`` prints)."""
        ...

    def to_record(self) -> dict[str, Any]:
        """JSON-able data that ``Benchmark.result_from_record`` turns back into the result."""
        ...


class Benchmark(Protocol):
    """One benchmark: its name, its key format and its scorer."""

    #: registry name, lower case (``primebench``)
    name: str
    #: display name (``PrimeBench``)
    title: str
    #: recorded with every stored result, bumped when scoring changes
    scorer_version: str
    #: a line crediting the benchmark's authors, or ""
    credit: str

    def load_key(self, data: bytes, *, filename: str = "") -> Any:
        """Parse an answer key from bytes; raise :class:`scoring.errors.KeyFormatError`."""
        ...

    def score(self, text: str, key: Any, *, options: Mapping[str, Any] | None = None) -> Result:
        """Score decoded submission text against a loaded key. Never raises on any text."""
        ...

    def result_from_record(self, data: Mapping[str, Any]) -> Result:
        """Rebuild a result from ``to_record()`` output (what storage keeps)."""
        ...

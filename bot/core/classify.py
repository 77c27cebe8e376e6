"""What a message is: a submission of which benchmark, or not one. Pure functions.

An explicit benchmark tag wins (``#NAME``, ``benchmark: NAME``, the word after
``/score``), then what the handler knows (a reply to a challenge's message is of that
challenge's benchmark).
Without either, each benchmark is asked whether it can read a line of the text
(:func:`scoring.registry.recognising`, by ``Benchmark.recognise_order``: records of a
file format first, then answer lines and their near misses, then a challenge's answer
for the day's or the named target). A text none of them can read
is not a submission: nothing is scored or stored.

:func:`read` is what the worker process runs for a large input (scanning 20 MB for tag
lines and answers takes a fraction of a second), so it returns where the tag lines are
rather than the blanked text: the caller blanks them (:func:`bot.core.tags.blank`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scoring import ScoringError, UnknownBenchmark, UnknownMode, registry
from scoring.base import N_

from .tags import Spans, TagError, Tags, blank, find_tags


@dataclass(frozen=True, slots=True)
class Reading:
    """What a text is. ``benchmark`` is None when it is not a submission; ``detected``
    says the benchmark was chosen from the content (no tag named it); ``error`` is a
    bad tag's message (in English), ``refusal`` the same as a catalogue key and its values
    (then nothing else is set; plain data: a reading crosses processes)."""

    spans: Spans = ()
    tags: Tags = field(default_factory=Tags)
    benchmark: str | None = None
    detected: bool = False
    error: str | None = None
    refusal: tuple[str, tuple[tuple[str, str], ...]] | None = None


def _refusal(exc: Exception) -> tuple[str, tuple[tuple[str, str], ...]]:
    """A bad tag's refusal as the reader's language tells it: what was not known, and
    what is valid."""
    if isinstance(exc, TagError):
        return N_("unknown_tag"), (("tag", exc.tag), ("modes", exc.modes),
                                   ("benchmarks", exc.benchmarks))  # fmt: skip
    if isinstance(exc, UnknownBenchmark):
        return N_("unknown_benchmark_tag"), (("name", exc.name), ("valid", ", ".join(exc.valid)))
    if isinstance(exc, UnknownMode):
        return N_("unknown_mode_tag"), (("name", exc.text), ("valid", ", ".join(exc.valid)))
    return N_("bad_tag"), (("reason", str(exc)),)


def read(text: str, command_args: str = "", benchmark_hint: str | None = None) -> Reading:
    """Read the tags of ``text`` (line breaks already ``\\n``) and decide its benchmark.
    Never raises for what a user wrote: a bad tag comes back as ``error``."""
    try:
        spans, tags = find_tags(text, command_args)
    except (ScoringError, ValueError) as exc:
        return Reading(error=str(exc), refusal=_refusal(exc))
    if tags.benchmark or benchmark_hint:
        return Reading(spans, tags, tags.benchmark or benchmark_hint)
    body = text
    if spans:
        body = blank(text, spans)
    found = registry.recognising(body)
    return Reading(spans, tags, found.name if found else None, detected=True)

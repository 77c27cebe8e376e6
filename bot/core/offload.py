"""Heavy work off the event loop: decoding, scoring and compressing a large input run in
the worker process (a process, so pure-Python scoring never holds the event loop's GIL).

The functions here are what the worker runs; they import scoring and storage's value
helpers only, so the worker starts quickly. :meth:`bot.core.services.Services.offload`
submits them, starting the worker on first need.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scoring import Result, decode, registry
from scoring.text import normalise_newlines
from storage import compress_raw

from .classify import Reading, read

#: Inputs of at least this many bytes (or characters) are worked on in the worker.
OFFLOAD_BYTES = 64 * 1024


def decode_job(data: bytes | bytearray) -> str:
    """An upload's text, line breaks made ``\\n`` (as the tag reader would)."""
    return normalise_newlines(decode(bytes(data) if isinstance(data, bytearray) else data))


def read_job(text: str, command_args: str, benchmark_hint: str | None) -> Reading:
    """What a large text is (its tag lines and benchmark), without sending it back."""
    return read(text, command_args, benchmark_hint)


def score_job(name: str, text: str, key: Any, options: Mapping[str, Any]) -> tuple[Result, bytes]:
    """Score ``text`` and compress it as the store keeps it (so neither happens on the
    event loop)."""
    result = registry.get(name).score(text, key, options=options)
    return result, compress_raw(text)

"""The input of ``benchboard score`` (and the files of ``data load``): a submission read
from a file or stdin (a device refused, binary data refused at its first NUL byte), the
benchmark it is found to be as the bot reads a message or the one named, its tag lines'
fields, and the key from a file or the database.

:mod:`bot.cli` scores what this reads and prints it. Loaded by every ``score`` run:
what it imports is what a short run pays for (``tests/cli/test_imports.py``).
"""

from __future__ import annotations

import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from scoring import Benchmark, DecodeError, ScoringError, decode, registry
from scoring.text import BINARY, UTF16_BOMS

from .cli_common import Load, fail, has_database, read_defined

if TYPE_CHECKING:
    import argparse

    from .settings import Settings


#: Bytes of a submission read at a time: a NUL byte in one ends the reading.
_CHUNK = 1 << 22


def _text_bytes(stream: BinaryIO) -> bytes:
    """A submission's bytes, refused at the first chunk holding a NUL character, which
    text never holds: a binary or sparse file of a gigabyte is refused after its first
    megabytes, not read whole into memory first. (UTF-16 text, after its byte order
    mark, holds NUL bytes but no four in a row: those hold a NUL character.)"""
    chunks: list[bytes] = []
    nul = b"\x00"
    while chunk := stream.read(_CHUNK):
        if not chunks and chunk[:2] in UTF16_BOMS:
            nul = b"\x00" * 4
        if nul in chunk:
            if not chunks:
                decode(chunk)  # raises, saying why
            raise DecodeError(BINARY)
        chunks.append(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def read_input(source: str) -> bytes:
    """The bytes of ``source`` (a file, ``-`` stdin), which are text: the reading stops
    at a NUL byte."""
    if source == "-":
        if sys.stdin is None:  # started with stdin closed (<&-)
            fail("- reads stdin, and stdin is closed")
        return _text_bytes(sys.stdin.buffer)
    path = Path(source)
    try:
        kind = path.stat().st_mode
        if not (stat.S_ISREG(kind) or stat.S_ISFIFO(kind) or stat.S_ISDIR(kind)):
            # /dev/zero would be read until memory runs out
            fail(f"{source} is a device, not a file")
        with path.open("rb") as f:
            return _text_bytes(f)
    except FileNotFoundError:
        fail(f"no such file: {source}")
    except IsADirectoryError:
        fail(f"{source} is a directory, not a file")
    except OSError as exc:
        fail(f"cannot read {source}: {exc.strerror}")


def key_bytes(source: str) -> bytes:
    """A key's (or a question file's) bytes, which are text: refused, naming the file,
    at a NUL byte (a sparse file of a gigabyte is not read whole)."""
    try:
        return read_input(source)
    except DecodeError as exc:
        fail(f"bad file {source}: {exc}")


def _stored_key(benchmark: Benchmark, settings: Settings) -> tuple[bytes, str] | None:
    """The benchmark's current key from the database (after importing a key file newly
    placed in the data folder), and a name for it; None when there is none. A missing
    database is not created for nothing."""
    import asyncio

    from .core import datafiles, keys
    from .core.services import opened

    placed = datafiles.read_key_file(settings.data_dir, benchmark)
    if placed is None and not has_database(settings):
        return None

    async def read() -> tuple[bytes, str] | None:
        async with opened(settings) as services:
            await keys.import_placed(services, benchmark)
            found = await keys.current(services, benchmark)
        if found is None:
            return None
        data, version = found
        return data, f"{benchmark.name} key version {version.version}"

    return asyncio.run(read())


def load_key(benchmark: Benchmark, key_arg: str | None, load: Load) -> Any:
    if key_arg is not None:
        data = key_bytes(key_arg)
        source, filename = key_arg, Path(key_arg).name
    else:
        settings = load()
        stored = _stored_key(benchmark, settings)
        if stored is None:
            fail(
                f"no {benchmark.title} key loaded in {settings.db_label}: pass --key FILE, or run "
                f"'benchboard data fetch {benchmark.name}' or "
                f"'benchboard data load {benchmark.name} --key FILE'"
            )
        (data, source), filename = stored, ""
    try:
        return benchmark.load_key(data, filename=filename)
    except ScoringError as exc:
        fail(f"bad key {source}: {exc}")


def daily_text(source: str) -> str:
    """A daily benchmark's argument: a file if one exists, ``-`` stdin, anything else
    the expression itself."""
    return decode(read_input(source)) if source == "-" or _is_file(source) else source


def _is_file(source: str) -> bool:
    try:
        return Path(source).is_file()
    except (OSError, ValueError):  # a name too long, a NUL byte: an expression, not a path
        return False


def detected(args: argparse.Namespace, load: Load) -> tuple[Benchmark, str, str, Mapping[str, str]]:
    """The benchmark of the input when ``--benchmark`` is absent, read as the bot reads
    a message (:func:`bot.core.classify.read`: a tag in the file names it, else the
    first benchmark that recognises a line of it; ``--target`` names the benchmark
    that takes one), the text the bot would score (its tag lines blanked), the line
    that says which (for stderr, once the key is loaded: ``--json`` stays clean, a
    refusal stays one line), and the tag lines' fields (``k: 3``, ``target: 13``).
    Refuses an input no benchmark reads."""
    from scoring.text import normalise_line_ends

    from .core.classify import read
    from .core.tags import blank

    targeted = [b for b in registry.all_benchmarks() if "target" in b.tag_fields]
    hint = targeted[0].name if args.target is not None and len(targeted) == 1 else None
    source: str = args.file
    text = daily_text(source) if hint is not None else decode(read_input(source))
    text = normalise_line_ends(text)
    reading = read(text, benchmark_hint=hint)
    if reading.error is not None and not registry.defined():  # a tag of one defined by data?
        read_defined(load)
        reading = read(text, benchmark_hint=hint)
    shown = "stdin" if source == "-" else source
    if reading.error is not None:
        fail(f"{shown}: {reading.error} (or choose the benchmark with --benchmark NAME)")
    if reading.benchmark is None:
        fail(
            f"{shown}: no benchmark reads it (none of "
            f"{', '.join(b.title for b in registry.all_benchmarks())} recognises a line of it); "
            f"choose one with --benchmark {'|'.join(registry.names())}"
        )
    benchmark = registry.get(reading.benchmark)
    if reading.detected:
        why = "recognised from its content"
    elif reading.tags.benchmark:
        why = "named by a tag in it"
    else:
        why = "--target given"
    note = f"benchboard: scoring {shown} as {benchmark.title} ({why}; "
    note += "--benchmark NAME chooses another)"
    text = blank(text, reading.spans) if reading.spans else text
    return benchmark, text, note, reading.tags.fields


#: The start of a line that may be a tag line: a tag line starts (after blanks) with
#: ``#``, a bullet, emphasis or a field's name, never with a digit or a JSON record's
#: bracket. (Searched for after a line break, not with ``^``: many times faster.)
_MAYBE_TAG = r"[^\S\n]*+[^\s0-9{\[\"]"


def given(args: argparse.Namespace, benchmark: Benchmark) -> tuple[str, Mapping[str, str]]:
    """The input of ``--benchmark``: the text with its tag lines blanked and their
    fields, as the bot reads a message of that benchmark (``model: …`` or ``#think`` is
    no invalid line, ``target: 13`` applies). A tag the bot would refuse is left a line
    of the text: the benchmark is named, so nothing is refused for it."""
    import re

    source: str = args.file
    text = daily_text(source) if benchmark.daily else decode(read_input(source))
    if re.match(_MAYBE_TAG, text) is None and re.search("\n" + _MAYBE_TAG, text) is None:
        return text, {}  # answer lines and records only: the tag reader is not loaded
    from scoring.text import normalise_line_ends

    from .core.tags import blank, find_tags

    text = normalise_line_ends(text)
    try:
        spans, tags = find_tags(text)
    except (ScoringError, ValueError):
        return text, {}
    return (blank(text, spans) if spans else text), tags.fields

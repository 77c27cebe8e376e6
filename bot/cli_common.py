"""What the ``benchboard`` commands share (bot.cli and bot.cli_ops): bad input as one
line and exit code 2, the settings read when a command first asks, and JSON written
for a reader."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from scoring import Benchmark

    from .settings import Settings

EXIT_BAD_INPUT = 2

#: Settings, read (with pydantic) the first time a command asks for them.
Load = Callable[[], "Settings"]


class CliError(Exception):
    """Bad input: printed as one line on stderr, exit code 2."""


def fail(message: str) -> NoReturn:
    raise CliError(message)


def whole(text: str) -> int:
    """An option's whole number of 1 or more (argparse's ``type``)."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of 1 or more: {text!r}")
    return value


def seconds(text: str) -> float:
    """An option's number of seconds, 0 or more (argparse's ``type``)."""
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, 0 or more: {text!r}")
    return value


def has_database(settings: Settings) -> bool:
    """Whether there is a database to read (a missing file is not created for nothing)."""
    return settings.db_url is not None or settings.db_path.is_file()


def read_defined(load: Load) -> None:
    """Register the benchmarks defined in the database (``benchmark add``), if there is
    one: asked for a name (or a tag) none of the built-in benchmarks has."""
    import asyncio

    from .core.services import opened

    settings = load()
    if not has_database(settings):
        return

    async def read() -> None:
        async with opened(settings):  # registers them
            pass

    asyncio.run(read())


def find_benchmark(name: str, load: Load) -> Benchmark:
    """The benchmark ``name`` names, the database's definitions read first when it is
    none of the built-in ones; UnknownBenchmark for none."""
    from scoring import registry

    if registry.find(name) is None:
        read_defined(load)
    return registry.get(name)


def utf8_output() -> bool:
    """Whether stdout writes UTF-8. Where it does not (a Latin-1 or ASCII locale, a
    Windows code page), JSON is written in ASCII with ``\\u`` escapes: valid JSON all the
    same, where a Persian line would stop the command with a traceback."""
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("_", "-")
    return encoding in ("utf-8", "utf8")


def plain_streams() -> None:
    """stdout and stderr that cannot encode every character write what they cannot
    as ``\\u`` escapes (``\\u06f1:\\u06f3``), never ending the command with a
    UnicodeEncodeError."""
    if utf8_output():
        return
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def json_lines(value: Any) -> Iterator[str]:
    """``value`` as JSON indented by two spaces, except that a list of plain values
    (a result's line numbers, question ids) takes one line. Such lists and every plain
    value are written by the json module's C encoder, which ``indent`` would forgo for
    its Python one: on a result with thousands of hinted lines that took longer than
    reading the key."""
    import json

    dumps = json.JSONEncoder(ensure_ascii=not utf8_output()).encode

    def lines(value: Any, pad: str) -> Iterator[str]:
        inner = pad + "  "
        if isinstance(value, dict) and value:
            yield "{"
            for i, (name, item) in enumerate(value.items()):
                yield f"{',' if i else ''}\n{inner}{dumps(str(name))}: "
                yield from lines(item, inner)
            yield f"\n{pad}}}"
        elif isinstance(value, list | tuple) and any(
            isinstance(item, dict | list | tuple) for item in value
        ):
            yield "["
            for i, item in enumerate(value):
                yield f"{',' if i else ''}\n{inner}"
                yield from lines(item, inner)
            yield f"\n{pad}]"
        else:
            yield dumps(value)

    return lines(value, "")

"""What the ``benchboard`` commands share (bot.cli and bot.cli_ops): bad input as one
line and exit code 2, and the settings read when a command first asks."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn

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

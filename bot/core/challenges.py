"""Daily challenges: the benchmarks whose :attr:`~scoring.base.Benchmark.challenge` sets
a target each day, with its own command, boards and comparison chart (not a friend's
challenge link: :mod:`bot.core.sharing`).

Everything here asks the benchmark's :class:`~scoring.base.ChallengeSpec`; nothing names
one. The day's target is an admin's choice for that day (kept in the data folder, in
``<benchmark>/targets.json``: ``{"2026-11-29": 6256}``), else the one the spec draws
from the date and the bot's seed. With several instances on PostgreSQL, each with a
data folder of its own, an admin's choice is also kept in the database and announced:
every instance writes it into its own folder (:func:`follow`), so a user gets the same
target whichever instance answers. The store is told at start which benchmarks have a
challenge and where their results keep its fields (:func:`declare`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from scoring import Benchmark, ChallengeKey, ChallengeSpec, KeyFormatError, registry
from storage import ChallengeFields, Store, analytics, web_rows
from storage.analytics import ChallengeBoard as ChallengeBoard

from .datafiles import DataError, write_atomic
from .errors import UserError

if TYPE_CHECKING:
    from ..settings import Settings
    from .services import Services

log = logging.getLogger("benchboard.challenges")

#: The ``shared_state`` kind (and announced topic) of an admin's chosen targets, keyed
#: ``<benchmark>:<YYYY-MM-DD>``.
CHOSEN = "challenge_target"

#: Rows of a challenge board.
BOARD_ROWS = 15
#: How many models a comparison chart shows at most (the best by mean score).
CHART_MODELS = 40


def benchmarks() -> tuple[Benchmark, ...]:
    """The registry's benchmarks that have a challenge, in its order."""
    return tuple(b for b in registry.all_benchmarks() if b.challenge is not None)


def spec(benchmark: Benchmark) -> ChallengeSpec:
    """The benchmark's challenge (a caller asks only of a challenge benchmark)."""
    if benchmark.challenge is None:
        raise ValueError(f"{benchmark.name} has no challenge")
    return benchmark.challenge


def by_command(word: str) -> Benchmark | None:
    """The challenge benchmark whose command is ``word`` (any case), or None."""
    folded = word.casefold()
    return next((b for b in benchmarks() if spec(b).command == folded), None)


def compared(args: Sequence[str]) -> Benchmark | None:
    """``/compare [benchmark]``: the challenge benchmark whose comparison chart the words
    ask for (none: the first), or None when they name no challenge benchmark."""
    if len(args) > 1:
        return None
    if not args:
        return next(iter(benchmarks()), None)
    found = by_command(args[0]) or registry.find(args[0])  # its command word, or a tag
    return found if found is not None and found.challenge is not None else None


def fields(benchmark: Benchmark) -> ChallengeFields:
    """Where the benchmark's stored results keep what its boards read (for the store)."""
    c = spec(benchmark)
    return ChallengeFields(
        c.target_field, c.shown_field, c.valid_field, c.trivial, c.cost_option, c.latency_option
    )


async def declare(store: Store) -> None:
    """Tell the store which benchmarks have a challenge (at start; cheap when unchanged)."""
    await store.declare_challenges({b.name: fields(b) for b in benchmarks()})


# --- the day's target --------------------------------------------------------------------


def _targets_file(data_dir: Path, benchmark: Benchmark) -> Path:
    return data_dir / benchmark.name / "targets.json"


def _chosen(data_dir: Path, benchmark: Benchmark) -> dict[str, int]:
    """The targets admins chose, by day (ISO date)."""
    try:
        data = json.loads(_targets_file(data_dir, benchmark).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, int) and v > 0}


def of_day(data_dir: Path, benchmark: Benchmark, day: date, seed: str) -> ChallengeKey:
    """The challenge of ``day``: an admin's choice for that day, else the seeded one
    (the same for every user and group)."""
    return spec(benchmark).today(day, seed, _chosen(data_dir, benchmark).get(day.isoformat()))


def today(settings: Settings, benchmark: Benchmark, day: date | None = None) -> ChallengeKey:
    """The challenge of ``day`` (default: today, UTC) for this bot's data folder and
    seed: what the challenge command shows, what a submission without a target is
    scored against, and what ``benchboard <command> today`` prints."""
    return of_day(
        settings.data_dir, benchmark, day or datetime.now(UTC).date(), settings.challenge_seed
    )


def set_target(data_dir: Path, benchmark: Benchmark, day: date, target: str) -> ChallengeKey:
    """Choose the target of ``day`` (validated like any target); kept in the data folder."""
    try:
        challenge = spec(benchmark).parse(target)
    except KeyFormatError as exc:
        raise DataError(str(exc)) from None
    choices = _chosen(data_dir, benchmark)
    choices[day.isoformat()] = challenge.target
    data = json.dumps(choices, indent=2, sort_keys=True).encode()
    write_atomic(_targets_file(data_dir, benchmark), data)
    return challenge


async def choose(services: Services, benchmark: Benchmark, day: date, target: str) -> ChallengeKey:
    """An admin's target of ``day`` (:func:`set_target`); with other instances on the
    database, kept there and announced, for each of them to use too."""
    challenge = set_target(services.settings.data_dir, benchmark, day, target)
    if services.store.shared:
        key = f"{benchmark.name}:{day.isoformat()}"
        await services.store.keep_choice(CHOSEN, key, challenge.target)
        await services.announce(CHOSEN)
    return challenge


async def follow(services: Services) -> None:
    """With other instances on the database: write the targets admins chose through any
    of them into this instance's data folder, now and whenever one announces a choice
    (or, after a lost connection, anything may have changed)."""
    if not services.store.shared:
        return
    from .services import read_until_answered  # (services imports this module)

    def heard(topic: str) -> None:
        if topic in (CHOSEN, ""):
            services.spawn(read_until_answered(lambda: sync_chosen(services), "the chosen targets"))

    services.listeners[CHOSEN] = heard
    await sync_chosen(services)


async def sync_chosen(services: Services) -> None:
    """The targets kept in the database, written into this instance's data folder (the
    database's win over the folder's for the same day)."""
    kept = await services.store.choices(CHOSEN)
    data_dir = services.settings.data_dir
    for benchmark in benchmarks():
        mine = {}
        for key, chosen in kept.items():
            name, _, day = key.rpartition(":")
            if name == benchmark.name and chosen > 0:
                mine[day] = chosen
        choices = _chosen(data_dir, benchmark)
        if all(choices.get(day) == chosen for day, chosen in mine.items()):
            continue
        choices.update(mine)
        data = json.dumps(choices, indent=2, sort_keys=True).encode()
        write_atomic(_targets_file(data_dir, benchmark), data)


def target(benchmark: Benchmark, word: str) -> int:
    """A target typed by a user (``/<command> N``, ``/leaderboard <command> N``)."""
    try:
        return spec(benchmark).parse(word).target
    except KeyFormatError:
        raise UserError(
            "daily_bad_target", word=word[:40], command=spec(benchmark).command
        ) from None


# --- boards ----------------------------------------------------------------------------


async def previous(
    store: Store, benchmark: Benchmark, target: int, *, before_id: int | None = None
) -> tuple[str, ...]:
    """The shown answers already stored for ``target``, oldest first (what the scorer's
    :attr:`~scoring.base.ChallengeSpec.previous_option` takes)."""
    return await analytics.challenge_previous(
        store, benchmark.name, fields(benchmark), target, before_id=before_id
    )


async def board(
    services: Services, benchmark: Benchmark, target: int | None, *, limit: int = BOARD_ROWS
) -> tuple[ChallengeBoard, tuple[tuple[int, int], ...]]:
    """One target's board (``target``), or every target's per model (None) with the
    recent targets and their attempt counts."""
    store, where = services.store, fields(benchmark)
    found = await analytics.challenge_board(
        store, benchmark.name, where, target=target, limit=limit
    )
    targets = () if target is not None else (
        await analytics.challenge_targets(store, benchmark.name, where)
    )  # fmt: skip
    return found, targets


async def marks(services: Services, board: ChallengeBoard) -> dict[int, str]:
    """The mark of each row's best attempt (``benchboard``, ``verified``, ``self``), by id."""
    info = await web_rows.row_info(services.store, [r.best_id for r in board.rows])
    return {sid: found.mark for sid, found in info.items()}


async def comparison(
    services: Services, benchmark: Benchmark, limit: int = CHART_MODELS
) -> ChallengeBoard:
    """The comparison chart's rows: the best models' mean score, cost and latency, over
    valid non-trivial attempts (a model with only trivial ones is not on the chart)."""
    found = await analytics.challenge_board(
        services.store, benchmark.name, fields(benchmark), limit=limit
    )
    rows = tuple(row for row in found.rows if not row.trivial)
    return ChallengeBoard(found.target, rows, len(rows))

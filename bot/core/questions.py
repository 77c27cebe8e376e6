"""Questions of a choice benchmark: how published results answered each one, and, for
bot admins, the questions whose key the strongest results doubt.

Which benchmarks have questions is the Benchmark interface's to say
(``has_questions``, ``question_answers``). Both read bounded samples of raw inputs
(``storage.question_rows``), whatever the database holds:

- the questions page (``/b/<benchmark>/questions``): the latest :data:`SAMPLE`
  published results on the boards, each read by the scorer's rules; per question the
  share answered right, wrong and not at all (``none``). Never the key, never an
  option anyone chose. Kept in memory for :data:`TTL` seconds per benchmark and key
  version (:class:`QuestionCache`), so a page costs a render;
- the key check (``/keyinfo``): the best result of each of the top tenth of the global
  board's lines (at least :data:`MIN_STRONG`, at most :data:`MAX_STRONG`); a question
  where most of them chose one option and the key says another is listed, with the
  counts, as a possible key error for ``/setkey``.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter
from collections.abc import Callable, Sequence, Sized
from dataclasses import dataclass, field
from typing import Any, TypeVar

from scoring import Benchmark
from storage import question_rows

from ..render.views import KeyDoubt
from . import keys
from .errors import UserError
from .services import Services

T = TypeVar("T")

#: Results a questions page counts (the latest published).
SAMPLE = 2000
#: Seconds a benchmark's counts are kept.
TTL = 60.0
#: The strong results the key check reads: the top tenth of the board's lines, within
#: these bounds (fewer lines than the least: no check).
MIN_STRONG, MAX_STRONG = 5, 200
#: The share of the strong results that must agree on another option than the key's.
AGREE = 0.5
#: The longest a count may take in the worker process (seconds).
COUNT_SECONDS = 60.0
#: The answers (results × questions of the key) a count reads at most: all of
#: :data:`SAMPLE` results of a benchmark of 200 questions, fewer of a larger one (a
#: benchmark defined by data may have 100,000 questions: 4 results). 2,000 such results
#: were minutes of counting and more than a gigabyte of raw text in memory.
ANSWERS = 400_000
#: How the questions page sorts (the query's ``sort``).
SORTS = ("question", "right", "wrong", "none")


@dataclass(frozen=True, slots=True)
class QuestionShare:
    """How the counted results answered one question."""

    question: int
    right: int
    wrong: int
    none: int

    @property
    def total(self) -> int:
        return self.right + self.wrong + self.none

    def share(self, part: str) -> float:
        count = {"right": self.right, "wrong": self.wrong, "none": self.none}[part]
        return count / self.total if self.total else 0.0


@dataclass(frozen=True, slots=True)
class QuestionStats:
    """A benchmark's questions as the latest ``counted`` published results answered
    them (``questions`` in question order; empty without a key)."""

    benchmark: str
    title: str
    credit: str
    counted: int
    sample: int
    key_version: int | None
    questions: tuple[QuestionShare, ...]

    def sorted(self, sort: str, descending: bool) -> list[QuestionShare]:
        if sort == "question":
            return sorted(self.questions, key=lambda q: q.question, reverse=descending)
        return sorted(
            self.questions,
            key=lambda q: (q.share(sort), -q.question if descending else q.question),
            reverse=descending,
        )


@dataclass
class QuestionCache:
    """Counts by (benchmark, key version), each until its time; one count at a time per
    benchmark (concurrent pages wait for it)."""

    kept: dict[tuple[str, int | None], tuple[float, QuestionStats]] = field(default_factory=dict)
    keys: dict[int, Any] = field(default_factory=dict)
    pending: dict[str, asyncio.Future[QuestionStats]] = field(default_factory=dict)


def with_questions(name: str) -> Benchmark:
    """The benchmark ``name`` when it has questions; else the page is not found."""
    from scoring import registry

    if name not in registry.names():
        raise UserError("web_unknown_benchmark")
    if not registry.get(name).has_questions:
        raise UserError("web_no_questions")
    return registry.get(name)


async def _key(
    services: Services, benchmark: Benchmark, cache: QuestionCache | None
) -> tuple[Any, int | None]:
    """The benchmark's current key (parsed once per version) and its version."""
    loaded = services.keys.get(benchmark.name)
    if loaded is not None:
        return loaded.key, loaded.version.version
    stored = await keys.current(services, benchmark)
    if stored is None:
        return None, None
    data, version = stored
    parsed = cache.keys.get(version.id) if cache is not None else None
    if parsed is None:
        parsed = benchmark.load_key(data)
        if cache is not None:
            cache.keys[version.id] = parsed
    return parsed, version.version


def count(benchmark: Benchmark, key: Any, raws: Sequence[str]) -> tuple[QuestionShare, ...]:
    """Right, wrong and none per key question over ``raws`` (pure; run off the loop)."""
    right: Counter[int] = Counter()
    none: Counter[int] = Counter()
    questions: set[int] = set()
    for raw in raws:
        answers = benchmark.question_answers(raw, key) or {}
        for question, (chosen, correct) in answers.items():
            questions.add(question)
            if chosen is None:
                none[question] += 1
            elif chosen == correct:
                right[question] += 1
    total = len(raws)
    return tuple(
        QuestionShare(q, right[q], total - right[q] - none[q], none[q]) for q in sorted(questions)
    )


def bounded(key: Any, most: int, least: int = 1) -> int:
    """How many results to read with ``key``: ``most``, fewer for a key of so many
    questions that they would hold more than :data:`ANSWERS` answers (``least`` at
    fewest)."""
    size = len(key) if isinstance(key, Sized) else 0
    return most if size <= 0 else max(least, min(most, ANSWERS // size))


async def _off_the_loop(services: Services, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` (reading a few thousand raw inputs: a few hundred milliseconds of
    Python) in the worker process where the services have one, so that the web
    process's pages are not held by it; else in a thread."""
    if services.worker:
        return await services.offload(COUNT_SECONDS, fn, *args, owner="questions")
    return await asyncio.to_thread(fn, *args)


async def _stats(services: Services, benchmark: Benchmark, cache: QuestionCache) -> QuestionStats:
    key, version = await _key(services, benchmark, cache)
    shares: tuple[QuestionShare, ...] = ()
    counted, sample = 0, SAMPLE
    if key is not None:
        sample = bounded(key, SAMPLE)
        rows = await question_rows.recent_published(services.store, benchmark.name, sample)
        counted = len(rows)
        raws = [r.raw for r in rows]
        shares = await _off_the_loop(services, count, benchmark, key, raws)
    return QuestionStats(
        benchmark.name, benchmark.title, benchmark.credit, counted, sample, version, shares
    )


async def question_stats(services: Services, name: str, cache: QuestionCache) -> QuestionStats:
    """The questions page's counts for benchmark ``name`` (kept :data:`TTL` seconds)."""
    benchmark = with_questions(name)
    now = time.monotonic()
    for (kept_name, _), (until, stats) in list(cache.kept.items()):
        if kept_name == name and until > now:
            return stats
    waiting = cache.pending.get(name)
    if waiting is not None:
        return await asyncio.shield(waiting)
    future: asyncio.Future[QuestionStats] = asyncio.get_running_loop().create_future()
    cache.pending[name] = future
    try:
        stats = await _stats(services, benchmark, cache)
        future.set_result(stats)
    except BaseException as exc:
        future.set_exception(exc)
        future.exception()  # retrieved: the waiters re-raise it themselves
        raise
    finally:
        del cache.pending[name]
    for kept in [k for k in cache.kept if k[0] == name]:
        del cache.kept[kept]
    cache.kept[(name, stats.key_version)] = (time.monotonic() + TTL, stats)
    return stats


def doubts(
    benchmark: Benchmark, key: Any, raws: Sequence[str], agree: float = AGREE
) -> list[KeyDoubt]:
    """The questions where more than ``agree`` of ``raws`` chose one option and the key
    says another (pure)."""
    chosen: dict[int, Counter[int]] = {}
    keyed: dict[int, int] = {}
    for raw in raws:
        for question, (option, correct) in (benchmark.question_answers(raw, key) or {}).items():
            keyed[question] = correct
            if option is not None:
                chosen.setdefault(question, Counter())[option] += 1
    out = []
    for question in sorted(chosen):
        option, times = chosen[question].most_common(1)[0]
        if option != keyed[question] and times > agree * len(raws):
            out.append(KeyDoubt(question, keyed[question], option, times, len(raws)))
    return out


async def key_doubts(services: Services, benchmark: Benchmark) -> tuple[int, list[KeyDoubt]]:
    """For ``/keyinfo``: how many strong results were read, and the questions whose key
    most of them contradict (none when the board has fewer than :data:`MIN_STRONG`
    lines, or no key)."""
    if not benchmark.has_questions:
        return 0, []
    key, _ = await _key(services, benchmark, None)
    lines = await question_rows.board_lines(services.store, benchmark.name)
    if key is None or lines < MIN_STRONG:
        return 0, []
    strong = min(bounded(key, MAX_STRONG, MIN_STRONG), max(MIN_STRONG, math.ceil(lines / 10)))
    rows = await question_rows.strongest(services.store, benchmark.name, strong)
    found = await _off_the_loop(services, doubts, benchmark, key, [r.raw for r in rows])
    return len(rows), found

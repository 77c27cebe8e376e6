"""Inspect AI tasks for Benchboard's benchmarks (``inspect eval`` runs a model on them).

``inspect eval benchboard/NAME --model openai/gpt-4o -T questions=Q.json`` (or
``bot/evals/tasks.py@NAME``: the ``inspect`` extra registers these tasks) sends
what Benchboard itself sends when it runs the benchmark (``Benchmark.run_plan``): one
sample per call of the plan, its messages byte-exact, images included. With
``-T key=KEY`` each answer is also scored here with Benchboard's own scorer. Then
``benchboard submit logs/<run>.eval --server …`` puts each epoch on a board; the log's
samples carry what is needed to turn their answers back into the raw output
(:mod:`bot.evals.logs`).

Each benchmark of the registry is a task of its name, ``benchboard/NAME``, taking
``questions`` (the file its run sends, when it sends one), ``key`` (to score here too)
and ``target`` (a challenge's; the day's by default); ``benchboard/benchmark -T
name=NAME`` is the same by name.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import TaskState, generate

from scoring import Benchmark, registry
from scoring.runs import Call, RunMaterials, RunRefused

if TYPE_CHECKING:
    from bot.settings import Settings


def _settings() -> Settings:
    """The bot's settings (environment and ``.env``): its data folder and seed."""
    from bot.settings import load_settings

    return load_settings()


def _benchmark(name: str) -> Benchmark:
    """A benchmark of the registry, or one defined by data in the bot's database
    (``benchboard benchmark add``), read as the command line reads it."""
    if registry.find(name) is None:
        from concurrent.futures import ThreadPoolExecutor

        from bot.cli_common import read_defined

        # its own thread and event loop: Inspect may build a task inside its own loop
        with ThreadPoolExecutor(1) as pool:
            pool.submit(read_defined, _settings).result()
    return registry.get(name)


def _data_file(given: str | None, benchmark: Benchmark) -> Path | None:
    if given:
        return Path(given)
    if benchmark.run_questions_file is None:
        return None
    return _settings().data_dir / benchmark.run_questions_file


def _key(benchmark: Benchmark, key: str | None, target: int | None) -> Any:
    """The key a plan is made from: a challenge's target (the day's by default, as the
    bot has it: an admin's choice, else drawn with the bot's seed), or the key file
    given, or none."""
    challenge = benchmark.challenge
    if challenge is not None:
        if target is not None:
            return challenge.parse(str(target))
        from bot.core import challenges

        return challenges.today(_settings(), benchmark)
    if key:
        return benchmark.load_key(Path(key).read_bytes(), filename=Path(key).name)
    return None


def _message(call: Call) -> list[ChatMessageUser]:
    messages = []
    for message in call.messages:
        parts: list[ContentText | ContentImage] = [
            ContentText(text=part) if isinstance(part, str) else ContentImage(image=part.data_url())
            for part in message.parts
        ]
        messages.append(ChatMessageUser(content=parts))  # type: ignore[arg-type]
    return messages


@scorer(metrics=[mean()])
def benchboard_score(benchmark: str, key: str) -> Any:
    """Benchboard's own score of a one-call plan's answer (the ranking figure)."""
    bench = registry.get(benchmark)
    loaded = bench.load_key(Path(key).read_bytes(), filename=Path(key).name)

    async def score(state: TaskState, target: Target) -> Score:
        result = bench.score(state.output.completion, loaded)
        return Score(value=float(result.primary), answer=state.output.completion[:200])

    return score


def benchmark_task(
    name: str, questions: str | None = None, key: str | None = None, target: int | None = None
) -> Task:
    """The task of a benchmark: a sample per call of its run plan (``item``: what the
    call answers; ``options``: the scorer options the answers are scored with)."""
    bench = _benchmark(name)
    path = _data_file(questions, bench)
    loaded = _key(bench, key, target)
    materials = RunMaterials(loaded, path.read_bytes() if path and path.exists() else None)
    try:
        plan = bench.run_plan(materials)
    except RunRefused as exc:
        raise ValueError(str(exc)) from None
    samples = [
        Sample(
            input=_message(call),  # type: ignore[arg-type]
            target="",
            id=f"{bench.name}-{n}",
            metadata={"benchmark": bench.name, "item": call.item, "options": plan.options},
        )
        for n, call in enumerate(plan.calls, 1)
    ]
    one_call = len(plan.calls) == 1 and bench.challenge is None
    return Task(
        dataset=MemoryDataset(samples, name=bench.name),
        solver=generate(),
        scorer=benchboard_score(bench.name, key) if key and one_call else None,
        metadata={"benchmark": bench.name, "run_version": plan.version},
    )


def define(module: str) -> dict[str, Any]:
    """Every task, as functions of ``module``: ``benchmark`` (any benchmark by name) and
    one per benchmark of the registry, by its name. Inspect names a task after the
    top-level package of the module that defines it (``benchboard/NAME`` for
    :mod:`benchboard.tasks`, the entry point), so the functions are made as that
    module's, while it is being imported."""

    def benchmark(
        name: str, questions: str | None = None, key: str | None = None, target: int | None = None
    ) -> Task:
        """Any benchmark of the registry by name."""
        return benchmark_task(name, questions, key, target)

    def named(name: str) -> Any:
        """The task of one benchmark, registered with Inspect under its name."""

        def made(
            questions: str | None = None, key: str | None = None, target: int | None = None
        ) -> Task:
            return benchmark_task(name, questions, key, target)

        made.__name__ = made.__qualname__ = name
        made.__doc__ = f"{registry.get(name).title}, as Benchboard runs it (see the module)."
        made.__module__ = module
        return task(name=name)(made)

    benchmark.__qualname__ = "benchmark"
    benchmark.__module__ = module
    tasks = {"benchmark": task(benchmark)}
    tasks.update((b.name, named(b.name)) for b in registry.all_benchmarks())
    return tasks


# the tasks of this file (``inspect eval bot/evals/tasks.py@NAME``)
globals().update(define(__name__))

# and by the names the README gives, ``benchboard/NAME``, for an install whose entry
# point still names this module (one made before the ``benchboard`` package existed:
# an editable install made then cannot import it, and keeps the names above)
with contextlib.suppress(ImportError):
    import benchboard.tasks  # noqa: F401

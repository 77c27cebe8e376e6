"""Inspect AI tasks for Benchboard's benchmarks (``inspect eval`` runs a model on them).

``inspect eval bot/evals/tasks.py@primebench --model openai/gpt-4o -T questions=Q.json``
(or ``benchboard/primebench``: the ``inspect`` extra registers these tasks) sends the
official prompt followed by the question file, once per epoch; with ``-T key=KEY``
each answer is also scored here with Benchboard's own scorer. Then
``benchboard submit logs/<run>.eval --server …`` puts each epoch on a board.

PrimeBench is shipped: its prompt and question file are the whole input. ZeroBench
(images) and Natory (the day's target, from the bot) are not tasks yet.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import TaskState, generate

from scoring import registry


def _data_file(given: str | None, benchmark: str, name: str) -> Path:
    if given:
        return Path(given)
    return Path(os.environ.get("BENCHBOARD_DATA_DIR", "data")) / benchmark / name


@scorer(metrics=[mean()])
def benchboard_score(benchmark: str, key: str) -> Any:
    """Benchboard's own score of the completion (the ranking figure)."""
    bench = registry.get(benchmark)
    loaded = bench.load_key(Path(key).read_bytes(), filename=Path(key).name)

    async def score(state: TaskState, target: Target) -> Score:
        result = bench.score(state.output.completion, loaded)
        return Score(value=float(result.primary), answer=state.output.completion[:200])

    return score


@task
def primebench(questions: str | None = None, key: str | None = None) -> Task:
    """PrimeBench: the official prompt and the question file (``questions``: its path;
    default ``$BENCHBOARD_DATA_DIR/primebench/Q.json``)."""
    bench = registry.get("primebench")
    asked = _data_file(questions, "primebench", "Q.json").read_text(encoding="utf-8")
    sample = Sample(
        input=f"{bench.prompt.rstrip()}\n\n{asked}",
        target="",
        id="primebench",
        metadata={"benchmark": bench.name},
    )
    return Task(
        dataset=MemoryDataset([sample], name="primebench"),
        solver=generate(),
        scorer=benchboard_score(bench.name, key) if key else None,
        metadata={"benchmark": bench.name},
    )

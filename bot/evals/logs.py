"""Inspect AI logs as Benchboard submissions: one per epoch.

The log is read with Inspect's own reader (``inspect_ai.log.read_eval_log``): ``.eval``
and ``.json`` logs alike. A submission's raw output is the completion of each of the
epoch's samples (in sample order, one after the other), its model the log's model id,
its mode what the generation config asked for (reasoning: ``think``; tool calls made:
``tools``), its benchmark the samples' ``benchmark`` metadata (the shipped tasks set
it) or the task's name. Its idempotency key is the log's eval id and the epoch, so
submitting one log twice makes no second submission.
"""

from __future__ import annotations

import io
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scoring import registry
from scoring.runs import Call, RunPlan

INSTALL = "reading Inspect AI logs needs the inspect extra: pip install 'benchboard[inspect]'"


class NotInstalled(Exception):
    """inspect_ai is not installed."""


class UnreadableLog(Exception):
    """Not a log this can submit (unreadable, unfinished, without completions)."""


@dataclass(frozen=True, slots=True)
class Epoch:
    epoch: int
    output: str
    model: str
    mode: str
    benchmark: str | None
    idempotency_key: str
    #: the scorer options the run was made with (a challenge's target, k)
    options: dict[str, Any] = field(default_factory=dict)


def read(path: Path) -> list[Epoch]:
    """The submissions of a log, by epoch."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise NotInstalled(INSTALL) from None
    try:
        log = read_eval_log(str(path))
    except Exception as exc:  # Inspect's reader raises many kinds for a bad file
        raise UnreadableLog(f"not an Inspect log Inspect can read ({exc})") from None
    return _epochs(log)


def is_log(name: str, head: bytes) -> bool:
    """Whether a file is an Inspect log: a ``.eval`` file (a zip), or JSON whose start
    holds an eval spec (``eval`` and ``version``)."""
    if name.endswith(".eval") or head.startswith(b"PK\x03\x04"):
        return True
    start = head[:4096]
    return start.lstrip().startswith(b"{") and b'"eval"' in start and b'"version"' in start


async def read_bytes(data: bytes, name: str) -> list[Epoch]:
    """The submissions of a log sent as bytes (an upload), read on the caller's event
    loop with Inspect's async reader."""
    try:
        from inspect_ai.log import read_eval_log_async
    except ImportError:
        raise NotInstalled(INSTALL) from None
    zipped = name.endswith(".eval") or data.startswith(b"PK\x03\x04")
    try:
        log = await read_eval_log_async(io.BytesIO(data), format="eval" if zipped else "json")
    except Exception as exc:  # Inspect's reader raises many kinds for a bad file
        raise UnreadableLog(f"not an Inspect log Inspect can read ({exc})") from None
    return _epochs(log)


def _epochs(log: Any) -> list[Epoch]:
    if log.status != "success":
        raise UnreadableLog(f"the evaluation did not finish (status {log.status})")
    samples = list(log.samples or [])
    if not samples:
        raise UnreadableLog("the log holds no samples")
    by_epoch: dict[int, list[Any]] = defaultdict(list)
    for sample in samples:
        by_epoch[int(sample.epoch)].append(sample)
    benchmark = _benchmark(log, samples)
    mode = _mode(log, samples)
    epochs = []
    for epoch in sorted(by_epoch):
        output, options = _output(benchmark, by_epoch[epoch])
        if not output.strip():
            raise UnreadableLog(f"epoch {epoch} has no completion")
        epochs.append(
            Epoch(epoch, output, str(log.eval.model), mode, benchmark,
                  f"inspect:{log.eval.eval_id}:{epoch}", options)
        )  # fmt: skip
    return epochs


def _output(benchmark: str | None, samples: list[Any]) -> tuple[str, dict[str, Any]]:
    """An epoch's raw output and scorer options. Samples of Benchboard's tasks name the
    call they answer (``item``) and the plan's options: the benchmark turns the answers
    back into what a paste would be (``Benchmark.run_output``); other samples' answers
    are joined in order."""
    answers = [s.output.completion if s.output is not None else "" for s in samples]
    meta = [s.metadata or {} for s in samples]
    if benchmark is None or not all("item" in m for m in meta):
        return "\n".join(a for a in answers if a), {}
    plan = RunPlan("", tuple(Call((), item=str(m["item"])) for m in meta), {})
    try:
        output = registry.get(benchmark).run_output(plan, answers)
    except ValueError as exc:
        raise UnreadableLog(f"its samples do not make one run: {exc}") from None
    options = meta[0].get("options")
    return output, dict(options) if isinstance(options, dict) else {}


def _benchmark(log: Any, samples: list[Any]) -> str | None:
    for sample in samples:
        named = (sample.metadata or {}).get("benchmark")
        if isinstance(named, str) and registry.find(named) is not None:
            return registry.get(named).name
    task = str(log.eval.task).rsplit("/", 1)[-1]
    found = registry.find(task)
    return found.name if found is not None else None


def _mode(log: Any, samples: list[Any]) -> str:
    """``think`` when the generation config asked for reasoning, ``tools`` when a
    sample called a tool, both, or ``default``."""
    configs = [getattr(log.eval, "model_generate_config", None)]
    plan = getattr(log, "plan", None)
    configs.append(getattr(plan, "config", None))
    think = any(
        c is not None
        and (
            getattr(c, "reasoning_effort", None) not in (None, "none", "minimal")
            or (getattr(c, "reasoning_tokens", None) or 0) > 0
        )
        for c in configs
    )
    tools = any(getattr(m, "role", None) == "tool" for s in samples for m in (s.messages or []))
    return {(False, False): "default", (True, False): "think", (False, True): "tools",
            (True, True): "think_tools"}[(think, tools)]  # fmt: skip

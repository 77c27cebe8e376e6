"""One attempt of a run: every call of a benchmark's plan sent to a model (side by side,
within its provider's bound), the answers read back into the raw output the benchmark
scores as a paste, with tokens, cost at the file's prices, latency and the transcript."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from scoring import Benchmark
from scoring.runs import RunPlan

from .client import Answer, Clients
from .providers import ModelSpec, ProviderError

#: The version of the transcript's JSON.
TRANSCRIPT_VERSION = 1


@dataclass(frozen=True, slots=True)
class AttemptOutput:
    """What one attempt made: the raw output to score, tokens, cost in USD, latency in
    seconds (the calls' own times added up) and the transcript (JSON text). Tokens and
    cost are None when the provider did not report a call's usage: not known, never
    shown as 0."""

    output: str
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    latency_s: float
    transcript: str


def transcript(
    benchmark: Benchmark, model: ModelSpec, mode: str, plan: RunPlan, answers: list[Answer]
) -> str:
    """The exact requests and the model's answers, as JSON."""
    return json.dumps(
        {
            "transcript": TRANSCRIPT_VERSION,
            "benchmark": benchmark.name,
            "run_version": plan.version,
            "model": model.full_name,
            "mode": mode,
            "calls": [
                {
                    "item": call.item,
                    "request": answer.request,
                    "answer": answer.text,
                    "response": answer.response,
                    "latency_s": round(answer.latency_s, 3),
                    "tries": answer.tries,
                }
                for call, answer in zip(plan.calls, answers, strict=True)
            ],
        },
        ensure_ascii=False,
        indent=1,
    )


def kept_text(plan: RunPlan, answered: Mapping[int, Answer]) -> str:
    """The answers of an attempt's calls answered so far (by the plan's call index), as
    JSON, kept with the attempt when it goes back to the queue (:func:`kept_answers`)."""
    return json.dumps(
        {
            "kept": TRANSCRIPT_VERSION,
            "run_version": plan.version,
            "calls": {str(i): asdict(answer) for i, answer in sorted(answered.items())},
        },
        ensure_ascii=False,
    )


def kept_answers(text: str | None) -> dict[int, Answer]:
    """The answers :func:`kept_text` kept (none for text it did not write)."""
    try:
        kept = json.loads(text or "")
        calls = kept["calls"] if kept.get("kept") == TRANSCRIPT_VERSION else {}
        return {int(i): Answer(**fields) for i, fields in calls.items()}
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}


def _same(request: dict[str, Any], kept: Answer) -> bool:
    """Whether a kept answer answered exactly this request (as JSON: a plan or options
    changed since, say the question file, are asked again)."""
    return bool(json.loads(json.dumps(request, ensure_ascii=False)) == kept.request)


def _answered(
    reused: dict[int, Answer], tasks: dict[int, asyncio.Task[Answer]]
) -> dict[int, Answer]:
    """The calls answered: those kept from before, and those this try made."""
    return reused | {
        i: t.result()
        for i, t in tasks.items()
        if t.done() and not t.cancelled() and t.exception() is None
    }


def kept_of(
    model: ModelSpec, plan: RunPlan, answered: Mapping[int, Answer]
) -> tuple[int, int, float, str]:
    """What the calls answered so far made: tokens in and out, cost, and their answers
    as :func:`kept_text` keeps them."""
    tokens_in = sum(a.input_tokens for a in answered.values())
    tokens_out = sum(a.output_tokens for a in answered.values())
    return tokens_in, tokens_out, model.cost(tokens_in, tokens_out), kept_text(plan, answered)


async def run_attempt(
    clients: Clients, benchmark: Benchmark, model: ModelSpec, mode: str, plan: RunPlan,
    kept: Mapping[int, Answer] | None = None,
) -> AttemptOutput:  # fmt: skip
    """Send every call of ``plan`` (but those ``kept`` answered already, by an earlier
    try of this attempt: each call is paid for once); ProviderError when one cannot be
    made, with the calls answered (kept ones included) in its ``answered``; so does the
    CancelledError of an attempt stopped (the bot stopping)."""
    options: dict[str, Any] = model.request_options(mode)
    if not model.images and any(call.needs_images for call in plan.calls):
        raise ProviderError(
            f"{model.full_name} does not read images ({benchmark.title} sends them): "
            "set images = true for it in the providers file if it does",
            code="no_images",
            provider=model.provider,
        )
    client = clients.for_model(model)
    owner = object()  # its calls take turns with other attempts' for the provider's slots
    reused: dict[int, Answer] = {}
    for i, call in enumerate(plan.calls):
        found = (kept or {}).get(i)
        request = {"model": model.name, "messages": list(call.to_openai()), **options}
        if found is not None and _same(request, found):
            reused[i] = found
    tasks: dict[int, asyncio.Task[Answer]] = {}
    try:  # one call that fails ends the others
        async with asyncio.TaskGroup() as group:
            for i, call in enumerate(plan.calls):
                if i not in reused:
                    tasks[i] = group.create_task(
                        client.complete(model, call.to_openai(), options, owner=owner)
                    )
    except asyncio.CancelledError as stopped:  # (the bot stopping) the answered calls go
        stopped.answered = _answered(reused, tasks)  # type: ignore[attr-defined]
        raise
    except BaseExceptionGroup as failed:
        error = failed.exceptions[0]
        if isinstance(error, ProviderError):  # the calls answered before were paid for
            error.answered = _answered(reused, tasks)
            made = error.answered.values()
            error.input_tokens = sum(a.input_tokens for a in made)
            error.output_tokens = sum(a.output_tokens for a in made)
            error.cost_usd = model.cost(error.input_tokens, error.output_tokens)
        raise error from None
    answers = [reused[i] if i in reused else tasks[i].result() for i in range(len(plan.calls))]
    output = benchmark.run_output(plan, [a.text for a in answers])
    input_tokens = sum(a.input_tokens for a in answers)
    output_tokens = sum(a.output_tokens for a in answers)
    known = all(a.usage_known for a in answers)
    return AttemptOutput(
        output=output,
        input_tokens=input_tokens if known else None,
        output_tokens=output_tokens if known else None,
        cost_usd=model.cost(input_tokens, output_tokens) if known else None,
        latency_s=sum(a.latency_s for a in answers),
        transcript=transcript(benchmark, model, mode, plan, answers),
    )

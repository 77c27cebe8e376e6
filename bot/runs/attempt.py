"""One attempt of a run: every call of a benchmark's plan sent to a model (side by side,
within its provider's bound), the answers read back into the raw output the benchmark
scores as a paste, with tokens, cost at the file's prices, latency and the transcript."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
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
    seconds (the calls' own times added up) and the transcript (JSON text)."""

    output: str
    input_tokens: int
    output_tokens: int
    cost_usd: float
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


async def run_attempt(
    clients: Clients, benchmark: Benchmark, model: ModelSpec, mode: str, plan: RunPlan
) -> AttemptOutput:
    """Send every call of ``plan``; ProviderError when one cannot be made."""
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
    try:  # one call that fails ends the others
        async with asyncio.TaskGroup() as group:
            tasks = [
                group.create_task(client.complete(model, call.to_openai(), options, owner=owner))
                for call in plan.calls
            ]
    except BaseExceptionGroup as failed:
        error = failed.exceptions[0]
        if isinstance(error, ProviderError):  # the calls answered before were paid for
            made = [
                t.result() for t in tasks if t.done() and not t.cancelled() and not t.exception()
            ]
            error.input_tokens = sum(a.input_tokens for a in made)
            error.output_tokens = sum(a.output_tokens for a in made)
            error.cost_usd = model.cost(error.input_tokens, error.output_tokens)
        raise error from None
    answers = [task.result() for task in tasks]
    output = benchmark.run_output(plan, [a.text for a in answers])
    input_tokens = sum(a.input_tokens for a in answers)
    output_tokens = sum(a.output_tokens for a in answers)
    return AttemptOutput(
        output=output,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cost_usd=model.cost(input_tokens, output_tokens),
        latency_s=sum(a.latency_s for a in answers),
        transcript=transcript(benchmark, model, mode, plan, answers),
    )

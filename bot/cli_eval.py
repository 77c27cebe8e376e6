"""``benchboard eval BENCHMARK --model PROVIDER/MODEL``: Benchboard runs a benchmark
against a model through the providers file (``BENCHBOARD_PROVIDERS``), N attempts side
by side, each scored as its paste would be; ``--publish`` stores them on this instance's
boards as run by Benchboard.

Exit codes: 0 every attempt was made; 1 some failed (each said on stderr); 2 nothing
could be run (an unknown model, a missing key variable, a refused key, a dead provider:
one plain line naming the provider).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from .cli_common import Load, fail, utf8_output


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("benchmark", metavar="BENCHMARK")
    parser.add_argument(
        "--model", required=True, metavar="PROVIDER/MODEL", help="a model the providers file lists"
    )
    parser.add_argument("--mode", help="default, think, tools or think_tools (default: default)")
    parser.add_argument(
        "--attempts", type=int, default=1, metavar="N", help="attempts side by side (default 1)"
    )
    parser.add_argument("--target", help="a challenge's target (default: the day's)")
    parser.add_argument(
        "--publish",
        action="store_true",
        help="store the attempts on the boards as run by Benchboard",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=cmd_eval)


def cmd_eval(args: argparse.Namespace, load: Load) -> int:
    from .runs.providers import ProviderError

    if not 1 <= args.attempts <= 100:
        fail("--attempts must be between 1 and 100")
    settings = load()
    if settings.providers is None:
        fail("no providers file: set BENCHBOARD_PROVIDERS to a TOML file naming them")
    try:
        return asyncio.run(_eval(args, load))
    except ProviderError as exc:
        fail(str(exc))


def _attempt_json(n: int, done: Any, submission_id: int | None) -> dict[str, Any]:
    out, result = done.out, done.scored.result
    return {
        "attempt": n,
        **result.to_json(),
        "score": result.primary,
        "input_tokens": out.input_tokens,
        "output_tokens": out.output_tokens,
        "cost_usd": None if out.cost_usd is None else round(out.cost_usd, 8),
        "latency_s": round(out.latency_s, 3),
        **({"submission_id": submission_id} if submission_id is not None else {}),
    }


async def _eval(args: argparse.Namespace, load: Load) -> int:
    from storage.runs import NewRun

    from .core import keys, runs
    from .core.services import opened
    from .runs.providers import ProviderError

    settings = load()
    runner = runs.Runner.from_settings_file(settings.providers)
    try:
        benchmark = runs.benchmark_of(args.benchmark)
        model = runner.providers.model(args.model)
        mode = runs.mode_of(args.mode)
        model.request_options(mode)
        runner.providers.provider(model.provider).api_key()
        async with opened(settings) as services:
            await keys.load_keys(services)
            target = runs.target_of(services, benchmark, args.target)
            plan = runs.plan_for(services, benchmark, target)
            made: list[tuple[int, Any, int | None, str | None]] = []
            if args.publish:
                await runs.ensure_benchboard_user(services)
                new = NewRun(benchmark.name, model.full_name, mode, args.attempts, "cli",
                             target=target)  # fmt: skip
                for n, (outcome, done) in enumerate(await runs.run_now(services, runner, new), 1):
                    made.append((n, done, outcome.submission_id, outcome.error))
            else:
                tries = await asyncio.gather(
                    *(
                        runs.attempt(services, runner, benchmark, model, mode, plan)
                        for _ in range(args.attempts)
                    ),
                    return_exceptions=True,
                )
                for n, found in enumerate(tries, 1):
                    if isinstance(found, ProviderError):
                        made.append((n, None, None, str(found)))
                    elif isinstance(found, BaseException):
                        raise found
                    else:
                        made.append((n, found, None, None))
    finally:
        await runner.close()
    errors = [e for _, _, _, e in made if e]
    if len(errors) == len(made):
        fail(errors[0])
    if args.json:
        document: dict[str, Any] = {
            "benchmark": benchmark.name,
            "model": model.full_name,
            "mode": mode,
            "run_version": plan.version,
            **({"target": target} if target is not None else {}),
            "attempts": [
                _attempt_json(n, done, sub) if done is not None else {"attempt": n, "error": e}
                for n, done, sub, e in made
            ],
        }
        print(json.dumps(document, ensure_ascii=not utf8_output(), indent=2))
    else:
        for n, done, sub, error in made:
            if done is None:
                print(f"attempt {n}: failed: {error}")
                continue
            out, score = done.out, benchmark.format_score(done.scored.result.primary)
            figures = (
                f" · {out.input_tokens} in / {out.output_tokens} out tokens · ${out.cost_usd:.6f}"
                if out.cost_usd is not None
                else " · tokens and cost not reported by the provider"
            )
            line = f"attempt {n}: {benchmark.title} {score}{figures} · {out.latency_s:.2f} s"
            print(line + (f" · published as #{sub}" if sub is not None else ""))
    for error in errors:
        print(f"benchboard: {error}", file=sys.stderr)
    return 1 if errors else 0

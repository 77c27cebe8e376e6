"""``benchboard submit FILE``: send a model's output (or an Inspect AI log, one
submission per epoch) to a Benchboard server's API, with the personal token in
``BENCHBOARD_API_TOKEN``, and print the score and the result's address.

Exit codes: 0 submitted; 1 the server refused it (the server's message) or could not be
reached; 2 bad input here (no token, no such file, an Inspect log without the
``inspect`` extra). Each error is one line on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cli_common import Load, fail

TOKEN_VARIABLE = "BENCHBOARD_API_TOKEN"
EXIT_REFUSED = 1
#: Seconds a request may take (a large output is scored on the server).
TIMEOUT = 120.0


class Refused(Exception):
    """The server refused the submission, or could not be reached (exit 1)."""


@dataclass(frozen=True, slots=True)
class Part:
    """One submission to send: a text file as is, or one epoch of an Inspect log."""

    label: str
    output: bytes | str
    file_name: str
    model: str | None
    mode: str | None
    benchmark: str | None
    idempotency_key: str | None
    #: tag fields sent with it (a challenge's target, k)
    options: Mapping[str, object] = field(default_factory=dict)


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the model's output, or an Inspect AI log (.eval, .json)")
    parser.add_argument("--server", required=True, help="the Benchboard web address")
    parser.add_argument("--benchmark", help="the benchmark (an Inspect log names its own)")
    parser.add_argument("--model", help="the model (an Inspect log names its own)")
    parser.add_argument("--mode", help="default, think, tools or think_tools")
    parser.add_argument("--publish", action="store_true", help="put the result on the boards")
    parser.add_argument(
        "--idempotency-key", help="the same key again returns the first submission, not a new one"
    )
    parser.add_argument("--json", action="store_true", help="print the server's JSON answers")
    told = parser.add_argument_group("provenance (optional, kept and shown with the result)")
    told.add_argument("--provider", help="who served the model (e.g. openrouter)")
    told.add_argument("--temperature", help="the sampling temperature, 0 to 2")
    told.add_argument("--seed", help="the sampling seed, a whole number")
    told.add_argument("--reasoning", choices=("low", "medium", "high"), help="reasoning effort")
    told.add_argument("--run-date", help="when the model was run, YYYY-MM-DD")
    told.add_argument("--log", help="an http(s) address of the run's log")
    parser.set_defaults(handler=cmd_submit)


def _provenance(args: argparse.Namespace) -> dict[str, str]:
    """The provenance options given, checked here first (bad input: exit 2)."""
    from .core import provenance

    given = {name: getattr(args, name, None) for name in provenance.FIELDS}
    try:
        provenance.check(given)
    except provenance.BadProvenance as exc:
        fail(str(exc))
    return {name: value for name, value in given.items() if value is not None}


def cmd_submit(args: argparse.Namespace, load: Load) -> int:
    token = os.environ.get(TOKEN_VARIABLE, "").strip()
    if not token:
        fail(f"set {TOKEN_VARIABLE} to a token from the bot's /token")
    path = Path(args.file)
    if not path.is_file():
        fail(f"no such file: {args.file}")
    told = _provenance(args)
    if path.suffix in (".eval", ".json") and _is_inspect_log(path):
        parts = _inspect_parts(path, args)
    else:
        if not args.benchmark:
            fail("--benchmark is required (for a file that is not an Inspect log)")
        parts = [
            Part(path.name, path.read_bytes(), path.name, args.model, args.mode, args.benchmark,
                 args.idempotency_key)
        ]  # fmt: skip
    try:
        answers = asyncio.run(_send_all(args.server.rstrip("/"), token, parts, args.publish, told))
    except Refused as exc:
        print(f"benchboard: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    for part, (status, data) in zip(parts, answers, strict=True):
        if args.json:
            print(json.dumps(data, ensure_ascii=False))
        else:
            print(_line(part, status, data))
    return 0


def _line(part: Part, status: int, data: dict[str, Any]) -> str:
    score = data.get("final_score", data.get("score"))
    again = " (sent before: the same submission)" if status == 200 else ""
    where = data.get("url") or "not published"
    prefix = f"{part.label}: " if part.label else ""
    return f"{prefix}{data.get('benchmark')} #{data.get('id')}: score {score}{again} — {where}"


async def _send_all(
    server: str, token: str, parts: list[Part], publish: bool, told: Mapping[str, str]
) -> list[tuple[int, dict[str, Any]]]:
    import aiohttp

    timeout = aiohttp.ClientTimeout(total=TIMEOUT)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        return [await _send(session, server, token, part, publish, told) for part in parts]


async def _send(
    session: Any, server: str, token: str, part: Part, publish: bool, told: Mapping[str, str]
) -> tuple[int, dict[str, Any]]:
    import aiohttp

    form = aiohttp.FormData()
    for name, value in (("benchmark", part.benchmark), ("model", part.model),
                        ("mode", part.mode)):  # fmt: skip
        if value:
            form.add_field(name, value)
    for option, given in part.options.items():
        form.add_field(option, str(given))
    for name, value in told.items():
        form.add_field(name, value)
    form.add_field("publish", "true" if publish else "false")
    data = part.output.encode() if isinstance(part.output, str) else part.output
    form.add_field("output", data, filename=part.file_name, content_type="text/plain")
    headers = {"Authorization": f"Bearer {token}"}
    if part.idempotency_key:
        headers["Idempotency-Key"] = part.idempotency_key
    url = f"{server}/api/v1/submissions"
    try:
        async with session.post(url, data=form, headers=headers, expect100=True) as response:
            text = await response.text()
            status = response.status
    except (aiohttp.ClientError, OSError, TimeoutError) as exc:
        raise Refused(f"cannot reach {server}: {exc or type(exc).__name__}") from None
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    if status in (200, 201) and isinstance(body, dict):
        return status, body
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and error.get("message"):
        raise Refused(f"{part.label + ': ' if part.label else ''}{status} {error['message']}")
    raise Refused(f"{url} answered {status}, not the Benchboard API")


def _is_inspect_log(path: Path) -> bool:
    """An Inspect log: a ``.eval`` file (a zip), or JSON with an ``eval`` spec."""
    from .evals import logs

    with path.open("rb") as f:
        return logs.is_log(path.name, f.read(4096))


def _inspect_parts(path: Path, args: argparse.Namespace) -> list[Part]:
    from .evals import logs

    try:
        epochs = logs.read(path)
    except logs.NotInstalled as exc:
        fail(str(exc))
    except logs.UnreadableLog as exc:
        fail(f"{path}: {exc}")
    many = len(epochs) > 1
    return [
        Part(
            label=f"epoch {e.epoch}" if many else "",
            output=e.output,
            file_name=f"{path.stem}-epoch{e.epoch}.txt",
            model=args.model or e.model,
            mode=args.mode or e.mode,
            benchmark=args.benchmark or e.benchmark,
            idempotency_key=(
                f"{args.idempotency_key}:{e.epoch}" if args.idempotency_key else e.idempotency_key
            ),
            options=e.options,
        )
        for e in epochs
    ]

"""``benchboard submit FILE``: send a model's output (or an Inspect AI log, one
submission per epoch) to a Benchboard server's API, with the personal token in
``BENCHBOARD_API_TOKEN``, and print the score and the result's address.

Exit codes: 0 submitted; 1 the server refused it (the server's message) or could not be
reached; 2 bad input here (no token, no such file, a ``--server`` that is no http(s)
address, a file over the server's 20 MB, an Inspect log without the ``inspect`` extra).
Each error is one line on stderr.

A transient fault (the server unreachable, a 502/503/504, the owner's rate) is tried
again after a pause (the server's ``Retry-After`` when it gives one), for two minutes at
most (``--wait``). Every request carries an ``Idempotency-Key`` (the one given, an Inspect
log's, or one made here), so a request that reached the server before its answer was
lost is answered with that same submission, never stored twice. Each submission's line
is printed as soon as it is answered.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cli_common import Load, fail, seconds, utf8_output

TOKEN_VARIABLE = "BENCHBOARD_API_TOKEN"
EXIT_REFUSED = 1
#: Seconds a request may take (a large output is scored on the server).
TIMEOUT = 120.0
#: Seconds a submission is tried again after transient faults, unless ``--wait`` says.
WAIT = 120.0
#: The pause before the first new try, doubled for each after it up to ``LONGEST_PAUSE``
#: (a server's ``Retry-After`` replaces it).
FIRST_PAUSE, LONGEST_PAUSE = 1.0, 30.0
#: Answers that say "try again": a proxy's bad gateway or timeout, the server busy or
#: its database unavailable (429 is transient only for the owner's rate, not for the
#: day's publications).
TRANSIENT = frozenset({502, 503, 504})
#: The largest output the server takes (``bot.core.submit.MAX_DOWNLOAD``, not imported:
#: it loads the bot's core): a larger file is refused here, before it is read.
MAX_OUTPUT = 20 * 1024 * 1024


class Refused(Exception):
    """The server refused the submission, or could not be reached (exit 1)."""


class _Transient(Exception):
    """A fault worth another try, after ``pause`` seconds when the server said."""

    def __init__(self, message: str, pause: float | None = None) -> None:
        super().__init__(message)
        self.pause = pause


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
    parser.add_argument(
        "--wait",
        type=seconds,
        default=WAIT,
        metavar="SECONDS",
        help="how long to keep trying when the server is unreachable or busy "
        f"(default {WAIT:g}; 0: try once)",
    )
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


def _server(given: str) -> str:
    """``--server``, an http(s) address (bad input, not a server to wait for)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(given.strip())
        _ = parts.port  # a port that is no number raises
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        fail(f"--server must be an http(s) address such as https://bot.example.com, not {given!r}")
    return given.strip().rstrip("/")


def cmd_submit(args: argparse.Namespace, load: Load) -> int:
    token = os.environ.get(TOKEN_VARIABLE, "").strip()
    if not token:
        fail(f"set {TOKEN_VARIABLE} to a token from the bot's /token")
    server = _server(args.server)
    path = Path(args.file)
    if path.is_dir():
        fail(f"{args.file} is a directory, not a file")
    if not path.is_file():
        fail(f"no such file: {args.file}")
    told = _provenance(args)
    if path.suffix in (".eval", ".json") and _is_inspect_log(path):
        parts = _inspect_parts(path, args)
    else:
        if not args.benchmark:
            fail("--benchmark is required (for a file that is not an Inspect log)")
        if path.stat().st_size > MAX_OUTPUT:
            size = -(-path.stat().st_size * 10 // 2**20) / 10  # rounded up: not "20.0 MB"
            fail(f"{args.file} is {size:.1f} MB; the server takes at most {MAX_OUTPUT >> 20} MB")
        parts = [
            Part(path.name, path.read_bytes(), path.name, args.model, args.mode, args.benchmark,
                 args.idempotency_key)
        ]  # fmt: skip
    try:
        asyncio.run(_send_all(server, token, parts, args.publish, told, args))
    except Refused as exc:
        print(f"benchboard: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    return 0


def _line(part: Part, sent_before: bool, data: dict[str, Any]) -> str:
    score = data.get("final_score", data.get("score"))
    again = " (sent before: the same submission)" if sent_before else ""
    where = data.get("url") or "not published"
    prefix = f"{part.label}: " if part.label else ""
    return f"{prefix}{data.get('benchmark')} #{data.get('id')}: score {score}{again} — {where}"


async def _send_all(
    server: str,
    token: str,
    parts: list[Part],
    publish: bool,
    told: Mapping[str, str],
    args: argparse.Namespace,
) -> None:
    """Send each part in turn, printing each one's answer as it comes."""
    import aiohttp

    timeout = aiohttp.ClientTimeout(total=TIMEOUT)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        for part in parts:
            send = functools.partial(_send, session, server, token, part, publish=publish,
                                     told=told)  # fmt: skip
            again, data = await _until_answered(send, part, args.wait)
            if args.json:
                print(json.dumps(data, ensure_ascii=not utf8_output()))
            else:
                print(_line(part, again, data))
            sys.stdout.flush()


async def _until_answered(
    send: Callable[[str], Awaitable[tuple[int, dict[str, Any]]]], part: Part, wait: float
) -> tuple[bool, dict[str, Any]]:
    """The server's answer to ``part``, trying again after transient faults for ``wait``
    seconds; and whether it is a submission an earlier run of this command (with the same
    key) made."""
    key = part.idempotency_key or f"cli-{uuid.uuid4()}"
    label = f"{part.label}: " if part.label else ""
    deadline = time.monotonic() + wait
    pause = FIRST_PAUSE
    tried = False
    while True:
        try:
            status, data = await send(key)
        except _Transient as exc:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Refused(f"{label}{exc}") from None
            sleep = min(pause if exc.pause is None else exc.pause, LONGEST_PAUSE, left)
            print(f"benchboard: {label}{exc}; trying again in {sleep:.3g} s", file=sys.stderr)
            await asyncio.sleep(sleep)
            pause, tried = min(pause * 2, LONGEST_PAUSE), True
            continue
        # a 200 after a try of ours went unanswered is that try's submission
        return status == 200 and not tried, data


async def _send(
    session: Any,
    server: str,
    token: str,
    part: Part,
    key: str,
    *,
    publish: bool,
    told: Mapping[str, str],
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
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": key}
    url = f"{server}/api/v1/submissions"
    try:
        async with session.post(url, data=form, headers=headers, expect100=True) as response:
            text = await response.text()
            status = response.status
            retry_after = response.headers.get("Retry-After", "")
    except (aiohttp.ClientError, OSError, TimeoutError) as exc:
        raise _Transient(f"cannot reach {server}: {exc or type(exc).__name__}") from None
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    if status in (200, 201) and isinstance(body, dict):
        return status, body
    error = body.get("error") if isinstance(body, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    if status in TRANSIENT or (status == 429 and code == "rate_limited"):
        pause = float(retry_after) if retry_after.isdigit() else None
        raise _Transient(f"{server} answered {status}", pause)
    if isinstance(error, dict) and error.get("message"):
        said = f"{part.label + ': ' if part.label else ''}{status} {error['message']}"
        if isinstance(error.get("submission_id"), int) and part.idempotency_key is None:
            # stored, under a key made here: the one way to send this run again
            said += f" (--idempotency-key {key} sends this run again)"
        raise Refused(said)
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

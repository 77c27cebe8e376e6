"""The ``benchboard`` command: score offline, print prompts, manage data, run the bot.

Exit codes: 0 success, 2 bad input or a failed data command (one line on stderr).
"""

# ruff: noqa: E402 (Ctrl-C is made quiet before the imports: see below)
from __future__ import annotations

import signal

# Ctrl-C while the command's modules load, before main() can catch it, ends the process
# as the signal does (exit 130 in a shell), not with a traceback; Python's own handler
# is back once they are loaded (the end of this module). (Where SIGINT is ignored, or
# another handler is set, or this is not the main thread, it is left alone.)
_HANDLER_AT_IMPORT = signal.getsignal(signal.SIGINT)
if _HANDLER_AT_IMPORT is signal.default_int_handler:
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    except ValueError:  # not the main thread
        _HANDLER_AT_IMPORT = None
else:
    _HANDLER_AT_IMPORT = None

import argparse
import gc
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scoring import Benchmark, Result, ScoringError, decode, registry

from .cli_common import (
    EXIT_BAD_INPUT,
    CliError,
    Load,
    fail,
    find_benchmark,
    has_database,
    json_lines,
    plain_streams,
    whole,
)
from .cli_input import daily_text, detected, given, key_bytes, load_key, read_input

if TYPE_CHECKING:
    from datetime import date

    from .core import datafiles
    from .settings import Settings

# Each command imports what it needs: scoring a file with ``--key`` loads the one
# scorer, not pydantic (the settings), the database, the network or Telegram.


def _daily_challenge(benchmark: Benchmark, target: str | None, settings: Settings) -> Any:
    """The challenge ``--target`` names (a challenge benchmark scores against one)."""
    assert benchmark.challenge is not None
    spec = benchmark.challenge
    if target is None:
        from .core import challenges

        today = challenges.today(settings, benchmark).target
        fail(
            f"{benchmark.name} needs --target N (today's target is {today}; "
            f"see 'benchboard {spec.command} today')"
        )
    try:
        tags = {spec.target_option: target}
        key, _ = benchmark.key_for(benchmark.options_from_tags(tags), None)
    except ScoringError as exc:
        fail(f"bad --target: {exc}")
    return key


def _score_daily(
    benchmark: Benchmark,
    args: argparse.Namespace,
    load: Load,
    text: str | None = None,
    note: str = "",
) -> int:
    """``score`` of a challenge benchmark (``text``: the input, when already read;
    ``note``: the line saying the benchmark was detected)."""
    challenge = _daily_challenge(benchmark, args.target, load())
    if text is None:
        text = daily_text(args.file)
    _say(note)
    _print_result(benchmark.score(text, challenge), benchmark, as_json=args.json)
    return 0


def _say(note: str) -> None:
    if note:
        print(note, file=sys.stderr, flush=True)


def _print_result(result: Result, benchmark: Benchmark, *, as_json: bool) -> None:
    if as_json:
        sys.stdout.writelines(json_lines(result.to_json()))
        sys.stdout.write("\n")
    else:
        from .render.format import render_result

        print(render_result(result, benchmark))


def cmd_challenge_today(args: argparse.Namespace, load: Load) -> int:
    """``benchboard C today``: the day's target of the challenge whose command is C."""
    import json
    from datetime import UTC, datetime

    from .core import challenges

    benchmark = registry.get(args.challenge)
    day = datetime.now(UTC).date() if args.date is None else _parse_date(args.date)
    challenge = challenges.today(load(), benchmark, day)
    if args.json:
        data = {
            "date": day.isoformat(),
            "target": challenge.target,
            "allowed_digits": sorted(challenge.allowed_digits),
            "digits": list(challenge.digits),
            "scorer_version": benchmark.scorer_version,
        }
        print(json.dumps(data, indent=2))
    else:
        print(f"{benchmark.title} target for {day.isoformat()}: {challenge.target}")
        print(f"allowed digits: {challenge.allowed_text}")
        print(f"digits for exact use (the bonus): {' '.join(challenge.digits)}")
    return 0


def _parse_date(text: str) -> date:
    from datetime import date

    try:
        return date.fromisoformat(text)
    except ValueError:
        fail(f"bad --date {text!r}: use YYYY-MM-DD")


def cmd_score(args: argparse.Namespace, load: Load) -> int:
    # One file scored, printed, and the process ends: what it makes lives to the end and
    # holds no cycles, so the cyclic collector would only walk it again and again (after
    # a 100,000-response file, its first pass over what scoring kept took longer than
    # printing the result).
    gc.disable()
    text: str | None = None
    note = ""
    fields: Mapping[str, str] = {}
    if args.benchmark is None:
        benchmark, text, note, fields = detected(args, load)
    else:
        benchmark = find_benchmark(args.benchmark, load)
        text, fields = given(args, benchmark)
    try:  # the file's tag fields, as the bot reads them; the command line's options win
        options = benchmark.options_from_tags(fields)
    except ScoringError as exc:
        fail(f"bad tag in {args.file}: {exc}")
    if benchmark.challenge is not None and args.target is None:
        args.target = fields.get(benchmark.challenge.target_option)
    if benchmark.daily:
        return _score_daily(benchmark, args, load, text, note)
    if args.target is not None and "target" not in benchmark.tag_fields:
        targeted = [b.name for b in registry.all_benchmarks() if "target" in b.tag_fields]
        fail(f"--target is only for {', '.join(targeted)}")
    if text is None:
        text = decode(read_input(args.file))  # the bytes are not kept beside it
    key = load_key(benchmark, args.key, load)
    options |= {name: value for name, value in (("k", args.k),) if value is not None}
    _say(note)
    _print_result(benchmark.score(text, key, options=options), benchmark, as_json=args.json)
    return 0


def cmd_prompt(args: argparse.Namespace, load: Load) -> int:
    benchmark = find_benchmark(args.benchmark, load)
    prompt = benchmark.prompt
    if not prompt:
        fail(f"{benchmark.title} has no official prompt")
    # its UTF-8 bytes as they are, whatever the locale's encoding or the platform's
    # line ends (a text stream on Windows writes each \n as \r\n)
    sys.stdout.flush()
    sys.stdout.buffer.write(prompt.encode("utf-8"))
    sys.stdout.flush()
    return 0


def _import(report: datafiles.LoadReport, settings: Settings) -> None:
    """Store the key a fetch or load wrote as the benchmark's current key, and say so."""
    import asyncio

    from .core import keys
    from .core.errors import StorageError
    from .core.services import opened

    async def store() -> int:
        async with opened(settings) as services:
            loaded = await keys.load_key(services, report.benchmark, report.key, report.source)
        return loaded.version.version

    print(f"{report.benchmark}: {report.questions} questions from {report.source}")
    for stored in report.files:
        print(f"  {stored.name}  sha256 {stored.sha256}  ({stored.size} bytes) -> {stored.path}")
    if report.note:
        print(report.note)
    try:
        version = asyncio.run(store())
    except StorageError as exc:
        fail(f"the key is in the data folder but not in the database: {exc}")
    print(f"in use as key version {version} (database {settings.db_label})")


def cmd_data_fetch(args: argparse.Namespace, load: Load) -> int:
    import asyncio

    from .core import datafiles

    settings = load()
    benchmark = registry.get(args.benchmark)
    if not datafiles.can_fetch(benchmark):
        fail(f"{benchmark.title} has no files to fetch")
    url = settings.source_url(benchmark.name)
    _import(asyncio.run(datafiles.fetch(settings.data_dir, benchmark, url)), settings)
    return 0


def cmd_data_load(args: argparse.Namespace, load: Load) -> int:
    from .core import datafiles

    settings = load()
    benchmark = registry.get(args.benchmark)
    if benchmark.key_file is None:
        fail(f"{benchmark.title} has no key files to load")
    if args.questions and benchmark.questions_file is None:
        fail(f"{benchmark.title} has no question file")
    key = key_bytes(args.key)
    questions = key_bytes(args.questions) if args.questions else None
    _import(datafiles.load(settings.data_dir, benchmark, key, questions, source=args.key), settings)
    return 0


def cmd_benchmark_add(args: argparse.Namespace, load: Load) -> int:
    """``benchmark add FILE.toml``: register a multiple-choice benchmark defined by data,
    store it with its key, and re-score its stored submissions when that changed them."""
    import asyncio

    from .core import admin, benchmarks, notices
    from .core.services import opened

    path = Path(args.file)
    definition = benchmarks.read_file(path)
    settings = load()

    def waiting() -> None:
        print("waiting for the re-score that another process runs…", file=sys.stderr)

    async def add() -> tuple[benchmarks.Added, int, int]:
        async with opened(settings) as services:
            added = await benchmarks.add(services, definition, source=f"file {path.name}")
            rescored = told = 0
            if added.pending:  # as /rescore: one at a time, its users told by the bot
                ask = admin.RescoreAsk(added.benchmark, added.pending, added.before)
                report, _, batch = await admin.rescore(services, ask, waiting=waiting)
                await notices.leave(services, batch)  # the bot sends them
                rescored, told = report.rescored, len(batch.notices)
        return added, rescored, told

    added, rescored, told = asyncio.run(add())
    benchmark, version, key = added.benchmark, added.definition, added.key
    said = "stored as" if version.created else "unchanged,"
    print(f"{benchmark.name}: {benchmark.title}, {said} definition version {version.version}")
    done = f"re-scored {rescored}" if rescored else "nothing to re-score"
    fresh = "new" if key.created else "in use again" if added.key_changed else "unchanged"
    print(f"  key version {key.version} ({fresh}), sha256 {key.sha256}; {done}")
    print(f"  tag #{benchmark.name}; board /b/{benchmark.name} (database {settings.db_label})")
    if told:
        print(f"  {told} users whose published results changed get a notice from the bot")
    return 0


def cmd_benchmark_list(args: argparse.Namespace, load: Load) -> int:
    """``benchmark list``: every benchmark, those defined by data with their version."""
    import asyncio

    from .core import benchmarks
    from .core.services import opened

    settings = load()
    versions: dict[str, int] = {}
    if has_database(settings):

        async def read() -> None:
            async with opened(settings) as services:
                stored = await benchmarks.listed(services)
            versions.update((d.benchmark, d.version) for d in stored)

        asyncio.run(read())
    for benchmark in registry.all_benchmarks():
        defined = versions.get(benchmark.name)
        how = "built in" if defined is None else f"defined by data, version {defined}"
        print(f"{benchmark.name}\t{benchmark.title}\t{how}")
    return 0


def cmd_run(args: argparse.Namespace, load: Load) -> int:
    # the start (imports, the application) makes objects that live as long as the
    # process and next to no garbage: no collections until it is up (ops.settle_heap)
    gc.disable()
    from .core.errors import StartupError
    from .telegram.app import run  # imported here: scoring offline needs no Telegram

    settings = load()
    settings.require_token()
    try:
        run(settings)
    except StartupError as exc:
        fail(settings.redact(str(exc)))  # (an error may quote a URL with the token)
    return 0


def _ops(name: str) -> Callable[[argparse.Namespace, Load], int]:
    """The command ``name`` of :mod:`bot.cli_ops` (the database's and the servers'),
    imported when it runs: scoring a file does not load them."""

    def handler(args: argparse.Namespace, load: Load) -> int:
        from . import cli_ops

        command: Callable[[argparse.Namespace, Load], int] = getattr(cli_ops, name)
        return command(args, load)

    return handler


def _columns() -> int:
    """The terminal's width, as ``shutil.get_terminal_size`` finds it."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter given the width: left to itself it imports ``shutil``
    (with zlib, bz2 and lzma) for every parser, a good share of a ``score`` run."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=max(_columns() - 2, 20))


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser (and its subcommands') with :class:`_Formatter`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)


class _Version(argparse.Action):
    """``--version``: the installed distribution's version, looked up only when asked
    (``importlib.metadata`` is no part of a ``score`` run)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.update(nargs=0, default=argparse.SUPPRESS)
        super().__init__(option_strings, argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("benchboard")
        except PackageNotFoundError:
            found = "(not installed: run from a source folder)"
        print(f"benchboard {found}")
        parser.exit()


#: The commands, in the order ``--help`` lists them (after ``score``, each challenge's
#: command word: ``benchboard C today``, from the registry).
COMMANDS = (
    "score",
    "prompt",
    "data",
    "benchmark",
    "compare",
    "rescore",
    "health",
    "db",
    "web",
    "webhook",
    "run",
    "submit",
    "eval",
    "verify",
)


def _challenge_benchmarks() -> tuple[Benchmark, ...]:
    return tuple(b for b in registry.all_benchmarks() if b.challenge is not None)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command; with ``command`` (the first argument, one of
    :data:`COMMANDS`), only that command's: a ``score`` run does not pay for the rest."""
    parser = _Parser(
        prog="benchboard",
        description="Score LLM benchmark outputs offline, and run the Benchboard Telegram bot.",
    )
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    full = command not in COMMANDS

    def add(name: str, help: str) -> argparse.ArgumentParser | None:
        if not full and name != command:
            # never read: the command line names another command, which alone parses
            # the rest (no parser is made: each costs gettext look-ups, a good share of
            # a short ``score`` run)
            return None
        return sub.add_parser(name, help=help)

    score = add("score", "score a model's output (a file, or - for stdin)")
    if score is not None:
        _score_arguments(score)

    # the challenges' commands need every benchmark loaded: not for the commands above
    for benchmark in () if not full else _challenge_benchmarks():
        assert benchmark.challenge is not None
        word = add(benchmark.challenge.command, f"{benchmark.title}: the day's target")
        assert word is not None
        actions = word.add_subparsers(dest="challenge_command", required=True, metavar="ACTION")
        today = actions.add_parser("today", help="print today's target and its allowed digits")
        today.add_argument("--date", help="another day (YYYY-MM-DD)")
        today.add_argument("--json", action="store_true", help="print one JSON object")
        today.set_defaults(handler=cmd_challenge_today, challenge=benchmark.name)

    prompt = add("prompt", "print a benchmark's official prompt, byte-exact")
    if prompt is not None:
        prompt.add_argument("benchmark")
        prompt.set_defaults(handler=cmd_prompt)

    data = add("data", "fetch or load official benchmark files")
    if data is not None:
        _data_arguments(data)

    bench = add("benchmark", "add a multiple-choice benchmark from a TOML file, or list them")
    if bench is not None:
        bench_sub = bench.add_subparsers(dest="benchmark_command", required=True, metavar="ACTION")
        bench_add = bench_sub.add_parser("add", help="add (or update) one from FILE.toml")
        bench_add.add_argument("file", metavar="FILE.toml")
        bench_add.set_defaults(handler=cmd_benchmark_add)
        bench_list = bench_sub.add_parser("list", help="list the benchmarks")
        bench_list.set_defaults(handler=cmd_benchmark_list)

    compare = add("compare", "chart a challenge's score against cost and latency per model (PNG)")
    if compare is not None:
        compare.add_argument("benchmark", help="a benchmark with a challenge")
        compare.add_argument("--out", help="the PNG file to write (default: BENCHMARK-compare.png)")
        compare.add_argument("--models", type=whole, default=40, help="at most this many models")
        compare.set_defaults(handler=_ops("cmd_compare"))

    rescore = add("rescore", "re-score stored submissions to the current key and scorer version")
    if rescore is not None:
        built_in = ", ".join(registry.names())
        rescore.add_argument(
            "benchmark", help=f"{built_in}, or one defined by data (benchboard benchmark list)"
        )
        rescore.set_defaults(handler=_ops("cmd_rescore"))

    health = add("health", "exit 0 when the database and the key are ready")
    if health is not None:
        health.set_defaults(handler=_ops("cmd_health"))

    db = add("db", "back up, restore or port the database")
    if db is not None:
        db_sub = db.add_subparsers(dest="db_command", required=True, metavar="ACTION")
        backup = db_sub.add_parser(
            "backup", help="write a consistent snapshot (bot may be running)"
        )
        backup.add_argument("path")
        backup.set_defaults(handler=_ops("cmd_db_backup"))
        restore = db_sub.add_parser("restore", help="check a snapshot, then replace the database")
        restore.add_argument("path")
        restore.set_defaults(handler=_ops("cmd_db_restore"))
        port = db_sub.add_parser(
            "port", help="copy every table to another database (SQLite to PostgreSQL), verified"
        )
        port.add_argument("--from", dest="source", required=True, help="an SQLite file or URL")
        port.add_argument("--to", dest="target", required=True, help="postgresql://... (or a file)")
        port.add_argument(
            "--into-non-empty",
            "--force",
            dest="into_non_empty",
            action="store_true",
            help="add to a target that already holds rows (kept as they are)",
        )
        port.add_argument("--batch", type=whole, default=2000, help="rows per transaction")
        port.set_defaults(handler=_ops("cmd_db_port"))

    webhook = add("webhook", "register the webhook with Telegram once (for every instance)")
    if webhook is not None:
        webhook.add_argument("action", choices=("set", "delete", "info"))
        webhook.set_defaults(handler=_ops("cmd_webhook"))

    web = add("web", "serve the web boards over HTTP (default 127.0.0.1:8080)")
    if web is not None:
        web.add_argument("--host", help="address to bind (BENCHBOARD_WEB_HOST)")
        web.add_argument(
            "--port", type=int, choices=range(1, 65536), metavar="PORT", help="BENCHBOARD_WEB_PORT"
        )
        web.set_defaults(handler=_ops("cmd_web"))

    run = add("run", "run the Telegram bot (needs BENCHBOARD_TOKEN)")
    if run is not None:
        run.set_defaults(handler=cmd_run)

    submit = add(
        "submit", "send an output or an Inspect log to a server's API (BENCHBOARD_API_TOKEN)"
    )
    if submit is not None:
        from .cli_submit import arguments

        arguments(submit)

    evaluate = add("eval", "run a benchmark against a model (BENCHBOARD_PROVIDERS) and score it")
    if evaluate is not None:
        from .cli_eval import arguments as eval_arguments

        eval_arguments(evaluate)
    verify = add("verify", "check a signed result (/r/<token>.json) with the server's key")
    if verify is not None:
        from .cli_verify import arguments as verify_arguments

        verify_arguments(verify)
    return parser


def _score_arguments(score: argparse.ArgumentParser) -> None:
    score.add_argument(
        "file",
        metavar="FILE",
        help="the model's output; - reads stdin (a challenge's answer: an existing file, or the "
        "answer itself; put -- before one that starts with -)",
    )
    score.add_argument(
        "--benchmark",
        "-b",
        help="default: the one that reads the file, found as the bot finds it (said on stderr)",
    )
    score.add_argument("--key", help="answer key file (default: the current one in the database)")
    score.add_argument("--k", type=int, help="attempts per question, for a benchmark scored pass@k")
    score.add_argument("--target", help="a challenge's target number N")
    score.add_argument("--json", action="store_true", help="print one JSON object")
    score.set_defaults(handler=cmd_score)


def _data_arguments(data: argparse.ArgumentParser) -> None:
    data_sub = data.add_subparsers(dest="data_command", required=True, metavar="ACTION")
    fetch = data_sub.add_parser("fetch", help="download, check and import a benchmark's key")
    fetch.add_argument("benchmark")
    fetch.set_defaults(handler=cmd_data_fetch)
    load = data_sub.add_parser("load", help="check and import a benchmark's key from local files")
    load.add_argument("benchmark")
    load.add_argument(
        "--key", required=True, help="the answer key file (the benchmark's own format)"
    )
    load.add_argument(
        "--questions", help="the question file beside the key, when the benchmark has one"
    )
    load.set_defaults(handler=cmd_data_load)


def _settings_once(*, service: bool) -> Load:
    """Settings read on the first call, the same object after."""
    read: list[Settings] = []

    def load() -> Settings:
        if not read:
            from .settings import load_settings

            read.append(load_settings())
            if read[0].db_url is not None and not service:
                # a one-shot command tells an unreachable PostgreSQL in one line, not
                # with each of the pool's tries (a service logs them)
                import logging

                logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
        return read[0]

    return load


#: The commands that run as services, logging what they meet.
SERVICES = frozenset({"run", "web"})


def _bad_input_errors() -> tuple[type[Exception], ...]:
    """The errors that are bad input (one line, exit 2), or a database that cannot be
    read (unavailable, damaged), told the same way. A module that was never imported
    raised none of its errors, so only loaded ones are asked for theirs."""
    errors: list[type[Exception]] = [CliError, ScoringError]
    for module, name in (
        ("bot.settings", "SettingsError"),
        ("bot.core.datafiles", "DataError"),
        ("storage.errors", "StorageError"),
    ):
        loaded = sys.modules.get(module)
        if loaded is not None:
            errors.append(getattr(loaded, name))
    return tuple(errors)


def main(argv: Sequence[str] | None = None) -> int:
    try:  # (building the parser imports a command's module: Ctrl-C may come then)
        argv = sys.argv[1:] if argv is None else list(argv)
        plain_streams()
        parser = build_parser(argv[0] if argv else None)
        args = parser.parse_args(argv)
        handler: Callable[[argparse.Namespace, Load], int] = args.handler
        return handler(args, _settings_once(service=args.command in SERVICES))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:
        if not isinstance(exc, _bad_input_errors()):
            raise
        print(f"benchboard: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


if _HANDLER_AT_IMPORT is not None:
    signal.signal(signal.SIGINT, _HANDLER_AT_IMPORT)


if __name__ == "__main__":  # python -m bot.cli (python -m bot is the same)
    sys.exit(main())

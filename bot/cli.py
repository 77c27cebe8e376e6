"""The ``benchboard`` command: score offline, print prompts, manage data, run the bot.

Exit codes: 0 success, 2 bad input or a failed data command (one line on stderr).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, NoReturn

from scoring import Benchmark, Result, ScoringError, decode, natory, registry

from .core import datafiles
from .render.format import mode_label, render_result
from .settings import Settings, SettingsError, load_settings

EXIT_BAD_INPUT = 2


class CliError(Exception):
    """Bad input: printed as one line on stderr, exit code 2."""


def _fail(message: str) -> NoReturn:
    raise CliError(message)


def _read_input(source: str) -> bytes:
    if source == "-":
        return sys.stdin.buffer.read()
    path = Path(source)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        _fail(f"no such file: {source}")
    except IsADirectoryError:
        _fail(f"{source} is a directory, not a file")
    except OSError as exc:
        _fail(f"cannot read {source}: {exc.strerror}")


def _stored_key(benchmark: Benchmark, settings: Settings) -> tuple[bytes, str] | None:
    """The benchmark's current key from the database (after importing a key file newly
    placed in the data folder), and a name for it; None when there is none. A missing
    database is not created for nothing."""
    from .core import keys
    from .core.services import opened

    placed = datafiles.read_key_file(settings.data_dir, benchmark)
    if placed is None and settings.db_url is None and not settings.db_path.is_file():
        return None

    async def read() -> tuple[bytes, str] | None:
        async with opened(settings) as services:
            await keys.import_placed(services, benchmark)
            found = await keys.current(services, benchmark)
        if found is None:
            return None
        data, version = found
        return data, f"{benchmark.name} key version {version.version}"

    return asyncio.run(read())


def _load_key(benchmark: Benchmark, key_arg: str | None, settings: Settings) -> Any:
    if key_arg is not None:
        data = _read_input(key_arg)
        source, filename = key_arg, Path(key_arg).name
    else:
        stored = _stored_key(benchmark, settings)
        if stored is None:
            _fail(
                f"no {benchmark.title} key loaded in {settings.db_label}: pass --key FILE, or run "
                f"'benchboard data fetch {benchmark.name}' or "
                f"'benchboard data load {benchmark.name} --key FILE'"
            )
        (data, source), filename = stored, ""
    try:
        return benchmark.load_key(data, filename=filename)
    except ScoringError as exc:
        _fail(f"bad key {source}: {exc}")


def _daily_challenge(benchmark: Benchmark, target: str | None, settings: Settings) -> Any:
    """The challenge ``--target`` names (a daily benchmark scores against one)."""
    if target is None:
        today = datafiles.natory_today(settings).target
        _fail(
            f"{benchmark.name} needs --target N (today's target is {today}; "
            f"see 'benchboard {benchmark.name} today')"
        )
    try:
        key, _ = benchmark.key_for(benchmark.options_from_tags({"target": target}), None)
    except ScoringError as exc:
        _fail(f"bad --target: {exc}")
    return key


def _score_daily(benchmark: Benchmark, args: argparse.Namespace, settings: Settings) -> int:
    """``score --benchmark natory``: the argument is a file if one exists, ``-`` is stdin,
    anything else is the expression itself."""
    challenge = _daily_challenge(benchmark, args.target, settings)
    source: str = args.file
    text = decode(_read_input(source)) if source == "-" or _is_file(source) else source
    _print_result(benchmark.score(text, challenge), benchmark, as_json=args.json)
    return 0


def _print_result(result: Result, benchmark: Benchmark, *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
    else:
        print(render_result(result, benchmark))


def _is_file(source: str) -> bool:
    try:
        return Path(source).is_file()
    except (OSError, ValueError):  # a name too long, a NUL byte: an expression, not a path
        return False


def cmd_natory_today(args: argparse.Namespace, settings: Settings) -> int:
    day = datetime.now(UTC).date() if args.date is None else _parse_date(args.date)
    challenge = datafiles.natory_today(settings, day)
    if args.json:
        data = {
            "date": day.isoformat(),
            "target": challenge.target,
            "allowed_digits": sorted(challenge.allowed_digits),
            "digits": list(challenge.digits),
            "scorer_version": natory.SCORER_VERSION,
        }
        print(json.dumps(data, indent=2))
    else:
        print(f"Natory target for {day.isoformat()}: {challenge.target}")
        print(f"allowed digits: {challenge.allowed_text}")
        print(f"digits for exact use (the bonus): {' '.join(challenge.digits)}")
    return 0


def _parse_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        _fail(f"bad --date {text!r}: use YYYY-MM-DD")


def cmd_score(args: argparse.Namespace, settings: Settings) -> int:
    benchmark = registry.get(args.benchmark)
    if benchmark.daily:
        return _score_daily(benchmark, args, settings)
    if args.target is not None and "target" not in benchmark.tag_fields:
        targeted = [b.name for b in registry.all_benchmarks() if "target" in b.tag_fields]
        _fail(f"--target is only for {', '.join(targeted)}")
    raw = _read_input(args.file)
    text = decode(raw)
    key = _load_key(benchmark, args.key, settings)
    options = {name: value for name, value in (("k", args.k),) if value is not None}
    _print_result(benchmark.score(text, key, options=options), benchmark, as_json=args.json)
    return 0


def cmd_prompt(args: argparse.Namespace, settings: Settings) -> int:
    benchmark = registry.get(args.benchmark)
    prompt = benchmark.prompt
    if not prompt:
        _fail(f"{benchmark.title} has no official prompt")
    sys.stdout.write(prompt)
    sys.stdout.flush()
    return 0


def _import(report: datafiles.LoadReport, settings: Settings) -> None:
    """Store the key a fetch or load wrote as the benchmark's current key, and say so."""
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
        _fail(f"the key is in the data folder but not in the database: {exc}")
    print(f"in use as key version {version} (database {settings.db_label})")


def cmd_data_fetch(args: argparse.Namespace, settings: Settings) -> int:
    benchmark = registry.get(args.benchmark)
    if not datafiles.can_fetch(benchmark):
        _fail(f"{benchmark.title} has no files to fetch")
    url = settings.source_url(benchmark.name)
    _import(asyncio.run(datafiles.fetch(settings.data_dir, benchmark, url)), settings)
    return 0


def cmd_data_load(args: argparse.Namespace, settings: Settings) -> int:
    benchmark = registry.get(args.benchmark)
    if benchmark.key_file is None:
        _fail(f"{benchmark.title} has no key files to load")
    if args.questions and benchmark.questions_file is None:
        _fail(f"{benchmark.title} has no question file")
    key = _read_input(args.key)
    questions = _read_input(args.questions) if args.questions else None
    _import(datafiles.load(settings.data_dir, benchmark, key, questions, source=args.key), settings)
    return 0


def cmd_run(args: argparse.Namespace, settings: Settings) -> int:
    from .telegram.app import StartupError, run  # imported here: scoring offline needs no Telegram

    settings.require_token()
    try:
        run(settings)
    except StartupError as exc:
        _fail(str(exc))
    return 0


def cmd_health(args: argparse.Namespace, settings: Settings) -> int:
    """Exit 0 when the database answers and every essential key (PrimeBench's) is there
    (a health check)."""
    from .core import health
    from .core.errors import StorageError
    from .core.services import opened

    async def check() -> health.Health:
        async with opened(settings) as services:
            return await health.check(services, stored=True)

    try:
        state = asyncio.run(check())
    except StorageError as exc:
        print(f"unhealthy: database: {exc}")
        return 1
    if state.database != "ok":
        print(f"unhealthy: database: {state.database}")
        return 1
    found = "; ".join(
        f"{registry.get(name).title} key {'loaded' if has else 'missing'}"
        for name, (has, _) in state.keys.items()
    )
    print(f"database ok (schema {state.schema}); {found}")
    return 0 if state.ok else 1


def cmd_db_backup(args: argparse.Namespace, settings: Settings) -> int:
    from .core.errors import StorageError
    from .core.services import opened

    async def backup() -> None:
        async with opened(settings) as services:
            await services.store.backup(args.path)

    try:
        asyncio.run(backup())
    except StorageError as exc:
        _fail(f"backup failed: {exc}")
    print(f"backup written to {args.path}")
    return 0


def cmd_db_port(args: argparse.Namespace, settings: Settings) -> int:
    """``db port --from bb.sqlite3 --to postgresql://...``: copy everything, verify."""
    from .core.dbport import port_database
    from .core.errors import StorageError
    from .settings import redact_url

    shown: dict[str, int] = {}

    def progress(table: str, rows: int) -> None:
        if rows - shown.get(table, 0) >= 50_000:
            shown[table] = rows
            print(f"  {table}: {rows} rows", flush=True)

    try:
        report = asyncio.run(
            port_database(
                args.source,
                args.target,
                into_non_empty=args.into_non_empty,
                batch=args.batch,
                progress=progress,
            )
        )
    except StorageError as exc:
        _fail(f"not ported: {exc}")
    for table, rows in report.counts.items():
        print(f"{table}: {rows} rows ({report.copied.get(table, 0)} copied now)")
    if not report.ok:
        _fail("the copy differs from the source: " + "; ".join(report.mismatches))
    if report.merged:
        print(f"added to {redact_url(args.target)}: every source row is there (boards mixed)")
        return 0
    verb = "resumed and verified" if report.resumed else "verified"
    print(f"ported to {redact_url(args.target)}: {verb}, {report.boards} boards equal")
    return 0


def cmd_webhook(args: argparse.Namespace, settings: Settings) -> int:
    """``webhook set|delete|info``: register the webhook once for every instance."""
    from .telegram.web import manage_webhook

    try:
        print(asyncio.run(manage_webhook(settings, args.action)))
    except Exception as exc:  # PTB's TelegramError, a missing setting: one line
        _fail(f"webhook {args.action} failed: {exc}")
    return 0


def cmd_db_restore(args: argparse.Namespace, settings: Settings) -> int:
    from .core import backups
    from .core.errors import StorageError

    if settings.db_url is not None:
        _fail(
            "BENCHBOARD_DB is PostgreSQL: restore with "
            f"`benchboard db port --from {args.path} --to URL` into an empty database"
        )

    try:
        version = backups.restore(args.path, settings.db_path)
    except StorageError as exc:
        _fail(f"not restored, nothing was changed: {exc}")
    print(f"restored {args.path} (schema {version}) to {settings.db_path}")
    return 0


def cmd_compare(args: argparse.Namespace, settings: Settings) -> int:
    """``compare natory --out chart.png``: the /compare chart from the bot's database."""
    from .core import boards
    from .core.errors import StorageError
    from .core.services import opened
    from .render.charts import natory_comparison_chart

    if not boards.comparable([args.benchmark]):
        costed = [b.name for b in registry.all_benchmarks() if "cost" in b.tag_fields]
        _fail(f"only {', '.join(costed)} has a cost and latency comparison, not {args.benchmark!r}")
    path = settings.db_label
    if settings.db_url is None and not settings.db_path.is_file():
        _fail(f"no database at {path}: set BENCHBOARD_DB or BENCHBOARD_DATA_DIR")

    async def read() -> boards.NatoryBoard:
        async with opened(settings) as services:
            return await boards.natory_comparison(services, limit=args.models)

    try:
        board = asyncio.run(read())
    except StorageError as exc:
        _fail(f"cannot read {path}: {exc}")
    if not board.rows:
        _fail(f"no published Natory attempts in {path}: nothing to compare")
    for row in board.rows:
        cost = "-" if row.mean_cost is None else f"${row.mean_cost:.3g}"
        latency = "-" if row.mean_latency is None else f"{row.mean_latency:.3g}s"
        print(
            f"{row.rank}. {row.model} · {mode_label(row.mode)}: mean {row.mean:.1f}, "
            f"best {row.best:g}, {row.attempts} attempts, {row.targets} targets, "
            f"cost {cost}, latency {latency}"
        )
    out = Path(args.out)
    try:
        out.write_bytes(natory_comparison_chart(board.rows))
    except OSError as exc:
        _fail(f"cannot write {out}: {exc.strerror}")
    print(f"chart of {len(board.rows)} models written to {out}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="benchboard",
        description="Score LLM benchmark outputs offline, and run the Benchboard Telegram bot.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    score = sub.add_parser("score", help="score a model's output (a file, or - for stdin)")
    score.add_argument(
        "file",
        metavar="FILE",
        help="the model's output; - reads stdin (natory: an existing file, or the expression "
        "itself; put -- before one that starts with -)",
    )
    score.add_argument(
        "--benchmark", "-b", default=registry.DEFAULT, help=f"default: {registry.DEFAULT}"
    )
    score.add_argument("--key", help="answer key file (default: the current one in the database)")
    score.add_argument("--k", type=int, help="attempts per question for pass@k (ZeroBench)")
    score.add_argument("--target", help="natory: the target number N")
    score.add_argument("--json", action="store_true", help="print one JSON object")
    score.set_defaults(handler=cmd_score)

    natory_cmd = sub.add_parser("natory", help="Natory: the day's target")
    natory_sub = natory_cmd.add_subparsers(dest="natory_command", required=True, metavar="ACTION")
    today = natory_sub.add_parser("today", help="print today's target and its allowed digits")
    today.add_argument("--date", help="another day (YYYY-MM-DD)")
    today.add_argument("--json", action="store_true", help="print one JSON object")
    today.set_defaults(handler=cmd_natory_today)

    prompt = sub.add_parser("prompt", help="print a benchmark's official prompt, byte-exact")
    prompt.add_argument("benchmark")
    prompt.set_defaults(handler=cmd_prompt)

    data = sub.add_parser("data", help="fetch or load official benchmark files")
    data_sub = data.add_subparsers(dest="data_command", required=True, metavar="ACTION")
    fetch = data_sub.add_parser("fetch", help="download, check and import a benchmark's key")
    fetch.add_argument("benchmark")
    fetch.set_defaults(handler=cmd_data_fetch)
    load = data_sub.add_parser("load", help="check and import a benchmark's key from local files")
    load.add_argument("benchmark")
    load.add_argument("--key", required=True, help="the answer key (PrimeBench: A.txt)")
    load.add_argument("--questions", help="PrimeBench's Q.json")
    load.set_defaults(handler=cmd_data_load)

    compare = sub.add_parser(
        "compare", help="chart score against cost and latency per model (Natory), as a PNG"
    )
    compare.add_argument("benchmark", help="natory")
    compare.add_argument("--out", default="natory-compare.png", help="the PNG file to write")
    compare.add_argument("--models", type=int, default=40, help="at most this many models")
    compare.set_defaults(handler=cmd_compare)

    health = sub.add_parser("health", help="exit 0 when the database and the key are ready")
    health.set_defaults(handler=cmd_health)

    db = sub.add_parser("db", help="back up or restore the database")
    db_sub = db.add_subparsers(dest="db_command", required=True, metavar="ACTION")
    db_backup = db_sub.add_parser("backup", help="write a consistent snapshot (bot may be running)")
    db_backup.add_argument("path")
    db_backup.set_defaults(handler=cmd_db_backup)
    db_restore = db_sub.add_parser("restore", help="check a snapshot, then replace the database")
    db_restore.add_argument("path")
    db_restore.set_defaults(handler=cmd_db_restore)
    db_port = db_sub.add_parser(
        "port", help="copy every table to another database (SQLite to PostgreSQL), verified"
    )
    db_port.add_argument("--from", dest="source", required=True, help="an SQLite file or URL")
    db_port.add_argument("--to", dest="target", required=True, help="postgresql://... (or a file)")
    db_port.add_argument(
        "--into-non-empty",
        "--force",
        dest="into_non_empty",
        action="store_true",
        help="add to a target that already holds rows (kept as they are)",
    )
    db_port.add_argument("--batch", type=int, default=2000, help="rows per transaction")
    db_port.set_defaults(handler=cmd_db_port)

    webhook = sub.add_parser(
        "webhook", help="register the webhook with Telegram once (for every instance)"
    )
    webhook.add_argument("action", choices=("set", "delete", "info"))
    webhook.set_defaults(handler=cmd_webhook)

    run = sub.add_parser("run", help="run the Telegram bot (needs BENCHBOARD_TOKEN)")
    run.set_defaults(handler=cmd_run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        settings = load_settings()
        handler: Callable[[argparse.Namespace, Settings], int] = args.handler
        return handler(args, settings)
    except (CliError, ScoringError, SettingsError, datafiles.DataError) as exc:
        print(f"benchboard: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0

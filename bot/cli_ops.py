"""The ``benchboard`` commands of the database and the servers: health, db backup,
restore and port, webhook, web, compare. :mod:`bot.cli` imports this module only when
one of them runs."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from scoring import registry

from .cli_common import Load, fail, read_defined

if TYPE_CHECKING:
    from storage import BoardRow


def cmd_web(args: argparse.Namespace, load: Load) -> int:
    """``web [--host H] [--port P]``: the web boards over HTTP, until SIGTERM or SIGINT."""
    from .core.errors import StartupError
    from .web import standalone

    try:
        standalone.run(load(), args.host, args.port)
    except StartupError as exc:
        fail(str(exc))
    return 0


def cmd_health(args: argparse.Namespace, load: Load) -> int:
    """Exit 0 when the database answers and the key of every benchmark
    marked ``essential`` is there (a health check)."""
    import asyncio

    from .core import health
    from .core.errors import StorageError
    from .core.services import opened

    settings = load()

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


def cmd_db_backup(args: argparse.Namespace, load: Load) -> int:
    import asyncio

    from .core.errors import StorageError
    from .core.services import opened

    settings = load()

    async def backup() -> None:
        async with opened(settings) as services:
            await services.store.backup(args.path)

    try:
        asyncio.run(backup())
    except StorageError as exc:
        fail(f"backup failed: {exc}")
    print(f"backup written to {args.path}")
    return 0


def cmd_db_port(args: argparse.Namespace, load: Load) -> int:
    """``db port --from bb.sqlite3 --to postgresql://...``: copy everything, verify."""
    import asyncio

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
        fail(f"not ported: {exc}")
    for table, rows in report.counts.items():
        print(f"{table}: {rows} rows ({report.copied.get(table, 0)} copied now)")
    if not report.ok:
        fail("the copy differs from the source: " + "; ".join(report.mismatches))
    if report.merged:
        print(f"added to {redact_url(args.target)}: every source row is there (boards mixed)")
        return 0
    verb = "resumed and verified" if report.resumed else "verified"
    print(f"ported to {redact_url(args.target)}: {verb}, {report.boards} boards equal")
    return 0


def cmd_webhook(args: argparse.Namespace, load: Load) -> int:
    """``webhook set|delete|info``: register the webhook once for every instance."""
    import asyncio

    from .telegram.web import manage_webhook

    try:
        print(asyncio.run(manage_webhook(load(), args.action)))
    except Exception as exc:  # PTB's TelegramError, a missing setting: one line
        fail(f"webhook {args.action} failed: {exc}")
    return 0


def cmd_db_restore(args: argparse.Namespace, load: Load) -> int:
    from .core import backups
    from .core.errors import StorageError

    settings = load()
    if settings.db_url is not None:
        fail(
            "BENCHBOARD_DB is PostgreSQL: restore with "
            f"`benchboard db port --from {args.path} --to URL` into an empty database"
        )

    try:
        version = backups.restore(args.path, settings.db_path)
    except StorageError as exc:
        fail(f"not restored, nothing was changed: {exc}")
    print(f"restored {args.path} (schema {version}) to {settings.db_path}")
    return 0


def cmd_compare(args: argparse.Namespace, load: Load) -> int:
    """``compare C --out chart.png`` (C: a challenge benchmark): the /compare chart from
    the bot's database."""
    from .core import challenges
    from .core.errors import StorageError
    from .core.services import opened
    from .render.charts import comparison_chart
    from .render.format import mode_label

    settings = load()

    benchmark = challenges.compared([args.benchmark])
    if benchmark is None:
        costed = [b.name for b in challenges.benchmarks()]
        fail(f"only {', '.join(costed)} has a cost and latency comparison, not {args.benchmark!r}")
    path = settings.db_label
    if settings.db_url is None and not settings.db_path.is_file():
        fail(f"no database at {path}: set BENCHBOARD_DB or BENCHBOARD_DATA_DIR")

    async def read() -> challenges.ChallengeBoard:
        async with opened(settings) as services:
            return await challenges.comparison(services, benchmark, limit=args.models)

    try:
        import asyncio

        board = asyncio.run(read())
    except StorageError as exc:
        fail(f"cannot read {path}: {exc}")
    if not board.rows:
        fail(f"no published {benchmark.title} attempts in {path}: nothing to compare")

    def count(n: int, word: str) -> str:
        return f"{n:,} {word}" + ("" if n == 1 else "s")

    for row in board.rows:
        cost = "-" if row.mean_cost is None else f"${row.mean_cost:.3g}"
        latency = "-" if row.mean_latency is None else f"{row.mean_latency:.3g}s"
        best = benchmark.format_score(row.best)
        print(
            f"{row.rank}. {row.model} · {mode_label(row.mode)}: mean {row.mean:,.1f}, "
            f"best {best}, {count(row.attempts, 'attempt')}, {count(row.targets, 'target')}, "
            f"cost {cost}, latency {latency}"
        )
    out = Path(args.out or f"{benchmark.name}-compare.png")
    try:
        out.write_bytes(comparison_chart(benchmark.title, board.rows))
    except OSError as exc:
        fail(f"cannot write {out}: {exc.strerror}")
    print(f"chart of {len(board.rows)} models written to {out}")
    return 0


def _waiting(name: str) -> Callable[[], None]:
    """What a command says when another process re-scores the benchmark first."""
    return lambda: print(
        f"waiting for the re-score of {name} that another process runs…", file=sys.stderr
    )


def cmd_rescore(args: argparse.Namespace, load: Load) -> int:
    """``rescore BENCHMARK``: re-score its stored submissions that are not on the current
    key and scorer version (the bot's ``/rescore``), printing the counts and the top
    before and after. Resumable: an interrupted run continues where it stopped."""
    import asyncio

    from .core import admin, notices
    from .core.errors import StorageError
    from .core.services import opened
    from .render.format import mode_label

    settings = load()
    if registry.find(args.benchmark) is None:
        read_defined(load)  # one defined by data?
    benchmark = registry.find(args.benchmark)
    if benchmark is None:
        fail(f"no benchmark {args.benchmark!r}: one of {', '.join(registry.names())}")
    name = benchmark.name
    if settings.db_url is None and not settings.db_path.is_file():
        fail(f"no database at {settings.db_label}: set BENCHBOARD_DB or BENCHBOARD_DATA_DIR")

    def top(rows: Sequence[BoardRow]) -> list[str]:
        shown = [
            f"  {r.rank}. {r.model} · {mode_label(r.mode)} · {benchmark.format_score(r.best)}"
            for r in rows
        ]
        return shown or ["  (empty)"]

    async def work() -> list[str]:
        async with opened(settings) as services:
            store = services.store
            pending = await store.pending_rescore(
                name, scorer_version=benchmark.scorer_version, keyless=benchmark.daily
            )
            if not pending:
                return [f"{benchmark.title}: no stored submission needs re-scoring"]
            before = (await store.leaderboard(name, limit=5)).rows
            # as /rescore: one at a time across processes, its users told by the bot
            ask = admin.RescoreAsk(benchmark, pending, before)
            report, after, batch = await admin.rescore(services, ask, waiting=_waiting(name))
            await notices.leave(services, batch)  # the bot sends them
        on = f"key version {report.key_version}" if report.key_version else "no key"
        told = len(batch.notices)
        return [
            f"{benchmark.title}: {report.rescored} of {report.total} submissions re-scored to "
            f"{report.scorer_version} ({on}), {report.changed} changed, "
            f"{report.seconds:.1f} s",
            f"{told} users whose published results changed get a notice from the bot "
            "(within a minute while it runs, else at its start)"
            if told
            else "no published result changed score or rank",
            "top before:",
            *top(before),
            "top after:",
            *top(after),
        ]

    try:
        lines = asyncio.run(work())
    except StorageError as exc:
        fail(f"re-score of {benchmark.title} stopped (run it again to resume): {exc}")
    print("\n".join(lines))
    return 0

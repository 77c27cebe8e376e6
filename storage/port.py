"""Copying a whole database to another engine: SQLite to PostgreSQL (``benchboard db
port``), and PostgreSQL to an SQLite file (its backup, ``Store.backup``).

Every table is copied with its ids, in primary-key order, one batch per transaction on
the target; the source is read in one snapshot. A port interrupted half-way is resumed
by running it again: each table continues after the largest key the target holds (a
row already there is left alone). The target records which source it is a copy of
(``shared_state``'s ``port:source``), so a second run knows a half-full target is its
own; any other non-empty target is refused unless ``into_non_empty``. At the end the
row counts of every table and a checksum of every board (each benchmark's global board
per mode, and each chat's board) are compared.

``shared_state`` is not copied: what it holds (a reply awaited, a job's claim, the send
rate's schedule) is about the running instances, not the data.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .db import Database, Session
from .errors import NotAllowed, StorageError
from .values import MODES


class Ported(Protocol):
    """What copying needs of a store (a :class:`storage.Store` is one)."""

    @property
    def db(self) -> Database: ...

    async def schema_version(self) -> int: ...

    async def export_csv(
        self, benchmark: str, *, columns: Sequence[str] | None = None, **board_filters: Any
    ) -> str: ...


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    key: tuple[str, ...]
    columns: tuple[str, ...]


_SUBMISSION = (
    "id", "user_id", "chat_id", "message_id", "benchmark_id", "key_version_id", "model",
    "model_norm", "mode", "raw", "raw_chars", "result", "score", "fingerprint",
    "scorer_version", "extra", "created_at", "published_at", "visibility", "verified",
    "group_verified", "origin", "score_se", "provider",
)  # fmt: skip

#: Every table, parents first. ``benchmarks.current_key_id`` is set after the keys.
TABLES: tuple[Table, ...] = (
    Table("users", ("id",), ("id", "first_name", "last_name", "username", "language_code",
                             "chosen_language", "first_seen", "last_seen", "public")),
    Table("chats", ("id",), ("id", "type", "title", "first_seen", "last_seen")),
    Table("benchmarks", ("id",), ("id", "name", "boards_stale", "challenge")),
    Table("key_versions", ("id",), ("id", "benchmark_id", "version", "sha256", "data",
                                    "source", "loaded_at")),
    Table("benchmark_definitions", ("benchmark_id", "version"),
          ("benchmark_id", "version", "kind", "sha256", "definition", "source", "loaded_at")),
    Table("submissions", ("id",), _SUBMISSION),
    Table("reference_results", ("id",), ("id", "benchmark_id", "model", "model_norm", "mode",
                                         "score", "source", "added_at")),
    Table("rescore_jobs", ("id",), ("id", "benchmark_id", "key_version_id", "scorer_version",
                                    "last_id", "total", "changed", "skipped", "started_at",
                                    "finished_at")),
    Table("bans", ("user_id",), ("user_id", "reason", "banned_by", "banned_at")),
    Table("audit_log", ("id",), ("id", "at", "actor_id", "chat_id", "action", "target",
                                 "reason")),
    Table("board_totals", ("benchmark_id", "model_norm", "mode"),
          ("benchmark_id", "model_norm", "mode", "runs", "score_sum", "best", "best_id",
           "best_at", "first_at", "last_at", "score_sq_sum")),
    Table("board_runs", ("benchmark_id", "model_norm", "mode", "last_at", "run_key"),
          ("benchmark_id", "model_norm", "mode", "last_at", "run_key", "best", "low",
           "first_at")),
    Table("board_days", ("benchmark_id", "model_norm", "mode", "day"),
          ("benchmark_id", "model_norm", "mode", "day", "runs", "score_sum", "mixed",
           "score_sq_sum")),
    Table("challenge_lines", ("benchmark_id", "target", "model_norm", "mode"),
          ("benchmark_id", "target", "model_norm", "mode", "attempts", "valid", "score_sum",
           "best", "targets", "cost_sum", "cost_n", "latency_sum", "latency_n", "first_at",
           "last_at", "top_id", "top_trivial", "top_score", "top_at", "top_simplified")),
    Table("challenge_days", ("benchmark_id", "day", "target", "model_norm", "mode"),
          ("benchmark_id", "day", "target", "model_norm", "mode", "attempts", "valid",
           "score_sum", "best", "cost_sum", "cost_n", "latency_sum", "latency_n",
           "first_at", "last_at", "top_id", "top_trivial", "top_score", "top_at",
           "top_simplified")),
    Table("challenge_spans", ("benchmark_id", "span", "model_norm", "mode"),
          ("benchmark_id", "span", "model_norm", "mode", "valid", "score_sum", "best")),
    Table("challenge_span_days", ("benchmark_id", "span"), ("benchmark_id", "span", "from_day")),
    Table("challenge_attempts", ("benchmark_id", "created_at", "id"),
          ("benchmark_id", "created_at", "id", "model_norm", "mode", "target", "score",
           "trivial")),
    Table("intake", ("update_id",), ("update_id", "body", "received_at", "done_at")),
    Table("links", ("token",), ("token", "kind", "submission_id", "chat_id", "created_by",
                                "created_at", "revoked_at")),
    Table("card_themes", ("user_id",), ("user_id", "theme")),
    Table("card_files", ("key",), ("key", "file_id", "created_at")),
    Table("api_tokens", ("id",), ("id", "user_id", "hash", "created_at", "last_used_at",
                                  "revoked_at")),
    Table("api_requests", ("id",), ("id", "user_id", "idempotency_key", "created_at")),
    Table("trust_answers", ("benchmark_id", "submission_id"),
          ("benchmark_id", "submission_id", "answers")),
    Table("trust_bands", ("benchmark_id", "hash", "submission_id"),
          ("benchmark_id", "hash", "submission_id", "user_id")),
    Table("trust_flags", ("submission_id",), ("submission_id", "reason", "state", "held_at",
                                              "decided_by", "decided_at")),
    Table("notice_prefs", ("user_id",), ("user_id", "off")),
    Table("sponsorships", ("id",), ("id", "user_id", "benchmark", "target", "name", "link",
                                    "stars", "charge_id", "created_at", "refunded_at")),
    Table("runs", ("id",), ("id", "benchmark", "model", "mode", "target", "attempts", "origin",
                            "requested_by", "chat_id", "progress_id", "sponsorship_id",
                            "dedupe", "state", "created_at", "finished_at")),
    Table("run_attempts", ("id",), ("id", "run_id", "n", "state", "owner", "lease_until",
                                    "submission_id", "score", "input_tokens", "output_tokens",
                                    "cost_usd", "latency_s", "transcript", "error",
                                    "finished_at")),
)  # fmt: skip
#: Not copied (see the module's docstring), and the schema's own record.
NOT_COPIED = ("shared_state", "schema_migrations")
#: Tables whose ``id`` is an identity column (PostgreSQL's sequences continue after it).
_WITH_IDS = ("benchmarks", "key_versions", "submissions", "reference_results",
             "rescore_jobs", "audit_log", "api_tokens", "api_requests", "sponsorships",
             "runs", "run_attempts")  # fmt: skip
_MARK = "port:source"

Progress = Callable[[str, int], None]


@dataclass(slots=True)
class PortReport:
    """What a port copied (rows this run, by table), what it found at the end (rows in
    the target, by table) and the boards it compared."""

    copied: dict[str, int] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    boards: int = 0
    resumed: bool = False
    #: copied into a database that held other rows: each table must hold at least the
    #: source's rows, and the boards (which mix both) are not compared
    merged: bool = False
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches


async def _any_rows(target: Ported) -> bool:
    async with target.db.read() as s:
        for table in TABLES:
            if await s.one(f"SELECT 1 FROM {table.name} LIMIT 1") is not None:
                return True
    return False


async def _mark(target: Ported) -> str | None:
    async with target.db.single() as s:
        row = await s.one("SELECT value FROM shared_state WHERE name = ?", (_MARK,))
    return None if row is None else str(row[0])


async def _last_key(target: Ported, table: Table) -> tuple[Any, ...] | None:
    order = ", ".join(f"{c} DESC" for c in table.key)
    async with target.db.single() as s:
        row = await s.one(
            f"SELECT {', '.join(table.key)} FROM {table.name} ORDER BY {order} LIMIT 1"
        )
    return None if row is None else tuple(row)


async def _copy_table(
    src: Session, target: Ported, table: Table, batch: int, progress: Progress | None
) -> int:
    cols, key = ", ".join(table.columns), ", ".join(table.key)
    marks = ", ".join("?" * len(table.columns))
    insert = f"INSERT INTO {table.name} ({cols}) VALUES ({marks}) ON CONFLICT DO NOTHING"
    last = await _last_key(target, table)
    copied = 0
    while True:
        if last is None:
            where, params = "", list[Any]()
        else:
            where = f"WHERE ({key}) > ({', '.join('?' * len(last))})"
            params = list(last)
        rows = await src.all(
            f"SELECT {cols} FROM {table.name} {where} ORDER BY {key} LIMIT ?", [*params, batch]
        )
        if not rows:
            return copied
        async with target.db.write() as s:
            await s.executemany(insert, [_plain(r) for r in rows])
        copied += len(rows)
        if progress is not None:
            progress(table.name, copied)
        positions = [table.columns.index(c) for c in table.key]
        last = tuple(rows[-1][i] for i in positions)


def _plain(row: Sequence[Any]) -> tuple[Any, ...]:
    """A row as the other engine takes it (``memoryview`` blobs as bytes)."""
    return tuple(bytes(v) if isinstance(v, memoryview) else v for v in row)


async def board_checksums(store: Ported) -> dict[str, str]:
    """A SHA-256 of every board: each benchmark's global board (all modes, and each
    mode) and each chat's board, as the CSV export writes them."""
    async with store.db.read() as s:
        names = [str(r[0]) for r in await s.all("SELECT name FROM benchmarks ORDER BY name")]
        chats = [
            (str(r[0]), int(r[1]))
            for r in await s.all(
                """SELECT DISTINCT b.name, v.chat_id FROM board_source AS v
                   JOIN benchmarks AS b ON b.id = v.benchmark_id ORDER BY 1, 2"""
            )
        ]
    sums: dict[str, str] = {}
    for name in names:
        for mode in (None, *MODES):
            text = await store.export_csv(name, mode=mode)
            sums[f"{name}/{mode or 'all'}"] = hashlib.sha256(text.encode()).hexdigest()
    for name, chat_id in chats:
        text = await store.export_csv(name, chat_id=chat_id)
        sums[f"{name}/chat {chat_id}"] = hashlib.sha256(text.encode()).hexdigest()
    return sums


async def port(
    source: Ported,
    target: Ported,
    *,
    source_name: str,
    into_non_empty: bool = False,
    batch: int = 2000,
    progress: Progress | None = None,
    compare_boards: bool = True,
) -> PortReport:
    """Copy every table of ``source`` into ``target`` (both open, migrated to the same
    version), then compare row counts and board checksums (:class:`PortReport`; its
    ``mismatches`` say what differs; ``compare_boards=False``: counts only, for a source
    that keeps changing, as a backup's does). ``source_name`` is recorded in the target
    (empty: not recorded). Raises :class:`NotAllowed` for a non-empty target
    that is not an unfinished port of ``source_name`` unless ``into_non_empty``."""
    if await source.schema_version() != await target.schema_version():
        raise StorageError("the source and the target are at different schema versions")
    report = PortReport()
    mark = await _mark(target)
    if await _any_rows(target):
        if mark is not None and mark.removesuffix(" done") == source_name:
            report.resumed = True
        elif not into_non_empty:
            raise NotAllowed(
                "the target database is not empty: port into an empty one, or pass "
                "--into-non-empty to add to it (rows already there are kept)"
            )
        else:
            report.merged = True
    if source_name:
        async with target.db.write() as s:
            await s.execute(
                """INSERT INTO shared_state (name, value) VALUES (?, ?)
                   ON CONFLICT (name) DO UPDATE SET value = excluded.value""",
                (_MARK, source_name),
            )
    async with source.db.snapshot() as src:
        for table in TABLES:
            report.copied[table.name] = await _copy_table(src, target, table, batch, progress)
        current = await src.all("SELECT id, current_key_id FROM benchmarks")
        counts = {
            t.name: int((await src.all(f"SELECT COUNT(*) FROM {t.name}"))[0][0]) for t in TABLES
        }
    async with target.db.write() as s:
        await s.executemany(
            "UPDATE benchmarks SET current_key_id = ? WHERE id = ?",
            [(r[1], r[0]) for r in current],
        )
    await target.db.reset_sequences(_WITH_IDS)
    async with target.db.read() as s:
        for table in TABLES:
            row = await s.one(f"SELECT COUNT(*) FROM {table.name}")
            report.counts[table.name] = int(row[0]) if row else 0
    for name, expected in counts.items():
        if report.counts[name] != expected and not (
            report.merged and report.counts[name] > expected
        ):
            report.mismatches.append(f"{name}: {expected} rows in the source, "
                                     f"{report.counts[name]} in the target")  # fmt: skip
    if compare_boards and not report.merged:
        before, after = await board_checksums(source), await board_checksums(target)
        report.boards = len(before)
        for board, digest in before.items():
            if after.get(board) != digest:
                report.mismatches.append(f"board {board} differs")
    if report.ok and source_name and not report.merged:
        async with target.db.write() as s:
            await s.execute(
                "UPDATE shared_state SET value = ? WHERE name = ?", (f"{source_name} done", _MARK)
            )
    return report

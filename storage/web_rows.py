"""What the web boards read beside a board page: the details of a page's rows (key hash,
the submitter's name when they chose to show it, a few figures of the result record),
the result tokens of a page's rows, and the "verified only" board.

Functions over a :class:`Store`, through its connection seam (``store.db``), like
:mod:`storage.analytics`. Every query reads rows by primary key or by an index
(``submissions_board_verified``, migration 9; ``links_live_submission``): none scans a
benchmark. No user id leaves this module: a row's submitter is a name or None.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .db import Conn
from .errors import InvalidData
from .models import Board, BoardRow
from .store import Store
from .values import MS_PER_DAY, Row, benchmark_name, check_page, clean_mode, dt

#: Rows whose details are read at once (a board page, or a sorted span of one).
MAX_IDS = 1000
#: A JSON path into a result record: ``$.name`` or ``$.a.b`` (no wildcards, no indexes).
_PATH = re.compile(r"^\$(\.[A-Za-z_][A-Za-z0-9_]{0,40}){1,4}$")


@dataclass(frozen=True, slots=True)
class RowInfo:
    """What a web board shows of one submission beside its board row.

    ``key_sha`` is the SHA-256 of the key it was scored against (None: no key);
    ``author`` the submitter's name if they opted in with ``/public``, else None;
    ``values`` the record figures asked for, by path (None where the record has none);
    ``chat_type`` the type of the chat it was published from.
    """

    id: int
    key_version: int | None
    key_sha: str | None
    author: str | None
    values: Mapping[str, Any]
    chat_type: str
    verified: bool = False
    #: who made it (``benchboard``: a run by Benchboard; None: a person)
    origin: str | None = None

    @property
    def mark(self) -> str:
        """``benchboard``, ``verified`` or ``self``."""
        return (
            "benchboard"
            if self.origin == "benchboard"
            else ("verified" if self.verified else "self")
        )


def _ids(ids: Iterable[int]) -> list[int]:
    found = sorted({int(i) for i in ids})
    if len(found) > MAX_IDS:
        raise InvalidData(f"at most {MAX_IDS} submissions at once")
    return found


def _author(public: Any, first_name: Any, username: Any) -> str | None:
    if not public:
        return None
    name = " ".join(str(first_name or "").split())
    return name or (f"@{username}" if username else None)


async def row_info(
    store: Store, submission_ids: Iterable[int], paths: Sequence[str] = ()
) -> dict[int, RowInfo]:
    """The details of the given submissions (one query, by primary key), by id."""
    ids = _ids(submission_ids)
    for path in paths:
        if not _PATH.match(path):
            raise InvalidData(f"not a plain JSON path: {path!r}")
    if not ids:
        return {}
    d = store.db.dialect
    extracted = "".join(f", {d.json_path('s.result')}" for _ in paths)
    sql = f"""SELECT s.id, k.version, k.sha256, u.public, u.first_name, u.username,
                     COALESCE(c.type, 'unknown'), s.verified, s.origin{extracted}
              FROM submissions AS s
              LEFT JOIN key_versions AS k ON k.id = s.key_version_id
              LEFT JOIN users AS u ON u.id = s.user_id
              LEFT JOIN chats AS c ON c.id = s.chat_id
              WHERE s.id IN ({",".join("?" * len(ids))})"""
    async with store.db.single() as s:
        rows = await s.all(sql, [*(d.path_param(p) for p in paths), *ids])
    return {
        int(r[0]): RowInfo(
            id=int(r[0]),
            key_version=r[1],
            key_sha=r[2],
            author=_author(r[3], r[4], r[5]),
            values=MappingProxyType(dict(zip(paths, r[9:], strict=True))),
            chat_type=str(r[6]),
            verified=bool(r[7]),
            origin=r[8],
        )
        for r in rows
    }


async def result_tokens(store: Store, submission_ids: Iterable[int]) -> dict[int, str]:
    """The live ``result`` link token of each submission, made for those without one (one
    read, and one write only when some are new). The caller links only what may be
    linked (published rows of a board)."""
    ids = _ids(submission_ids)
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    read = f"""SELECT submission_id, token FROM links WHERE kind = 'result'
               AND submission_id IN ({marks}) AND revoked_at IS NULL"""
    async with store.db.single() as s:
        found = {int(r[0]): str(r[1]) for r in await s.all(read, ids)}
    missing = [i for i in ids if i not in found]
    if missing:
        async with store.db.write() as s:
            # read again inside the write: another request may have made some meanwhile
            found.update({int(r[0]): str(r[1]) for r in await s.all(read, ids)})
            now = store._now_ms()
            new = [(secrets.token_urlsafe(12), i, now) for i in missing if i not in found]
            await s.executemany(
                "INSERT INTO links (token, kind, submission_id, created_at) "
                "VALUES (?, 'result', ?, ?)",
                new,
            )
            found.update({i: token for token, i, _ in new})
    return found


def _verified_rows(
    conn: Conn, name: str, mode: str | None, cutoff: int | None, benchboard: bool = False
) -> tuple[list[Row], int | None]:
    head = conn.execute(
        """SELECT b.id, k.version FROM benchmarks AS b
           LEFT JOIN key_versions AS k ON k.id = b.current_key_id WHERE b.name = ?""",
        (name,),
    ).fetchone()
    if head is None:
        return [], None
    sql = """SELECT model_norm, mode, score, created_at, id,
                    COALESCE(fingerprint, 'id:' || id), model, origin
             FROM submissions
             WHERE benchmark_id = ? AND visibility = 'published' AND verified = 1
               AND user_id NOT IN (SELECT user_id FROM bans)"""
    params: list[Any] = [head[0]]
    if benchboard:  # runs by Benchboard are verified: the same index finds them
        sql += " AND origin = 'benchboard'"
    if mode is not None:
        sql += " AND mode = ?"
        params.append(mode)
    if cutoff is not None:
        sql += " AND created_at >= ?"
        params.append(cutoff)
    return conn.execute(sql, params).fetchall(), head[1]


async def verified_page(
    store: Store,
    benchmark: str,
    *,
    mode: str | None = None,
    days: int | None = None,
    limit: int = 10,
    offset: int = 0,
    benchboard: bool = False,
) -> Board:
    """A page of the global board made of verified results only (``benchboard``: of runs
    by Benchboard only): one row per (model,
    mode) with its best verified result, runs (equal answer sets are one run) and their
    mean, ranked as ``Store.leaderboard`` ranks (equal bests share a rank, the earlier
    first). Reads the verified rows from their own index and groups them here."""
    check_page(limit, offset)
    if days is not None and days <= 0:
        raise InvalidData("days must be a positive number of days")
    name, mode_value = benchmark_name(benchmark), clean_mode(mode)
    cutoff = None if days is None else store._now_ms() - days * MS_PER_DAY
    found, key_version = await store.db.run(
        lambda conn: _verified_rows(conn, name, mode_value, cutoff, benchboard)
    )
    # per group: [best row, {run: best score}, first time, last time]
    groups: dict[tuple[str, str], list[Any]] = {}
    for row in found:
        norm, group_mode, score, created_at, row_id, run_key, _, _ = row
        line = groups.get((norm, group_mode))
        if line is None:
            groups[(norm, group_mode)] = [row, {run_key: score}, created_at, created_at]
            continue
        best = line[0]
        if (-score, created_at, row_id) < (-best[2], best[3], best[4]):
            line[0] = row
        if line[1].get(run_key, score) <= score:
            line[1][run_key] = score
        line[2], line[3] = min(line[2], created_at), max(line[3], created_at)
    lines = sorted(groups.values(), key=lambda g: (-g[0][2], g[0][3], g[0][4]))
    rows: list[BoardRow] = []
    rank = 0
    for i, (best, runs, first_at, last_at) in enumerate(lines[: offset + limit]):
        if not i or best[2] != lines[i - 1][0][2]:
            rank = i + 1
        if i < offset:
            continue
        rows.append(
            BoardRow(
                rank=rank,
                model=best[6],
                mode=best[1],
                best=best[2],
                runs=len(runs),
                mean=sum(runs.values()) / len(runs),
                submission_id=best[4],
                user_id=None,
                first_at=dt(first_at),
                last_at=dt(last_at),
                verified=True,
                benchboard=best[7] == "benchboard",
            )
        )
    return Board(rows=tuple(rows), total=len(lines), key_version=key_version)

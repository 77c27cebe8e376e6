"""Admins and what they do: who may act where, moderation, answer keys, export, backup.

No Telegram here: the handlers in ``bot.telegram.admin_handlers`` send what
``bot.render.admin_format`` renders, and pass in how to ask Telegram whether someone
administers a group.

Who is an admin:

- the user ids in ``BENCHBOARD_ADMINS`` — bot-wide, everywhere;
- in a group, its Telegram administrators (creator or administrator, asked of
  Telegram and cached for :data:`ADMIN_TTL` seconds) — for that group's board
  only: they hide, unhide and verify results published from that group, and read
  that group's audit log; their ✅ shows on that group's board only (a bot admin's on
  every board). They do not release, unhide or verify their own results, nor unhide
  one a review rejected. Bans, keys, key info and backups are for bot admins only.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TypeVar

from scoring import Benchmark, ChallengeKey, KeyCheck, UnknownBenchmark, registry
from storage import (
    AuditEntry,
    Ban,
    BoardRow,
    Flag,
    NotAllowed,
    RescoreReport,
    Submission,
    Visibility,
)

from ..render.csvboards import board_csv
from ..render.views import KeyDoubt, KeyInfo
from ..render.webviews import WebQuery
from . import challenges, datafiles, keys, leases, notices, questions, trust, webboards
from .bounded import Lru, parse_id
from .errors import StoreUnavailable, UserError
from .rescore import rescore as rescore_all
from .services import LoadedKey, Services, until_answered

log = logging.getLogger(__name__)
T = TypeVar("T")

#: How long a group-administrator answer from Telegram is trusted (seconds).
ADMIN_TTL = 60.0
#: Group-administrator answers kept at most.
ADMIN_CACHE_MAX = 10_000
#: Telegram's limit for a document a bot uploads.
UPLOAD_LIMIT = 50 * 1024 * 1024
#: Board rows shown before and after a re-score.
TOP = 5


#: Asks Telegram whether a user administers a group: ``(chat_id, user_id) -> bool``.
AdminLookup = Callable[[int, int], Awaitable[bool]]


class AdminCache:
    """Group-administrator answers, each trusted for ``ttl`` seconds; at most
    ``maxsize`` kept (the least recently used forgotten first)."""

    def __init__(
        self,
        ttl: float = ADMIN_TTL,
        clock: Callable[[], float] = time.monotonic,
        maxsize: int = ADMIN_CACHE_MAX,
    ):
        self.ttl = ttl
        self._clock = clock
        self._entries: Lru[tuple[int, int], tuple[float, bool]] = Lru(maxsize)

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, chat_id: int, user_id: int) -> bool | None:
        found = self._entries.get((chat_id, user_id))
        if found is None or found[0] <= self._clock():
            return None
        return found[1]

    def put(self, chat_id: int, user_id: int, is_admin: bool) -> None:
        self._entries[(chat_id, user_id)] = (self._clock() + self.ttl, is_admin)


@dataclass(frozen=True, slots=True)
class Actor:
    """Who asks, where, and with which powers."""

    user_id: int
    chat_id: int
    in_group: bool
    bot_admin: bool
    group_admin: bool
    #: speaking as a chat (an anonymous group admin, or a channel): Telegram names a
    #: placeholder user every group shares, so who it is cannot be known (nor logged)
    anonymous: bool = False

    @property
    def admin(self) -> bool:
        return self.bot_admin or self.group_admin


async def identify(
    services: Services,
    cache: AdminCache,
    is_group_admin: AdminLookup,
    *,
    user_id: int,
    chat_id: int,
    in_group: bool,
    anonymous: bool = False,
) -> Actor:
    """The asker's powers; asks Telegram (through the cache) only in groups, and never
    about an anonymous asker (who has none)."""
    if anonymous:
        return Actor(user_id, chat_id, in_group, False, False, anonymous=True)
    bot_admin = user_id in services.settings.admins
    group_admin = False
    if in_group and not bot_admin:
        cached = cache.get(chat_id, user_id)
        if cached is None:
            cached = await is_group_admin(chat_id, user_id)
            cache.put(chat_id, user_id, cached)
        group_admin = cached
    return Actor(user_id, chat_id, in_group, bot_admin, group_admin)


def require_admin(actor: Actor) -> None:
    if actor.anonymous:
        raise UserError("anonymous_admin")
    if not actor.admin:
        raise UserError("not_admin")


def require_bot_admin(actor: Actor) -> None:
    if actor.anonymous:
        raise UserError("anonymous_admin")
    if not actor.bot_admin and actor.group_admin:
        raise UserError("bot_admin_only")
    if not actor.bot_admin:
        raise UserError("not_admin")


def _reason(words: list[str]) -> str | None:
    return " ".join(words).strip() or None


def _int_arg(words: list[str], usage: str) -> int:
    """The id a command names first (``42`` or ``#42``); its usage for anything else,
    such as a number no submission or user can have."""
    value = parse_id(words[0].removeprefix("#")) if words else None
    if value is None:
        raise UserError(usage)
    return value


# --- hide, unhide, verify ------------------------------------------------------------

MODERATION = ("hide", "unhide", "verify")


async def _moderated(services: Services, actor: Actor, submission_id: int) -> Submission:
    """The submission an admin acts on: it exists and, for a group's admin, was published
    from their group."""
    sub = await services.store.get_submission(submission_id)
    if sub is None:
        raise UserError("not_found", id=submission_id)
    if not actor.bot_admin and sub.chat_id != actor.chat_id:
        raise UserError("not_this_group", id=submission_id)
    return sub


async def _not_overruled(services: Services, actor: Actor, sub: Submission, action: str) -> None:
    """A group's admin puts no result on the boards (or marks it) on their own say-so:
    not their own (anyone can make a group and administer it, so the copy check would
    hold nothing), and not one a review rejected (rejected is for good)."""
    if actor.bot_admin or action not in ("unhide", "verify", "release"):
        return
    if sub.user_id == actor.user_id:
        raise UserError("own_result", id=sub.id)
    if action == "unhide":
        flag = await services.store.flag_of(sub.id)
        if flag is not None and flag.state == trust.REJECTED:
            raise UserError("rejected_for_good", id=sub.id)


async def _state(services: Services, sub: Submission) -> str:
    """Where a result stands, as a refusal names it (a ``state_`` catalogue id's end):
    its visibility, or ``held`` for one waiting for review (private to the store)."""
    return "held" if await trust.is_held(services, sub) else sub.visibility.value


async def moderate(services: Services, actor: Actor, action: str, args: list[str]) -> Submission:
    """``/hide|/unhide|/verify <id> [reason]``: change a result and log who, when, why."""
    require_admin(actor)
    submission_id = _int_arg(args, f"usage_{action}")
    reason = _reason(args[1:])
    store = services.store
    sub = await _moderated(services, actor, submission_id)
    await _not_overruled(services, actor, sub, action)
    required = {"hide": Visibility.PUBLISHED, "unhide": Visibility.HIDDEN}.get(action)
    if required is not None and sub.visibility is not required:  # (the store is idempotent)
        raise UserError(f"cannot_{action}", id=sub.id, state=await _state(services, sub))
    try:
        if action == "hide":
            sub = await store.hide(sub.id)
        elif action == "unhide":
            sub = await store.unhide(sub.id)
        else:  # a group's admin verifies for their group's board; a bot admin for all
            sub = await store.verify(sub.id, group=not actor.bot_admin)
    except NotAllowed:
        state = await _state(services, sub)
        raise UserError(f"cannot_{action}", id=sub.id, state=state) from None
    await store.log_action(actor.user_id, action, str(sub.id), chat_id=sub.chat_id, reason=reason)
    return sub


async def verify(services: Services, actor: Actor, args: list[str]) -> tuple[Submission, bool]:
    """``/verify <id> [reason]``: a held result is released (published, verified); any
    other is marked verified. True when it was a release."""
    require_admin(actor)
    submission_id = _int_arg(args, "usage_verify")
    sub = await services.store.get_submission(submission_id)
    if sub is not None and (
        await trust.is_held(services, sub) or await trust.withdrawn_held(services, sub)
    ):
        done = await decide(services, actor, sub.id, release=True, reason=_reason(args[1:]))
        return done.submission, True
    return await moderate(services, actor, "verify", args), False


# --- results held for review (the copy check) ----------------------------------------

#: Held results a ``/flags`` page shows.
FLAGS_PAGE = 5


async def flags(services: Services, actor: Actor, page: int = 0) -> tuple[list[Flag], int]:
    """``/flags``: the results held for review, newest first (in a group: those
    published from it, whoever asks; a bot admin in a private chat: every one), a page
    of :data:`FLAGS_PAGE`; and how many there are."""
    require_admin(actor)
    # a list a bot admin asks for in a group is read by the whole group: never others'
    chat_id = actor.chat_id if actor.in_group else None
    return await services.store.held_results(
        chat_id=chat_id, limit=FLAGS_PAGE, offset=max(0, page) * FLAGS_PAGE
    )


@dataclass(frozen=True, slots=True)
class Decision:
    """An admin's decision on a held result: the submission as it now stands."""

    submission: Submission
    released: bool


async def decide(
    services: Services, actor: Actor, submission_id: int, *, release: bool, reason: str | None
) -> Decision:
    """Release (publish, verified by whoever released it) or reject (hide) a held
    result; the decision goes to the audit log. A result no longer held is refused."""
    require_admin(actor)
    store = services.store
    sub = await _moderated(services, actor, submission_id)
    if await trust.withdrawn_held(services, sub):
        # its owner took it back (a stale or forged button): it stays as they left it
        raise UserError("held_withdrawn", id=submission_id)
    if not await trust.is_held(services, sub):
        raise UserError("not_held", id=submission_id)
    if release:
        await _not_overruled(services, actor, sub, "release")
    # the decision is claimed first (one statement, only while the result is held): of
    # two admins deciding at once, or one pressing twice, only one acts
    state = trust.RELEASED if release else trust.REJECTED
    if not await store.decide(sub.id, state, by=actor.user_id):
        raise UserError("not_held", id=submission_id)
    try:
        if release:
            sub = await store.release_held(sub.id)
            sub = await store.verify(sub.id, group=not actor.bot_admin)
        else:
            sub = await store.reject(sub.id)
    except NotAllowed:
        # changed since it was read: withdrawn by its owner meanwhile, still held
        await store.undecide(sub.id, state)
        now = await store.get_submission(sub.id)
        if now is not None and now.visibility is Visibility.WITHDRAWN:
            raise UserError("held_withdrawn", id=submission_id) from None
        raise UserError("not_held", id=submission_id) from None
    action = "release" if release else "reject"
    await store.log_action(actor.user_id, action, str(sub.id), chat_id=sub.chat_id, reason=reason)
    return Decision(sub, release)


# --- bans ------------------------------------------------------------------------------


async def ban(services: Services, actor: Actor, args: list[str]) -> Ban:
    require_bot_admin(actor)
    user_id = _int_arg(args, "usage_ban")
    if user_id in services.settings.admins:
        raise UserError("cannot_ban_admin")
    return await services.store.ban(user_id, by=actor.user_id, reason=_reason(args[1:]))


async def unban(services: Services, actor: Actor, args: list[str]) -> tuple[int, bool]:
    require_bot_admin(actor)
    user_id = _int_arg(args, "usage_unban")
    lifted = await services.store.unban(user_id, by=actor.user_id, reason=_reason(args[1:]))
    return user_id, lifted


# --- the audit log ---------------------------------------------------------------------


async def audit(services: Services, actor: Actor, limit: int = 20) -> list[AuditEntry]:
    """Bot admins in a private chat see every entry; in a group, its board's entries."""
    require_admin(actor)
    if actor.in_group:
        return await services.store.audit_log(chat_id=actor.chat_id, limit=limit)
    return await services.store.audit_log(limit=limit)


# --- answer keys -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KeyChange:
    benchmark: Benchmark
    loaded: LoadedKey
    note: str
    pending: int
    before: tuple[BoardRow, ...]


def keyed_benchmark(args: list[str]) -> Benchmark:
    """The benchmark named by ``/setkey NAME`` (one with an answer key)."""
    keyed = keys.keyed()
    usage = UserError("usage_setkey", benchmarks=", ".join(b.name for b in keyed))
    if not args:
        raise usage
    try:
        benchmark = registry.get(args[0])
    except UnknownBenchmark:
        raise usage from None
    if benchmark.key_file is None:
        raise usage
    return benchmark


def _checked(benchmark: Benchmark, data: bytes) -> KeyCheck:
    try:
        return datafiles.check_key(benchmark, data)
    except datafiles.DataError as exc:
        raise UserError("bad_key", reason=str(exc)) from None


async def install_key(
    services: Services, actor: Actor, benchmark: Benchmark, data: bytes, *, source: str
) -> KeyChange:
    """Validate an uploaded key, store its version (a new one when the SHA-256 differs;
    in the benchmark's canonical form) and use it at once. Re-scoring is the caller's
    next step (:func:`rescore`), in the background."""
    require_bot_admin(actor)
    name = benchmark.name
    store = services.store
    before = (await store.leaderboard(name, limit=TOP)).rows
    checked = await asyncio.to_thread(_checked, benchmark, data)
    note = checked.note
    loaded = await keys.load_key(services, name, checked.data, source)
    await store.log_action(
        actor.user_id, "setkey", f"{name} v{loaded.version.version}", reason=loaded.version.sha256
    )
    pending = await store.pending_rescore(name)
    return KeyChange(benchmark, loaded, note, pending, before)


@dataclass(frozen=True, slots=True)
class RescoreAsk:
    """An admin's ``/rescore BENCHMARK``: how many stored submissions wait, the top before."""

    benchmark: Benchmark
    pending: int
    before: tuple[BoardRow, ...]


def rescored_benchmark(args: list[str]) -> Benchmark:
    """The benchmark named by ``/rescore NAME`` (any in the registry)."""
    usage = UserError("usage_rescore", benchmarks=", ".join(registry.names()))
    if not args:
        raise usage
    try:
        return registry.get(args[0])
    except UnknownBenchmark:
        raise usage from None


async def ask_rescore(services: Services, actor: Actor, args: list[str]) -> RescoreAsk:
    """``/rescore BENCHMARK``: how many stored submissions are not on the current key and
    scorer version (a benchmark without stored keys: scorer version). Re-scoring is the
    caller's next step (:func:`rescore`), in the background, when any wait."""
    require_bot_admin(actor)
    benchmark = rescored_benchmark(args)
    name = benchmark.name
    store = services.store
    if not benchmark.daily and await store.current_key(name) is None:
        raise UserError("no_key", benchmark=benchmark.title, name=benchmark.name)
    pending = await store.pending_rescore(
        name, scorer_version=benchmark.scorer_version, keyless=benchmark.daily
    )
    before = (await store.leaderboard(name, limit=TOP)).rows
    await store.log_action(
        actor.user_id, "rescore", f"{name} {benchmark.scorer_version}", reason=f"{pending} pending"
    )
    return RescoreAsk(benchmark, pending, before)


async def rescore(
    services: Services,
    change: KeyChange | RescoreAsk,
    *,
    waiting: Callable[[], None] | None = None,
) -> tuple[RescoreReport, tuple[BoardRow, ...], notices.Batch]:
    """Re-score every stored submission of the benchmark; the report, the new top, and
    the notices for the users whose published results changed score or rank (kept
    until sent: :func:`bot.core.notices.deliver`). ``waiting`` is called once when it
    waits for another process's re-score of the benchmark."""
    name = change.benchmark.name
    # one at a time, whichever instance or process runs it (``/setkey`` then
    # ``/rescore``, ``/rescore`` twice, ``benchboard rescore``): two at once would both
    # compare with the scores before and tell every user twice
    async with leases.held(services, f"rescore.{name}", waiting=waiting) as holder:
        # a database that stops answering meanwhile is waited for (each step again;
        # the re-score resumes after its last committed batch): never a failed re-score

        def patiently(work: Callable[[], Awaitable[T]]) -> Awaitable[T]:
            return until_answered(work, services.settings, log, f"re-scoring {name}")

        before = await patiently(lambda: notices.before(services, name))
        report = await patiently(lambda: rescore_all(services.store, name))
        after = (await patiently(lambda: services.store.leaderboard(name, limit=TOP))).rows
        batch = await patiently(
            lambda: notices.changes(services, change.benchmark, before, owner=holder)
        )
        return report, after, batch


@dataclass(frozen=True, slots=True)
class Resumed:
    """A re-score a process left part way, finished: its report, top after, notices."""

    benchmark: Benchmark
    report: RescoreReport
    after: tuple[BoardRow, ...]
    notices: notices.Batch


async def resume_rescores(services: Services) -> list[Resumed]:
    """At a start: the re-scores that stopped part way (their process died, or the
    database went away) and that nobody runs now, finished, each with its notices (from
    the scores before its first run)."""
    out = []
    for name in await services.store.scores_kept_before():
        benchmark = registry.find(name)
        holder = leases.owner()
        if benchmark is None or not await leases.take(services, f"rescore.{name}", holder):
            continue  # gone, or running in another process
        async with leases.kept(services, f"rescore.{name}", holder):
            if await services.store.scores_before(name) is None:
                continue  # finished meanwhile
            before = await notices.before(services, name)
            try:
                report = await rescore_all(services.store, name)
            except StoreUnavailable:
                raise  # (the database: the next start tries again)
            except Exception:  # this one's (its scorer, its key): the others are resumed
                log.exception("the re-score of %s left part way fails again", name)
                continue
            after = (await services.store.leaderboard(name, limit=TOP)).rows
            batch = await notices.changes(services, benchmark, before, owner=holder)
        out.append(Resumed(benchmark, report, after, batch))
    return out


#: How long a process that saw another change a key waits before it catches up: the
#: re-score that change started takes its lease in the meantime.
CATCH_UP_S = 10.0


async def catch_up(services: Services, name: str, *, delay: float = CATCH_UP_S) -> Resumed | None:
    """Another process changed the benchmark's key in use here: once the re-score that
    change started is done (or when none was: ``benchboard data load``), re-score what is
    still on another key (what this process scored against the old key meanwhile), with
    its notices; None when nothing was left."""
    benchmark = registry.find(name)
    if benchmark is None:
        return None
    await asyncio.sleep(delay)
    async with leases.held(services, f"rescore.{name}") as holder:
        if not await services.store.pending_rescore(name):
            return None
        before = await notices.before(services, name)
        report = await rescore_all(services.store, name)
        after = (await services.store.leaderboard(name, limit=TOP)).rows
        batch = await notices.changes(services, benchmark, before, owner=holder)
    return Resumed(benchmark, report, after, batch)


async def key_info(services: Services, actor: Actor, *, private: bool = True) -> list[KeyInfo]:
    """``/keyinfo``: every keyed benchmark's key; in a private chat, for a benchmark with
    questions, the questions whose key most of the strongest results contradict (a
    possible key error, for ``/setkey``; never in a group: it names key options)."""
    require_bot_admin(actor)
    out = []
    for benchmark in keys.keyed():
        versions = await services.store.key_versions(benchmark.name)
        loaded = services.keys.get(benchmark.name)
        if loaded is None:
            out.append(KeyInfo(benchmark, None, "", None, len(versions)))
        else:
            source = loaded.source or loaded.version.source
            strong, doubts = 0, list[KeyDoubt]()
            if private and benchmark.has_questions:
                strong, doubts = await questions.key_doubts(services, benchmark)
            info = KeyInfo(
                benchmark, loaded.version, source, loaded.loaded_at, len(versions),
                strong=strong, doubts=tuple(doubts),
            )  # fmt: skip
            out.append(info)
    return out


# --- export and backup -----------------------------------------------------------------


async def set_challenge_target(
    services: Services, actor: Actor, benchmark: Benchmark, args: list[str]
) -> tuple[ChallengeKey, str]:
    """A bot admin chooses the target of a day (today, UTC, by default) of a challenge
    benchmark."""
    require_bot_admin(actor)
    command = challenges.spec(benchmark).command
    if not args or len(args) > 2:
        raise UserError("daily_set_usage", command=command)
    try:
        day = date.fromisoformat(args[1]) if len(args) == 2 else datetime.now(UTC).date()
        challenge = await challenges.choose(services, benchmark, day, args[0])
    except (ValueError, datafiles.DataError):
        raise UserError("daily_set_usage", command=command) from None
    await services.store.log_action(
        actor.user_id,
        f"{command}_target",
        f"{day.isoformat()}={challenge.target}",
        chat_id=actor.chat_id,
    )
    return challenge, day.isoformat()


async def export_board(
    services: Services, actor: Actor, args: list[str]
) -> tuple[Benchmark, str, bytes]:
    """``/export [benchmark]``: the board as CSV — a group's own in a group, else global
    — with the web board's columns (names only of those who chose ``/public``)."""
    try:
        benchmark = registry.get(args[0]) if args else registry.get(registry.DEFAULT)
    except UnknownBenchmark:
        raise UserError("usage_export", benchmarks=", ".join(registry.names())) from None
    # the web board's CSV, every page of it: one column set for both
    chat_id = actor.chat_id if actor.in_group else None
    query = WebQuery(benchmark.name, per=webboards.MAX_PER)
    board = await webboards.board(services, query, chat_id=chat_id)
    rows = list(board.rows)
    for page in range(1, board.pages):
        more = await webboards.board(services, replace(query, page=page), chat_id=chat_id)
        rows += more.rows
    text = board_csv(replace(board, rows=tuple(rows)))
    scope = f"chat{actor.chat_id}" if actor.in_group else "global"
    return benchmark, f"{benchmark.name}-{scope}.csv", text.encode("utf-8")


@dataclass
class Snapshot:
    """A backup file in a temporary folder; ``close()`` removes it."""

    path: Path
    size: int
    _folder: tempfile.TemporaryDirectory[str]

    def close(self) -> None:
        self._folder.cleanup()


async def snapshot(services: Services, actor: Actor) -> Snapshot:
    """``/backup``: a consistent copy of the database (bot admins, private chat only)."""
    require_bot_admin(actor)
    if actor.in_group:
        raise UserError("backup_private_only")
    folder = tempfile.TemporaryDirectory(prefix="benchboard-backup-")
    path = Path(folder.name) / "benchboard.sqlite3"
    try:
        await services.store.backup(path)
    except BaseException:
        folder.cleanup()
        raise
    return Snapshot(path, path.stat().st_size, folder)

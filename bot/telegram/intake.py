"""Durable intake: every update is kept in the database before Telegram is told it
arrived, and marked done once handled, so a process that dies loses nothing.

- Polling (:func:`poll`): our own ``getUpdates`` loop feeds the Application. A batch is
  admitted in one transaction before the next ``getUpdates`` moves the offset past it
  (which is what confirms it to Telegram).
- Webhook (``web.py``): :meth:`Intake.receive_one` admits the update before the request
  answers 200; admits arriving together are committed together.
- On start, :meth:`Intake.replay` queues the updates a previous process left unfinished,
  oldest first, before anything new is taken: on PostgreSQL only those whose lease has
  lapsed, never those a running instance is handling (see "Several instances").
- An update is marked done after its handlers ran and their replies went out
  (``LoggingApplication.process_update``). The effects are idempotent (a submission is
  unique on its chat and message, a publication is a state change that checks the day's
  allowance in its own transaction), so handling an update again after a crash repeats
  the answer, never the effect.
- A reply that still fails with a transient fault after the sender's retries
  (``http.RetryingRateLimiter``) leaves its update unfinished: it is handled again later
  in this process (:meth:`Intake.later`) and, if the process stops, after the restart.
- Handled entries are pruned after a day (Telegram keeps updates 24 hours).

Several instances (PostgreSQL) share the intake as a work queue (``storage.intake``):
the instance that admits an update holds a lease on it, from the same statement. While
it handles the update — queued, running, kept for a later try (:meth:`Intake.handled`:
its lease is renewed like the others, not released, so no other instance answers it
meanwhile), its done mark on its way — :meth:`Intake.run_leases` renews the lease every
:data:`RENEW_EVERY` seconds. An instance that dies stops renewing: within
``core.LEASE_SECONDS`` its leases lapse, and every :data:`CLAIM_EVERY` seconds each
instance takes lapsed ones (one indexed statement; on PostgreSQL ``FOR UPDATE SKIP
LOCKED``, so two instances never take the same) and handles them. A stopping instance
releases what it still holds, for the others to take at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar
from urllib.parse import urlencode

from telegram import Update
from telegram.error import Conflict, InvalidToken, NetworkError, RetryAfter
from telegram.request import BaseRequest

from storage import StoreUnavailable

from ..core import intake as core
from ..core.services import Services
from .context import BotApp
from .outage import PATIENCE, DatabaseWait, is_unavailable
from .spool import Spool

T = TypeVar("T")
log = logging.getLogger("benchboard.intake")

INTAKE = "intake"
#: bot_data's key for the transport of getUpdates (the bot's ``get_updates_request``)
UPDATES_REQUEST = "updates_request"
#: Seconds a getUpdates long poll waits for updates.
POLL_TIMEOUT = 10
#: Updates per getUpdates (Telegram's maximum).
POLL_LIMIT = 100
#: Seconds between renewals of this instance's leases (a quarter of a lease: three
#: renewals may be missed, or the event loop stall that long, before one lapses).
RENEW_EVERY = core.LEASE_SECONDS / 4
#: Seconds between looks for updates whose lease lapsed (an instance died).
CLAIM_EVERY = 1.0
#: Seconds after the database answers again (its outage let every lease lapse) before
#: an instance takes lapsed leases: time for each live instance to renew its own (its
#: renewal comes every RENEW_EVERY, once its pool has a connection again), so an update
#: one instance kept through the outage is not answered by another too.
CLAIM_GRACE = 5.0


class Intake:
    """Updates from their arrival to their completion, for one Application."""

    def __init__(
        self,
        app: BotApp,
        services: Services,
        *,
        retry_every: float = 20.0,
        max_retries: int = 30,
        prune_every: float = 3600.0,
    ) -> None:
        self.app = app
        self.services = services
        self.retry_every = retry_every
        self.max_retries = max_retries
        self.prune_every = prune_every
        #: updates whose replies failed for a transient fault: handled again later
        self._later: dict[int, Update] = {}
        self._tries: dict[int, int] = {}
        self._admits: list[tuple[dict[str, Any], asyncio.Future[bool]]] = []
        self._admitter: asyncio.Task[None] | None = None
        #: updates whose handling failed because the database did not answer
        self.db_wait = DatabaseWait(app, services)
        #: a lease job met the database away: every lease may have lapsed since
        self._leases_lost = False
        #: loop time before which lapsed leases are left to their instances
        self._claims_from = 0.0
        #: webhook updates the database could not admit, on disk until it answers
        self.spool = Spool(services.settings.data_dir / "spool")
        self._draining = asyncio.Lock()  # one drain at a time (the start's, a probe's)
        self.db_wait.on_back.append(self.drain_spool)

    # --- arrival ---------------------------------------------------------------------

    def parse(self, data: Any) -> Update | None:
        """The update in a JSON value, or None when it is not a well-formed update (an
        update id beyond what the store keeps among them)."""
        if not core.keepable(data):
            return None
        try:
            return Update.de_json(data, self.app.bot)
        except Exception:  # anything PTB cannot read is not an update we can handle
            log.warning("malformed update ignored", extra={"update_id": data.get("update_id")})
            return None

    async def admit(self, batch: Sequence[Any]) -> list[dict[str, Any]]:
        """Keep a getUpdates batch in one transaction; returns the updates not kept before,
        in order, for :meth:`dispatch`. Entries without an update id the store can keep
        are skipped (logged): no update Telegram could send is one."""
        entries = [d for d in batch if core.keepable(d)]
        if len(entries) < len(batch):
            ignored = len(batch) - len(entries)
            log.warning("updates without a usable id ignored", extra={"count": ignored})
        new = set(await core.admit(self.services, entries))
        fresh = []
        for data in entries:
            if data["update_id"] in new:
                new.discard(data["update_id"])  # a repeat inside the batch is not new
                fresh.append(data)
        return fresh

    async def dispatch(self, admitted: Sequence[dict[str, Any]]) -> None:
        """Queue admitted updates for the Application, in order; one PTB cannot read is
        logged and marked done."""
        unreadable = []
        for data in admitted:
            update = self.parse(data)
            if update is None:
                unreadable.append(data["update_id"])
            else:
                self.app.update_queue.put_nowait(update)
        for update_id in unreadable:
            await core.finish(self.services, update_id)

    async def receive_one(self, data: Any) -> bool:
        """Admit one update (a webhook request) and queue it if it is new; False when it
        is not a well-formed update. Returns once the update is committed."""
        update = self.parse(data)
        if update is None:
            return False
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._admits.append((data, future))
        if self._admitter is None or self._admitter.done():
            self._admitter = asyncio.get_running_loop().create_task(self._admit_pending())
        if await self.admitting(future, [data]):
            await self.app.update_queue.put(update)
        return True

    async def receive_webhook(self, data: Any) -> int:
        """A webhook request's update: admitted (200), or, while the database does not
        answer, kept in the spool (200: Telegram would give up on it after some
        refusals, holding everyone's next updates meanwhile) and admitted once it does;
        400 for a body that is no update, 503 (Telegram tries again) only when it could
        be kept nowhere."""
        if self.parse(data) is None:
            return 400
        if not self.db_wait.out:
            try:
                await self.receive_one(data)
                return 200
            except StoreUnavailable as exc:
                self.db_wait.failed(exc)
                error: Exception = exc
        else:
            error = StoreUnavailable("the database is known not to answer")
        self.db_wait.tell_unadmitted([data], self.parse)
        try:
            await self.spool.add(data)
        except OSError as exc:
            log.warning(
                "webhook update neither admitted nor spooled; Telegram will deliver it again",
                extra={"error": str(error), "spool_error": str(exc)},
            )
            return 503
        self.db_wait.failed()  # its probes drain the spool once the database answers
        log.warning(
            "webhook update spooled until the database answers", extra={"error": str(error)}
        )
        return 200

    async def drain_spool(self) -> None:
        """Admit and queue what the spool holds (this process's, and what a stopped one
        left), file by file; a file goes once its updates are admitted. When the
        database fails meanwhile, the rest waits for its next answer."""
        async with self._draining:
            await self._drain()

    async def _drain(self) -> None:
        if not self.spool.pending():
            return
        for path, updates in await self.spool.take():
            try:
                admitted = await self.admit(updates)
            except StoreUnavailable as exc:
                log.warning("draining the spool waits for the database", extra={"error": str(exc)})
                self.db_wait.failed(exc)
                return
            await self.dispatch(admitted)
            self.spool.done(path)
            log.info(
                "spooled updates admitted",
                extra={"count": len(updates), "new": len(admitted)},
            )

    async def admitting(
        self, admission: Awaitable[T], batch: Sequence[Any], *, give_up: bool = False
    ) -> T:
        """``admission``'s result. While the database is known to be out, or when the
        admission takes longer than ``outage.PATIENCE`` (a connection waited for), the
        users of ``batch`` get their one note meanwhile: the admission may wait for the
        database half a minute, and each time it fails the batch comes again.

        With ``give_up`` (polling, where no update is fetched while a batch is being
        admitted), an admission still waiting ``PATIENCE`` seconds after the note while
        the database is known to be out is cancelled (``StoreUnavailable``), so the next
        ``getUpdates`` brings the updates that came meanwhile and their users are told
        too. Nothing is lost: an insert cancelled before its commit is not kept, and one
        cancelled after it holds a lease that lapses and is taken (:meth:`take_lapsed`)."""
        task = asyncio.ensure_future(admission)
        if not self.db_wait.out:
            done, _ = await asyncio.wait([task], timeout=PATIENCE)
            if done:
                return task.result()
        known = self.db_wait.out  # out before the notes (which start the probes)
        self.db_wait.tell_unadmitted(batch, self.parse)
        if give_up and known:
            done, _ = await asyncio.wait([task], timeout=PATIENCE)
            if not done:
                task.cancel()
                raise StoreUnavailable("the database did not admit the updates in time")
        return await task

    async def _admit_pending(self) -> None:
        """One transaction for every webhook update that arrived while the last ran."""
        while self._admits:
            batch, self._admits = self._admits, []
            try:
                new = set(await core.admit(self.services, [data for data, _ in batch]))
            except Exception as exc:
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for data, future in batch:
                if not future.done():
                    # copies of one update in the same batch: only the first is new
                    future.set_result(data["update_id"] in new)
                    new.discard(data["update_id"])

    async def replay(self) -> int:
        """Queue the updates a previous process left unfinished, oldest first (on
        PostgreSQL: those no running instance holds)."""
        entries = await core.claim_at_start(self.services)
        await self._queue(entries)
        if entries:
            log.info("replaying unfinished updates", extra={"count": len(entries)})
        return len(entries)

    async def take_lapsed(self) -> int:
        """Queue the unfinished updates whose lease lapsed (their instance died), now
        this instance's, oldest first."""
        entries = await core.claim_lapsed(self.services)
        await self._queue(entries)
        if entries:
            log.info("taking over updates whose lease lapsed", extra={"count": len(entries)})
        return len(entries)

    async def _queue(self, entries: Sequence[core.IntakeEntry]) -> None:
        """Queue kept updates for the Application; one PTB cannot read is marked done."""
        for entry in entries:
            update = self.parse(json.loads(entry.body))
            if update is None:
                await core.finish(self.services, entry.update_id)
                continue
            await self.app.update_queue.put(update)

    # --- completion ------------------------------------------------------------------

    async def handled(self, update: Update, *, transient: bool, database: bool = False) -> None:
        """The handlers are done with ``update``: mark it done, or, when a reply failed
        for a transient fault, keep it to be handled again; when the database did not
        answer (``database``), keep it until it does (``outage.DatabaseWait``)."""
        update_id = update.update_id
        if database:
            # not marked done either way: given up here, the next start handles it
            self.db_wait.keep(update)
            return
        self.db_wait.done(update_id)
        if transient:
            tries = self._tries.get(update_id, 0) + 1
            if tries <= self.max_retries:
                self._tries[update_id] = tries
                self._later[update_id] = update
                log.warning(
                    "reply failed for a transient fault; the update will be handled again",
                    extra={"update_id": update_id, "tries": tries},
                )
                return
            log.error("update given up after transient faults", extra={"update_id": update_id})
        self._tries.pop(update_id, None)
        # its replies are out: nothing waits for the mark (it is committed with the
        # updates finishing at about the same time)
        core.finish_soon(self.services, update_id)

    async def run_jobs(self) -> None:
        """Hand the updates kept for later back to the Application; prune old entries."""
        loop = asyncio.get_running_loop()
        next_prune = loop.time() + 60.0
        while True:
            await asyncio.sleep(self.retry_every)
            later, self._later = self._later, {}
            for update in later.values():
                await self.app.update_queue.put(update)
            if loop.time() >= next_prune:
                next_prune = loop.time() + self.prune_every
                try:
                    pruned = await core.prune(self.services)
                except Exception:
                    log.exception("pruning the intake failed")
                else:
                    log.info("intake pruned", extra={"count": pruned})

    # --- leases (several instances) -----------------------------------------------------

    async def run_leases(self) -> None:
        """Renew this instance's leases every :data:`RENEW_EVERY` seconds, and take the
        updates whose lease lapsed every :data:`CLAIM_EVERY` seconds (two loops: a slow
        look for lapsed leases never delays a renewal)."""
        await asyncio.gather(
            self._every(RENEW_EVERY, self._renew, "renewing the intake's leases failed"),
            self._every(CLAIM_EVERY, self._claim_round, "taking lapsed updates failed"),
        )

    async def _renew(self) -> int:
        return await core.renew(self.services)

    async def _claim_round(self) -> int:
        """Take lapsed leases; after the database was away (every lease lapsed then,
        the live instances' too), renew this instance's own first and take none for
        :data:`CLAIM_GRACE` seconds."""
        loop = asyncio.get_running_loop()
        if self._leases_lost:
            await self._renew()  # raises while the database is still away
            self._leases_lost = False
            self._claims_from = loop.time() + CLAIM_GRACE
            return 0
        if loop.time() < self._claims_from:
            return 0
        return await self.take_lapsed()

    async def _every(
        self, seconds: float, job: Callable[[], Awaitable[object]], failed: str
    ) -> None:
        while True:
            await asyncio.sleep(seconds)
            try:
                await job()
            except Exception as exc:  # the database away: the next round tries again
                if is_unavailable(exc):
                    self._leases_lost = True
                log.warning(failed, extra={"error": str(exc)})


def intake_of(app: BotApp) -> Intake | None:
    intake = app.bot_data.get(INTAKE)
    return intake if isinstance(intake, Intake) else None


async def start(app: BotApp, services: Services) -> Intake:
    """Create the intake, queue what a previous process left unfinished, start its jobs."""
    intake = Intake(app, services)
    app.bot_data[INTAKE] = intake
    await intake.replay()
    await intake.drain_spool()  # what a stopped process kept while the database was away
    services.spawn(intake.run_jobs())
    services.spawn(intake.run_leases())
    return intake


async def until_started(started: Awaitable[T], stop: asyncio.Event) -> T | None:
    """What ``started`` gives, or None when ``stop`` is set first (a SIGTERM while the
    start waits for a database that does not answer: the process stops at once)."""
    starting = asyncio.ensure_future(started)
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait([starting, stopping], return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
    return starting.result() if starting.done() else None


# --- polling ---------------------------------------------------------------------------


async def poll(app: BotApp, started: Awaitable[Intake], stop: asyncio.Event) -> None:
    """Fetch updates until ``stop`` is set. Each batch is admitted before the next
    ``getUpdates`` (whose offset confirms it to Telegram) is sent, and handed to the
    Application once that is on its way: reading the updates into PTB's objects is
    not on the path from one batch to the next, which every update waits on.

    The first ``getUpdates`` goes out before the start is complete: ``started`` (the
    intake, once the database is open and what a previous process left unfinished is
    queued) is awaited while it is on its way."""
    # Bot.get_updates would read the batch into Update objects, all or nothing: one
    # update PTB cannot read would fail the whole batch, fetched again and again while
    # nobody is answered (tests/reliability/test_crash.py). The intake keeps Telegram's
    # own JSON and reads each update once, after it is kept, skipping only an unreadable
    # one. So the call goes through the transport's BaseRequest.post, the method PTB's
    # Bot itself calls (its docstring reserves it for the Bot; this loop stands where
    # PTB's Updater would call Bot.get_updates), which maps the answer's errors as for
    # any method and returns the raw result; its parameters in the URL's query string,
    # as the Bot API takes them (https://core.telegram.org/bots/api#making-requests).
    request: BaseRequest = app.bot_data[UPDATES_REQUEST]
    url = f"{app.bot.base_url}/getUpdates"
    allowed = json.dumps(Update.ALL_TYPES)
    offset: int | None = None
    pause = 0.5
    admitted: list[dict[str, Any]] = []  # the last batch's new updates, not yet handed over
    intake: Intake | None = None
    try:
        while not stop.is_set():
            query = {"limit": POLL_LIMIT, "timeout": POLL_TIMEOUT, "allowed_updates": allowed}
            if offset is not None:
                query["offset"] = offset
            fetch = asyncio.ensure_future(
                request.post(f"{url}?{urlencode(query)}", read_timeout=POLL_TIMEOUT + 5)
            )
            if intake is None:
                try:
                    intake = await until_started(started, stop)
                except BaseException:
                    fetch.cancel()  # nothing it brings could be admitted
                    raise
                if intake is None:  # stopped while the start waited for the database
                    fetch.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await fetch
                    break
            if admitted:
                await asyncio.sleep(0)  # the fetch's request goes out first
                admitted, handing = [], admitted
                await intake.dispatch(handing)
            stopping = asyncio.ensure_future(stop.wait())
            await asyncio.wait([fetch, stopping], return_when=asyncio.FIRST_COMPLETED)
            stopping.cancel()
            if not fetch.done():
                # nothing of this batch is admitted, so nothing is confirmed: Telegram
                # keeps it
                fetch.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await fetch
                break
            try:
                batch = fetch.result()
            except InvalidToken:
                raise
            except (NetworkError, Conflict, RetryAfter) as exc:
                log.warning("getUpdates failed; trying again", extra={"error": str(exc)})
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), pause)
                pause = min(pause * 2, 10.0)
                continue
            pause = 0.5
            if not isinstance(batch, list) or not batch:
                continue
            try:
                admitted = await intake.admitting(intake.admit(batch), batch, give_up=True)
            except Exception as exc:
                # not admitted, so not confirmed: the same batch comes again
                if is_unavailable(exc):
                    # a transient fault (tried every few seconds while it lasts): its
                    # users are told now (once), its presses answered
                    log.warning(
                        "the database did not admit updates; fetching them again",
                        extra={"error": str(exc)},
                    )
                    intake.db_wait.failed(exc)
                    intake.db_wait.tell_unadmitted(batch, intake.parse)
                else:
                    log.exception("admitting updates failed; fetching them again")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), 1.0)
                continue
            ids = [u["update_id"] for u in batch if isinstance(u, dict)]
            ids = [i for i in ids if isinstance(i, int)]
            if ids:
                offset = max(ids) + 1
    finally:
        # admitted but not handed over (stopping, or an error): handled now, not after a restart
        if intake is not None:
            await intake.dispatch(admitted)

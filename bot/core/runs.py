"""Runs Benchboard makes itself: a benchmark sent to a model through its provider, the
answer scored exactly as its paste would be (:func:`bot.core.submit.score_run`), and the
result stored with its tokens, cost, latency and transcript, published and marked "run
by Benchboard" (``submissions.origin``; its submissions skip what a person's paste goes
through before publishing).

A run's work is a queue in the database (:mod:`storage.runs`): any instance claims an
attempt with a lease and renews it while it runs (:class:`RunQueue`), so a restart or
another instance finishes what one left and two never run the same attempt.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

from bot.runs.attempt import AttemptOutput, kept_answers, kept_of, kept_text, run_attempt
from bot.runs.client import Clients
from bot.runs.providers import ModelSpec, ProviderError, Providers, load
from scoring import (
    Benchmark,
    ChallengeSpec,
    KeyFormatError,
    Mode,
    UnknownMode,
    parse_mode,
    publishable,
    registry,
)
from scoring.runs import RunMaterials, RunPlan, RunRefused
from storage import StorageError, Submission
from storage.runs import RUN_LEASE_MS, AttemptDone, NewRun, Run, RunAttempt

__all__ = ["AttemptDone", "NewRun", "Run", "RunAttempt"]

from . import challenges, submit
from .errors import UserError
from .services import Services

log = logging.getLogger("benchboard.runs")

#: The user a run's submissions belong to: Benchboard itself (who asked is kept in
#: ``extra["asked_by"]`` and on the run).
BENCHBOARD_USER = 0
#: A run attempt's submission is the message ``-(RUN_MESSAGES + attempt id)`` of its chat
#: (out of the way of the API's ``-id``): recording it again finds the first.
RUN_MESSAGES = 1 << 40
#: The most attempts one instance runs at once (each provider's own bound is lower).
MAX_IN_FLIGHT = 64
#: The most attempts a chat's /run asks for.
MAX_ATTEMPTS = 8
#: Seconds between looks at the queue when nothing woke the runner.
POLL_SECONDS = 2.0
#: Seconds an attempt whose provider kept failing (its retries ran out: down, or
#: restarting) waits in the queue before it is tried again, each time; then it fails.
LATER = (30.0, 120.0, 480.0)

RunError = ProviderError


@dataclass(frozen=True, slots=True)
class Done:
    """One attempt made: what the model answered (tokens, cost, latency, transcript) and
    its score as a paste."""

    out: AttemptOutput
    scored: submit.Scored


class Runner:
    """The providers file and a client per provider (one per process, closed at the end)."""

    def __init__(self, providers: Providers, *, backoff_first: float | None = None) -> None:
        self.providers = providers
        self.clients = (
            Clients(providers)
            if backoff_first is None
            else Clients(providers, backoff_first=backoff_first)
        )

    @classmethod
    def from_settings_file(cls, path: Path | None) -> Runner:
        """The runner of the providers file at ``path`` (None: no providers)."""
        return cls(load(path))

    async def close(self) -> None:
        await self.clients.close()


def benchmark_of(word: str) -> Benchmark:
    """The benchmark a word names (its name, a tag or a challenge command)."""
    found = registry.find(word.lstrip("#")) or challenges.by_command(word.lstrip("#/"))
    if found is None:
        names = ", ".join(b.name for b in registry.all_benchmarks())
        raise RunError(f"unknown benchmark {word!r} (benchmarks: {names})", code="bad_benchmark")
    return found


def mode_of(word: str | None) -> str:
    if not word:
        return Mode.DEFAULT.value
    try:
        return parse_mode(word.lstrip("#")).value
    except UnknownMode:
        raise RunError(f"unknown mode {word!r}", code="bad_mode") from None


def _challenge(benchmark: Benchmark) -> ChallengeSpec | None:
    return benchmark.challenge


def target_of(services: Services, benchmark: Benchmark, target: str | int | None) -> int | None:
    """A challenge's target as given (the day's when none is); None for the others."""
    spec = _challenge(benchmark)
    if spec is None:
        return None
    if target is None:
        return challenges.today(services.settings, benchmark).target
    try:
        return spec.parse(str(target)).target
    except KeyFormatError as exc:
        raise RunError(f"bad target {target}: {exc}", code="bad_target") from None


def plan_for(services: Services, benchmark: Benchmark, target: int | None) -> RunPlan:
    """What a run sends: the benchmark's plan from its key (a challenge's target) and the
    question file in the data folder; RunError when it cannot be run."""
    spec = _challenge(benchmark)
    if spec is not None:
        key: Any = spec.parse(str(target)) if target is not None else None
    else:
        loaded = services.keys.get(benchmark.name)
        if loaded is None:
            raise RunError(
                f"no {benchmark.title} key is loaded: run 'benchboard data fetch {benchmark.name}'",
                code="no_key_loaded",
            )
        key = loaded.key
    name = benchmark.run_questions_file or benchmark.questions_file
    questions = None
    if name is not None:
        path = services.settings.data_dir / name
        questions = path.read_bytes() if path.is_file() else None
    try:
        return benchmark.run_plan(RunMaterials(key, questions))
    except RunRefused as exc:
        raise RunError(str(exc), code="refused_run") from None


def _given(benchmark: Benchmark, plan: RunPlan, out: AttemptOutput) -> dict[str, Any]:
    """The options a run's answer is scored with: the plan's, and for a challenge the
    attempt's cost and latency where its board keeps them."""
    given = dict(plan.options)
    spec = _challenge(benchmark)
    if spec is not None:
        if out.cost_usd is not None:  # (not known: not given, as a paste without it)
            given[spec.cost_option] = round(out.cost_usd, 8)
        given[spec.latency_option] = round(out.latency_s, 3)
    return given


async def attempt(
    services: Services, runner: Runner, benchmark: Benchmark, model: ModelSpec, mode: str,
    plan: RunPlan, kept: str | None = None,
) -> Done:  # fmt: skip
    """Send the plan to the model (but the calls an earlier try ``kept`` answers of) and
    score the answer as a paste."""
    out = await run_attempt(runner.clients, benchmark, model, mode, plan, kept_answers(kept))
    scored = await submit.score_run(
        services, benchmark.name, out.output, _given(benchmark, plan, out),
        model=model.full_name, mode=mode,
    )  # fmt: skip
    return Done(out, scored)


def run_figures(done: Done, plan: RunPlan, attempt_id: int | None) -> dict[str, Any]:
    """What a run's submission keeps beside its options (``extra["run"]``)."""
    return {
        "origin": "benchboard",
        "attempt": attempt_id,
        "run_version": plan.version,
        "input_tokens": done.out.input_tokens,
        "output_tokens": done.out.output_tokens,
        "cost_usd": None if done.out.cost_usd is None else round(done.out.cost_usd, 8),
        "latency_s": round(done.out.latency_s, 3),
    }


async def record(
    services: Services, done: Done, plan: RunPlan, *, run: Run, attempt_id: int
) -> Submission:
    """Store an attempt's result as Benchboard's, marked, and published when its
    benchmark lets it be (an answer its benchmark finds not valid stays private)."""
    sub = await submit.record(
        services,
        done.scored,
        user_id=BENCHBOARD_USER,
        chat_id=run.chat_id or 0,
        message_id=-(RUN_MESSAGES + attempt_id),
        asked_by=run.requested_by,
        more={"run": run_figures(done, plan, attempt_id)},
        check_copies=False,  # run by Benchboard: no paste to hold
    )
    await services.store.mark_benchboard(sub.id)
    if publishable(done.scored.result):
        sub = await services.store.publish(sub.id)
    return sub


async def ensure_benchboard_user(services: Services) -> None:
    """The user row a run's submissions belong to, named for the boards."""
    await services.store.upsert_user(
        BENCHBOARD_USER, first_name="Benchboard", last_name=None, username=None,
        language_code=None,
    )  # fmt: skip
    await services.store.upsert_chat(0, type="private", title="Benchboard")


class GivenBack(Exception):
    """The attempt went back to the queue, to be tried again later (its provider kept
    failing): nothing was recorded but what its calls answered so far cost and said (kept
    with it, for the next try)."""


async def execute(
    services: Services, runner: Runner, run: Run, job: RunAttempt, *, later: float | None = None
) -> AttemptDone:
    """Run one claimed attempt to its end and record it (a failure is recorded too, with
    its one line); the attempt's outcome as stored. With ``later``, an attempt whose
    provider kept failing goes back to the queue for that many seconds instead
    (:class:`GivenBack`)."""
    return (await execute_done(services, runner, run, job, later=later))[0]


async def execute_done(
    services: Services, runner: Runner, run: Run, job: RunAttempt, *, later: float | None = None
) -> tuple[AttemptDone, Done | None]:
    """:func:`execute`, with what the attempt made (None when it failed)."""
    done: Done | None = None
    model: ModelSpec | None = None
    plan: RunPlan | None = None
    try:
        benchmark = registry.get(run.benchmark)
        model = runner.providers.model(run.model)
        plan = plan_for(services, benchmark, run.target)
        done = await attempt(services, runner, benchmark, model, run.mode, plan, job.kept)
        if (await services.store.get_run(run.id)).state == "cancelled":
            # its answer is dropped; what its calls cost was spent all the same
            spent = AttemptDone(
                input_tokens=done.out.input_tokens,
                output_tokens=done.out.output_tokens,
                cost_usd=done.out.cost_usd,
                latency_s=done.out.latency_s,
                error="cancelled",
            )
            await services.store.spent_cancelled(job.id, spent)
            return spent, None
        sub = await record(services, done, plan, run=run, attempt_id=job.id)
        outcome = AttemptDone(
            submission_id=sub.id,
            score=done.scored.result.primary,
            input_tokens=done.out.input_tokens,
            output_tokens=done.out.output_tokens,
            cost_usd=done.out.cost_usd,
            latency_s=done.out.latency_s,
            transcript=done.out.transcript,
        )
    except asyncio.CancelledError as stopped:  # the bot stopping: what was paid for stays
        answered = getattr(stopped, "answered", None)
        if answered and model is not None and plan is not None:
            tokens_in, tokens_out, cost, kept = kept_of(model, plan, answered)
            with suppress(StorageError):  # (else the next try asks them again)
                await services.store.release_attempt(
                    job.id,
                    kept=AttemptDone(
                        input_tokens=tokens_in, output_tokens=tokens_out, cost_usd=cost,
                        transcript=kept,
                    ),
                )  # fmt: skip
        raise
    except ProviderError as exc:
        if exc.code == "dead" and later is not None:  # down a while: tried again later
            paid = None
            if exc.answered and plan is not None:  # paid for: the next try sends the others
                paid = AttemptDone(
                    input_tokens=exc.input_tokens,
                    output_tokens=exc.output_tokens,
                    cost_usd=exc.cost_usd,
                    transcript=kept_text(plan, exc.answered),
                )
            await services.store.release_attempt(job.id, after_ms=int(later * 1000), kept=paid)
            raise GivenBack(str(exc)) from None
        outcome = AttemptDone(  # with what its answered calls cost, if any was
            error=str(exc)[:500],
            input_tokens=exc.input_tokens or None,
            output_tokens=exc.output_tokens or None,
            cost_usd=exc.cost_usd or None,
        )
        done = None
    except Exception as exc:  # one attempt's fault never stops the queue
        if isinstance(exc, StorageError):
            raise
        log.exception("run attempt failed", extra={"run": run.id, "attempt": job.id})
        outcome, done = AttemptDone(error=f"{type(exc).__name__}: {exc}"[:500]), None
    if not await services.store.finish_attempt(job.id, outcome) and outcome.cost_usd:
        await services.store.spent_cancelled(job.id, outcome)  # cancelled meanwhile
    return outcome, done


async def run_now(
    services: Services, runner: Runner, new: NewRun
) -> list[tuple[AttemptDone, Done | None]]:
    """Queue a run and make all its attempts here, side by side (``benchboard eval
    --publish``): each is claimed like any queued attempt, so no other instance runs it;
    stopped, the run is cancelled (its attempts are not left for a bot to make)."""
    run = await services.store.add_run(new)
    jobs = []
    while (claimed := await services.store.claim_attempt(run_id=run.id)) is not None:
        jobs.append(claimed[1])
    try:
        return list(
            await asyncio.gather(*(execute_done(services, runner, run, job) for job in jobs))
        )
    except BaseException:  # stopped (Ctrl-C): not finished by a bot on the database either
        with suppress(Exception):
            await services.store.cancel_run(run.id)
        raise


#: Told of each attempt an instance finished (its run as it is now).
Listener = Callable[[Run, RunAttempt, AttemptDone], Awaitable[None]]


class RunQueue:
    """Claims queued attempts (any instance's, once their lease lapsed) and runs them,
    up to :data:`MAX_IN_FLIGHT` at once, renewing the leases of those it runs."""

    def __init__(
        self, services: Services, runner: Runner, listener: Listener | None = None,
        *, lease_ms: int = RUN_LEASE_MS, poll: float = POLL_SECONDS,
        later: tuple[float, ...] = LATER,
    ) -> None:  # fmt: skip
        self.services = services
        self.runner = runner
        self.listener = listener
        self.lease_ms = lease_ms
        self.poll = poll
        self.later = later
        #: attempt id -> how often this instance gave it back to the queue
        self._given_back: dict[int, int] = {}
        #: a budgeted run's id -> its attempt running here (one at a time)
        self._budgeted: dict[int, int] = {}
        self._wake = asyncio.Event()
        self._running: dict[int, asyncio.Task[None]] = {}
        self._slots = asyncio.Semaphore(MAX_IN_FLIGHT)

    def wake(self) -> None:
        """Look at the queue now (a run was just queued)."""
        self._wake.set()

    @property
    def in_flight(self) -> int:
        return len(self._running)

    async def work(self) -> None:
        """Claim and run attempts until cancelled (on SQLite, first what the previous
        process left running)."""
        await self.services.store.reclaim_at_start()
        renewer = asyncio.get_running_loop().create_task(self._renew())
        try:
            while True:
                await self._slots.acquire()
                try:
                    claimed = await self.services.store.claim_attempt(lease_ms=self.lease_ms)
                except StorageError as exc:
                    log.warning("the run queue is not reachable: %s", exc)
                    claimed = None
                if claimed is None:
                    self._slots.release()
                    self._wake.clear()
                    with suppress(TimeoutError):
                        await asyncio.wait_for(self._wake.wait(), self.poll)
                    continue
                run, job = claimed
                if budgeted(self.services, run):
                    if run.id in self._budgeted:  # one of its attempts at a time
                        await self._hold_back(job)
                        continue
                    self._budgeted[run.id] = job.id
                task = asyncio.get_running_loop().create_task(self._one(run, job))
                self._running[job.id] = task
        finally:
            renewer.cancel()
            unfinished = dict(self._running)
            for task in unfinished.values():
                task.cancel()
            await asyncio.gather(*unfinished.values(), renewer, return_exceptions=True)
            for attempt_id in unfinished:  # another instance may take them at once
                with suppress(StorageError):  # else they lapse
                    await self.services.store.release_attempt(attempt_id)

    async def _hold_back(self, job: RunAttempt) -> None:
        """An attempt of a budgeted run another of whose attempts runs here: back to the
        queue for a moment (taken again once that one finished)."""
        self._slots.release()
        with suppress(StorageError):  # (else its lease lapses)
            await self.services.store.release_attempt(job.id, after_ms=int(self.poll * 1000))

    async def _one(self, run: Run, job: RunAttempt) -> None:
        given = self._given_back.get(job.id, 0)
        later = self.later[given] if given < len(self.later) else None
        try:
            try:
                if (
                    budgeted(self.services, run)
                    and await left_today(self.services, run.requested_by or 0) <= 0
                ):  # spent by the attempts before it: not made
                    outcome = AttemptDone(error=BUDGET_USED)
                    if not await self.services.store.finish_attempt(job.id, outcome):
                        return
                else:
                    outcome = await execute(self.services, self.runner, run, job, later=later)
            except GivenBack as exc:
                self._given_back[job.id] = given + 1
                log.warning(
                    "run attempt tried again in %g s: %s", later, exc,
                    extra={"run": run.id, "attempt": job.id},
                )  # fmt: skip
                return
            self._given_back.pop(job.id, None)
            if self.listener is not None:
                await self.listener(run, job, outcome)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("run attempt not finished", extra={"run": run.id, "attempt": job.id})
        finally:
            self._running.pop(job.id, None)
            if self._budgeted.get(run.id) == job.id:
                del self._budgeted[run.id]
                self._wake.set()  # its next attempt may run
            self._slots.release()

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(self.lease_ms / 4000)
            if self._running:
                try:
                    await self.services.store.renew_attempts(
                        list(self._running), lease_ms=self.lease_ms
                    )
                except StorageError as exc:
                    log.warning("run leases not renewed: %s", exc)


async def queue_run(services: Services, new: NewRun) -> Run:
    """Queue a run (each of its attempts is claimed by whichever instance is free)."""
    return await services.store.add_run(new)


# --- what /run may spend ----------------------------------------------------------------


#: Why an attempt of a user's run was not made: the attempts before it spent the budget.
BUDGET_USED = "not made: the day's run budget is spent"


def budgeted(services: Services, run: Run) -> bool:
    """Whether a run spends its asker's day's budget (a /run by someone not a bot admin):
    its attempts are made one at a time, each only while some budget is left (else one
    run of many attempts would spend far past it)."""
    return (
        run.origin == "chat"
        and run.requested_by is not None
        and run.requested_by not in services.settings.admins
    )


async def left_today(services: Services, user_id: int) -> float:
    """What a user who is not an admin may still spend on runs today (UTC), in USD."""
    spent = await services.store.spent_today(user_id)
    return max(0.0, services.settings.run_budget_usd - spent)


# --- the daily runs ---------------------------------------------------------------------


def daily_runs(services: Services, runner: Runner, day: date) -> list[NewRun]:
    """The runs the providers file's ``[[daily]]`` entries make on ``day``: each model on
    the challenge's target of the day, once (``dedupe``)."""
    made = []
    for entry in runner.providers.daily:
        benchmark = registry.find(entry.benchmark)
        if benchmark is None or benchmark.challenge is None:
            log.warning("daily runs of %s: not a challenge benchmark", entry.benchmark)
            continue
        target = challenges.today(services.settings, benchmark, day).target
        for model in entry.models:
            made.append(
                NewRun(
                    benchmark=benchmark.name,
                    model=model,
                    mode=Mode.DEFAULT.value,
                    attempts=entry.attempts,
                    origin="daily",
                    target=target,
                    dedupe=f"daily:{benchmark.name}:{day.isoformat()}:{model}",
                )
            )
    return made


async def queue_daily(services: Services, runner: Runner, day: date) -> list[Run]:
    """Queue the day's runs (again: the ones queued before are found, not repeated)."""
    return [await services.store.add_run(new) for new in daily_runs(services, runner, day)]


async def cost_report(services: Services, day: date) -> list[tuple[str, str, int, float, int]]:
    """What the runs finished on ``day`` (UTC) cost: (origin, model, attempts, USD, and
    how many made had no cost reported by their provider)."""
    start = datetime.combine(day, time(), UTC)
    return await services.store.runs_cost(start, start + timedelta(days=1))


# --- /run in the chat ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Asked:
    """A ``/run`` queued: the run, its benchmark's title and the model as named."""

    run: Run
    title: str


def _run_words(words: list[str]) -> tuple[str, str, str | None, int]:
    """``BENCHMARK PROVIDER/MODEL [#mode] [attempts]`` in any order after the first two."""
    if len(words) < 2:
        raise UserError("run_usage")
    benchmark, model, *rest = words
    mode: str | None = None
    count = 1
    for word in rest:
        if word.isdigit():
            count = int(word)
        elif mode is None:
            mode = word
        else:
            raise UserError("run_usage")
    if not 1 <= count <= MAX_ATTEMPTS:
        raise UserError("run_bad_attempts", most=MAX_ATTEMPTS)
    return benchmark, model, mode, count


async def ask(
    services: Services, runner: Runner | None, words: list[str], *, user_id: int, chat_id: int,
    message_id: int | None = None,
) -> Asked:  # fmt: skip
    """Check and queue a ``/run``: a bot admin may run anything the providers file lists;
    anyone else only within the day's budget (``BENCHBOARD_RUN_BUDGET_USD``; 0: admins
    only, one run at a time). Raises :class:`UserError` for what is refused; nothing is
    called then. The message (``message_id`` of ``chat_id``) queues one run: handled
    again, it is the run it queued."""
    if runner is None or not runner.providers.providers:
        raise UserError("run_not_set_up")
    dedupe = None if message_id is None else f"chat:{chat_id}:{message_id}"
    if dedupe is not None and (queued := await services.store.run_by_dedupe(dedupe)):
        found = registry.find(queued.benchmark)
        return Asked(queued, found.title if found is not None else queued.benchmark)
    if user_id not in services.settings.admins:
        if services.settings.run_budget_usd <= 0:
            raise UserError("run_admins_only")
        if await left_today(services, user_id) <= 0:
            raise UserError("run_budget_used", budget=f"{services.settings.run_budget_usd:g}")
        # the budget counts what finished attempts cost: one run at a time, or runs
        # queued side by side would all pass the check and spend past it unseen
        if await services.store.running_chat_run(user_id) is not None:
            raise UserError("run_still_going")
    word, model_name, mode_word, count = _run_words(words)
    try:
        benchmark = benchmark_of(word)
        model = runner.providers.model(model_name)
        mode = mode_of(mode_word)
        model.request_options(mode)
        runner.providers.provider(model.provider).api_key()
        target = target_of(services, benchmark, None)
        plan_for(services, benchmark, target)  # refused now, not in the queue
    except ProviderError as exc:
        raise UserError("run_refused", reason=str(exc)) from None
    await ensure_benchboard_user(services)
    run = await services.store.add_run(
        NewRun(
            benchmark=benchmark.name,
            model=model.full_name,
            mode=mode,
            attempts=count,
            origin="chat",
            target=target,
            requested_by=user_id,
            chat_id=chat_id,
            dedupe=dedupe,
        )
    )
    return Asked(run, benchmark.title)


async def cancel(services: Services, run_id: int, *, user_id: int) -> Run:
    """Cancel a run: who asked for it, or a bot admin."""
    run = await services.store.get_run(run_id)
    if run.requested_by != user_id and user_id not in services.settings.admins:
        raise UserError("run_cancel_not_yours")
    await services.store.cancel_run(run_id)
    return await services.store.get_run(run_id)


async def transcript(services: Services, submission_id: int) -> tuple[RunAttempt, str]:
    """The transcript of the attempt that made a submission (JSON text)."""
    found = await services.store.attempt_of_submission(submission_id)
    if found is None or not found[1]:
        raise UserError("run_transcript_gone")
    return found


async def progress(services: Services, run_id: int) -> tuple[Run, list[RunAttempt]]:
    run = await services.store.get_run(run_id)
    return run, await services.store.run_attempts(run_id)


#: How long the claim of a day's cost report lasts (ms).
CARDS_CLAIM_MS = 24 * 3600 * 1000
#: How long an instance holds a card it is sending (ms; longer than a send waits out
#: Telegram's flood control): one that dies meanwhile leaves it to another once this
#: lapses (on SQLite, to its own next start at once).
CARD_LEASE_MS = 5 * 60_000
#: How far back a look for cards not sent goes (well within what a sent card's mark is
#: kept, :data:`storage.runs.CARD_KEPT_MS`).
CARDS_LEFT_MS = CARDS_CLAIM_MS // 2


async def claim_card(services: Services, attempt_id: int) -> bool:
    """True for the one instance that sends an attempt's card now (not sent yet, and no
    other is sending it)."""
    return await services.store.claim_card(attempt_id, lease_ms=CARD_LEASE_MS)


async def card_sent(services: Services, attempt_id: int) -> None:
    await services.store.card_sent(attempt_id)


async def card_not_sent(services: Services, attempt_id: int) -> None:
    """A card that could not be sent now: the next look sends it."""
    await services.store.release_card(attempt_id)


async def unsent_cards(services: Services) -> list[tuple[Run, list[RunAttempt]]]:
    """The chat runs finished lately with cards nobody sent (or is sending)."""
    since = datetime.now(UTC) - timedelta(milliseconds=CARDS_LEFT_MS)
    return await services.store.unsent_cards(since)


async def finished_lately(services: Services) -> list[Run]:
    """The chat runs finished lately (a look for refunds not made)."""
    since = datetime.now(UTC) - timedelta(milliseconds=CARDS_LEFT_MS)
    return await services.store.runs_finished_since(since)


async def showing(services: Services, run_id: int, message_id: int) -> None:
    """The chat message that shows a run's progress."""
    await services.store.set_run_progress(run_id, message_id)


async def submission(services: Services, submission_id: int) -> Submission | None:
    return await services.store.get_submission(submission_id)


async def report_once(services: Services, day: date) -> bool:
    """True for the one instance that reports ``day``'s run costs to the admins."""
    return await services.store.claim_run("run-costs", day.isoformat(), ttl_ms=CARDS_CLAIM_MS * 2)

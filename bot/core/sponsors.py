"""Sponsored runs, paid in Telegram Stars (``/sponsor BENCHMARK [N] [LINK]``): what a
sponsorship of a challenge's target buys and costs comes from the providers file
(``[sponsor.NAME]``); on payment its runs are queued and the sponsor's name (and link)
is shown on that target's board; a sponsorship whose runs cannot be made is refunded.

The Telegram side (the invoice, the pre-checkout answer within 10 s, the refund call)
is :mod:`bot.telegram.run_handlers`'; this module decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bot.runs.providers import ProviderError, Sponsorship
from scoring import KeyFormatError
from scoring.base import N_
from storage.runs import NewRun, Run
from storage.runs import Sponsorship as Paid

from . import runs
from .errors import UserError
from .services import Services

#: Telegram Stars' currency code.
STARS = "XTR"
#: The payload of a sponsorship's invoice: ``sp|benchmark|target|link``.
PAYLOAD = "sp"
#: The longest link a sponsor may show beside their name.
MAX_LINK = 80
#: A target in a payload: ASCII digits that fit a 64-bit integer.
_TARGET = re.compile(r"[0-9]{1,18}")


@dataclass(frozen=True, slots=True)
class Offer:
    """An invoice to send: what it buys, its price in Stars and its payload."""

    title: str
    benchmark: str
    target: int
    stars: int
    runs: int
    models: tuple[str, ...]
    attempts: int
    payload: str


def _offer_of(runner: runs.Runner | None, name: str) -> Sponsorship | None:
    return None if runner is None else runner.providers.sponsor.get(name)


def offer(services: Services, runner: runs.Runner | None, words: list[str]) -> Offer:
    """``/sponsor BENCHMARK [N] [LINK]``: the offer for a target (the day's by default)."""
    if not words:
        raise UserError("sponsor_usage")
    try:
        benchmark = runs.benchmark_of(words[0])
    except ProviderError:
        raise UserError("sponsor_usage") from None
    sponsorship = _offer_of(runner, benchmark.name)
    if sponsorship is None or benchmark.challenge is None:
        raise UserError("sponsor_none", benchmark=benchmark.title)
    target_word = next((w for w in words[1:] if w.isdigit()), None)
    link = next((w for w in words[1:] if not w.isdigit()), "")
    if link and (
        not link.startswith(("https://", "http://")) or len(link) > MAX_LINK or "|" in link
    ):
        raise UserError("sponsor_bad_link", most=MAX_LINK)
    try:
        target = runs.target_of(services, benchmark, target_word)
    except ProviderError:
        target = None
    if target is None or not _TARGET.fullmatch(str(target)):  # (then refused at checkout)
        raise UserError("daily_bad_target", word=(target_word or "")[:40],
                        command=benchmark.challenge.command)  # fmt: skip
    return Offer(
        title=benchmark.title,
        benchmark=benchmark.name,
        target=target,
        stars=sponsorship.stars,
        runs=sponsorship.runs,
        models=sponsorship.models,
        attempts=sponsorship.attempts,
        payload=f"{PAYLOAD}|{benchmark.name}|{target}|{link}",
    )


@dataclass(frozen=True, slots=True)
class Asked:
    """What an invoice's payload asks for."""

    benchmark: str
    target: int
    link: str
    sponsorship: Sponsorship


def read_payload(runner: runs.Runner | None, payload: str) -> Asked | None:
    """The sponsorship a payload names, if this bot still offers it (None: not one)."""
    kind, _, rest = payload.partition("|")
    name, _, rest = rest.partition("|")
    target, _, link = rest.partition("|")
    sponsorship = _offer_of(runner, name)
    # (ASCII digits that fit the store's integers: the payload may be forged)
    if kind != PAYLOAD or sponsorship is None or not _TARGET.fullmatch(target):
        return None
    return Asked(name, int(target), link, sponsorship)


def checkout_refusal(
    runner: runs.Runner | None, payload: str, currency: str, amount: int
) -> str | None:
    """Why a pre-checkout query must be refused (a message id), or None to accept it.
    Quick and local: Telegram wants the answer within 10 seconds."""
    asked = read_payload(runner, payload)
    if asked is None:
        return N_("sponsor_gone")
    if currency != STARS or amount != asked.sponsorship.stars:
        return N_("sponsor_price_changed")
    return None


@dataclass(frozen=True, slots=True)
class Done:
    """A payment kept: the sponsorship, the runs it queued, and whether it must be
    refunded now (its runs cannot be made: ``reason`` says why)."""

    paid: Paid
    runs: tuple[Run, ...]
    refund: bool = False
    reason: str = ""


async def paid(
    services: Services, runner: runs.Runner | None, *, user_id: int, chat_id: int, name: str,
    payload: str, charge_id: str, stars: int,
) -> Done:  # fmt: skip
    """A successful payment: kept once (by Telegram's charge id), its runs queued, or,
    when they cannot be made, marked for a refund.

    A payment handled again finishes what its first handling began (that one was cut
    short: the process died, or a reply failed for a transient fault and the update is
    handled again): its runs are found or queued (each once), or its refund is asked for
    again (Telegram refunds a charge once)."""
    asked = read_payload(runner, payload)
    benchmark_name = asked.benchmark if asked is not None else payload[:40]
    target = asked.target if asked is not None else 0
    kept = await services.store.add_sponsorship(
        user_id=user_id, benchmark=benchmark_name, target=target, name=name[:64],
        link=(asked.link or None) if asked is not None else None, stars=stars,
        charge_id=charge_id,
    )  # fmt: skip
    return await _settle(services, runner, kept, asked, chat_id)


#: How long after its payment a sponsorship with neither runs nor a refund is taken as
#: one whose handling was cut short (its refund refused, say), and how far back a look
#: for those goes.
UNSETTLED_AFTER = timedelta(minutes=2)
UNSETTLED_WITHIN = timedelta(days=7)


async def unsettled(
    services: Services, runner: runs.Runner | None, *, after: timedelta = UNSETTLED_AFTER,
    now: datetime | None = None,
) -> list[Done]:  # fmt: skip
    """The sponsorships paid ``after`` ago or more with neither runs nor a refund (their
    refund failed, or their payment's handling was cut short) settled as their payment
    is: the runs queued (in the sponsor's private chat), or a refund to make."""
    now = now or datetime.now(UTC)
    settled = []
    for kept in await services.store.sponsorships_unsettled(now - UNSETTLED_WITHIN, now - after):
        payload = f"{PAYLOAD}|{kept.benchmark}|{kept.target}|{kept.link or ''}"
        asked = read_payload(runner, payload)
        settled.append(await _settle(services, runner, kept, asked, kept.user_id))
    return settled


async def _settle(
    services: Services, runner: runs.Runner | None, kept: Paid, asked: Asked | None,
    chat_id: int,
) -> Done:  # fmt: skip
    """A payment kept: its runs queued (each once), or its refund to make."""
    charge_id = kept.charge_id
    user_id = kept.user_id
    reason = _cannot_run(services, runner, asked)
    if kept.refunded_at is not None:  # refunded before: again when it was for this reason
        return Done(kept, (), refund=bool(reason), reason=reason)
    if reason:
        return Done(
            kept, (), refund=await services.store.refund_sponsorship(kept.id), reason=reason
        )
    assert asked is not None and runner is not None
    await runs.ensure_benchboard_user(services)
    queued = []
    for model in asked.sponsorship.models:
        for n in range(1, asked.sponsorship.runs + 1):
            queued.append(
                await services.store.add_run(
                    NewRun(
                        benchmark=asked.benchmark,
                        model=model,
                        mode="default",
                        attempts=asked.sponsorship.attempts,
                        origin="sponsor",
                        target=asked.target,
                        requested_by=user_id,
                        chat_id=chat_id,
                        sponsorship_id=kept.id,
                        dedupe=f"sponsor:{charge_id}:{model}:{n}",
                    )
                )
            )
    return Done(kept, tuple(queued))


def _cannot_run(services: Services, runner: runs.Runner | None, asked: Asked | None) -> str:
    """Why a paid sponsorship's runs cannot be made ("" when they can)."""
    if asked is None or runner is None:
        return "this sponsorship is no longer offered"
    try:
        benchmark = runs.benchmark_of(asked.benchmark)
        for model_name in asked.sponsorship.models:
            model = runner.providers.model(model_name)
            runner.providers.provider(model.provider).api_key()
        runs.plan_for(services, benchmark, asked.target)
    except (ProviderError, KeyFormatError) as exc:
        return str(exc)
    return ""


async def refund_after(services: Services, run: Run) -> Paid | None:
    """A sponsored run that ended without one attempt made: its sponsorship, to refund
    (once: None when it was refunded already, or the run made something)."""
    if run.sponsorship_id is None or run.state != "done":
        return None
    attempts = await services.store.run_attempts(run.id)
    if any(a.state == "done" for a in attempts):
        return None
    if not await services.store.refund_sponsorship(run.sponsorship_id):
        return None
    return await services.store.get_sponsorship(run.sponsorship_id)


async def refund_failed(services: Services, paid: Paid) -> None:
    """The refund of ``paid`` could not be made: it is tried again (see
    :func:`refund_after`), at the next start at the latest."""
    await services.store.unrefund_sponsorship(paid.id)


async def sponsors(services: Services, benchmark: str, target: int) -> list[tuple[str, str | None]]:
    """Who sponsored a target (name, link), oldest first."""
    return [(s.name, s.link) for s in await services.store.sponsors(benchmark, target)]

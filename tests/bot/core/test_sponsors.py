"""A sponsorship's payment on a real store: a payment handled again (its first handling
cut short: the process died, or its reply failed for a transient fault and the update
is handled again) finishes what the first began, never twice."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.core import runs, sponsors
from bot.core.errors import UserError
from bot.core.services import Services
from bot.runs import providers as prov
from tests.runs.fakeai import providers_toml
from tests.storage.helpers import FakeClock

SPONSOR = '[sponsor.natory]\nstars = 50\nruns = 2\nmodels = ["local/m1"]\n'
PAID = {
    "user_id": 5, "chat_id": 5, "name": "Ada", "payload": "sp|natory|21|", "charge_id": "ch1",
    "stars": 50,
}  # fmt: skip


def _runner() -> runs.Runner:
    return runs.Runner(prov.parse(providers_toml("http://127.0.0.1:9/v1", extra=SPONSOR)))


async def test_a_payment_kept_before_its_runs_were_queued_queues_them(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOCAL_AI_KEY", "k")
    # the first handling kept the payment, then the process died
    await services.store.add_sponsorship(
        user_id=5, benchmark="natory", target=21, name="Ada", link=None, stars=50,
        charge_id="ch1",
    )  # fmt: skip
    done = await sponsors.paid(services, _runner(), **PAID)  # type: ignore[arg-type]
    assert not done.refund and len(done.runs) == 2
    assert {r.sponsorship_id for r in done.runs} == {done.paid.id}
    again = await sponsors.paid(services, _runner(), **PAID)  # type: ignore[arg-type]
    assert [r.id for r in again.runs] == [r.id for r in done.runs]  # found, not queued again
    assert not again.refund


async def test_a_refund_cut_short_is_made_again(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LOCAL_AI_KEY", raising=False)  # the runs cannot be made
    first = await sponsors.paid(services, _runner(), **PAID)  # type: ignore[arg-type]
    assert first.refund and "LOCAL_AI_KEY" in first.reason and first.runs == ()
    # its refund call failed (Telegram unreachable for a minute): handled again, the
    # refund is asked for again (Telegram refunds a charge once) and the sponsor told
    again = await sponsors.paid(services, _runner(), **PAID)  # type: ignore[arg-type]
    assert again.refund and again.reason == first.reason and again.runs == ()
    assert again.paid.id == first.paid.id


async def test_a_target_too_large_to_pay_for_is_refused_before_the_invoice(
    services: Services,
) -> None:
    # its invoice would be refused at checkout as "no longer offered" (the payload's
    # target must fit the store's integers)
    big = "9" * 23
    with pytest.raises(UserError) as refused:
        sponsors.offer(services, _runner(), ["natory", big])
    assert refused.value.key == "daily_bad_target"
    offered = sponsors.offer(services, _runner(), ["natory", "9" * 18])
    assert sponsors.checkout_refusal(_runner(), offered.payload, "XTR", offered.stars) is None


async def test_a_payment_left_neither_run_nor_refunded_is_settled_by_a_later_look(
    services: Services, monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    monkeypatch.delenv("LOCAL_AI_KEY", raising=False)  # the runs cannot be made
    first = await sponsors.paid(services, _runner(), **PAID)  # type: ignore[arg-type]
    assert first.refund
    await sponsors.refund_failed(services, first.paid)  # Telegram refused the refund
    # being handled still, perhaps: left alone a while
    assert await sponsors.unsettled(services, _runner(), now=clock.now) == []
    later = clock.now + timedelta(minutes=3)
    [again] = await sponsors.unsettled(services, _runner(), now=later)
    assert again.refund and again.paid.id == first.paid.id and "LOCAL_AI_KEY" in again.reason
    assert await sponsors.unsettled(services, _runner(), now=later) == []  # refunded once
    # one whose handling stopped after it was kept, its runs now possible: they are queued
    monkeypatch.setenv("LOCAL_AI_KEY", "k")
    await services.store.add_sponsorship(
        user_id=6, benchmark="natory", target=22, name="Bo", link=None, stars=50,
        charge_id="ch2",
    )  # fmt: skip
    [queued] = await sponsors.unsettled(services, _runner(), now=later)
    assert not queued.refund and len(queued.runs) == 2 and queued.runs[0].chat_id == 6
    assert await sponsors.unsettled(services, _runner(), now=later) == []

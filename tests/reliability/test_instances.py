"""Several instances on PostgreSQL share the intake as a work queue (leases): what an
instance SIGKILLed mid-burst had acknowledged is answered by another within seconds,
and an instance started mid-burst does not answer again what the running ones are
handling.

Real bot processes in webhook mode behind a balancer (``instances.py``), the Bot API
slowed down (each reply takes a while to be confirmed) so that many updates are in
flight at the moment that matters. Needs a PostgreSQL server
(``BENCHBOARD_TEST_POSTGRES_URL``); skipped without one.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from storage.intake import LEASE_MS
from tests.e2e.botkit import check_log
from tests.storage.pg import PG_SKIP, pg_schema_url, pg_test_database, server_url

from .instances import Fleet, Submitters, TimedBotAPI, wait_for

pytestmark = pytest.mark.skipif(server_url() is None, reason=PG_SKIP)

#: The issue's bound: every acknowledged update of a killed instance answered by
#: another within this many seconds of the kill.
PICKUP_BOUND = 15.0
#: Submissions in the burst a third instance joins, and the replies a second all the
#: instances may send together.
TOTAL = 400
SEND_RATE = 20


@pytest.fixture(scope="module")
def pg_database() -> Iterator[str]:
    yield from pg_test_database()


@pytest.fixture
def pg_url(pg_database: str) -> Iterator[str]:
    with pg_schema_url(pg_database) as url:
        yield url


async def test_what_a_killed_instance_acknowledged_is_answered_by_the_other(
    tmp_path: Path, pg_url: str
) -> None:
    # every reply takes a second and a half: each update is in flight that long, so the
    # killed instance holds dozens that its users have not been answered yet
    api = TimedBotAPI(latency=1.5)
    await api.start()
    try:
        async with contextlib.AsyncExitStack() as stack:
            fleet = Fleet(api, tmp_path, pg_url, stack)
            doomed = await fleet.start("doomed")
            survivor = await fleet.start("survivor")
            users = Submitters(api, 300, first_id=70_000)
            sending = asyncio.create_task(users.send(fleet, rate=40.0))
            await wait_for(lambda: users.answered(api.cards) >= 80, 60, "80 submissions answered")
            await fleet.kill(doomed)
            killed_at = time.monotonic()
            in_flight = fleet.unfinished()
            # acknowledged by the doomed instance (its 200 went out) and not answered yet
            waiting = {
                users.sent[u]
                for u, (name, at) in fleet.acked.items()
                if name == doomed.name and at < killed_at and u in users.sent
            } - {chat for chat, times in api.cards.items() if times[0] < killed_at}
            await wait_for(
                lambda: waiting <= api.cards.keys(),
                PICKUP_BOUND + 30,
                "the killed instance's acknowledged updates answered",
            )
            await sending
            await wait_for(lambda: users.answered(api.cards) >= 300, 60, "every one answered")
            delays = sorted(api.cards[chat][0] - killed_at for chat in waiting)
            print(
                f"\nkilled with {in_flight} unfinished; {len(waiting)} of its acknowledged "
                f"updates waiting: answered by the survivor {delays[0]:.1f}–{delays[-1]:.1f} s "
                f"after the kill (median {statistics.median(delays):.1f} s); "
                f"{users.duplicated(api.cards)} of 300 answered twice"
            )
            assert len(waiting) >= 10, "the kill should leave acknowledged updates unanswered"
            assert delays[-1] <= PICKUP_BOUND, delays
            check_log(survivor.bot)
            assert "taking over updates whose lease lapsed" in survivor.bot.log()
    finally:
        await api.stop()


async def test_an_instance_started_mid_burst_answers_nothing_twice(
    tmp_path: Path, pg_url: str
) -> None:
    # every reply takes three seconds, and the burst comes faster than the instances
    # may send together (Telegram's limit, shared through the database): the running
    # instances hold many updates while the third starts (and replays what it finds
    # unfinished), most of them for longer than a lease, which only renewals keep theirs
    api = TimedBotAPI(latency=3.0)
    await api.start()
    try:
        async with contextlib.AsyncExitStack() as stack:
            rate = {"BENCHBOARD_RATE_OVERALL": str(SEND_RATE)}
            fleet = Fleet(api, tmp_path, pg_url, stack, env=rate)
            first, second = await fleet.start("first"), await fleet.start("second")
            users = Submitters(api, TOTAL, first_id=71_000)
            sending = asyncio.create_task(users.send(fleet, rate=80.0))
            await wait_for(lambda: len(users.sent) >= 80, 60, "80 submissions sent")
            in_flight = fleet.unfinished()
            third = await fleet.start("third")  # it takes updates from now on too
            await sending
            await wait_for(lambda: users.answered(api.cards) >= TOTAL, 120, "every one answered")
            await asyncio.sleep(2.0)  # a second answer would have come by now
            duplicated = users.duplicated(api.cards)
            took = sum(1 for name, _ in fleet.acked.values() if name == third.name)
            waited = max(api.cards[users.sent[u]][0] - at for u, (_, at) in fleet.acked.items())
            print(
                f"\n{in_flight} unfinished when the third started; it took {took} of "
                f"{TOTAL}; the longest in flight {waited:.1f} s (a lease: "
                f"{LEASE_MS / 1000:.0f} s); {duplicated} of {TOTAL} answered twice"
            )
            assert in_flight >= 20, "the third should start while many updates are in flight"
            assert waited > LEASE_MS / 1000 + 1, "some updates should outlast their first leases"
            assert duplicated <= TOTAL // 100, duplicated  # at most 1%
            for instance in (first, second, third):
                check_log(instance.bot)
    finally:
        await api.stop()

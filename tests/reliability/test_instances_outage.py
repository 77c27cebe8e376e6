"""Two instances behind the balancer on a PostgreSQL cluster of the test's own, which is
SIGKILLed mid-burst and started again: every update each instance admitted, kept or
spooled is answered once, by one of them. While the database is away neither instance
can renew its leases, so every lease lapses; once it is back, an instance first renews
its own, and takes the others' lapsed ones only after the live instances had time to
renew theirs (an instance that died meanwhile is still taken over)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from tests.reliability.instances import Fleet, Submitters, TimedBotAPI, wait_for
from tests.reliability.pgcluster import pg_cluster

USERS = 80


async def test_an_outage_under_two_instances_answers_each_update_once(tmp_path: Path) -> None:
    api = TimedBotAPI(latency=1.0)  # replies in flight a second: done-marks are late
    await api.start()
    try:
        async with pg_cluster() as cluster, contextlib.AsyncExitStack() as stack:
            fleet = Fleet(api, tmp_path, cluster.url, stack)
            one = await fleet.start("one")
            two = await fleet.start("two")
            users = Submitters(api, USERS, first_id=71_000)
            sending = asyncio.create_task(users.send(fleet, rate=20.0))
            await wait_for(lambda: users.answered(api.cards) >= 15, 60, "15 answered")
            await cluster.kill()
            await asyncio.sleep(10)  # every lease lapses meanwhile
            await cluster.start()
            await sending
            await wait_for(
                lambda: users.answered(api.cards) >= USERS, 120, "every submission answered"
            )
            await asyncio.sleep(8)  # a second answer would be out by now
            twice = users.duplicated(api.cards)
            print(f"\n{twice} of {USERS} answered twice")
            assert twice == 0
            for instance in (one, two):
                log = instance.bot.log()
                assert "Traceback" not in log, log[-3000:]
    finally:
        await api.stop()

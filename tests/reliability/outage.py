"""A burst of submissions and Publish presses against the real bot process on a
PostgreSQL cluster of the test's own, which is SIGKILLed part-way and started again on
the same data folder and port after a few seconds; then what the users saw, counted
(``burst.Outcome``), and whether the intake is left with nothing unfinished.

Used by ``test_db_outage.py`` (small sizes) and ``tests/benchmarks/bench_reliability.py``
(full sizes).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass
from pathlib import Path

from tests.e2e.botapi import FakeBotAPI
from tests.e2e.botkit import KEY
from tests.e2e.harness import running_bot
from tests.reliability.burst import Burst, Outcome, _rows, wait
from tests.reliability.pgcluster import Cluster


@dataclass
class OutageOutcome:
    burst: Outcome
    #: intake entries not marked done once every reply was out (and the marks had time)
    unfinished_after: int
    #: score cards sent again by a bot restarted after the burst
    resent_after_restart: int


def unfinished(url: str) -> int:
    return int(_rows(Path(), url, "SELECT count(*) FROM intake WHERE done_at IS NULL")[0][0])


async def run_outage(
    api: FakeBotAPI,
    tmp: Path,
    cluster: Cluster,
    *,
    users: int,
    submissions: int,
    presses: int,
    kill_at: float,
    down_for: float,
    rate: float | None,
    env: dict[str, str] | None = None,
    timeout: float = 120.0,  # noqa: ASYNC109
) -> OutageOutcome:
    """Run a burst; when ``kill_at`` of the submissions are answered, SIGKILL the
    cluster, start it again ``down_for`` seconds later. Returns once every submission
    and press is answered (or ``timeout`` passed, with a note), after a restart of the
    bot (which must not answer anything again). ``env``: more of the bot's settings
    (``harness.webhook_env`` for webhook mode)."""
    burst = Burst(api, users=users, submissions=submissions, presses=presses)
    env = {**(env or {}), "BENCHBOARD_DB": cluster.url}
    start = time.monotonic()
    notes: list[str] = []
    async with running_bot(api, tmp, key=KEY, env=env):
        sending = asyncio.create_task(burst.send(rate))
        pressing = asyncio.create_task(burst.press())
        try:
            await wait(
                lambda: burst.answered() >= kill_at * submissions,
                timeout,
                f"{kill_at:.0%} of the submissions answered",
            )
            await cluster.kill()
            await asyncio.sleep(down_for)
            await cluster.start()
            await sending
            try:
                await wait(burst.done, timeout, "every submission and press answered")
            except AssertionError as exc:
                notes.append(str(exc))
            # the done-marks of the replies sent during the outage land once it is over
            with contextlib.suppress(AssertionError):
                await wait(lambda: unfinished(cluster.url) == 0, 20, "every update marked done")
            left = unfinished(cluster.url)
        finally:
            pressing.cancel()
    outcome = burst.outcome(tmp / "data", cluster.url)
    outcome.seconds = time.monotonic() - start
    outcome.notes = notes
    cards = sum(burst.cards().values())
    async with running_bot(api, tmp, key=KEY, env=env):
        await asyncio.sleep(3)  # what it would replay goes out at once
    return OutageOutcome(outcome, left, sum(burst.cards().values()) - cards)

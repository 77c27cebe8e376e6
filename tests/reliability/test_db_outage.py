"""PostgreSQL killed for 8 s in the middle of a burst (a cluster the test starts itself,
then starts again on the same data folder and port): nothing Telegram handed over is
lost. Every submission is answered once and stored once, every Publish press answered
and published, nobody is told "nothing was saved", each update gets at most one
"taking longer than usual" note, and every done-mark lands once the database is back
(a restart answers nothing again)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.botapi import FakeBotAPI, free_port
from tests.e2e.harness import webhook_env
from tests.reliability.outage import run_outage
from tests.reliability.pgcluster import pg_cluster


@pytest.mark.parametrize("mode", ["polling", "webhook"])
async def test_postgres_killed_for_8_s_mid_burst_loses_nothing(tmp_path: Path, mode: str) -> None:
    env = webhook_env(free_port(), "outage") if mode == "webhook" else None
    async with pg_cluster() as cluster, FakeBotAPI() as api:
        run = await run_outage(
            api,
            tmp_path,
            cluster,
            users=20,
            submissions=200,
            presses=40,
            kill_at=0.3,
            down_for=8.0,
            rate=None,
            env=env,
            timeout=90.0,
        )
    out = run.burst
    line = out.line(f"postgres down 8 s, {mode}") + (
        f"  unfinished after {run.unfinished_after}  resent after restart "
        f"{run.resent_after_restart}  {out.notes}"
    )
    print(line)
    assert out.notes == [], line
    assert out.lost == 0 and out.stored == 200, line
    assert out.presses_answered == 40 and out.published == 40, line
    assert out.nothing_saved == 0 and out.went_wrong == 0, line
    assert out.slow_notes_max <= 1, line
    assert run.unfinished_after == 0
    assert run.resent_after_restart == 0

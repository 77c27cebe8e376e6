"""Transient faults of the Bot API (429 with retry_after, 5xx, time-outs, and calls that
took effect but whose answer was lost) are retried: every user gets their score and
every press its answer, nobody is told "something went wrong"."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.botapi import FakeBotAPI
from tests.reliability.burst import run_burst

KINDS = ("429", "500", "502", "timeout", "delivered_timeout")


async def test_one_in_five_calls_failing_still_answers_everyone(tmp_path: Path) -> None:
    async with FakeBotAPI() as api:
        api.faults(
            methods=("sendMessage", "answerCallbackQuery", "editMessageText"),
            kinds=KINDS,
            probability=0.2,
            seed=4,
        )
        out = await run_burst(api, tmp_path, users=20, submissions=60, presses=15, rate=20)
        delivered = sum(
            1
            for f in api.fault_log
            if f["kind"] == "delivered_timeout" and f["method"] == "sendMessage"
        )
        kinds = {f["kind"] for f in api.fault_log}
    assert out.notes == []
    assert out.faults >= 10 and len(kinds) >= 4, out.line("faults")
    assert out.answered == 60 and out.stored == 60, out.line("faults")
    assert out.presses_answered == 15 and out.published == 15, out.line("faults")
    assert out.went_wrong == 0
    # a send repeated after a lost answer is the only way to a duplicate: at most one each
    assert out.duplicated <= delivered, out.line("faults")

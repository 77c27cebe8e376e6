"""Transient faults of the Bot API (429 with retry_after, 5xx, time-outs, and calls that
took effect but whose answer was lost) are retried: every user gets their score and
every press its answer, nobody is told "something went wrong"."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.e2e.botapi import Call, FakeBotAPI, JSONDict
from tests.e2e.botkit import KEY, answers
from tests.e2e.harness import running_bot
from tests.reliability.burst import SCORE, run_burst

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


async def test_a_429_in_one_chat_pauses_that_chat_only(tmp_path: Path) -> None:
    async with FakeBotAPI() as api:
        ann, bob = api.user(93_001, "Ann"), api.user(93_002, "Bob")
        chat_a, chat_b = api.private_chat(ann), api.private_chat(bob)
        text = "\n".join(["model: m", "#think", *answers(KEY, correct=50)])

        def sent_to(chat: JSONDict, ok: bool) -> Callable[[Call], bool]:
            return lambda c: (
                c["method"] == "sendMessage" and c["params"].get("chat_id") == chat["id"]
                and c["ok"] is ok
            )  # fmt: skip

        async with running_bot(api, tmp_path, key=KEY):
            api.flood(chat_a["id"], retry_after=8, times=1, methods=["sendMessage"])
            await api.send_text(chat_a, ann, text)
            await api.wait_for(sent_to(chat_a, False), timeout=20)  # the 429
            second = await api.send_text(chat_b, bob, text)
            reply = await api.reply_to(second, timeout=20)
            # Bob is answered while Ann's chat waits out its retry_after
            assert SCORE in reply["result"]["text"]
            assert not [c for c in api.calls if sent_to(chat_a, True)(c)]
            late = await api.wait_for(sent_to(chat_a, True), timeout=30)
            assert SCORE in late["result"]["text"]

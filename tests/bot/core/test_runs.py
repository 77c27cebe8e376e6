"""/run's use cases on a real store, against the local chat-completions server: who may
run (admins; others within the day's budget, nothing called otherwise), a run queued
and worked by the queue, scored as its paste and marked."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.core import keys, runs
from bot.core.errors import NotFound, UserError
from bot.core.services import Services
from bot.render.run_cards import run_card
from bot.runs import providers as prov
from scoring import natory
from tests.runs.fakeai import FakeAI, providers_toml
from tests.storage.helpers import FakeClock

from .conftest import BOT_ADMIN

USER = 4242


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeAI]:
    monkeypatch.setenv("LOCAL_AI_KEY", "sk-test")
    async with FakeAI(key="sk-test", answer=_the_target) as server:
        yield server


def _the_target(request: dict[str, Any]) -> str:
    found = re.search(r"exactly (\d+)", request["messages"][0]["content"])
    assert found
    return f"Thinking...\nThe answer: {found[1]}"


def _runner(fake: FakeAI) -> runs.Runner:
    return runs.Runner(prov.parse(providers_toml(fake.base_url)), backoff_first=0.01)


def _budget(services: Services, usd: float) -> None:
    services.settings = services.settings.model_copy(update={"run_budget_usd": usd})


async def test_only_admins_run_without_a_budget_and_nothing_is_called(
    services: Services, fake: FakeAI
) -> None:
    runner = _runner(fake)
    with pytest.raises(UserError) as refused:
        await runs.ask(services, runner, ["natory", "local/m1"], user_id=USER, chat_id=USER)
    assert refused.value.key == "run_admins_only" and fake.requests == []
    asked = await runs.ask(
        services, runner, ["natory", "local/m1", "#think", "2"], user_id=BOT_ADMIN, chat_id=1
    )
    assert asked.run.attempts == 2 and asked.run.mode == "think" and asked.run.origin == "chat"
    with pytest.raises(UserError) as none:
        await runs.ask(services, None, ["natory", "local/m1"], user_id=BOT_ADMIN, chat_id=1)
    assert none.value.key == "run_not_set_up"
    await runner.close()


async def test_a_user_runs_within_the_days_budget(services: Services, fake: FakeAI) -> None:
    runner = _runner(fake)
    _budget(services, 0.000001)
    asked = await runs.ask(services, runner, ["natory", "local/m1"], user_id=USER, chat_id=USER)
    queue = runs.RunQueue(services, runner, poll=0.01)
    claimed = await services.store.claim_attempt(run_id=asked.run.id)
    assert claimed is not None
    outcome = await runs.execute(services, runner, *claimed)
    assert outcome.error is None and outcome.cost_usd and outcome.cost_usd > 0.000001
    with pytest.raises(UserError) as spent:
        await runs.ask(services, runner, ["natory", "local/m1"], user_id=USER, chat_id=USER)
    assert spent.value.key == "run_budget_used" and len(fake.requests) == 1
    sub = await services.store.get_submission(outcome.submission_id or 0)
    assert sub is not None and sub.origin == "benchboard" and sub.visibility == "published"
    target = sub.extra["target"]
    challenge = natory.BENCHMARK.challenge.parse(str(target))  # type: ignore[union-attr]
    pasted = natory.BENCHMARK.score(f"Thinking...\nThe answer: {target}", challenge)
    assert sub.score == pasted.primary and pasted.valid
    assert sub.extra["cost"] == pytest.approx(outcome.cost_usd)
    assert queue.in_flight == 0
    await runner.close()


async def test_a_user_within_a_budget_has_one_run_at_a_time(
    services: Services, fake: FakeAI
) -> None:
    # the budget counts what finished attempts cost: runs queued side by side before one
    # finished would all pass the check and spend past it unseen
    runner = _runner(fake)
    _budget(services, 1.0)
    words = ["natory", "local/m1", "8"]
    first = await runs.ask(services, runner, words, user_id=USER, chat_id=USER)
    with pytest.raises(UserError) as busy:
        await runs.ask(services, runner, words, user_id=USER, chat_id=USER)
    assert busy.value.key == "run_still_going"
    with pytest.raises(NotFound):  # nothing more was queued
        await services.store.get_run(first.run.id + 1)
    # an admin spends no budget and is not held; a finished (here cancelled) run frees
    await runs.ask(services, runner, words, user_id=BOT_ADMIN, chat_id=1)
    await runs.ask(services, runner, words, user_id=BOT_ADMIN, chat_id=1)
    await runs.cancel(services, first.run.id, user_id=USER)
    again = await runs.ask(services, runner, words, user_id=USER, chat_id=USER)
    assert again.run.id != first.run.id and fake.requests == []
    await runner.close()


async def test_what_a_cancelled_attempt_spent_is_counted(
    services: Services, fake: FakeAI, clock: FakeClock
) -> None:
    # the call was made and paid for: a cancel that comes while it runs drops its answer,
    # not its cost (else cancelling before the answers came would spend past the budget)
    runner = _runner(fake)
    _budget(services, 1.0)
    fake.delay = 0.5
    asked = await runs.ask(services, runner, ["natory", "local/m1"], user_id=USER, chat_id=USER)
    claimed = await services.store.claim_attempt(run_id=asked.run.id)
    assert claimed is not None
    running = asyncio.create_task(runs.execute(services, runner, *claimed))
    for _ in range(500):  # until the call is out
        if fake.in_flight:
            break
        await asyncio.sleep(0.01)
    await runs.cancel(services, asked.run.id, user_id=USER)
    outcome = await running
    assert outcome.error == "cancelled" and fake.answered == 1
    [attempt] = await services.store.run_attempts(asked.run.id)
    assert attempt.state == "cancelled" and attempt.submission_id is None
    assert attempt.cost_usd and attempt.cost_usd > 0
    assert await services.store.spent_today(USER) == pytest.approx(attempt.cost_usd)
    [(origin, model, count, cost, _)] = await runs.cost_report(services, clock.now.date())
    assert (origin, model, count, cost) == ("chat", "local/m1", 1, attempt.cost_usd)
    await runner.close()


async def test_a_run_message_handled_again_is_the_run_it_queued(
    services: Services, fake: FakeAI
) -> None:
    # its progress reply failed past the sender's retries (or the process died before
    # it): the intake handles the update again, which must not queue (and pay) it twice
    runner = _runner(fake)
    _budget(services, 1.0)
    for user in (USER, BOT_ADMIN):
        first = await runs.ask(
            services, runner, ["natory", "local/m1", "2"], user_id=user, chat_id=user,
            message_id=77,
        )  # fmt: skip
        again = await runs.ask(
            services, runner, ["natory", "local/m1", "2"], user_id=user, chat_id=user,
            message_id=77,
        )  # fmt: skip
        assert again.run.id == first.run.id and again.title == first.title == "Natory"
    with pytest.raises(NotFound):
        await services.store.get_run(first.run.id + 1)
    await runner.close()


@contextlib.asynccontextmanager
async def working_queue(
    services: Services, runner: runs.Runner, *, later: tuple[float, ...]
) -> AsyncIterator[tuple[runs.RunQueue, list[runs.AttemptDone]]]:
    """A run queue at work in the background (giving attempts back after ``later``),
    and the outcomes its listener heard; stopped on leaving."""
    heard: list[runs.AttemptDone] = []

    async def listener(run: runs.Run, job: runs.RunAttempt, outcome: runs.AttemptDone) -> None:
        heard.append(outcome)

    queue = runs.RunQueue(services, runner, listener, poll=0.05, later=later)
    working = asyncio.create_task(queue.work())
    try:
        yield queue, heard
    finally:
        working.cancel()
        await asyncio.gather(working, return_exceptions=True)


async def test_an_attempt_whose_provider_is_down_a_while_waits_for_it(
    services: Services, fake: FakeAI, clock: FakeClock
) -> None:
    # the provider restarts (down longer than its retries last): the attempt goes back to
    # the queue for a later try instead of failing (a day's run would be lost for the day)
    runner = runs.Runner(
        prov.parse(providers_toml(fake.base_url, retries=1, timeout=1)), backoff_first=0.01
    )
    await fake.stop()
    asked = await runs.ask(services, runner, ["natory", "local/m1"], user_id=BOT_ADMIN, chat_id=1)
    async with working_queue(services, runner, later=(0.5,)) as (queue, heard):
        for _ in range(20):  # its tries fail while the provider is down
            await asyncio.sleep(0.05)
        [waiting] = await services.store.run_attempts(asked.run.id)
        assert waiting.state == "queued" and heard == []
        await fake.start()  # back (on its port)
        clock.advance(seconds=1)  # the wait is over
        queue.wake()
        for _ in range(200):
            if heard:
                break
            await asyncio.sleep(0.05)
    [attempt] = await services.store.run_attempts(asked.run.id)
    assert attempt.state == "done" and attempt.error is None and heard[0].error is None
    await runner.close()


async def test_an_attempt_given_back_fails_when_the_provider_stays_down(
    services: Services, fake: FakeAI, clock: FakeClock
) -> None:
    runner = runs.Runner(
        prov.parse(providers_toml(fake.base_url, retries=1, timeout=1)), backoff_first=0.01
    )
    await fake.stop()
    asked = await runs.ask(services, runner, ["natory", "local/m1"], user_id=BOT_ADMIN, chat_id=1)
    try:
        async with working_queue(services, runner, later=(0.1, 0.1)) as (_, heard):
            for _ in range(200):
                if heard:
                    break
                clock.advance(seconds=0.2)  # each wait runs out
                await asyncio.sleep(0.05)
    finally:
        await fake.start()
    [attempt] = await services.store.run_attempts(asked.run.id)
    assert attempt.state == "failed" and "failed 2 times (last: unreachable)" in (
        attempt.error or ""
    )
    await runner.close()


async def test_an_attempt_that_keeps_timing_out_fails_and_is_not_given_back(
    services: Services, fake: FakeAI
) -> None:
    # a model slower than the provider's timeout is not helped by trying later, and a
    # provider bills what it generated for the calls it gave up on
    runner = runs.Runner(
        prov.parse(providers_toml(fake.base_url, retries=1, timeout=0.3)), backoff_first=0.01
    )
    fake.faults, fake.hang = ["timeout"] * 4, 1.0
    asked = await runs.ask(services, runner, ["natory", "local/m1"], user_id=BOT_ADMIN, chat_id=1)
    async with working_queue(services, runner, later=(0.1,)) as (_, heard):
        for _ in range(100):
            if heard:
                break
            await asyncio.sleep(0.05)
    [attempt] = await services.store.run_attempts(asked.run.id)
    assert attempt.state == "failed" and "no answer within 0.3 s" in (attempt.error or "")
    assert len(fake.requests) == 2
    await runner.close()


async def test_an_attempt_given_back_keeps_its_answered_calls_and_pays_them_once(
    services: Services, fake: FakeAI, clock: FakeClock
) -> None:
    # a call per question: the provider answers two, then is down past the retries of
    # the third; the attempt goes back to the queue, and its next try asks only the third
    # (the first two were answered and paid for), costing all three once
    await _three_questions(services, fake)
    runner = runs.Runner(
        prov.parse(providers_toml(fake.base_url, retries=1, concurrency=1)), backoff_first=0.01
    )
    fake.faults = ["", "", "500", "500"]  # two answered, then the third fails twice
    asked = await runs.ask(
        services, runner, ["zerobench", "local/m1"], user_id=BOT_ADMIN, chat_id=1
    )
    async with working_queue(services, runner, later=(0.5,)) as (queue, heard):
        for _ in range(200):  # its third call failed: given back
            if len(fake.requests) >= 4:
                break
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.1)
        [waiting] = await services.store.run_attempts(asked.run.id)
        assert waiting.state == "queued" and heard == []
        assert waiting.cost_usd and waiting.cost_usd > 0  # what was paid counts at once
        clock.advance(seconds=1)  # the wait is over
        queue.wake()
        for _ in range(200):
            if heard:
                break
            await asyncio.sleep(0.05)
    [attempt] = await services.store.run_attempts(asked.run.id)
    assert attempt.state == "done" and attempt.error is None, attempt.error
    answered = [r for r, s in zip(fake.requests, fake.statuses, strict=True) if s == 200]
    assert len(answered) == 3 and len(fake.requests) == 5
    assert sorted(_text(r)[:9] for r in answered) == ["What is 1", "What is 2", "What is 3"]
    model = runner.providers.model("local/m1")
    tokens_in = sum(max(1, len(_text(r)) // 4) for r in answered)
    assert attempt.input_tokens == tokens_in
    assert attempt.cost_usd == pytest.approx(model.cost(tokens_in, attempt.output_tokens or 0))
    assert attempt.score == 1.0  # all three answers, kept ones included, were scored
    _, transcript = await runs.transcript(services, attempt.submission_id or 0)
    assert len(json.loads(transcript)["calls"]) == 3
    await runner.close()


async def _three_questions(services: Services, fake: FakeAI) -> None:
    """A ZeroBench key and question file of three questions (a call each), and the
    fake answering each right."""
    key = {"1": "7", "2": "14", "3": "21"}
    await keys.load_key(services, "zerobench", json.dumps({"zerobench": key}).encode(), "test")
    questions = services.settings.data_dir / "zerobench" / "questions.jsonl"
    questions.parent.mkdir(parents=True, exist_ok=True)
    questions.write_text(
        "".join(json.dumps({"question_id": q, "question_text": f"What is {q}*7?"}) + "\n"
                for q in key)
    )  # fmt: skip
    fake.answer = lambda r: "{" + str(int(re.findall(r"What is (\d)", _text(r))[0]) * 7) + "}"


async def test_an_attempt_stopped_with_the_bot_keeps_its_answered_calls(
    services: Services, fake: FakeAI
) -> None:
    # the bot stops (a deploy) while the third of an attempt's calls is out: the two
    # answered stay with the attempt, and the next start asks only the third
    await _three_questions(services, fake)
    runner = runs.Runner(
        prov.parse(providers_toml(fake.base_url, concurrency=1, timeout=30)), backoff_first=0.01
    )
    fake.faults, fake.hang = ["", "", "timeout"], 30.0  # the third hangs
    asked = await runs.ask(
        services, runner, ["zerobench", "local/m1"], user_id=BOT_ADMIN, chat_id=1
    )
    async with working_queue(services, runner, later=(0.5,)) as (_, heard):
        for _ in range(300):
            if len(fake.requests) >= 3:
                break
            await asyncio.sleep(0.02)
        assert fake.answered == 2 and heard == []
    [waiting] = await services.store.run_attempts(asked.run.id)
    assert waiting.state == "queued" and waiting.cost_usd and waiting.cost_usd > 0
    async with working_queue(services, runner, later=(0.5,)) as (_, heard):
        for _ in range(200):
            if heard:
                break
            await asyncio.sleep(0.05)
    [attempt] = await services.store.run_attempts(asked.run.id)
    assert attempt.state == "done" and attempt.score == 1.0
    assert fake.answered == 3 and len(fake.requests) == 4  # the third, once more
    await runner.close()


def _text(request: dict[str, Any]) -> str:
    return "".join(
        p.get("text", "") if isinstance(p, dict) else p
        for m in request["messages"]
        for p in (m["content"] if isinstance(m["content"], list) else [m["content"]])
    )


async def test_a_provider_that_does_not_report_usage_gives_no_cost_not_zero(
    services: Services, fake: FakeAI, clock: FakeClock
) -> None:
    # tokens and cost not known are not shown as free: the card says so, and the
    # challenge's board gets no cost for the attempt (as a paste without one)
    runner = _runner(fake)
    fake.faults = ["no_usage"]
    asked = await runs.ask(services, runner, ["natory", "local/m1"], user_id=BOT_ADMIN, chat_id=1)
    claimed = await services.store.claim_attempt(run_id=asked.run.id)
    assert claimed is not None
    outcome = await runs.execute(services, runner, *claimed)
    assert outcome.error is None and outcome.submission_id is not None
    assert outcome.cost_usd is None and outcome.input_tokens is None
    [attempt] = await services.store.run_attempts(asked.run.id)
    assert attempt.cost_usd is None and attempt.output_tokens is None
    sub = await services.store.get_submission(outcome.submission_id)
    assert sub is not None and "cost" not in sub.extra and sub.extra["run"]["cost_usd"] is None
    card = run_card(
        "en", natory.BENCHMARK.result_from_record(sub.record), natory.BENCHMARK,
        model="local/m1", mode_label="default", submission_id=sub.id, published=True,
        input_tokens=attempt.input_tokens, output_tokens=attempt.output_tokens,
        cost=attempt.cost_usd, latency=attempt.latency_s or 0.0,
    )  # fmt: skip
    assert "Tokens and cost: not reported by the provider" in card and "$0" not in card
    # the admins' report says the day's sum leaves it out
    [row] = await runs.cost_report(services, clock.now.date())
    assert row == ("chat", "local/m1", 1, 0.0, 1)
    await runner.close()


async def test_a_users_run_of_many_attempts_stops_at_the_budget(
    services: Services, fake: FakeAI, clock: FakeClock
) -> None:
    # the budget is checked before each attempt, and a user's attempts are made one at a
    # time: one run of eight cannot spend eight times what was left
    runner = _runner(fake)
    _budget(services, 0.000001)  # less than one attempt costs
    asked = await runs.ask(
        services, runner, ["natory", "local/m1", "3"], user_id=USER, chat_id=USER
    )
    async with working_queue(services, runner, later=(0.5,)) as (_, heard):
        for _ in range(300):
            if len(heard) == 3:
                break
            clock.advance(seconds=0.1)  # (an attempt held back is taken again)
            await asyncio.sleep(0.02)
    attempts = await services.store.run_attempts(asked.run.id)
    assert [a.state for a in attempts] == ["done", "failed", "failed"]
    assert all(a.error == runs.BUDGET_USED for a in attempts[1:])
    assert fake.answered == 1 and fake.most_in_flight == 1
    # an admin's run is not held to it: its attempts go side by side
    fake.delay = 0.2
    admin = await runs.ask(
        services, runner, ["natory", "local/m1", "3"], user_id=BOT_ADMIN, chat_id=1
    )
    async with working_queue(services, runner, later=(0.5,)) as (_, heard):
        for _ in range(300):
            if len(heard) == 3:
                break
            clock.advance(seconds=0.1)  # (an attempt held back is taken again)
            await asyncio.sleep(0.02)
    assert [a.state for a in await services.store.run_attempts(admin.run.id)] == ["done"] * 3
    assert fake.most_in_flight == 3
    await runner.close()

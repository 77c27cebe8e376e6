"""The provider client against a local chat-completions server over real HTTP: prices,
retries on 429 (Retry-After) and 5xx and timeouts, refusals, bounded concurrency."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from bot.runs import providers as prov
from bot.runs.attempt import run_attempt
from bot.runs.client import Clients, FairSlots
from bot.runs.providers import ProviderError
from scoring import natory, zerobench
from scoring.runs import Call, Message, RunMaterials, RunPlan

from .fakeai import FakeAI, providers_toml

NA = natory.BENCHMARK
ZB = zerobench.BENCHMARK


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeAI]:
    monkeypatch.setenv("LOCAL_AI_KEY", "sk-test")
    async with FakeAI(answer="ok") as server:
        yield server


def _clients(fake: FakeAI, **kw: object) -> tuple[Clients, prov.ModelSpec]:
    file = prov.parse(providers_toml(fake.base_url, **kw))  # type: ignore[arg-type]
    return Clients(file, backoff_first=0.01), file.model("local/m1")


def test_the_file_names_models_by_provider_and_prices_them() -> None:
    text = providers_toml("http://x/v1", models=("deep/seek-1",)) + (
        '[[daily]]\nbenchmark = "natory"\nmodels = ["local/deep/seek-1"]\nattempts = 2\n'
        '[sponsor.natory]\nstars = 50\nruns = 2\nmodels = ["local/deep/seek-1"]\n'
    )
    file = prov.parse(text)
    model = file.model("local/deep/seek-1")
    assert model.cost(1_000_000, 500_000) == pytest.approx(2.0)
    assert model.request_options("think") == {"reasoning_effort": "high"}
    assert model.request_options("default") == {}
    assert file.daily[0].models == ("local/deep/seek-1",) and file.daily[0].attempts == 2
    assert file.sponsor["natory"].stars == 50 and file.sponsor["natory"].runs == 2
    with pytest.raises(ProviderError, match="lists no model 'nope'") as e:
        file.model("local/nope")
    assert e.value.code == "unknown_model"
    with pytest.raises(ProviderError, match="unknown provider"):
        file.model("elsewhere/m1")
    with pytest.raises(ProviderError, match="base_url"):
        prov.parse('[providers.x]\nbase_url = 3\napi_key_env = "K"\n')
    with pytest.raises(ProviderError, match=r"\[sponsor.natory\]: models must name at least one"):
        prov.parse(providers_toml("http://x/v1") + "[sponsor.natory]\nstars = 5\nmodels = []\n")


async def test_a_natory_attempt_costs_what_the_file_says(fake: FakeAI) -> None:
    fake.answer = lambda r: "Let me think.\nThe answer:\n(2+1)*7"
    clients, model = _clients(fake)
    plan = NA.run_plan(RunMaterials(NA.challenge.parse("21")))  # type: ignore[union-attr]
    done = await run_attempt(clients, NA, model, "default", plan)
    await clients.close()
    sent = fake.requests[0]
    assert sent["model"] == "m1"
    assert sent["messages"][0]["content"] == plan.calls[0].messages[0].parts[0]
    assert done.output.endswith("(2+1)*7")
    assert done.cost_usd == pytest.approx(
        (done.input_tokens * 1.0 + done.output_tokens * 2.0) / 1e6
    )
    assert done.input_tokens > 100 and done.output_tokens > 0 and done.latency_s > 0
    assert '"answer": "Let me think.' in done.transcript


async def test_429_and_500_and_timeouts_are_tried_again(fake: FakeAI) -> None:
    fake.faults = ["429", "500", "timeout"]
    fake.hang = 1.0
    clients, model = _clients(fake, timeout=0.3)
    answer = await clients.for_model(model).complete(model, [{"role": "user", "content": "hi"}], {})
    await clients.close()
    assert answer.text == "ok" and answer.tries == 4
    assert fake.statuses[:2] == [429, 500]


async def test_an_unreadable_answer_is_tried_again_not_scored(fake: FakeAI) -> None:
    # a body cut short, and a gateway's 200 with an error object instead of choices: a
    # fault of the way there, not an empty answer of the model's
    fake.faults = ["garbled", "error_200"]
    clients, model = _clients(fake)
    answer = await clients.for_model(model).complete(model, [{"role": "user", "content": "hi"}], {})
    await clients.close()
    assert answer.text == "ok" and answer.tries == 3


async def test_answers_that_never_read_end_in_one_plain_line(fake: FakeAI) -> None:
    fake.faults = ["garbled", "error_200", "garbled"]
    clients, model = _clients(fake, retries=2)
    with pytest.raises(ProviderError) as e:
        await clients.for_model(model).complete(model, [{"role": "user", "content": "x"}], {})
    await clients.close()
    assert str(e.value) == "provider local: failed 3 times (last: an answer that could not be read)"
    assert e.value.code == "dead"


async def test_a_request_timeout_408_is_tried_again(fake: FakeAI) -> None:
    fake.faults = ["408"]
    clients, model = _clients(fake)
    answer = await clients.for_model(model).complete(model, [{"role": "user", "content": "hi"}], {})
    await clients.close()
    assert answer.text == "ok" and answer.tries == 2 and fake.statuses == [408, 200]


async def test_retry_after_is_honoured(fake: FakeAI) -> None:
    fake.faults = ["429"]
    fake.retry_after = "0.6"
    clients, model = _clients(fake)
    started = time.monotonic()
    await clients.for_model(model).complete(model, [{"role": "user", "content": "hi"}], {})
    await clients.close()
    assert time.monotonic() - started >= 0.6


async def test_a_provider_that_keeps_failing_is_dead(fake: FakeAI) -> None:
    fake.faults = ["500"] * 10
    clients, model = _clients(fake, retries=2)
    with pytest.raises(ProviderError, match="provider local: failed 3 times") as e:
        await clients.for_model(model).complete(model, [{"role": "user", "content": "x"}], {})
    await clients.close()
    assert e.value.code == "dead" and len(fake.requests) == 3


async def test_refusals_are_not_tried_again(fake: FakeAI, monkeypatch: pytest.MonkeyPatch) -> None:
    fake.models = {"other"}
    clients, model = _clients(fake)
    with pytest.raises(ProviderError, match="no model 'm1'") as e:
        await clients.for_model(model).complete(model, [{"role": "user", "content": "x"}], {})
    assert e.value.code == "unknown_model"
    await clients.close()
    monkeypatch.setenv("LOCAL_AI_KEY", "sk-wrong")
    clients, model = _clients(fake)
    with pytest.raises(ProviderError, match="LOCAL_AI_KEY was refused") as e:
        await clients.for_model(model).complete(model, [{"role": "user", "content": "x"}], {})
    assert e.value.code == "auth" and len(fake.requests) == 2
    await clients.close()
    monkeypatch.delenv("LOCAL_AI_KEY")
    clients, model = _clients(fake)
    with pytest.raises(ProviderError, match="LOCAL_AI_KEY") as e:
        await clients.for_model(model).complete(model, [], {})
    assert e.value.code == "no_key"


async def test_a_dead_provider_is_named() -> None:
    text = providers_toml("http://127.0.0.1:9/v1", retries=1)
    file = prov.parse(text)
    clients = Clients(file, backoff_first=0.01)
    model = file.model("local/m1")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LOCAL_AI_KEY", "k")
        with pytest.raises(ProviderError, match=r"provider local: failed 2 times.*unreachable"):
            await clients.for_model(model).complete(model, [{"role": "user", "content": "x"}], {})
    await clients.close()


async def test_calls_to_a_provider_are_bounded(fake: FakeAI) -> None:
    fake.delay = 0.2
    clients, model = _clients(fake, concurrency=2)
    client = clients.for_model(model)
    await asyncio.gather(
        *(client.complete(model, [{"role": "user", "content": "x"}], {}) for _ in range(6))
    )
    await clients.close()
    assert fake.most_in_flight == 2


async def test_one_attempts_many_calls_do_not_hold_anothers_behind_them(fake: FakeAI) -> None:
    # a benchmark of a call per question sends a hundred at once; another run's one call
    # at the same provider waits for a slot, not for all of them
    fake.delay = 0.05
    clients, model = _clients(fake, concurrency=2)
    client = clients.for_model(model)
    finished: list[str] = []

    async def call(owner: object, name: str) -> None:
        await client.complete(model, [{"role": "user", "content": name}], {}, owner=owner)
        finished.append(name)

    big, small = object(), object()
    many = [asyncio.create_task(call(big, f"big{n}")) for n in range(20)]
    await asyncio.sleep(0.01)  # the big one's calls are all waiting
    await call(small, "small")
    await asyncio.gather(*many)
    await clients.close()
    assert finished.index("small") <= 4
    assert fake.most_in_flight == 2


async def test_a_calls_latency_leaves_out_its_wait_for_a_slot(fake: FakeAI) -> None:
    # the card and the board show the model's latency, not how busy Benchboard was
    fake.delay = 0.4
    clients, model = _clients(fake, concurrency=1)
    client = clients.for_model(model)
    first, second = await asyncio.gather(
        *(client.complete(model, [{"role": "user", "content": "x"}], {}) for _ in range(2))
    )
    await clients.close()
    assert 0.4 <= first.latency_s < 0.7 and 0.4 <= second.latency_s < 0.7


async def test_a_wait_cancelled_before_or_after_its_turn_loses_no_slot() -> None:
    slots = FairSlots(1)
    held = asyncio.Event()

    async def hold(owner: str) -> None:
        async with slots.hold(owner):
            held.set()

    async with slots.hold("a"):
        early = asyncio.create_task(hold("b"))
        late = asyncio.create_task(hold("c"))
        await asyncio.sleep(0)
        early.cancel()  # cancelled while it waits
    late.cancel()  # given the slot as "a" let it go, cancelled before it woke
    await asyncio.gather(early, late, return_exceptions=True)
    held.clear()
    await asyncio.wait_for(hold("d"), 1)  # the one slot is free
    assert held.is_set()


async def test_an_attempt_that_fails_keeps_what_its_answered_calls_cost(fake: FakeAI) -> None:
    # a call per question: the ones answered before another failed were paid for
    answered = 0

    def answer(request: dict[str, object]) -> str:
        nonlocal answered
        answered += 1
        if answered == 2:
            fake.models = set()  # the model is withdrawn: the third call is refused (404)
        return "an answer"

    fake.answer = answer
    clients, model = _clients(fake, concurrency=1)
    calls = tuple(Call((Message("user", (f"question {n}",)),), item=str(n)) for n in range(3))
    with pytest.raises(ProviderError) as e:
        await run_attempt(clients, ZB, model, "default", RunPlan("v", calls, {}))
    await clients.close()
    assert e.value.code == "unknown_model" and answered == 2
    assert e.value.input_tokens > 0 and e.value.output_tokens == 2 * len("an answer") // 4
    assert e.value.cost_usd == pytest.approx(
        (e.value.input_tokens * 1.0 + e.value.output_tokens * 2.0) / 1e6
    )


async def test_an_answer_not_utf8_is_tried_again_not_a_crash(fake: FakeAI) -> None:
    fake.faults = ["not_utf8"]
    clients, model = _clients(fake)
    answer = await clients.for_model(model).complete(model, [{"role": "user", "content": "x"}], {})
    await clients.close()
    assert answer.text == "ok" and answer.tries == 2


async def test_an_answer_trickling_past_the_timeout_is_a_timeout_not_a_hang(
    fake: FakeAI,
) -> None:
    # each read comes within the timeout, the whole answer never does: the call is
    # bounded as a whole, and tried again
    fake.faults = ["trickle"]
    clients, model = _clients(fake, timeout=1.0)
    started = time.monotonic()
    answer = await asyncio.wait_for(
        clients.for_model(model).complete(model, [{"role": "user", "content": "x"}], {}), 10
    )
    await clients.close()
    assert answer.text == "ok" and answer.tries == 2
    assert time.monotonic() - started < 3


async def test_content_in_parts_is_read_and_broken_token_counts_count_none(
    fake: FakeAI,
) -> None:
    fake.faults = ["parts", "bad_usage"]
    fake.answer = lambda r: "the whole answer"
    clients, model = _clients(fake)
    client = clients.for_model(model)
    parts = await client.complete(model, [{"role": "user", "content": "x"}], {})
    broken = await client.complete(model, [{"role": "user", "content": "x"}], {})
    await clients.close()
    assert parts.text == "the whole answer" and parts.tries == 1
    assert broken.text == "the whole answer"
    assert broken.input_tokens == 0 and broken.output_tokens == len("the whole answer") // 4

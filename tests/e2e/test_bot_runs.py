"""Benchboard runs benchmarks itself (issue 32), end to end: the real bot process
against the Bot API emulator and a local OpenAI-compatible server (no real provider):
/run by an admin, its progress message and cards with a Transcript button, the run on
/leaderboard with its mark, a user without a budget refused with nothing called, and a
run cancelled."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from scoring import primebench as pb
from tests.runs.fakeai import FakeAI, providers_toml

from .botapi import UploadedFile
from .botkit import KEY, Bot, answers, bot_session, button, private_user, questions_json, text_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

ADMIN = 9101
ANSWER = "Here are my answers.\n" + "\n".join(answers(KEY, correct=60, wrong=10))


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def fake() -> AsyncIterator[FakeAI]:
    async with FakeAI(models=("m1",), key="sk-local", answer=ANSWER) as server:
        yield server


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory, fake: FakeAI) -> AsyncIterator[Bot]:
    tmp = tmp_path_factory.mktemp("runs")
    providers = tmp / "providers.toml"
    providers.write_text(providers_toml(fake.base_url, retries=3, timeout=5))
    env = {
        "BENCHBOARD_ADMINS": str(ADMIN),
        "BENCHBOARD_PROVIDERS": str(providers),
        "LOCAL_AI_KEY": "sk-local",
    }
    async with bot_session(tmp, env=env, questions=questions_json()) as b:
        yield b


async def _cards(bot: Bot, chat_id: int, since: int, count: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []

    def done() -> bool:
        found[:] = [
            c for c in bot.api.calls[since:]
            if c["method"] == "sendMessage" and c["params"].get("chat_id") == chat_id
            and "run by Benchboard" in text_of(c)
        ]  # fmt: skip
        return len(found) >= count

    await bot.api.wait_until(done, 30, what=f"{count} run cards")
    return found


async def test_an_admins_run_gives_marked_cards_with_cost_latency_and_a_transcript(
    bot: Bot, fake: FakeAI
) -> None:
    user, chat = private_user(bot, ADMIN)
    fake.faults = ["429", "500"]  # tried again: the run still finishes
    since = bot.api.mark()
    progress = await bot.say(chat, user, "/run primebench local/m1 #think 2")
    assert "Running PrimeBench on local/m1" in text_of(progress)
    assert button(progress, "Cancel").startswith("rc:")
    cards = await _cards(bot, chat["id"], since, 2)
    key = pb.BENCHMARK.load_key("".join(f"{q}:{o}\n" for q, o in KEY.items()).encode())
    pasted = pb.BENCHMARK.score(ANSWER, key)
    for card in cards:
        text = text_of(card)
        assert "run by Benchboard" in text and "local/m1" in text
        assert f"Final score: {pasted.final_score:+d}" in text or str(pasted.final_score) in text
        assert "Cost: $" in text and "Latency:" in text and "Tokens:" in text
    # the request held the questions and the official prompt, byte-exact, in mode think
    sent = fake.requests[-1]
    assert [p["text"] for p in sent["messages"][0]["content"]] == [
        questions_json().decode(), pb.PROMPT,
    ]  # fmt: skip
    assert sent["reasoning_effort"] == "high"
    # the progress message says both attempts are done, without its Cancel button now
    current = bot.current(progress)
    assert "2 of 2 attempts done" in text_of(current)
    # the Transcript button sends the exact request and the answer as a file
    data = button(cards[0], "Transcript")
    mark = bot.api.mark()
    await bot.press(chat, user, cards[0], data)
    sent_doc = await bot.api.wait_call("sendDocument", chat_id=chat["id"], since=mark, timeout=20)
    upload = sent_doc["params"]["document"]
    assert isinstance(upload, UploadedFile)
    transcript = json.loads(upload.text())
    call = transcript["calls"][0]
    assert call["answer"] == ANSWER
    assert call["request"]["messages"][0]["content"][1]["text"] == pb.PROMPT
    # the run is on the board with its mark
    other, other_chat = private_user(bot, 9150)
    board = text_of(await bot.say(other_chat, other, "/leaderboard primebench"))
    assert "local/m1" in board and "🤖" in board


async def test_a_user_without_a_budget_is_refused_and_nothing_is_called(
    bot: Bot, fake: FakeAI
) -> None:
    user, chat = private_user(bot, 9160)
    before = len(fake.requests)
    reply = await bot.say(chat, user, "/run primebench local/m1")
    assert "Only the bot's admins can run benchmarks" in text_of(reply)
    assert len(fake.requests) == before


async def test_bad_runs_are_refused_in_one_line(bot: Bot) -> None:
    user, chat = private_user(bot, ADMIN)
    usage = text_of(await bot.say(chat, user, "/run"))
    assert "Usage: /run" in usage and "local/m1" in usage
    unknown = text_of(await bot.say(chat, user, "/run primebench local/nope"))
    assert "cannot be made" in unknown and "lists no model 'nope'" in unknown
    many = text_of(await bot.say(chat, user, "/run primebench local/m1 50"))
    assert "between 1 and" in many


async def test_a_run_can_be_cancelled(bot: Bot, fake: FakeAI) -> None:
    user, chat = private_user(bot, ADMIN)
    fake.delay = 3.0
    try:
        progress = await bot.say(chat, user, "/run natory local/m1 3")
        since = bot.api.mark()
        answer = await bot.press(chat, user, progress, button(progress, "Cancel"))
        assert answer.get("text") == "Run cancelled."
        current = await bot.edited(progress, since)
        assert "Run cancelled." in text_of(current)
    finally:
        fake.delay = 0.0


async def test_cancel_on_a_finished_run_does_not_say_it_was_cancelled(
    bot: Bot, fake: FakeAI
) -> None:
    # its button is gone once the run is done, but a press can cross the edit (or come
    # from an old client): the run is not cancelled, and the answer says what it is
    user, chat = private_user(bot, ADMIN)
    since = bot.api.mark()
    progress = await bot.say(chat, user, "/run natory local/m1")
    data = button(progress, "Cancel")
    await _cards(bot, chat["id"], since, 1)
    answer = await bot.press(chat, user, progress, data, check_button=False)
    assert answer.get("text") != "Run cancelled."
    assert "Run finished" in str(answer.get("text"))
    assert "Run cancelled." not in text_of(bot.current(progress))

"""Sponsored runs with Telegram Stars (issue 32), end to end against the Bot API
emulator (invoices, pre-checkout queries, payments, refunds) and a local
OpenAI-compatible server: the invoice, the pre-checkout answer, the payment, the runs,
the sponsor on the target's board, and a refund when the runs cannot be made."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.runs.fakeai import FakeAI, providers_toml

from .botapi import FakeBotAPI
from .botkit import BOT, Bot, bot_session, check_log, private_user, text_of
from .harness import running_bot

pytestmark = pytest.mark.asyncio(loop_scope="module")

SPONSOR = '[sponsor.natory]\nstars = 50\nruns = 1\nmodels = ["local/m1"]\nattempts = 2\n'


def _the_target(request: dict[str, Any]) -> str:
    found = re.search(r"exactly (\d+)", request["messages"][0]["content"])
    assert found
    return f"After some thought:\n{found[1]}"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def fake() -> AsyncIterator[FakeAI]:
    async with FakeAI(key="sk-local", answer=_the_target) as server:
        yield server


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory, fake: FakeAI) -> AsyncIterator[Bot]:
    tmp = tmp_path_factory.mktemp("sponsor")
    providers = tmp / "providers.toml"
    providers.write_text(providers_toml(fake.base_url, retries=1, extra=SPONSOR))
    env = {"BENCHBOARD_PROVIDERS": str(providers), "LOCAL_AI_KEY": "sk-local"}
    async with bot_session(tmp, env=env, key=None) as b:
        yield b


async def _invoice(bot: Bot, chat: dict, user: dict, text: str) -> dict[str, Any]:
    since = bot.api.mark()
    await bot.api.send_text(chat, user, text)
    return await bot.api.wait_call("sendInvoice", chat_id=chat["id"], since=since, timeout=20)


async def test_a_sponsorship_is_paid_run_and_shown_on_the_targets_board(
    bot: Bot, fake: FakeAI
) -> None:
    user = bot.api.user(9301, "Ada", language_code="en")
    chat = bot.api.private_chat(user)
    invoice = await _invoice(bot, chat, user, "/sponsor natory 21 https://ada.example")
    params = invoice["params"]
    assert invoice["ok"] and params["currency"] == "XTR" and not params.get("provider_token")
    assert params["prices"][0]["amount"] == 50
    query = await bot.api.pre_checkout(user, invoice)
    answer = await bot.api.pre_checkout_answer(query)
    assert answer["params"]["ok"] in (True, "true")
    before = fake.answered
    since = bot.api.mark()
    paid = await bot.api.pay(chat, user, query)
    thanks = await bot.api.reply_to(paid, timeout=20)
    assert "Thank you! 1 run on target 21 is queued" in text_of(thanks)

    def carded() -> bool:
        return sum(
            1 for c in bot.api.calls[since:]
            if c["method"] == "sendMessage" and c["params"].get("chat_id") == chat["id"]
            and "run by Benchboard" in text_of(c)
        ) >= 2  # fmt: skip

    await bot.api.wait_until(carded, 30, what="the sponsored run's cards")
    assert fake.answered - before == 2
    board = text_of(await bot.say(chat, user, "/leaderboard natory 21"))
    assert "Sponsored by Ada" in board and "local/m1" in board and "🤖" in board
    board_html = bot.api.calls_of("sendMessage")[-1]["params"]["text"]
    assert '<a href="https://ada.example">Ada</a>' in board_html
    assert bot.api.refunds == []


async def test_a_changed_price_is_refused_at_checkout(bot: Bot) -> None:
    user, chat = private_user(bot, 9302)
    invoice = await _invoice(bot, chat, user, "/sponsor natory 12")
    invoice["params"]["prices"] = [{"label": "x", "amount": 5}]  # an older invoice's price
    query = await bot.api.pre_checkout(user, invoice)
    answer = await bot.api.pre_checkout_answer(query)
    assert answer["params"]["ok"] in (False, "false")
    assert "price" in answer["params"]["error_message"]


async def test_runs_that_cannot_be_made_are_refunded(bot: Bot, fake: FakeAI) -> None:
    user, chat = private_user(bot, 9303)
    invoice = await _invoice(bot, chat, user, "/sponsor natory 12")
    query = await bot.api.pre_checkout(user, invoice)
    await bot.api.pre_checkout_answer(query)
    fake.models = set()  # the model is gone from the provider (404): no attempt is made
    since = bot.api.mark()
    try:
        await bot.api.pay(chat, user, query)
        refund = await bot.api.wait_call("refundStarPayment", since=since, timeout=30)
    finally:
        fake.models = {"m1"}
    assert refund["ok"] and refund["params"]["user_id"] == 9303
    charge = refund["params"]["telegram_payment_charge_id"]
    assert bot.api.charges[charge]["refunded"]
    said = await bot.api.wait_for(
        lambda c: c["method"] == "sendMessage" and c["params"].get("chat_id") == chat["id"]
        and "refunded" in text_of(c),
        timeout=20, since=since,
    )  # fmt: skip
    assert "Stars were refunded" in text_of(said)
    board = text_of(await bot.say(chat, user, "/leaderboard natory 12"))
    assert "Sponsored by" not in board


async def test_a_benchmark_without_sponsorships_says_so(bot: Bot) -> None:
    user, chat = private_user(bot, 9304)
    reply = text_of(await bot.say(chat, user, "/sponsor primebench"))
    assert "takes no sponsorships" in reply
    usage = text_of(await bot.say(chat, user, "/sponsor"))
    assert usage.startswith("Usage: /sponsor")


async def test_a_refund_whose_answer_was_lost_is_still_told(bot: Bot, fake: FakeAI) -> None:
    # Telegram made the refund and its answer timed out: the refund tried again is told
    # CHARGE_ALREADY_REFUNDED, which means it was made; the sponsor hears of it
    user, chat = private_user(bot, 9305)
    invoice = await _invoice(bot, chat, user, "/sponsor natory 13")
    query = await bot.api.pre_checkout(user, invoice)
    await bot.api.pre_checkout_answer(query)
    fake.models = set()
    bot.api.faults(methods=("refundStarPayment",), kinds=("delivered_timeout",), times=1)
    since = bot.api.mark()
    try:
        await bot.api.pay(chat, user, query)
        said = await bot.api.wait_for(
            lambda c: c["method"] == "sendMessage" and c["params"].get("chat_id") == chat["id"]
            and "refunded" in text_of(c),
            timeout=40, since=since,
        )  # fmt: skip
    finally:
        fake.models = {"m1"}
        bot.api.clear_faults()
    assert "Stars were refunded" in text_of(said)
    assert [r["user_id"] for r in bot.api.refunds].count(9305) == 1
    assert "not refunded" not in bot.proc.log()


async def test_a_refund_telegram_refused_is_made_at_the_next_start(tmp_path: Path) -> None:
    # the refund call failed (not "already refunded"): the sponsorship is not marked
    # refunded, and the next start makes the refund
    async with FakeAI(key="sk-local", answer=_the_target) as fake:
        fake.models = set()  # every attempt fails at once (404): nothing is made
        providers = tmp_path / "providers.toml"
        providers.write_text(providers_toml(fake.base_url, retries=1, extra=SPONSOR))
        env = {"BENCHBOARD_PROVIDERS": str(providers), "LOCAL_AI_KEY": "sk-local"}
        async with FakeBotAPI(bot_username=BOT) as api:
            async with running_bot(api, tmp_path, env=env) as proc:
                bot = Bot(api, proc, {})
                user, chat = private_user(bot, 9306)
                invoice = await _invoice(bot, chat, user, "/sponsor natory 14")
                query = await bot.api.pre_checkout(user, invoice)
                await bot.api.pre_checkout_answer(query)
                api.faults(methods=("refundStarPayment",), kinds=("400",), times=1)
                since = api.mark()
                await bot.api.pay(chat, user, query)
                await api.wait_call("refundStarPayment", since=since, timeout=30)
            assert api.refunds == []
            await _refunded_at_the_next_start(api, tmp_path, env, chat, 9306)


async def _refunded_at_the_next_start(
    api: FakeBotAPI, tmp_path: Path, env: dict[str, str], chat: dict[str, Any], user_id: int
) -> Any:
    """Telegram takes refunds again; the next start makes the one left, and tells the
    sponsor: the bot's process, stopped."""
    api.clear_faults()
    since = api.mark()
    async with running_bot(api, tmp_path, env=env) as proc:
        said = await api.wait_for(
            lambda c: c["method"] == "sendMessage"
            and c["params"].get("chat_id") == chat["id"] and "refunded" in text_of(c),
            timeout=30, since=since,
        )  # fmt: skip
        assert "Stars were refunded" in text_of(said)
        assert [r["user_id"] for r in api.refunds] == [user_id]
    return proc


async def test_a_refund_refused_at_the_payment_is_made_later(tmp_path: Path) -> None:
    # the runs cannot be made (the provider's key is missing) so the payment is refunded
    # at once; Telegram refuses that refund call (400): the sponsor is told the refund
    # comes, it is not shown as a sponsor meanwhile, and the next start makes the refund
    async with FakeAI(key="sk-local", answer=_the_target) as fake:
        providers = tmp_path / "providers.toml"
        providers.write_text(providers_toml(fake.base_url, retries=1, extra=SPONSOR))
        env = {"BENCHBOARD_PROVIDERS": str(providers)}  # (no LOCAL_AI_KEY)
        async with FakeBotAPI(bot_username=BOT) as api:
            async with running_bot(api, tmp_path, env=env) as proc:
                bot = Bot(api, proc, {})
                user, chat = private_user(bot, 9307)
                invoice = await _invoice(bot, chat, user, "/sponsor natory 15")
                query = await bot.api.pre_checkout(user, invoice)
                await bot.api.pre_checkout_answer(query)
                api.faults(methods=("refundStarPayment",), kinds=("400",), times=1)
                paid = await bot.api.pay(chat, user, query)
                later = text_of(await bot.api.reply_to(paid, timeout=20))
                assert "will be refunded shortly" in later and "LOCAL_AI_KEY" in later
                assert api.refunds == []
                board = text_of(await bot.say(chat, user, "/leaderboard natory 15"))
                assert "Sponsored by" not in board
            check_log(await _refunded_at_the_next_start(api, tmp_path, env, chat, 9307))


async def test_a_pre_checkout_answered_too_late_is_no_error(bot: Bot) -> None:
    # the query waited past Telegram's 10 s (the bot was restarting): its answer is
    # refused as too old, and the payment does not go through; nothing is wrong here
    user, chat = private_user(bot, 9308)
    invoice = await _invoice(bot, chat, user, "/sponsor natory 16")
    query = {
        "id": "pcq-gone", "from": user, "currency": "XTR", "total_amount": 50,
        "invoice_payload": invoice["params"]["payload"],
    }  # fmt: skip
    since = bot.api.mark()
    await bot.api.send_raw_update("pre_checkout_query", query)
    await bot.api.wait_for(
        lambda c: c["method"] == "answerPreCheckoutQuery", timeout=20, since=since
    )
    await asyncio.sleep(1.0)
    assert not [
        c for c in bot.api.calls[since:]
        if c["method"] == "sendMessage" and c["params"].get("chat_id") == chat["id"]
    ]  # fmt: skip
    check_log(bot.proc)

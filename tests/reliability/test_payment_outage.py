"""A sponsorship paid around a PostgreSQL outage (a cluster the test kills): a
pre-checkout query while the database is down is refused at once, saying nobody was
charged (Telegram waits 10 s, and cancels the payment unanswered); a payment confirmed
while it is down gets one "taking longer" note, then its thanks once it is back, once;
no error in the log."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

from tests.e2e.botapi import FakeBotAPI
from tests.e2e.botkit import text_of
from tests.e2e.harness import running_bot
from tests.reliability.burst import SLOW
from tests.reliability.pgcluster import pg_cluster
from tests.runs.fakeai import FakeAI, providers_toml

SPONSOR = '[sponsor.natory]\nstars = 50\nruns = 1\nmodels = ["local/m1"]\nattempts = 2\n'
NOT_CHARGED = "You were not charged"
THANKS = "Thank you! 1 run on target 21 is queued"


def _the_target(request: dict[str, Any]) -> str:
    found = re.search(r"exactly (\d+)", request["messages"][0]["content"])
    assert found
    return f"After some thought:\n{found[1]}"


async def test_a_payment_around_an_outage_is_refused_or_kept(tmp_path: Path) -> None:
    async with (
        FakeAI(key="sk-local", answer=_the_target) as fake,
        pg_cluster() as cluster,
        FakeBotAPI() as api,
    ):
        providers = tmp_path / "providers.toml"
        providers.write_text(providers_toml(fake.base_url, retries=1, extra=SPONSOR))
        env = {
            "BENCHBOARD_DB": cluster.url,
            "BENCHBOARD_PROVIDERS": str(providers),
            "LOCAL_AI_KEY": "sk-local",
        }
        async with running_bot(api, tmp_path, key=None, env=env) as bot:
            user = api.user(9801, "Payer", language_code="en")
            chat = api.private_chat(user)
            since = api.mark()
            await api.send_text(chat, user, "/sponsor natory 21 https://payer.example")
            invoice = await api.wait_call(
                "sendInvoice", chat_id=chat["id"], since=since, timeout=20
            )
            await cluster.kill()
            started = time.monotonic()
            query = await api.pre_checkout(user, invoice)
            answer = await api.pre_checkout_answer(query, timeout=20)
            took = time.monotonic() - started
            assert answer["params"]["ok"] in (False, "false"), answer
            assert NOT_CHARGED in str(answer["params"].get("error_message")), answer
            assert took < 8, took  # Telegram waits 10 s
            await cluster.start()
            # once it is back: asked again, accepted (as the payer is told, "try again":
            # the bot learns the database is back within seconds); then it goes down
            # before the payment
            deadline = time.monotonic() + 30
            while True:
                query = await api.pre_checkout(user, invoice)
                answer = await api.pre_checkout_answer(query, timeout=30)
                if answer["params"]["ok"] in (True, "true") or time.monotonic() > deadline:
                    break
                assert NOT_CHARGED in str(answer["params"].get("error_message")), answer
                await asyncio.sleep(1)
            assert answer["params"]["ok"] in (True, "true"), answer
            await cluster.kill()
            paid = await api.pay(chat, user, query)
            note = await api.reply_to(paid, timeout=20)
            assert SLOW in text_of(note), text_of(note)
            await asyncio.sleep(3)
            await cluster.start()
            await api.wait_until(
                lambda: any(THANKS in str(m.get("text")) for m in api.messages_in(chat["id"])),
                60,
                what="the sponsor's thanks",
            )
            await asyncio.sleep(3)
            thanks = [m for m in api.messages_in(chat["id"]) if THANKS in str(m.get("text"))]
            assert len(thanks) == 1
            assert not any(c["refunded"] for c in api.charges.values())
        errors = [line for line in bot.log().splitlines() if '"level": "ERROR"' in line]
        assert errors == [], errors[0][:2000]

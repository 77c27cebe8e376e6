"""/rescore BENCHMARK, end to end (issue 35): stored natory-v1 attempts, scored by the
old rules (a padding that paid, a wild attempt at -20,441), are re-scored to natory-v2
by a bot admin in the background; the report gives the counts and the top before and
after, and the board shows the new scores."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from scoring.natory.rules import load_rules
from scoring.natory.scorer import Challenge, score
from storage import NewSubmission, Store, analytics
from tests.storage.test_analytics import FIELDS, NAME

from .botkit import Bot, bot_session, private_user, text_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

ADMIN = 9301
AUTHOR = 9350

#: (expression, model) for target 6840, as natory-v1 stored them
V1_ATTEMPTS = (
    ("(6+4)*684", "Honest"),  # 17 (12 + the unique bonus) in both versions
    ("6840+0*4", "Padder"),  # v1 37, v2 0
    ("(6+4)*684+0*444444444", "Wild"),  # v1 -20,441, v2 -100 (the floor)
)


async def store_v1_attempts(db_path: Path) -> None:
    """The bot's database as a natory-v1 bot left it: three published attempts."""
    db_path.parent.mkdir(parents=True, exist_ok=True)
    store = await Store.open(db_path)
    try:
        challenge, rules = Challenge.for_target(6840), load_rules("natory-v1")
        for message_id, (expression, model) in enumerate(V1_ATTEMPTS, start=1):
            previous = await analytics.challenge_previous(store, NAME, FIELDS, 6840)
            result = score(expression, challenge, previous=previous, rules=rules)
            sub = await store.record_submission(
                NewSubmission(
                    user_id=AUTHOR,
                    chat_id=AUTHOR,
                    message_id=message_id,
                    benchmark="natory",
                    key_version_id=None,
                    model=model,
                    mode="default",
                    raw=expression,
                    result=result,
                    scorer_version=rules.version,
                    extra={"target": 6840},
                )
            )
            await store.publish(sub.id)
    finally:
        await store.close()


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    tmp = tmp_path_factory.mktemp("admin-rescore")
    await store_v1_attempts(tmp / "data" / "benchboard.sqlite3")
    env = {"BENCHBOARD_ADMINS": str(ADMIN)}
    async with bot_session(tmp, env=env) as b:
        yield b


async def test_rescore_is_for_bot_admins_and_names_the_benchmarks(bot: Bot) -> None:
    user, chat = private_user(bot, AUTHOR)
    refused = text_of(await bot.say(chat, user, "/rescore natory"))
    assert refused == "This command is for admins only."
    admin, admin_chat = private_user(bot, ADMIN)
    for words in ("/rescore", "/rescore banana"):
        usage = text_of(await bot.say(admin_chat, admin, words))
        assert "Use /rescore BENCHMARK (one of: primebench, zerobench, natory)" in usage


async def test_stored_v1_attempts_are_rescored_to_v2_with_a_report(bot: Bot) -> None:
    mark = bot.api.mark()
    user, chat = private_user(bot, AUTHOR)
    board = text_of(await bot.say(chat, user, "/leaderboard natory 6840"))
    assert "37" in board and "-20441" in board.replace(",", "")  # what v1 paid
    admin, admin_chat = private_user(bot, ADMIN)
    since = bot.api.mark()
    started = text_of(await bot.say(admin_chat, admin, "/rescore natory"))
    assert started == (
        "Re-scoring 3 stored Natory submissions to natory-v2 in the background; I will report here."
    )
    report = text_of(
        await bot.api.wait_for(
            lambda c: c["method"] == "sendMessage" and "Re-score done" in str(c["params"]["text"]),
            timeout=30,
            since=since,
        )
    )
    # (every record changed: each now says natory-v2)
    assert "Natory, scorer natory-v2: 3 of 3 submissions changed score" in report
    before, after = report.split("Top after:")
    assert "1. Padder · default · +37" in before and "2. Honest · default · +17" in before
    assert "3. Wild · default · -20441" in before
    assert "1. Honest · default · +17" in after and "2. Padder · default · +0" in after
    assert "3. Wild · default · -100" in after
    board = text_of(await bot.say(chat, user, "/leaderboard natory 6840"))
    assert "-100" in board and "-20441" not in board.replace(",", "")
    # done: nothing waits any more
    again = text_of(await bot.say(admin_chat, admin, "/rescore natory"))
    assert again == "No stored submission needs re-scoring."
    audit = text_of(await bot.say(admin_chat, admin, "/audit"))
    assert f"{ADMIN} · rescore natory natory-v2 — 3 pending" in audit
    bot.check_clean(mark)

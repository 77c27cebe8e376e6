"""Provenance tags and the signing key through the Bot API emulator (issue 31): tags
read wherever they stand, kept with the submission, a bad one refused with a short
true message (English and Persian) and nothing stored; the key made at the first start,
private, and never in the log."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from collections.abc import AsyncIterator
from contextlib import closing

import pytest
import pytest_asyncio

from .botkit import KEY, Bot, answers, bot_session, buttons, private_user, text_of
from .botkit import submission_id as sid_of

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    async with bot_session(tmp_path_factory.mktemp("provenance")) as b:
        yield b


def stored(bot: Bot, sid: int) -> tuple[str | None, dict[str, object]]:
    """The provider column and the kept provenance of a submission (read-only)."""
    path = bot.proc.data_dir / "benchboard.sqlite3"
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        provider, extra = db.execute(
            "SELECT provider, extra FROM submissions WHERE id = ?", (sid,)
        ).fetchone()
    return provider, (json.loads(extra) if extra else {}).get("provenance", {})


async def test_provenance_tags_are_kept_with_the_submission(bot: Bot) -> None:
    user, chat = private_user(bot, 9301)
    body = "\n".join(answers(KEY, correct=8, wrong=1))
    text = (
        "Here it is:\n**Provider:** OpenRouter, model: Routed #think\n"
        f"{body}\ntemperature: 0.6 seed: 11\nreasoning: high\nrun date: 2026-11-29\n"
        "log: https://example.com/runs/42.eval"
    )
    reply = await bot.say(chat, user, text)
    plain = text_of(reply)
    # the prose is an invalid line; the tag lines are not
    assert "Invalid lines (1)" in plain and "line 1: Here it is:" in plain
    sid = sid_of(plain)
    assert f"pub:{sid}" in buttons(reply) and "Model: Routed" in plain
    provider, kept = stored(bot, sid)
    assert provider == "openrouter"
    assert kept == {"provider": "OpenRouter", "temperature": 0.6, "seed": 11,
                    "reasoning": "high", "run_date": "2026-11-29",
                    "log": "https://example.com/runs/42.eval"}  # fmt: skip


async def test_a_bad_provenance_tag_is_refused_in_the_users_language(bot: Bot) -> None:
    user, chat = private_user(bot, 9302)
    body = "\n".join(answers(KEY, correct=3))
    reply = await bot.say(chat, user, f"model: X #default\ntemperature: hot\n{body}")
    plain = text_of(reply)
    assert "temperature must be a number from 0 to 2" in plain and "“hot”" in plain
    assert "Nothing was saved." in plain
    fa_user, fa_chat = private_user(bot, 9303, lang="fa")
    reply = await bot.say(fa_chat, fa_user, f"reasoning: extreme\n{body}")
    assert "reasoning باید low، medium یا high باشد" in text_of(reply)
    me = text_of(await bot.say(chat, user, "/me"))
    assert "(1)" not in me.splitlines()[0]


async def test_the_signing_key_is_made_at_the_first_start_and_kept_private(bot: Bot) -> None:
    path = bot.proc.data_dir / "signing-key.pem"
    assert path.is_file() and stat.S_IMODE(os.stat(path).st_mode) == 0o600
    secret = path.read_text().splitlines()[1]
    assert secret not in bot.proc.log()

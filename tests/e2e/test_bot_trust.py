"""Held for review, end to end (issue 31): the public key pasted as an output, answers
agreeing with the key on 102/104, and another user's answers with three changes are
held (the card and the Publish answer say so and why); honest random and real-looking
answer sets are published; /flags lists the three with their reasons; /verify releases
one onto the board (its owner told); after /setkey with a corrected key each submitter
is told before → after, unless they sent /notices off."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from .botkit import KEY, Bot, bot_session, buttons, private_user, submission_id, text_of
from .harness import key_text

pytestmark = pytest.mark.asyncio(loop_scope="module")

ADMIN = 9401
PASTER, NEAR, ORIGINAL, COPIER, RANDOM, REAL = 9410, 9411, 9412, 9413, 9414, 9415
WITHDRAWER = 9416


def real_looking(seed: int) -> dict[int, str]:
    """A model's answers: about 65 % right, 25 % wrong (any wrong option), 10 % none."""
    rng = random.Random(seed)
    out = {}
    for q, right in KEY.items():
        roll = rng.random()
        if roll < 0.65:
            out[q] = str(right)
        elif roll < 0.9:
            out[q] = str(rng.choice([o for o in range(1, 5) if o != right]))
        else:
            out[q] = "none"
    return out


def sheet(model: str, answers: dict[int, str]) -> str:
    return "\n".join([f"model: {model}", "#default", *(f"{q}:{a}" for q, a in answers.items())])


ORIGINAL_ANSWERS = real_looking(1)


def copied() -> dict[int, str]:
    """The original with three answered questions changed."""
    out = dict(ORIGINAL_ANSWERS)
    answered = [q for q, a in out.items() if a != "none"]
    for q in answered[:3]:
        out[q] = str(int(out[q]) % 4 + 1)
    return out


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    env = {"BENCHBOARD_ADMINS": str(ADMIN)}
    async with bot_session(tmp_path_factory.mktemp("trust"), env=env) as b:
        yield b


async def submit(bot: Bot, uid: int, text: str) -> tuple[int, str, dict[str, Any]]:
    """Send a sheet and press Publish: (submission id, the card, the Publish answer)."""
    user, chat = private_user(bot, uid)
    reply = await bot.say(chat, user, text)
    card = text_of(reply)
    sid = submission_id(card)
    answer = await bot.press(chat, user, reply, f"pub:{sid}")
    REPLIES[sid] = reply
    return sid, card, answer


IDS: dict[str, int] = {}
#: each submission's score reply, by id
REPLIES: dict[int, dict[str, Any]] = {}


async def test_copies_are_held_and_honest_sheets_published(bot: Bot) -> None:
    mark = bot.api.mark()
    sid, card, answer = await submit(bot, ORIGINAL, sheet("Original-7B", ORIGINAL_ANSWERS))
    assert answer["text"].startswith(f"Published #{sid}")
    IDS["original"] = sid

    # the public key pasted as an output
    key = {q: str(o) for q, o in KEY.items()}
    sid, card, answer = await submit(bot, PASTER, sheet("copy-model", key))
    assert "Held for review if published: matches the public key on 104/104" in card
    assert answer["text"].startswith(f"Held for review: #{sid} matches the public key on 104/104")
    assert answer["show_alert"] is True
    IDS["key"] = sid

    # agreeing with the key on 102 of 104
    near = dict(key)
    near[1], near[2] = str(KEY[1] % 4 + 1), "none"
    sid, card, answer = await submit(bot, NEAR, sheet("near-model", near))
    assert "matches the public key on 102/104" in card
    assert answer["text"].startswith(f"Held for review: #{sid}")
    IDS["near"] = sid

    # another user's answers with three changes, under another model name
    sid, card, answer = await submit(bot, COPIER, sheet("Fresh-9B", copied()))
    original = IDS["original"]
    assert f"same answers as #{original} by another user on " in card
    assert "shared wrong answers" in answer["text"] and answer["text"].startswith("Held")
    IDS["copy"] = sid
    # held: its mode and model stay as they are, /me says so
    user, chat = private_user(bot, COPIER)
    me = text_of(await bot.say(chat, user, "/me"))
    assert f"#{sid}" in me and "held for review" in me
    held_card = bot.current(REPLIES[sid])  # refreshed when it was held: no mode buttons
    assert "Held for review:" in text_of(held_card)
    assert not [d for d in buttons(held_card) if d.startswith(("mode:", "model:", "pub:"))]

    # honest sheets: random answers, and another real-looking model
    rng = random.Random(5)
    randomly = {q: str(rng.randint(1, 4)) for q in KEY}
    sid, card, answer = await submit(bot, RANDOM, sheet("Random-1B", randomly))
    assert "Held" not in card and answer["text"].startswith(f"Published #{sid}")
    sid, card, answer = await submit(bot, REAL, sheet("Other-13B", real_looking(2)))
    assert "Held" not in card and answer["text"].startswith(f"Published #{sid}")
    IDS["real"] = sid

    user, chat = private_user(bot, RANDOM)
    board = text_of(await bot.say(chat, user, "/leaderboard primebench"))
    assert "Original-7B" in board and "Other-13B" in board and "Random-1B" in board
    for held in ("copy-model", "near-model", "Fresh-9B"):
        assert held not in board
    bot.check_clean(mark)


async def test_flags_lists_the_held_with_reasons_and_verify_releases(bot: Bot) -> None:
    mark = bot.api.mark()
    user, chat = private_user(bot, COPIER)
    refused = text_of(await bot.say(chat, user, "/flags"))
    assert refused == "This command is for admins only."

    admin, admin_chat = private_user(bot, ADMIN)
    reply = await bot.say(admin_chat, admin, "/flags")
    flags = text_of(reply)
    assert "Held for review: 3 results, newest first (page 1 of 1)" in flags
    assert f"#{IDS['key']}" in flags and "matches the public key on 104/104" in flags
    assert f"#{IDS['near']}" in flags and "matches the public key on 102/104" in flags
    assert f"#{IDS['copy']}" in flags and f"same answers as #{IDS['original']}" in flags
    assert flags.index(f"#{IDS['copy']}") < flags.index(f"#{IDS['key']}")  # newest first
    assert "U9413" in flags and "copy-model" in flags
    data = buttons(reply)
    assert f"flv:{IDS['near']}:0" in data and f"flr:{IDS['key']}:0" in data
    # in a group, even a bot admin's list is that group's: its members read it
    group = bot.api.group_chat(-1009400, "Lab T")
    assert text_of(await bot.say(group, admin, "/flags")) == "Nothing is held for review."

    since = bot.api.mark()
    released = text_of(await bot.say(admin_chat, admin, f"/verify {IDS['near']}"))
    assert released.startswith(f"#{IDS['near']} is released")
    told = await bot.api.wait_for(
        lambda c: c["method"] == "sendMessage" and c["params"]["chat_id"] == NEAR,
        timeout=20,
        since=since,
    )
    assert f"An admin verified #{IDS['near']}" in text_of(told)
    board = text_of(await bot.say(admin_chat, admin, "/leaderboard primebench"))
    assert "near-model" in board and "copy-model" not in board

    # reject the pasted key from the list's button: its owner is told
    since = bot.api.mark()
    answer = await bot.press(admin_chat, admin, reply, f"flr:{IDS['key']}:0")
    assert answer["text"].startswith(f"#{IDS['key']} is rejected")
    told = await bot.api.wait_for(
        lambda c: c["method"] == "sendMessage" and c["params"]["chat_id"] == PASTER,
        timeout=20,
        since=since,
    )
    assert f"An admin rejected #{IDS['key']}" in text_of(told)
    flags = text_of(await bot.say(admin_chat, admin, "/flags"))
    assert "1 result" in flags and f"#{IDS['copy']}" in flags
    audit = text_of(await bot.say(admin_chat, admin, "/audit"))
    assert f"release {IDS['near']}" in audit and f"reject {IDS['key']}" in audit
    bot.check_clean(mark)


async def test_a_held_result_withdrawn_since_is_not_released_by_a_stale_button(bot: Bot) -> None:
    """The admin's /flags shows a held result; its owner withdraws it; the admin's ✅
    release button on that (now stale) list answers that the owner withdrew it, and the
    result stays withdrawn, on no board, its owner told nothing."""
    mark = bot.api.mark()
    sid, _, answer = await submit(bot, WITHDRAWER, sheet("withdrawn-copy", dict(KEY)))
    assert answer["text"].startswith(f"Held for review: #{sid}")
    admin, admin_chat = private_user(bot, ADMIN)
    listed = await bot.say(admin_chat, admin, "/flags")
    assert f"#{sid}" in text_of(listed) and f"flv:{sid}:0" in buttons(listed)
    user, chat = private_user(bot, WITHDRAWER)
    withdrawn = await bot.press(chat, user, REPLIES[sid], f"wd:{sid}:0:yes", check_button=False)
    assert withdrawn["text"] == f"Withdrew #{sid} from the leaderboards."
    since = bot.api.mark()
    pressed = await bot.press(admin_chat, admin, listed, f"flv:{sid}:0")
    assert pressed["text"] == (
        f"#{sid} was withdrawn by its owner: it stays withdrawn, on no board. Nothing to decide."
    )
    board = text_of(await bot.say(admin_chat, admin, "/leaderboard primebench"))
    assert "withdrawn-copy" not in board
    assert f"#{sid}" not in text_of(await bot.say(admin_chat, admin, "/flags"))
    assert "withdrawn" in text_of(await bot.say(chat, user, "/me"))
    assert not [
        c for c in bot.api.calls[since:]
        if c["method"] == "sendMessage" and c["params"].get("chat_id") == WITHDRAWER
        and "An admin" in text_of(c)
    ]  # fmt: skip
    bot.check_clean(mark)


async def test_a_corrected_key_tells_each_submitter_unless_they_opted_out(bot: Bot) -> None:
    mark = bot.api.mark()
    user, chat = private_user(bot, REAL)
    assert "no longer told" in text_of(await bot.say(chat, user, "/notices off"))
    # the corrected key: questions 1 to 10 had the wrong option
    corrected = {q: (o % 4 + 1 if q <= 10 else o) for q, o in KEY.items()}
    admin, admin_chat = private_user(bot, ADMIN)
    since = bot.api.mark()
    doc = await bot.api.send_document(
        admin_chat, admin, key_text(corrected).encode(), "A.txt", caption="/setkey primebench"
    )
    await bot.api.reply_to(doc, timeout=20)
    report = await bot.api.wait_for(
        lambda c: c["method"] == "sendMessage" and "Re-score done" in str(c["params"]["text"]),
        timeout=40,
        since=since,
    )
    notice = await bot.api.wait_for(
        lambda c: c["method"] == "sendMessage" and c["params"]["chat_id"] == ORIGINAL,
        timeout=20,
        since=since,
    )
    text = text_of(notice)
    assert "re-scored your 1 published result" in text
    assert f"#{IDS['original']} PrimeBench Original-7B: " in text and " → " in text
    assert "rank" in text
    sent_to = {
        c["params"]["chat_id"]
        for c in bot.api.calls_of("sendMessage")
        if c["index"] >= since and "re-scored your" in str(c["params"]["text"])
    }
    assert REAL not in sent_to and ORIGINAL in sent_to and NEAR in sent_to
    assert sum(1 for c in bot.api.calls_of("sendMessage") if c["index"] >= since
               and c["params"]["chat_id"] == ORIGINAL) == 1  # fmt: skip
    assert "people were told of their changed results" in text_of(report)
    bot.check_clean(mark)

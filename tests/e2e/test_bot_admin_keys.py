"""Answer keys uploaded by an admin (issue 7): /setkey validates, stores a version, uses
it at once, re-scores in the background and reports; /keyinfo. Keys live in the
database; the data folder is only where key files are imported from."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from .botkit import BOT, KEY, Bot, answers, bot_session, private_user, submission_id, text_of
from .harness import key_text

pytestmark = pytest.mark.asyncio(loop_scope="module")

ADMIN = 9101


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    env = {"BENCHBOARD_ADMINS": str(ADMIN)}
    async with bot_session(tmp_path_factory.mktemp("admin-keys"), env=env) as b:
        yield b


def current_key(bot: Bot, benchmark: str) -> bytes:
    """The benchmark's current key as the bot's database holds it."""
    db = sqlite3.connect(bot.proc.data_dir / "benchboard.sqlite3")
    try:
        row = db.execute(
            """SELECT k.data FROM benchmarks AS b
               JOIN key_versions AS k ON k.id = b.current_key_id WHERE b.name = ?""",
            (benchmark,),
        ).fetchone()
    finally:
        db.close()
    assert row is not None, f"no {benchmark} key stored"
    return bytes(row[0])


async def _upload(bot: Bot, data: bytes, caption: str, name: str = "A.txt") -> str:
    admin, chat = private_user(bot, ADMIN)
    msg = await bot.api.send_document(chat, admin, data, name, caption=caption)
    return text_of(await bot.api.reply_to(msg, timeout=20))


async def test_a_bad_key_is_refused_with_its_first_bad_line(bot: Bot) -> None:
    mark = bot.api.mark()
    plain = await _upload(bot, b"1:1\n2:x\n3:7\n", "/setkey primebench")
    assert plain == (
        "Key refused, nothing changed: bad PrimeBench key: "
        "line 2: expected question:option such as 12:3: '2:x'"
    )
    plain = await _upload(bot, b"<not a key>", "/setkey zerobench", "key.json")
    assert plain.startswith("Key refused, nothing changed: bad ZeroBench key")
    assert current_key(bot, "primebench").decode() == key_text(KEY)
    assert not (bot.proc.data_dir / "zerobench" / "key.json").exists()
    bot.check_clean(mark)


async def test_setkey_usage(bot: Bot) -> None:
    admin, chat = private_user(bot, ADMIN)
    plain = text_of(await bot.say(chat, admin, "/setkey primebench"))
    assert "Attach the key file" in plain and "/setkey primebench" in plain
    for words in ("/setkey", "/setkey natory", "/setkey banana"):
        assert "one of: primebench, zerobench" in text_of(await bot.say(chat, admin, words))


async def test_a_new_key_rescores_in_the_background_and_reports(bot: Bot) -> None:
    mark = bot.api.mark()
    user, chat = private_user(bot, 9150)
    for model, correct in (("Alpha", 40), ("Beta", 20)):
        text = "\n".join([f"model: {model}", "#default", *answers(KEY, correct=correct)])
        reply = await bot.say(chat, user, text)
        sid = submission_id(text_of(reply))
        await bot.press(chat, user, reply, f"pub:{sid}")
    # The new key flips the first 30 answers: Alpha loses 30 right answers, Beta 20.
    new_key = {q: (o % 4 + 1 if q <= 30 else o) for q, o in KEY.items()}
    data = key_text(new_key).encode()
    sha = hashlib.sha256(data).hexdigest()
    since = bot.api.mark()
    plain = await _upload(bot, data, "/setkey primebench")
    assert f"PrimeBench key version 2 is in use now (SHA-256 {sha})." in plain
    assert "Re-scoring 2 stored submissions in the background; I will report here." in plain
    report = await bot.api.wait_for(
        lambda c: c["method"] == "sendMessage" and "Re-score done" in str(c["params"]["text"]),
        timeout=30,
        since=since,
    )
    text = text_of(report)
    assert "PrimeBench, key version 2: 2 of 2 submissions changed score" in text
    before, after = text.split("Top after:")
    assert "1. Alpha · default · +40" in before and "2. Beta · default · +20" in before
    # Alpha: 10 right, 30 wrong = 10 - 90; Beta: 0 right, 20 wrong = -60.
    assert "1. Beta · default · -60" in after and "2. Alpha · default · -80" in after
    board = text_of(await bot.say(chat, user, "/leaderboard primebench default"))
    assert "1. Beta · default · -60" in board
    assert "Scored against key version 2." in board
    # The key is used at once, and a restart keeps it: it is the database's current key
    # (the data folder's file, imported before, is not imported again).
    scored = await bot.say(chat, user, f"1:{new_key[1]}")
    assert "Correct: 1" in text_of(scored)
    assert current_key(bot, "primebench") == data
    assert (bot.proc.data_dir / "primebench" / "A.txt").read_text() == key_text(KEY)
    admin, admin_chat = private_user(bot, ADMIN)
    info = text_of(await bot.say(admin_chat, admin, "/keyinfo"))
    assert "PrimeBench: version 2 of 2" in info and sha in info
    assert f"from Telegram upload A.txt by user {ADMIN}" in info
    audit = text_of(await bot.say(admin_chat, admin, "/audit"))
    assert f"{ADMIN} · setkey primebench v2 — {sha}" in audit
    bot.check_clean(mark)


async def test_the_same_key_again_is_not_a_new_version(bot: Bot) -> None:
    admin, chat = private_user(bot, ADMIN)
    data = current_key(bot, "primebench")
    # As a reply to the file this time.
    file_msg = await bot.api.send_document(chat, admin, data, "again.txt")
    await bot.api.reply_to(file_msg, timeout=20)  # scored as a submission: it is text
    msg = await bot.api.send_text(chat, admin, "/setkey primebench", reply_to=file_msg)
    plain = text_of(await bot.api.reply_to(msg, timeout=20))
    assert re.search(r"already stored as version 2 \(SHA-256 [0-9a-f]{64}\)", plain), plain
    assert "No stored submission needs re-scoring." in plain


async def test_a_zerobench_key_is_written_in_canonical_form(bot: Bot) -> None:
    mark = bot.api.mark()
    plain = await _upload(bot, b"question_id,question_answer\nq1,42\nq2,7\n", "/setkey zerobench")
    assert "ZeroBench key version 1 is in use now" in plain
    assert "2 main questions" in plain
    stored = json.loads(current_key(bot, "zerobench"))
    assert stored["zerobench"] == {"q1": "42", "q2": "7"}
    admin, chat = private_user(bot, ADMIN)
    assert "ZeroBench: version 1 of 1" in text_of(await bot.say(chat, admin, "/keyinfo"))
    bot.check_clean(mark)


async def test_an_admin_caption_for_another_bot_is_left_to_it(bot: Bot) -> None:
    """``/setkey@OtherBot`` and ``/benchmark@OtherBot add`` in a group are that bot's, as
    ``/score@OtherBot`` is: no download, no reply, the key unchanged."""
    group = bot.api.group_chat(-1009101, "Keys")
    admin = bot.api.user(ADMIN, "Admin")
    before = current_key(bot, "primebench")
    since = bot.api.mark()
    for caption, name in (
        ("/setkey@OtherBot primebench", "k.txt"),
        ("/benchmark@OtherBot add", "b.toml"),
    ):
        await bot.api.send_document(group, admin, b"1:1\n", name, caption=caption)
    msg = await bot.api.send_text(group, admin, f"/leaderboard@{BOT}")
    await bot.api.reply_to(msg, timeout=20)  # the bot has read everything before it
    assert not [c for c in bot.api.calls[since:] if c["method"] == "getFile"]
    replies = [c for c in bot.api.calls[since:] if c["method"] == "sendMessage"]
    assert len(replies) == 1
    assert current_key(bot, "primebench") == before

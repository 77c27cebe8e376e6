"""Bad input gets a clear, escaped message and loses nothing; limits; a missing key."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from .botkit import KEY, Bot, answers, bot_session, private_user, submission_id, text_of

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    async with bot_session(tmp_path_factory.mktemp("bad")) as b:
        yield b


async def _doc_reply(bot: Bot, uid: int, content: bytes, name: str, **kw: object) -> str:
    user, chat = private_user(bot, uid)
    msg = await bot.api.send_document(chat, user, content, name, **kw)
    return text_of(await bot.api.reply_to(msg, timeout=20))


async def _nothing_stored(bot: Bot, uid: int) -> None:
    user, chat = private_user(bot, uid)
    assert "no submissions yet" in text_of(await bot.say(chat, user, "/me"))


async def test_document_over_20_mb_is_refused_before_download(bot: Bot) -> None:
    mark = bot.api.mark()
    plain = await _doc_reply(bot, 6001, b"1:1\n", "big.txt", file_size=25 * 1024 * 1024)
    assert "25.0 MB" in plain and "the limit is 20 MB" in plain
    assert not [c for c in bot.api.calls[mark:] if c["method"] == "getFile"]
    await _nothing_stored(bot, 6001)


@pytest.mark.parametrize("status", [500, 404])
async def test_a_download_that_fails_is_told_and_nothing_is_stored(bot: Bot, status: int) -> None:
    # 500 keeps failing (tried DOWNLOAD_TRIES times); 404 is refused at once
    bot.api.download_status = status
    try:
        plain = await _doc_reply(bot, 6010 + status, b"1:1\n2:3\n", "run.txt")
    finally:
        bot.api.download_status = None
    assert "did not let me download this file" in plain and "Send it again" in plain
    await _nothing_stored(bot, 6010 + status)


async def test_document_of_another_kind_is_refused(bot: Bot) -> None:
    mark = bot.api.mark()
    plain = await _doc_reply(bot, 6002, b"%PDF-1.4", "paper.pdf", mime_type="application/pdf")
    assert ".txt .md .csv .json .jsonl" in plain
    assert not [c for c in bot.api.calls[mark:] if c["method"] == "getFile"]


async def test_bytes_that_are_not_utf8(bot: Bot) -> None:
    plain = await _doc_reply(bot, 6003, b"1:2\n\xff\xfe3:4\n", "latin.txt")
    assert "not valid UTF-8" in plain and "offset 4" in plain
    await _nothing_stored(bot, 6003)


async def test_binary_file(bot: Bot) -> None:
    plain = await _doc_reply(bot, 6004, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "image")
    assert "binary" in plain
    await _nothing_stored(bot, 6004)


@pytest.mark.parametrize(
    "content", [b"", b"  \n\n \r\n", b"#think\nmodel: gpt-6 luna\n"], ids=["empty", "blank", "tags"]
)
async def test_empty_document(bot: Bot, content: bytes) -> None:
    plain = await _doc_reply(bot, 6005, content, "empty.txt")
    assert "nothing to score" in plain


async def test_empty_text_submission(bot: Bot) -> None:
    user, chat = private_user(bot, 6006)
    assert "nothing to score" in text_of(await bot.say(chat, user, "#think\nmodel: x"))
    assert "no command is needed" in text_of(await bot.say(chat, user, "/score #think"))
    await _nothing_stored(bot, 6006)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("#banana\n1:1", ["#banana", "#default", "#think_tools", "#primebench", "#zerobench"]),
        ("/score banana\n1:1", ["banana", "#think", "#primebench"]),
        ("/score #think banana\n1:1", ["banana", "#think", "#primebench"]),
        ("1:1\nmode: banana", ["banana", "default", "think & tools"]),
        ("benchmark: nosuch\n1:1", ["nosuch", "primebench", "zerobench", "natory"]),
    ],
)
async def test_unknown_benchmark_or_mode_lists_the_valid_ones(
    bot: Bot, text: str, expected: list[str]
) -> None:
    user, chat = private_user(bot, 6007)
    plain = text_of(await bot.say(chat, user, text))
    for word in expected:
        assert word in plain, f"{word!r} missing from {plain!r}"
    assert "Final Score" not in plain


async def test_user_text_in_error_messages_is_escaped(bot: Bot) -> None:
    user, chat = private_user(bot, 6008)
    mark = bot.api.mark()
    plain = text_of(await bot.say(chat, user, "#<script>&amp;\n1:1"))
    assert "#<script>&amp;" in plain
    plain = text_of(await bot.say(chat, user, "mode: <b>bold</b>\n1:1"))
    assert "<b>bold</b>" in plain
    bot.check_clean(mark)


async def test_benchmark_without_a_key(bot: Bot) -> None:
    user, chat = private_user(bot, 6009)
    plain = text_of(await bot.say(chat, user, "#zerobench\n{1}"))
    assert "ZeroBench answer key is not loaded" in plain
    await _nothing_stored(bot, 6009)


async def test_daily_publish_limit(tmp_path: Path) -> None:
    async with bot_session(tmp_path, env={"BENCHBOARD_DAILY_LIMIT": "1"}) as bot:
        user, chat = private_user(bot, 6100)
        first = await bot.say(chat, user, "#think\nmodel: a\n" + "\n".join(answers(KEY, correct=2)))
        assert "1 of 1 publication left today." in text_of(first)
        sid = submission_id(text_of(first))
        answer = await bot.press(chat, user, first, f"pub:{sid}")
        assert "0 of 1 publication left today" in answer["text"]
        second = await bot.say(
            chat, user, "#think\nmodel: b\n" + "\n".join(answers(KEY, correct=3))
        )
        assert "0 of 1 publication left today." in text_of(second)
        sid2 = submission_id(text_of(second))
        answer = await bot.press(chat, user, second, f"pub:{sid2}")
        assert answer.get("show_alert") is True
        assert "0 of 1 publication left today" in answer["text"]
        assert "resets at 00:00 UTC" in answer["text"]
        board = text_of(await bot.say(chat, user, "/leaderboard"))
        assert "1. a · think" in board and "b · think" not in board
        bot.check_clean()


async def test_without_the_key(tmp_path: Path) -> None:
    async with bot_session(tmp_path, key=None) as bot:
        user, chat = private_user(bot, 6200)
        plain = text_of(await bot.say(chat, user, "1:1\n2:2"))
        assert "PrimeBench answer key is not loaded" in plain
        # no BENCHBOARD_ADMINS (the README's quick start): nobody was told, none is said
        assert "admins" not in plain and "send it again in a while" in plain
        assert "not loaded" in text_of(await bot.say(chat, user, "/questions"))
        benchmarks = text_of(await bot.say(chat, user, "/benchmarks"))
        assert "PrimeBench (#primebench) — key not loaded" in benchmarks
        assert "no submissions yet" in text_of(await bot.say(chat, user, "/me"))
        bot.check_clean()

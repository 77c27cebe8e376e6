"""Commands (/start /help /prompt /questions /benchmarks /lang), Persian, setMyCommands."""

from __future__ import annotations

import html
import json
import re
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from scoring import primebench as pb

from .botkit import (
    KEY,
    Bot,
    answers,
    bot_session,
    button,
    buttons,
    private_user,
    questions_json,
    submission_id,
    text_of,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")
QUESTIONS = questions_json()


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    async with bot_session(tmp_path_factory.mktemp("i18n"), questions=QUESTIONS) as b:
        yield b


#: Persian prose writes numbers in Persian digits (what the user typed stays as typed).
FA_LABELS = [
    "تعداد کل سؤال‌ها: ۱۰۴",
    "درست: ۳",
    "نادرست: ۱",
    "بی‌پاسخ: ۱۰۰",
    "امتیاز مثبت: ۳",
    "امتیاز منفی: ۳",
    "امتیاز نهایی: ۰",
]


async def test_commands_registered_in_english_and_persian(bot: Bot) -> None:
    en = {c["command"]: c["description"] for c in bot.api.commands() or []}
    fa = {c["command"]: c["description"] for c in bot.api.commands("fa") or []}
    expected = {"score", "leaderboard", "me", "prompt", "questions", "benchmarks", "lang", "help"}
    assert expected <= set(en) and expected <= set(fa)
    assert en["leaderboard"] != fa["leaderboard"]
    assert re.search("[\u0600-\u06ff]", fa["help"])


async def test_start_and_help(bot: Bot) -> None:
    user, chat = private_user(bot, 7001)
    assert "Hi! I score LLM benchmark outputs" in text_of(await bot.say(chat, user, "/start"))
    plain = text_of(await bot.say(chat, user, "/help"))
    for word in ("/score", "/leaderboard", "/me", "/prompt", "/questions", "/lang", "#think"):
        assert word in plain
    # every command of the menu, and the settings that have none there, grouped
    menu = {c["command"] for c in bot.api.commands() or []}
    assert all(f"/{command}" in plain for command in menu | {"theme", "public"}), plain
    groups = ("Scoring", "Results and boards", "Benchmarks", "Settings")
    assert [line for line in plain.splitlines() if line in groups] == list(groups)
    assert "#primebench #zerobench #natory" in plain


async def test_prompt_is_byte_exact_in_a_pre_block(bot: Bot) -> None:
    user, chat = private_user(bot, 7002)
    reply = await bot.say(chat, user, "/prompt")
    raw = reply["params"]["text"]
    match = re.search(r"<pre>(.*?)</pre>", raw, re.S)
    assert match, raw
    assert html.unescape(match[1]) == pb.PROMPT
    pre = [e for e in reply["result"]["entities"] if e["type"] == "pre"]
    assert len(pre) == 1
    assert "JibayAI (jibay.ir)" in text_of(reply)


async def test_prompt_of_a_benchmark_without_one_is_never_anothers(bot: Bot) -> None:
    """/prompt NAME answers for NAME: a benchmark without an official prompt, or a
    word that is no benchmark, is said so, not answered with PrimeBench's prompt."""
    user, chat = private_user(bot, 7004)
    reply = await bot.say(chat, user, "/prompt primebench")
    assert "<pre>" in reply["params"]["text"]
    reply = await bot.say(chat, user, "/prompt natory")
    assert text_of(reply) == (
        "Natory has no official prompt. Benchmarks with one: primebench (/prompt NAME)."
    )
    reply = await bot.say(chat, user, "/prompt <nosuch>")
    assert text_of(reply) == (
        "I do not know “<nosuch>”. Use /prompt [benchmark] — benchmarks with an "
        "official prompt: primebench."
    )
    assert pb.PROMPT not in text_of(reply)


async def test_questions_sends_q_json(bot: Bot) -> None:
    user, chat = private_user(bot, 7003)
    msg = await bot.api.send_text(chat, user, "/questions")
    call = await bot.api.reply_to(msg, timeout=20)
    assert call["method"] == "sendDocument"
    doc = call["params"]["document"]
    assert doc.filename == "Q.json" and doc.content == QUESTIONS
    assert len(json.loads(doc.content)) == 104
    assert "jibay.ir" in text_of(call)


async def test_benchmarks_lists_each_with_its_key(bot: Bot) -> None:
    user, chat = private_user(bot, 7004)
    plain = text_of(await bot.say(chat, user, "/benchmarks"))
    assert "PrimeBench (#primebench) — key loaded" in plain
    assert "ZeroBench (#zerobench) — key not loaded" in plain
    assert "#natory" in plain


async def test_persian_user_gets_persian_labels(bot: Bot) -> None:
    user, chat = private_user(bot, 7005, "fa")
    mark = bot.api.mark()
    text = "\n".join(["#think", "مدل: مدل آزمایشی", *answers(KEY, correct=3, wrong=1), "۵:۲"])
    reply = await bot.say(chat, user, text)
    lines = text_of(reply).splitlines()
    for label in FA_LABELS:
        assert label in lines, f"{label!r} missing from {lines}"
    assert "مدل: مدل آزمایشی" in lines and "حالت: تفکر" in lines
    assert "  خط ۷: ۵:۲" in lines
    assert "Correct" not in text_of(reply)
    hints = text_of(reply).split("راهنما")[1]
    assert re.search("[\u0600-\u06ff]{3}", hints.replace("۵:۲", "")), hints
    assert "official rules" not in hints
    # the mode buttons in Persian, the chosen one marked; Publish on the first card
    labels = set(buttons(reply).values())
    assert {"پیش‌فرض", "• تفکر", "ابزار", "تفکر و ابزار"} <= labels, labels
    assert "📢 انتشار در جدول" in labels
    assert "Welcome" not in text_of(await bot.say(chat, user, "/start"))
    assert "سلام" in text_of(await bot.say(chat, user, "/start"))
    bot.check_clean(mark)


async def test_a_mistyped_tag_is_told_in_persian(bot: Bot) -> None:
    """A Persian reader who mistypes a benchmark or mode is told so in Persian, with
    the valid ones to copy."""
    user, chat = private_user(bot, 7009, "fa")
    mark = bot.api.mark()
    for text, said in (
        ("#primebnch\n1:2\n2:3", "برچسب ناشناخته #primebnch"),
        ("benchmark: primebnch\n1:2", "بنچمارک ناشناخته «primebnch»"),
        ("mode: thinkk\n1:2", "حالت ناشناخته «thinkk»"),
    ):
        told = text_of(await bot.say(chat, user, text))
        assert said in told and "unknown" not in told and "choose" not in told, told
    assert "#primebench" in told or "default" in told  # what is valid, to copy
    english, english_chat = private_user(bot, 7010, "en")
    told = text_of(await bot.say(english_chat, english, "#primebnch\n1:2"))
    assert told.startswith("unknown tag #primebnch: modes are #default, #think")
    bot.check_clean(mark)


async def test_lang_switches_and_sticks(bot: Bot) -> None:
    user, chat = private_user(bot, 7006, "en")
    assert "فارسی" in text_of(await bot.say(chat, user, "/lang fa"))
    reply = await bot.say(chat, user, "\n".join(answers(KEY, correct=3, wrong=1)))
    lines = text_of(reply).splitlines()
    assert "درست: ۳" in lines and "امتیاز نهایی: ۰" in lines
    sid = submission_id(text_of(reply))
    answer = await bot.press(chat, user, reply, button(reply, "تفکر"))
    assert "حالت ثبت شد" in answer["text"]
    assert "ارسال‌های شما" in text_of(await bot.say(chat, user, "/me"))
    assert "جدول امتیازات" in text_of(await bot.say(chat, user, "/leaderboard"))
    assert "English" in text_of(await bot.say(chat, user, "/lang en"))
    assert "Correct: 1" in text_of(await bot.say(chat, user, f"1:{KEY[1]}"))
    assert "/lang en" in text_of(await bot.say(chat, user, "/lang de"))
    assert sid > 0


async def test_persian_long_output_stays_under_the_limit(bot: Bot) -> None:
    user, chat = private_user(bot, 7007, "fa")
    lines = [f"{i} " + "استدلال مدل " * 30 for i in range(3000)]
    # one answer line makes it a submission (prose alone is not one)
    msg = await bot.api.send_document(chat, user, "\n".join([*lines, "1:1"]).encode(), "long.txt")
    reply = await bot.api.reply_to(msg, timeout=30)
    assert len(reply["params"]["text"]) <= 4096
    assert "خط‌های نامعتبر (۳۰۰۰):" in text_of(reply)

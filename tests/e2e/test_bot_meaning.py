"""The chat does what the person meant: what a message is (a submission or not), which
benchmark reads it, tags anywhere, split pastes, media and unknown commands."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
import pytest_asyncio

from bot.render.i18n import digits, field_label, t
from scoring.natory import daily_target

from .botkit import KEY, Bot, answers, bot_session, private_user, submission_id, text_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

SEED = "e2e-meaning-seed"
MAIN = {str(q): f"{q * 7}" for q in range(1, 16)}
NOT_READ_EN = "I could not find anything to score in this"
NOT_READ_FA = "چیزی برای امتیازدهی در این پیام پیدا نکردم"
#: what a photo, a sticker, a voice message without a caption is answered
MEDIA_EN = "I read text only: a photo, a sticker, a voice message"
MEDIA_FA = "من فقط متن می‌خوانم"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    tmp = tmp_path_factory.mktemp("meaning")
    key = tmp / "data" / "zerobench" / "key.json"
    key.parent.mkdir(parents=True)
    key.write_text(json.dumps({"zerobench": MAIN}))
    async with bot_session(tmp, env={"BENCHBOARD_NATORY_SEED": SEED}) as b:
        yield b


def today() -> int:
    return daily_target(datetime.now(UTC).date(), SEED)


async def _nothing_stored(bot: Bot, uid: int, lang: str = "en") -> None:
    user, chat = private_user(bot, uid, lang)
    history = text_of(await bot.say(chat, user, "/me"))
    assert "#" not in history.split("\n", 1)[-1] or "no submissions" in history, history


async def _replies(bot: Bot, chat: dict[str, Any], since: int) -> list[dict[str, Any]]:
    return [
        c
        for c in bot.api.calls[since:]
        if c["method"] == "sendMessage" and c["params"].get("chat_id") == chat["id"]
    ]


# --- 1. what a message is ------------------------------------------------------------------


@pytest.mark.parametrize("text", ["hi", "how do I use this bot?", "hello 2024"])
async def test_prose_is_not_a_submission(bot: Bot, text: str) -> None:
    user, chat = private_user(bot, 9001)
    mark = bot.api.mark()
    plain = text_of(await bot.say(chat, user, text))
    assert NOT_READ_EN in plain and "/help" in plain and "1:3" in plain
    assert "Final Score" not in plain and "Submission #" not in plain
    history = text_of(await bot.say(chat, user, "/me"))
    assert "no submissions yet" in history
    bot.check_clean(mark)


async def test_persian_prose_is_not_a_submission(bot: Bot) -> None:
    user, chat = private_user(bot, 9002, "fa")
    plain = text_of(await bot.say(chat, user, "سلام! چطور از این ربات استفاده کنم؟"))
    assert NOT_READ_FA in plain and "/help" in plain
    assert "ارسال #" not in plain


async def test_an_explicit_tag_still_scores_prose(bot: Bot) -> None:
    user, chat = private_user(bot, 9003)
    plain = text_of(await bot.say(chat, user, "#primebench\nhi"))
    assert "Final Score: 0" in plain and "line 2: hi" in plain


async def test_a_near_miss_is_a_submission_with_its_hint(bot: Bot) -> None:
    user, chat = private_user(bot, 9004)
    plain = text_of(await bot.say(chat, user, "۱:۲\n۲:۳"))
    assert "PrimeBench" in plain.splitlines()[0]
    assert "Persian/Arabic-Indic digits" in plain


# --- 2. Natory's own instruction, and a bare expression --------------------------------------


async def test_the_natory_one_liner_the_bot_hands_out_is_natory(bot: Bot) -> None:
    user, chat = private_user(bot, 9010)
    natory = text_of(await bot.say(chat, user, "/natory"))
    copy = natory.rstrip().splitlines()[-1]
    assert copy == f"#natory target: {today()}"
    plain = text_of(await bot.say(chat, user, "#natory target: 8987\n8*9+87"))
    assert plain.splitlines()[0] == "Natory", plain
    # scored against the target it names; its tag line is never an invalid line
    assert "Target: 8987" in plain and "Expression: 8*9+87" in plain and "line 1:" not in plain
    plain = text_of(await bot.say(chat, user, f"{copy}\n(1+1)*3"))
    assert plain.splitlines()[0] == "Natory" and f"Target: {today()}" in plain


@pytest.mark.parametrize(
    ("uid", "lang", "chosen"),
    [(9011, "en", "Read as Natory"), (9012, "fa", "به عنوان Natory خوانده شد")],
)
async def test_a_bare_expression_is_natory_for_today(
    bot: Bot, uid: int, lang: str, chosen: str
) -> None:
    user, chat = private_user(bot, uid, lang)
    target = f"{field_label(lang, 'target')}: {digits(lang, today())}"
    for expression in ("3^(1+1)+(3+1)", "$2 \\times \\sqrt{9} + 1$"):
        plain = text_of(await bot.say(chat, user, expression))
        assert plain.splitlines()[0] == "Natory", plain
        assert target in plain.splitlines(), plain
        assert chosen in plain and "#primebench #zerobench" in plain


# --- 4. tags anywhere --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("uid", "lang", "lines", "model_label", "mode_label"),
    [
        (9020, "en", ["Here are my answers:", "model: gemini 3", "#think"], "Model", "Mode"),
        (9021, "fa", ["این‌ها پاسخ‌های من است:", "مدل: gemini 3", "#فکر"], "مدل", "حالت"),
    ],
)
async def test_tags_after_prose_are_metadata(
    bot: Bot, uid: int, lang: str, lines: list[str], model_label: str, mode_label: str
) -> None:
    user, chat = private_user(bot, uid, lang)
    plain = text_of(await bot.say(chat, user, "\n".join([*lines, *answers(KEY, correct=3)])))
    assert f"{model_label}: gemini 3" in plain.splitlines(), plain
    assert f"{mode_label}: {t(lang, 'mode_think')}" in plain.splitlines(), plain
    # only the prose line is invalid: the tag lines are not listed
    assert lines[0] in plain and lines[2] not in plain and plain.count("gemini 3") == 1


async def test_tags_share_a_line_and_stand_in_the_middle(bot: Bot) -> None:
    user, chat = private_user(bot, 9022)
    body = answers(KEY, correct=4)
    text = "\n".join(["model: gpt x #think", body[0], body[1], "#tools", body[2], body[3]])
    plain = text_of(await bot.say(chat, user, text))
    assert "Model: gpt x" in plain.splitlines()
    assert "Mode: tools" in plain.splitlines()  # the last mode tag stands
    assert "Every line was read." in plain


# --- 5. a ZeroBench file without a tag --------------------------------------------------------


async def test_a_zerobench_jsonl_without_a_tag_is_zerobench(bot: Bot) -> None:
    user, chat = private_user(bot, 9030)
    lines = [
        json.dumps({"question_id": qid, "response": f"So 1:3 gives {{{answer}}}"})
        for qid, answer in MAIN.items()
    ]
    msg = await bot.api.send_document(chat, user, "\n".join(lines).encode(), "run.jsonl")
    plain = text_of(await bot.api.reply_to(msg, timeout=20))
    assert plain.splitlines()[0] == "ZeroBench", plain
    assert "Read as ZeroBench" in plain and "#primebench #natory" in plain
    assert "Invalid lines" not in plain


async def test_a_benchmark_named_by_the_user_is_not_second_guessed(bot: Bot) -> None:
    user, chat = private_user(bot, 9031)
    body = "\n".join(answers(KEY, correct=3))
    for named in (f"#primebench\n{body}", f"benchmark: primebench\n{body}"):
        plain = text_of(await bot.say(chat, user, named))
        assert plain.splitlines()[0] == "PrimeBench" and "Read as" not in plain, plain
    guessed = text_of(await bot.say(chat, user, body))
    assert "Read as PrimeBench" in guessed and "#zerobench #natory" in guessed


# --- 6. split pastes ---------------------------------------------------------------------------


async def test_a_paste_telegram_split_in_two_is_one_submission(bot: Bot) -> None:
    user, chat = private_user(bot, 9040)
    body = answers(KEY, correct=104)
    reasoning = [f"Step {i}: the model weighs every option once more." for i in range(80)]
    first_lines = ["model: split model", *reasoning, *body[:40]]
    first = "\n".join(first_lines)
    while len(first) < 4000:
        first_lines.insert(1, "thinking thinking thinking thinking thinking")
        first = "\n".join(first_lines)
    second = "\n".join([*body[40:], "zz"])
    mark = bot.api.mark()
    msg = await bot.api.send_text(chat, user, first)
    await bot.api.send_text(chat, user, second)
    reply = await bot.api.reply_to(msg, timeout=30)
    plain = text_of(reply)
    assert "Correct: 104" in plain and "Unanswered: 0" in plain
    assert "Model: split model" in plain.splitlines()
    assert f"Invalid lines ({len(first_lines) - 40}):" in plain  # the prose, and "zz"
    await asyncio.sleep(1.0)
    assert len(await _replies(bot, chat, mark)) == 1  # one card for both parts
    # line numbers run through both parts: "zz" is the last line of the whole paste
    sid = submission_id(plain)
    details = await bot.details(chat, user, reply, sid)
    document = details["params"].get("document")
    shown = document.content.decode() if document is not None else text_of(details)
    assert f"line {len(first_lines) + len(body) - 40 + 1}: zz" in shown
    history = text_of(await bot.say(chat, user, "/me"))
    assert f"#{submission_id(plain)}" in history


async def test_a_message_at_the_limit_alone_is_scored_after_the_wait(bot: Bot) -> None:
    user, chat = private_user(bot, 9041)
    text = "\n".join(["1:1", *["reasoning about the question " * 3] * 50])
    assert len(text) >= 4000
    plain = text_of(await bot.say(chat, user, text))
    assert "PrimeBench" in plain.splitlines()[0] and "Total Questions: 104" in plain


@pytest.mark.parametrize(
    ("uid", "lang", "note"),
    [
        (9042, "en", "looks like part of a longer paste"),
        (9043, "fa", "بخشی از یک متن طولانی‌تر"),
    ],
)
async def test_a_partial_card_after_one_at_the_length_limit_suggests_a_file(
    bot: Bot, uid: int, lang: str, note: str
) -> None:
    user, chat = private_user(bot, uid, lang)
    body = answers(KEY, correct=104)
    # the model's reasoning and the first answers, cut by Telegram at its limit
    reasoning = "\n".join(["Let me think about each question in turn."] * 100)[:3700]
    first = text_of(await bot.say(chat, user, reasoning + "\n" + "\n".join(body[:40])))
    assert note not in first  # answered once its wait for more parts ran out
    second = text_of(await bot.say(chat, user, "\n".join(body[40:])))
    assert note in second


async def test_two_short_partial_messages_in_a_row_are_two_messages(bot: Bot) -> None:
    user, chat = private_user(bot, 9044)
    body = answers(KEY, correct=104)
    assert "longer paste" not in text_of(await bot.say(chat, user, "\n".join(body[:58])))
    assert "longer paste" not in text_of(await bot.say(chat, user, "\n".join(body[58:])))


# --- 7. media and unknown commands -----------------------------------------------------------


async def test_media_get_a_line_saying_what_the_bot_reads(bot: Bot) -> None:
    user, chat = private_user(bot, 9050)
    mark = bot.api.mark()
    photo = await bot.api.send_photo(chat, user, b"\xff\xd8\xff")
    assert MEDIA_EN in text_of(await bot.api.reply_to(photo, timeout=20))
    for kind in ("sticker", "voice", "video", "audio"):
        msg = await bot.api.send_media(chat, user, kind)
        said = text_of(await bot.api.reply_to(msg, timeout=20))
        assert MEDIA_EN in said and "send it as a text file" in said and "/help" in said, kind
    fa_user, fa_chat = private_user(bot, 9051, "fa")
    msg = await bot.api.send_media(fa_chat, fa_user, "sticker")
    assert MEDIA_FA in text_of(await bot.api.reply_to(msg, timeout=20))
    await _nothing_stored(bot, 9050)
    bot.check_clean(mark)


async def test_a_photo_with_answers_in_its_caption_is_scored(bot: Bot) -> None:
    user, chat = private_user(bot, 9052)
    caption = "\n".join(["#think", *answers(KEY, correct=3)])
    photo = await bot.api.send_photo(chat, user, b"\xff\xd8\xff", caption=caption)
    plain = text_of(await bot.api.reply_to(photo, timeout=20))
    assert "Correct: 3" in plain and "Mode: think" in plain.splitlines()


@pytest.mark.parametrize(
    ("uid", "lang", "typed", "expected"),
    [
        (9060, "en", "/leaderbord", "Unknown command /leaderbord. Did you mean /leaderboard?"),
        (9060, "en", "/scroe 1:3", "Unknown command /scroe. Did you mean /score?"),
        (9060, "en", "/xyzzy", "Unknown command /xyzzy. /help lists the commands."),
        (9061, "fa", "/leaderbord", "دستور ناشناخته /leaderbord. منظورتان /leaderboard بود؟"),
        (
            9060,
            "en",
            "/leaderboard@OtherBot",
            "/leaderboard is addressed to @OtherBot, another bot. /help lists my commands.",
        ),
        (
            9060,
            "en",
            "/score@OtherBot 1:1",
            "/score is addressed to @OtherBot, another bot. /help lists my commands.",
        ),
    ],
)
async def test_an_unknown_command_names_the_closest_one(
    bot: Bot, uid: int, lang: str, typed: str, expected: str
) -> None:
    user, chat = private_user(bot, uid, lang)
    assert text_of(await bot.say(chat, user, typed)) == expected


async def test_an_unknown_command_in_a_group_only_when_addressed(bot: Bot) -> None:
    user = bot.api.user(9062, "U9062", language_code="en")
    group = bot.api.group_chat(-100_9062, "Meaning group")
    mark = bot.api.mark()
    await bot.api.send_text(group, user, "/scroe")
    reply = await bot.say(group, user, "/scroe@benchboard_test_bot")
    assert text_of(reply) == "Unknown command /scroe. Did you mean /score?"
    assert len(await _replies(bot, group, mark)) == 1

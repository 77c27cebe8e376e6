"""Private chat: text and documents are submissions; the reply's breakdown, tags and hints."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from .botkit import KEY, Bot, answers, bot_session, buttons, private_user, submission_id, text_of

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    async with bot_session(tmp_path_factory.mktemp("scoring")) as b:
        yield b


async def test_text_submission_breakdown(bot: Bot) -> None:
    user, chat = private_user(bot, 2001)
    mark = bot.api.mark()
    body = answers(KEY, correct=5, wrong=2, none=3)
    text = "\n".join(["model: gpt-6 luna", "#think", *body, "Q11:2", "#think"])
    reply = await bot.say(chat, user, text)
    plain = text_of(reply)
    for line in (
        "Total Questions: 104",
        "Correct: 5",
        "Wrong: 2",
        "Unanswered: 97",
        "Positive Points: 5",
        "Negative Points: 6",
        "Final Score: -1",
        "Model: gpt-6 luna",
        "Mode: think",
    ):
        assert line in plain.splitlines(), f"{line!r} missing from:\n{plain}"
    # The invalid line keeps the number the user sees (line 13 of the message), and the tag
    # lines at the start and the end are not reported.
    assert "Invalid lines (1):" in plain
    assert "line 13: Q11:2" in plain
    assert "#think" not in plain.split("Invalid lines")[1]
    assert "a Q before the question number on line 13" in plain  # the hint
    assert "JibayAI (jibay.ir)" in plain
    assert submission_id(plain) > 0
    # Details only when there is more than the card shows: here, nothing more.
    assert "det:" + str(submission_id(plain)) not in buttons(reply)
    bot.check_clean(mark)


async def test_no_invalid_lines_and_no_tags(bot: Bot) -> None:
    user, chat = private_user(bot, 2002)
    reply = await bot.say(chat, user, "\n".join(answers(KEY, correct=3)))
    plain = text_of(reply)
    assert "Correct: 3" in plain
    assert "Every line was read." in plain
    assert "Mode: not set" in plain and "Model: not set" in plain
    sid = submission_id(plain)
    data = buttons(reply)
    assert f"mode:{sid}:think" in data and f"model:{sid}" in data
    assert f"pub:{sid}" not in data  # no publishing without mode and model
    assert f"det:{sid}" not in data


@pytest.mark.parametrize(
    ("tag", "mode"),
    [
        ("#default", "default"),
        ("#think", "think"),
        ("#tools", "tools"),
        ("#think_tools", "think & tools"),
        ("#thinking", "think"),
        ("#reasoning", "think"),
        ("#thinktools", "think & tools"),
    ],
)
async def test_mode_hashtags(bot: Bot, tag: str, mode: str) -> None:
    user, chat = private_user(bot, 2010)
    reply = await bot.say(chat, user, "\n".join([*answers(KEY, correct=2), tag]))
    plain = text_of(reply)
    assert f"Mode: {mode}" in plain.splitlines()
    assert "Every line was read." in plain


async def test_persian_model_tag_and_primebench_tag(bot: Bot) -> None:
    user, chat = private_user(bot, 2011)
    text = "\n".join(["#primebench #tools", "مدل: Qwen3.8 max", *answers(KEY, correct=4)])
    plain = text_of(await bot.say(chat, user, text))
    assert "Model: Qwen3.8 max" in plain.splitlines()
    assert "Mode: tools" in plain.splitlines()
    assert "Correct: 4" in plain
    assert "Every line was read." in plain


async def test_tag_lines_in_the_middle_are_metadata(bot: Bot) -> None:
    user, chat = private_user(bot, 2012)
    body = answers(KEY, correct=2)
    plain = text_of(await bot.say(chat, user, "\n".join([body[0], "#think", body[1]])))
    assert "Every line was read." in plain
    assert "Mode: think" in plain.splitlines()


async def test_hint_for_persian_digits(bot: Bot) -> None:
    user, chat = private_user(bot, 2013)
    plain = text_of(await bot.say(chat, user, "1:2\n۲:۳\n3:1."))
    assert "line 2: ۲:۳" in plain and "line 3: 3:1." in plain
    assert "Persian/Arabic-Indic digits on line 2" in plain
    assert "ending in a period on line 3" in plain


@pytest.mark.parametrize("name", ["run.txt", "run.md", "run.csv", "run.json", "run.jsonl", "run"])
async def test_document_submission(bot: Bot, name: str) -> None:
    user, chat = private_user(bot, 2020)
    body = "\r\n".join(answers(KEY, correct=6, wrong=1)).encode()
    msg = await bot.api.send_document(chat, user, b"\xef\xbb\xbf" + body, name)
    plain = text_of(await bot.api.reply_to(msg, timeout=20))
    assert "Correct: 6" in plain and "Wrong: 1" in plain and "Final Score: 3" in plain
    assert "Every line was read." in plain


async def test_document_caption_carries_tags(bot: Bot) -> None:
    user, chat = private_user(bot, 2021)
    body = "\n".join(answers(KEY, correct=2)).encode()
    msg = await bot.api.send_document(
        chat, user, body, "out.txt", caption="#think_tools\nmodel: Jibay 5 High"
    )
    plain = text_of(await bot.api.reply_to(msg, timeout=20))
    assert "Mode: think & tools" in plain.splitlines()
    assert "Model: Jibay 5 High" in plain.splitlines()


async def test_document_tags_inside_the_file(bot: Bot) -> None:
    user, chat = private_user(bot, 2022)
    body = "\n".join(["#tools", *answers(KEY, correct=2), "model: Grok 4.6"]).encode()
    msg = await bot.api.send_document(chat, user, body, "out.md")
    plain = text_of(await bot.api.reply_to(msg, timeout=20))
    assert "Mode: tools" in plain.splitlines()
    assert "Model: Grok 4.6" in plain.splitlines()
    assert "Every line was read." in plain


async def test_user_text_is_escaped(bot: Bot) -> None:
    user, chat = private_user(bot, 2030)
    mark = bot.api.mark()
    long = "<b>x</b> & <script>" + " and more" * 20  # cut on the card, whole in Details
    text = "\n".join(["model: <i>evil</i> & co", "#think", "1:1", long, "a < b > c &amp;"])
    reply = await bot.say(chat, user, text)
    plain = text_of(reply)
    assert "Model: <i>evil</i> & co" in plain
    assert "line 4: <b>x</b> & <script> and more" in plain
    assert "line 5: a < b > c &amp;" in plain
    sid = submission_id(plain)
    details = await bot.details(chat, user, reply, sid)
    assert f"line 4: {long}" in text_of(details).splitlines()
    assert "a < b > c" not in text_of(details)  # shown whole on the card already
    bot.check_clean(mark)


async def test_details_button_lists_the_invalid_lines_the_card_does_not(bot: Bot) -> None:
    user, chat = private_user(bot, 2031)
    lines = [f"bad line {i}" for i in range(1, 26)]
    reply = await bot.say(chat, user, "\n".join(["1:1", *lines]))
    plain = text_of(reply)
    assert "Invalid lines (25):" in plain
    assert "line 2: bad line 1" in plain
    assert "bad line 25" not in plain
    assert "15 more" in plain
    sid = submission_id(plain)
    details = await bot.details(chat, user, reply, sid)
    shown = text_of(details).splitlines()
    assert shown[0] == f"The other invalid lines of #{sid}, in full:"
    for i in range(1, 26):
        on_card = f"line {i + 1}: bad line {i}" in [x.strip() for x in plain.splitlines()]
        assert (f"line {i + 1}: bad line {i}" in shown) is not on_card, i
    assert len(shown) == 1 + 15


async def test_long_output_stays_under_the_limit_and_details_come_as_a_file(bot: Bot) -> None:
    user, chat = private_user(bot, 2032)
    mark = bot.api.mark()
    lines = [f"{i} " + "reasoning words " * 20 for i in range(5000)]
    # the answer line at the end makes it a submission (prose alone is not one)
    msg = await bot.api.send_document(
        chat, user, "\n".join([*lines, "1:none"]).encode(), "long.txt"
    )
    reply = await bot.api.reply_to(msg, timeout=30)
    assert len(reply["params"]["text"]) <= 4096
    plain = text_of(reply)
    assert "Invalid lines (5000):" in plain
    assert "Final Score: 0" in plain
    sid = submission_id(plain)
    await bot.press(chat, user, reply, f"det:{sid}")
    doc = await bot.api.wait_call("sendDocument", chat_id=chat["id"], since=mark, timeout=20)
    content = doc["params"]["document"].content.decode()
    assert content.count("\n") >= 5000
    assert "line 5000: 4999 reasoning" in content
    bot.check_clean(mark)


async def test_same_text_twice_gives_two_submissions(bot: Bot) -> None:
    """Two messages are two submissions (idempotency is per Telegram message)."""
    user, chat = private_user(bot, 2033)
    first = submission_id(text_of(await bot.say(chat, user, "1:1")))
    second = submission_id(text_of(await bot.say(chat, user, "1:1")))
    assert first != second


async def test_score_command_and_score_caption_in_private(bot: Bot) -> None:
    user, chat = private_user(bot, 2034)
    plain = text_of(await bot.say(chat, user, f"/score #tools\nmodel: m1\n1:{KEY[1]}\nzz"))
    assert "Mode: tools" in plain.splitlines() and "Model: m1" in plain.splitlines()
    assert "Correct: 1" in plain and "line 4: zz" in plain
    msg = await bot.api.send_document(
        chat, user, f"1:{KEY[1]}\n2:{KEY[2]}".encode(), "a.txt", caption="/score #think\nmodel: m2"
    )
    plain = text_of(await bot.api.reply_to(msg, timeout=20))
    assert "Mode: think" in plain.splitlines() and "Model: m2" in plain.splitlines()
    assert "Correct: 2" in plain

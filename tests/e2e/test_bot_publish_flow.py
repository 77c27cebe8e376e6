"""What the person meant (issue 16): publishing in two taps, republishing, credit in
groups, /me kept private and paged, Natory validity and its card, Persian throughout."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from .botkit import KEY, Bot, answers, bot_session, button, buttons, private_user, text_of
from .botkit import submission_id as sid_of

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    async with bot_session(tmp_path_factory.mktemp("flow")) as b:
        yield b


async def test_publish_on_the_first_card_when_mode_and_model_are_given(bot: Bot) -> None:
    user, chat = private_user(bot, 9001)
    mark = bot.api.mark()
    body = "\n".join(answers(KEY, correct=6))
    reply = await bot.say(chat, user, f"#think\nmodel: Tapper\n{body}")
    plain, sid = text_of(reply), sid_of(text_of(reply))
    assert "Ready: press Publish" in plain
    assert f"pub:{sid}" in buttons(reply) and f"sh:{sid}" not in buttons(reply)
    since = bot.api.mark()
    answer = await bot.press(chat, user, reply, f"pub:{sid}")  # the second tap
    assert f"Published #{sid}" in answer["text"]
    current = await bot.edited(reply, since)
    assert "Published on the leaderboard." in text_of(current)
    assert {f"sh:{sid}", f"chl:{sid}"} <= set(buttons(current))  # Share and Challenge, now
    bot.check_clean(mark)


async def test_a_withdrawn_result_can_be_published_again(bot: Bot) -> None:
    user, chat = private_user(bot, 9002)
    mark = bot.api.mark()
    reply = await bot.say(chat, user, f"#tools\nmodel: Again\n1:{KEY[1]}")
    sid = sid_of(text_of(reply))
    await bot.press(chat, user, reply, f"pub:{sid}")
    me = await bot.say(chat, user, "/me")
    assert "(1)" in text_of(me).splitlines()[0]  # the count
    await bot.press(chat, user, me, f"wd:{sid}:0")  # asks
    await bot.press(chat, user, me, f"wd:{sid}:0:yes", check_button=False)
    card = await bot.say(chat, user, f"/start s{sid}")
    assert "Withdrawn from the leaderboards." in text_of(card)
    assert "Press Publish to put it back" in text_of(card)
    # mode and model can change again before publishing again
    assert f"mode:{sid}:think" in buttons(card)
    answer = await bot.press(chat, user, card, f"pub:{sid}")
    assert f"Published #{sid}" in answer["text"]
    assert "19 of 20" in answer["text"]  # withdrawn and published again the same day: once
    assert "1. Again" in text_of(await bot.say(chat, user, "/leaderboard primebench tools"))
    bot.check_clean(mark)


async def test_me_is_paged(bot: Bot) -> None:
    user, chat = private_user(bot, 9003)
    for i in range(12):
        await bot.say(chat, user, f"{i + 1}:{KEY[i + 1]}")
    me = await bot.say(chat, user, "/me")
    plain = text_of(me)
    assert "Your submissions (12)" in plain
    assert "page 1 of 2" in plain.lower()
    since = bot.api.mark()
    await bot.press(chat, user, me, "me:1")
    second = text_of(await bot.edited(me, since))
    assert "page 2 of 2" in second.lower() and second.count(" · PrimeBench · ") == 2


async def test_score_in_reply_credits_the_author(bot: Bot) -> None:
    group = bot.api.group_chat(-1009004, "Lab Credit")
    alice, bob = bot.api.user(9004, "Alice"), bot.api.user(9005, "Bob")
    mark = bot.api.mark()
    body = "\n".join(answers(KEY, correct=5))
    output = await bot.api.send_text(group, alice, f"model: Alice's model\n{body}")
    since = bot.api.mark()
    await bot.api.send_text(group, bob, "/score #think", reply_to=output)
    reply = await bot.api.wait_call("sendMessage", chat_id=group["id"], since=since, timeout=20)
    plain, sid = text_of(reply), sid_of(text_of(reply))
    assert "Output of Alice, scored at the request of Bob." in plain
    # only Alice may publish it
    answer = await bot.press(group, bob, reply, f"pub:{sid}")
    assert answer.get("show_alert") is True and "Only the person" in answer["text"]
    answer = await bot.press(group, alice, reply, f"pub:{sid}")
    assert f"Published #{sid}" in answer["text"]
    # /me in a group: never there; sent to Alice's private chat (she has one)
    alice_chat = bot.api.private_chat(alice)
    await bot.say(alice_chat, alice, "/start")
    since = bot.api.mark()
    note = await bot.say(group, alice, "/me")
    assert "private chat" in text_of(note) and f"#{sid}" not in text_of(note)
    sent = await bot.api.wait_call("sendMessage", chat_id=alice_chat["id"], since=since)
    assert f"#{sid} · PrimeBench · Alice's model · think" in text_of(sent)
    # Bob's /me has nothing of it (in his own private chat)
    bob_chat = bot.api.private_chat(bob)
    assert f"#{sid}" not in text_of(await bot.say(bob_chat, bob, "/me"))
    bot.check_clean(mark)


async def test_me_in_a_group_without_a_private_chat_says_how_to_start_one(bot: Bot) -> None:
    group = bot.api.group_chat(-1009006, "Lab Shy")
    shy = bot.api.user(9006, "Shy", language_code="fa")
    mark = bot.api.mark()
    await bot.say(group, shy, "/score #think\n1:1")
    note = text_of(await bot.say(group, shy, "/me"))
    assert "?start=me" in note and "#" not in note.split("?start=me")[0]
    assert "خصوصی" in note
    bot.check_clean(mark)


async def test_natory_not_the_target_cannot_be_published(bot: Bot) -> None:
    user, chat = private_user(bot, 9007)
    mark = bot.api.mark()
    reply = await bot.say(chat, user, "#natory #think\ntarget: 6256\nmodel: Wrong\n2*5^5+5")
    plain, sid = text_of(reply), sid_of(text_of(reply))
    assert "Not valid: the expression equals 6255, not the target 6256." in plain
    assert "cannot be published" in plain
    assert f"pub:{sid}" not in buttons(reply)
    answer = await bot.press(chat, user, reply, f"pub:{sid}", check_button=False)
    assert "not a valid answer" in answer["text"]
    assert "Wrong" not in text_of(await bot.say(chat, user, "/leaderboard natory 6256"))
    bot.check_clean(mark)


async def test_natory_reasons_and_bonus_names_in_persian(bot: Bot) -> None:
    fa, chat = private_user(bot, 9008, "fa")
    mark = bot.api.mark()
    plain = text_of(await bot.say(chat, fa, "#natory target: 8987\n9/(8-8)"))
    assert "نامعتبر: تقسیم بر صفر (در جایگاه ۲)" in plain
    assert "division" not in plain
    plain = text_of(await bot.say(chat, fa, "#natory target: 8987\n1+2"))
    assert "رقم ۱ مجاز نیست: رقم‌های ۸۹۸۷ این‌هایند: ۷، ۸، ۹ (در جایگاه ۱)" in plain
    plain = text_of(await bot.say(chat, fa, "#natory target: 24\n4!"))
    assert "فاکتوریل" in plain and "factorial" not in plain
    bot.check_clean(mark)


async def test_natory_card_breakdown_and_trivial_ranks_last(bot: Bot) -> None:
    user, chat = private_user(bot, 9008)
    mark = bot.api.mark()
    trivial = await bot.say(chat, user, "#natory #think\ntarget: 6256\nmodel: Lazy\n6256")
    plain = text_of(trivial)
    assert "triviality rule makes the final score 0 (instead of 115)" in plain
    assert "Final score: 0" in plain and "baseScore" not in plain
    assert "  Base (equals the target): +10" in plain
    assert "10 + 20 + 80 + 5 = 115" in plain
    await bot.press(chat, user, trivial, f"pub:{sid_of(plain)}")
    clumsy = await bot.say(
        chat, user, "#natory #think\ntarget: 6256\nmodel: Clumsy\n2*5^5+6+6-6+6-6"
    )
    assert "  Extra digits: −160" in text_of(clumsy)
    await bot.press(chat, user, clumsy, f"pub:{sid_of(text_of(clumsy))}")
    lines = text_of(await bot.say(chat, user, "/leaderboard natory 6256")).splitlines()
    clumsy_at = next(i for i, line in enumerate(lines) if "Clumsy" in line)
    lazy_at = next(i for i, line in enumerate(lines) if "Lazy" in line)
    assert clumsy_at < lazy_at and "best 0 (trivial)" in lines[lazy_at]
    # Persian: the same card in Persian words and digits; the expression as typed
    fa, fa_chat = private_user(bot, 9009, "fa")
    persian = text_of(await bot.say(fa_chat, fa, "#natory\ntarget: 6256\nmodel: M\n6256"))
    # a signed figure is a left-to-right run (LRI … PDI): "+۱۰", never "۱۰+"
    assert "  پایه (برابر با هدف): \u2066+۱۰\u2069" in persian
    assert "عبارت: 6256" in persian and "هدف: ۶۲۵۶" in persian
    assert "امتیاز نهایی: ۰" in persian and "Base" not in persian
    assert "Final" not in persian and "just the target" not in persian
    bot.check_clean(mark)


async def test_persian_hints_help_menu_and_lists(bot: Bot) -> None:
    fa, chat = private_user(bot, 9010, "fa")
    mark = bot.api.mark()
    reply = text_of(await bot.say(chat, fa, f"Q1:{KEY[1]}\n**2:{KEY[2]}**\n3:{KEY[3]}"))
    assert "«Q1:3»" in reply  # the Q-prefix hint's own example
    assert "مارک‌داون" in reply  # the bold hint, in Persian
    help_text = text_of(await bot.say(chat, fa, "/help"))
    for command in ("/natory", "/compare", "/export", "/me"):
        assert command in help_text
    en, en_chat = private_user(bot, 9011)
    help_text = text_of(await bot.say(en_chat, en, "/help"))
    for command in ("/natory", "/compare", "/export"):
        assert command in help_text
    assert "markdown bold" in text_of(await bot.say(en_chat, en, f"**1:{KEY[1]}**"))
    assert "export" in {c["command"] for c in bot.api.commands() or []}
    assert "export" in {c["command"] for c in bot.api.commands("fa") or []}
    bad = text_of(await bot.say(chat, fa, "/leaderboard banana"))
    assert "primebench، zerobench" in bad
    bot.check_clean(mark)


async def test_near_misses_are_listed_before_prose(bot: Bot) -> None:
    user, chat = private_user(bot, 9012)
    prose = [f"some reasoning sentence {i}" for i in range(20)]
    reply = await bot.say(chat, user, "\n".join([*prose, f"Q1:{KEY[1]}", f"1:{KEY[1]}."]))
    plain = text_of(reply)
    assert "line 21: Q1:" in plain and "line 22: 1:" in plain
    assert plain.index("line 21:") < plain.index("line 1: some reasoning")
    assert button(reply, "Details")


async def test_persian_me_pages_board_pages_and_the_way_back(bot: Bot) -> None:
    """In Persian: /me paged with its count and Persian digits; the authors' reported
    block on the board's first page only; the group board's way back from the global."""
    fa, chat = private_user(bot, 9020, "fa")
    mark = bot.api.mark()
    for i in range(12):
        reply = await bot.say(chat, fa, f"#think\nmodel: fa-{i}\n1:{KEY[1]}\n2:{KEY[2]}")
        if i < 11:
            await bot.press(chat, fa, reply, f"pub:{sid_of(text_of(reply))}")
    me = text_of(await bot.say(chat, fa, "/me"))
    assert "ارسال‌های شما (۱۲)" in me.splitlines()[0]
    assert "صفحه‌ی ۱ از ۲" in me
    rows = [line for line in me.splitlines() if line.startswith("#")]
    assert len(rows) == 10
    for row in rows:  # score and date in Persian digits, like the card; the signed
        # score a left-to-right run (LRI … PDI: "+۲", never "۲+")
        assert re.search(r" · \u2066\+۲\u2069 · .* · [۰-۹]{4}-[۰-۹]{2}-[۰-۹]{2}$", row), row
    board = await bot.say(chat, fa, "/leaderboard primebench")
    assert "گزارش‌شده توسط سازندگان" in text_of(board)
    since = bot.api.mark()
    await bot.press(chat, fa, board, button(board, "بعدی"))
    second = text_of(await bot.edited(board, since))
    assert "صفحه‌ی ۲ از ۲" in second and "fa-" in second
    assert "گزارش‌شده توسط سازندگان" not in second  # the reported block: page 1 only

    group = bot.api.group_chat(-1009020, "گروه آزمایش")
    msg = await bot.api.send_text(group, fa, "/leaderboard")
    local = await bot.api.reply_to(msg, timeout=20)
    since = bot.api.mark()
    await bot.press(group, fa, local, button(local, "جدول سراسری"))
    glob = await bot.edited(local, since)
    assert "fa-" in text_of(glob)
    since = bot.api.mark()
    await bot.press(group, fa, glob, button(glob, "جدول گروه"))
    assert "fa-" not in text_of(await bot.edited(local, since))  # nothing published here
    bot.check_clean(mark)

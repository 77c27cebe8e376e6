"""Sharing (issue 18), end to end: the Share button sends the result card (uploaded
once, then by file_id), opaque deep links to a result and a group's board, startgroup,
challenges mentioned on the challenger's card, a board page as an image, /theme."""

from __future__ import annotations

import re
import struct
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import unquote

import pytest
import pytest_asyncio

from .botapi import UploadedFile
from .botkit import (
    BOT,
    KEY,
    Bot,
    answers,
    bot_session,
    button,
    buttons,
    private_user,
    questions_json,
    text_of,
)
from .botkit import submission_id as sid_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

RESULT_LINK = re.compile(rf"https://t\.me/{BOT}\?start=(r_[A-Za-z0-9_-]{{16}})")
CHALLENGE_LINK = re.compile(rf"https://t\.me/{BOT}\?start=(c_[A-Za-z0-9_-]{{16}})")
GROUP_LINK = re.compile(rf"https://t\.me/{BOT}\?start=(g_[A-Za-z0-9_-]{{16}})")
CREDIT = "PrimeBench by JibayAI (jibay.ir), CC BY-ND 4.0"
QUESTIONS = questions_json()


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    async with bot_session(tmp_path_factory.mktemp("share"), questions=QUESTIONS) as b:
        yield b


def _png_size(upload: UploadedFile) -> tuple[int, int]:
    data = upload.content
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def _urls(message: dict[str, Any]) -> list[str]:
    msg = message.get("result", message) if "method" in message else message
    rows = (msg.get("reply_markup") or {}).get("inline_keyboard", [])
    return [b["url"] for row in rows for b in row if "url" in b]


async def _published(bot: Bot, uid: int, model: str, correct: int, lang: str = "en") -> tuple:
    user, chat = private_user(bot, uid, lang)
    body = "\n".join(answers(KEY, correct=correct, wrong=1))
    reply = await bot.say(chat, user, f"#think\nmodel: {model}\n{body}")
    sid = sid_of(text_of(reply))
    since = bot.api.mark()
    await bot.press(chat, user, reply, f"pub:{sid}")
    card = await bot.edited(reply, since)
    return user, chat, reply, card, sid


async def _share(bot: Bot, chat: dict, user: dict, card_call: dict, sid: int) -> dict[str, Any]:
    since = bot.api.mark()
    await bot.press(chat, user, card_call, f"sh:{sid}")
    return await bot.api.wait_call("sendPhoto", chat_id=chat["id"], since=since, timeout=20)


async def _group_board_link(bot: Bot, group: dict, member: dict, model: str) -> str:
    """A member scores and publishes a result in ``group``; the payload of the link the
    group board's image carries (it opens that board in the bot)."""
    since = bot.api.mark()
    await bot.api.send_text(group, member, f"/score #think\nmodel: {model}\n1:{KEY[1]}")
    scored = await bot.api.wait_call("sendMessage", chat_id=group["id"], since=since, timeout=20)
    await bot.press(group, member, scored, f"pub:{sid_of(text_of(scored))}")
    group_board = await bot.say(group, member, "/leaderboard")
    since = bot.api.mark()
    await bot.press(group, member, group_board, button(group_board, "As image"))
    photo = await bot.api.wait_call("sendPhoto", chat_id=group["id"], since=since, timeout=20)
    return str(GROUP_LINK.search(text_of(photo))[1])


async def test_share_sends_the_card_once_then_by_file_id(bot: Bot) -> None:
    mark = bot.api.mark()
    user, chat, reply, card, sid = await _published(bot, 18001, "Sharer 1", correct=8)
    labels = buttons(card)
    assert f"sh:{sid}" in labels and f"chl:{sid}" in labels
    assert not any("start=s" in url or "start%3Ds" in url for url in _urls(card))  # opaque
    first = await _share(bot, chat, user, reply, sid)
    photo = first["params"]["photo"]
    assert isinstance(photo, UploadedFile) and _png_size(photo) == (1080, 1350)
    caption = text_of(first)
    assert "Sharer 1" in caption and "+5" in caption and "PrimeBench" in caption
    assert CREDIT in caption
    assert RESULT_LINK.search(caption)
    assert any(RESULT_LINK.search(url) for url in _urls(first))  # "Open in the bot"
    second = await _share(bot, chat, user, reply, sid)
    file_id = first["result"]["photo"][-1]["file_id"]
    assert second["params"]["photo"] == file_id  # sent again by its file_id
    assert RESULT_LINK.search(text_of(second))[1] == RESULT_LINK.search(caption)[1]
    bot.check_clean(mark)


async def test_a_refused_cached_card_is_drawn_and_uploaded_again(bot: Bot) -> None:
    mark = bot.api.mark()
    user, chat, reply, _card, sid = await _published(bot, 18011, "Sharer 11", correct=6)
    first = await _share(bot, chat, user, reply, sid)
    old_id = first["result"]["photo"][-1]["file_id"]
    bot.api.forget_file(old_id)  # the database moved to another bot, say
    since = bot.api.mark()
    await bot.press(chat, user, reply, f"sh:{sid}")
    again = await bot.api.wait_for(
        lambda c: c["method"] == "sendPhoto" and c["ok"] and c["params"]["chat_id"] == chat["id"],
        since=since,
        timeout=20,
    )
    assert isinstance(again["params"]["photo"], UploadedFile)  # drawn and uploaded anew
    refused = [c for c in bot.api.calls[since:] if c["method"] == "sendPhoto" and not c["ok"]]
    assert [c["params"]["photo"] for c in refused] == [old_id]
    assert "Sharer 11" in text_of(again)
    third = await _share(bot, chat, user, reply, sid)
    assert third["params"]["photo"] == again["result"]["photo"][-1]["file_id"]
    assert not any(
        "went wrong" in text_of(c) for c in bot.api.calls[since:] if c["method"] == "sendMessage"
    )
    assert [c for c in bot.api.errors() if c["index"] >= mark] == refused  # and nothing else


async def test_a_result_link_opens_it_and_a_gone_one_is_not_available(bot: Bot) -> None:
    mark = bot.api.mark()
    owner, owner_chat, reply, _card, sid = await _published(bot, 18002, "Linked", correct=4)
    shared = await _share(bot, owner_chat, owner, reply, sid)
    payload = RESULT_LINK.search(text_of(shared))[1]
    friend, friend_chat = private_user(bot, 18003, "fa")
    opened = await bot.say(friend_chat, friend, f"/start {payload}")
    assert opened["method"] == "sendPhoto"
    assert "Linked" in text_of(opened) and CREDIT in text_of(opened)
    assert "در ربات باز کنید" in text_of(opened)  # in the friend's language
    # shown in the bot already: no button that opens it in the bot again
    assert not any(RESULT_LINK.search(url) for url in _urls(opened))
    # someone new: what the bot is, and how to put their own model beside this one
    welcome = await bot.api.wait_call(
        "sendMessage", chat_id=friend_chat["id"], since=opened["index"], timeout=20
    )
    assert "خوش آمدید" in text_of(welcome) and "/prompt primebench" in text_of(welcome)
    # ids are not links: someone else's s<id> opens nothing, an unknown token neither
    by_id = text_of(await bot.say(friend_chat, friend, f"/start s{sid}"))
    assert "این پیوند در دسترس نیست" in by_id and "Linked" not in by_id
    stranger, stranger_chat = private_user(bot, 18004)
    unknown = text_of(await bot.say(stranger_chat, stranger, "/start r_AAAAAAAAAAAAAAAA"))
    assert "this link is not available" in unknown
    bad = text_of(await bot.say(stranger_chat, stranger, "/start r_'; DROP TABLE links"))
    assert "this link is not available" in bad
    # withdrawn: the same link is no longer available
    me = await bot.say(owner_chat, owner, "/me")
    await bot.press(owner_chat, owner, me, f"wd:{sid}:0")  # asks
    await bot.press(owner_chat, owner, me, f"wd:{sid}:0:yes", check_button=False)
    gone = text_of(await bot.say(stranger_chat, stranger, f"/start {payload}"))
    assert "this link is not available" in gone and "Linked" not in gone
    bot.check_clean(mark)


async def test_a_dead_link_says_what_it_was_and_what_to_do_instead(bot: Bot) -> None:
    """Someone new arriving through a link nobody made (or cut short): it says what the
    link was (a result, a challenge, a group's board) and what to do next."""
    mark = bot.api.mark()
    user, chat = private_user(bot, 18010)
    result = text_of(await bot.say(chat, user, "/start r_AAAAAAAAAAAAAAAA"))
    assert "the result may have been withdrawn or hidden" in result and "/help" in result
    challenge = text_of(await bot.say(chat, user, "/start c_AAAAAAAAAAAAAAAA"))
    assert challenge.startswith("Sorry, this challenge is not available") and "/help" in challenge
    board = text_of(await bot.say(chat, user, "/start g_AAAAAAAAAAAAAAAA"))
    assert board.startswith("Sorry, this board link is not available") and "result" not in board
    assert "/leaderboard" in board and "/help" in board
    fa_user, fa_chat = private_user(bot, 18011, "fa")
    fa = text_of(await bot.say(fa_chat, fa_user, "/start g_AAAAAAAAAAAAAAAA"))
    assert "این پیوند جدول در دسترس نیست" in fa and "/leaderboard" in fa
    bot.check_clean(mark)


async def test_a_challenge_opens_the_prompt_and_marks_the_answer(bot: Bot) -> None:
    mark = bot.api.mark()
    user, chat, _reply, card, sid = await _published(bot, 18005, "Champion", correct=9)
    since = bot.api.mark()
    await bot.press(chat, user, card, f"chl:{sid}")
    link_msg = await bot.api.wait_call("sendMessage", chat_id=chat["id"], since=since)
    payload = CHALLENGE_LINK.search(text_of(link_msg))[1]
    assert "beat +6 by Champion on PrimeBench" in text_of(link_msg)
    assert CREDIT in text_of(link_msg)  # a PrimeBench score shown: JibayAI credited
    shares = [url for url in _urls(link_msg) if "t.me/share/url" in url]
    assert shares and CREDIT in unquote(shares[0])  # the invitation shows the score too
    friend, friend_chat = private_user(bot, 18006)
    opened = await bot.say(friend_chat, friend, f"/start {payload}")
    plain = text_of(opened)
    assert "beat +6 by Champion on PrimeBench" in plain
    assert "Based on the questions, choose the correct option." in plain  # the prompt
    assert "<pre>" in opened["params"]["text"] and CREDIT in plain
    # and the questions the prompt is about, so the friend can run the benchmark
    sent = await bot.api.wait_call("sendDocument", chat_id=friend_chat["id"], since=since)
    document = sent["params"]["document"]
    assert document.filename == "Q.json" and document.content == QUESTIONS
    assert "PrimeBench's questions (Q.json)" in text_of(sent) and CREDIT in text_of(sent)
    body = "\n".join(answers(KEY, correct=10))
    answer = await bot.say(friend_chat, friend, f"#think\nmodel: Challenger\n{body}")
    assert "Challenge: beat +6 by Champion" in text_of(answer)
    friend_sid = sid_of(text_of(answer))
    since = bot.api.mark()
    await bot.press(friend_chat, friend, answer, f"pub:{friend_sid}")
    published = await bot.edited(answer, since)
    assert "Challenge: beat +6 by Champion" in text_of(published)
    # the challenge is answered once: the next result is an ordinary one
    again = await bot.say(friend_chat, friend, f"#think\nmodel: Challenger\n{body}")
    assert "Challenge: beat" not in text_of(again)
    bot.check_clean(mark)


async def test_the_board_as_an_image_and_the_group_links(bot: Bot) -> None:
    mark = bot.api.mark()
    await _published(bot, 18007, "Board Star", correct=7)
    user, chat = private_user(bot, 18008)
    board = await bot.say(chat, user, "/leaderboard")
    data = button(board, "As image")
    assert data.startswith("lbi:primebench:g:")
    since = bot.api.mark()
    await bot.press(chat, user, board, data)
    photo = await bot.api.wait_call("sendPhoto", chat_id=chat["id"], since=since, timeout=20)
    assert _png_size(photo["params"]["photo"])[0] == 1080
    assert "PrimeBench leaderboard" in text_of(photo) and CREDIT in text_of(photo)
    assert any(f"t.me/{BOT}?startgroup=board" in url for url in _urls(photo))
    # a group: its board image links to the group's board in the bot
    group = bot.api.group_chat(-1018009, "Share Lab")
    member = bot.api.user(18009, "Member")
    payload = await _group_board_link(bot, group, member, "Group Model")
    visitor, visitor_chat = private_user(bot, 18010)
    opened = text_of(await bot.say(visitor_chat, visitor, f"/start {payload}"))
    assert "The board of Share Lab" in opened and "Group Model" in opened
    # added through a startgroup link: /start in the group says how the bot works there
    shown = text_of(await bot.say(group, member, f"/start@{BOT} board"))
    assert "Hi Share Lab!" in shown and "/score" in shown and "/leaderboard" in shown
    bot.check_clean(mark)


async def test_theme_choice_changes_the_card(bot: Bot) -> None:
    mark = bot.api.mark()
    user, chat, reply, _card, sid = await _published(bot, 18011, "Night Owl", correct=3)
    assert "light" in text_of(await bot.say(chat, user, "/theme"))
    light = await _share(bot, chat, user, reply, sid)
    assert "now dark" in text_of(await bot.say(chat, user, "/theme dark"))
    assert "/theme light" in text_of(await bot.say(chat, user, "/theme neon"))
    dark = await _share(bot, chat, user, reply, sid)
    assert isinstance(dark["params"]["photo"], UploadedFile)  # another image: uploaded
    assert dark["params"]["photo"].content != light["params"]["photo"].content
    bot.check_clean(mark)


async def test_share_of_an_unpublished_result_asks_to_publish(bot: Bot) -> None:
    user, chat = private_user(bot, 18012)
    reply = await bot.say(chat, user, f"#think\nmodel: Draft\n1:{KEY[1]}")
    sid = sid_of(text_of(reply))
    answer = await bot.press(chat, user, reply, f"sh:{sid}", check_button=False)
    assert "Publish this result first" in answer["text"]
    answer = await bot.press(chat, user, reply, f"chl:{sid}", check_button=False)
    assert "Publish this result first" in answer["text"]


async def test_a_natory_challenge_is_for_the_same_target(bot: Bot) -> None:
    mark = bot.api.mark()
    user, chat = private_user(bot, 18013)
    reply = await bot.say(chat, user, "#natory #think\ntarget: 6256\nmodel: NatChamp\n2*5^5+6")
    sid = sid_of(text_of(reply))
    since = bot.api.mark()
    await bot.press(chat, user, reply, f"pub:{sid}")
    card = await bot.edited(reply, since)
    since = bot.api.mark()
    await bot.press(chat, user, card, f"chl:{sid}")
    link_msg = await bot.api.wait_call("sendMessage", chat_id=chat["id"], since=since)
    payload = CHALLENGE_LINK.search(text_of(link_msg))[1]
    friend, friend_chat = private_user(bot, 18014)
    opened = text_of(await bot.say(friend_chat, friend, f"/start {payload}"))
    assert "by NatChamp on Natory" in opened and "#natory target: 6256" in opened
    # another target is not an answer to this challenge; the same target is
    other = await bot.say(
        friend_chat, friend, "#natory #think\ntarget: 13\nmodel: F\n3^(1+1)+(3+1)"
    )
    assert "Challenge: beat" not in text_of(other)
    same = await bot.say(
        friend_chat, friend, "#natory #think\ntarget: 6256\nmodel: F\n2*sopfr(6)^5+6"
    )
    assert "Challenge: beat" in text_of(same) and "by NatChamp" in text_of(same)
    bot.check_clean(mark)


async def test_names_with_markup_are_escaped_in_captions(bot: Bot) -> None:
    mark = bot.api.mark()
    user, chat, reply, _card, sid = await _published(bot, 18015, "A<b>&co </i>", correct=2)
    shared = await _share(bot, chat, user, reply, sid)
    assert "A<b>&co </i>" in text_of(shared)  # shown as typed: Telegram took the HTML
    assert "A&lt;b&gt;&amp;co &lt;/i&gt;" in shared["params"]["caption"]
    group = bot.api.group_chat(-1018016, "<Lab & co>")
    member = bot.api.user(18016, "M")
    payload = await _group_board_link(bot, group, member, "X")
    visitor, visitor_chat = private_user(bot, 18017)
    assert "The board of <Lab & co>" in text_of(
        await bot.say(visitor_chat, visitor, f"/start {payload}")
    )
    # a bare /start in a group is the group's welcome, its name escaped
    assert "Hi <Lab & co>! I score LLM benchmark outputs" in text_of(
        await bot.say(group, member, "/start")
    )
    bot.check_clean(mark)


async def test_buttons_of_a_group_upgraded_since_answer_in_its_supergroup(bot: Bot) -> None:
    """Share, Challenge and As image pressed on old messages of a group that has become
    a supergroup: Telegram refuses the old chat (migrated), so the card, the challenge
    link and the board image (the supergroup's, where the results went) go there."""
    api, mark = bot.api, bot.api.mark()
    basic = api.group_chat(-18041, "Upgraded Lab", supergroup=False)
    ann = api.user(18041, "Ann")
    body = "\n".join(answers(KEY, correct=9))
    scored = await bot.say(basic, ann, f"/score #think\nmodel: Moved Model\n{body}")
    sid = sid_of(text_of(scored))
    await bot.press(basic, ann, scored, f"pub:{sid}")
    board = await bot.say(basic, ann, "/leaderboard")
    supergroup, _ = await api.upgrade_group(basic, -1000018041, ann)
    since = api.mark()
    await bot.press(basic, ann, scored, f"sh:{sid}")
    card = await api.wait_call("sendPhoto", chat_id=supergroup["id"], since=since, timeout=20)
    assert "Moved Model" in text_of(card) and RESULT_LINK.search(text_of(card))
    await bot.press(basic, ann, scored, f"chl:{sid}")
    link = await api.wait_call("sendMessage", chat_id=supergroup["id"], since=since, timeout=20)
    assert CHALLENGE_LINK.search(text_of(link))
    await bot.press(basic, ann, board, button(board, "As image"))
    image = await api.wait_for(
        lambda c: c["method"] == "sendPhoto" and c["ok"] and "leaderboard" in text_of(c),
        since=since,
        timeout=20,
    )
    assert image["params"]["chat_id"] == supergroup["id"]
    # its link opens the supergroup's board, with the group's result on it
    user, chat = private_user(bot, 18041)
    opened = await bot.say(chat, user, f"/start {GROUP_LINK.search(text_of(image))[1]}")
    assert "Moved Model" in text_of(opened)
    # a board button that edits its old message: nothing to edit there, no error either
    answer = await bot.press(basic, ann, board, "lb:primebench:c:think:0:0", check_button=False)
    assert not answer.get("show_alert")
    await api.wait_until(
        lambda: "its chat is now the supergroup -1000018041" in bot.proc.log(),
        timeout=20,
        what="the press handled",
    )
    assert '"level": "ERROR"' not in bot.proc.log()
    refused = [c for c in api.errors() if c["index"] >= since]
    assert {c["params"]["chat_id"] for c in refused} == {basic["id"]}  # only the old chat
    assert not [c for c in api.errors() if mark <= c["index"] < since]


async def test_a_persian_challenge_keeps_the_score_left_to_right(bot: Bot) -> None:
    """In Persian the score to beat is a left-to-right run in Persian digits (``+6``
    read right to left is ``6+``) and the model's name is kept whole: in the challenge
    link, the opened challenge and the answer's card."""
    mark = bot.api.mark()
    user, chat, _reply, card, sid = await _published(bot, 18051, "Model-7 (beta)", 9, "fa")
    since = bot.api.mark()
    await bot.press(chat, user, card, f"chl:{sid}")
    link_msg = await bot.api.wait_call("sendMessage", chat_id=chat["id"], since=since)
    score, name = "<b>\u2066+۶\u2069</b>", "<b>\u2068Model-7 (beta)\u2069</b>"
    assert score in link_msg["params"]["text"] and name in link_msg["params"]["text"]
    friend, friend_chat = private_user(bot, 18052, "fa")
    payload = CHALLENGE_LINK.search(text_of(link_msg))[1]
    opened = await bot.say(friend_chat, friend, f"/start {payload}")
    assert score in opened["params"]["text"] and name in opened["params"]["text"]
    await bot.api.wait_call("sendDocument", chat_id=friend_chat["id"], since=since)  # Q.json
    body = "\n".join(answers(KEY, correct=10))
    answer = await bot.say(friend_chat, friend, f"#think\nmodel: Challenger\n{body}")
    assert "\u2066+۶\u2069" in text_of(answer) and "\u2068Model-7 (beta)\u2069" in text_of(answer)
    bot.check_clean(mark)

"""Inline mode (issue 18), end to end through the local Bot API server: ``@bot`` lists
the user's published results newest first as their cards (uploaded once, then cached
photos), a query filters them, a chosen result reaches the bot and its cards are all
uploaded for the next answer, ``@bot top`` posts the top five as an image."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from .botapi import FakeBotAPI, UploadedFile
from .botapi_inline import result_kind
from .botkit import BOT, KEY, Bot, answers, bot_session, private_user, text_of
from .botkit import submission_id as sid_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

RESULT_LINK = re.compile(rf"https://t\.me/{BOT}\?start=r_[A-Za-z0-9_-]{{16}}")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    async with bot_session(tmp_path_factory.mktemp("inline")) as b:
        yield b


async def _publish(bot: Bot, chat: dict, user: dict, model: str, correct: int) -> int:
    body = "\n".join(answers(KEY, correct=correct))
    reply = await bot.say(chat, user, f"#think\nmodel: {model}\n{body}")
    sid = sid_of(text_of(reply))
    answer = await bot.press(chat, user, reply, f"pub:{sid}")
    assert not answer.get("show_alert"), answer  # published (in English or Persian)
    return sid


async def test_inline_lists_published_results_as_cards(bot: Bot) -> None:
    api = bot.api
    mark = api.mark()
    user, chat = private_user(bot, 18101)
    sids = [await _publish(bot, chat, user, f"Inline {i}", correct=i + 2) for i in range(5)]
    await bot.say(chat, user, f"#think\nmodel: Never published\n1:{KEY[1]}")
    query = await api.inline_query(user, "", chat_type="supergroup")
    answer = (await api.inline_answer(query))["params"]
    assert answer["is_personal"] is True and 0 < answer["cache_time"] <= 60
    results = answer["results"]
    assert [r["id"] for r in results] == [f"r:{sid}" for sid in reversed(sids)]  # newest first
    kinds = [result_kind(r) for r in results]
    # at most three uploads per answer: the rest wait as text, with the same button
    assert kinds == ["cached_photo"] * 3 + ["article"] * 2
    for r in results:
        urls = [b["url"] for row in r["reply_markup"]["inline_keyboard"] for b in row]
        assert any(RESULT_LINK.fullmatch(u) for u in urls)  # "Open in the bot"
    assert "Inline 4" in results[0]["caption"] and "PrimeBench by JibayAI" in results[0]["caption"]
    assert results[0]["parse_mode"] == "HTML" and "<b>Inline 4</b>" in results[0]["caption"]
    assert results[4]["input_message_content"]["parse_mode"] == "HTML"
    assert api.inline_seconds(query) is not None and api.inline_seconds(query) < 8
    # the uploads went to the user's private chat and were deleted there at once
    uploads = [c for c in api.calls_of("sendPhoto") if c["index"] >= mark]
    assert len(uploads) == 3 and all(
        isinstance(c["params"]["photo"], UploadedFile) for c in uploads
    )
    assert not [m for m in api.messages_in(chat["id"]) if "photo" in m]
    # choosing a card posts it in the group, via the bot; the bot then uploads the rest
    group = api.group_chat(-1018101, "Inline Lab")
    since = api.mark()
    posted = await api.choose_inline_result(group, user, query, results[0]["id"])
    assert posted["via_bot"]["username"] == BOT and "photo" in posted
    await api.wait_until(
        lambda: len([c for c in api.calls_of("sendPhoto") if c["index"] >= since]) >= 2,
        timeout=20,
        what="the two remaining cards uploaded",
    )
    again = await api.inline_query(user, "", chat_type="supergroup")
    results = (await api.inline_answer(again))["params"]["results"]
    assert [result_kind(r) for r in results] == ["cached_photo"] * 5
    # a third answer uploads nothing: every card is sent by its file_id
    before = len(api.calls_of("sendPhoto"))
    third = await api.inline_query(user, "", chat_type="private")
    await api.inline_answer(third)
    assert len(api.calls_of("sendPhoto")) == before
    # an article result, chosen, posts its text
    article_user, article_chat = private_user(bot, 18102)
    await _publish(bot, article_chat, article_user, "Text Only", correct=3)
    for i in range(3):
        await _publish(bot, article_chat, article_user, f"Text {i}", correct=2)
    q = await api.inline_query(article_user, "")
    found = (await api.inline_answer(q))["params"]["results"]
    article = next(r for r in found if result_kind(r) == "article")
    posted = await api.choose_inline_result(group, article_user, q, article["id"])
    assert "Text Only" in posted["text"] and posted["via_bot"]["id"] == api.bot_id
    bot.check_clean(mark)


async def test_a_query_filters_by_model_or_benchmark(bot: Bot) -> None:
    api = bot.api
    mark = api.mark()
    user, chat = private_user(bot, 18103, "fa")
    await _publish(bot, chat, user, "Claude Opus", correct=4)
    await _publish(bot, chat, user, "Gemini Pro", correct=5)
    query = await api.inline_query(user, "claude")
    results = (await api.inline_answer(query))["params"]["results"]
    assert len(results) == 1 and "Claude Opus" in (results[0].get("caption") or results[0]["title"])
    assert "در ربات باز کنید" in results[0]["caption"]  # the user's language
    query = await api.inline_query(user, "primebench")
    assert len((await api.inline_answer(query))["params"]["results"]) == 2
    query = await api.inline_query(user, "zerobench")
    empty = (await api.inline_answer(query))["params"]
    assert empty["results"] == [] and empty["button"]["start_parameter"] == "inline"
    # not "nothing published yet": they have results, none matches the words
    assert "جور نیست" in empty["button"]["text"] and "هنوز" not in empty["button"]["text"]
    # someone with nothing published is offered the bot
    nobody = api.user(18104, "Nobody")
    query = await api.inline_query(nobody, "")
    answer = (await api.inline_answer(query))["params"]
    assert answer["results"] == [] and "open the bot" in answer["button"]["text"]
    bot.check_clean(mark)


async def test_top_posts_the_top_five_as_an_image(bot: Bot) -> None:
    api = bot.api
    mark = api.mark()
    user, chat = private_user(bot, 18105)
    await _publish(bot, chat, user, "Top Model", correct=20)
    query = await api.inline_query(user, "top")
    results = (await api.inline_answer(query))["params"]["results"]
    assert len(results) == 1 and result_kind(results[0]) == "cached_photo"
    assert "PrimeBench leaderboard" in results[0]["caption"]
    assert "PrimeBench by JibayAI" in results[0]["caption"]
    group = api.group_chat(-1018105, "Top Lab")
    posted = await api.choose_inline_result(group, user, query, results[0]["id"])
    assert "photo" in posted
    natory = await api.inline_query(user, "top natory")
    results = (await api.inline_answer(natory))["params"]["results"]
    assert results and "Natory leaderboard" in results[0]["caption"]
    bot.check_clean(mark)


async def test_without_a_private_chat_cards_wait_as_text(bot: Bot) -> None:
    """Someone who used the bot only in a group: nowhere to upload (no card chat set)."""
    api = bot.api
    mark = api.mark()
    group = api.group_chat(-1018106, "Group Only")
    member = api.user(18106, "GroupOnly")
    await api.send_text(group, member, f"/score #think\nmodel: Grouped\n1:{KEY[1]}")
    reply = await api.wait_call("sendMessage", chat_id=group["id"], since=mark, timeout=20)
    await bot.press(group, member, reply, f"pub:{sid_of(text_of(reply))}")
    since = api.mark()
    query = await api.inline_query(member, "")
    results = (await api.inline_answer(query))["params"]["results"]
    assert [result_kind(r) for r in results] == ["article"]
    uploads = [c for c in api.calls_of("sendPhoto") if c["index"] >= since]
    assert not [c for c in uploads if c["params"]["chat_id"] in (member["id"], group["id"])]
    # nor can the top five's image be uploaded: the board is offered in the bot, not
    # "no published results" (there are, theirs among them)
    query = await api.inline_query(member, "top zerobench")  # (an image not uploaded yet)
    answer = (await api.inline_answer(query))["params"]
    assert answer["results"] == [] and answer["button"]["start_parameter"] == "board"
    assert (
        "leaderboard" in answer["button"]["text"] and "No published" not in answer["button"]["text"]
    )
    bot.check_clean(mark)


async def test_a_card_chat_takes_the_uploads(tmp_path_factory: pytest.TempPathFactory) -> None:
    api = FakeBotAPI(bot_username=BOT)
    await api.start()
    cards = api.group_chat(-1009999, "Card store")
    try:
        env = {"BENCHBOARD_CARD_CHAT": str(cards["id"])}
        async with bot_session(tmp_path_factory.mktemp("cards"), env=env, api=api) as bot:
            group = api.group_chat(-1018107, "Group Only 2")
            member = api.user(18107, "GroupOnly2")
            await api.send_text(group, member, f"/score #think\nmodel: Stored\n1:{KEY[1]}")
            reply = await api.wait_call("sendMessage", chat_id=group["id"], timeout=20)
            await bot.press(group, member, reply, f"pub:{sid_of(text_of(reply))}")
            query = await api.inline_query(member, "")
            results = (await api.inline_answer(query))["params"]["results"]
            assert [result_kind(r) for r in results] == ["cached_photo"]
            kept = [m for m in api.messages_in(cards["id"]) if "photo" in m]
            assert len(kept) == 1  # uploaded to the card chat, and kept there
            assert results[0]["photo_file_id"] == kept[0]["photo"][-1]["file_id"]
            bot.check_clean()
    finally:
        await api.stop()


async def test_a_card_chat_upgraded_to_a_supergroup_still_takes_the_uploads(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """BENCHBOARD_CARD_CHAT names a group that has become a supergroup since: Telegram
    refuses the old id, so the card goes to the supergroup (every inline answer failed)."""
    api = FakeBotAPI(bot_username=BOT)
    await api.start()
    cards = api.group_chat(-18108, "Card store", supergroup=False)
    try:
        env = {"BENCHBOARD_CARD_CHAT": str(cards["id"])}
        async with bot_session(tmp_path_factory.mktemp("moved"), env=env, api=api) as bot:
            user, chat = private_user(bot, 18108)
            await _publish(bot, chat, user, "Moved Cards", correct=5)
            supergroup, _ = await api.upgrade_group(cards, -1000018108, api.user(18109, "Op"))
            query = await api.inline_query(user, "")
            results = (await api.inline_answer(query))["params"]["results"]
            assert [result_kind(r) for r in results] == ["cached_photo"]
            kept = [m for m in api.messages_in(supergroup["id"]) if "photo" in m]
            assert results[0]["photo_file_id"] == kept[0]["photo"][-1]["file_id"]
            assert "set it to the new id" in bot.proc.log()  # the operator is told
    finally:
        await api.stop()

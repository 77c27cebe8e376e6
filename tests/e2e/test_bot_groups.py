"""Groups (privacy mode on): /score in its forms, the model prompt, group boards."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import time
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from .botkit import BOT, KEY, Bot, answers, bot_session, button, buttons, submission_id, text_of

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    async with bot_session(tmp_path_factory.mktemp("groups")) as b:
        yield b


async def _in_group(bot: Bot, chat: dict, user: dict, text: str, **kw: object) -> dict:
    msg = await bot.api.send_text(chat, user, text, **kw)
    return await bot.api.reply_to(msg, timeout=20)


async def test_score_with_text_after_the_command(bot: Bot) -> None:
    group = bot.api.group_chat(-1004001, "Lab A")
    ann = bot.api.user(4001, "Ann")
    mark = bot.api.mark()
    body = "\n".join(answers(KEY, correct=3, wrong=1))
    msg = await bot.api.send_text(group, ann, f"/score@{BOT} #think\nmodel: gpt-6 luna\n{body}\nxx")
    reply = await bot.api.reply_to(msg, timeout=20)
    assert reply["result"]["reply_to_message"]["message_id"] == msg["message_id"]
    plain = text_of(reply)
    assert "Mode: think" in plain.splitlines()
    assert "Model: gpt-6 luna" in plain.splitlines()
    assert "Correct: 3" in plain and "Final Score: 0" in plain
    # Line numbers as the user sees the message: /score is line 1.
    assert "line 7: xx" in plain
    assert f"pub:{submission_id(plain)}" in buttons(reply)
    bot.check_clean(mark)


async def test_score_with_benchmark_word_and_answers_on_the_command_line(bot: Bot) -> None:
    group = bot.api.group_chat(-1004002, "Lab B")
    ann = bot.api.user(4002, "Ann")
    plain = text_of(await _in_group(bot, group, ann, f"/score primebench tools\n1:{KEY[1]}"))
    assert "Mode: tools" in plain.splitlines() and "Correct: 1" in plain
    plain = text_of(await _in_group(bot, group, ann, f"/score 1:{KEY[1]} 2:{KEY[2]}"))
    assert "Correct: 2" in plain


async def test_score_with_an_expression_or_prose_on_the_command_line(bot: Bot) -> None:
    """The output on /score's own line is scored whatever its benchmark (a Natory
    expression, after a benchmark tag or not); prose there is said to hold nothing to
    score, not answered with how to use /score."""
    group = bot.api.group_chat(-1004010, "Lab N")
    ann = bot.api.user(4010, "Ann")
    for text in ("/score 3^(1+1)+(3+1)", f"/score@{BOT} #natory 3^(1+1)+(3+1)"):
        lines = text_of(await _in_group(bot, group, ann, text)).splitlines()
        assert lines[0] == "Natory" and "Expression: 3^(1+1)+(3+1)" in lines, text
    plain = text_of(await _in_group(bot, group, ann, "/score hello there"))
    assert plain.startswith("I could not find anything to score in this.")
    plain = text_of(await _in_group(bot, group, ann, "/score primebench #think"))
    assert plain.startswith("Send /score with the model's output after it")


async def test_score_as_a_reply_to_a_message(bot: Bot) -> None:
    group = bot.api.group_chat(-1004003, "Lab C")
    ann, bob = bot.api.user(4003, "Ann"), bot.api.user(4004, "Bob")
    output = await bot.api.send_text(group, bob, "\n".join(answers(KEY, correct=4)))
    since = bot.api.mark()
    cmd = await bot.api.send_text(group, ann, "/score #default", reply_to=output)
    reply = await bot.api.wait_call("sendMessage", chat_id=group["id"], since=since, timeout=20)
    # The bot answers the submission itself.
    assert reply["result"]["reply_to_message"]["message_id"] == output["message_id"]
    plain = text_of(reply)
    assert "Correct: 4" in plain and "Mode: default" in plain.splitlines()
    # Bob wrote the output: the submission is his, the card names him and who asked.
    assert "Output of Bob, scored at the request of Ann." in plain
    sid = submission_id(plain)
    answer = await bot.press(group, ann, reply, f"mode:{sid}:think", check_button=False)
    assert answer.get("show_alert") is True
    since = bot.api.mark()
    answer = await bot.press(group, bob, reply, f"mode:{sid}:think")
    assert "Mode: think" in text_of(await bot.edited(reply, since)).splitlines()
    assert cmd["message_id"] != output["message_id"]


async def test_score_as_a_reply_to_a_document(bot: Bot) -> None:
    group = bot.api.group_chat(-1004004, "Lab D")
    ann = bot.api.user(4005, "Ann")
    doc = await bot.api.send_document(
        group, ann, "\n".join(answers(KEY, correct=2, wrong=2)).encode(), "run.jsonl"
    )
    since = bot.api.mark()
    await bot.api.send_text(group, ann, "/score #tools", reply_to=doc)
    reply = await bot.api.wait_call("sendMessage", chat_id=group["id"], since=since, timeout=20)
    assert reply["result"]["reply_to_message"]["message_id"] == doc["message_id"]
    plain = text_of(reply)
    assert "Correct: 2" in plain and "Wrong: 2" in plain and "Final Score: -4" in plain
    assert "Mode: tools" in plain.splitlines()


async def test_document_with_score_caption(bot: Bot) -> None:
    group = bot.api.group_chat(-1004005, "Lab E")
    ann = bot.api.user(4006, "Ann")
    doc = await bot.api.send_document(
        group,
        ann,
        "\n".join(answers(KEY, correct=5)).encode(),
        "run.txt",
        caption=f"/score@{BOT} #think\nmodel: Grok 4.6",
    )
    plain = text_of(await bot.api.reply_to(doc, timeout=20))
    assert "Correct: 5" in plain
    assert "Mode: think" in plain.splitlines() and "Model: Grok 4.6" in plain.splitlines()
    # a caption addressed to another bot is that bot's: no reply, nothing read
    since = bot.api.mark()
    await bot.api.send_document(group, ann, b"1:1\n", "other.txt", caption="/score@OtherBot")
    last = await _in_group(bot, group, ann, f"/score@{BOT}")  # the bot's next reply is this
    assert "Send /score with the model's output" in text_of(last)
    assert not [c for c in bot.api.calls[since:] if c["method"] == "getFile"]


async def test_an_anonymous_admin_is_asked_to_post_as_themselves(bot: Bot) -> None:
    group = bot.api.group_chat(-1004009, "Lab I")
    anonymous = {"id": 1087968824, "is_bot": True, "first_name": "Group",
                 "username": "GroupAnonymousBot"}  # fmt: skip
    update = bot.api.make_text_update(group, anonymous, f"/score@{BOT} #think\n1:1\n2:2")
    message = {**update["message"], "sender_chat": group}
    await bot.api.send_raw_update("message", message)
    reply = await bot.api.wait_for(
        lambda c: c["method"] == "sendMessage" and c["params"]["chat_id"] == group["id"],
        timeout=20,
    )
    assert "Remain anonymous" in text_of(reply) and "nothing was saved" in text_of(reply)


async def test_bare_score_explains_and_plain_text_is_ignored(bot: Bot) -> None:
    group = bot.api.group_chat(-1004006, "Lab F")
    ann = bot.api.user(4007, "Ann")
    since = bot.api.mark()
    await bot.api.send_text(group, ann, "1:1\n2:2")  # not for the bot
    plain = text_of(await _in_group(bot, group, ann, "/score"))
    assert "Send /score with the model's output" in plain
    sent = [c for c in bot.api.calls[since:] if c["method"] == "sendMessage"]
    assert len(sent) == 1, sent


async def test_model_prompt_in_a_group_takes_only_the_reply_to_it(bot: Bot) -> None:
    group = bot.api.group_chat(-1004007, "Lab G")
    ann, bob = bot.api.user(4008, "Ann"), bot.api.user(4009, "Bob")
    reply = await _in_group(bot, group, ann, "/score #think\n1:1")
    sid = submission_id(text_of(reply))
    since = bot.api.mark()
    await bot.press(group, ann, reply, f"model:{sid}")
    prompt = await bot.api.wait_call("sendMessage", chat_id=group["id"], since=since)
    assert prompt["params"]["reply_markup"]["force_reply"] is True
    assert prompt["params"]["reply_markup"].get("selective") is True
    # selective ForceReply only reaches mentioned users: Ann is mentioned.
    assert any(
        e.get("type") == "text_link" and "4008" in e.get("url", "")
        for e in prompt["result"].get("entities", [])
    ), prompt["result"]
    since = bot.api.mark()
    # Bob answering the prompt, and Ann replying to something else, set nothing.
    await bot.api.send_text(group, bob, "bob's model", reply_to=prompt)
    await bot.api.send_text(group, ann, "just chatting", reply_to=reply)
    confirm = await _in_group(bot, group, ann, "Jibay 5 Low", reply_to=prompt)
    assert "Model set: Jibay 5 Low" in text_of(confirm)
    current = await bot.edited(reply, since)
    assert "Model: Jibay 5 Low" in text_of(current).splitlines()
    sent = [c for c in bot.api.calls[since:] if c["method"] == "sendMessage"]
    assert len(sent) == 1, sent


async def test_group_and_global_boards(bot: Bot) -> None:
    lab = bot.api.group_chat(-1004010, "Lab H")
    other = bot.api.group_chat(-1004011, "Lab I")
    ann = bot.api.user(4010, "Ann")
    mark = bot.api.mark()
    reply = await _in_group(
        bot, lab, ann, "/score #think\nmodel: group-model-x\n" + "\n".join(answers(KEY, correct=9))
    )
    sid = submission_id(text_of(reply))
    answer = await bot.press(lab, ann, reply, f"pub:{sid}")
    assert f"Published #{sid}" in answer["text"]

    board = await _in_group(bot, lab, ann, "/leaderboard")
    plain = text_of(board)
    assert "this group" in plain
    assert "1. group-model-x · think · +9 (1 run" in plain
    glob = button(board, "Global")
    since = bot.api.mark()
    await bot.press(lab, ann, board, glob)
    current = await bot.edited(board, since)
    assert "global" in text_of(current) and "group-model-x" in text_of(current)
    assert not any("Global" in label for label in buttons(current).values())
    # and the way back to the group's board
    since = bot.api.mark()
    await bot.press(lab, ann, current, button(current, "Group board"))
    assert "this group" in text_of(await bot.edited(board, since))

    empty = text_of(await _in_group(bot, other, ann, "/leaderboard"))
    assert "group-model-x" not in empty and "No published results yet" in empty

    ann_chat = bot.api.private_chat(ann)
    assert "group-model-x" in text_of(await bot.say(ann_chat, ann, "/leaderboard"))
    bot.check_clean(mark)


async def test_a_group_is_told_how_the_bot_works_there_when_it_joins(bot: Bot) -> None:
    mark = bot.api.mark()
    group = bot.api.group_chat(-1007701, "Eval Club")
    adder = bot.api.user(7701, "Adder", language_code="fa")
    await bot.api.add_bot(group, adder)
    hello = await bot.api.wait_call("sendMessage", chat_id=group["id"], since=mark, timeout=20)
    said = text_of(hello)
    assert "Eval Club" in said and "/score" in said and "/leaderboard" in said
    assert "/weblink" in said and "سلام" in said  # in the language of who added it
    # added through "Add to a group" Telegram also sends /start with the link's payload:
    # the bot has said it already
    since = bot.api.mark()
    await bot.api.send_text(group, adder, f"/start@{BOT} board")
    member = bot.api.user(7702, "Member")
    later = await _in_group(bot, group, member, f"/start@{BOT}")  # typed: said again
    assert "Eval Club" in text_of(later) and "/score" in text_of(later)
    to_group = [c for c in bot.api.calls[since:] if c["method"] == "sendMessage"]
    assert len(to_group) == 1
    bot.check_clean(mark)


async def _handled(bot: Bot, update_id: int, timeout: float = 20.0) -> str:  # noqa: ASYNC109
    """How the bot's log says it handled an update (``ok``, ``error``, …), once it has
    (an update the bot answers nothing leaves no call to wait for)."""
    deadline = time.monotonic() + timeout
    while True:
        for line in bot.proc.log().splitlines():
            entry = json.loads(line) if line.startswith("{") else {}
            if entry.get("msg") == "update handled" and entry.get("update_id") == update_id:
                return str(entry["outcome"])
        assert time.monotonic() < deadline, f"update {update_id} not handled in {timeout}s"
        await asyncio.sleep(0.05)


async def test_a_group_upgraded_to_a_supergroup_keeps_its_board(bot: Bot) -> None:
    basic = bot.api.group_chat(-4012, "Lab J", supergroup=False)
    ann = bot.api.user(4012, "Ann")
    mark = bot.api.mark()
    body = "\n".join(answers(KEY, correct=7))
    reply = await _in_group(bot, basic, ann, f"/score #think\nmodel: upgraded-model\n{body}")
    sid = submission_id(text_of(reply))
    assert f"Published #{sid}" in (await bot.press(basic, ann, reply, f"pub:{sid}"))["text"]
    assert "1. upgraded-model · think · +7 (1 run" in text_of(
        await _in_group(bot, basic, ann, f"/leaderboard@{BOT}")
    )

    # Telegram's two service messages (and the one in the new chat once more, as a
    # redelivery would): the bot says nothing, and handles each
    supergroup, updates = await bot.api.upgrade_group(
        basic, -1004012, ann, messages=("to", "from", "from")
    )
    for update in updates:
        assert await _handled(bot, update["update_id"]) == "ok"
    said = [c for c in bot.api.calls[mark:] if c["params"].get("chat_id") == supergroup["id"]]
    assert said == []

    # the supergroup's board is the group's, and so is its export
    plain = text_of(await _in_group(bot, supergroup, ann, f"/leaderboard@{BOT}"))
    assert "this group" in plain and "1. upgraded-model · think · +7 (1 run" in plain
    msg = await bot.api.send_text(supergroup, ann, f"/export@{BOT}")
    document = (await bot.api.reply_to(msg, timeout=20))["result"]["document"]
    content = bot.api.file_content(document["file_id"])
    assert content is not None
    rows = csv.DictReader(io.StringIO(content.decode("utf-8")))
    assert [r["model"] for r in rows if r["mark"] == "self"] == ["upgraded-model"]
    # and the bot never wrote to the old chat after it was upgraded (Telegram refuses)
    bot.check_clean(mark)

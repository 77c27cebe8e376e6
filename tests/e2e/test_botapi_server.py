"""Tests of the fake Bot API server itself, driven by PTB's own ``telegram.Bot`` in-process."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeChat,
    ChatMemberAdministrator,
    ChatMemberMember,
    ChatMemberOwner,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    MessageEntity,
    Update,
)
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TimedOut,
)
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes
from telegram.request import HTTPXRequest

from .botapi import (
    SECRET_HEADER,
    BotCallTimeout,
    FakeBotAPI,
    UploadedFile,
    command_entities,
    free_port,
    parse_html,
)

JSONDict = dict[str, Any]


@pytest.fixture
async def bot(botapi: FakeBotAPI) -> AsyncIterator[Bot]:
    async with Bot(botapi.token, base_url=botapi.base_url, base_file_url=botapi.file_url) as b:
        yield b


# ------------------------------------------------------------------ pure helpers


def test_parse_html_plain_text_and_entities() -> None:
    text, entities = parse_html(
        '<b>Score</b> &lt;x&gt; &amp; <a href="https://e.x/?a=1&amp;b=2">link</a> '
        '<pre><code class="language-python">print()</code></pre>'
    )
    assert text == "Score <x> & link print()"
    assert entities == [
        {"type": "bold", "offset": 0, "length": 5},
        {"type": "text_link", "url": "https://e.x/?a=1&b=2", "offset": 12, "length": 4},
        {"type": "pre", "language": "python", "offset": 17, "length": 7},
    ]


def test_parse_html_offsets_are_utf16() -> None:
    text, entities = parse_html("😀 <i>ok</i> <blockquote expandable>q</blockquote>")
    assert text == "😀 ok q"
    assert entities[0] == {"type": "italic", "offset": 3, "length": 2}
    assert entities[1] == {"type": "expandable_blockquote", "offset": 6, "length": 1}


@pytest.mark.parametrize(
    "bad",
    [
        "<b>unclosed",
        "a < b",
        "line<br>break",
        "<b><i>x</b></i>",
        "x</b>",
        "<span>no class</span>",
        "<div>x</div>",
        "<tg-emoji>e</tg-emoji>",
    ],
)
def test_parse_html_rejects_bad_markup(bad: str) -> None:
    with pytest.raises(Exception, match="can't parse entities"):
        parse_html(bad)


def test_command_entities_like_telegram() -> None:
    assert command_entities("/start@benchboard_test_bot now") == [
        {"type": "bot_command", "offset": 0, "length": 26}
    ]
    assert command_entities("see /help and a/b") == [
        {"type": "bot_command", "offset": 4, "length": 5}
    ]
    assert command_entities("no command") == []


# ------------------------------------------------------------------ basic methods


async def test_get_me(botapi: FakeBotAPI, bot: Bot) -> None:
    assert bot.username == "benchboard_test_bot"
    assert bot.id == 123456
    me = await bot.get_me()
    assert me.is_bot and me.can_join_groups is True
    assert me.can_read_all_group_messages is False
    assert botapi.calls[0]["method"] == "getMe"


async def test_a_failure_of_the_emulator_itself_fails_the_test_with_its_traceback() -> None:
    api = FakeBotAPI()
    await api.start()

    def broken(params: JSONDict) -> JSONDict:
        raise KeyError("a bug in the emulator")

    api._handlers["getchat"] = ("getChat", broken)
    try:
        async with Bot(api.token, base_url=api.base_url) as b:
            with pytest.raises(NetworkError, match="Internal Server Error"):
                await b.get_chat(1)
    finally:
        with pytest.raises(AssertionError, match=r"(?s)emulator failed.*a bug in the emulator"):
            await api.stop()
    await api.stop()  # reported once


async def test_an_upload_that_arrives_in_pieces_is_read(botapi: FakeBotAPI) -> None:
    # a text field cut after a few bytes, then two bytes, then the rest with a file part
    # longer than aiohttp's read size: the multipart reader takes the path that once
    # failed the emulator (a DeprecationWarning aiohttp raises from its own call)
    user = botapi.user(5, "U")
    chat = botapi.private_chat(user)
    boundary = "XyZbOuNdArY"
    fields = [("chat_id", str(chat["id"])), ("caption", "a card")]
    head = "".join(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{n}"\r\n\r\n{v}\r\n'
        for n, v in fields
    )
    head += (
        f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="c.png"'
        "\r\nContent-Type: image/png\r\n\r\n"
    )
    body = head.encode() + b"\x89PNG" + b"x" * 30_000 + f"\r\n--{boundary}--\r\n".encode()
    host, port = botapi.base_url.split("//")[1].split("/")[0].split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(
        f"POST /bot{botapi.token}/sendPhoto HTTP/1.1\r\nHost: {host}\r\n"
        f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
    )
    cut = body.index(b"a card") + 3
    for piece in (body[:cut], body[cut : cut + 2], body[cut + 2 :]):
        writer.write(piece)
        await writer.drain()
        await asyncio.sleep(0.05)
    answer = await reader.read()
    writer.close()
    assert answer.startswith(b"HTTP/1.1 200"), answer[-200:]
    sent = botapi.messages_in(chat["id"])[-1]
    assert sent["caption"] == "a card"


async def test_wrong_token_is_unauthorized(botapi: FakeBotAPI) -> None:
    wrong = Bot("654321:WRONG", base_url=botapi.base_url, base_file_url=botapi.file_url)
    with pytest.raises(InvalidToken):
        await wrong.initialize()
    await wrong.shutdown()
    assert botapi.calls[-1]["error"] == {"error_code": 401, "description": "Unauthorized"}


async def test_unknown_chat_and_blocked_user(botapi: FakeBotAPI, bot: Bot) -> None:
    with pytest.raises(BadRequest, match=r"(?i)chat not found"):
        await bot.send_message(999, "hi")
    chat = botapi.private_chat(botapi.user(7))
    botapi.block_bot(7)
    with pytest.raises(Forbidden, match=r"(?i)blocked"):
        await bot.send_message(chat["id"], "hi")


async def test_get_chat_and_chat_member(botapi: FakeBotAPI, bot: Bot) -> None:
    ann, bob, cy = botapi.user(1, "Ann"), botapi.user(2, "Bob"), botapi.user(3, "Cy")
    group = botapi.group_chat(-100777, "Lab")
    botapi.set_member_status(group["id"], ann, "creator")
    botapi.set_member_status(group["id"], bob, "administrator")
    assert isinstance(await bot.get_chat_member(group["id"], 1), ChatMemberOwner)
    assert isinstance(await bot.get_chat_member(group["id"], 2), ChatMemberAdministrator)
    assert isinstance(await bot.get_chat_member(group["id"], cy["id"]), ChatMemberMember)
    admins = await bot.get_chat_administrators(group["id"])
    assert {m.user.id for m in admins} == {1, 2}
    info = await bot.get_chat(group["id"])
    assert info.title == "Lab" and info.type == "supergroup"


async def test_a_group_upgraded_to_a_supergroup(botapi: FakeBotAPI, bot: Bot) -> None:
    """The two service messages, and the old chat refused as Telegram refuses it."""
    ann = botapi.user(1, "Ann")
    basic = botapi.group_chat(-4001, "Lab", supergroup=False)
    await bot.send_message(basic["id"], "before")
    supergroup, _ = await botapi.upgrade_group(basic, -1004001, ann)
    assert (supergroup["id"], supergroup["type"], supergroup["title"]) == (
        -1004001,
        "supergroup",
        "Lab",
    )
    updates = await bot.get_updates(timeout=0)
    said = [(u.message.chat.id, u.message.migrate_to_chat_id, u.message.migrate_from_chat_id)
            for u in updates if u.message]  # fmt: skip
    assert said == [(-4001, -1004001, None), (-1004001, None, -4001)]
    with pytest.raises(ChatMigrated) as refused:
        await bot.send_message(basic["id"], "after")
    assert refused.value.new_chat_id == -1004001
    assert (await bot.send_message(supergroup["id"], "after")).chat.type == "supergroup"


# ------------------------------------------------------------------ getUpdates


async def test_get_updates_offsets_confirm(botapi: FakeBotAPI, bot: Bot) -> None:
    ann = botapi.user(1001, "Ann", username="ann")
    chat = botapi.private_chat(ann)
    m1 = await botapi.send_text(chat, ann, "/start")
    await botapi.send_text(chat, ann, "hello", reply_to=m1)

    updates = await bot.get_updates(timeout=0)
    assert [u.message.text for u in updates if u.message] == ["/start", "hello"]
    first = updates[0].message
    assert first is not None and first.from_user is not None
    assert first.from_user.username == "ann"
    assert first.entities == (MessageEntity("bot_command", 0, 6),)
    assert updates[1].message is not None and updates[1].message.reply_to_message is not None

    again = await bot.get_updates(timeout=0)  # not confirmed yet
    assert [u.update_id for u in again] == [u.update_id for u in updates]
    assert await bot.get_updates(offset=updates[0].update_id + 1, timeout=0) == (updates[1],)
    assert await bot.get_updates(offset=updates[1].update_id + 1, timeout=0) == ()
    limited = await bot.get_updates(timeout=0, limit=1)
    assert limited == ()


async def test_get_updates_limit_and_allowed_updates(botapi: FakeBotAPI, bot: Bot) -> None:
    ann = botapi.user(1)
    chat = botapi.private_chat(ann)
    for text in ("a", "b", "c"):
        await botapi.send_text(chat, ann, text)
    assert len(await bot.get_updates(timeout=0, limit=2)) == 2
    # only callback queries: the queued messages are dropped, as Telegram would never send them
    assert await bot.get_updates(timeout=0, allowed_updates=["callback_query"]) == ()


async def test_long_poll_returns_promptly_when_update_arrives(botapi: FakeBotAPI, bot: Bot) -> None:
    ann = botapi.user(1)
    chat = botapi.private_chat(ann)
    poll = asyncio.create_task(bot.get_updates(timeout=5, read_timeout=10))
    await botapi.wait_polling(timeout=2)
    started = time.monotonic()
    await botapi.send_text(chat, ann, "ping")
    updates = await asyncio.wait_for(poll, 2)
    assert time.monotonic() - started < 1
    assert updates[0].message is not None and updates[0].message.text == "ping"


async def test_long_poll_waits_for_timeout(botapi: FakeBotAPI, bot: Bot) -> None:
    started = time.monotonic()
    assert await bot.get_updates(timeout=1) == ()  # Bot API timeouts are whole seconds
    assert 0.95 <= time.monotonic() - started < 2


async def test_second_poller_terminates_the_first(botapi: FakeBotAPI, bot: Bot) -> None:
    first = asyncio.create_task(bot.get_updates(timeout=5, read_timeout=10))
    await botapi.wait_polling(timeout=2)
    # a second bot instance (PTB's getUpdates connection pool holds one request)
    async with Bot(botapi.token, base_url=botapi.base_url) as other:
        second = asyncio.create_task(other.get_updates(timeout=0))
        with pytest.raises(Conflict, match=r"(?i)terminated by other getUpdates"):
            await asyncio.wait_for(first, 2)
        assert await asyncio.wait_for(second, 2) == ()


# ------------------------------------------------------------------ sending messages


async def test_send_message_html(botapi: FakeBotAPI, bot: Bot) -> None:
    chat = botapi.private_chat(botapi.user(1))
    sent = await bot.send_message(
        chat["id"], "<b>Score</b>: 42 &lt;ok&gt;", parse_mode=ParseMode.HTML
    )
    assert sent.text == "Score: 42 <ok>"
    assert sent.entities == (MessageEntity("bold", 0, 5),)
    assert sent.message_id == 1
    call = botapi.calls_of("sendMessage")[-1]
    assert call["params"]["text"] == "<b>Score</b>: 42 &lt;ok&gt;"
    assert call["params"]["chat_id"] == chat["id"]
    assert call["params"]["parse_mode"] == "HTML"

    with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
        await bot.send_message(chat["id"], "user wrote <script>", parse_mode=ParseMode.HTML)
    with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
        await bot.send_message(chat["id"], "<b>x</i>", parse_mode=ParseMode.HTML)
    # without parse_mode the same text is fine
    plain = await bot.send_message(chat["id"], "user wrote <script>")
    assert plain.text == "user wrote <script>" and plain.message_id == 2
    assert [m["text"] for m in botapi.messages_in(chat["id"])] == [
        "Score: 42 <ok>",
        "user wrote <script>",
    ]


async def test_message_length_limit(botapi: FakeBotAPI, bot: Bot) -> None:
    chat = botapi.private_chat(botapi.user(1))
    await bot.send_message(chat["id"], "x" * 4096)
    with pytest.raises(BadRequest, match=r"(?i)message is too long"):
        await bot.send_message(chat["id"], "x" * 4097)
    # measured after entity parsing
    await bot.send_message(chat["id"], "<b>" + "&lt;" * 4096 + "</b>", parse_mode="HTML")
    with pytest.raises(BadRequest, match=r"(?i)message is too long"):
        await bot.send_message(chat["id"], "<i>" + "y" * 4097 + "</i>", parse_mode="HTML")
    with pytest.raises(BadRequest, match=r"(?i)message text is empty"):
        await bot.send_message(chat["id"], "  ")
    assert [c["ok"] for c in botapi.calls_of("sendMessage")] == [True, False, True, False, False]


async def test_flood_control_retry_after(
    botapi: FakeBotAPI, bot: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    # PTB 22 warns (an error here) when RetryAfter.retry_after is an int; opt in to timedelta
    monkeypatch.setenv("PTB_TIMEDELTA", "1")
    chat = botapi.private_chat(botapi.user(1))
    botapi.flood(chat["id"], retry_after=3, times=1)
    with pytest.raises(RetryAfter) as err:
        await bot.send_message(chat["id"], "hi")
    assert err.value.retry_after.total_seconds() == 3  # type: ignore[union-attr]
    assert botapi.calls[-1]["error"]["parameters"] == {"retry_after": 3}
    await bot.send_message(chat["id"], "hi")  # the rule was used up


async def test_injected_faults(botapi: FakeBotAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")
    ann = botapi.user(1001, "Ann")
    chat = botapi.private_chat(ann)
    request = HTTPXRequest(read_timeout=0.5)
    async with Bot(
        botapi.token, base_url=botapi.base_url, base_file_url=botapi.file_url, request=request
    ) as bot:
        botapi.faults(kinds=["500"], times=1)
        with pytest.raises(NetworkError):
            await bot.send_message(chat["id"], "a")
        botapi.faults(kinds=["429"], times=1, retry_after=2)
        with pytest.raises(RetryAfter) as info:
            await bot.send_message(chat["id"], "b")
        assert info.value.retry_after == dt.timedelta(seconds=2)
        botapi.faults(kinds=["timeout"], times=1, delay=1.0)
        with pytest.raises(TimedOut):
            await bot.send_message(chat["id"], "c")
        botapi.faults(kinds=["delivered_timeout"], times=1, delay=1.0)
        with pytest.raises(TimedOut):
            await bot.send_message(chat["id"], "d")
        await bot.send_message(chat["id"], "e")  # the rules are used up
    await asyncio.sleep(1.2)  # the delayed answers are recorded
    # only the delivered time-out and the last call reached the user
    assert [m["text"] for m in botapi.messages_in(chat["id"])] == ["d", "e"]
    assert [f["kind"] for f in botapi.fault_log] == ["500", "429", "timeout", "delivered_timeout"]
    botapi.faults(probability=0.5, seed=3)
    botapi.clear_faults()
    assert botapi._draw_fault("sendMessage", {}) is None


async def test_reply_to_and_wait_for(botapi: FakeBotAPI, bot: Bot) -> None:
    ann = botapi.user(1)
    chat = botapi.private_chat(ann)
    await bot.send_message(chat["id"], "unrelated, before the user's message")
    msg = await botapi.send_text(chat, ann, "/score")

    async def fake_bot_reply() -> None:
        await bot.send_chat_action(chat["id"], "typing")
        await bot.send_message(chat["id"], "Your score: 1", reply_to_message_id=msg["message_id"])

    task = asyncio.create_task(fake_bot_reply())
    reply = await botapi.reply_to(msg, timeout=2)
    await task
    assert reply["result"]["text"] == "Your score: 1"
    assert reply["result"]["reply_to_message"]["message_id"] == msg["message_id"]
    assert reply["params"]["reply_parameters"] == {"message_id": msg["message_id"]}

    mark = botapi.mark()
    with pytest.raises(BadRequest):
        await bot.send_message(chat["id"], "x" * 5000)
    failed = await botapi.wait_call("sendMessage", chat_id=chat["id"], since=mark, ok=False)
    assert "too long" in failed["error"]["description"]
    assert botapi.errors() == [failed]


async def test_reply_to_surfaces_errors_and_times_out(botapi: FakeBotAPI, bot: Bot) -> None:
    ann = botapi.user(1)
    chat = botapi.private_chat(ann)
    msg = await botapi.send_text(chat, ann, "/long")
    with pytest.raises(BadRequest):
        await bot.send_message(chat["id"], "z" * 5000)
    with pytest.raises(BotCallTimeout, match="message is too long"):
        await botapi.reply_to(msg, timeout=1)
    with pytest.raises(
        BotCallTimeout, match=r"timed out after 0\.05s waiting for a matching bot call"
    ):
        await botapi.wait_for(lambda c: c["method"] == "sendPoll", timeout=0.05)
    botapi.abort("bot exited with status 1")
    with pytest.raises(BotCallTimeout, match="bot exited"):
        await botapi.wait_for(lambda c: False, timeout=5)


# ------------------------------------------------------------------ buttons, edits


async def test_callback_query_flow(botapi: FakeBotAPI, bot: Bot) -> None:
    ann = botapi.user(1)
    chat = botapi.private_chat(ann)
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Next", callback_data="lb:2")]])
    sent = await bot.send_message(chat["id"], "Page 1", reply_markup=keyboard)
    bot_msg = botapi.calls_of("sendMessage")[-1]

    query = await botapi.press_button(chat, ann, bot_msg, "lb:2")
    with pytest.raises(ValueError, match="no button"):
        await botapi.press_button(chat, ann, bot_msg, "lb:99")
    (update,) = await bot.get_updates(timeout=0)
    cq = update.callback_query
    assert cq is not None and cq.data == "lb:2" and cq.from_user.id == 1
    assert cq.message is not None and cq.message.message_id == sent.message_id

    assert await cq.answer("Loading")
    answer = await botapi.callback_answer(query, timeout=1)
    assert answer["params"]["text"] == "Loading"
    with pytest.raises(BadRequest, match=r"(?i)query is too old"):
        await cq.answer()

    await bot.edit_message_text("Page 2", chat["id"], sent.message_id, reply_markup=keyboard)
    with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
        await bot.edit_message_text("Page 2", chat["id"], sent.message_id, reply_markup=keyboard)
    # an edit without reply_markup removes the keyboard, as on Telegram
    await bot.edit_message_text("Page 2", chat["id"], sent.message_id)
    (current,) = botapi.messages_in(chat["id"])
    assert current["text"] == "Page 2" and "reply_markup" not in current
    with pytest.raises(ValueError, match="no button"):
        await botapi.press_button(chat, ann, current, "lb:2")
    await bot.edit_message_reply_markup(chat["id"], sent.message_id, reply_markup=keyboard)
    assert botapi.messages_in(chat["id"])[0]["reply_markup"]["inline_keyboard"][0][0]["text"]

    user_msg = await botapi.send_text(chat, ann, "mine")
    with pytest.raises(BadRequest, match=r"(?i)can't be edited"):
        await bot.edit_message_text("hacked", chat["id"], user_msg["message_id"])
    assert await bot.delete_message(chat["id"], sent.message_id)
    with pytest.raises(BadRequest, match=r"(?i)message to delete not found"):
        await bot.delete_message(chat["id"], sent.message_id)
    assert botapi.messages_in(chat["id"]) == []


async def test_callback_data_limit(botapi: FakeBotAPI, bot: Bot) -> None:
    chat = botapi.private_chat(botapi.user(1))
    too_long = InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="é" * 33)]])
    with pytest.raises(BadRequest, match=r"(?i)BUTTON_DATA_INVALID"):
        await bot.send_message(chat["id"], "hi", reply_markup=too_long)


# ------------------------------------------------------------------ files


async def test_send_document_multipart_round_trip(botapi: FakeBotAPI, bot: Bot) -> None:
    chat = botapi.private_chat(botapi.user(1))
    sent = await bot.send_document(
        chat["id"],
        document=b'{"id": 1}\n',
        filename="results.jsonl",
        caption="<b>Results</b>",
        parse_mode="HTML",
    )
    assert sent.document is not None and sent.document.file_name == "results.jsonl"
    assert sent.caption == "Results"
    params = botapi.calls_of("sendDocument")[-1]["params"]
    upload = params["document"]
    assert isinstance(upload, UploadedFile)
    assert (upload.filename, upload.content) == ("results.jsonl", b'{"id": 1}\n')
    assert params["chat_id"] == chat["id"] and params["caption"] == "<b>Results</b>"

    # the bot's own upload can be fetched again
    file = await bot.get_file(sent.document.file_id)
    assert bytes(await file.download_as_bytearray()) == b'{"id": 1}\n'

    photo = await bot.send_photo(chat["id"], photo=b"\x89PNG fake", caption="chart")
    assert photo.photo and photo.caption == "chart"
    assert botapi.calls_of("sendPhoto")[-1]["params"]["photo"].content == b"\x89PNG fake"

    with pytest.raises(BadRequest, match=r"(?i)caption is too long"):
        await bot.send_document(chat["id"], document=b"x", filename="a.txt", caption="c" * 1025)


async def test_get_file_and_download_user_upload(botapi: FakeBotAPI, bot: Bot) -> None:
    ann = botapi.user(1)
    chat = botapi.private_chat(ann)
    content = "answer\tπ\n".encode()
    await botapi.send_document(chat, ann, content, "run.tsv", caption="/score primebench")
    await botapi.send_document(chat, ann, b"", "huge.jsonl", file_size=25 * 1024 * 1024)
    small, huge = await bot.get_updates(timeout=0)
    assert small.message is not None and small.message.document is not None
    doc = small.message.document
    assert (doc.file_name, doc.file_size, doc.mime_type) == ("run.tsv", len(content), "text/plain")
    assert small.message.caption == "/score primebench"
    assert small.message.caption_entities == (MessageEntity("bot_command", 0, 6),)

    file = await doc.get_file()
    assert file.file_size == len(content) and file.file_path is not None
    assert file.file_path.startswith(botapi.file_url)
    assert bytes(await file.download_as_bytearray()) == content

    assert huge.message is not None and huge.message.document is not None
    assert huge.message.document.file_size == 25 * 1024 * 1024
    with pytest.raises(BadRequest, match=r"(?i)file is too big"):
        await huge.message.document.get_file()


# ------------------------------------------------------------------ commands


async def test_set_my_commands_per_language_and_scope(botapi: FakeBotAPI, bot: Bot) -> None:
    await bot.set_my_commands([BotCommand("score", "Score a file")])
    await bot.set_my_commands([BotCommand("score", "Datei bewerten")], language_code="de")
    await bot.set_my_commands(
        [BotCommand("admin", "Admin")], scope=BotCommandScopeChat(42), language_code="en"
    )
    assert [c.description for c in await bot.get_my_commands()] == ["Score a file"]
    assert [c.description for c in await bot.get_my_commands(language_code="de")] == [
        "Datei bewerten"
    ]
    assert await bot.get_my_commands(language_code="fr") == ()
    assert botapi.commands("de") == [{"command": "score", "description": "Datei bewerten"}]
    assert botapi.commands("en", {"type": "chat", "chat_id": 42}) == [
        {"command": "admin", "description": "Admin"}
    ]
    assert botapi.commands("en") is None
    with pytest.raises(BadRequest, match=r"(?i)BOT_COMMAND_INVALID"):
        await bot.set_my_commands([BotCommand("Bad-Name", "x")])
    await bot.delete_my_commands(language_code="de")
    assert botapi.commands("de") is None


async def test_generic_methods_are_recorded(botapi: FakeBotAPI, bot: Bot) -> None:
    chat = botapi.private_chat(botapi.user(1))
    assert await bot.set_my_description("Scores LLM benchmarks")
    assert await bot.send_chat_action(chat["id"], "upload_document")
    with pytest.raises(BadRequest, match=r"(?i)action"):
        await bot.send_chat_action(chat["id"], "dancing")
    assert [c["method"] for c in botapi.calls[-3:]] == [
        "setMyDescription",
        "sendChatAction",
        "sendChatAction",
    ]
    assert botapi.calls[-3]["params"] == {"description": "Scores LLM benchmarks"}


# ------------------------------------------------------------------ webhook


class Receiver:
    """A tiny webhook endpoint that checks the secret header like PTB's handler."""

    def __init__(self, secret: str) -> None:
        self.secret = secret
        self.received: list[JSONDict] = []
        self.got_one = asyncio.Event()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self.runner: web.AppRunner | None = None

    async def handle(self, request: web.Request) -> web.Response:
        if request.headers.get(SECRET_HEADER) != self.secret:
            return web.Response(status=403)
        self.received.append(await request.json())
        self.got_one.set()
        return web.Response(status=200)

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/hook", self.handle)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", self.port).start()

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()


async def test_webhook_delivery_with_secret(botapi: FakeBotAPI, bot: Bot) -> None:
    receiver = Receiver("s3cret-token")
    await receiver.start()
    try:
        assert await bot.set_webhook(receiver.url, secret_token="s3cret-token")
        info = await bot.get_webhook_info()
        assert info.url == receiver.url and info.pending_update_count == 0
        with pytest.raises(Conflict, match=r"(?i)webhook is active"):
            await bot.get_updates(timeout=0)

        ann = botapi.user(1)
        chat = botapi.private_chat(ann)
        msg = await botapi.send_text(chat, ann, "/start")
        assert receiver.received[-1]["message"]["message_id"] == msg["message_id"]
        assert botapi.webhook_deliveries[-1].status == 200

        raw = botapi.updates[-1]
        assert await botapi.post_raw_update(raw, "wrong") == 403
        assert await botapi.post_raw_update(raw, None) == 403
        assert await botapi.post_raw_update(raw, "s3cret-token") == 200

        assert await bot.delete_webhook()
        await botapi.send_text(chat, ann, "polling again")
        (update,) = await bot.get_updates(timeout=0)
        assert update.message is not None and update.message.text == "polling again"
    finally:
        await receiver.stop()


async def test_webhook_retries_until_receiver_is_up(botapi: FakeBotAPI, bot: Bot) -> None:
    # PTB calls setWebhook *before* its webhook server listens: deliveries must be retried.
    receiver = Receiver("abc")
    await bot.set_webhook(receiver.url, secret_token="abc")
    ann = botapi.user(1)
    chat = botapi.private_chat(ann)
    await botapi.send_text(chat, ann, "early")
    assert botapi.webhook_deliveries[-1].status is None  # connection refused
    info = await bot.get_webhook_info()
    assert info.pending_update_count == 1 and info.last_error_message
    await receiver.start()
    try:
        await asyncio.wait_for(receiver.got_one.wait(), 3)
        assert receiver.received[0]["message"]["text"] == "early"
    finally:
        await receiver.stop()


# ------------------------------------------------------------------ a real PTB Application


async def _start_reply(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_message is not None
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Go", callback_data="go")]])
    await update.effective_message.reply_html(
        f"Hello, <b>{update.effective_user.first_name if update.effective_user else ''}</b>",
        reply_markup=keyboard,
    )


async def _on_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    assert query is not None
    await query.answer()
    await query.edit_message_text(f"pressed {query.data}")


async def test_ptb_application_polling(botapi: FakeBotAPI) -> None:
    app = (
        Application.builder()
        .token(botapi.token)
        .base_url(botapi.base_url)
        .base_file_url(botapi.file_url)
        .build()
    )
    app.add_handler(CommandHandler("start", _start_reply))
    app.add_handler(CallbackQueryHandler(_on_button))
    ann = botapi.user(1, "Ann")
    chat = botapi.private_chat(ann)
    async with app:
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0, timeout=2)
        try:
            await botapi.wait_polling(timeout=5)
            msg = await botapi.send_text(chat, ann, "/start@benchboard_test_bot")
            reply = await botapi.reply_to(msg, timeout=5)
            assert reply["result"]["text"] == "Hello, Ann"
            query = await botapi.press_button(chat, ann, reply, "go")
            await botapi.callback_answer(query, timeout=5)
            await botapi.wait_call("editMessageText", chat_id=chat["id"], timeout=5)
            assert botapi.messages_in(chat["id"])[0]["text"] == "pressed go"
        finally:
            await app.updater.stop()
            await app.stop()
    assert botapi.errors() == []


async def test_ptb_application_webhook(botapi: FakeBotAPI) -> None:
    app = (
        Application.builder()
        .token(botapi.token)
        .base_url(botapi.base_url)
        .base_file_url(botapi.file_url)
        .build()
    )
    app.add_handler(CommandHandler("start", _start_reply))
    port = free_port()
    url = f"http://127.0.0.1:{port}/tg"
    ann = botapi.user(1, "Ann")
    chat = botapi.private_chat(ann)
    async with app:
        await app.start()
        assert app.updater is not None
        await app.updater.start_webhook(
            listen="127.0.0.1", port=port, url_path="tg", webhook_url=url, secret_token="sec"
        )
        try:
            assert await botapi.wait_webhook(timeout=5) == url
            assert botapi.webhook_secret == "sec"
            msg = await botapi.send_text(chat, ann, "/start")
            reply = await botapi.reply_to(msg, timeout=5)
            assert reply["result"]["text"] == "Hello, Ann"
            assert botapi.webhook_deliveries[-1].status == 200
            assert await botapi.post_raw_update(botapi.updates[-1], "wrong") == 403
        finally:
            await app.updater.stop()
            await app.stop()

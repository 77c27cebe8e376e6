"""A local fake Telegram Bot API server that also "plays the user", for end-to-end tests.

The real bot (``benchboard run``, python-telegram-bot 22) is pointed at this server with::

    BENCHBOARD_TOKEN=<api.token>
    BENCHBOARD_API_BASE_URL=<api.base_url>     # http://127.0.0.1:PORT/bot
    BENCHBOARD_API_FILE_URL=<api.file_url>     # http://127.0.0.1:PORT/file/bot

(``api.bot_env()`` returns exactly these three variables). PTB appends the token to the base
URL, so the bot calls ``POST /bot<TOKEN>/<method>`` and downloads files with
``GET /file/bot<TOKEN>/<file_path>``.

What the server accepts (what PTB sends)
---------------------------------------
* ``application/x-www-form-urlencoded`` bodies; ``multipart/form-data`` when files are uploaded
  (also ``attach://name`` references); ``application/json`` bodies and query strings too.
* PTB sends string values raw and every other value JSON-encoded (``chat_id=42``,
  ``reply_markup={"inline_keyboard": ...}``, ``disable_notification=true``). The server decodes
  them back: known string parameters (``text``, ``caption``, ``parse_mode``, ``url``, ...) are
  kept as given, everything else is JSON-decoded when possible.
* Answers are ``{"ok": true, "result": ...}`` or ``{"ok": false, "error_code": N,
  "description": "..."}`` (+ ``parameters.retry_after`` on 429) with the matching HTTP status,
  so PTB raises the same exceptions as against Telegram: 400 ``BadRequest``, 401
  ``InvalidToken``, 403 ``Forbidden``, 409 ``Conflict``, 429 ``RetryAfter``. Dates are in
  seconds. Method names are case-insensitive, like Telegram's.

Telegram rules enforced, so that tests catch real bugs
------------------------------------------------------
* the token (wrong token -> 401 ``Unauthorized``);
* unknown ``chat_id`` -> 400 ``Bad Request: chat not found``; a user who blocked the bot
  (:meth:`FakeBotAPI.block_bot`) -> 403; a group upgraded to a supergroup
  (:meth:`FakeBotAPI.upgrade_group`) -> 400 with ``parameters.migrate_to_chat_id``;
* ``parse_mode=HTML``: only Telegram's tags (b strong i em u ins s strike del a[href] code pre
  tg-spoiler span.tg-spoiler blockquote[expandable] tg-emoji[emoji-id]), properly nested and
  closed, ``<`` must be escaped -> else 400 ``Bad Request: can't parse entities: ...``. The
  stored message gets the plain text and the entities, as Telegram returns them;
* text 1..4096 characters after entity parsing (400 ``message is too long`` / ``message text is
  empty``), captions <= 1024, ``callback_data`` 1..64 bytes (``BUTTON_DATA_INVALID``);
* edits: ``message is not modified`` (an edit without ``reply_markup`` removes the keyboard, as
  on Telegram), ``message to edit not found``, ``message can't be edited`` (user messages);
* ``answerCallbackQuery`` once per query id; ``getFile`` refuses files over 20 MB
  (``file is too big``); ``getUpdates`` while a webhook is set, or a second concurrent
  ``getUpdates`` (two bot instances), -> 409 ``Conflict``;
* optional flood control: :meth:`FakeBotAPI.flood` makes the next N calls for a chat answer
  429 with ``parameters.retry_after``.
* optional faults: :meth:`FakeBotAPI.faults` makes calls fail at random (seeded) with 429,
  500/502, a time-out that has no effect, or a time-out after the call took effect
  ("delivered, then timed out"); :attr:`FakeBotAPI.fault_log` lists what was injected.
* inline mode (``botapi_inline.py``): inline queries, ``answerInlineQuery`` checked as
  Telegram does, chosen results posted with ``via_bot`` and reported to the bot.
Not simulated: MarkdownV2 validation (only HTML is checked), payments.

Test-facing API
---------------
Lifecycle::

    api = FakeBotAPI(token="123456:TEST-TOKEN", bot_username="benchboard_test_bot")
    await api.start()        # binds 127.0.0.1 on a free port; or: async with FakeBotAPI() as api
    api.base_url, api.file_url, api.port, api.bot_env()
    await api.stop()

The user side (each call builds the Telegram object, queues the update for ``getUpdates`` or,
when the bot has set a webhook, POSTs it there and awaits the first delivery attempt)::

    ann = api.user(1001, "Ann", language_code="en", username="ann")   # -> User dict
    chat = api.private_chat(ann)                                      # -> Chat dict
    group = api.group_chat(-100123, "Lab")                            # -> Chat dict (supergroup)
    msg = await api.send_text(chat, ann, "/start")       # -> the user's Message dict
    doc = await api.send_document(chat, ann, b"...", "run.jsonl", caption="/score")
    pic = await api.send_photo(chat, ann, b"...")
    basic = api.group_chat(-4001, "Lab", supergroup=False)            # -> a basic group
    sg, ups = await api.upgrade_group(basic, -1004001, ann)  # -> supergroup, its two updates
    cq = await api.press_button(chat, ann, bot_message, "lb:2")   # -> CallbackQuery dict

Leading (and any other) ``/commands`` get ``bot_command`` entities like Telegram adds them.

The bot side -- every API request is recorded in ``api.calls`` (a list, in order of
completion) as a dict::

    {"index": 7, "method": "sendMessage", "params": {...decoded...}, "ok": True,
     "result": {...} | True | None, "error": None | {"error_code": 400, "description": "..."},
     "abandoned": False}   # True: the client hung up first (a long poll cut at shutdown)

Uploaded files appear in ``params`` as :class:`UploadedFile` (``filename``, ``content`` bytes,
``mime_type``). Waiting (all waits are bounded and raise :class:`BotCallTimeout`, an
``AssertionError`` listing the calls seen so far)::

    call = await api.wait_for(lambda c: c["method"] == "sendMessage", timeout=10, since=0)
    call = await api.wait_call("editMessageText", chat_id=chat["id"], since=mark)
    mark = api.mark()                           # index for ``since=``: only calls after now
    await api.wait_polling()                    # the bot is up: a getUpdates is waiting
    url = await api.wait_webhook()              # the bot has called setWebhook
    await api.wait_until(lambda: ..., timeout=5, what="...")   # any condition on the state
    reply = await api.reply_to(msg)             # next message the bot sends in msg's chat that
                                                # replies to msg or to nothing (private chats)
    reply["result"]["text"]                     # plain text, as Telegram stores it
    reply["params"]["text"]                     # the raw text the bot sent (HTML etc.)
    await api.callback_answer(cq)               # the answerCallbackQuery for that query
    api.messages_in(chat_id)                    # the bot's messages now (after edits/deletes)
    api.errors()                                # calls that got ok=false (not abandoned)
    api.calls_of("sendDocument"); api.message(chat_id, message_id); api.describe()
    api.commands(language_code="", scope=None)  # what setMyCommands stored
    api.set_member_status(chat_id, user, "administrator")   # for getChatMember
    api.block_bot(user_id); api.flood(chat_id, retry_after=1, times=1)
    api.abort("bot process exited")             # make every pending wait fail at once

Webhook mode: after the bot calls ``setWebhook(url, secret_token=...)``, updates are POSTed to
``url`` with ``X-Telegram-Bot-Api-Secret-Token`` and retried (backoff) until a 2xx, as Telegram
does; every attempt is in ``api.webhook_deliveries``. ``await api.post_raw_update(update,
secret)`` POSTs one update with any (or no) secret and returns the HTTP status, so a test can
check that the bot rejects a wrong secret (403). ``api.updates`` holds every update created.

Gotcha for in-process PTB code under ``filterwarnings = error``: PTB 22 emits a
PTBDeprecationWarning when it builds ``RetryAfter`` (and other int-or-timedelta attributes)
unless ``PTB_TIMEDELTA=1`` is set, so set it (``monkeypatch.setenv``) in tests that hit 429.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import html
import itertools
import json
import random
import re
import socket
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, Self

import aiohttp
from aiohttp import web

from .botapi_inline import InlineMode
from .botapi_payments import Payments

JSONDict = dict[str, Any]
Call = dict[str, Any]
Handler = Callable[[JSONDict], Any]

MAX_MESSAGE_LENGTH = 4096
MAX_CAPTION_LENGTH = 1024
MAX_CALLBACK_DATA_BYTES = 64
MAX_CALLBACK_ANSWER_LENGTH = 200
MAX_DOWNLOAD_SIZE = 20 * 1024 * 1024  # getFile limit of the cloud Bot API
MAX_UPLOAD_SIZE = 50 * 1024 * 1024
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"

MemberStatus = Literal["creator", "administrator", "member", "restricted", "left", "kicked"]

# Parameters that are strings in the Bot API: PTB sends them raw (never JSON-encoded), so they
# must not be JSON-decoded ("123" stays "123").
_STRING_PARAMS = frozenset(
    {
        "text",
        "caption",
        "parse_mode",
        "url",
        "secret_token",
        "ip_address",
        "callback_query_id",
        "file_id",
        "inline_message_id",
        "language_code",
        "action",
        "title",
        "description",
        "short_description",
        "name",
        "business_connection_id",
        "message_effect_id",
        "emoji",
        "query",
        "custom_title",
        "sticker",
        "document",
        "photo",
        "audio",
        "video",
        "animation",
        "voice",
        "video_note",
        "thumbnail",
        "certificate",
        "question",
        "address",
        "first_name",
        "last_name",
        "phone_number",
    }
)
_CHAT_ID_PARAMS = frozenset({"chat_id", "from_chat_id"})
# Methods whose success puts a new bot message into a chat.
MESSAGE_METHODS = frozenset(
    {
        "sendMessage",
        "sendDocument",
        "sendPhoto",
        "sendAudio",
        "sendVideo",
        "sendAnimation",
        "sendVoice",
        "sendSticker",
        "sendMediaGroup",
        "copyMessage",
        "forwardMessage",
        "sendPoll",
        "sendLocation",
        "sendContact",
        "sendDice",
        "sendInvoice",
    }
)
_MEDIA_KINDS = {
    "sendDocument": "document",
    "sendPhoto": "photo",
    "sendAudio": "audio",
    "sendVideo": "video",
    "sendAnimation": "animation",
    "sendVoice": "voice",
}
_CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)
# Update types Telegram does not deliver unless asked for explicitly in allowed_updates.
_OPT_IN_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})
_COMMAND_RE = re.compile(r"(?<![\w/])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w@])")
_BOT_COMMAND_NAME_RE = re.compile(r"^[a-z0-9_]{1,32}$")
_SECRET_RE = re.compile(r"^[A-Za-z0-9_-]{1,256}$")


class BotCallTimeout(AssertionError):
    """No bot call matched within the timeout (or :meth:`FakeBotAPI.abort` was called)."""


class ApiError(Exception):
    """Raised inside method handlers; becomes an ``ok: false`` answer."""

    def __init__(self, code: int, description: str, parameters: JSONDict | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters


def _bad_request(detail: str) -> ApiError:
    return ApiError(400, f"Bad Request: {detail}")


@dataclass(frozen=True)
class UploadedFile:
    """A file the bot uploaded with multipart/form-data."""

    filename: str
    content: bytes
    mime_type: str | None = None

    def text(self, encoding: str = "utf-8") -> str:
        return self.content.decode(encoding)


@dataclass
class StoredFile:
    file_id: str
    file_unique_id: str
    file_path: str
    file_size: int
    content: bytes | None  # None: known by id (e.g. sent by URL) but not downloadable


@dataclass(frozen=True)
class WebhookDelivery:
    """One attempt to POST an update to the bot's webhook."""

    update_id: int | None
    url: str
    status: int | None  # None: the connection failed (see ``error``)
    error: str | None = None


@dataclass
class _FloodRule:
    chat_id: int | None
    retry_after: int
    remaining: int
    methods: frozenset[str] | None


#: The emoji a bot may react with (a few of Telegram's list of allowed reactions).
_REACTIONS = frozenset("👍👎❤🔥👏🤔👀🎉🙏✍🏆⚡💯😁🤩👌")

#: What :meth:`FakeBotAPI.faults` can make a call do instead of answering normally.
FaultKind = Literal["429", "500", "502", "timeout", "delivered_timeout", "400", "unreadable"]
FAULT_KINDS: tuple[FaultKind, ...] = ("429", "500", "502", "timeout", "delivered_timeout")


@dataclass
class _FaultRule:
    methods: frozenset[str]
    kinds: tuple[FaultKind, ...]
    probability: float
    remaining: int | None
    rng: random.Random
    delay: float
    retry_after: int


@dataclass
class _StoredMessage:
    message: JSONDict
    from_bot: bool
    deleted: bool = False


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units: the unit of Telegram entity offsets."""
    return len(text.encode("utf-16-le")) // 2


def command_entities(text: str) -> list[JSONDict]:
    """``bot_command`` entities for every ``/command`` (or ``/command@bot``) in ``text``."""
    return [
        {
            "type": "bot_command",
            "offset": utf16_len(text[: m.start()]),
            "length": utf16_len(m.group()),
        }
        for m in _COMMAND_RE.finditer(text)
    ]


# --------------------------------------------------------------------------------------------
# HTML parse mode
# --------------------------------------------------------------------------------------------

_TAG_RE = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)([^<>]*)>")
_ATTR_RE = re.compile(
    r"\s*([A-Za-z_][A-Za-z0-9_-]*)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'>]+)))?\s*"
)
_ENTITY_RE = re.compile(r"&(lt|gt|amp|quot|#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6});")
_SIMPLE_TAGS = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "code": "code",
    "pre": "pre",
}
_ALL_TAGS = frozenset({*_SIMPLE_TAGS, "a", "span", "blockquote", "tg-emoji"})


def _unescape(text: str) -> str:
    def repl(m: re.Match[str]) -> str:
        name = m.group(1)
        if name.startswith(("#x", "#X")):
            return chr(int(name[2:], 16))
        if name.startswith("#"):
            return chr(int(name[1:]))
        return html.unescape(m.group())

    return _ENTITY_RE.sub(repl, text)


def _parse_attrs(raw: str, tag: str, byte_offset: int) -> dict[str, str]:
    attrs: dict[str, str] = {}
    pos = 0
    while pos < len(raw):
        m = _ATTR_RE.match(raw, pos)
        if not m or m.end() == pos:
            raise _bad_request(
                f'can\'t parse entities: Unexpected attribute in tag "{tag}" '
                f"at byte offset {byte_offset}"
            )
        value = next((g for g in m.groups()[1:] if g is not None), "")
        attrs[m.group(1).lower()] = _unescape(value)
        pos = m.end()
    return attrs


def parse_html(text: str) -> tuple[str, list[JSONDict]]:
    """Parse Telegram-flavoured HTML like the Bot API: returns (plain text, entities).

    Raises :class:`ApiError` 400 ``can't parse entities`` on an unsupported tag, an unescaped
    ``<``, or an unbalanced/misnested tag.
    """
    out: list[str] = []
    pos16 = 0  # UTF-16 offset in the plain text
    entities: list[JSONDict] = []
    stack: list[tuple[str, JSONDict | None, int]] = []  # (tag, entity template, start)
    i = 0

    def byte_off(index: int) -> int:
        return len(text[:index].encode("utf-8"))

    def emit(chunk: str) -> None:
        nonlocal pos16
        plain = _unescape(chunk)
        out.append(plain)
        pos16 += utf16_len(plain)

    while i < len(text):
        lt = text.find("<", i)
        if lt == -1:
            emit(text[i:])
            break
        emit(text[i:lt])
        m = _TAG_RE.match(text, lt)
        if m is None:
            raise _bad_request(
                f'can\'t parse entities: Unsupported start tag "" at byte offset {byte_off(lt)}'
            )
        closing, tag, raw_attrs = m.group(1) == "/", m.group(2).lower(), m.group(3)
        if tag not in _ALL_TAGS:
            kind = "end" if closing else "start"
            raise _bad_request(
                f'can\'t parse entities: Unsupported {kind} tag "{tag}" '
                f"at byte offset {byte_off(lt)}"
            )
        if closing:
            if raw_attrs.strip():
                raise _bad_request(
                    f"can't parse entities: Unexpected end tag at byte offset {byte_off(lt)}"
                )
            if not stack:
                raise _bad_request(
                    f"can't parse entities: Unexpected end tag at byte offset {byte_off(lt)}"
                )
            open_tag, opened, start = stack.pop()
            if open_tag != tag:
                raise _bad_request(
                    f"can't parse entities: Unmatched end tag at byte offset {byte_off(lt)}, "
                    f'expected "</{open_tag}>", found "</{tag}>"'
                )
            if opened is not None and pos16 > start:
                if opened["type"] == "code" and stack and stack[-1][0] == "pre":
                    language = opened.get("language")
                    if language and stack[-1][1] is not None:
                        stack[-1][1]["language"] = language
                else:
                    entity = {
                        k: v
                        for k, v in opened.items()
                        if opened["type"] != "code" or k != "language"
                    }
                    entities.append({**entity, "offset": start, "length": pos16 - start})
        else:
            attrs = _parse_attrs(raw_attrs, tag, byte_off(lt))
            template: JSONDict | None
            if tag in _SIMPLE_TAGS:
                template = {"type": _SIMPLE_TAGS[tag]}
                cls = attrs.get("class", "")
                if tag == "code" and cls.startswith("language-"):
                    template["language"] = cls.removeprefix("language-")
            elif tag == "a":
                href = attrs.get("href")
                template = {"type": "text_link", "url": href} if href else None
            elif tag == "span":
                if attrs.get("class") != "tg-spoiler":
                    raise _bad_request(
                        'can\'t parse entities: Tag "span" must have class "tg-spoiler" '
                        f"at byte offset {byte_off(lt)}"
                    )
                template = {"type": "spoiler"}
            elif tag == "blockquote":
                kind = "expandable_blockquote" if "expandable" in attrs else "blockquote"
                template = {"type": kind}
            else:  # tg-emoji
                emoji_id = attrs.get("emoji-id")
                if not emoji_id:
                    raise _bad_request(
                        'can\'t parse entities: Tag "tg-emoji" must have attribute "emoji-id" '
                        f"at byte offset {byte_off(lt)}"
                    )
                template = {"type": "custom_emoji", "custom_emoji_id": emoji_id}
            stack.append((tag, template, pos16))
        i = m.end()
    if stack:
        raise _bad_request(
            "can't parse entities: Can't find end tag corresponding to start tag "
            f'"{stack[-1][0]}"'
        )
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return "".join(out), entities


# --------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _decode_value(key: str, raw: str) -> Any:
    if key in _STRING_PARAMS:
        return raw
    if key in _CHAT_ID_PARAMS:
        try:
            return int(raw)
        except ValueError:
            return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _resolve_attach(value: Any, files: Mapping[str, UploadedFile], used: set[str]) -> Any:
    if isinstance(value, str) and value.startswith("attach://"):
        name = value.removeprefix("attach://")
        if name in files:
            used.add(name)
            return files[name]
        return value
    if isinstance(value, list):
        return [_resolve_attach(v, files, used) for v in value]
    if isinstance(value, dict):
        return {k: _resolve_attach(v, files, used) for k, v in value.items()}
    return value


def _summary(call: Call) -> str:
    params = {
        k: (f"<file {v.filename} {len(v.content)}B>" if isinstance(v, UploadedFile) else v)
        for k, v in call["params"].items()
    }
    status = "ok" if call["ok"] else f"ERROR {call['error']}"
    if call.get("abandoned"):
        status += " (client gone)"
    text = json.dumps(params, ensure_ascii=False, default=str)
    if len(text) > 300:
        text = text[:300] + "..."
    return f"#{call['index']} {call['method']} {text} -> {status}"


class FakeBotAPI(InlineMode, Payments):
    """Fake Telegram Bot API server + user simulator. See the module docstring (inline
    mode: ``botapi_inline.py``)."""

    def __init__(
        self,
        token: str = "123456:TEST-TOKEN",
        bot_username: str = "benchboard_test_bot",
        *,
        bot_id: int | None = None,
        bot_first_name: str = "Benchboard",
        webhook_retry_max_delay: float = 1.0,
        webhook_max_attempts: int = 30,
    ) -> None:
        self.token = token
        self.bot_username = bot_username
        prefix = token.split(":", 1)[0]
        self.bot_id = bot_id if bot_id is not None else int(prefix) if prefix.isdigit() else 1
        self.me: JSONDict = {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": bot_first_name,
            "username": bot_username,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }
        self.webhook_retry_max_delay = webhook_retry_max_delay
        self.webhook_max_attempts = webhook_max_attempts

        self.calls: list[Call] = []
        self.updates: list[JSONDict] = []
        self.webhook_deliveries: list[WebhookDelivery] = []
        self.webhook_url: str | None = None
        self.webhook_secret: str | None = None
        self.webhook_params: JSONDict = {}

        self._users: dict[int, JSONDict] = {}
        self._chats: dict[int, JSONDict] = {}
        self._messages: dict[tuple[int, int], _StoredMessage] = {}
        #: setChatMenuButton's buttons by chat id (None: the default for every chat)
        self.menu_buttons: dict[int | None, JSONDict] = {}
        #: the bot's reactions by (chat id, message id), as setMessageReaction left them
        self.reactions: dict[tuple[int, int], list[str]] = {}
        self._next_message_id: dict[int, int] = {}
        self._files: dict[str, StoredFile] = {}
        self._files_by_path: dict[str, StoredFile] = {}
        #: when set, every file download answers with this HTTP status (500: a fault)
        self.download_status: int | None = None
        self._file_counter = itertools.count(1)
        self._callback_queries: dict[str, JSONDict] = {}
        self._callback_counter = itertools.count(1)
        self._commands: dict[tuple[str, str], list[JSONDict]] = {}
        self._members: dict[tuple[int, int], MemberStatus] = {}
        #: groups upgraded to supergroups: old chat id -> new chat id
        self._migrated: dict[int, int] = {}
        self._blocked: set[int] = set()
        self._flood_rules: list[_FloodRule] = []
        self._fault_rules: list[_FaultRule] = []
        #: every injected fault: {"method", "kind", "chat_id", "index"} (index: of the call)
        self.fault_log: list[JSONDict] = []
        self._user_message_marks: dict[tuple[int, int], int] = {}

        self._pending: list[JSONDict] = []  # updates not yet confirmed (offset / webhook 2xx)
        self._next_update_id = 100_000
        self._allowed_updates: list[str] = []
        self._poll_generation = 0
        self._waiting_polls = 0
        self._webhook_last_error: tuple[int, str] | None = None
        self._delivery_waiters: dict[int, asyncio.Future[WebhookDelivery]] = {}

        self._calls_changed = asyncio.Event()
        self._updates_changed = asyncio.Event()
        self._abort_reason: str | None = None
        #: tracebacks of the emulator's own failures (see ``_handle_api``)
        self.internal_errors: list[str] = []
        self._closing = False

        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self._webhook_task: asyncio.Task[None] | None = None
        self.port = 0

        self._inline_init()
        self._payments_init()
        self._handlers: dict[str, tuple[str, Handler]] = {}
        for name, handler in self._method_table().items():
            self._handlers[name.lower()] = (name, handler)

    # ------------------------------------------------------------------ lifecycle

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def file_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/file/bot"

    def bot_env(self) -> dict[str, str]:
        """Environment variables that point the benchboard bot at this server."""
        return {
            "BENCHBOARD_TOKEN": self.token,
            "BENCHBOARD_API_BASE_URL": self.base_url,
            "BENCHBOARD_API_FILE_URL": self.file_url,
        }

    async def start(self) -> None:
        app = web.Application(client_max_size=MAX_UPLOAD_SIZE + 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle_api)
        app.router.add_get("/file/bot{token}/{path:.+}", self._handle_file)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0)
        await self._runner.setup()
        # Port 0 and read back the bound port; retry once on the rare collision.
        for attempt in range(5):
            port = free_port()
            site = web.TCPSite(self._runner, "127.0.0.1", port)
            try:
                await site.start()
            except OSError:
                if attempt == 4:
                    raise
                continue
            self.port = port
            break
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10))
        self._webhook_task = asyncio.create_task(self._webhook_worker())

    async def stop(self) -> None:
        self._closing = True
        self._notify_updates()
        if self._webhook_task is not None:
            self._webhook_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._webhook_task
            self._webhook_task = None
        for fut in self._delivery_waiters.values():
            if not fut.done():
                fut.cancel()
        self._delivery_waiters.clear()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._session is not None:
            await self._session.close()
            self._session = None
        if self.internal_errors:
            failures, self.internal_errors = self.internal_errors, []
            raise AssertionError("the Bot API emulator failed:\n" + "\n".join(failures))

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    # ------------------------------------------------------------------ configuration

    def set_member_status(self, chat_id: int, user: JSONDict | int, status: MemberStatus) -> None:
        """What ``getChatMember(chat_id, user)`` answers (default: ``member``)."""
        user_id = user if isinstance(user, int) else int(user["id"])
        self._members[(chat_id, user_id)] = status

    def block_bot(self, user_id: int, blocked: bool = True) -> None:
        """The user blocked the bot: sends to their private chat answer 403."""
        if blocked:
            self._blocked.add(user_id)
        else:
            self._blocked.discard(user_id)

    def flood(
        self,
        chat_id: int | None,
        retry_after: int = 1,
        *,
        times: int = 1,
        methods: Iterable[str] | None = None,
    ) -> None:
        """The next ``times`` calls for ``chat_id`` (None: any chat) answer 429 retry_after.

        ``methods`` limits the rule to those method names (default: every method that takes
        a ``chat_id``).
        """
        self._flood_rules.append(
            _FloodRule(chat_id, retry_after, times, frozenset(methods) if methods else None)
        )

    def faults(
        self,
        *,
        methods: Iterable[str] = ("sendMessage",),
        kinds: Iterable[FaultKind] = FAULT_KINDS,
        probability: float = 1.0,
        times: int | None = None,
        seed: int = 0,
        delay: float = 7.0,
        retry_after: int = 1,
    ) -> None:
        """Make calls of ``methods`` fail, each with ``probability`` (at most ``times``).

        The kind is drawn from ``kinds`` with a generator seeded by ``seed``:

        * ``"429"``: Too Many Requests with ``parameters.retry_after``;
        * ``"500"`` / ``"502"``: a server error; the call has no effect;
        * ``"timeout"``: the answer comes after ``delay`` seconds (longer than the
          client waits) and the call has no effect;
        * ``"400"``: Bad Request, a refusal that no retry changes (not in the default
          ``kinds``);
        * ``"unreadable"``: the call takes effect, and its answer is cut short (a 200
          whose JSON ends halfway; not in the default ``kinds``);
        * ``"delivered_timeout"``: the call takes effect (the user sees the message),
          then the answer comes after ``delay`` seconds, as when Telegram delivered a
          message but the connection dropped before the answer.

        Injected faults are listed in :attr:`fault_log`. :meth:`clear_faults` ends them.
        """
        self._fault_rules.append(
            _FaultRule(
                frozenset(methods),
                tuple(kinds),
                probability,
                times,
                random.Random(seed),
                delay,
                retry_after,
            )
        )

    def clear_faults(self) -> None:
        self._fault_rules.clear()

    def _draw_fault(self, method: str, params: JSONDict) -> FaultKind | None:
        for rule in self._fault_rules:
            if method not in rule.methods or rule.remaining == 0:
                continue
            if rule.rng.random() >= rule.probability:
                continue
            if rule.remaining is not None:
                rule.remaining -= 1
            kind = rule.rng.choice(rule.kinds)
            self.fault_log.append(
                {
                    "method": method,
                    "kind": kind,
                    "chat_id": params.get("chat_id"),
                    "index": len(self.calls),
                    "retry_after": rule.retry_after,
                    "delay": rule.delay,
                }
            )
            return kind
        return None

    def abort(self, reason: str) -> None:
        """Make every current and future wait fail now (e.g. the bot process died)."""
        self._abort_reason = reason
        self._notify_calls()

    # ------------------------------------------------------------------ user side

    def user(
        self,
        user_id: int,
        first_name: str = "Ann",
        language_code: str | None = "en",
        username: str | None = None,
        *,
        last_name: str | None = None,
        is_premium: bool | None = None,
    ) -> JSONDict:
        """A Telegram ``User`` (registered, so getChatMember/getChat know it)."""
        user: JSONDict = {"id": user_id, "is_bot": False, "first_name": first_name}
        if last_name is not None:
            user["last_name"] = last_name
        if username is not None:
            user["username"] = username
        if language_code is not None:
            user["language_code"] = language_code
        if is_premium is not None:
            user["is_premium"] = is_premium
        self._users[user_id] = user
        return user

    def private_chat(self, user: JSONDict) -> JSONDict:
        chat: JSONDict = {"id": user["id"], "type": "private", "first_name": user["first_name"]}
        for key in ("last_name", "username"):
            if key in user:
                chat[key] = user[key]
        self._chats[chat["id"]] = chat
        return chat

    def group_chat(
        self, chat_id: int, title: str, *, supergroup: bool = True, forum: bool = False
    ) -> JSONDict:
        """A group chat (use a negative id, e.g. -100123, as Telegram does); ``forum``: a
        supergroup with topics (see ``thread`` of :meth:`send_text`)."""
        chat: JSONDict = {"id": chat_id, "type": "supergroup" if supergroup else "group"}
        chat["title"] = title
        if forum:
            chat["is_forum"] = True
        self._chats[chat_id] = chat
        return chat

    def make_text_update(
        self,
        chat: JSONDict,
        user: JSONDict,
        text: str,
        *,
        reply_to: JSONDict | None = None,
        entities: list[JSONDict] | None = None,
        thread: int | None = None,
    ) -> JSONDict:
        """Build (and register) a user's text message update without sending it;
        ``thread``: the forum topic it is written in."""
        message = self._new_user_message(chat, user, reply_to)
        message["text"] = text
        if thread is not None:
            message["message_thread_id"] = thread
            message["is_topic_message"] = True
        ents = entities if entities is not None else command_entities(text)
        if ents:
            message["entities"] = ents
        return self._new_update("message", message)

    async def send_text(
        self,
        chat: JSONDict,
        user: JSONDict,
        text: str,
        *,
        reply_to: JSONDict | None = None,
        entities: list[JSONDict] | None = None,
        thread: int | None = None,
    ) -> JSONDict:
        """The user sends ``text`` (in the forum topic ``thread``); returns the user's
        Message."""
        update = self.make_text_update(
            chat, user, text, reply_to=reply_to, entities=entities, thread=thread
        )
        await self._dispatch(update)
        return dict(update["message"])

    async def add_bot(self, chat: JSONDict, user: JSONDict) -> JSONDict:
        """``user`` adds the bot to the group ``chat``: the ``my_chat_member`` update
        (left → member) Telegram sends; returns it."""
        self._users.setdefault(int(user["id"]), user)
        bot = {k: v for k, v in self.me.items() if k in ("id", "is_bot", "first_name", "username")}
        change = {
            "chat": chat,
            "from": user,
            "date": int(time.time()),
            "old_chat_member": {"status": "left", "user": bot},
            "new_chat_member": {"status": "member", "user": bot},
        }
        update = self._new_update("my_chat_member", change)
        await self._dispatch(update)
        return change

    async def upgrade_group(
        self,
        chat: JSONDict,
        new_id: int,
        user: JSONDict,
        *,
        messages: Sequence[str] = ("to", "from"),
    ) -> tuple[JSONDict, list[JSONDict]]:
        """``user`` upgrades the basic group ``chat`` to a supergroup, whose id is
        ``new_id`` (``-100…``): the service messages Telegram sends, ``"to"`` (in the old
        chat, with ``migrate_to_chat_id``) and ``"from"`` (in the new one, with
        ``migrate_from_chat_id``), in the order ``messages`` names them (either may be
        left out or named twice). From now on a call for the old chat answers 400
        ``group chat was upgraded to a supergroup chat`` with
        ``parameters.migrate_to_chat_id``, as Telegram's does. Returns the supergroup
        and the updates sent."""
        old_id = int(chat["id"])
        supergroup = self.group_chat(new_id, str(chat.get("title", "")), supergroup=True)
        self._migrated[old_id] = new_id
        updates = []
        for side in messages:
            if side == "to":
                message = self._new_user_message(chat, user, None)
                message["migrate_to_chat_id"] = new_id
            elif side == "from":
                message = self._new_user_message(supergroup, user, None)
                message["migrate_from_chat_id"] = old_id
            else:
                raise ValueError(f"a migration's message is 'to' or 'from', not {side!r}")
            update = self._new_update("message", message)
            await self._dispatch(update)
            updates.append(update)
        return supergroup, updates

    async def edit_text(self, message: JSONDict, text: str) -> JSONDict:
        """The user edits one of their text messages; returns the edited Message."""
        edited = dict(message)
        edited["text"] = text
        edited["edit_date"] = int(time.time())
        ents = command_entities(text)
        if ents:
            edited["entities"] = ents
        else:
            edited.pop("entities", None)
        update = self._new_update("edited_message", edited)
        await self._dispatch(update)
        return edited

    async def send_document(
        self,
        chat: JSONDict,
        user: JSONDict,
        content: bytes,
        filename: str,
        *,
        caption: str | None = None,
        mime_type: str = "text/plain",
        file_size: int | None = None,
        reply_to: JSONDict | None = None,
    ) -> JSONDict:
        """The user uploads a document (downloadable via getFile unless > 20 MB).

        ``file_size`` overrides the size Telegram reports, e.g. to claim 25 MB cheaply.
        """
        message = self._new_user_message(chat, user, reply_to)
        stored = self._store_file(content, f"documents/{filename}", file_size)
        message["document"] = {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "file_name": filename,
            "mime_type": mime_type,
            "file_size": stored.file_size,
        }
        self._add_caption(message, caption)
        update = self._new_update("message", message)
        await self._dispatch(update)
        return dict(message)

    async def send_photo(
        self,
        chat: JSONDict,
        user: JSONDict,
        content: bytes,
        *,
        caption: str | None = None,
        width: int = 800,
        height: int = 600,
        reply_to: JSONDict | None = None,
    ) -> JSONDict:
        """The user sends a photo (one PhotoSize)."""
        message = self._new_user_message(chat, user, reply_to)
        stored = self._store_file(content, "photos/photo.jpg", None)
        message["photo"] = [self._photo_size(stored, width, height)]
        self._add_caption(message, caption)
        update = self._new_update("message", message)
        await self._dispatch(update)
        return dict(message)

    async def send_media(
        self,
        chat: JSONDict,
        user: JSONDict,
        kind: str,
        *,
        caption: str | None = None,
        reply_to: JSONDict | None = None,
    ) -> JSONDict:
        """The user sends a sticker, a voice message, a video or an audio file (a small
        stored file of that kind)."""
        message = self._new_user_message(chat, user, reply_to)
        stored = self._store_file(b"\x00media", f"{kind}s/file", None)
        media: JSONDict = {"file_id": stored.file_id, "file_unique_id": stored.file_unique_id}
        if kind == "sticker":
            media |= {"type": "regular", "width": 512, "height": 512, "is_animated": False,
                      "is_video": False}  # fmt: skip
        elif kind in ("voice", "audio", "video"):
            media["duration"] = 3
            if kind == "video":
                media |= {"width": 640, "height": 480}
        message[kind] = media
        self._add_caption(message, caption)
        update = self._new_update("message", message)
        await self._dispatch(update)
        return dict(message)

    async def press_button(
        self,
        chat: JSONDict,
        user: JSONDict,
        message: JSONDict,
        callback_data: str,
        *,
        check_button: bool = True,
    ) -> JSONDict:
        """The user presses an inline button of a bot message; returns the CallbackQuery.

        ``message`` may be a Message dict or a recorded call (its ``result`` is used). The
        current version of the message is used (after edits); with ``check_button`` the
        message must still exist and carry a button with this ``callback_data``.
        """
        update = self.make_callback_update(
            chat, user, message, callback_data, check_button=check_button
        )
        await self._dispatch(update)
        return dict(update["callback_query"])

    def make_callback_update(
        self,
        chat: JSONDict,
        user: JSONDict,
        message: JSONDict,
        callback_data: str,
        *,
        check_button: bool = True,
    ) -> JSONDict:
        """Build (and register) the update of a button press (as :meth:`press_button`)
        without sending it; its ``callback_query`` is what :meth:`callback_answer` takes."""
        msg = self._as_message(message)
        key = (int(chat["id"]), int(msg["message_id"]))
        stored = self._messages.get(key)
        current = stored.message if stored is not None else msg
        if check_button:
            if stored is None or stored.deleted:
                raise ValueError(f"message {key} does not exist (deleted?)")
            rows = current.get("reply_markup", {}).get("inline_keyboard", [])
            datas = [b.get("callback_data") for row in rows for b in row]
            if callback_data not in datas:
                raise ValueError(
                    f"message {key} has no button with callback_data {callback_data!r}; "
                    f"buttons: {datas}"
                )
        self._users.setdefault(int(user["id"]), user)
        query_id = f"{next(self._callback_counter)}{int(user['id']) % 100_000:05d}"
        query: JSONDict = {
            "id": query_id,
            "from": user,
            "message": current,
            "chat_instance": str(abs(hash(("chat", chat["id"]))) % 10**12),
            "data": callback_data,
        }
        self._callback_queries[query_id] = {"answered": False}
        return self._new_update("callback_query", query)

    async def send_raw_update(self, kind: str, payload: JSONDict) -> JSONDict:
        """Queue an update of ``kind`` (``message``, ``callback_query``, ...) with
        ``payload`` exactly as given (no checks: forged ids, odd fields); returns the
        update. A ``callback_query`` payload's ``id`` is registered for answering."""
        if kind == "callback_query" and "id" in payload:
            self._callback_queries[str(payload["id"])] = {"answered": False}
        message = payload.get("message", payload)
        chat, user = message.get("chat"), message.get("from")
        if isinstance(chat, dict) and isinstance(chat.get("id"), int):
            self._chats.setdefault(chat["id"], chat)  # the chat exists, as in Telegram
        if isinstance(user, dict) and isinstance(user.get("id"), int):
            self._users.setdefault(user["id"], user)
        for known in (message, message.get("reply_to_message")):  # they exist too
            if isinstance(chat, dict) and isinstance(known, dict):
                key = (chat.get("id"), known.get("message_id"))
                if all(isinstance(k, int) for k in key):
                    self._messages.setdefault(key, _StoredMessage(known, False))  # type: ignore[arg-type]
        update = self._new_update(kind, payload)
        await self._dispatch(update)
        return update

    async def queue_update(self, update: JSONDict) -> None:
        """Queue ``update`` exactly as given, its ``update_id`` included (one Telegram
        would never send, say): the next getUpdates returns it with the others."""
        self.updates.append(update)
        await self._dispatch(update)

    async def send_update(self, update: JSONDict) -> None:
        """Send an update built with :meth:`make_text_update` (or the like)."""
        await self._dispatch(update)

    def delete_message(self, message: JSONDict) -> None:
        """Someone deletes ``message`` (its author, a group's admin, another bot that
        cleans up commands): Telegram tells the bot nothing, and a reply to it is refused
        from now on ("message to be replied not found") unless the call allows sending
        without the reply."""
        msg = self._as_message(message)
        self._messages[(int(msg["chat"]["id"]), int(msg["message_id"]))].deleted = True

    def callback_answered(self, query_id: str) -> bool:
        """Whether the bot answered the callback query ``query_id``."""
        query = self._callback_queries.get(str(query_id))
        return bool(query and query["answered"])

    async def post_raw_update(
        self, update: JSONDict, secret: str | None, *, url: str | None = None
    ) -> int:
        """POST ``update`` to the bot's webhook (or ``url``) with ``secret`` as header (None:
        no header); returns the HTTP status. Not queued, not retried."""
        target = url or self.webhook_url
        if target is None:
            raise RuntimeError("the bot has not set a webhook and no url was given")
        delivery = await self._post_update(target, update, secret)
        if delivery.status is None:
            raise ConnectionError(f"webhook POST to {target} failed: {delivery.error}")
        return delivery.status

    # ------------------------------------------------------------------ observing the bot

    def mark(self) -> int:
        """The index the next recorded call will get (for ``since=``)."""
        return len(self.calls)

    async def wait_for(
        self,
        predicate: Callable[[Call], bool],
        timeout: float = 10.0,  # noqa: ASYNC109 - the documented, bounded test API
        *,
        since: int = 0,
    ) -> Call:
        """First recorded call at index >= ``since`` matching ``predicate``; waits for new
        calls up to ``timeout`` seconds, then raises :class:`BotCallTimeout`."""
        index = since
        found: list[Call] = []

        def check() -> bool:
            nonlocal index
            while index < len(self.calls):
                call = self.calls[index]
                index += 1
                if predicate(call):
                    found.append(call)
                    return True
            return False

        await self.wait_until(check, timeout, what=f"a matching bot call (since #{since})")
        return found[0]

    async def wait_until(
        self,
        condition: Callable[[], bool],
        timeout: float = 10.0,  # noqa: ASYNC109
        *,
        what: str = "condition",
    ) -> None:
        """Wait until ``condition()`` is true; re-checked after every recorded call and every
        change of the polling state. Raises :class:`BotCallTimeout` after ``timeout``."""
        try:
            async with asyncio.timeout(timeout):
                while True:
                    if self._abort_reason is not None:
                        raise BotCallTimeout(f"aborted: {self._abort_reason}\n{self.describe()}")
                    if condition():
                        return
                    self._calls_changed.clear()
                    await self._calls_changed.wait()
        except TimeoutError:
            raise BotCallTimeout(
                f"timed out after {timeout}s waiting for {what}.\n{self.describe()}"
            ) from None

    @property
    def polling(self) -> bool:
        """True while a getUpdates request is waiting (the bot is up and long polling)."""
        return self._waiting_polls > 0

    async def wait_polling(self, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        """Wait until the bot is long polling (a getUpdates is waiting for updates)."""
        await self.wait_until(
            lambda: self.polling, timeout, what="a waiting getUpdates (bot polling)"
        )

    async def wait_webhook(self, timeout: float = 10.0) -> str:  # noqa: ASYNC109
        """Wait until the bot has set a webhook; returns its url."""
        await self.wait_until(lambda: self.webhook_url is not None, timeout, what="setWebhook")
        assert self.webhook_url is not None
        return self.webhook_url

    async def wait_call(
        self,
        method: str,
        *,
        chat_id: int | None = None,
        since: int = 0,
        timeout: float = 10.0,  # noqa: ASYNC109
        ok: bool | None = None,
    ) -> Call:
        """First call of ``method`` (optionally in ``chat_id``, with this ``ok``)."""

        def match(call: Call) -> bool:
            return (
                call["method"] == method
                and (chat_id is None or self._call_chat_id(call) == chat_id)
                and (ok is None or call["ok"] is ok)
            )

        return await self.wait_for(match, timeout, since=since)

    async def reply_to(
        self,
        message: JSONDict,
        timeout: float = 10.0,  # noqa: ASYNC109
        *,
        allow_errors: bool = False,
    ) -> Call:
        """The next message call (sendMessage, sendDocument, ...) the bot makes in the chat of
        the user's ``message`` after it was sent, replying to it or to no message.

        A matching call that Telegram rejected raises :class:`BotCallTimeout` with the error at
        once, unless ``allow_errors`` (then the failed call is returned).
        """
        chat_id = int(message["chat"]["id"])
        message_id = int(message["message_id"])
        since = self._user_message_marks.get((chat_id, message_id), 0)

        def match(call: Call) -> bool:
            if call["method"] not in MESSAGE_METHODS or self._call_chat_id(call) != chat_id:
                return False
            target = self._reply_target(call["params"])
            return target is None or target == message_id

        call = await self.wait_for(match, timeout, since=since)
        if not call["ok"] and not allow_errors:
            raise BotCallTimeout(
                f"the bot's reply to message {message_id} failed: {call['error']}\n{_summary(call)}"
            )
        return call

    async def callback_answer(
        self,
        query: JSONDict,
        timeout: float = 10.0,  # noqa: ASYNC109
    ) -> Call:
        """The bot's answerCallbackQuery for ``query`` (a dict from :meth:`press_button`)."""
        return await self.wait_for(
            lambda c: (
                c["method"] == "answerCallbackQuery"
                and str(c["params"].get("callback_query_id")) == query["id"]
            ),
            timeout,
        )

    def messages_in(
        self, chat_id: int, *, include_user: bool = False, include_deleted: bool = False
    ) -> list[JSONDict]:
        """The bot's messages in a chat, current version (after edits), by message_id."""
        found = [
            stored.message
            for (cid, _mid), stored in sorted(self._messages.items())
            if cid == chat_id
            and (include_user or stored.from_bot)
            and (include_deleted or not stored.deleted)
        ]
        return found

    def message(self, chat_id: int, message_id: int) -> JSONDict | None:
        stored = self._messages.get((chat_id, message_id))
        return stored.message if stored is not None else None

    def errors(self) -> list[Call]:
        """Calls answered ok=false (not counting answers nobody was waiting for anymore)."""
        return [c for c in self.calls if not c["ok"] and not c["abandoned"]]

    def calls_of(self, method: str) -> list[Call]:
        return [c for c in self.calls if c["method"] == method]

    def commands(
        self, language_code: str = "", scope: JSONDict | None = None
    ) -> list[JSONDict] | None:
        """The command list stored by setMyCommands for this scope + language (None: unset)."""
        return self._commands.get((self._scope_key(scope), language_code))

    def forget_file(self, file_id: str) -> None:
        """Make ``file_id`` unknown, as to another bot (a database moved to a new token):
        sending it again is refused with "wrong file identifier"."""
        self._files.pop(file_id, None)

    def file_content(self, file_id: str) -> bytes | None:
        stored = self._files.get(file_id)
        return stored.content if stored is not None else None

    def describe(self, last: int = 30) -> str:
        """The last ``last`` calls, one line each (used in timeout messages)."""
        lines = [_summary(c) for c in self.calls[-last:]]
        return "bot calls so far:\n  " + ("\n  ".join(lines) if lines else "(none)")

    # ------------------------------------------------------------------ internals: updates

    def _new_user_message(
        self, chat: JSONDict, user: JSONDict, reply_to: JSONDict | None
    ) -> JSONDict:
        chat_id = int(chat["id"])
        self._users.setdefault(int(user["id"]), user)
        self._chats.setdefault(chat_id, chat)
        message: JSONDict = {
            "message_id": self._alloc_message_id(chat_id),
            "from": user,
            "chat": chat,
            "date": int(time.time()),
        }
        if reply_to is not None:
            message["reply_to_message"] = self._strip_reply(self._as_message(reply_to))
        self._messages[(chat_id, message["message_id"])] = _StoredMessage(message, False)
        self._user_message_marks[(chat_id, message["message_id"])] = len(self.calls)
        return message

    def _add_caption(self, message: JSONDict, caption: str | None) -> None:
        if caption is not None:
            message["caption"] = caption
            ents = command_entities(caption)
            if ents:
                message["caption_entities"] = ents

    def _new_update(self, kind: str, payload: JSONDict) -> JSONDict:
        self._next_update_id += 1
        update = {"update_id": self._next_update_id, kind: payload}
        self.updates.append(update)
        return update

    async def _dispatch(self, update: JSONDict) -> None:
        """Queue the update; in webhook mode wait for its first delivery attempt."""
        self._pending.append(update)
        if self.webhook_url is None:
            self._notify_updates()
            return
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[WebhookDelivery] = loop.create_future()
        self._delivery_waiters[update["update_id"]] = fut
        self._notify_updates()
        try:
            async with asyncio.timeout(15):
                await fut
        except TimeoutError:
            raise BotCallTimeout(
                f"update {update['update_id']} was not delivered to the webhook within 15s; "
                f"deliveries: {self.webhook_deliveries[-5:]}"
            ) from None
        finally:
            self._delivery_waiters.pop(update["update_id"], None)

    def _notify_updates(self) -> None:
        self._updates_changed.set()
        self._updates_changed = asyncio.Event()

    def _notify_calls(self) -> None:
        self._calls_changed.set()

    def _update_allowed(self, update: JSONDict) -> bool:
        kind = next(k for k in update if k != "update_id")
        if self._allowed_updates:
            return kind in self._allowed_updates
        return kind not in _OPT_IN_UPDATES

    def _drop_disallowed(self) -> None:
        self._pending = [u for u in self._pending if self._update_allowed(u)]

    async def _webhook_worker(self) -> None:
        attempts = 0
        while True:
            self._drop_disallowed()
            url = self.webhook_url
            if url is None or not self._pending:
                attempts = 0
                event = self._updates_changed
                await event.wait()
                continue
            update = self._pending[0]
            delivery = await self._post_update(url, update, self.webhook_secret)
            fut = self._delivery_waiters.get(update["update_id"])
            if fut is not None and not fut.done():
                fut.set_result(delivery)
            ok = delivery.status is not None and 200 <= delivery.status < 300
            if ok or attempts + 1 >= self.webhook_max_attempts:
                if self._pending and self._pending[0] is update:
                    self._pending.pop(0)
                attempts = 0
                if not ok:
                    self._webhook_last_error = (int(time.time()), str(delivery))
                continue
            self._webhook_last_error = (
                int(time.time()),
                delivery.error or f"Wrong response from the webhook: {delivery.status}",
            )
            attempts += 1
            await asyncio.sleep(min(self.webhook_retry_max_delay, 0.02 * 2**attempts))

    async def _post_update(self, url: str, update: JSONDict, secret: str | None) -> WebhookDelivery:
        assert self._session is not None, "FakeBotAPI is not started"
        headers = {SECRET_HEADER: secret} if secret is not None else {}
        update_id = update.get("update_id")
        try:
            async with self._session.post(url, json=update, headers=headers) as resp:
                await resp.read()
                delivery = WebhookDelivery(update_id, url, resp.status)
        except (aiohttp.ClientError, TimeoutError) as exc:
            delivery = WebhookDelivery(update_id, url, None, f"{type(exc).__name__}: {exc}")
        self.webhook_deliveries.append(delivery)
        return delivery

    # ------------------------------------------------------------------ internals: HTTP

    async def _read_params(self, request: web.Request) -> JSONDict:
        raw: dict[str, str] = dict(request.query)
        params: JSONDict = {}
        files: dict[str, UploadedFile] = {}
        ctype = request.content_type
        if request.method == "POST" and request.can_read_body:
            if ctype == "multipart/form-data":
                reader = await request.multipart()
                async for part in reader:
                    if not isinstance(part, aiohttp.BodyPartReader) or part.name is None:
                        continue
                    if part.filename is not None:
                        data = await part.read(decode=True)
                        files[part.name] = UploadedFile(
                            part.filename, bytes(data), part.headers.get("Content-Type")
                        )
                    else:
                        raw[part.name] = await part.text()
            elif ctype == "application/json":
                body = await request.json()
                if not isinstance(body, dict):
                    raise _bad_request("JSON body must be an object")
                params.update(body)
            else:
                form = await request.post()
                for key, value in form.items():
                    if isinstance(value, str):
                        raw[key] = value
        for key, value in raw.items():
            params.setdefault(key, _decode_value(key, value))
        used: set[str] = set()
        params = {k: _resolve_attach(v, files, used) for k, v in params.items()}
        for name, upload in files.items():
            if name not in used:
                params.setdefault(name, upload)
        return params

    async def _handle_api(self, request: web.Request) -> web.Response:
        """A Bot API call. An exception of the emulator's own (not an ``ApiError`` it
        means to answer) is kept with its traceback in :attr:`internal_errors`, printed,
        answered as a Bot API 500, and raised by :meth:`stop`: a test fails on the
        emulator's fault, not on what the bot logged about a bare 500."""
        try:
            return await self._serve_api(request)
        except Exception:
            trace = traceback.format_exc()
            self.internal_errors.append(trace)
            print(f"the Bot API emulator failed on {request.path}:\n{trace}", file=sys.stderr)
            return web.json_response(
                {"ok": False, "error_code": 500, "description": "Internal Server Error"},
                status=500,
            )

    async def _serve_api(self, request: web.Request) -> web.Response:
        requested = request.match_info["method"]
        canonical, handler = self._handlers.get(requested.lower(), (requested, None))
        try:
            params = await self._read_params(request)
        except ApiError as exc:
            return self._finish(canonical, {}, exc)
        except (ValueError, aiohttp.ClientError) as exc:
            return self._finish(canonical, {}, _bad_request(f"can't parse request: {exc}"))
        if request.match_info["token"] != self.token:
            return self._finish(canonical, params, ApiError(401, "Unauthorized"))
        fault = self._draw_fault(canonical, params)
        try:
            self._check_flood(canonical, params)
            if fault is not None and fault not in ("delivered_timeout", "unreadable"):
                await self._inject(fault)
            result = handler(params) if handler is not None else True
            if asyncio.iscoroutine(result):
                result = await result
        except ApiError as exc:
            return self._finish(canonical, params, exc, request=request)
        if fault == "delivered_timeout":
            await asyncio.sleep(self.fault_log[-1]["delay"])
        answer = self._finish(canonical, params, None, result, request=request)
        if fault == "unreadable":  # done, but its answer arrives cut short
            body = answer.body if isinstance(answer.body, bytes) else b"{}"
            return web.Response(body=body[: len(body) // 2], content_type="application/json")
        return answer

    async def _inject(self, fault: FaultKind) -> None:
        """Raise the error of an injected fault (after its delay, for a time-out)."""
        entry = self.fault_log[-1]
        if fault == "429":
            retry_after = entry["retry_after"]
            raise ApiError(
                429, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after}
            )
        if fault == "timeout":
            await asyncio.sleep(entry["delay"])
            raise ApiError(500, "Internal Server Error: timed out")
        if fault == "400":  # a refusal, not transient (drawn only when asked for)
            raise ApiError(400, "Bad Request: refused by the emulator")
        raise ApiError(int(fault), "Internal Server Error" if fault == "500" else "Bad Gateway")

    def _finish(
        self,
        method: str,
        params: JSONDict,
        error: ApiError | None,
        result: Any = None,
        *,
        request: web.Request | None = None,
    ) -> web.Response:
        transport = request.transport if request is not None else None
        call: Call = {
            "index": len(self.calls),
            "method": method,
            "params": params,
            "ok": error is None,
            "result": result if error is None else None,
            "error": None,
            # the client hung up before the answer (e.g. a long poll cut short at shutdown)
            "abandoned": request is not None and (transport is None or transport.is_closing()),
        }
        if error is None:
            body: JSONDict = {"ok": True, "result": result}
            status = 200
        else:
            body = {"ok": False, "error_code": error.code, "description": error.description}
            if error.parameters:
                body["parameters"] = error.parameters
            call["error"] = {k: v for k, v in body.items() if k != "ok"}
            status = error.code
        self.calls.append(call)
        self._notify_calls()
        return web.json_response(body, status=status)

    async def _handle_file(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return web.json_response(
                {"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401
            )
        stored = self._files_by_path.get(request.match_info["path"])
        if self.download_status is not None:
            return web.json_response(
                {"ok": False, "error_code": self.download_status, "description": "Fault"},
                status=self.download_status,
            )
        if stored is None or stored.content is None:
            return web.json_response(
                {"ok": False, "error_code": 404, "description": "Not Found"}, status=404
            )
        return web.Response(body=stored.content, content_type="application/octet-stream")

    # ------------------------------------------------------------------ internals: helpers

    @staticmethod
    def _as_message(obj: JSONDict) -> JSONDict:
        if "method" in obj and "result" in obj:
            result = obj["result"]
            if not isinstance(result, dict):
                raise ValueError(f"call {obj['method']} has no Message result")
            return result
        return obj

    @staticmethod
    def _strip_reply(message: JSONDict) -> JSONDict:
        return {k: v for k, v in message.items() if k != "reply_to_message"}

    @staticmethod
    def _call_chat_id(call: Call) -> int | str | None:
        chat_id = call["params"].get("chat_id")
        return chat_id if chat_id is None or isinstance(chat_id, int) else str(chat_id)

    @staticmethod
    def _reply_target(params: JSONDict) -> int | None:
        reply = params.get("reply_parameters")
        if isinstance(reply, dict) and "message_id" in reply:
            return int(reply["message_id"])
        if params.get("reply_to_message_id") is not None:
            return int(params["reply_to_message_id"])
        return None

    @staticmethod
    def _scope_key(scope: Any) -> str:
        return json.dumps(scope or {"type": "default"}, sort_keys=True)

    def _alloc_message_id(self, chat_id: int) -> int:
        mid = self._next_message_id.get(chat_id, 1)
        self._next_message_id[chat_id] = mid + 1
        return mid

    def _store_file(self, content: bytes | None, path_hint: str, size: int | None) -> StoredFile:
        n = next(self._file_counter)
        directory, _, name = path_hint.rpartition("/")
        stored = StoredFile(
            file_id=f"file-{n:06d}-{abs(hash(path_hint)) % 10**8:08d}",
            file_unique_id=f"uniq{n:06d}",
            file_path=f"{directory or 'documents'}/file_{n}_{name}",
            file_size=size if size is not None else len(content or b""),
            content=content,
        )
        self._files[stored.file_id] = stored
        self._files_by_path[stored.file_path] = stored
        return stored

    @staticmethod
    def _photo_size(stored: StoredFile, width: int, height: int) -> JSONDict:
        return {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "width": width,
            "height": height,
            "file_size": stored.file_size,
        }

    def _check_flood(self, method: str, params: JSONDict) -> None:
        chat_id = params.get("chat_id")
        for rule in self._flood_rules:
            if rule.remaining <= 0:
                continue
            if rule.methods is not None and method not in rule.methods:
                continue
            if rule.methods is None and chat_id is None:
                continue
            if rule.chat_id is not None and chat_id != rule.chat_id:
                continue
            rule.remaining -= 1
            raise ApiError(
                429,
                f"Too Many Requests: retry after {rule.retry_after}",
                {"retry_after": rule.retry_after},
            )

    def _chat(self, params: JSONDict, key: str = "chat_id") -> JSONDict:
        if key not in params:
            raise _bad_request(f"{key} is empty")
        chat_id = params[key]
        if isinstance(chat_id, int) and chat_id in self._migrated:
            raise ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": self._migrated[chat_id]},
            )
        chat = None
        if isinstance(chat_id, int):
            chat = self._chats.get(chat_id)
        elif isinstance(chat_id, str) and chat_id.startswith("@"):
            chat = next((c for c in self._chats.values() if c.get("username") == chat_id[1:]), None)
        if chat is None:
            raise _bad_request("chat not found")
        return chat

    def _sendable_chat(self, params: JSONDict) -> JSONDict:
        chat = self._chat(params)
        if chat["type"] == "private" and chat["id"] in self._blocked:
            raise ApiError(403, "Forbidden: bot was blocked by the user")
        if chat["type"] in ("group", "supergroup"):
            # the bot's own membership (set_member_status with the bot's id)
            status = self._members.get((int(chat["id"]), int(self.me["id"])), "member")
            kind = "supergroup chat" if chat["type"] == "supergroup" else "group chat"
            if status == "kicked":
                raise ApiError(403, f"Forbidden: bot was kicked from the {kind}")
            if status == "left":
                raise ApiError(403, f"Forbidden: bot is not a member of the {kind}")
            if status == "restricted":
                raise _bad_request("not enough rights to send text messages to the chat")
        return chat

    @staticmethod
    def _formatted(
        params: JSONDict, text_key: str, entities_key: str, limit: int, what: str
    ) -> tuple[str, list[JSONDict]]:
        text = params.get(text_key)
        if text is None:
            text = ""
        if not isinstance(text, str):
            text = str(text)
        parse_mode = params.get("parse_mode")
        entities = params.get(entities_key)
        if entities is not None:
            if not isinstance(entities, list):
                raise _bad_request(f"can't parse {entities_key} JSON object")
            plain, ents = text, list(entities)
        elif parse_mode is None or parse_mode == "":
            plain, ents = text, []
        elif str(parse_mode).lower() == "html":
            plain, ents = parse_html(text)
        elif str(parse_mode).lower() in ("markdown", "markdownv2"):
            plain, ents = text, []  # not validated; length measured on the raw text
        else:
            raise _bad_request(f"unsupported parse_mode {parse_mode!r}")
        if len(plain) > limit:
            raise _bad_request(f"{what} is too long")
        return plain, ents

    @staticmethod
    def _check_markup(markup: Any) -> JSONDict | None:
        """Validate reply_markup; returns it if it is an inline keyboard (kept in Message)."""
        if markup is None:
            return None
        if not isinstance(markup, dict):
            raise _bad_request("can't parse reply keyboard markup JSON object")
        if "inline_keyboard" not in markup:
            return None
        rows = markup["inline_keyboard"]
        if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
            raise _bad_request(
                'field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays'
            )
        for row in rows:
            for button in row:
                if not isinstance(button, dict) or not button.get("text"):
                    raise _bad_request("text buttons are unallowed in the inline keyboard")
                data = button.get("callback_data")
                if data is not None and not 1 <= len(str(data).encode()) <= (
                    MAX_CALLBACK_DATA_BYTES
                ):
                    raise _bad_request("BUTTON_DATA_INVALID")
                copy = button.get("copy_text")
                if copy is not None and not (
                    isinstance(copy, dict) and 1 <= len(str(copy.get("text") or "")) <= 256
                ):
                    raise _bad_request("BUTTON_COPY_TEXT_INVALID")
        return markup if rows else None

    def _new_bot_message(self, chat: JSONDict, params: JSONDict) -> JSONDict:
        chat_id = int(chat["id"])
        message: JSONDict = {
            "message_id": 0,
            "from": self.me,
            "chat": chat,
            "date": int(time.time()),
        }
        target = self._reply_target(params)
        if target is not None:
            stored = self._messages.get((chat_id, target))
            reply_params = params.get("reply_parameters")
            allow = isinstance(reply_params, dict) and reply_params.get(
                "allow_sending_without_reply"
            )
            if stored is None or stored.deleted:
                if not (allow or params.get("allow_sending_without_reply")):
                    raise _bad_request("message to be replied not found")
            else:
                message["reply_to_message"] = self._strip_reply(stored.message)
        # a forum topic: the one named, else the replied message's (Telegram's rule);
        # without either, the "General" topic (no thread)
        thread = params.get("message_thread_id")
        if thread is None and "reply_to_message" in message:
            thread = message["reply_to_message"].get("message_thread_id")
        if chat.get("is_forum") and thread is not None:
            message["message_thread_id"] = int(thread)
            message["is_topic_message"] = True
        return message

    def _commit_bot_message(self, message: JSONDict) -> JSONDict:
        chat_id = int(message["chat"]["id"])
        message["message_id"] = self._alloc_message_id(chat_id)
        self._messages[(chat_id, message["message_id"])] = _StoredMessage(message, True)
        return message

    def _target_message(self, params: JSONDict, action: str) -> _StoredMessage:
        if "inline_message_id" in params:
            raise _bad_request("inline messages are not supported by the fake server")
        chat = self._chat(params)
        stored = self._messages.get((int(chat["id"]), int(params.get("message_id", 0))))
        if stored is None or stored.deleted:
            raise _bad_request(f"message to {action} not found")
        if action == "edit" and not stored.from_bot:
            raise _bad_request("message can't be edited")
        return stored

    def _member(self, chat_id: int, user: JSONDict) -> JSONDict:
        status = self._members.get((chat_id, int(user["id"])), "member")
        member: JSONDict = {"status": status, "user": user}
        if status == "creator":
            member["is_anonymous"] = False
        elif status == "administrator":
            member.update(
                can_be_edited=False,
                is_anonymous=False,
                can_manage_chat=True,
                can_delete_messages=True,
                can_manage_video_chats=True,
                can_restrict_members=True,
                can_promote_members=False,
                can_change_info=True,
                can_invite_users=True,
                can_post_stories=False,
                can_edit_stories=False,
                can_delete_stories=False,
                can_pin_messages=True,
            )
        elif status == "restricted":
            member.update(
                is_member=True,
                until_date=0,
                **{
                    perm: False
                    for perm in (
                        "can_change_info",
                        "can_invite_users",
                        "can_pin_messages",
                        "can_send_messages",
                        "can_send_polls",
                        "can_send_other_messages",
                        "can_add_web_page_previews",
                        "can_manage_topics",
                        "can_send_audios",
                        "can_send_documents",
                        "can_send_photos",
                        "can_send_videos",
                        "can_send_video_notes",
                        "can_send_voice_notes",
                        "can_edit_tag",
                    )
                },
            )
        elif status == "kicked":
            member["until_date"] = 0
        return member

    # ------------------------------------------------------------------ Bot API methods

    def _method_table(self) -> dict[str, Handler]:
        return {
            "getMe": lambda p: self.me,
            "logOut": lambda p: True,
            "close": lambda p: True,
            "getUpdates": self._m_get_updates,
            "setWebhook": self._m_set_webhook,
            "deleteWebhook": self._m_delete_webhook,
            "getWebhookInfo": self._m_get_webhook_info,
            "sendMessage": self._m_send_message,
            "editMessageText": self._m_edit_message_text,
            "editMessageCaption": self._m_edit_message_caption,
            "editMessageReplyMarkup": self._m_edit_message_reply_markup,
            "deleteMessage": self._m_delete_message,
            "answerCallbackQuery": self._m_answer_callback_query,
            **{
                name: functools.partial(self._m_send_media, kind=kind)
                for name, kind in _MEDIA_KINDS.items()
            },
            "getFile": self._m_get_file,
            "setMyCommands": self._m_set_my_commands,
            "getMyCommands": self._m_get_my_commands,
            "deleteMyCommands": self._m_delete_my_commands,
            "sendChatAction": self._m_send_chat_action,
            "getChatMember": self._m_get_chat_member,
            "getChatAdministrators": self._m_get_chat_administrators,
            "getChatMemberCount": self._m_get_chat_member_count,
            "getChat": self._m_get_chat,
            "getChatMenuButton": self._m_get_chat_menu_button,
            "setChatMenuButton": self._m_set_chat_menu_button,
            "setMessageReaction": self._m_set_message_reaction,
            "answerInlineQuery": self._m_answer_inline_query,
            "savePreparedInlineMessage": self._m_save_prepared_inline_message,
            **self._payments_methods(),
        }

    async def _m_get_updates(self, p: JSONDict) -> list[JSONDict]:
        if self.webhook_url is not None:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        offset = p.get("offset")
        limit = min(max(int(p.get("limit") or 100), 1), 100)
        timeout = max(float(p.get("timeout") or 0), 0.0)
        allowed = p.get("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = [str(a) for a in allowed]
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify_updates()  # an older getUpdates still waiting gets 409
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if isinstance(offset, int):
                if offset < 0:
                    self._pending = self._pending[offset:]
                else:
                    self._pending = [u for u in self._pending if u["update_id"] >= offset]
            self._drop_disallowed()
            batch = self._pending[:limit]
            if batch or self._closing:
                return batch
            if generation != self._poll_generation:
                raise ApiError(
                    409,
                    "Conflict: terminated by other getUpdates request; "
                    "make sure that only one bot instance is running",
                )
            remaining = deadline - loop.time()
            if remaining <= 0:
                return []
            event = self._updates_changed
            self._waiting_polls += 1
            self._notify_calls()
            try:
                async with asyncio.timeout(remaining):
                    await event.wait()
            except TimeoutError:
                return []
            finally:
                self._waiting_polls -= 1
                self._notify_calls()

    def _m_set_webhook(self, p: JSONDict) -> bool:
        url = p.get("url") or ""
        if not url:
            return self._m_delete_webhook(p)
        secret = p.get("secret_token")
        if secret is not None and not _SECRET_RE.match(str(secret)):
            raise _bad_request("secret token contains unallowed characters")
        if not str(url).startswith(("http://", "https://")):
            raise _bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        if p.get("drop_pending_updates"):
            self._pending.clear()
        allowed = p.get("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = [str(a) for a in allowed]
        self.webhook_url = str(url)
        self.webhook_secret = None if secret is None else str(secret)
        self.webhook_params = dict(p)
        self._webhook_last_error = None
        self._notify_updates()
        return True

    def _m_delete_webhook(self, p: JSONDict) -> bool:
        if p.get("drop_pending_updates"):
            self._pending.clear()
        self.webhook_url = None
        self.webhook_secret = None
        self.webhook_params = {}
        self._notify_updates()
        return True

    def _m_get_webhook_info(self, p: JSONDict) -> JSONDict:
        info: JSONDict = {
            "url": self.webhook_url or "",
            "has_custom_certificate": False,
            "pending_update_count": len(self._pending),
        }
        if self.webhook_url:
            info["max_connections"] = int(self.webhook_params.get("max_connections") or 40)
            if self._allowed_updates:
                info["allowed_updates"] = list(self._allowed_updates)
            if self.webhook_params.get("ip_address"):
                info["ip_address"] = self.webhook_params["ip_address"]
        if self._webhook_last_error is not None:
            info["last_error_date"], info["last_error_message"] = self._webhook_last_error
        return info

    def _m_send_message(self, p: JSONDict) -> JSONDict:
        chat = self._sendable_chat(p)
        text, entities = self._formatted(p, "text", "entities", MAX_MESSAGE_LENGTH, "message")
        if not text.strip():
            raise _bad_request("message text is empty")
        markup = self._check_markup(p.get("reply_markup"))
        message = self._new_bot_message(chat, p)
        message["text"] = text
        if entities:
            message["entities"] = entities
        if markup is not None:
            message["reply_markup"] = markup
        return self._commit_bot_message(message)

    def _m_send_media(self, p: JSONDict, *, kind: str) -> JSONDict:
        chat = self._sendable_chat(p)
        media = p.get(kind)
        if isinstance(media, UploadedFile):
            if len(media.content) > MAX_UPLOAD_SIZE:
                raise ApiError(413, "Request Entity Too Large")
            stored = self._store_file(media.content, f"{kind}s/{media.filename}", None)
            filename, mime = media.filename, media.mime_type
        elif isinstance(media, str) and media in self._files:
            stored = self._files[media]
            filename, mime = stored.file_path.rpartition("/")[2], None
        elif isinstance(media, str) and media.startswith(("http://", "https://")):
            stored = self._store_file(None, f"{kind}s/{media.rpartition('/')[2]}", 0)
            filename, mime = media.rpartition("/")[2], None
        elif media is None:
            raise _bad_request(f"there is no {kind} in the request")
        else:
            raise _bad_request("wrong file identifier/HTTP URL specified")
        caption, caption_entities = self._formatted(
            p, "caption", "caption_entities", MAX_CAPTION_LENGTH, "message caption"
        )
        markup = self._check_markup(p.get("reply_markup"))
        message = self._new_bot_message(chat, p)
        if kind == "photo":
            message["photo"] = [self._photo_size(stored, 800, 600)]
        else:
            obj: JSONDict = {
                "file_id": stored.file_id,
                "file_unique_id": stored.file_unique_id,
                "file_size": stored.file_size,
            }
            if kind in ("document", "audio", "video", "animation"):
                obj["file_name"] = filename
            if mime:
                obj["mime_type"] = mime
            if kind in ("audio", "voice", "video", "animation"):
                obj["duration"] = 1
            if kind in ("video", "animation"):
                obj.update(width=640, height=480)
            message[kind] = obj
        if caption:
            message["caption"] = caption
            if caption_entities:
                message["caption_entities"] = caption_entities
        if markup is not None:
            message["reply_markup"] = markup
        return self._commit_bot_message(message)

    def _m_edit_message_text(self, p: JSONDict) -> JSONDict:
        stored = self._target_message(p, "edit")
        text, entities = self._formatted(p, "text", "entities", MAX_MESSAGE_LENGTH, "message")
        if not text.strip():
            raise _bad_request("message text is empty")
        if "text" not in stored.message:
            raise _bad_request("there is no text in the message to edit")
        markup = self._check_markup(p.get("reply_markup"))
        self._apply_edit(stored, {"text": text, "entities": entities}, markup)
        return stored.message

    def _m_edit_message_caption(self, p: JSONDict) -> JSONDict:
        stored = self._target_message(p, "edit")
        caption, entities = self._formatted(
            p, "caption", "caption_entities", MAX_CAPTION_LENGTH, "message caption"
        )
        markup = self._check_markup(p.get("reply_markup"))
        self._apply_edit(stored, {"caption": caption, "caption_entities": entities}, markup)
        return stored.message

    def _m_edit_message_reply_markup(self, p: JSONDict) -> JSONDict:
        stored = self._target_message(p, "edit")
        markup = self._check_markup(p.get("reply_markup"))
        self._apply_edit(stored, {}, markup)
        return stored.message

    def _apply_edit(
        self, stored: _StoredMessage, fields: JSONDict, markup: JSONDict | None
    ) -> None:
        old = stored.message
        new = dict(old)
        for key, value in fields.items():
            if value:
                new[key] = value
            else:
                new.pop(key, None)
        if markup is not None:
            new["reply_markup"] = markup
        else:
            new.pop("reply_markup", None)
        keys = [*fields, "reply_markup"]
        if all(new.get(k) == old.get(k) for k in keys):
            raise _bad_request(
                "message is not modified: specified new message content and reply markup are "
                "exactly the same as a current content and reply markup of the message"
            )
        new["edit_date"] = int(time.time())
        stored.message = new

    def _m_delete_message(self, p: JSONDict) -> bool:
        stored = self._target_message(p, "delete")
        stored.deleted = True
        return True

    def _m_answer_callback_query(self, p: JSONDict) -> bool:
        query = self._callback_queries.get(str(p.get("callback_query_id")))
        if query is None or query["answered"]:
            raise _bad_request(
                "query is too old and response timeout expired or query ID is invalid"
            )
        if len(str(p.get("text") or "")) > MAX_CALLBACK_ANSWER_LENGTH:
            raise _bad_request("MESSAGE_TOO_LONG")
        query["answered"] = True
        query["answer"] = dict(p)
        return True

    def _m_get_file(self, p: JSONDict) -> JSONDict:
        stored = self._files.get(str(p.get("file_id")))
        if stored is None:
            raise _bad_request("wrong file_id or the file is temporarily unavailable")
        if stored.file_size > MAX_DOWNLOAD_SIZE:
            raise _bad_request("file is too big")
        return {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "file_size": stored.file_size,
            "file_path": stored.file_path,
        }

    def _m_set_my_commands(self, p: JSONDict) -> bool:
        commands = p.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise _bad_request("can't parse commands JSON object")
        for cmd in commands:
            if not isinstance(cmd, dict) or not _BOT_COMMAND_NAME_RE.match(
                str(cmd.get("command", ""))
            ):
                raise _bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(str(cmd.get("description", ""))) <= 256:
                raise _bad_request("command description must be non-empty")
        key = (self._scope_key(p.get("scope")), str(p.get("language_code") or ""))
        self._commands[key] = [
            {"command": c["command"], "description": c["description"]} for c in commands
        ]
        return True

    def _m_set_chat_menu_button(self, p: JSONDict) -> bool:
        button = p.get("menu_button") or {"type": "default"}
        if not isinstance(button, dict) or button.get("type") not in (
            "default", "commands", "web_app"
        ):  # fmt: skip
            raise _bad_request("can't parse menu button")
        if button["type"] == "web_app":
            url = str((button.get("web_app") or {}).get("url", ""))
            if not url.startswith("https://") or not button.get("text"):
                raise _bad_request("BUTTON_URL_INVALID")  # a Web App needs an HTTPS address
        chat = None if p.get("chat_id") is None else self._chat(p)["id"]
        self.menu_buttons[chat] = button
        return True

    def _m_get_chat_menu_button(self, p: JSONDict) -> JSONDict:
        chat = None if p.get("chat_id") is None else self._chat(p)["id"]
        return self.menu_buttons.get(chat, self.menu_buttons.get(None, {"type": "commands"}))

    def _m_set_message_reaction(self, p: JSONDict) -> bool:
        chat = self._sendable_chat(p)
        key = (chat["id"], int(p.get("message_id") or 0))
        if key not in self._messages:
            raise _bad_request("message to react not found")
        reaction = p.get("reaction") or []
        if not isinstance(reaction, list) or any(
            not isinstance(r, dict) or r.get("type") != "emoji" or r.get("emoji") not in _REACTIONS
            for r in reaction
        ):
            raise _bad_request("REACTION_INVALID")
        self.reactions[key] = [r["emoji"] for r in reaction]
        return True

    def _m_get_my_commands(self, p: JSONDict) -> list[JSONDict]:
        key = (self._scope_key(p.get("scope")), str(p.get("language_code") or ""))
        return list(self._commands.get(key, []))

    def _m_delete_my_commands(self, p: JSONDict) -> bool:
        key = (self._scope_key(p.get("scope")), str(p.get("language_code") or ""))
        self._commands.pop(key, None)
        return True

    def _m_send_chat_action(self, p: JSONDict) -> bool:
        self._sendable_chat(p)
        if p.get("action") not in _CHAT_ACTIONS:
            raise _bad_request("wrong parameter action in request")
        return True

    def _m_get_chat_member(self, p: JSONDict) -> JSONDict:
        chat = self._chat(p)
        user_id = p.get("user_id")
        user = self.me if user_id == self.bot_id else self._users.get(int(user_id or 0))
        if user is None:
            raise _bad_request("user not found")
        return self._member(int(chat["id"]), user)

    def _m_get_chat_administrators(self, p: JSONDict) -> list[JSONDict]:
        chat_id = int(self._chat(p)["id"])
        return [
            self._member(chat_id, self.me if uid == self.bot_id else self._users[uid])
            for (cid, uid), status in self._members.items()
            if cid == chat_id
            and status in ("creator", "administrator")
            and (uid == self.bot_id or uid in self._users)
        ]

    def _m_get_chat_member_count(self, p: JSONDict) -> int:
        chat_id = int(self._chat(p)["id"])
        return max(2, sum(1 for cid, _uid in self._members if cid == chat_id))

    def _m_get_chat(self, p: JSONDict) -> JSONDict:
        chat = dict(self._chat(p))
        chat.update(
            accent_color_id=0,
            max_reaction_count=11,
            accepted_gift_types={
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        )
        return chat

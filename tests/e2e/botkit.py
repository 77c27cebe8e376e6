"""Shared helpers for the bot's end-to-end tests (``test_bot_*.py``).

``bot_session`` starts a :class:`FakeBotAPI` and the real bot process against it, and on
the way out checks that the bot logged no traceback (the global error handler logs every
unexpected failure with one) and that Telegram rejected none of its calls.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .botapi import FakeBotAPI
from .harness import BotProcess, make_key, running_bot

KEY = make_key()
BOT = "benchboard_test_bot"
_SUBMISSION_ID = re.compile(r"(?:Submission|ارسال) #(\d+)")


def answers(key: dict[int, int], *, correct: int, wrong: int = 0, none: int = 0) -> list[str]:
    """Answer lines: ``correct`` right, then ``wrong`` wrong, then ``none`` abstentions."""
    lines = []
    qs = iter(sorted(key))
    for _ in range(correct):
        q = next(qs)
        lines.append(f"{q}:{key[q]}")
    for _ in range(wrong):
        q = next(qs)
        lines.append(f"{q}:{key[q] % 4 + 1}")
    for _ in range(none):
        lines.append(f"{next(qs)}:none")
    return lines


def questions_json(n: int = 104) -> bytes:
    data = {
        f"Question_{i}": {
            "question": f"Question {i}?\u200c",
            **{f"option_{o}": f"option {o} of {i}" for o in range(1, 5)},
        }
        for i in range(1, n + 1)
    }
    return json.dumps(data, ensure_ascii=False).encode()


def text_of(call_or_message: dict[str, Any]) -> str:
    """Plain text (or caption) of a recorded call's message, or of a message dict."""
    msg = call_or_message.get("result", call_or_message)
    return str(msg.get("text") or msg.get("caption") or "")


def buttons(message: dict[str, Any]) -> dict[str, str]:
    """callback_data -> label of a message's inline keyboard (message dict or call)."""
    msg = message.get("result", message) if "method" in message else message
    rows = (msg.get("reply_markup") or {}).get("inline_keyboard", [])
    return {b["callback_data"]: b["text"] for row in rows for b in row if "callback_data" in b}


def button(message: dict[str, Any], label: str) -> str:
    """callback_data of the first button whose label contains ``label``."""
    msg = message.get("result", message) if "method" in message else message
    rows = (msg.get("reply_markup") or {}).get("inline_keyboard", [])
    for row in rows:
        for b in row:
            if label in b["text"] and "callback_data" in b:
                return str(b["callback_data"])
    raise AssertionError(f"no button labelled {label!r} in {rows}")


def submission_id(text: str) -> int:
    match = _SUBMISSION_ID.search(text)
    assert match, f"no submission id in:\n{text}"
    return int(match[1])


@dataclass
class Bot:
    api: FakeBotAPI
    proc: BotProcess
    key: dict[int, int]

    async def say(
        self, chat: dict[str, Any], user: dict[str, Any], text: str, **kw: Any
    ) -> dict[str, Any]:
        """Send text; return the bot's reply call (to this message or to none)."""
        msg = await self.api.send_text(chat, user, text, **kw)
        return await self.api.reply_to(msg, timeout=20)

    async def press(
        self,
        chat: dict[str, Any],
        user: dict[str, Any],
        message: dict[str, Any],
        data: str,
        *,
        check_button: bool = True,
    ) -> dict[str, Any]:
        """Press a button; return the answerCallbackQuery params."""
        query = await self.api.press_button(chat, user, message, data, check_button=check_button)
        answer = await self.api.callback_answer(query, timeout=20)
        return dict(answer["params"])

    async def details(
        self, chat: dict[str, Any], user: dict[str, Any], reply: dict[str, Any], sid: int
    ) -> dict[str, Any]:
        """Press Details on a score reply; return the bot's answer (the message or the
        document with every invalid line when they do not fit a message)."""
        since = self.api.mark()
        await self.press(chat, user, reply, f"det:{sid}")
        return await self.api.wait_for(
            lambda c: (
                c["method"] in ("sendMessage", "sendDocument")
                and c["params"].get("chat_id") == chat["id"]
            ),
            timeout=20,
            since=since,
        )

    def current(self, call: dict[str, Any]) -> dict[str, Any]:
        """The current version (after edits) of the message a call sent."""
        msg = call["result"]
        current = self.api.message(int(msg["chat"]["id"]), int(msg["message_id"]))
        assert current is not None
        return current

    async def edited(self, call: dict[str, Any], since: int) -> dict[str, Any]:
        """Wait for an edit of the message a call sent (after ``since``); its current version."""
        msg = call["result"]
        await self.api.wait_for(
            lambda c: (
                c["method"] == "editMessageText"
                and c["params"].get("message_id") == msg["message_id"]
                and c["params"].get("chat_id") == msg["chat"]["id"]
            ),
            timeout=20,
            since=since,
        )
        return self.current(call)

    def check_clean(self, since: int = 0) -> None:
        errors = [c for c in self.api.errors() if c["index"] >= since]
        assert errors == [], f"Telegram rejected bot calls: {errors}"


def private_user(bot: Bot, uid: int, lang: str | None = "en") -> tuple[dict, dict]:
    """A user (named U<uid>) and their private chat with the bot."""
    user = bot.api.user(uid, f"U{uid}", language_code=lang)
    return user, bot.api.private_chat(user)


def check_log(proc: BotProcess) -> None:
    """No traceback and no ERROR line (plain or JSON log lines) in the bot's output."""
    log = proc.log()
    at = log.find("Traceback")
    assert at < 0, f"the bot logged a traceback:\n{log[max(0, at - 1000) : at + 4000]}"
    for line in log.splitlines():
        assert " ERROR " not in line and '"level": "ERROR"' not in line, (
            f"the bot logged an error:\n{line}"
        )


@contextlib.asynccontextmanager
async def bot_session(
    tmp: Path,
    *,
    key: dict[int, int] | None = KEY,
    env: dict[str, str] | None = None,
    questions: bytes | None = None,
    api: FakeBotAPI | None = None,
) -> AsyncIterator[Bot]:
    own_api = api is None
    if api is None:
        api = FakeBotAPI(bot_username=BOT)
        await api.start()
    if questions is not None:
        (tmp / "data" / "primebench").mkdir(parents=True, exist_ok=True)
        (tmp / "data" / "primebench" / "Q.json").write_bytes(questions)
    try:
        async with running_bot(api, tmp, key=key, env=env) as proc:
            yield Bot(api, proc, key or {})
        check_log(proc)
    finally:
        if own_api:
            await api.stop()

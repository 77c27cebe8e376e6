"""What the bot hands someone finding their way: a group's how-to when the bot joins it,
a benchmark's question file (``/questions``, and with a challenge's prompt)."""

from __future__ import annotations

import html
import time

from telegram import Chat, Message

from scoring import Benchmark

from ..core import datafiles
from ..core.bounded import Lru
from ..render.i18n import t
from .context import BotContext
from .http import topic_of

#: Seconds within which a group is greeted once (added through a ``startgroup`` link,
#: Telegram sends both the member update and a ``/start``).
GREET_EVERY = 60.0


async def greet_group(
    context: BotContext,
    chat: Chat,
    lang: str,
    *,
    once: bool = False,
    asked: Message | None = None,
) -> None:
    """How the bot works in a group: ``/score``, the group's board and its web address.
    ``once``: not again within :data:`GREET_EVERY` (the bot just joined); ``asked``: the
    message that asked (``/start``), whose forum topic the answer goes to."""
    greeted: Lru[int, float] = context.bot_data.setdefault("greeted", Lru(1000))
    now, then = time.monotonic(), greeted.get(chat.id)
    if once and then is not None and now - then < GREET_EVERY:
        return
    greeted[chat.id] = now
    title = html.escape(chat.title or "")
    await context.bot.send_message(
        chat.id,
        t(lang, "group_welcome", title=title),
        message_thread_id=topic_of(asked) if asked is not None else None,
    )


async def send_questions(
    context: BotContext,
    message: Message,
    benchmark: Benchmark,
    lang: str,
    *,
    missing_ok: bool = False,
) -> None:
    """The benchmark's question file as a document, with its credit; when it is not
    loaded, a line saying so (nothing with ``missing_ok``)."""
    path = datafiles.questions_path(context.services.settings.data_dir, benchmark)
    title = html.escape(benchmark.title)
    if path is None:
        if not missing_ok:
            await message.reply_text(t(lang, "no_questions", benchmark=title))
        return
    caption = t(lang, "questions_caption", benchmark=benchmark.title, file=path.name)
    if benchmark.credit:
        caption += "\n" + benchmark.credit
    await message.reply_document(
        path.read_bytes(), filename=path.name, caption=caption, parse_mode=None
    )

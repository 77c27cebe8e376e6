"""Natory in the bot (/natory, replies to it, its boards, /compare) and the Natory
branch of /leaderboard. Handlers are thin: queries are in ``storage.analytics``, text in
``bot.format`` and ``bot.i18n``, the chart in ``bot.charts``.

``register(app)`` adds them; ``bot.app.register`` calls it before the generic commands
and the private-chat text handler, so that ``/leaderboard natory`` and a reply to the
/natory message are handled here (a reply is not a PrimeBench submission).
"""

from __future__ import annotations

import asyncio
import html
import re
from datetime import UTC, datetime
from typing import Any

from telegram import Message, Update
from telegram.ext import Application, CommandHandler, MessageHandler, filters

from scoring import KeyFormatError, Mode, natory
from storage import analytics

from ..core import submit as service
from ..i18n import t
from ..render.charts import natory_comparison_chart
from ..render.format import render_natory_board, render_natory_challenge
from . import admin_handlers as ah
from . import handlers as h
from .context import BotContext

#: The last line of the /natory message; a reply to that message is scored against it.
TARGET_LINE = re.compile(r"#natory\s+target:\s*(\d{1,12})\s*$", re.IGNORECASE)
BOARD_ROWS = 15
#: How many models a /compare chart shows at most (the best by mean score).
CHART_MODELS = 40
_MODE_LABELS = {m.value: m.label for m in Mode}
_BOARD_NAMES = ["leaderboard", "board", "top"]
_NATORY_BOARD = re.compile(r"^/(?:leaderboard|board|top)(?:@\w+)?\s+natory\b", re.IGNORECASE)


def today_target(context: BotContext) -> natory.Challenge:
    """Today's challenge (an admin's choice, else from the UTC date and the seed)."""
    return service.natory_today(context.services)


def target_of(message: Message | None) -> int | None:
    """The target a /natory message names in its last line, or None."""
    if message is None or not message.text:
        return None
    match = TARGET_LINE.search(message.text)
    return int(match[1]) if match else None


class _RepliesToNatory(filters.MessageFilter):
    """A message replying to a bot's /natory message (one that ends ``#natory target: N``)."""

    def filter(self, message: Message) -> bool:
        replied = message.reply_to_message
        return (
            replied is not None
            and replied.from_user is not None
            and replied.from_user.is_bot
            and target_of(replied) is not None
        )


# --- handlers ------------------------------------------------------------------------------


async def on_natory(update: Update, context: BotContext) -> None:
    """``/natory``: today's target; ``/natory models``: the model board; ``/natory N``:
    the board of target N."""
    message = update.effective_message
    if message is None:
        return
    lang = await h.user_lang(context, update.effective_user)
    args = [a.lower() for a in context.args or []]
    if not args or args == ["today"]:
        challenge = today_target(context)
        text = render_natory_challenge(
            lang,
            target=challenge.target,
            allowed=challenge.allowed_text,
            digits=" ".join(challenge.digits),
            day=datetime.now(UTC).date().isoformat(),
        )
        await h.reply(message, text)
    elif args[0] == "set":
        await ah.on_natory_set(update, context)
    elif args in (["models"], ["board"]):
        await _send_board(message, context, lang, None)
    elif len(args) == 1 and args[0].isdigit():
        await _board_for(message, context, lang, args[0])
    else:
        await h.reply(message, t(lang, "natory_usage"))


async def on_natory_leaderboard(update: Update, context: BotContext) -> None:
    """``/leaderboard natory`` (today's target), ``… natory N``, ``… natory models``."""
    message = update.effective_message
    if message is None:
        return
    lang = await h.user_lang(context, update.effective_user)
    args = [a.lower() for a in (context.args or [])[1:]]
    if not args:
        await _send_board(message, context, lang, today_target(context).target)
    elif args == ["models"]:
        await _send_board(message, context, lang, None)
    elif len(args) == 1:
        await _board_for(message, context, lang, args[0])
    else:
        await h.reply(message, t(lang, "natory_bad_target", word=html.escape(" ".join(args))))


async def _board_for(message: Message, context: BotContext, lang: str, word: str) -> None:
    try:
        target = natory.parse_target(word).target
    except KeyFormatError:
        await h.reply(message, t(lang, "natory_bad_target", word=html.escape(word[:40])))
        return
    await _send_board(message, context, lang, target)


async def _send_board(message: Message, context: BotContext, lang: str, target: int | None) -> None:
    store = context.services.store
    board = await analytics.natory_board(store, target=target, limit=BOARD_ROWS)
    targets = await analytics.natory_targets(store) if target is None else ()
    text = render_natory_board(board, lang=lang, mode_labels=_MODE_LABELS, targets=targets)
    await h.reply(message, text)


async def on_natory_reply(update: Update, context: BotContext) -> None:
    """A reply to the /natory message: the reply's text is a Natory attempt at its target."""
    message = update.effective_message
    if message is None or message.text is None:
        return
    target = target_of(message.reply_to_message)
    if target is None:  # the filter let it through, so this does not happen
        return
    await h.submit(
        update, context, message, text=message.text, command_args=f"#natory target: {target}"
    )


async def on_compare(update: Update, context: BotContext) -> None:
    """``/compare natory``: mean score against mean cost and latency per model (a PNG)."""
    message = update.effective_message
    if message is None:
        return
    lang = await h.user_lang(context, update.effective_user)
    args = [a.lower() for a in context.args or []]
    if args not in ([], ["natory"]):
        await h.reply(message, t(lang, "compare_usage"))
        return
    board = await analytics.natory_board(context.services.store, limit=CHART_MODELS)
    if not board.rows:
        await h.reply(message, t(lang, "compare_empty"))
        return
    png = await asyncio.to_thread(natory_comparison_chart, board.rows, _MODE_LABELS)
    await message.reply_photo(
        png, caption=t(lang, "compare_caption", models=len(board.rows)), filename="natory.png"
    )


# --- registration ------------------------------------------------------------------------


def register(app: Application[Any, Any, Any, Any, Any, Any], *, group: int = 0) -> None:
    """Add this module's handlers. Call before the generic commands (``/leaderboard
    natory`` must reach this module first) and before the private-text handler (a reply to
    /natory is a Natory attempt, not a PrimeBench submission)."""
    new = filters.UpdateType.MESSAGE
    app.add_handler(CommandHandler("natory", on_natory, filters=new), group=group)
    app.add_handler(CommandHandler("compare", on_compare, filters=new), group=group)
    app.add_handler(
        CommandHandler(
            _BOARD_NAMES, on_natory_leaderboard, filters=new & filters.Regex(_NATORY_BOARD)
        ),
        group=group,
    )
    app.add_handler(
        MessageHandler(
            new & filters.REPLY & filters.TEXT & ~filters.COMMAND & _RepliesToNatory(),
            on_natory_reply,
        ),
        group=group,
    )

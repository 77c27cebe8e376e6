"""Natory in the bot: /natory, a reply to it, its boards, /compare, and the Natory
branch of /leaderboard. The filters that route them here (``NATORY_BOARD``,
``REPLIES_TO_NATORY``) are used by the builder, ``bot.telegram.app``.
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime

from telegram import Message, Update
from telegram.ext import filters

from ..core import boards, datafiles
from ..core.errors import UserError
from ..render.boards import render_natory_board, render_natory_challenge
from ..render.i18n import t, tn
from . import handlers as h
from .context import BotContext


def _chart(board: boards.NatoryBoard) -> bytes:
    """The comparison chart, off the event loop. matplotlib is imported here, on the
    first /compare, not at start: it is most of the bot's start-up time and memory."""
    from ..render.charts import natory_comparison_chart

    return natory_comparison_chart(board.rows)


#: The last line of the /natory message; a reply to that message is scored against it.
TARGET_LINE = re.compile(r"#natory\s+target:\s*(\d{1,12})\s*$", re.IGNORECASE)
#: ``/leaderboard natory …`` (and its aliases).
NATORY_BOARD = filters.Regex(
    re.compile(r"^/(?:leaderboard|board|top)(?:@\w+)?\s+natory\b", re.IGNORECASE)
)
#: ``/natory set …`` (an admin's command).
NATORY_SET = filters.Regex(re.compile(r"^/natory(?:@\w+)?\s+set\b", re.IGNORECASE))


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


REPLIES_TO_NATORY = _RepliesToNatory()


# --- handlers ------------------------------------------------------------------------------


async def on_natory(update: Update, context: BotContext) -> None:
    """``/natory``: today's target; ``/natory models``: the model board; ``/natory N``:
    the board of target N. (``/natory set`` is an admin's, registered apart.)"""
    message = update.effective_message
    if message is None:
        return
    lang = await h.user_lang(context, update.effective_user)
    args = [a.lower() for a in context.args or []]
    if not args or args == ["today"]:
        challenge = datafiles.natory_today(context.services.settings)
        text = render_natory_challenge(
            lang,
            target=challenge.target,
            allowed=challenge.allowed_text,
            digits=" ".join(challenge.digits),
            day=datetime.now(UTC).date().isoformat(),
        )
        await message.reply_text(text)
    elif args in (["models"], ["board"]):
        await _send_board(message, context, lang, None)
    elif len(args) == 1 and args[0].isdigit():
        await _board_for(message, context, lang, args[0])
    else:
        await message.reply_text(t(lang, "natory_usage"))


async def on_natory_leaderboard(update: Update, context: BotContext) -> None:
    """``/leaderboard natory`` (today's target), ``… natory N``, ``… natory models``."""
    message = update.effective_message
    if message is None:
        return
    lang = await h.user_lang(context, update.effective_user)
    args = [a.lower() for a in (context.args or [])[1:]]
    if not args:
        target = datafiles.natory_today(context.services.settings).target
        await _send_board(message, context, lang, target)
    elif args == ["models"]:
        await _send_board(message, context, lang, None)
    elif len(args) == 1:
        await _board_for(message, context, lang, args[0])
    else:
        await h.reply_error(message, lang, UserError("natory_bad_target", word=" ".join(args)))


async def _board_for(message: Message, context: BotContext, lang: str, word: str) -> None:
    try:
        target = boards.natory_target(word)
    except UserError as exc:
        await h.reply_error(message, lang, exc)
        return
    await _send_board(message, context, lang, target)


async def _send_board(message: Message, context: BotContext, lang: str, target: int | None) -> None:
    board, targets = await boards.natory_board(context.services, target)
    await message.reply_text(render_natory_board(board, lang=lang, targets=targets))


async def on_natory_reply(update: Update, context: BotContext) -> None:
    """A reply to the /natory message: the reply's text is a Natory attempt at its target."""
    message = update.effective_message
    if message is None or message.text is None:
        return
    target = target_of(message.reply_to_message)
    if target is None:  # the filter let it through, so this does not happen
        return
    await h.score(
        update, context, message, text=message.text, command_args=f"#natory target: {target}"
    )


async def on_compare(update: Update, context: BotContext) -> None:
    """``/compare natory``: mean score against mean cost and latency per model (a PNG)."""
    message = update.effective_message
    if message is None:
        return
    lang = await h.user_lang(context, update.effective_user)
    if not boards.comparable(context.args or []):
        await message.reply_text(t(lang, "compare_usage"))
        return
    board = await boards.natory_comparison(context.services)
    if not board.rows:
        await message.reply_text(t(lang, "compare_empty"))
        return
    png = await asyncio.to_thread(_chart, board)
    await message.reply_photo(
        png,
        caption=tn(lang, "compare_caption", len(board.rows)),
        filename="natory.png",
        parse_mode=None,
    )

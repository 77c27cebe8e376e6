"""Daily challenges in the bot, for each benchmark with a challenge (its command word
``C`` from the registry): ``/C``, a reply to it, its boards, ``/compare C``, and the
``/leaderboard C`` branch of /leaderboard. The filters that route them here
(:func:`routes`) are made by the builder, ``bot.telegram.app``, from the registry.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import NamedTuple

from telegram import CopyTextButton, InlineKeyboardButton, InlineKeyboardMarkup, Message, Update
from telegram.ext import filters

from scoring import Benchmark

from ..core import challenges, sponsors
from ..core.errors import UserError
from ..render.boards import render_challenge, render_challenge_board, target_line
from ..render.i18n import t, tn
from . import handlers as h
from .context import BotContext

#: The board commands a challenge's word may follow (``/leaderboard C``).
BOARD_COMMANDS = ("leaderboard", "board", "top")


def _chart(benchmark: Benchmark, board: challenges.ChallengeBoard, lang: str) -> bytes:
    """The comparison chart, off the event loop. matplotlib is imported here, on the
    first /compare, not at start: it is most of the bot's start-up time and memory."""
    from ..render.charts import comparison_chart

    return comparison_chart(benchmark.title, board.rows, lang)


def _one_of(words: Sequence[str]) -> str:
    return "(?:" + "|".join(re.escape(w) for w in words) + ")"


#: The last line of a challenge's message (``#C target: N``, :func:`target_line`); a reply
#: to that message is scored against it.
TARGET_LINE = re.compile(r"#(\w+)\s+target:\s*(\d{1,12})\s*$", re.IGNORECASE)


def target_of(message: Message | None) -> tuple[Benchmark, int] | None:
    """The challenge benchmark and target a challenge's message names in its last line,
    or None."""
    if message is None or not message.text:
        return None
    match = TARGET_LINE.search(message.text)
    benchmark = challenges.by_command(match[1]) if match else None
    return None if benchmark is None or match is None else (benchmark, int(match[2]))


class _RepliesToChallenge(filters.MessageFilter):
    """A message replying to a bot's challenge message (one that ends ``#C target: N``)
    with a digit in it: an attempt is built from the target's digits. A reply without
    one ("nice!", "lol", "what is p_n?") is talk, not an attempt: in a group it is left
    alone, in a private chat it is read as any other text."""

    def filter(self, message: Message) -> bool:
        replied = message.reply_to_message
        return (
            replied is not None
            and replied.from_user is not None
            and replied.from_user.is_bot
            and target_of(replied) is not None
            and any(c.isdigit() for c in message.text or "")
        )


class Routes(NamedTuple):
    """What the builder routes here, for the challenges' command words."""

    #: ``/C set …`` (an admin's command)
    set: filters.BaseFilter
    #: ``/leaderboard C …`` (and its aliases)
    board: filters.BaseFilter
    #: a reply to a challenge's message
    replies: filters.MessageFilter


def routes(commands: Sequence[str]) -> Routes:
    """The filters for challenges of these command words."""
    words = _one_of(commands)
    return Routes(
        set=filters.Regex(re.compile(rf"^/{words}(?:@\w+)?\s+set\b", re.IGNORECASE)),
        board=filters.Regex(
            re.compile(rf"^/{_one_of(BOARD_COMMANDS)}(?:@\w+)?\s+{words}\b", re.IGNORECASE)
        ),
        replies=_RepliesToChallenge(),
    )


def command_of(message: Message, word: int = 0) -> Benchmark | None:
    """The challenge benchmark the ``word``-th word of a command message names (its
    command word; ``/C@bot`` too)."""
    words = (message.text or "").split()
    if len(words) <= word:
        return None
    return challenges.by_command(words[word].lstrip("/").split("@", 1)[0])


# --- handlers ------------------------------------------------------------------------------


async def on_challenge(update: Update, context: BotContext) -> None:
    """``/C``: today's target; ``/C models``: the model board; ``/C N``: the board of
    target N. (``/C set`` is an admin's, registered apart.)"""
    message = update.effective_message
    benchmark = None if message is None else command_of(message)
    if message is None or benchmark is None:
        return
    command = challenges.spec(benchmark).command
    lang = await h.user_lang(context, update.effective_user)
    args = [a.lower() for a in context.args or []]
    if not args or args == ["today"]:
        challenge = challenges.today(context.services.settings, benchmark)
        text = render_challenge(
            lang,
            command=command,
            title=benchmark.title,
            target=challenge.target,
            allowed=challenge.allowed_text,
            digits=" ".join(challenge.digits),
            day=datetime.now(UTC).date().isoformat(),
        )
        # the line to answer with, one tap to copy (Telegram copies at most 256 characters)
        line = target_line(command, challenge.target)
        copy = InlineKeyboardButton(t(lang, "btn_copy_line"), copy_text=CopyTextButton(line))
        await message.reply_text(text, reply_markup=InlineKeyboardMarkup([[copy]]))
    elif args in (["models"], ["board"]):
        await _send_board(message, context, lang, benchmark, None)
    elif len(args) == 1 and args[0].isdigit():
        await _board_for(message, context, lang, benchmark, args[0])
    else:
        await message.reply_text(t(lang, "daily_usage", command=command))


async def on_challenge_leaderboard(update: Update, context: BotContext) -> None:
    """``/leaderboard C`` (today's target), ``… C N``, ``… C models``."""
    message = update.effective_message
    benchmark = None if message is None else command_of(message, 1)
    if message is None or benchmark is None:
        return
    lang = await h.user_lang(context, update.effective_user)
    args = [a.lower() for a in (context.args or [])[1:]]
    if not args:
        target = challenges.today(context.services.settings, benchmark).target
        await _send_board(message, context, lang, benchmark, target)
    elif args == ["models"]:
        await _send_board(message, context, lang, benchmark, None)
    elif len(args) == 1:
        await _board_for(message, context, lang, benchmark, args[0])
    else:
        command = challenges.spec(benchmark).command
        await h.reply_error(
            message, lang, UserError("daily_bad_target", word=" ".join(args), command=command)
        )


async def _board_for(
    message: Message, context: BotContext, lang: str, benchmark: Benchmark, word: str
) -> None:
    try:
        target = challenges.target(benchmark, word)
    except UserError as exc:
        await h.reply_error(message, lang, exc)
        return
    await _send_board(message, context, lang, benchmark, target)


async def _send_board(
    message: Message, context: BotContext, lang: str, benchmark: Benchmark, target: int | None
) -> None:
    board, targets = await challenges.board(context.services, benchmark, target)
    marks = await challenges.marks(context.services, board)
    backers = [] if target is None else await sponsors.sponsors(
        context.services, benchmark.name, target
    )  # fmt: skip
    command = challenges.spec(benchmark).command
    await message.reply_text(
        render_challenge_board(
            benchmark, command, board, lang=lang, targets=targets, marks=marks, sponsors=backers
        )
    )


async def on_challenge_reply(update: Update, context: BotContext) -> None:
    """A reply to a challenge's message: the reply's text is an attempt at its target."""
    message = update.effective_message
    if message is None or message.text is None:
        return
    found = target_of(message.reply_to_message)
    if found is None:  # the filter let it through, so this does not happen
        return
    benchmark, target = found
    given = {challenges.spec(benchmark).target_option: target}
    await h.score(update, context, message, text=message.text, given=(benchmark.name, given))


async def on_compare(update: Update, context: BotContext) -> None:
    """``/compare [C]``: mean score against mean cost and latency per model (a PNG)."""
    message = update.effective_message
    if message is None:
        return
    lang = await h.user_lang(context, update.effective_user)
    benchmark = challenges.compared(context.args or [])
    if benchmark is None:
        await message.reply_text(t(lang, "compare_usage"))
        return
    board = await challenges.comparison(context.services, benchmark)
    if not board.rows:
        await message.reply_text(t(lang, "compare_empty"))
        return
    png = await asyncio.to_thread(_chart, benchmark, board, lang)
    await message.reply_photo(
        png,
        caption=tn(lang, "compare_caption", len(board.rows)),
        filename=f"{benchmark.name}.png",
        parse_mode=None,
    )

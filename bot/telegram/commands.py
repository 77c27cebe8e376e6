"""Telegram handlers of the commands that show things: the boards, ``/me``, ``/start``
(with its shared links), ``/help``, ``/prompt``, ``/questions``, ``/benchmarks`` and
``/lang``."""

from __future__ import annotations

import html

from telegram import Chat, InlineKeyboardMarkup, Update
from telegram.constants import ChatMemberStatus
from telegram.error import BadRequest, Forbidden

from scoring import Mode, UnknownMode, registry

from ..core import benchmarks, boards, people, submissions
from ..core.bounded import parse_id
from ..core.errors import UserError
from ..render.boards import render_board, render_history
from ..render.format import fits, names_list, split_lines
from ..render.i18n import LANGUAGES, join_list, t
from . import share_handlers
from .context import BotContext
from .guides import greet_group, send_questions
from .handlers import (
    card,
    in_group,
    remember_lang,
    reply_error,
    user_lang,
)
from .http import send_reply
from .keyboards import board_keyboard, history_keyboard

# --- leaderboards and history --------------------------------------------------------


async def board_page(
    context: BotContext, query: boards.BoardQuery, chat: Chat, user_id: int, lang: str
) -> tuple[str, InlineKeyboardMarkup]:
    page = await boards.page(context.services, query, chat_id=chat.id, user_id=user_id)
    web_url = context.services.settings.public_web_url
    return render_board(page, lang=lang), board_keyboard(
        lang, query, page.pages, in_group=in_group(chat), web_url=web_url
    )


async def on_leaderboard(update: Update, context: BotContext) -> None:
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    lang = await user_lang(context, user)
    try:
        try:
            benchmark, mode = boards.board_args(context.args or [])
        except UnknownMode:  # a benchmark another process defined within the minute?
            if not await benchmarks.defined_since(context.services):
                raise
            benchmark, mode = boards.board_args(context.args or [])
    except UnknownMode as exc:  # (the word as typed, escaped and cut short)
        corrected = boards.corrected_args(context.args or [])
        if corrected is not None:  # (a name of ours: nothing to escape)
            error = UserError(
                "board_did_you_mean", word=exc.text, command=" ".join(["/leaderboard", *corrected])
            )
        else:
            error = UserError(
                "board_bad_args",
                word=exc.text,
                benchmarks=join_list(lang, registry.names()),
                modes=join_list(lang, (m.value for m in Mode)),
            )
        await reply_error(message, lang, error)
        return
    query = boards.BoardQuery(benchmark, "c" if in_group(message.chat) else "g", mode, 0, 0)
    text, keyboard = await board_page(context, query, message.chat, user.id, lang)
    await message.reply_text(text, reply_markup=keyboard)


async def me_page(
    context: BotContext, user_id: int, lang: str, page: int = 0
) -> tuple[str, InlineKeyboardMarkup | None]:
    """A page of ``/me`` and its buttons (withdraw a published result, other pages)."""
    found = await boards.history(context.services, user_id, page)
    benchmarks = {b.name: b for b in registry.all_benchmarks()}
    text = render_history(found, lang=lang, benchmarks=benchmarks)
    published = [s.id for s in found.submissions if submissions.is_published(s)]
    openable = [s.id for s in found.submissions if s.visibility.value in ("withdrawn", "private")]
    return text, history_keyboard(lang, published, found.page, found.pages, openable)


async def on_me(update: Update, context: BotContext) -> None:
    """``/me``: in a private chat, the user's results; in a group, the same sent to the
    private chat (unpublished results are never shown in a group), or how to open one."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    lang = await user_lang(context, user)
    text, keyboard = await me_page(context, user.id, lang)
    if not in_group(message.chat):
        await message.reply_text(text, reply_markup=keyboard)
        return
    link = f"https://t.me/{context.services.bot_username}?start=me"
    if not await people.has_private_chat(context.services, user.id):
        await message.reply_text(t(lang, "me_open_private", link=link))
        return
    try:
        await context.bot.send_message(user.id, text, reply_markup=keyboard)
    except (BadRequest, Forbidden):  # the chat is gone, or the bot was blocked
        await message.reply_text(t(lang, "me_open_private", link=link))
        return
    await message.reply_text(t(lang, "me_sent_private"))


# --- simple commands -----------------------------------------------------------------


async def on_start(update: Update, context: BotContext) -> None:
    """``/start``: the welcome; a shared link's payload (``r_``, ``c_``, ``g_``: see
    ``share_handlers.open_start``); ``/start s<id>``: the owner's own submission."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    lang = await user_lang(context, user)
    payload = (context.args or [""])[0]
    # shared links (a result, a challenge, a group's board) and /start in a group
    if await share_handlers.open_start(update, context, payload):
        return
    if in_group(message.chat):  # a bare /start there: how the bot works in a group
        await greet_group(context, message.chat, lang, asked=message)
        return
    if payload == "me" and not in_group(message.chat):  # from /me in a group
        text, keyboard = await me_page(context, user.id, lang)
        await message.reply_text(text, reply_markup=keyboard)
        return
    if not payload.startswith("s") or not payload[1:].isdigit():
        await message.reply_text(t(lang, "welcome"))
        return
    shared_id = parse_id(payload[1:])
    if shared_id is None:  # no submission has such a number
        await message.reply_text(t(lang, "not_found", id=html.escape(payload[1:21])))
        return
    try:
        sub = await submissions.shared(context.services, shared_id, user.id)
    except UserError as exc:
        await reply_error(message, lang, exc)
        return
    if sub.user_id != user.id:  # others open a result by its opaque link (r_…)
        await message.reply_text(t(lang, "link_not_available"))
        return
    shown, buttons = await card(context, sub, lang, owner=sub.user_id == user.id)
    await send_reply(context.bot, message, shown, buttons)


async def on_bot_added(update: Update, context: BotContext) -> None:
    """The bot added to a group (``my_chat_member``: from left or kicked to a member):
    it says how it works there, in the language of whoever added it."""
    change = update.my_chat_member
    if change is None or not in_group(change.chat):
        return
    joined = change.new_chat_member.status in (
        ChatMemberStatus.MEMBER,
        ChatMemberStatus.ADMINISTRATOR,
    )
    was_out = change.old_chat_member.status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED)
    if joined and was_out:
        lang = await user_lang(context, change.from_user)
        await greet_group(context, change.chat, lang, once=True)


async def on_help(update: Update, context: BotContext) -> None:
    if update.effective_message is not None:
        lang = await user_lang(context, update.effective_user)
        await update.effective_message.reply_text(help_text(lang))


def help_text(lang: str) -> str:
    """Every user command, grouped; the benchmarks' tags and their challenges' commands
    from the registry."""
    benchmarks = registry.all_benchmarks()
    challenges = "".join(
        t(lang, "help_challenge", command=b.challenge.command, title=html.escape(b.title))
        for b in benchmarks
        if b.challenge is not None
    )
    return t(
        lang,
        "help",
        tags=names_list([f"#{b.name}" for b in benchmarks], sep=" "),
        default=html.escape(registry.get(registry.DEFAULT).title),
        challenges=challenges,
    )


async def on_prompt(update: Update, context: BotContext) -> None:
    message = update.effective_message
    if message is None:
        return
    lang = await user_lang(context, update.effective_user)
    default = registry.get(registry.DEFAULT)
    # /prompt NAME: that benchmark's prompt; a name that is no benchmark, or one without
    # a prompt, is said (never another benchmark's prompt in its place)
    named = registry.find(context.args[0]) if context.args else None
    if context.args and named is None and await benchmarks.defined_since(context.services):
        named = registry.find(context.args[0])  # defined by another process just now
    benchmark = named if named is not None else default
    prompted = names_list([b.name for b in registry.all_benchmarks() if b.prompt], sep=", ")
    if context.args and named is None:
        word = html.escape(context.args[0][:64])
        await message.reply_text(t(lang, "prompt_unknown", word=word, benchmarks=prompted))
        return
    if not benchmark.prompt:
        title = html.escape(benchmark.title)
        await message.reply_text(t(lang, "prompt_none", title=title, benchmarks=prompted))
        return
    intro = (
        t(lang, "prompt_intro")
        if benchmark is default
        else t(lang, "prompt_intro_of", title=html.escape(benchmark.title))
    )
    credit = html.escape(benchmark.credit)
    shown = f"{html.unescape(intro)}\n{benchmark.prompt}\n{benchmark.credit}"
    if fits(shown):
        await message.reply_text(intro + f"\n<pre>{html.escape(benchmark.prompt)}</pre>\n{credit}")
        return
    # too long for a message (a benchmark defined by data may have a prompt of 100,000
    # characters): the prompt as a file, its bytes as they are, the intro its caption
    await message.reply_document(
        benchmark.prompt.encode(),
        filename=f"{benchmark.name}-prompt.txt",
        caption=f"{intro}\n{credit}".rstrip(),
    )


async def on_questions(update: Update, context: BotContext) -> None:
    message = update.effective_message
    if message is None:
        return
    lang = await user_lang(context, update.effective_user)
    await send_questions(context, message, registry.get(registry.DEFAULT), lang)


async def on_benchmarks(update: Update, context: BotContext) -> None:
    message = update.effective_message
    if message is None:
        return
    lang = await user_lang(context, update.effective_user)
    lines = []
    for benchmark in registry.all_benchmarks():
        loaded = context.services.keys.get(benchmark.name)
        if benchmark.challenge is not None:
            status = t(lang, "key_daily", command=benchmark.challenge.command)
        elif loaded is not None:
            status = t(lang, "key_loaded", version=loaded.version.version)
        else:
            status = t(lang, "key_missing")
        lines.append(f"• <b>{html.escape(benchmark.title)}</b> (#{benchmark.name}) — {status}")
    # as many messages as the list needs: an admin may define a hundred benchmarks
    head = t(lang, "benchmarks", lines="").rstrip("\n")
    for text in split_lines(head, lines):
        await message.reply_text(text)


#: The languages as people name them (``/lang persian``, ``/lang فارسی``).
LANGUAGE_NAMES = {
    "english": "en", "eng": "en", "انگلیسی": "en", "persian": "fa", "farsi": "fa",
    "فارسی": "fa", "پارسی": "fa", "fa-ir": "fa", "en-us": "en", "en-gb": "en",
}  # fmt: skip


async def on_lang(update: Update, context: BotContext) -> None:
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    typed = (context.args or [""])[0].casefold()
    choice = LANGUAGE_NAMES.get(typed, typed)
    if choice not in LANGUAGES:
        await message.reply_text(t(await user_lang(context, user), "lang_usage"))
        return
    await people.choose_language(context.services, user.id, choice)
    remember_lang(context, choice)
    await message.reply_text(t(choice, "lang_set"))

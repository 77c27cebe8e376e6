"""Telegram handlers for sharing: the Share button (the result card as a photo), the
challenge button, ``/theme``, a board page "as image", and the ``start`` payloads of
shared links (a result, a challenge, a group's board; ``startgroup`` in a group).

Images are drawn in the render thread and uploaded once: Telegram's answer gives the
photo's ``file_id``, which is kept (``bot.core.sharing``) and sent from then on.
"""

from __future__ import annotations

import html
import logging
from typing import Any

from telegram import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message, Update
from telegram.constants import ChatType
from telegram.error import BadRequest, ChatMigrated

from scoring import registry

from ..core import boards, links, sharing, submissions
from ..core.bounded import parse_id
from ..core.errors import UserError
from ..render.bidi import figure_text
from ..render.boards import render_board
from ..render.card_views import isolated
from ..render.format import mode_label
from ..render.i18n import N_, t
from ..render.views import BoardPage
from .context import BotContext
from .guides import greet_group, send_questions
from .handlers import error_text, in_group, refresh, user_lang
from .keyboards import BOARD, BOARD_IMAGE, CHALLENGE, on_its_message, parse_board

log = logging.getLogger(__name__)

# --- sending an image once, then by file_id ----------------------------------------------


async def send_image(
    context: BotContext,
    chat_id: int,
    image: sharing.Image,
    caption: str,
    markup: InlineKeyboardMarkup | None = None,
    *,
    reply_to: int | None = None,
) -> Message:
    """Send an image by its cached ``file_id``, or draw and upload it and keep the
    ``file_id`` Telegram gives it."""
    services = context.services

    async def send(photo: Any) -> Message:
        return await context.bot.send_photo(
            chat_id, photo, caption=caption, reply_markup=markup, reply_to_message_id=reply_to
        )

    if image.file_id is not None:
        try:
            return await send(image.file_id)
        except BadRequest as exc:
            if not _refused_file(exc):
                raise
            log.info(
                "a cached card file id was refused: drawing it again", extra={"error": str(exc)}
            )
            image = await sharing.refused(services, image)
    sent = await send(await sharing.draw(services, image))
    if sent.photo:
        await sharing.uploaded(services, image, sent.photo[-1].file_id)
    return sent


#: What the Bot API says of a file id it does not know (another bot's, expired).
_FILE_REFUSALS = ("wrong file identifier", "wrong remote file", "file reference", "wrong file_id")


def _refused_file(error: BadRequest) -> bool:
    text = error.message.lower()
    return any(words in text for words in _FILE_REFUSALS)


def result_caption(lang: str, sub: submissions.Submission, link: str) -> str:
    """The caption of a shared card: who scored what, the credit, and the link."""
    benchmark = registry.get(sub.benchmark)
    text = t(
        lang,
        "share_caption",
        model=html.escape(sub.model or ""),
        mode=mode_label(sub.mode, lang) or "",
        benchmark=html.escape(benchmark.title),
        score=figure_text(lang, benchmark.format_score(sub.score)),
    )
    if benchmark.credit:
        text += "\n" + html.escape(benchmark.credit)
    return text + "\n" + t(lang, "share_open", link=html.escape(link))


async def result_buttons(
    context: BotContext, lang: str, sub: submissions.Submission, link: str, *, in_bot: bool = False
) -> InlineKeyboardMarkup:
    """The card's buttons: open it in the bot (not when it is shown there already) and
    challenge a friend with it."""
    challenge = InlineKeyboardButton(
        t(lang, "btn_challenge"), callback_data=f"{CHALLENGE}:{sub.id}"
    )
    if in_bot:
        return InlineKeyboardMarkup([[challenge]])
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(t(lang, "btn_open_in_bot"), url=link)], [challenge]]
    )


async def send_result_card(
    context: BotContext,
    chat_id: int,
    sub: submissions.Submission,
    lang: str,
    *,
    by: int | None,
    reply_to: int | None = None,
    in_bot: bool = False,
) -> Message:
    """A published result's card as a photo, with its caption, link and buttons
    (``in_bot``: opened by its link in the bot's chat, where "open in the bot" would
    link to itself)."""
    services = context.services
    token = await links.result_token(services, sub, created_by=by)
    link = links.start_link(services.bot_username, links.payload("result", token))
    image = await sharing.result_card(
        services, sub, lang=lang, theme_=await sharing.theme(services, by) if by else None
    )
    return await send_image(
        context,
        chat_id,
        image,
        result_caption(lang, sub, link),
        await result_buttons(context, lang, sub, link, in_bot=in_bot),
        reply_to=reply_to,
    )


async def _pressed_submission(
    update: Update, context: BotContext, *, challenge: bool = False
) -> tuple[Any, str, Any] | None:
    """The published result a Share or Challenge button names, when the presser may
    have it: its owner — or, for a challenge, whoever presses the button on the message
    that carries it (a shared card's). A result whose submitter is banned is shared by
    nobody; a forged id hands out nothing (the press is answered)."""
    query = update.callback_query
    if query is None:
        return None
    lang = await user_lang(context, query.from_user)
    if query.data is None or query.message is None:  # an inline message's: no card here
        await query.answer(t(lang, "gone"))
        return None
    parts = query.data.split(":")
    sub_id = parse_id(parts[1]) if len(parts) == 2 else None
    services, presser = context.services, query.from_user.id
    try:
        if sub_id is None:
            raise UserError("publish_first")
        if challenge:
            sub = await sharing.to_challenge(services, sub_id, presser)
            if sub.user_id != presser and not on_its_message(query):
                raise UserError("not_yours")
        else:
            sub = await sharing.to_share(services, sub_id, presser)
    except UserError as exc:
        await query.answer(error_text(lang, exc), show_alert=True)
        if exc.key == "publish_first" and sub_id is not None:
            await _as_it_stands(context, query, sub_id, lang)
        return None
    return query, lang, sub


async def _as_it_stands(context: BotContext, query: CallbackQuery, sub_id: int, lang: str) -> None:
    """A score card whose result was withdrawn since (from /me), pressed by its owner:
    shown as it now stands, with Publish, so that "publish it first" can be done there
    (a shared card, a photo, is left alone)."""
    message = query.message
    if not isinstance(message, Message) or message.text is None or not on_its_message(query):
        return
    try:
        sub = await submissions.owned(context.services, sub_id, query.from_user.id)
    except UserError:  # someone else's card: nothing of theirs to show
        return
    await refresh(context, sub, message.chat.id, message.message_id, lang)


async def on_share_button(update: Update, context: BotContext) -> None:
    """Share: the result card as a photo in this chat, with a caption and a link back."""
    found = await _pressed_submission(update, context)
    if found is None:
        return
    query, lang, sub = found
    await query.answer()
    try:
        await send_result_card(
            context, query.message.chat.id, sub, lang, by=query.from_user.id,
            reply_to=query.message.message_id,
        )  # fmt: skip
    except ChatMigrated as exc:  # an old card of a group upgraded since: to its supergroup
        await send_result_card(context, exc.new_chat_id, sub, lang, by=query.from_user.id)


def challenge_beat(lang: str, challenge: sharing.Challenge, title: str) -> str:
    """The line "beat <score> by <model> on <benchmark>" (HTML): in Persian the score a
    left-to-right run in Persian digits (``+24``, not ``24+``), the name kept whole."""
    return t(lang, "challenge_beat", score=figure_text(lang, challenge.score),
             model=isolated(lang, html.escape(challenge.model)),
             benchmark=html.escape(title))  # fmt: skip


async def on_challenge_button(update: Update, context: BotContext) -> None:
    """Challenge a friend: a link that opens the bot with the benchmark, its prompt and
    "beat <score> by <model>"."""
    found = await _pressed_submission(update, context, challenge=True)
    if found is None:
        return
    query, lang, sub = found
    services = context.services
    token = await links.challenge_token(services, sub, created_by=query.from_user.id)
    link = links.start_link(services.bot_username, links.payload("challenge", token))
    challenge = sharing.challenge_of(sub)
    benchmark = registry.get(sub.benchmark)
    title = benchmark.title
    beat = challenge_beat(lang, challenge, title)
    invite = t(
        lang, "challenge_invite", score=challenge.score, model=challenge.model, benchmark=title
    )
    if benchmark.credit:  # the friend is shown the score too
        invite += "\n" + benchmark.credit
    markup = InlineKeyboardMarkup(
        [[InlineKeyboardButton(t(lang, "btn_send_challenge"), url=links.share_url(link, invite))]]
    )
    await query.answer()
    text = t(lang, "challenge_link", beat=beat, link=html.escape(link))
    if benchmark.credit:  # a score is shown: its benchmark's credit with it
        text += "\n" + html.escape(benchmark.credit)
    try:
        await context.bot.send_message(
            query.message.chat.id,
            text,
            reply_markup=markup,
            reply_to_message_id=query.message.message_id,
        )
    except ChatMigrated as exc:  # an old card of a group upgraded since: to its supergroup
        await context.bot.send_message(exc.new_chat_id, text, reply_markup=markup)


# --- the card theme ------------------------------------------------------------------

#: The themes in words, by name (``theme_`` + the name).
THEME_IDS = (N_("theme_light"), N_("theme_dark"))


async def on_theme(update: Update, context: BotContext) -> None:
    """``/theme light|dark``: the look of the user's result cards and board images."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    lang = await user_lang(context, user)
    args = context.args or []
    if not args:
        current = await sharing.theme(context.services, user.id)
        await message.reply_text(t(lang, "theme_current", theme=t(lang, f"theme_{current}")))
        return
    try:
        chosen = await sharing.set_theme(context.services, user.id, args[0])
    except UserError as exc:
        await message.reply_text(error_text(lang, exc))
        return
    await message.reply_text(t(lang, "theme_set", theme=t(lang, f"theme_{chosen}")))


# --- a board page as an image ------------------------------------------------------------


async def on_board_image_button(update: Update, context: BotContext) -> None:
    query = update.callback_query
    if query is None:
        return
    lang = await user_lang(context, query.from_user)
    if query.data is None or query.message is None:  # an inline message's: no chat here
        await query.answer(t(lang, "gone"))
        return
    board_query = parse_board(BOARD + query.data[len(BOARD_IMAGE) :])
    if board_query is None:
        await query.answer(t(lang, "gone"))
        return
    chat, reply_to = query.message.chat, query.message.message_id
    try:
        page = await boards.page(
            context.services, board_query, chat_id=chat.id, user_id=query.from_user.id
        )
    except UserError as exc:
        await query.answer(error_text(lang, exc))
        return
    await query.answer()
    try:
        await _send_board_image(context, query, lang, page, chat.id, reply_to)
    except ChatMigrated as exc:
        # an old board of a group upgraded since: the supergroup's board (where its
        # results are now), to the supergroup
        page = await boards.page(
            context.services, board_query, chat_id=exc.new_chat_id, user_id=query.from_user.id
        )
        await _send_board_image(context, query, lang, page, exc.new_chat_id, None)


async def _send_board_image(
    context: BotContext,
    query: CallbackQuery,
    lang: str,
    page: BoardPage,
    chat_id: int,
    reply_to: int | None,
) -> None:
    """A board page as an image in the chat whose button asked for it (``chat_id``)."""
    assert query.message is not None
    services, chat, board_query = context.services, query.message.chat, page.query
    view = sharing.board_view(
        page,
        lang=lang,
        theme_=await sharing.theme(services, query.from_user.id),
        chat_title=chat.title if in_group(chat) else None,
        bot_username=services.bot_username,
    )
    caption = t(lang, "board_image_caption", benchmark=html.escape(page.benchmark.title))
    if page.benchmark.credit:
        caption += "\n" + html.escape(page.benchmark.credit)
    buttons = [InlineKeyboardButton(t(lang, "btn_add_to_group"),
                                    url=links.startgroup_link(services.bot_username))]  # fmt: skip
    if in_group(chat) and board_query.scope == "c":
        token = await links.group_token(services, chat_id, created_by=query.from_user.id)
        link = links.start_link(services.bot_username, links.payload("group", token))
        caption += "\n" + t(lang, "board_link", link=html.escape(link))
    image = await sharing.board_image(services, view)
    await send_image(context, chat_id, image, caption, InlineKeyboardMarkup([buttons]),
                     reply_to=reply_to)  # fmt: skip


# --- start payloads ------------------------------------------------------------------------


async def open_start(update: Update, context: BotContext, payload: str) -> bool:
    """``/start <payload>`` of a shared link, or in a group (as a ``startgroup`` link
    sends it): handled here (True), or not one of ours (False)."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return False
    lang = await user_lang(context, user)
    services = context.services
    if in_group(message.chat):
        if not payload:
            return False  # a bare /start typed in a group: the welcome
        # added through a startgroup link (its payload): how the bot works here, once
        # (the member update that came with it may have said it already)
        await greet_group(context, message.chat, lang, once=True)
        return True
    if payload == "board":  # the button of an inline top-five image: the global board
        query = boards.BoardQuery(registry.DEFAULT, "g", None, 0, 0)
        page = await boards.page(services, query, chat_id=message.chat.id, user_id=user.id)
        await message.reply_text(render_board(page, lang=lang))
        return True
    parsed = links.parse_payload(payload)
    if parsed is None:
        cut = links.PREFIXES.get(payload)  # a link cut right after its kind (``c_``)
        if cut is None:
            return False
        await message.reply_text(_not_available(lang, cut))
        return True
    opened = await links.open_payload(services, payload)
    if opened is None:  # what was behind it, and what to do instead
        await message.reply_text(_not_available(lang, parsed[0]))
        return True
    if opened.kind == "result" and opened.submission is not None:
        sub = opened.submission
        await send_result_card(context, message.chat.id, sub, lang, by=user.id, in_bot=True)
        if sub.user_id != user.id and not await services.store.count_history(user.id):
            # someone new, arrived through a shared result: what the bot is, and how to
            # put their own model on the same board
            benchmark = registry.get(sub.benchmark)
            await message.reply_text(
                t(lang, "shared_welcome", benchmark=html.escape(benchmark.title),
                  name=benchmark.name)
            )  # fmt: skip
    elif opened.kind == "challenge" and opened.submission is not None:
        await _open_challenge(message, context, lang, opened.submission)
    elif opened.chat_id is not None:
        query = boards.BoardQuery(registry.DEFAULT, "c", None, 0, 0)
        page = await boards.page(services, query, chat_id=opened.chat_id, user_id=user.id)
        title = await sharing.group_title(services, opened.chat_id)
        head = t(lang, "group_board_of", title=html.escape(title)) if title else ""
        await message.reply_text((head + "\n" if head else "") + render_board(page, lang=lang))
    return True


def _not_available(lang: str, kind: links.PayloadKind) -> str:
    if kind == "challenge":
        return t(lang, "challenge_not_available")
    if kind == "group":
        return t(lang, "board_link_not_available")
    return t(lang, "link_not_available")


async def _open_challenge(
    message: Message, context: BotContext, lang: str, sub: submissions.Submission
) -> None:
    """The challenge's benchmark, its official prompt and what to beat; the user's next
    result on that benchmark answers it (its card says so)."""
    challenge = sharing.challenge_of(sub)
    if message.from_user is not None:
        await sharing.accept(context.services, message.from_user.id, challenge)
    benchmark = registry.get(sub.benchmark)
    beat = challenge_beat(lang, challenge, benchmark.title)
    text = t(lang, "challenge_opened", beat=beat)
    if benchmark.prompt:
        text += (
            "\n\n" + t(lang, "challenge_prompt") + f"\n<pre>{html.escape(benchmark.prompt)}</pre>"
        )
    elif challenge.target is not None:
        line = f"#{benchmark.name} target: {challenge.target}"
        text += "\n\n" + t(lang, "challenge_target", target=challenge.target,
                             line=f"<code>{html.escape(line)}</code>")  # fmt: skip
    if benchmark.credit:
        text += "\n" + html.escape(benchmark.credit)
    await message.reply_text(text)
    # and what the prompt is about, so the friend can run the benchmark from here
    await send_questions(context, message, benchmark, lang, missing_ok=True)


def is_private(message: Message | None) -> bool:
    return message is not None and message.chat.type == ChatType.PRIVATE

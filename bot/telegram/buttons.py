"""Telegram handlers of the inline buttons, one per action (the callback data's first
word, ``bot.telegram.keyboards``): a score reply's mode, model, publish and details
buttons, ``/me``'s withdraw and page buttons, and a board's page buttons.

A press edits only a message of the presser's own flow: a submission button must be
one of the buttons of the message it was pressed on (or that message the presser's),
and the submission the presser's; ``/me``'s buttons work in the private chat only
(where ``/me`` is shown); a board's page buttons on a board the bot sent the presser.
Any other press is answered (:func:`not_yours`) and edits nothing.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from telegram import CallbackQuery, ForceReply, Update
from telegram.constants import ChatType

from ..core import awaiting, submissions
from ..core.bounded import parse_count
from ..core.errors import UserError
from ..core.submissions import Submission
from ..render.format import fits, mode_label, render_invalid_lines
from ..render.i18n import t, tn
from ..render.trust_format import held_reason
from .commands import board_page, me_page
from .context import BotContext
from .handlers import card, edited, error_text, refresh, user_lang
from .keyboards import (
    CONFIRMED,
    MAX_PAGE,
    OPEN,
    WITHDRAW,
    markup,
    on_its_message,
    parse_action,
    parse_board,
    parse_history,
    pressed_on_own,
    withdraw_confirm_keyboard,
)


async def not_yours(query: CallbackQuery, lang: str) -> None:
    """The answer to a press on a message of someone else's flow (nothing is edited)."""
    await query.answer(t(lang, "not_your_message"), show_alert=True)


def _private(query: CallbackQuery) -> bool:
    """Pressed in the presser's private chat (``/me`` pages are shown only there)."""
    message = query.message
    return message is not None and message.chat.type == ChatType.PRIVATE and pressed_on_own(query)


@dataclass(frozen=True, slots=True)
class _Pressed:
    """A submission button pressed by the submission's owner."""

    query: CallbackQuery
    sub: Submission
    argument: str
    lang: str
    chat_id: int
    message_id: int


async def _pressed(update: Update, context: BotContext) -> _Pressed | None:
    """The pressed button, when its submission exists and belongs to the presser (else
    the press is answered here and None returned)."""
    query = update.callback_query
    if query is None:
        return None
    lang = await user_lang(context, query.from_user)
    parsed = parse_action(query.data) if query.data is not None else None
    if parsed is None or query.message is None:
        await query.answer(t(lang, "gone"))
        return None
    action, sub_id, argument = parsed
    try:
        sub = await submissions.owned(context.services, sub_id, query.from_user.id)
    except UserError as exc:
        await query.answer(error_text(lang, exc), show_alert=True)
        return None
    # the presser's own submission, pressed where: its own card (one of the message's
    # buttons) or a message of the presser's flow; /me's withdraw only where /me shows
    if not (on_its_message(query) or pressed_on_own(query)) or (
        action in (WITHDRAW, OPEN) and not _private(query)
    ):
        await not_yours(query, lang)
        return None
    message = query.message
    return _Pressed(query, sub, argument, lang, message.chat.id, message.message_id)


async def on_mode_button(update: Update, context: BotContext) -> None:
    pressed = await _pressed(update, context)
    if pressed is None:
        return
    lang = pressed.lang
    try:
        sub, mode = await submissions.set_mode(context.services, pressed.sub, pressed.argument)
    except UserError as exc:
        await pressed.query.answer(error_text(lang, exc))
        return
    await pressed.query.answer(t(lang, "mode_set", mode=mode_label(mode.value, lang) or mode.label))
    await refresh(context, sub, pressed.chat_id, pressed.message_id, lang)


async def on_model_button(update: Update, context: BotContext) -> None:
    pressed = await _pressed(update, context)
    if pressed is None:
        return
    if not submissions.editable(pressed.sub):
        error = UserError("fixed_once_published", id=pressed.sub.id)
        await pressed.query.answer(error_text(pressed.lang, error), show_alert=True)
        return
    await pressed.query.answer()
    sub_id, chat_id = pressed.sub.id, pressed.chat_id
    # selective ForceReply reaches the users @mentioned in the text: name the submitter.
    prompt = await context.bot.send_message(
        chat_id,
        pressed.query.from_user.mention_html() + " " + t(pressed.lang, "ask_model", id=sub_id),
        reply_markup=ForceReply(selective=True, input_field_placeholder="model name"),
        reply_to_message_id=pressed.message_id,
    )
    await awaiting.expect_model(
        context.services,
        pressed.query.from_user.id,
        awaiting.AwaitedModel(sub_id, chat_id, pressed.message_id, prompt.message_id),
    )


async def on_publish_button(update: Update, context: BotContext) -> None:
    pressed = await _pressed(update, context)
    if pressed is None:
        return
    query, lang = pressed.query, pressed.lang
    try:
        done = await submissions.publish(context.services, pressed.sub)
    except UserError as exc:
        await query.answer(error_text(lang, exc), show_alert=True)
        return
    if done.held is not None:  # the copy check: held for an admin, not published
        flag = done.held
        why = held_reason(lang, flag.reason, flag.agree, flag.of, flag.match, flag.wrong)
        await query.answer(
            t(lang, "held_publish", id=done.submission.id, reason=why), show_alert=True
        )
        if not done.already:
            await refresh(context, done.submission, pressed.chat_id, pressed.message_id, lang)
        return
    if done.already:
        await query.answer(t(lang, "already_published", id=done.submission.id))
        return
    text = tn(lang, "published", done.limit, id=done.submission.id, left=done.left)
    if done.twin is not None:  # equal answer sets for the same model and mode: one run
        text += " " + t(lang, "same_run", id=done.twin)
    await query.answer(text, show_alert=done.twin is not None)
    await refresh(context, done.submission, pressed.chat_id, pressed.message_id, lang)


async def on_details_button(update: Update, context: BotContext) -> None:
    """The invalid lines the card does not show whole, as a message when they fit; else
    every invalid line as a file."""
    pressed = await _pressed(update, context)
    if pressed is None:
        return
    await pressed.query.answer()
    sub, lang = pressed.sub, pressed.lang
    result = submissions.result_of(sub)
    text = render_invalid_lines(result, lang, sub.id, rest=True)
    if fits(text):
        await context.bot.send_message(
            pressed.chat_id, text, parse_mode=None, reply_to_message_id=pressed.message_id
        )
        return
    text = render_invalid_lines(result, lang, sub.id)
    await context.bot.send_document(
        pressed.chat_id,
        io.BytesIO(text.encode()),
        filename=f"invalid-lines-{sub.id}.txt",
        caption=tn(lang, "details_file", result.invalid_line_count, id=sub.id),
        parse_mode=None,
        reply_to_message_id=pressed.message_id,
    )


async def on_withdraw_button(update: Update, context: BotContext) -> None:
    """Withdraw a result from ``/me``; the page is shown again as it now stands."""
    pressed = await _pressed(update, context)
    if pressed is None:
        return
    query, lang = pressed.query, pressed.lang
    page_text, _, confirmed = pressed.argument.partition(":")
    page = parse_count(page_text, MAX_PAGE) or 0
    if confirmed != CONFIRMED:  # the first press asks
        await query.answer()
        asking = withdraw_confirm_keyboard(lang, pressed.sub.id, page)
        await edited(query.edit_message_reply_markup(reply_markup=asking))
        return
    try:
        await submissions.withdraw(context.services, pressed.sub.id, query.from_user.id)
    except UserError as exc:
        await query.answer(error_text(lang, exc), show_alert=True)
        return
    await query.answer(t(lang, "withdrawn", id=pressed.sub.id), show_alert=True)
    text, keyboard = await me_page(context, query.from_user.id, lang, page)
    await edited(query.edit_message_text(text, reply_markup=keyboard))


async def on_open_button(update: Update, context: BotContext) -> None:
    """``/me``: a withdrawn or private result's card again, with its buttons (to publish
    it), as a new message."""
    pressed = await _pressed(update, context)
    if pressed is None:
        return
    await pressed.query.answer()
    shown, buttons = await card(context, pressed.sub, pressed.lang)
    await context.bot.send_message(
        pressed.chat_id, shown, reply_markup=markup(buttons) if buttons else None
    )


async def on_history_button(update: Update, context: BotContext) -> None:
    """Another page of ``/me`` (only ever the presser's own results)."""
    query = update.callback_query
    if query is None:
        return
    lang = await user_lang(context, query.from_user)
    page = parse_history(query.data) if query.data is not None else None
    if page is None or query.message is None:
        await query.answer(t(lang, "gone"))
        return
    if not _private(query):
        await not_yours(query, lang)
        return
    await query.answer()
    text, keyboard = await me_page(context, query.from_user.id, lang, page)
    await edited(query.edit_message_text(text, reply_markup=keyboard))


async def on_unknown_button(update: Update, context: BotContext) -> None:
    """A button of an older version of the bot, or data nobody sends."""
    query = update.callback_query
    if query is not None:
        await query.answer(t(await user_lang(context, query.from_user), "gone"))


async def on_board_button(update: Update, context: BotContext) -> None:
    query = update.callback_query
    if query is None:
        return
    lang = await user_lang(context, query.from_user)
    board_query = parse_board(query.data) if query.data is not None else None
    if board_query is None or query.message is None:
        await query.answer(t(lang, "gone"))
        return
    if not pressed_on_own(query):
        await not_yours(query, lang)
        return
    try:
        text, keyboard = await board_page(
            context, board_query, query.message.chat, query.from_user.id, lang
        )
    except UserError as exc:
        await query.answer(error_text(lang, exc))
        return
    await query.answer()
    await edited(query.edit_message_text(text, reply_markup=keyboard))

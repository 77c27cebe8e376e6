"""What a user types that is no command: an output to score, or, for a score card, the
model name and mode (the answer to the Model button's question, a reply to the card,
an edit of either, a mode word on its own)."""

from __future__ import annotations

import html

from telegram import Message, Update
from telegram.constants import ChatType

from scoring import Mode, UnknownMode, parse_mode

from ..core import awaiting, classify, submissions
from ..core.errors import UserError
from ..core.pastes import Pastes
from ..core.submissions import Submission
from ..core.tags import clean_model
from ..render.format import mode_label
from ..render.i18n import t
from .context import BotContext
from .handlers import from_this_bot, in_group, pastes, refresh, reply_error, score, user_lang
from .keyboards import MODEL, parse_action


async def on_private_text(update: Update, context: BotContext) -> None:
    message, user = update.effective_message, update.effective_user
    if message is None or message.text is None or user is None:
        return
    part = pastes(context).role(message.chat_id, user.id, message.message_id)
    if part is not None:
        paste, first = part
        if first:
            text = await pastes(context).gather(paste)
            await score(update, context, message, text=text, paste=paste)
            return
        if await Pastes.joined(paste):
            return  # the first part's card holds this part too
    if from_this_bot(message, context.bot.id):  # no model name either: score() says so
        await score(update, context, message, text=message.text)
        return
    if await _take_model_name(update, context, message.text):
        return
    if await _reply_to_card(update, context, message.text):
        return
    mode = mode_word(message.text)
    if mode is not None:  # "think" typed on its own: where a mode is chosen
        lang = await user_lang(context, user)
        word = message.text.strip()
        label = mode_label(mode.value, lang) or mode.label
        tag = f"#{mode.value}"
        await reply_error(message, lang, UserError("mode_word", word=word, mode=label, tag=tag))
        return
    await score(update, context, message, text=message.text)


async def on_edited(update: Update, context: BotContext) -> None:
    """Edits are not re-scored: the stored score stands; a new message is a new submission.
    A reply to a card that named its model, edited (a typo fixed), names it again."""
    message = update.effective_message
    if message is None:
        return
    if message.text is not None and (
        await _named_again(update, context, message.text)
        or await _reply_to_card(update, context, message.text)
    ):
        return
    await message.reply_text(t(await user_lang(context, update.effective_user), "edited"))


async def on_reply_in_group(update: Update, context: BotContext) -> None:
    """A reply to the bot's "send the model name" prompt."""
    message = update.effective_message
    if message is not None and message.text:
        await _take_model_name(update, context, message.text)


async def _take_model_name(update: Update, context: BotContext, text: str) -> bool:
    message, user = update.effective_message, update.effective_user
    if (
        message is None
        or user is None
        or text.startswith("/")
        # a pasted output (several lines) is a new submission, not a model name
        or "\n" in text.strip()
        # in a group, only the answer to the bot's prompt is the model name
        or (in_group(update.effective_chat) and message.reply_to_message is None)
    ):
        return False
    # kept in the database: the Model button may have been pressed on another instance
    awaited = await awaiting.awaited_model(context.services, user.id)
    if awaited is None:
        return False
    sub_id, chat_id, reply_id = awaited.submission_id, awaited.chat_id, awaited.card_id
    replied = message.reply_to_message
    answered = replied is not None and replied.message_id == awaited.prompt_id
    if chat_id != message.chat_id or (in_group(update.effective_chat) and not answered):
        return False
    answer = _model_answer(text)
    if answer is None:
        return False  # an output on one line (1:3 2:4, an expression): scored as one
    mode, model = answer
    if model is not None and (
        not model or not await awaiting.take_model(context.services, user.id, awaited)
    ):
        return False
    lang = await user_lang(context, update.effective_user)
    try:
        # a mode alone: the name is still to come
        sub, said = await _name(context, message, lang, user.id, sub_id, mode, model, ask=True)
    except UserError as exc:  # published (or held) since the button was pressed
        await awaiting.take_model(context.services, user.id, awaited)
        await reply_error(message, lang, exc)
        return True
    if model is None:  # the name is asked again: in a group, a reply to that question
        again = awaiting.AwaitedModel(sub_id, chat_id, reply_id, said.message_id)
        await awaiting.expect_model(context.services, user.id, again)
    else:  # an edit of this message (a typo fixed) names the model again
        await awaiting.remember_naming(
            context.services, message.chat_id, message.message_id, awaited
        )
    await refresh(context, sub, chat_id, reply_id, lang)
    return True


async def _named_again(update: Update, context: BotContext, text: str) -> bool:
    """An edit of the message that gave a model name after the Model button: the name
    (or a ``model:`` line) it says now."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return False
    named = await awaiting.naming(context.services, message.chat_id, message.message_id)
    answer = _model_answer(text) if named is not None and "\n" not in text.strip() else None
    if named is None or answer is None or not answer[1]:
        return False
    lang = await user_lang(context, user)
    try:
        sub, _ = await _name(
            context, message, lang, user.id, named.submission_id, answer[0], answer[1], ask=False
        )
    except UserError as exc:  # published since
        await reply_error(message, lang, exc)
        return True
    await refresh(context, sub, named.chat_id, named.card_id, lang)
    return True


async def _name(
    context: BotContext,
    message: Message,
    lang: str,
    user_id: int,
    sub_id: int,
    mode: Mode | None,
    model: str | None,
    *,
    ask: bool,
) -> tuple[Submission, Message]:
    """Set the mode and the model name (either None) of the user's submission, and say
    so (``ask``: and ask for the name when only the mode came); the submission, and what
    was said. Raises UserError (not theirs, published or held)."""
    said = []
    sub = await submissions.owned(context.services, sub_id, user_id)
    if mode is not None:
        sub, mode = await submissions.set_mode(context.services, sub, mode.value)
        said.append(t(lang, "mode_set", mode=mode_label(mode.value, lang) or mode.label))
    if model is not None:
        sub = await submissions.set_model(context.services, sub_id, model)
        said.insert(0, t(lang, "model_set", model=html.escape(model)))
    elif ask:
        said.append(t(lang, "ask_model", id=sub_id))
    return sub, await message.reply_text(" ".join(said))


#: The longest line a reply to a card is read as a model name from.
CARD_REPLY_CHARS = 80


def _card_of(message: Message | None, bot_id: int) -> int | None:
    """The submission of a score card of the bot's whose model may still be set (its
    Model button), or None."""
    if message is None or message.from_user is None or message.from_user.id != bot_id:
        return None
    markup = message.reply_markup
    for row in markup.inline_keyboard if markup is not None else ():
        for button in row:
            data = button.callback_data
            parsed = parse_action(data) if isinstance(data, str) else None
            if parsed is not None and parsed[0] == MODEL:
                return parsed[1]
    return None


async def _reply_to_card(update: Update, context: BotContext, text: str) -> bool:
    """A private reply to one of the bot's score cards with one short line that is no
    output: its model name, or its mode (``think``), or a ``model:`` line — as the
    Model button's prompt takes them. A question (``why -3?``) is no name."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None or message.chat.type != ChatType.PRIVATE:
        return False
    sub_id = _card_of(message.reply_to_message, context.bot.id)
    line = text.strip()
    if sub_id is None or not line or "\n" in line or len(line) > CARD_REPLY_CHARS:
        return False
    if line.startswith("/") or line.endswith(("?", "؟")):
        return False
    answer = _model_answer(line)
    if answer is None:
        return False  # an output on one line: scored as one
    mode, model = answer
    if model == "":
        return False
    lang = await user_lang(context, user)
    try:
        sub, _ = await _name(context, message, lang, user.id, sub_id, mode, model, ask=False)
    except UserError as exc:
        await reply_error(message, lang, exc)
        return True
    card = message.reply_to_message
    assert card is not None
    await refresh(context, sub, card.chat_id, card.message_id, lang)
    return True


#: The longest text read as a mode word (``think & tools``, ``non-thinking``).
MODE_WORD_CHARS = 40


def mode_word(text: str) -> Mode | None:
    """The mode a short line names on its own (``think``, ``#think_tools``, ``Thinking &
    Tool Use``), else None."""
    line = text.strip()
    if not line or len(line) > MODE_WORD_CHARS or "\n" in line:
        return None
    try:
        return parse_mode(line)
    except UnknownMode:
        return None


def _model_answer(text: str) -> tuple[Mode | None, str | None] | None:
    """What a line sent for the model name gives: (mode, model name), either None; None
    for an output a benchmark reads (a one-line paste), which is scored instead. A mode
    word is the mode (no model is named "think"); a ``model:`` line is its name (and
    the mode it may carry); any other line is the name as typed."""
    reading = classify.read(text.strip())
    if reading.benchmark is not None:
        return None
    if reading.spans:  # tags: a model: line, a mode hashtag
        tags = reading.tags
        if tags.model is None and tags.mode is None:
            return None
        return tags.mode, None if tags.model is None else clean_model(tags.model)
    mode = mode_word(text)
    return (mode, None) if mode is not None else (None, clean_model(text))

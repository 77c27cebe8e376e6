"""Inline mode: ``@bot`` in any chat lists the user's published results (newest first;
the query filters by model or benchmark), and ``@bot top [benchmark]`` the top five as
a board image. Choosing a result posts its card, with a button that opens it in the
bot.

Telegram takes an inline photo as a URL or as the ``file_id`` of a photo it already
has. Cards are therefore uploaded once, with ``sendPhoto``, to a chat the bot can
write to — ``BENCHBOARD_CARD_CHAT`` when set, else the user's private chat with the
bot (where the upload is deleted at once) — and their ``file_id`` is kept, so every
later answer is ``InlineQueryResultCachedPhoto`` with no drawing and no upload. An
answer uploads at most :data:`UPLOADS_PER_ANSWER` new cards and gives up uploading after
:data:`UPLOAD_SECONDS` (a draw queued behind others' included), so it comes well within
Telegram's limit under load; a result whose card is not uploaded yet is offered as a
text article (its summary and the same button), and its card is uploaded in the
background when a result is chosen (the chosen-result feedback, ``/setinlinefeedback``),
so the next answer has it.
Answers are personal (``is_personal``) and cached for :data:`CACHE_SECONDS`.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
import time
from collections.abc import Sequence

from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResult,
    InlineQueryResultArticle,
    InlineQueryResultCachedPhoto,
    InlineQueryResultsButton,
    InputTextMessageContent,
    Update,
)
from telegram.error import BadRequest, ChatMigrated, Forbidden

from scoring import registry

from ..core import links, people, sharing, submissions
from ..render.format import mode_label
from ..render.i18n import N_, t
from .context import BotContext
from .handlers import user_lang
from .share_handlers import result_caption

log = logging.getLogger("benchboard")

CACHE_SECONDS = 10
#: The button of an answer with no results: nothing published, or nothing that matches.
NOTHING = (N_("inline_nothing"), N_("inline_no_match"), N_("inline_top_in_bot"))
UPLOADS_PER_ANSWER = 3
UPLOAD_SECONDS = 4.0


async def upload(context: BotContext, user_id: int, image: sharing.Image) -> str | None:
    """Upload an image to get its ``file_id`` (kept): to the card chat, else to the
    user's private chat (deleted at once). None when there is nowhere to upload it."""
    services = context.services
    chat_id = services.settings.card_chat
    if chat_id is None:
        if not await people.has_private_chat(services, user_id):
            return None
        chat_id = user_id
    png = await sharing.draw(services, image)
    try:
        try:
            sent = await context.bot.send_photo(chat_id, png, disable_notification=True)
        except ChatMigrated as exc:
            # the card chat, a group, became a supergroup: uploaded there (the setting
            # names the old id until the operator changes it)
            log.warning(
                "BENCHBOARD_CARD_CHAT %s is now the supergroup %s: set it to the new id",
                chat_id,
                exc.new_chat_id,
            )
            chat_id = exc.new_chat_id
            sent = await context.bot.send_photo(chat_id, png, disable_notification=True)
    except (BadRequest, Forbidden) as exc:
        log.warning("cannot upload a card to chat %s: %s", chat_id, exc)
        return None
    if not sent.photo:
        return None
    file_id = sent.photo[-1].file_id
    await sharing.uploaded(services, image, file_id)
    if chat_id == user_id:
        with contextlib.suppress(BadRequest, Forbidden):  # else left: the user's own card
            await context.bot.delete_message(chat_id, sent.message_id)
    return file_id


class _Budget:
    """How many uploads an answer may still make, and until when."""

    def __init__(self) -> None:
        self.left = UPLOADS_PER_ANSWER
        self.until = time.monotonic() + UPLOAD_SECONDS

    def take(self) -> bool:
        if self.left <= 0 or self.remaining() <= 0:
            return False
        self.left -= 1
        return True

    def remaining(self) -> float:
        return self.until - time.monotonic()


async def bounded_upload(
    context: BotContext, user_id: int, image: sharing.Image, seconds: float
) -> str | None:
    """:func:`upload` within ``seconds`` (the render thread may be busy under load): None
    when it takes longer, and the answer goes on without it."""
    try:
        return await asyncio.wait_for(upload(context, user_id, image), max(seconds, 0.1))
    except TimeoutError:
        log.info("a card upload outlasted the inline answer's budget")
        return None


def _open_button(lang: str, link: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(t(lang, "btn_open_in_bot"), url=link)]])


async def _result_item(
    context: BotContext, lang: str, theme: str, sub: submissions.Submission, budget: _Budget
) -> InlineQueryResult:
    services = context.services
    token = await links.result_token(services, sub, created_by=sub.user_id)
    link = links.start_link(services.bot_username, links.payload("result", token))
    image = await sharing.result_card(services, sub, lang=lang, theme_=theme)
    file_id = image.file_id
    if file_id is None and budget.take():
        file_id = await bounded_upload(context, sub.user_id, image, budget.remaining())
    benchmark = registry.get(sub.benchmark)
    title = f"{sub.model} · {benchmark.title} · {benchmark.format_score(sub.score)}"
    description = mode_label(sub.mode, lang) or ""
    caption = result_caption(lang, sub, link)
    result_id = f"r:{sub.id}"
    if file_id is not None:
        return InlineQueryResultCachedPhoto(
            result_id,
            file_id,
            title=title[:100],
            description=description,
            caption=caption,
            reply_markup=_open_button(lang, link),
        )
    return InlineQueryResultArticle(
        result_id,
        title[:100],
        InputTextMessageContent(caption),
        description=description,
        reply_markup=_open_button(lang, link),
    )


async def _top_item(
    context: BotContext, lang: str, theme: str, words: Sequence[str], user_id: int
) -> InlineQueryResult | None:
    services = context.services
    view = await sharing.top_view(services, words, lang=lang, theme_=theme)
    image = await sharing.board_image(services, view)
    file_id = image.file_id or await bounded_upload(context, user_id, image, UPLOAD_SECONDS)
    if file_id is None:
        return None
    caption = t(lang, "board_image_caption", benchmark=html.escape(view.benchmark.title))
    if view.benchmark.credit:
        caption += "\n" + html.escape(view.benchmark.credit)
    link = links.start_link(services.bot_username, "board")
    return InlineQueryResultCachedPhoto(
        f"t:{image.key[:32]}",
        file_id,
        title=t(lang, "inline_top_title", benchmark=view.benchmark.title),
        caption=caption,
        reply_markup=_open_button(lang, link),
    )


#: The largest offset an inline query is paged to (far past what anyone publishes).
MAX_INLINE_OFFSET = 1_000_000


def inline_offset(text: str) -> int | None:
    """The offset of an inline query's ``next_offset``: 0 for none or anything that is not
    ASCII digits (``²`` passes ``isdigit()``), None past :data:`MAX_INLINE_OFFSET` (the
    database cannot take 25 digits; nothing is there anyway)."""
    if not (text.isascii() and text.isdigit()):
        return 0
    if len(text) > len(str(MAX_INLINE_OFFSET)) or int(text) > MAX_INLINE_OFFSET:
        return None
    return int(text)


async def on_inline_query(update: Update, context: BotContext) -> None:
    query = update.inline_query
    if query is None:
        return
    user = query.from_user
    lang = await user_lang(context, user)
    services = context.services
    theme = await sharing.theme(services, user.id)
    words = query.query.split()
    results: list[InlineQueryResult] = []
    next_offset = ""
    nothing, start = "inline_nothing", "inline"
    if words and words[0].lower() == sharing.TOP_WORD:
        item = await _top_item(context, lang, theme, words[1:], user.id)
        results = [item] if item is not None else []
        # no image (nowhere to upload it yet): the board in the bot
        nothing, start = "inline_top_in_bot", "board"
    else:
        offset = inline_offset(query.offset)
        found = (
            await sharing.inline_results(services, user.id, query.query, offset=offset)
            if offset is not None
            else []  # past any page we hand out: the end of the list
        )
        offset = offset or 0
        if words and not found and not offset:  # none of their results matches
            nothing = "inline_no_match"
        budget = _Budget()
        for sub in found:
            results.append(await _result_item(context, lang, theme, sub, budget))
        if len(found) == sharing.INLINE_PAGE:
            next_offset = str(offset + len(found))
    button = None
    if not results:
        button = InlineQueryResultsButton(t(lang, nothing), start_parameter=start)
    await query.answer(
        results,
        cache_time=CACHE_SECONDS,
        is_personal=True,
        next_offset=next_offset,
        button=button,
    )


async def on_chosen_inline_result(update: Update, context: BotContext) -> None:
    """A result was chosen (``/setinlinefeedback``): upload, in the background, the
    cards of the user's latest results that were offered as text, so the next answer
    shows them all as cards."""
    chosen = update.chosen_inline_result
    if chosen is None:
        return
    user = chosen.from_user
    log.info("inline result %s chosen by %s", chosen.result_id, user.id)
    context.services.spawn(_warm(context, user.id, await user_lang(context, user)))


async def _warm(context: BotContext, user_id: int, lang: str) -> None:
    services = context.services
    theme = await sharing.theme(services, user_id)
    for sub in await sharing.inline_results(services, user_id, ""):
        image = await sharing.result_card(services, sub, lang=lang, theme_=theme)
        if image.file_id is None and await upload(context, user_id, image) is None:
            return
        await asyncio.sleep(0)

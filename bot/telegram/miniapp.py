"""The Mini App's "Share": a published result made a prepared inline message.

The Mini App (``bot/web/static/miniapp.js``) asks ``POST /app/share`` with its signed
``initData`` and a result's token; the web handler checks the sign-in
(``bot.web.initdata``) and calls the :data:`Preparer` it was given, which is this
module's: ``savePreparedInlineMessage`` for that user with the result's card (its
cached photo when it was uploaded once, else the same text the inline mode offers) and
the button that opens it in the bot. The app then calls
``Telegram.WebApp.shareMessage(id)``: Telegram lets the user pick a chat and sends it.

The web boards run beside the bot (webhook mode: the application's bot) or alone
(``benchboard web``: a bot object of their own, no polling, built here), so the Bot API
is reached only from ``bot.telegram``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResult,
    InlineQueryResultArticle,
    InlineQueryResultCachedPhoto,
    InputTextMessageContent,
)
from telegram.constants import ParseMode

from scoring import registry

from ..core import links, sharing
from ..core.errors import UserError
from ..core.services import Services
from ..render.format import mode_label
from ..render.i18n import t
from .share_handlers import result_caption

log = logging.getLogger("benchboard")

#: (user id, result token, language) -> the prepared message's id. Raises
#: :class:`UserError` ``web_not_found`` for a token that is no published result.
Preparer = Callable[[int, str, str], Awaitable[str]]


async def prepared_result(bot: Bot, services: Services, user_id: int, token: str, lang: str) -> str:
    """Save the published result ``token`` as a message ``user_id`` may send from the
    Mini App; its id."""
    sub = await links.open_result(services, token)
    if sub is None:
        raise UserError("web_not_found")
    await bot.initialize()  # once (getMe): a bot of the web's own starts lazily
    link = links.start_link(bot.username, links.payload("result", token))
    benchmark = registry.get(sub.benchmark)
    caption = result_caption(lang, sub, link)
    markup = InlineKeyboardMarkup([[InlineKeyboardButton(t(lang, "btn_open_in_bot"), url=link)]])
    title = f"{sub.model} · {benchmark.title} · {benchmark.format_score(sub.score)}"[:100]
    image = await sharing.result_card(services, sub, lang=lang)
    result: InlineQueryResult
    if image.file_id is not None:
        result = InlineQueryResultCachedPhoto(
            f"r:{sub.id}", image.file_id, title=title, caption=caption,
            parse_mode=ParseMode.HTML, reply_markup=markup,
        )  # fmt: skip
    else:
        result = InlineQueryResultArticle(
            f"r:{sub.id}", title, InputTextMessageContent(caption, parse_mode=ParseMode.HTML),
            description=mode_label(sub.mode, lang) or "", reply_markup=markup,
        )  # fmt: skip
    prepared = await bot.save_prepared_inline_message(
        user_id,
        result,
        allow_user_chats=True,
        allow_bot_chats=True,
        allow_group_chats=True,
        allow_channel_chats=True,
    )
    return prepared.id


def preparer(bot: Bot, services: Services) -> Preparer:
    """The web handler's :data:`Preparer` over ``bot``."""

    async def prepare(user_id: int, token: str, lang: str) -> str:
        return await prepared_result(bot, services, user_id, token, lang)

    return prepare


def standalone_bot(token: str, base_url: str) -> Bot:
    """A bot object for ``benchboard web`` alone (its own HTTP pool, no updates; it
    asks ``getMe`` at its first share, so the boards start without the Bot API)."""
    return Bot(token, base_url=base_url)

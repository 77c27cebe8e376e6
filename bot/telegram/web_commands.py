"""Telegram handlers for the web boards: ``/public`` (whether one's name shows on the
web) and ``/weblink`` (a group's unguessable, revocable web board link, for its
admins)."""

from __future__ import annotations

import html
import logging

from telegram import Update
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError

from ..core import admin, links, people
from ..render.i18n import N_, t
from .context import BotContext
from .handlers import in_group, user_lang

log = logging.getLogger(__name__)

_CACHE = "web_admin_cache"


def web_base(context: BotContext) -> str | None:
    """The web boards' public address, when one is configured (``BENCHBOARD_WEB_URL``,
    else the webhook URL's origin)."""
    return context.services.settings.public_web_url


async def on_public(update: Update, context: BotContext) -> None:
    """``/public [on|off]``: show or hide one's name on the web boards (off by default);
    without a word, say which it is."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    lang = await user_lang(context, user)
    word = (context.args or [""])[0].lower()
    if word in ("on", "off"):
        await people.set_public(context.services, user.id, word == "on")
        public = word == "on"
    elif word:
        await message.reply_text(t(lang, "public_usage"))
        return
    else:
        public = await people.is_public(context.services, user.id)
    name = html.escape(user.first_name or "")
    key = N_("public_on") if public else N_("public_off")
    await message.reply_text(t(lang, key, name=name))


async def _group_admin(context: BotContext, chat_id: int, user_id: int) -> bool:
    cache = context.bot_data.get(_CACHE)
    if not isinstance(cache, admin.AdminCache):
        cache = context.bot_data[_CACHE] = admin.AdminCache()

    async def lookup(chat: int, user: int) -> bool:
        try:
            member = await context.bot.get_chat_member(chat, user)
        except TelegramError as exc:
            log.warning("getChatMember(%s, %s) failed: %s", chat, user, exc)
            return False
        return member.status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)

    actor = await admin.identify(
        context.services, cache, lookup, user_id=user_id, chat_id=chat_id, in_group=True
    )
    return actor.admin


async def on_weblink(update: Update, context: BotContext) -> None:
    """``/weblink`` in a group: its admins get the group board's web address;
    ``/weblink new`` revokes it and makes another."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    lang = await user_lang(context, user)
    if not in_group(message.chat):
        await message.reply_text(t(lang, "weblink_groups_only"))
        return
    if not await _group_admin(context, message.chat.id, user.id):
        await message.reply_text(t(lang, "not_admin"))
        return
    renew = (context.args or [""])[0].lower() == "new"
    token = await links.web_board_token(context.services, message.chat.id, by=user.id, renew=renew)
    base = web_base(context)
    if base is None:
        await message.reply_text(t(lang, "weblink_no_web", path=f"/g/{token}"))
        return
    key = N_("weblink_renewed") if renew else N_("weblink")
    await message.reply_text(t(lang, key, link=html.escape(f"{base}/g/{token}")))

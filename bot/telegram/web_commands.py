"""Telegram handlers for the web boards: ``/public`` (whether one's name shows on the
web) and ``/weblink`` (a group's unguessable, revocable web board link, for its
admins)."""

from __future__ import annotations

import html

from telegram import Update

from ..core import links, people
from ..render.i18n import N_, t
from .admin_handlers import asker
from .context import BotContext
from .handlers import in_group, user_lang


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
    who = await asker(update, context)
    if who is None or not who.admin:
        anonymous = who is not None and who.anonymous
        await message.reply_text(t(lang, N_("anonymous_admin") if anonymous else N_("not_admin")))
        return
    renew = (context.args or [""])[0].lower() == "new"
    token = await links.web_board_token(context.services, message.chat.id, by=user.id, renew=renew)
    base = web_base(context)
    if base is None:
        await message.reply_text(t(lang, "weblink_no_web", path=f"/g/{token}"))
        return
    key = N_("weblink_renewed") if renew else N_("weblink")
    await message.reply_text(t(lang, key, link=html.escape(f"{base}/g/{token}")))

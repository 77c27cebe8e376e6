"""``/token``: personal API tokens for scripts and CI (``bot.core.api``), in a private
chat only: ``/token`` makes one (shown once), ``/token list`` shows when each was made
and last used, ``/token revoke`` revokes them all."""

from __future__ import annotations

import html
from collections.abc import Sequence
from datetime import datetime

from telegram import Update
from telegram.constants import ChatType

from storage import ApiToken

from ..core import api
from ..render.i18n import digits, t, tn
from .context import BotContext
from .handlers import user_lang
from .web_commands import web_base


def _when(at: datetime | None, lang: str) -> str:
    if at is None:
        return t(lang, "token_never")
    return digits(lang, at.strftime("%Y-%m-%d %H:%M UTC"))  # the reader's digits


#: ``/token list``: the most recent tokens shown (a message holds 4,096 characters).
LISTED = 30


def token_list(lang: str, tokens: Sequence[ApiToken]) -> str:
    """``/token list``'s answer: how many live tokens, and the :data:`LISTED` most
    recent (numbered from the oldest), with how many older ones are not shown."""
    lines = [tn(lang, "token_list", len(tokens))]
    older = max(0, len(tokens) - LISTED)
    lines += [
        t(lang, "token_line", n=i, made=_when(tok.created_at, lang),
          used=_when(tok.last_used_at, lang))
        for i, tok in enumerate(tokens[older:], start=older + 1)
    ]  # fmt: skip
    if older:
        lines.append(tn(lang, "token_list_older", older))
    return "\n".join(lines)


async def on_token(update: Update, context: BotContext) -> None:
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    lang = await user_lang(context, user)
    if message.chat.type != ChatType.PRIVATE:
        # a token shown in a group is a token leaked
        await message.reply_text(t(lang, "token_private_only"))
        return
    word = (context.args or [""])[0].lower()
    services = context.services
    if word == "list":
        tokens = await api.tokens(services, user.id)
        if not tokens:
            await message.reply_text(t(lang, "token_none"))
            return
        await message.reply_text(token_list(lang, tokens))
    elif word == "revoke":
        revoked = await api.revoke(services, user.id)
        await message.reply_text(tn(lang, "token_revoked", revoked))
    elif word:
        await message.reply_text(t(lang, "token_usage"))
    else:
        made = await api.token_for(
            services, user.id, chat_id=message.chat_id, message_id=message.message_id
        )
        server = web_base(context) or "https://…"
        text = t(lang, "token_made", token=html.escape(made.token), server=html.escape(server))
        if made.replaced:  # handled again: the token made the first time is revoked
            text += "\n\n" + t(lang, "token_replaced")
        await message.reply_text(text)

"""Telegram handlers of trust: ``/flags`` and its buttons (admins), the owner told of a
decision, ``/notices on|off``, and the notices a re-score sends. Thin: ``bot.core``
decides, ``bot.render.trust_format`` writes."""

from __future__ import annotations

import logging

from telegram import Bot, InlineKeyboardMarkup, Message, Update
from telegram.error import TelegramError

from scoring import registry
from storage import Visibility

from ..core import admin, submissions, trust
from ..core.errors import UserError
from ..core.services import Services
from ..render.i18n import N_, t
from ..render.trust_format import FlagLine, held_reason, render_flags
from . import keyboards as kb
from .admin_handlers import _run, _words, asker, language_of
from .context import BotContext
from .handlers import error_text, user_lang

log = logging.getLogger(__name__)


async def _flags_page(
    services: Services, actor: admin.Actor, lang: str, page: int
) -> tuple[str, InlineKeyboardMarkup | None]:
    flags, total = await admin.flags(services, actor, page)
    pages = max(1, -(-total // admin.FLAGS_PAGE))
    if flags == [] and page > 0:  # the last page emptied: the one before
        page = min(page, pages) - 1
        flags, total = await admin.flags(services, actor, page)
    lines = []
    for flag in flags:
        sub = flag.submission
        verdict = trust.verdict_of(sub)
        why = (
            held_reason(
                lang, verdict.reason, verdict.agree, verdict.of, verdict.match, verdict.wrong
            )
            if verdict
            else "—"
        )
        benchmark = registry.get(sub.benchmark)
        lines.append(
            FlagLine(
                sub.id,
                sub.model,
                await submissions.display_name(services, sub.user_id),
                benchmark.title,
                benchmark.format_score(sub.score),
                why,
            )
        )
    text = render_flags(lang, lines, total, page, pages)
    return text, kb.flags_keyboard(lang, [f.submission.id for f in flags], page, pages)


async def on_flags(update: Update, context: BotContext) -> None:
    """``/flags``: the results held for review, newest first, with buttons."""

    async def work(message: Message, lang: str, actor: admin.Actor) -> None:
        text, keyboard = await _flags_page(context.services, actor, lang, 0)
        await message.reply_text(text, reply_markup=keyboard)

    await _run(update, context, work)


async def tell_owner(bot: Bot, services: Services, decision: admin.Decision) -> None:
    """Tell a held result's owner what an admin decided (in their language)."""
    sub = decision.submission
    lang = await language_of(services, sub.user_id)
    key = N_("held_decided_released") if decision.released else N_("held_decided_rejected")
    try:
        await bot.send_message(sub.user_id, t(lang, key, id=sub.id))
    except TelegramError as exc:  # never started the bot, or blocked it
        log.info("could not tell user %s of the decision on #%s: %s", sub.user_id, sub.id, exc)


async def on_flag_button(update: Update, context: BotContext) -> None:
    """A /flags page, or a held result released (✅) or rejected from it."""
    query = update.callback_query
    if query is None or query.data is None:
        return
    lang = await user_lang(context, update.effective_user)
    parsed = kb.parse_flag(query.data)
    actor = await asker(update, context)
    if parsed is None or actor is None or not kb.on_its_message(query):
        await query.answer(t(lang, "gone"))
        return
    action, sid, page = parsed
    services = context.services
    try:
        answer = None
        if sid is not None:
            done = await admin.decide(
                services, actor, sid, release=action == kb.FLAG_RELEASE, reason=None
            )
            answer = t(lang, N_("done_release") if done.released else N_("done_reject"), id=sid)
            await tell_owner(context.bot, services, done)
        text, keyboard = await _flags_page(services, actor, lang, page)
    except UserError as exc:
        await query.answer(error_text(lang, exc), show_alert=True)
        return
    await query.answer(answer)
    if isinstance(query.message, Message):
        await query.message.edit_text(text, reply_markup=keyboard)


async def on_verify(update: Update, context: BotContext) -> None:
    """``/verify ID [note]``: a held result is released (its owner told); any other
    marked as reproduced."""

    async def work(message: Message, lang: str, actor: admin.Actor) -> None:
        sub, released = await admin.verify(context.services, actor, _words(message))
        if released:
            await message.reply_text(t(lang, "done_release", id=sub.id))
            await tell_owner(context.bot, context.services, admin.Decision(sub, True))
            return
        if sub.visibility is Visibility.PUBLISHED:
            key = N_("done_verify") if actor.bot_admin else N_("done_verify_group")
            await message.reply_text(t(lang, key, id=sub.id))
            return
        # on no board now (private, withdrawn, hidden): its ✅ shows once it is on one
        key = N_("done_verify_off") if actor.bot_admin else N_("done_verify_group_off")
        state = t(lang, f"state_{sub.visibility.value}")
        await message.reply_text(t(lang, key, id=sub.id, state=state))

    await _run(update, context, work)


async def on_notices(update: Update, context: BotContext) -> None:
    """``/notices on|off``: be told (or not) when a re-score changes one's published
    results; without a word, say which it is."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    lang = await user_lang(context, user)
    word = (context.args or [""])[0].lower()
    if word not in ("on", "off", ""):
        await message.reply_text(t(lang, "notices_usage"))
        return
    services = context.services
    if word:
        await services.store.set_notices(user.id, word == "on")
        on = word == "on"
    else:
        on = not await services.store.notices_off([user.id])
    await message.reply_text(t(lang, N_("notices_on") if on else N_("notices_off")))

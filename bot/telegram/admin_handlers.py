"""Telegram handlers of the admins' commands: read the update, call ``bot.core.admin``,
send what ``bot.render.admin_format`` renders. Every command answers a non-admin with a
short refusal.
"""

from __future__ import annotations

import html
import io
import logging
import re
from collections.abc import Awaitable, Callable

from telegram import Bot, Message, Update
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError

from ..core import admin, benchmarks
from ..core import notices as notices_core
from ..core.errors import StorageError, UserError
from ..core.notices import Notice
from ..core.services import Services
from ..render.admin_format import (
    render_audit,
    render_benchmark_added,
    render_keyinfo,
    render_rescore_done,
)
from ..render.i18n import N_, pick_language, t, tn
from ..render.trust_format import render_notice
from .challenge_handlers import command_of
from .context import BotContext
from .handlers import CaptionCommand, in_group, reply_error, user_lang
from .http import is_transient
from .uploads import DocumentUpload

log = logging.getLogger(__name__)

_CACHE = "admin_cache"
#: ``/setkey`` at the start of a caption (commands are case-insensitive), for this bot.
SETKEY_CAPTION = CaptionCommand(
    re.compile(r"^/setkey(?:@(\w+))?(?=\s|$)", re.IGNORECASE), "SETKEY_CAPTION"
)
#: ``/benchmark add`` at the start of a caption, for this bot.
BENCHMARK_ADD_CAPTION = CaptionCommand(
    re.compile(r"^/benchmark(?:@(\w+))?\s+add(?=\s|$)", re.IGNORECASE), "BENCHMARK_ADD_CAPTION"
)


def _cache(context: BotContext) -> admin.AdminCache:
    cache = context.bot_data.get(_CACHE)
    if not isinstance(cache, admin.AdminCache):
        cache = context.bot_data[_CACHE] = admin.AdminCache()
    return cache


async def asker(update: Update, context: BotContext) -> admin.Actor | None:
    """Who sent the update, and whether they administer the bot or (in a group) it."""
    user, chat, message = update.effective_user, update.effective_chat, update.effective_message
    if user is None or chat is None:
        return None

    async def is_group_admin(chat_id: int, user_id: int) -> bool:
        try:
            member = await context.bot.get_chat_member(chat_id, user_id)
        except TelegramError as exc:
            if is_transient(exc):
                # no answer is not a "no" (nor one to keep): the update is handled again
                raise
            log.warning("getChatMember(%s, %s) failed: %s", chat_id, user_id, exc)
            return False
        return member.status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)

    return await admin.identify(
        context.services,
        _cache(context),
        is_group_admin,
        user_id=user.id,
        chat_id=chat.id,
        in_group=in_group(chat),
        # a message sent as a chat (a button's presser is always a user)
        anonymous=update.callback_query is None
        and message is not None
        and message.sender_chat is not None,
    )


def _words(message: Message) -> list[str]:
    """The command's arguments (text or caption), first line and beyond."""
    text = message.text or message.caption or ""
    return text.split()[1:]


Work = Callable[[Message, str, admin.Actor], Awaitable[None]]


async def _run(update: Update, context: BotContext, work: Work) -> None:
    """Identify the asker, run ``work(message, lang, actor)``; a UserError is the answer."""
    message = update.effective_message
    if message is None:
        return
    lang = await user_lang(context, update.effective_user)
    actor = await asker(update, context)
    if actor is None:
        return
    try:
        await work(message, lang, actor)
    except UserError as exc:
        await reply_error(message, lang, exc)


# --- moderation ------------------------------------------------------------------------


async def _moderate(update: Update, context: BotContext, action: str) -> None:
    async def work(message: Message, lang: str, actor: admin.Actor) -> None:
        sub = await admin.moderate(context.services, actor, action, _words(message))
        await message.reply_text(t(lang, f"done_{action}", id=sub.id))

    await _run(update, context, work)


async def on_hide(update: Update, context: BotContext) -> None:
    await _moderate(update, context, "hide")


async def on_unhide(update: Update, context: BotContext) -> None:
    await _moderate(update, context, "unhide")


async def on_ban(update: Update, context: BotContext) -> None:
    async def work(message: Message, lang: str, actor: admin.Actor) -> None:
        ban = await admin.ban(context.services, actor, _words(message))
        await message.reply_text(t(lang, "done_ban", user=ban.user_id))

    await _run(update, context, work)


async def on_unban(update: Update, context: BotContext) -> None:
    async def work(message: Message, lang: str, actor: admin.Actor) -> None:
        user_id, lifted = await admin.unban(context.services, actor, _words(message))
        await message.reply_text(
            t(lang, N_("done_unban") if lifted else N_("not_banned"), user=user_id)
        )

    await _run(update, context, work)


async def on_audit(update: Update, context: BotContext) -> None:
    async def work(message: Message, lang: str, actor: admin.Actor) -> None:
        entries = await admin.audit(context.services, actor)
        await message.reply_text(render_audit(lang, entries))

    await _run(update, context, work)


# --- keys --------------------------------------------------------------------------------


async def on_setkey(update: Update, context: BotContext) -> None:
    """``/setkey BENCHMARK`` as a document's caption, or as a reply to a document."""

    async def work(message: Message, lang: str, actor: admin.Actor) -> None:
        admin.require_bot_admin(actor)
        benchmark = admin.keyed_benchmark(_words(message))
        replied = message.reply_to_message
        document = message.document or (replied.document if replied is not None else None)
        if document is None:
            raise UserError("setkey_need_file", benchmark=benchmark.name)
        data = bytes(await DocumentUpload(document).download())
        source = f"Telegram upload {document.file_name or 'key'} by user {actor.user_id}"
        services = context.services
        change = await admin.install_key(services, actor, benchmark, data, source=source)
        version = change.loaded.version
        key = N_("key_stored") if version.created else N_("key_same")
        lines = [
            t(
                lang,
                key,
                benchmark=html.escape(benchmark.title),
                version=version.version,
                sha=version.sha256,
            )
        ]
        if change.note:
            lines.append(html.escape(change.note))
        if change.pending:
            lines.append(tn(lang, "key_rescoring", change.pending))
        else:
            lines.append(t(lang, "key_nothing_to_rescore"))
        sent = await message.reply_text("\n".join(lines))
        if change.pending:
            services.spawn(_rescore_then_report(context.bot, services, change, sent.chat_id, lang))

    await _run(update, context, work)


async def on_benchmark(update: Update, context: BotContext) -> None:
    """``/benchmark add`` as a TOML file's caption (or a reply to it): a bot admin adds
    a multiple-choice benchmark defined by data (``bot.core.benchmarks``)."""

    async def work(message: Message, lang: str, actor: admin.Actor) -> None:
        admin.require_bot_admin(actor)
        replied = message.reply_to_message
        document = message.document or (replied.document if replied is not None else None)
        words = _words(message)
        if words[:1] in (["remove"], ["delete"], ["rename"]):
            # said as it is: no benchmark is removed or renamed (README)
            raise UserError("benchmark_stays", word=words[0][:16])
        if words[:1] != ["add"] or document is None:
            raise UserError("benchmark_need_file")
        data = bytes(await DocumentUpload(document).download())
        source = f"Telegram upload {document.file_name or 'benchmark'} by user {actor.user_id}"
        services = context.services
        added = await benchmarks.add_upload(services, actor, data, source=source)
        bench = added.benchmark
        text = render_benchmark_added(
            lang,
            change=added.change,
            title=bench.title,
            name=bench.name,
            version=added.definition.version,
            key_version=added.key.version,
            pending=added.pending,
        )
        sent = await message.reply_text(text)
        if added.pending:
            ask = admin.RescoreAsk(bench, added.pending, added.before)
            services.spawn(_rescore_then_report(context.bot, services, ask, sent.chat_id, lang))

    await _run(update, context, work)


async def on_rescore(update: Update, context: BotContext) -> None:
    """``/rescore BENCHMARK``: bot admins re-score the stored submissions that are not on
    the current key and scorer version, in the background, and get the report."""

    async def work(message: Message, lang: str, actor: admin.Actor) -> None:
        services = context.services
        ask = await admin.ask_rescore(services, actor, _words(message))
        if not ask.pending:
            await message.reply_text(t(lang, "key_nothing_to_rescore"))
            return
        sent = await message.reply_text(
            tn(
                lang,
                "rescore_started",
                ask.pending,
                benchmark=html.escape(ask.benchmark.title),
                version=html.escape(ask.benchmark.scorer_version),
            )
        )
        services.spawn(_rescore_then_report(context.bot, services, ask, sent.chat_id, lang))

    await _run(update, context, work)


async def language_of(services: Services, user_id: int) -> str:
    """The language of someone the bot writes to unasked."""
    user = await services.store.get_user(user_id)
    return pick_language(user.chosen_language, user.language_code) if user else "en"


def notice_sender(bot: Bot, services: Services) -> notices_core.Send:
    """Sends one notice, in its user's language, through the bot's rate-limited sender
    (which retries what passes by itself): whether it reached them (a user who never
    started the bot, or blocked it, is passed over); None when Telegram still did not
    answer (kept for a later try)."""

    async def send(notice: Notice) -> bool | None:
        lang = await language_of(services, notice.user_id)
        text = render_notice(lang, notice.changes, notice.total)
        try:
            await bot.send_message(notice.user_id, text)
        except TelegramError as exc:
            if is_transient(exc):
                log.warning("a re-score's notices wait for Telegram: %s", exc)
                return None
            # never started the bot, or blocked it
            log.info("could not tell user %s of a re-score: %s", notice.user_id, exc)
            return False
        return True

    return send


async def send_notices(bot: Bot, services: Services, batch: notices_core.Batch) -> int:
    """One private message to each user a re-score changed, in turn, each taken from
    those kept before it is sent (so never twice); how many were told."""
    if not batch.notices:
        return 0
    send, told = notice_sender(bot, services), 0

    async def counted(notice: Notice) -> bool | None:
        nonlocal told
        sent = await send(notice)
        told += bool(sent)
        return sent

    try:
        await notices_core.deliver(services, batch.id, batch.owner, counted)
    except StorageError as exc:  # the rest are kept: the next look sends them
        log.warning("notices of a re-score wait to be sent: %s", exc)
    return told


async def resume_rescores(bot: Bot, services: Services) -> None:
    """At a start: the re-scores a process left part way, finished; their users told,
    and the bot admins sent the report (the admin who started one was in that process)."""
    try:
        resumed = await admin.resume_rescores(services)
    except StorageError as exc:
        log.warning("re-scores left part way not resumed: %s", exc)
        return
    except Exception:  # a background task: nobody else would see it
        log.exception("re-scores left part way not resumed")
        return
    for done in resumed:
        told = await send_notices(bot, services, done.notices)
        for admin_id in sorted(services.settings.admins):
            lang = await language_of(services, admin_id)
            report = render_rescore_done(lang, done.benchmark.title, done.report, None, done.after)
            text = "\n".join([t(lang, "rescore_resumed"), report, tn(lang, "rescore_told", told)])
            try:
                await bot.send_message(admin_id, text)
            except TelegramError as exc:  # never started the bot, or blocked it
                log.info("could not tell admin %s of a resumed re-score: %s", admin_id, exc)


async def catch_up(bot: Bot, services: Services, name: str) -> None:
    """Another process changed a key in use here: what is still on another key once
    its re-score is done, re-scored (:func:`bot.core.admin.catch_up`); its users told."""
    try:
        done = await admin.catch_up(services, name)
    except StorageError as exc:
        log.warning("what %s scored on the old key meanwhile is not re-scored: %s", name, exc)
        return
    except Exception:  # a background task: nobody else would see it
        log.exception("what %s scored on the old key meanwhile is not re-scored", name)
        return
    if done is not None:
        told = await send_notices(bot, services, done.notices)
        log.info("%s: %d scored on the old key re-scored, %d told", name, done.report.rescored,
                 told)  # fmt: skip


async def _say(bot: Bot, chat_id: int, text: str) -> None:
    """A message the bot sends unasked, on the side (a chat gone: logged)."""
    try:
        await bot.send_message(chat_id, text)
    except TelegramError as exc:
        log.info("could not write to chat %s: %s", chat_id, exc)


async def _rescore_then_report(
    bot: Bot,
    services: Services,
    change: admin.KeyChange | admin.RescoreAsk,
    chat_id: int,
    lang: str,
) -> None:
    """The background re-score; its report (or its failure) goes to the admin's chat."""
    title, name = change.benchmark.title, change.benchmark.name

    def waiting() -> None:  # another admin's, or another instance's, runs first
        said = t(lang, "rescore_waiting", benchmark=html.escape(title))
        services.spawn(_say(bot, chat_id, said))

    try:
        report, after, notices = await admin.rescore(services, change, waiting=waiting)
        text = render_rescore_done(lang, title, report, change.before, after)
        # one message to each user whose results changed, through the rate-limited sender
        told = await send_notices(bot, services, notices)
        text += "\n" + tn(lang, "rescore_told", told)
    except StorageError as exc:
        log.warning("re-score of %s stopped: %s", change.benchmark.name, exc)
        reason = html.escape(str(exc))
        text = t(lang, "rescore_failed", benchmark=html.escape(title), name=name, reason=reason)
    except Exception as exc:  # a background task: nobody else would see it
        log.exception("re-score of %s failed", change.benchmark.name)
        reason = type(exc).__name__
        text = t(lang, "rescore_failed", benchmark=html.escape(title), name=name, reason=reason)
    await bot.send_message(chat_id, text)


async def on_keyinfo(update: Update, context: BotContext) -> None:
    async def work(message: Message, lang: str, actor: admin.Actor) -> None:
        private = message.chat.type == ChatType.PRIVATE  # doubts name key options
        infos = await admin.key_info(context.services, actor, private=private)
        await message.reply_text(render_keyinfo(lang, infos))

    await _run(update, context, work)


async def on_challenge_set(update: Update, context: BotContext) -> None:
    """``/C set N [YYYY-MM-DD]`` (``C``: a challenge's command word): bot admins choose a
    day's target of that challenge (default today)."""

    async def work(message: Message, lang: str, actor: admin.Actor) -> None:
        benchmark = command_of(message)
        if benchmark is None:  # the route matched a challenge's word, so this does not happen
            return
        challenge, day = await admin.set_challenge_target(
            context.services, actor, benchmark, _words(message)[1:]
        )
        text = t(lang, "daily_target_set", target=challenge.target, day=day, title=benchmark.title)
        await message.reply_text(text)

    await _run(update, context, work)


# --- export and backup -------------------------------------------------------------------


async def on_export(update: Update, context: BotContext) -> None:
    """``/export [benchmark]``: anyone; the group's board in a group, else the global."""

    async def work(message: Message, lang: str, actor: admin.Actor) -> None:
        benchmark, filename, data = await admin.export_board(
            context.services, actor, _words(message)
        )
        scope = t(lang, N_("scope_chat") if actor.in_group else N_("scope_global"))
        await message.reply_document(
            io.BytesIO(data),
            filename=filename,
            caption=t(lang, "export_caption", benchmark=benchmark.title, scope=scope),
            parse_mode=None,
        )

    await _run(update, context, work)


async def on_backup(update: Update, context: BotContext) -> None:
    """``/backup``: bot admins, in a private chat; a consistent snapshot as a document."""

    async def work(message: Message, lang: str, actor: admin.Actor) -> None:
        snap = await admin.snapshot(context.services, actor)
        try:
            size = f"{snap.size / 1_048_576:.1f}"
            if snap.size > admin.UPLOAD_LIMIT:
                limit = admin.UPLOAD_LIMIT // 1_048_576
                await message.reply_text(t(lang, "backup_too_big", size=size, limit=limit))
                return
            with snap.path.open("rb") as handle:
                await message.reply_document(
                    handle,
                    filename="benchboard.sqlite3",
                    caption=t(lang, "backup_caption", size=size),
                    parse_mode=None,
                )
            # every user's results and names left with it: who took them is kept
            await context.services.store.log_action(
                actor.user_id, "backup", "database", reason=f"{size} MB"
            )
        finally:
            snap.close()

    await _run(update, context, work)

"""The Application: one builder that registers every handler in a deliberate order.

Long-lived resources (the store, loaded keys, the scoring worker) are opened in
``post_init`` and closed in ``post_shutdown``.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, time
from typing import Any

from telegram import Bot, BotCommand, BotCommandScopeDefault, Update
from telegram.error import InvalidToken, NetworkError, TimedOut
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    TypeHandler,
    filters,
)

from storage import Store

from ..core import submit as service
from ..core.services import Services
from ..settings import Settings
from . import admin_handlers as ah
from . import handlers as h
from . import natory_handlers as bench_features
from . import ops
from .context import SERVICES, BotApp, BotContext
from .http import AiohttpRequest, ReplyBot
from .web import serve_webhook

log = logging.getLogger("benchboard")

COMMANDS = {
    "en": [
        ("score", "score a model's output"),
        ("leaderboard", "the leaderboard"),
        ("me", "your submissions and bests"),
        ("natory", "Natory: today's target and boards"),
        ("compare", "Natory: score vs cost and latency chart"),
        ("prompt", "the official PrimeBench prompt"),
        ("questions", "PrimeBench's questions (Q.json)"),
        ("benchmarks", "the benchmarks I score"),
        ("lang", "language: en or fa"),
        ("help", "how to use the bot"),
    ],
    "fa": [
        ("score", "امتیازدهی خروجی یک مدل"),
        ("leaderboard", "جدول امتیازات"),
        ("me", "ارسال‌ها و بهترین‌های شما"),
        ("natory", "Natory: هدف امروز و جدول‌ها"),
        ("compare", "Natory: نمودار امتیاز، هزینه و تأخیر"),
        ("prompt", "پرامپت رسمی PrimeBench"),
        ("questions", "سؤال‌های PrimeBench"),
        ("benchmarks", "بنچمارک‌ها"),
        ("lang", "زبان: en یا fa"),
        ("help", "راهنما"),
    ],
}


async def post_init(app: BotApp) -> None:
    settings: Settings = app.bot_data["settings"]
    store = await Store.open(
        settings.db_path, synchronous=settings.db_synchronous, mmap_mb=settings.db_mmap_mb
    )
    context = multiprocessing.get_context("spawn")
    services = Services(
        settings=settings,
        store=store,
        pool=ProcessPoolExecutor(max_workers=1, mp_context=context),
        bot_username=app.bot.username or "",
    )
    app.bot_data[SERVICES] = services
    await service.load_keys(services)
    await service.seed_references(services)
    if "primebench" not in services.keys:
        services.spawn(service.fetch_missing_primebench(services))
    if app.job_queue is not None:
        app.job_queue.run_daily(
            ops.nightly_backup,
            time=time(hour=settings.backup_hour, tzinfo=UTC),
            name="nightly-backup",
        )
    for lang, commands in COMMANDS.items():
        await app.bot.set_my_commands(
            [BotCommand(name, text) for name, text in commands],
            scope=BotCommandScopeDefault(),
            language_code=None if lang == "en" else lang,
        )
    log.info(
        "benchboard started as @%s; keys loaded: %s",
        services.bot_username,
        ", ".join(sorted(services.keys)) or "none",
    )


async def post_shutdown(app: BotApp) -> None:
    services = app.bot_data.get(SERVICES)
    if not isinstance(services, Services):
        return
    for task in list(services.background):
        task.cancel()
    if services.pool is not None:
        services.pool.shutdown(wait=False, cancel_futures=True)
    await services.store.close()
    log.info("benchboard stopped; database closed")


def build_application(settings: Settings) -> BotApp:
    bot = ReplyBot(
        settings.require_token(),
        base_url=settings.api_base_url,
        base_file_url=settings.api_file_url,
        request=AiohttpRequest(connection_pool_size=256),
        get_updates_request=AiohttpRequest(connection_pool_size=1),
        rate_limiter=AIORateLimiter(
            overall_max_rate=settings.rate_overall,
            group_max_rate=settings.rate_group,
            max_retries=3,
        ),
    )
    app: BotApp = (
        ApplicationBuilder()
        .application_class(ops.LoggingApplication)
        .bot(bot)
        .context_types(ContextTypes(context=BotContext))
        .concurrent_updates(True)
        .post_init(post_init)
        .post_shutdown(post_shutdown)
        .build()
    )
    app.bot_data["settings"] = settings
    register(app)
    return app


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    # New messages only: an edited message is answered apart (its old score stands).
    new = filters.UpdateType.MESSAGE
    private = filters.ChatType.PRIVATE & new
    groups = filters.ChatType.GROUPS & new
    # -1: every update first records who and where (users and chats, updated on sight).
    app.add_handler(TypeHandler(Update, h.track), group=-1)
    # 0: Natory and /compare first (bot/bench_features.py): /natory, /compare,
    # "/leaderboard natory …" (ahead of the generic /leaderboard below, which it would
    # otherwise reach), and a reply to the /natory message (ahead of the private-text
    # handler, which would score it as PrimeBench).
    bench_features.register(app)
    # 0: commands, before anything that reads plain text.
    commands = [
        ("start", h.on_start),
        ("help", h.on_help),
        ("score", h.on_score_command),
        (["leaderboard", "board", "top"], h.on_leaderboard),
        ("me", h.on_me),
        ("prompt", h.on_prompt),
        ("questions", h.on_questions),
        ("benchmarks", h.on_benchmarks),
        ("lang", h.on_lang),
    ]
    for names, callback in commands:
        app.add_handler(CommandHandler(names, callback, filters=new))
    # A document whose caption starts with /score (any chat).
    score_caption = filters.CaptionRegex(r"^/score(@\w+)?(\s|$)")
    app.add_handler(MessageHandler(new & filters.Document.ALL & score_caption, h.on_score_command))
    # 0: admins' commands (bot/admin_handlers.py), before the private-chat catch-alls below
    # (which would score a /setkey document). Each checks who asks and refuses everyone
    # else; /export is for everyone. Not in setMyCommands: the menu is for users.
    admin_commands = [
        ("setkey", ah.on_setkey),  # as text: usage, or a reply to the key file
        ("keyinfo", ah.on_keyinfo),
        ("hide", ah.on_hide),
        ("unhide", ah.on_unhide),
        ("verify", ah.on_verify),
        ("ban", ah.on_ban),
        ("unban", ah.on_unban),
        ("audit", ah.on_audit),
        ("export", ah.on_export),
        ("backup", ah.on_backup),
    ]
    for name, callback in admin_commands:
        app.add_handler(CommandHandler(name, callback, filters=new))
    setkey_caption = filters.CaptionRegex(r"^/setkey(@\w+)?(\s|$)")
    app.add_handler(MessageHandler(new & filters.Document.ALL & setkey_caption, ah.on_setkey))
    # Buttons.
    app.add_handler(CallbackQueryHandler(h.on_board_button, pattern=r"^lb:"))
    app.add_handler(CallbackQueryHandler(h.on_submission_button))
    # Private chats: any text or document is a submission (or the awaited model name).
    app.add_handler(MessageHandler(private & filters.TEXT & ~filters.COMMAND, h.on_private_text))
    app.add_handler(MessageHandler(private & filters.Document.ALL, h.on_private_document))
    # Groups: replies to the bot's "send the model name" prompt.
    app.add_handler(
        MessageHandler(
            groups & filters.REPLY & filters.TEXT & ~filters.COMMAND, h.on_reply_in_group
        )
    )
    # An edited submission in a private chat: say that edits are not re-scored.
    app.add_handler(
        MessageHandler(
            filters.UpdateType.EDITED_MESSAGE & filters.ChatType.PRIVATE & ~filters.COMMAND,
            h.on_edited,
        )
    )
    app.add_error_handler(on_error)


async def on_error(update: object, context: BotContext) -> None:
    ops.mark_failed(context, update)  # the update's log line says "error"
    await h.on_error(update, context)


class StartupError(Exception):
    """The bot cannot start (Telegram unreachable, token refused); the message says why."""


async def _preflight(settings: Settings) -> str:
    """Say who the token belongs to, or why the Bot API does not answer, before starting."""
    bot = Bot(
        settings.require_token(),
        base_url=settings.api_base_url,
        base_file_url=settings.api_file_url,
        request=AiohttpRequest(connection_pool_size=1),
    )
    try:
        async with bot:
            return bot.username
    except InvalidToken:
        raise StartupError("Telegram refused the token: check BENCHBOARD_TOKEN") from None
    except (NetworkError, TimedOut) as exc:
        raise StartupError(f"cannot reach the Bot API at {settings.api_base_url}: {exc}") from None


def run(settings: Settings) -> None:
    ops.configure_logging(settings)
    username = asyncio.run(_preflight(settings))
    log.info("the token belongs to @%s", username)
    app = build_application(settings)
    if settings.webhook_url:
        asyncio.run(serve_webhook(app, settings, post_init, post_shutdown))
    else:
        # run_polling stops on SIGTERM/SIGINT: the updates already fetched are handled,
        # then post_shutdown closes the database.
        app.run_polling(allowed_updates=Update.ALL_TYPES)

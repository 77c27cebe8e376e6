"""The Application: one builder that registers every handler in a deliberate order.

The lifecycle is PTB's for an application that fetches its own updates (its
``customwebhookbot`` example): ``async with application`` (``initialize``, then
``shutdown`` on the way out) around ``start()`` and ``stop()``, with no ``Updater``.
PTB calls ``post_init``/``post_shutdown`` only from ``run_polling``/``run_webhook``
(``Application.initialize``'s and ``shutdown``'s documentation says so), and those need
its ``Updater``, which does not fit here: its polling confirms a batch (the next
``getUpdates``' offset) once the updates are in memory, where the durable intake
(``intake.py``) keeps each batch in the database first, and its webhook server would
replace ours (``web.py``), which keeps each update before answering 200 and serves
the web boards. So no ``post_init`` is registered: the long-lived resources (the
store, loaded keys, the scoring worker) are opened by :func:`open_services` inside the
``async with`` block, after ``getMe``, while the first ``getUpdates`` is out, and
closed by :func:`close_services` after PTB's ``shutdown``, in the order ``run_polling``
keeps. Handlers reach them through the typed context. ``Defaults`` give every message
HTML parse mode and no link previews.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import signal
import sys
from collections.abc import AsyncIterator, Awaitable

from telegram import (
    BotCommand,
    BotCommandScopeChat,
    BotCommandScopeDefault,
    MenuButtonWebApp,
    Update,
    WebAppInfo,
)
from telegram.error import (
    BadRequest,
    Forbidden,
    InvalidToken,
    NetworkError,
    TelegramError,
    TimedOut,
)
from telegram.ext import (
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    ChosenInlineResultHandler,
    CommandHandler,
    ContextTypes,
    InlineQueryHandler,
    MessageHandler,
    PreCheckoutQueryHandler,
    TypeHandler,
    filters,
)

from storage import DatabaseCorrupt, StorageError, StoreUnavailable

from ..core import backups, benchmarks, boards, challenges, keys, notices, signing
from ..core.errors import StartupError
from ..core.sendrate import SharedSendRate
from ..core.services import Services, until_answered
from ..render.i18n import DEFAULT_LANGUAGE, LANGUAGES, command_menu, t
from ..settings import Settings
from . import admin_handlers as ah
from . import buttons as b
from . import challenge_handlers as ch
from . import commands as c
from . import handlers as h
from . import inline_handlers as ih
from . import intake as intake_
from . import keyboards as kb
from . import ops, outage, typed, web
from . import run_handlers as rh
from . import share_handlers as sh
from . import token_handlers as th
from . import trust_handlers as tr
from . import web_commands as wc
from .context import SERVICES, BotApp, BotContext
from .fairsend import FairUpdates, slow_down
from .http import DEFAULTS, AiohttpRequest, BenchBot, RetryingRateLimiter, is_transient

log = logging.getLogger("benchboard")

COMMANDS = {lang: command_menu(lang) for lang in LANGUAGES}
ADMIN_COMMANDS = {lang: command_menu(lang, admin=True) for lang in LANGUAGES}


async def _tell_commands(app: BotApp) -> None:
    """The command menu in each language, each bot admin's with their commands (a menu
    of their own chat), and the Mini App as the menu button when the boards' public
    address is known. Only the menus depend on it: a refusal is logged and the bot runs
    on (the commands work typed)."""
    settings: Settings = app.bot_data["settings"]
    calls: dict[str, Awaitable[bool]] = {}
    for lang in LANGUAGES:
        code = None if lang == "en" else lang
        calls[f"menu {lang}"] = app.bot.set_my_commands(
            [BotCommand(name, text) for name, text in COMMANDS[lang]],
            scope=BotCommandScopeDefault(),
            language_code=code,
        )
        for admin in sorted(settings.admins):
            calls[f"admin menu {lang} {admin}"] = app.bot.set_my_commands(
                [BotCommand(name, text) for name, text in ADMIN_COMMANDS[lang]],
                scope=BotCommandScopeChat(admin),
                language_code=code,
            )
    web = settings.public_web_url
    if web:
        button = MenuButtonWebApp(t(DEFAULT_LANGUAGE, "menu_button"), WebAppInfo(f"{web}/app"))
        calls["menu button"] = app.bot.set_chat_menu_button(menu_button=button)
    results = await asyncio.gather(*calls.values(), return_exceptions=True)
    for what, result in zip(calls, results, strict=True):
        if isinstance(result, TelegramError):
            log.warning(
                "a menu was not set: the bot runs without it",
                extra={"menu": what, "error": f"{type(result).__name__}: {result}"},
            )
        elif isinstance(result, BaseException):
            raise result


async def open_services(app: BotApp) -> None:
    """The long-lived services, once ``getMe`` answered, while the first ``getUpdates``
    is out (:func:`running`): the database, the keys, the jobs, the day's turn; the
    command menu goes to Telegram meanwhile. What a ``post_init`` would do, run where
    the custom lifecycle has its place (see the module's docstring)."""
    settings: Settings = app.bot_data["settings"]
    telling = asyncio.ensure_future(_tell_commands(app))
    try:
        await _open_services(app, settings)
    finally:
        await telling


async def _open_services(app: BotApp, settings: Settings) -> None:
    # a database down, restarting, locked or full is waited for (README, Configuration)
    services = await until_answered(lambda: _open_store(app, settings), settings, log)
    if keys.missing_essential(services):
        services.spawn(keys.fetch_missing(services))
    if app.job_queue is not None:
        ops.schedule_backups(app.job_queue, settings)
        ops.schedule_day_turn(app.job_queue)
    await boards.turn_day(services)  # the days since the last start may lack a publication
    await rh.start(app, services)  # Benchboard's own runs, when providers are set
    # a re-score a process left part way, finished; notices a process left unsent (or
    # a command-line re-score made), sent
    services.spawn(ah.resume_rescores(app.bot, services))
    services.spawn(notices.sweep(services, ah.notice_sender(app.bot, services)))
    log.info(
        "benchboard started as @%s; keys loaded: %s",
        services.bot_username,
        ", ".join(sorted(services.keys)) or "none",
    )


async def _open_store(app: BotApp, settings: Settings) -> Services:
    """The services, with what the start reads from the database; a ``StoreUnavailable``
    on the way closes what was opened (tried again by :func:`_open_services`)."""
    try:
        services = await Services.open(settings, worker=True)
    except DatabaseCorrupt as exc:  # nothing is written into it: say how to get back
        advice = backups.restore_advice(settings.backups_path)
        raise StartupError(f"refusing to start: {exc}; {advice}") from None
    except StoreUnavailable:
        raise
    except (OSError, StorageError) as exc:
        reason = settings.redact(str(exc))
        raise StartupError(f"cannot open the database {settings.db_label}: {reason}") from None
    try:
        services.bot_username = app.bot.username or ""
        app.bot_data[SERVICES] = services
        if services.store.shared:  # other instances on the database: share what they cache
            services.listeners["lang"] = lambda topic: h.forget_lang(app, topic)
            limiter = app.bot.rate_limiter
            if isinstance(limiter, RetryingRateLimiter):
                limiter.shared = SharedSendRate(
                    services, overall=settings.rate_overall, group=settings.rate_group
                )

        def key_changed(name: str) -> None:  # by another process: what this one scored
            services.spawn(ah.catch_up(app.bot, services, name))  # on the old key, again

        services.key_changed = key_changed
        await benchmarks.start(services)  # the benchmarks defined by data, before their keys
        await keys.load_keys(services)
        await keys.seed_references(services)
        await challenges.follow(services)  # the targets admins chose through any instance
        await signing.ensure(services)  # the key that signs published results: made once
    except StoreUnavailable:
        app.bot_data.pop(SERVICES, None)
        await services.close()
        raise
    return services


async def close_services(app: BotApp) -> None:
    """The services closed, after the application's ``shutdown`` (where ``run_polling``
    calls ``post_shutdown``)."""
    services = app.bot_data.get(SERVICES)
    if not isinstance(services, Services):
        return
    await rh.stop(app)
    await services.close()
    log.info("benchboard stopped; database closed")


def build_application(settings: Settings) -> BotApp:
    updates_request = AiohttpRequest(connection_pool_size=1)
    bot = BenchBot(
        settings.require_token(),
        base_url=settings.api_base_url,
        base_file_url=settings.api_file_url,
        request=AiohttpRequest(connection_pool_size=256),
        get_updates_request=updates_request,
        defaults=DEFAULTS,
        # flood limits, and retries of transient faults (time-outs, 5xx, lost connections)
        rate_limiter=RetryingRateLimiter(
            overall_max_rate=settings.rate_overall,
            group_max_rate=settings.rate_group,
        ),
    )
    updates = FairUpdates(64)
    app: BotApp = (
        ApplicationBuilder()
        .application_class(ops.LoggingApplication)
        .bot(bot)
        .context_types(ContextTypes(context=BotContext))
        # updates handled at once: enough to overlap the replies' round trips; more only
        # lengthens the queue at the database (and what a crash leaves half-done); a
        # few of one user's at a time, the users in turn, floods quietly (fairsend)
        .concurrent_updates(updates)
        # updates are fetched by our own loop (intake.poll), which keeps them first;
        # without an Updater, PTB calls no post_init/post_shutdown (module docstring)
        .updater(None)
        .build()
    )
    app.bot_data["settings"] = settings
    app.bot_data[intake_.UPDATES_REQUEST] = updates_request
    updates.notify = functools.partial(slow_down, app)
    register(app)
    return app


def register(app: BotApp) -> None:
    """Every handler of the bot, in the order they are tried (the first match in a
    group handles the update)."""
    # New messages only: an edited message is answered apart (its old score stands).
    new = filters.UpdateType.MESSAGE
    private = filters.ChatType.PRIVATE & new
    groups = filters.ChatType.GROUPS & new
    document = new & filters.Document.ALL
    # -1: every update first records who and where (users and chats, updated on sight).
    app.add_handler(TypeHandler(Update, h.track), group=-1)

    # 0: texts that are no command first: they are most of what the bot receives, and
    # none of the handlers after them takes one (those take commands, captions,
    # buttons, inline queries, other chats).
    # The challenges' commands come from the registry: each benchmark with a challenge
    # (a daily target) has its command word.
    challenge_words = [challenges.spec(b).command for b in challenges.benchmarks()]
    routes = ch.routes(challenge_words) if challenge_words else None
    # A reply to a challenge's message is an attempt at its target, not a submission of
    # another benchmark: before the private-text handler.
    if routes is not None:
        app.add_handler(
            MessageHandler(
                new & filters.REPLY & filters.TEXT & ~filters.COMMAND & routes.replies,
                ch.on_challenge_reply,
            )
        )
    # A private text: a submission (or the awaited model name; core decides, and answers
    # what it is not).
    app.add_handler(
        MessageHandler(private & filters.TEXT & ~filters.COMMAND, typed.on_private_text)
    )
    # The challenges' commands: "/C set" (an admin's) before the other /C words;
    # "/leaderboard C …" before the generic /leaderboard below, which it would otherwise
    # reach; /compare draws a challenge's comparison chart.
    board_names = list(ch.BOARD_COMMANDS)
    if routes is not None:
        app.add_handler(
            CommandHandler(challenge_words, ah.on_challenge_set, filters=new & routes.set)
        )
        app.add_handler(CommandHandler(challenge_words, ch.on_challenge, filters=new))
        app.add_handler(CommandHandler("compare", ch.on_compare, filters=new))
        app.add_handler(
            CommandHandler(board_names, ch.on_challenge_leaderboard, filters=new & routes.board)
        )

    # Telegram Stars payments (/sponsor): the pre-checkout query answered at once, and
    # the payment's message before the private-chat catch-alls (it is an attachment).
    app.add_handler(PreCheckoutQueryHandler(rh.on_pre_checkout))
    app.add_handler(MessageHandler(filters.SUCCESSFUL_PAYMENT, rh.on_paid))

    # The bot added to a group: how it works there.
    app.add_handler(ChatMemberHandler(c.on_bot_added, ChatMemberHandler.MY_CHAT_MEMBER))
    # A group upgraded to a supergroup (a service message in the old chat and one in the
    # new): the group's board and everything else move to the new chat id. No handler
    # above takes a service message.
    app.add_handler(MessageHandler(new & filters.StatusUpdate.MIGRATE, h.on_migrate))

    # Users' commands.
    commands = [
        ("start", c.on_start),
        ("help", c.on_help),
        ("score", h.on_score_command),
        (board_names, c.on_leaderboard),
        ("me", c.on_me),
        ("prompt", c.on_prompt),
        ("questions", c.on_questions),
        ("benchmarks", c.on_benchmarks),
        ("lang", c.on_lang),
        ("theme", sh.on_theme),
        ("public", wc.on_public),  # the web boards: show one's name there or not
        ("weblink", wc.on_weblink),  # a group's web board link (its admins)
        ("token", th.on_token),  # API tokens for scripts and CI (a private chat's)
        ("notices", tr.on_notices),  # told (or not) when a re-score changes one's results
        ("sponsor", rh.on_sponsor),  # sponsored runs of a challenge's target, in Stars
    ]
    for names, callback in commands:
        app.add_handler(CommandHandler(names, callback, filters=new))
    # A document whose caption starts with /score (any chat); in a group, a photo too
    # (in a private chat every caption is read, below).
    app.add_handler(MessageHandler(document & h.SCORE_CAPTION, h.on_score_command))
    app.add_handler(MessageHandler(groups & filters.PHOTO & h.SCORE_CAPTION, h.on_score_command))

    # Admins' commands, before the private-chat catch-alls below (which would score a
    # /setkey document). Each checks who asks and refuses everyone else; /export is for
    # everyone. Not in setMyCommands: the menu is for users.
    admin_commands = [
        ("setkey", ah.on_setkey),  # as text: usage, or a reply to the key file
        ("benchmark", ah.on_benchmark),  # "add" as text: usage, or a reply to the TOML file
        ("keyinfo", ah.on_keyinfo),
        ("rescore", ah.on_rescore),
        ("hide", ah.on_hide),
        ("unhide", ah.on_unhide),
        ("verify", tr.on_verify),  # a held result: released
        ("flags", tr.on_flags),  # the results held for review
        ("ban", ah.on_ban),
        ("unban", ah.on_unban),
        ("audit", ah.on_audit),
        ("export", ah.on_export),
        ("backup", ah.on_backup),
        ("run", rh.on_run),  # admins, and users within the day's run budget
        ("runs", rh.on_runs),  # what a day's runs cost
    ]
    for name, callback in admin_commands:
        app.add_handler(CommandHandler(name, callback, filters=new))
    app.add_handler(MessageHandler(document & ah.SETKEY_CAPTION, ah.on_setkey))
    app.add_handler(MessageHandler(document & ah.BENCHMARK_ADD_CAPTION, ah.on_benchmark))

    # Buttons: one handler per action (the callback data's first word), then whatever
    # else arrives (a button of an older version: "gone").
    buttons = [
        (kb.BOARD, b.on_board_button),
        (kb.MODE, b.on_mode_button),
        (kb.MODEL, b.on_model_button),
        (kb.PUBLISH, b.on_publish_button),
        (kb.DETAILS, b.on_details_button),
        (kb.WITHDRAW, b.on_withdraw_button),
        (kb.OPEN, b.on_open_button),
        (kb.HISTORY, b.on_history_button),
        (kb.SHARE, sh.on_share_button),
        (kb.CHALLENGE, sh.on_challenge_button),
        (kb.BOARD_IMAGE, sh.on_board_image_button),
        (kb.FLAGS, tr.on_flag_button),  # /flags: pages, release, reject
        (kb.FLAG_RELEASE, tr.on_flag_button),
        (kb.FLAG_REJECT, tr.on_flag_button),
        (kb.RUN_CANCEL, rh.on_cancel_button),
        (kb.TRANSCRIPT, rh.on_transcript_button),
    ]
    for action, callback in buttons:
        app.add_handler(CallbackQueryHandler(callback, pattern=kb.pattern(action)))
    app.add_handler(CallbackQueryHandler(b.on_unknown_button))
    # Inline mode (@bot in any chat) and its chosen results (/setinlinefeedback).
    app.add_handler(InlineQueryHandler(ih.on_inline_query))
    app.add_handler(ChosenInlineResultHandler(ih.on_chosen_inline_result))

    # Private chats (texts are taken above): a document is a submission if a benchmark
    # can read it; other media: their caption is read, and without one the bot says what
    # it reads.
    app.add_handler(MessageHandler(private & filters.Document.ALL, h.on_private_document))
    app.add_handler(MessageHandler(private & filters.ATTACHMENT, h.on_private_media))
    # Groups: replies to the bot's "send the model name" prompt.
    app.add_handler(
        MessageHandler(
            groups & filters.REPLY & filters.TEXT & ~filters.COMMAND, typed.on_reply_in_group
        )
    )
    # An edited submission in a private chat, or an edited /score in a group: say that
    # edits are not re-scored (other edits in a group are none of the bot's business).
    edits = filters.UpdateType.EDITED_MESSAGE
    app.add_handler(
        MessageHandler(
            edits & ((filters.ChatType.PRIVATE & ~filters.COMMAND) | h.SCORE_MESSAGE),
            typed.on_edited,
        )
    )
    # Last: a command no handler above took ("unknown command", and the closest one).
    known = [n for names, _ in commands for n in ([names] if isinstance(names, str) else names)]
    known += [name for name, _ in admin_commands]
    known += [*challenge_words, "compare"] if challenge_words else []
    app.add_handler(MessageHandler(new & filters.COMMAND, h.unknown_command(known)))
    # One error handler for everything above.
    app.add_error_handler(on_error)


def _answer_unread(error: BaseException | None) -> bool:
    """Telegram answered a call with a body that could not be read (PTB's "Invalid server
    response"): the call went through, only its answer was lost on the way."""
    return type(error) is TelegramError and str(error).startswith("Invalid server response")


#: What Telegram answers a message to a chat the bot may not write in (besides
#: ``Forbidden``: blocked by the user, kicked from or not in the group).
_MUTED = ("not enough rights to send", "have no rights to send")


def _closed_chat(error: BaseException | None) -> bool:
    """Telegram refused a message because the chat is closed to the bot."""
    if isinstance(error, Forbidden):
        return True
    return isinstance(error, BadRequest) and any(m in str(error).lower() for m in _MUTED)


async def on_error(update: object, context: BotContext) -> None:
    if _answer_unread(context.error):
        # the reply went through (the user sees it): "something went wrong" would be false
        log.warning(
            "update %s: Telegram's answer to a call could not be read; the call went through",
            update.update_id if isinstance(update, Update) else None,
        )
        return
    if _closed_chat(context.error):
        # blocked by its user, kicked from the group, muted there: nobody can be told
        # (an answer would fail the same way), and nothing is wrong with the bot
        log.warning(
            "update %s: the chat is closed to the bot: %s",
            update.update_id if isinstance(update, Update) else None,
            context.error,
        )
        return
    if is_transient(context.error):
        # The sender's retries ran out (Telegram unreachable for a minute): no "something
        # went wrong" (that would fail too); the update is handled again later.
        ops.mark_transient(context, update)
        log.warning(
            "update %s: transient fault outlasted the retries: %s",
            update.update_id if isinstance(update, Update) else None,
            context.error,
        )
        return
    if outage.is_unavailable(context.error):
        # The database did not answer (down, locked, full): the update stays unfinished
        # and is handled again once it does; its user gets one note, a press its answer.
        ops.mark_waiting(context, update)
        log.warning(
            "update %s waits for the database: %s",
            update.update_id if isinstance(update, Update) else None,
            context.error,
        )
        intake = context.bot_data.get(intake_.INTAKE)
        if isinstance(intake, intake_.Intake) and isinstance(update, Update):
            await intake.db_wait.tell(update, context.error)
        return
    ops.mark_failed(context, update)  # the update's log line says "error"
    await h.on_error(update, context)


async def _initialized(app: BotApp, stack: contextlib.AsyncExitStack) -> None:
    """``async with app`` entered on ``stack`` (PTB's ``initialize``: its ``getMe`` says
    who the token belongs to; ``shutdown`` when the stack closes), or a StartupError
    saying why the Bot API does not answer."""
    settings: Settings = app.bot_data["settings"]
    waiting = asyncio.get_running_loop().call_later(
        SLOW_START_S, _say_unreachable, app, settings.api_base_url
    )
    try:
        await stack.enter_async_context(app)
    except (InvalidToken, NetworkError, TimedOut) as exc:
        # getMe failed after the transport's sessions opened, before the application
        # counts as initialized (so its shutdown does nothing): the bot's closes them
        await app.bot.shutdown()
        if isinstance(exc, InvalidToken):
            raise StartupError("Telegram refused the token: check BENCHBOARD_TOKEN") from None
        raise StartupError(f"cannot reach the Bot API at {settings.api_base_url}: {exc}") from None
    finally:
        waiting.cancel()
    log.info("the token belongs to @%s", app.bot.username)


#: After this long without an answer to ``getMe`` the operator is told, in one plain line,
#: which address does not answer (the retries go on, logged as before).
SLOW_START_S = 3.0


def _say_unreachable(app: BotApp, url: str) -> None:
    limiter = app.bot.rate_limiter
    fault = limiter.last_fault if isinstance(limiter, RetryingRateLimiter) else ""
    settings: Settings = app.bot_data["settings"]
    why = f" ({settings.redact(fault)})" if fault else ""  # an error may quote a URL
    budget = limiter.budget if isinstance(limiter, RetryingRateLimiter) else 60.0
    print(
        f"benchboard: the Bot API at {url} does not answer yet{why}; "
        f"retrying for up to {budget:.0f} s",
        file=sys.stderr,
        flush=True,
    )


async def _start(app: BotApp) -> intake_.Intake:
    """The start after ``getMe``: the services, the application, then the durable
    intake with what a previous process left unfinished queued before anything new."""
    await open_services(app)
    await app.start()
    intake = await intake_.start(app, app.bot_data[SERVICES])
    ops.settle_heap()
    return intake


Starting = asyncio.Future[intake_.Intake]


@contextlib.asynccontextmanager
async def running(app: BotApp) -> AsyncIterator[tuple[Starting, asyncio.Event]]:
    """The application starting, and an event set by SIGTERM or SIGINT.

    Yields as soon as updates can be fetched (``getMe`` answered and, when polling, no
    webhook set, else ``getUpdates`` is refused), with the rest of the start as a future
    of the durable intake (:func:`_start`): the first ``getUpdates`` is on its way while
    it completes. On the way out no new updates are taken, the ones being handled
    finish and are marked, and the database closes."""
    settings: Settings = app.bot_data["settings"]
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        async with contextlib.AsyncExitStack() as stack:
            await _initialized(app, stack)
            started = None
            try:
                if not settings.webhook_url:
                    await app.bot.delete_webhook(drop_pending_updates=False)
                started = asyncio.ensure_future(_start(app))
                yield started, stop
                log.info("stopping: finishing the updates already received")
            finally:
                if started is not None and not started.done():
                    started.cancel()  # stopping before the start is complete
                    with contextlib.suppress(asyncio.CancelledError):
                        await started
                if app.running:
                    await app.stop()
        # PTB's shutdown is done (the stack closed)
    finally:
        await close_services(app)


async def serve_polling(app: BotApp) -> None:
    """Long polling through the durable intake until SIGTERM or SIGINT."""
    async with running(app) as (started, stop):  # the start deleted any webhook
        await intake_.poll(app, started, stop)


async def serve_webhook(app: BotApp, settings: Settings) -> None:
    """Our webhook server (``web.py``) until SIGTERM or SIGINT."""
    secret = web.require_secret(settings)
    async with running(app) as (started, stop):
        if await intake_.until_started(started, stop) is None:
            return  # stopped while the start waited for the database
        await web.serve(app, settings, secret, stop)


def run(settings: Settings) -> None:
    ops.configure_logging(settings)
    app = build_application(settings)
    if settings.webhook_url:
        asyncio.run(serve_webhook(app, settings))
    else:
        asyncio.run(serve_polling(app))

"""Telegram handlers of Benchboard's own runs: ``/run``, its progress message (edited
as attempts finish, with a Cancel button), a card per attempt with a Transcript button,
and the queue that runs them (started with the services, any instance's attempts).

The use cases are :mod:`bot.core.runs`'; these read the update and send what
:mod:`bot.render.run_cards` writes.
"""

from __future__ import annotations

import asyncio
import html
import io
import logging
from contextlib import suppress
from datetime import UTC, date, datetime, timedelta
from datetime import time as dtime
from typing import Any

from telegram import Bot, LabeledPrice, Update, User
from telegram.error import BadRequest, Forbidden, TelegramError

from scoring import registry

from ..core import people, runs, sponsors
from ..core.bounded import parse_id
from ..core.errors import NotFound, StorageError, UserError
from ..core.runs import AttemptDone, Run, RunAttempt
from ..core.services import Services
from ..render.format import mode_label
from ..render.i18n import t, tn
from ..render.run_cards import AttemptLine, cost_report, run_card, run_progress
from .context import BotApp, BotContext
from .handlers import reply_error, user_lang
from .keyboards import run_card_keyboard, run_progress_keyboard

log = logging.getLogger(__name__)

#: ``bot_data`` keys of the runner (providers and clients) and its queue.
RUNNER, QUEUE, WORKING = "runner", "run_queue", "run_queue_task"


def runner_of(context: BotContext) -> runs.Runner | None:
    return _runner(context.bot_data)


def _runner(bot_data: dict[Any, Any]) -> runs.Runner | None:
    found = bot_data.get(RUNNER)
    return found if isinstance(found, runs.Runner) else None


async def on_run(update: Update, context: BotContext) -> None:
    """``/run BENCHMARK PROVIDER/MODEL [#mode] [attempts]``: queued at once, answered with
    a progress message."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    lang = await user_lang(context, user)
    words = (message.text or "").split()[1:]
    try:
        asked = await runs.ask(
            context.services, runner_of(context), words, user_id=user.id,
            chat_id=message.chat_id, message_id=message.message_id,
        )  # fmt: skip
    except UserError as exc:
        if exc.key == "run_usage":
            runner = runner_of(context)
            models = ", ".join(runner.providers.models) if runner is not None else ""
            await message.reply_text(t(lang, "run_usage", models=models or "—"))
            return
        await reply_error(message, lang, exc)
        return
    run = asked.run
    lines = [AttemptLine(n, "queued") for n in range(1, run.attempts + 1)]
    if not run.created:  # the message handled again: its run as it is now
        run, attempts = await runs.progress(context.services, run.id)
        lines = _lines(run.benchmark, attempts)
    markup = run_progress_keyboard(lang, run.id) if run.state == "queued" else None
    sent = await message.reply_text(
        _progress_text(lang, asked.title, run, lines), reply_markup=markup
    )
    await runs.showing(context.services, run.id, sent.message_id)
    queue = context.bot_data.get(QUEUE)
    if isinstance(queue, runs.RunQueue):
        queue.wake()


def _progress_text(lang: str, title: str, run: Run, lines: list[AttemptLine]) -> str:
    return run_progress(
        lang, title, run.model, mode_label(run.mode, lang) or run.mode, run.state, lines
    )


def _lines(benchmark_name: str, attempts: list[RunAttempt]) -> list[AttemptLine]:
    found = registry.find(benchmark_name)
    lines = []
    for a in attempts:
        score = ""
        if a.score is not None:
            score = found.format_score(a.score) if found is not None else f"{a.score:g}"
        lines.append(AttemptLine(a.n, a.state, score, a.error or ""))
    return lines


async def on_cancel_button(update: Update, context: BotContext) -> None:
    query, user = update.callback_query, update.effective_user
    if query is None or user is None:
        return
    lang = await user_lang(context, user)
    run_id = parse_id((query.data or "").partition(":")[2])
    if run_id is None:
        await query.answer(t(lang, "gone"))
        return
    try:
        run = await runs.cancel(context.services, run_id, user_id=user.id)
    except UserError as exc:
        await query.answer(t(lang, exc.key), show_alert=True)
        return
    except NotFound:  # no such run (a forged press)
        await query.answer(t(lang, "gone"))
        return
    except StorageError:
        await query.answer()
        return
    if run.state != "cancelled":  # it finished before the press
        await query.answer(t(lang, "run_finished"))
        return
    await query.answer(t(lang, "run_cancelled"))
    await _show_progress(context.bot, context.services, run, lang)


async def on_transcript_button(update: Update, context: BotContext) -> None:
    """The exact request and the model's answer of a run's attempt, as a file."""
    query, user = update.callback_query, update.effective_user
    if query is None or user is None:
        return
    lang = await user_lang(context, user)
    submission_id = parse_id((query.data or "").partition(":")[2])
    if submission_id is None or query.message is None:  # forged, or an inline message's
        await query.answer(t(lang, "gone"))
        return
    try:
        _, text = await runs.transcript(context.services, submission_id)
    except UserError as exc:
        await query.answer(t(lang, exc.key), show_alert=True)
        return
    await query.answer()
    await context.bot.send_document(
        query.message.chat.id,
        io.BytesIO(text.encode()),
        filename=f"transcript-{submission_id}.json",
        caption=t(lang, "run_transcript_caption", id=submission_id),
        reply_to_message_id=query.message.message_id,
    )


async def _show_progress(bot: Bot, services: Services, run: Run, lang: str) -> None:
    """Edit a chat run's progress message to what its attempts are now."""
    if run.chat_id is None or run.progress_id is None:
        return
    _, attempts = await runs.progress(services, run.id)
    found = registry.find(run.benchmark)
    title = found.title if found is not None else run.benchmark
    text = _progress_text(lang, title, run, _lines(run.benchmark, attempts))
    markup = run_progress_keyboard(lang, run.id) if run.state == "queued" else None
    with suppress(TelegramError):  # unchanged, or deleted: nothing to show
        await bot.edit_message_text(
            text, chat_id=run.chat_id, message_id=run.progress_id, reply_markup=markup
        )


def listener(app: BotApp) -> runs.Listener:
    """What the queue tells the chat when one of its attempts finishes: the progress
    message edited, and once the run is done, a card per attempt (sent by one instance)."""

    async def heard(run: Run, job: RunAttempt, outcome: AttemptDone) -> None:
        services: Services = app.bot_data["services"]
        if run.chat_id is None or run.chat_id == 0:
            return
        await finish(app, services, run, await _lang(services, run.requested_by))

    return heard


async def finish(app: BotApp, services: Services, run: Run, lang: str) -> None:
    """A run's progress shown as it is; once it is done, its sponsorship refunded if it
    made nothing, and a card per attempt (each sent once, by one instance)."""
    now, attempts = await runs.progress(services, run.id)
    await _show_progress(app.bot, services, now, lang)
    if now.state != "done":
        return
    await refund_if_nothing_made(app.bot, services, now, lang)
    await send_cards(app, services, now, lang, attempts)


async def send_cards(
    app: BotApp, services: Services, run: Run, lang: str, attempts: list[RunAttempt]
) -> None:
    """A done run's cards, each claimed for a while before it is sent and marked sent
    after: one another instance sends (or sent) is left alone, and one whose sender died
    before it was sent is sent by the next look (:func:`tend`)."""
    # one sender of a run's cards at a time here: they go out in the attempts' order
    # (two attempts finishing together each tell the listener)
    lock, users = _card_locks.get(run.id, (asyncio.Lock(), 0))
    _card_locks[run.id] = (lock, users + 1)
    try:
        async with lock:
            await _send_cards(app, services, run, lang, attempts)
    finally:
        lock, users = _card_locks[run.id]
        if users > 1:
            _card_locks[run.id] = (lock, users - 1)
        else:
            del _card_locks[run.id]


#: run id -> the lock of its cards' senders in this process, and how many hold or wait
_card_locks: dict[int, tuple[asyncio.Lock, int]] = {}


async def _send_cards(
    app: BotApp, services: Services, run: Run, lang: str, attempts: list[RunAttempt]
) -> None:
    # to the run's chat as it is now (its group may have become a supergroup)
    for attempt in attempts:
        if attempt.submission_id is None or not await runs.claim_card(services, attempt.id):
            continue
        try:
            await send_card(app, services, lang, run, attempt)
        except (BadRequest, Forbidden) as exc:  # the chat is gone, or the bot blocked
            log.warning("a run card was not sent", extra={"run": run.id, "error": str(exc)})
        except TelegramError as exc:  # Telegram away, or asking to wait: the next look
            log.warning("a run card is sent later", extra={"run": run.id, "error": str(exc)})
            with suppress(StorageError):
                await runs.card_not_sent(services, attempt.id)
            return
        except BaseException:  # the database away, or stopping: the next look sends it
            with suppress(Exception):  # (closing: else the claim lapses)
                await runs.card_not_sent(services, attempt.id)
            raise
        await runs.card_sent(services, attempt.id)


#: Seconds between looks for what a run left undone (cards not sent, refunds not made,
#: payments whose handling was cut short).
TEND_EVERY = 60.0


async def _lang(services: Services, user_id: int | None) -> str:
    if user_id is None:
        return "en"
    return await people.chosen_language(services, user_id) or "en"


async def tend(app: BotApp, services: Services, *, start: bool = False) -> None:
    """What finished runs and payments left undone, done: the cards nobody sent (their
    sender died), the refunds that failed, and the payments neither run nor refunded
    (a while after they were paid; at a ``start`` on SQLite, all: no other process is
    handling one). Telegram away: the next look does it."""
    for run in await runs.finished_lately(services):
        if run.sponsorship_id is not None:  # (a refund failed)
            lang = await _lang(services, run.requested_by)
            await refund_if_nothing_made(app.bot, services, run, lang)
    for run, attempts in await runs.unsent_cards(services):
        lang = await _lang(services, run.requested_by)
        with suppress(TelegramError):  # its progress (perhaps not shown done) and cards
            await _show_progress(app.bot, services, run, lang)
            await send_cards(app, services, run, lang, attempts)
    after = timedelta(0) if start and not services.store.shared else sponsors.UNSETTLED_AFTER
    for done in await sponsors.unsettled(services, _runner(app.bot_data), after=after):
        user_id, lang = done.paid.user_id, await _lang(services, done.paid.user_id)
        with suppress(TelegramError):
            await settle_payment(app.bot, app.bot_data, services, done, user_id, lang)


async def tending(app: BotApp, services: Services) -> None:
    """:func:`tend` at a start (on SQLite, the cards the previous process was sending are
    sent at once), then every :data:`TEND_EVERY` seconds."""
    with suppress(StorageError):
        await services.store.release_cards_at_start()
    start = True
    while True:
        try:
            await tend(app, services, start=start)
            start = False
        except StorageError as exc:
            log.warning("finished runs not looked at: %s", exc)
        except Exception:
            log.exception("finished runs not looked at")
        await asyncio.sleep(TEND_EVERY)


async def send_card(
    app: BotApp, services: Services, lang: str, run: Run, attempt: RunAttempt
) -> None:
    """An attempt's card, with its Transcript button, in the run's chat."""
    assert attempt.submission_id is not None and run.chat_id is not None
    sub = await runs.submission(services, attempt.submission_id)
    if sub is None:
        return
    benchmark = registry.get(sub.benchmark)
    text = run_card(
        lang,
        benchmark.result_from_record(sub.record),
        benchmark,
        model=sub.model or run.model,
        mode_label=mode_label(sub.mode, lang) or run.mode,
        submission_id=sub.id,
        published=sub.visibility.value == "published",
        input_tokens=attempt.input_tokens,
        output_tokens=attempt.output_tokens,
        cost=attempt.cost_usd,
        latency=attempt.latency_s or 0.0,
    )
    await app.bot.send_message(
        run.chat_id,
        text,
        reply_markup=run_card_keyboard(lang, sub.id),
        reply_to_message_id=run.progress_id,
        allow_sending_without_reply=True,
    )


async def start(app: BotApp, services: Services) -> None:
    """The runner and its queue, when a providers file is set (with the services)."""
    if services.settings.providers is None:
        return
    runner = runs.Runner.from_settings_file(services.settings.providers)
    app.bot_data[RUNNER] = runner
    await runs.ensure_benchboard_user(services)
    queue = runs.RunQueue(services, runner, listener(app))
    app.bot_data[QUEUE] = queue
    # the day's runs, once (a start after the day turned queues what the turn did not)
    today = datetime.now(UTC).date()
    await runs.queue_daily(services, runner, today)
    app.bot_data[WORKING] = services.spawn(queue.work())
    # (a start after the day turned with the bot down: yesterday's costs not told yet)
    services.spawn(report_costs(app.bot, services, today - timedelta(days=1), if_any=True))
    services.spawn(tending(app, services))
    if app.job_queue is not None:
        app.job_queue.run_daily(day_turned, time=dtime(second=30, tzinfo=UTC), name="daily-runs")
    log.info("runs: providers %s", ", ".join(runner.providers.providers) or "none")


async def day_turned(context: BotContext) -> None:
    """After the UTC day turns: the day's ``[[daily]]`` runs queued (once, whichever
    instance), and the admins told what yesterday's runs cost (by one instance)."""
    runner, services = runner_of(context), context.services
    if runner is None:
        return
    today = datetime.now(UTC).date()
    await runs.queue_daily(services, runner, today)
    queue = context.bot_data.get(QUEUE)
    if isinstance(queue, runs.RunQueue):
        queue.wake()
    await report_costs(context.bot, services, today - timedelta(days=1))


async def report_costs(bot: Bot, services: Services, day: date, *, if_any: bool = False) -> None:
    """The admins told what the runs of ``day`` cost (one instance sends it, once; with
    ``if_any``, only when there were runs)."""
    try:
        rows = await runs.cost_report(services, day)
        if (if_any and not rows) or not await runs.report_once(services, day):
            return
    except StorageError as exc:
        log.warning("the day's run costs were not told: %s", exc)
        return
    for admin in sorted(services.settings.admins):
        lang = await people.chosen_language(services, admin) or "en"
        with suppress(TelegramError):  # an admin who never started the bot
            await bot.send_message(admin, cost_report(lang, day.isoformat(), rows))


async def on_runs(update: Update, context: BotContext) -> None:
    """``/runs [YYYY-MM-DD]`` (bot admins): what the runs of a day (UTC; today) cost."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    lang = await user_lang(context, user)
    if user.id not in context.services.settings.admins:
        await message.reply_text(t(lang, "bot_admin_only"))
        return
    words = (message.text or "").split()[1:]
    try:
        day = date.fromisoformat(words[0]) if words else datetime.now(UTC).date()
    except ValueError:
        await message.reply_text(t(lang, "runs_usage"))
        return
    rows = await runs.cost_report(context.services, day)
    await message.reply_text(cost_report(lang, day.isoformat(), rows))


async def stop(app: BotApp) -> None:
    """The queue stopped (what it runs released for another instance), the clients closed."""
    working = app.bot_data.pop(WORKING, None)
    if isinstance(working, asyncio.Task):
        working.cancel()
        with suppress(asyncio.CancelledError):
            await working
    runner = app.bot_data.pop(RUNNER, None)
    if isinstance(runner, runs.Runner):
        await runner.close()


# --- sponsored runs, paid in Telegram Stars ----------------------------------------------


def _display_name(user: User) -> str:
    return " ".join(p for p in (user.first_name, user.last_name) if p) or (
        f"@{user.username}" if user.username else str(user.id)
    )


async def on_sponsor(update: Update, context: BotContext) -> None:
    """``/sponsor BENCHMARK [N] [LINK]``: an invoice in Stars for the runs a sponsorship
    of that target buys (currency XTR, no provider token)."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    lang = await user_lang(context, user)
    words = (message.text or "").split()[1:]
    try:
        offer = sponsors.offer(context.services, runner_of(context), words)
    except UserError as exc:
        await reply_error(message, lang, exc)
        return
    await context.bot.send_invoice(
        message.chat_id,
        title=t(lang, "sponsor_title", title=offer.title, target=offer.target)[:32],
        description=t(
            lang,
            "sponsor_description",
            title=offer.title,
            target=offer.target,
            runs=offer.runs * len(offer.models),
            attempts=offer.attempts,
            models=", ".join(offer.models),
        )[:255],
        payload=offer.payload,
        currency=sponsors.STARS,
        prices=[LabeledPrice(t(lang, "sponsor_price_label"), offer.stars)],
        reply_to_message_id=message.message_id,
    )


async def on_pre_checkout(update: Update, context: BotContext) -> None:
    """Answered at once (Telegram waits 10 s): ok when the sponsorship is still offered
    at that price."""
    query = update.pre_checkout_query
    if query is None:
        return
    refusal = sponsors.checkout_refusal(
        runner_of(context), query.invoice_payload, query.currency, query.total_amount
    )
    try:
        if refusal is None:
            await query.answer(ok=True)
            return
        lang = await user_lang(context, query.from_user)
        await query.answer(ok=False, error_message=t(lang, refusal))
    except BadRequest as exc:
        text = exc.message.lower()
        if "query is too old" not in text and "query id is invalid" not in text:
            raise
        # answered past Telegram's 10 s (handled again after a restart): the payment
        # did not go through, and the user may pay again
        log.info("a pre-checkout query answered too late", extra={"error": exc.message})


async def on_paid(update: Update, context: BotContext) -> None:
    """A successful payment: the runs queued and the sponsor thanked, or (when they
    cannot be made) the Stars refunded."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None or message.successful_payment is None:
        return
    payment = message.successful_payment
    lang = await user_lang(context, user)
    done = await sponsors.paid(
        context.services, runner_of(context), user_id=user.id, chat_id=message.chat_id,
        name=_display_name(user), payload=payment.invoice_payload,
        charge_id=payment.telegram_payment_charge_id, stars=payment.total_amount,
    )  # fmt: skip
    await settle_payment(
        context.bot, context.bot_data, context.services, done, message.chat_id, lang,
        reply_to=message.message_id,
    )  # fmt: skip


async def settle_payment(
    bot: Bot, bot_data: dict[Any, Any], services: Services, done: sponsors.Done,
    chat_id: int, lang: str, *, reply_to: int | None = None,
) -> None:  # fmt: skip
    """A payment's runs told to the sponsor (and the queue woken), or its refund made and
    told. A refund Telegram refuses is tried again (:func:`tend`); one that failed for
    a transient fault raises, for the payment to be handled again."""
    if done.refund:
        try:
            await refund(bot, done.paid.user_id, done.paid.charge_id)
        except TelegramError as exc:
            await sponsors.refund_failed(services, done.paid)
            if not isinstance(exc, BadRequest | Forbidden):
                raise  # handled again soon
            log.warning("a refund was refused", extra={"id": done.paid.id, "error": str(exc)})
            if reply_to is not None:  # (told once, at the payment)
                await bot.send_message(
                    chat_id, t(lang, "sponsor_refund_later", reason=html.escape(done.reason)),
                    reply_to_message_id=reply_to, allow_sending_without_reply=True,
                )  # fmt: skip
            return  # tried again by the next look
        await bot.send_message(
            chat_id, t(lang, "sponsor_refunded", reason=html.escape(done.reason)),
            reply_to_message_id=reply_to, allow_sending_without_reply=True,
        )  # fmt: skip
        return
    if not done.runs:
        return  # refunded after a run that made nothing: said then
    if done.runs[0].created or reply_to is not None:
        await bot.send_message(
            chat_id, tn(lang, "sponsor_thanks", len(done.runs), target=done.paid.target),
            reply_to_message_id=reply_to, allow_sending_without_reply=True,
        )  # fmt: skip
    queue = bot_data.get(QUEUE)
    if isinstance(queue, runs.RunQueue):
        queue.wake()


async def refund(bot: Bot, user_id: int, charge_id: str) -> None:
    """A payment's Stars given back. Telegram refunds a charge once: "already refunded"
    (the answer to an earlier call was lost and the call tried again, or a payment
    handled again) means the refund is made."""
    try:
        await bot.refund_star_payment(user_id, charge_id)
    except BadRequest as exc:
        if "already_refunded" not in exc.message.lower():
            raise
        log.info("a refund was made already", extra={"charge": charge_id})


async def refund_if_nothing_made(bot: Bot, services: Services, run: Run, lang: str) -> None:
    """A sponsored run that made nothing: the sponsor's Stars back, once, and a line."""
    paid = await sponsors.refund_after(services, run)
    if paid is None:
        return
    try:
        await refund(bot, paid.user_id, paid.charge_id)
    except TelegramError as exc:  # tried again at the next start
        log.warning("a sponsorship was not refunded", extra={"id": paid.id, "error": str(exc)})
        await sponsors.refund_failed(services, paid)
        return
    if run.chat_id:
        with suppress(TelegramError):
            await bot.send_message(
                run.chat_id, t(lang, "sponsor_refunded", reason=t(lang, "sponsor_run_failed"))
            )

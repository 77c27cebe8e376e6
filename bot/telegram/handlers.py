"""Telegram handlers: read the update, call the service, send what the formatter renders."""

from __future__ import annotations

import html
import io
import logging
import re
from typing import Any

from telegram import ForceReply, Message, Update, User
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest

from scoring import Mode, Result, ScoringError, UnknownBenchmark, UnknownMode, parse_mode, registry
from scoring import primebench as pb
from storage import (
    MissingModeOrModel,
    NewSubmission,
    NotAllowed,
    NotFound,
    StoreUnavailable,
    Submission,
    Visibility,
    analytics,
)

from ..core import admin, datafiles
from ..core import submit as service
from ..core.submit import UserError
from ..core.tags import clean_model, looks_like_answers
from ..i18n import LANGUAGES, pick_language, t
from ..render.format import (
    fits,
    render_board,
    render_history,
    render_invalid_lines,
    render_score_reply,
)
from .context import BotContext
from .keyboards import (
    BoardQuery,
    board_keyboard,
    parse_action,
    parse_board,
    score_keyboard,
    withdraw_keyboard,
)

log = logging.getLogger(__name__)

MODE_LABELS = {m.value: m.label for m in Mode}
BOARD_PAGE = 10
_LANG = "lang"
_AWAITING_MODEL = "awaiting_model"
_SCORE_COMMAND = re.compile(r"^/score(?:@\w+)?(?=\s|$)", re.IGNORECASE)


# --- small helpers -----------------------------------------------------------------


async def user_lang(context: BotContext, user: User | None) -> str:
    """The /lang choice (cached per user), else Telegram's language, else English."""
    if user is None:
        return "en"
    data = context.user_data if context.user_data is not None else {}
    if _LANG not in data:
        data[_LANG] = await context.services.store.user_language(user.id)
    return pick_language(data[_LANG], user.language_code)


async def reply(message: Message, text: str, **kwargs: Any) -> Message:
    return await message.reply_text(
        text, parse_mode=ParseMode.HTML, disable_web_page_preview=True, **kwargs
    )


def _escaped(values: dict[str, object]) -> dict[str, object]:
    return {k: html.escape(v) if isinstance(v, str) else v for k, v in values.items()}


async def reply_error(message: Message, lang: str, error: UserError) -> None:
    await reply(message, t(lang, error.key, **_escaped(error.values)))


def is_group(update: Update) -> bool:
    chat = update.effective_chat
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


async def track(update: Update, context: BotContext) -> None:
    """Record users and chats as Telegram reports them (only when something changed)."""
    store = context.services.store
    seen = context.bot_data.setdefault("seen", {})
    user, chat = update.effective_user, update.effective_chat
    if user is not None:
        info = (user.first_name, user.last_name, user.username, user.language_code)
        if seen.get(("u", user.id)) != info:
            await store.upsert_user(
                user.id,
                first_name=user.first_name,
                last_name=user.last_name,
                username=user.username,
                language_code=user.language_code,
            )
            seen[("u", user.id)] = info
    if chat is not None:
        chat_info = (chat.type, chat.title)
        if seen.get(("c", chat.id)) != chat_info:
            await store.upsert_chat(chat.id, type=chat.type, title=chat.title)
            seen[("c", chat.id)] = chat_info


# --- scoring a submission ------------------------------------------------------------


async def _left_today(context: BotContext, user_id: int) -> tuple[int, int]:
    left, _ = await service.publish_allowance(context.services, user_id)
    return left, context.services.settings.daily_limit


async def render_submission(
    context: BotContext,
    sub: Submission,
    lang: str,
    *,
    owner: bool = True,
    result: Result | None = None,
) -> tuple[str, Any]:
    """The score reply and its buttons; for someone else (a shared link) neither buttons
    nor the owner's publication allowance. ``result`` saves rebuilding it from the record
    when the caller has just scored it."""
    benchmark = registry.get(sub.benchmark)
    if result is None:
        result = benchmark.result_from_record(sub.record)
    published = sub.visibility is Visibility.PUBLISHED
    text = render_score_reply(
        result,
        benchmark,
        lang=lang,
        submission_id=sub.id,
        mode_label=MODE_LABELS.get(sub.mode or ""),
        model=sub.model,
        left_today=await _left_today(context, sub.user_id) if owner else None,
        published=published,
    )
    keyboard = score_keyboard(
        lang,
        sub.id,
        has_mode=sub.mode is not None,
        has_model=sub.model is not None,
        published=published,
        has_details=result.invalid_line_count > 0,
        bot_username=context.services.bot_username,
    )
    return text, keyboard


async def submit(
    update: Update,
    context: BotContext,
    source: Message,
    *,
    text: str | None,
    document: Any = None,
    command_args: str = "",
) -> None:
    """Score text or a document from ``source`` and reply to it (the submission).

    The submission is recorded under ``update.effective_message`` (the message that asked
    for scoring), so a delivery repeated by Telegram stores it once.
    """
    message = update.effective_message
    user = update.effective_user
    if message is None or user is None:
        return
    lang = await user_lang(context, user)
    services = context.services
    try:
        if document is not None:
            service.check_document(document.file_name, document.file_size)
            file = await document.get_file()
            service.check_size(file.file_size)
            text = service.decode_upload(bytes(await file.download_as_bytearray()))
        scored = await service.score_submission(services, text or "", command_args=command_args)
    except UserError as exc:
        await reply_error(source, lang, exc)
        return
    sub = await services.store.record_submission(
        NewSubmission(
            user_id=user.id,
            chat_id=message.chat_id,
            message_id=message.message_id,
            benchmark=scored.benchmark.name,
            raw=scored.body,
            result=scored.result,
            scorer_version=scored.benchmark.scorer_version,
            key_version_id=scored.key_version_id,
            model=scored.tags.model,
            mode=scored.tags.mode.value if scored.tags.mode else None,
            extra={k: v for k, v in scored.options.items() if k != "previous"} or None,
        )
    )
    fresh = scored.result if sub.created else None  # a repeated delivery shows what is stored
    body, keyboard = await render_submission(context, sub, lang, result=fresh)
    await context.bot.send_reply(source, body, keyboard)


async def on_private_text(update: Update, context: BotContext) -> None:
    message = update.effective_message
    if message is None or message.text is None:
        return
    if await _take_model_name(update, context, message.text):
        return
    await submit(update, context, message, text=message.text)


async def on_edited(update: Update, context: BotContext) -> None:
    """Edits are not re-scored: the stored score stands; a new message is a new submission."""
    message = update.effective_message
    if message is not None:
        await reply(message, t(await user_lang(context, update.effective_user), "edited"))


async def on_private_document(update: Update, context: BotContext) -> None:
    message = update.effective_message
    if message is None or message.document is None:
        return
    caption = message.caption or ""
    args = _SCORE_COMMAND.sub("", caption, count=1).strip()
    await submit(update, context, message, text=None, document=message.document, command_args=args)


async def on_score_command(update: Update, context: BotContext) -> None:
    """``/score`` with text after it, as a reply to a message or a document, or as a caption."""
    message = update.effective_message
    if message is None:
        return
    full = message.text or message.caption or ""
    if message.document is not None:
        # The whole caption is metadata: ``/score #think`` and lines like ``model: NAME``.
        args = _SCORE_COMMAND.sub("", full, count=1).strip()
        await submit(
            update, context, message, text=None, document=message.document, command_args=args
        )
        return
    first, _, rest = full.partition("\n")
    args = _SCORE_COMMAND.sub("", first, count=1).strip()
    if looks_like_answers(args):
        # ``/score 1:3 2:4``: the command's own line is part of the submission.
        await submit(update, context, message, text=f"{args}\n{rest}")
        return
    if rest.strip():
        # The command's line stays line 1, so invalid lines keep the numbers the user sees.
        await submit(update, context, message, text=f"\n{rest}", command_args=args)
        return
    target = message.reply_to_message
    if target is not None and target.document is not None:
        await submit(
            update, context, target, text=None, document=target.document, command_args=args
        )
    elif target is not None and (target.text or target.caption):
        await submit(update, context, target, text=target.text or target.caption, command_args=args)
    else:
        lang = await user_lang(context, update.effective_user)
        await reply(message, t(lang, "score_usage"))


async def on_reply_in_group(update: Update, context: BotContext) -> None:
    """A reply to the bot's "send the model name" prompt."""
    message = update.effective_message
    if message is not None and message.text:
        await _take_model_name(update, context, message.text)


# --- model, mode, publish, details, withdraw ------------------------------------------


async def _take_model_name(update: Update, context: BotContext, text: str) -> bool:
    data = context.user_data
    message = update.effective_message
    if data is None or message is None or _AWAITING_MODEL not in data:
        return False
    sub_id, chat_id, reply_id, prompt_id = data[_AWAITING_MODEL]
    replied = message.reply_to_message
    if (
        chat_id != message.chat_id
        or text.startswith("/")
        # a pasted output (several lines) is a new submission, not a model name
        or "\n" in text.strip()
        # in a group, only the answer to the bot's prompt is the model name
        or (is_group(update) and (replied is None or replied.message_id != prompt_id))
    ):
        return False
    model = clean_model(text)
    if not model:
        return False
    del data[_AWAITING_MODEL]
    lang = await user_lang(context, update.effective_user)
    sub = await context.services.store.set_model(sub_id, model)
    await reply(message, t(lang, "model_set", model=html.escape(model)))
    await _refresh(context, sub, chat_id, reply_id, lang)
    return True


async def _refresh(
    context: BotContext, sub: Submission, chat_id: int, message_id: int, lang: str
) -> None:
    body, keyboard = await render_submission(context, sub, lang)
    try:
        await context.bot.edit_message_text(
            body,
            chat_id=chat_id,
            message_id=message_id,
            parse_mode=ParseMode.HTML,
            reply_markup=keyboard,
            disable_web_page_preview=True,
        )
    except BadRequest as exc:
        if "not modified" not in str(exc).lower():
            raise


async def on_submission_button(update: Update, context: BotContext) -> None:
    query = update.callback_query
    if query is None or query.data is None or query.message is None:
        return
    parsed = parse_action(query.data)
    lang = await user_lang(context, query.from_user)
    if parsed is None:
        await query.answer(t(lang, "gone"))
        return
    action, sub_id, argument = parsed
    store = context.services.store
    sub = await store.get_submission(sub_id)
    if sub is None:
        await query.answer(t(lang, "not_found", id=sub_id), show_alert=True)
        return
    if sub.user_id != query.from_user.id:
        await query.answer(t(lang, "not_yours"), show_alert=True)
        return
    chat_id, message_id = query.message.chat.id, query.message.message_id
    if action == "mode":
        try:
            mode = Mode(argument)
        except ValueError:
            await query.answer(t(lang, "gone"))
            return
        sub = await store.set_mode(sub_id, mode.value)
        await query.answer(t(lang, "mode_set", mode=mode.label))
        await _refresh(context, sub, chat_id, message_id, lang)
    elif action == "model":
        await query.answer()
        # selective ForceReply reaches the users @mentioned in the text: name the submitter.
        prompt = await context.bot.send_message(
            chat_id,
            f"{query.from_user.mention_html()} {t(lang, 'ask_model', id=sub_id)}",
            parse_mode=ParseMode.HTML,
            reply_markup=ForceReply(selective=True, input_field_placeholder="model name"),
            reply_to_message_id=message_id,
        )
        if context.user_data is not None:
            context.user_data[_AWAITING_MODEL] = (sub_id, chat_id, message_id, prompt.message_id)
    elif action == "pub":
        await _publish(update, context, sub, lang, chat_id, message_id)
    elif action == "det":
        await query.answer()
        await _send_details(context, sub, lang, chat_id, message_id)
    elif action == "wd":
        try:
            await store.withdraw(sub_id, query.from_user.id)
        except NotAllowed:
            await query.answer(t(lang, "not_yours"), show_alert=True)
            return
        await query.answer(t(lang, "withdrawn", id=sub_id), show_alert=True)


async def _publish(
    update: Update, context: BotContext, sub: Submission, lang: str, chat_id: int, message_id: int
) -> None:
    query = update.callback_query
    assert query is not None
    services = context.services
    if sub.visibility is Visibility.PUBLISHED:
        await query.answer(t(lang, "already_published", id=sub.id))
        return
    try:
        await admin.check_can_publish(services, sub.user_id)  # banned: private scoring only
    except UserError as exc:
        await query.answer(t(lang, exc.key), show_alert=True)
        return
    left, reset = await service.publish_allowance(services, sub.user_id)
    limit = services.settings.daily_limit
    if left <= 0:
        await query.answer(
            t(lang, "limit_reached", limit=limit, reset=reset.strftime("%H:%M")), show_alert=True
        )
        return
    try:
        sub = await services.store.publish(sub.id)
    except MissingModeOrModel:
        await query.answer(t(lang, "need_mode_model"), show_alert=True)
        return
    text = t(lang, "published", id=sub.id, left=left - 1, limit=limit)
    # Equal answer sets for the same model and mode are one run on the boards: say so.
    twin = await services.store.same_answers_as(sub.id)
    if twin is not None:
        text += " " + t(lang, "same_run", id=twin)
    await query.answer(text, show_alert=twin is not None)
    await _refresh(context, sub, chat_id, message_id, lang)


async def _send_details(
    context: BotContext, sub: Submission, lang: str, chat_id: int, message_id: int
) -> None:
    result = registry.get(sub.benchmark).result_from_record(sub.record)
    text = render_invalid_lines(result, lang, sub.id)
    if fits(text):
        await context.bot.send_message(chat_id, text, reply_to_message_id=message_id)
        return
    await context.bot.send_document(
        chat_id,
        io.BytesIO(text.encode()),
        filename=f"invalid-lines-{sub.id}.txt",
        caption=t(lang, "details_file", count=result.invalid_line_count, id=sub.id),
        reply_to_message_id=message_id,
    )


# --- leaderboards and history --------------------------------------------------------


def _board_args(args: list[str]) -> tuple[str, str | None]:
    benchmark, mode = registry.DEFAULT, None
    for word in args:
        try:
            benchmark = registry.get(word).name
        except UnknownBenchmark:
            mode = parse_mode(word).value
    return benchmark, mode


async def _board_page(
    context: BotContext, query: BoardQuery, chat_id: int, user_id: int, lang: str, in_group: bool
) -> tuple[str, Any]:
    benchmark = registry.get(query.benchmark)
    board = await context.services.store.leaderboard(
        benchmark.name,
        chat_id=chat_id if query.scope == "c" else None,
        user_id=user_id if query.scope == "u" else None,
        mode=query.mode,
        days=query.days or None,
        limit=BOARD_PAGE,
        offset=query.page * BOARD_PAGE,
    )
    scope = {"g": "scope_global", "c": "scope_chat", "u": "scope_user"}[query.scope]
    # ZeroBench rows show pass@k and k/k beside pass@1: the best submissions' records.
    ids = [r.submission_id for r in board.rows if r.submission_id is not None]
    records = (
        await analytics.records(context.services.store, ids)
        if benchmark.name == "zerobench"
        else None
    )
    text = render_board(
        board,
        benchmark,
        lang=lang,
        scope=scope,
        mode_label=MODE_LABELS.get(query.mode or ""),
        days=query.days or None,
        page=query.page,
        page_size=BOARD_PAGE,
        mode_labels=MODE_LABELS,
        records=records,
    )
    pages = max(1, -(-board.total // BOARD_PAGE))
    return text, board_keyboard(lang, query, pages, in_group=in_group)


async def on_leaderboard(update: Update, context: BotContext) -> None:
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    lang = await user_lang(context, user)
    try:
        benchmark, mode = _board_args(context.args or [])
    except UnknownMode as exc:
        await reply(
            message,
            t(
                lang,
                "board_bad_args",
                word=html.escape(exc.text),
                benchmarks=", ".join(registry.names()),
                modes=", ".join(m.value for m in Mode),
            ),
        )
        return
    group = is_group(update)
    query = BoardQuery(benchmark, "c" if group else "g", mode, 0, 0)
    text, keyboard = await _board_page(context, query, message.chat_id, user.id, lang, group)
    await reply(message, text, reply_markup=keyboard)


async def on_board_button(update: Update, context: BotContext) -> None:
    query = update.callback_query
    if query is None or query.data is None or query.message is None:
        return
    lang = await user_lang(context, query.from_user)
    board_query = parse_board(query.data)
    if board_query is None or board_query.benchmark not in registry.names():
        await query.answer(t(lang, "gone"))
        return
    await query.answer()
    chat = query.message.chat
    in_group = chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)
    text, keyboard = await _board_page(
        context, board_query, chat.id, query.from_user.id, lang, in_group
    )
    try:
        await query.edit_message_text(
            text, parse_mode=ParseMode.HTML, reply_markup=keyboard, disable_web_page_preview=True
        )
    except BadRequest as exc:
        if "not modified" not in str(exc).lower():
            raise


async def on_me(update: Update, context: BotContext) -> None:
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    lang = await user_lang(context, user)
    store = context.services.store
    subs = await store.history(user.id, limit=10)
    titles = {b.name: b.title for b in registry.all_benchmarks()}
    bests = await store.leaderboard(registry.DEFAULT, user_id=user.id, limit=5)
    text = render_history(subs, lang=lang, titles=titles, mode_labels=MODE_LABELS, bests=bests.rows)
    published = [s.id for s in subs if s.visibility is Visibility.PUBLISHED]
    await reply(message, text, reply_markup=withdraw_keyboard(lang, published))


# --- simple commands -----------------------------------------------------------------


async def on_start(update: Update, context: BotContext) -> None:
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    lang = await user_lang(context, user)
    payload = (context.args or [""])[0]
    if payload.startswith("s") and payload[1:].isdigit():
        sub = await context.services.store.get_submission(int(payload[1:]))
        visible = sub is not None and (
            sub.visibility is Visibility.PUBLISHED or sub.user_id == user.id
        )
        if sub is None or not visible:
            await reply(message, t(lang, "not_found", id=html.escape(payload[1:])))
            return
        owner = sub.user_id == user.id
        text, keyboard = await render_submission(context, sub, lang, owner=owner)
        await reply(message, text, reply_markup=keyboard if owner else None)
        return
    await reply(message, t(lang, "welcome"))


async def on_help(update: Update, context: BotContext) -> None:
    if update.effective_message is not None:
        await reply(
            update.effective_message, t(await user_lang(context, update.effective_user), "help")
        )


async def on_prompt(update: Update, context: BotContext) -> None:
    message = update.effective_message
    if message is None:
        return
    lang = await user_lang(context, update.effective_user)
    await reply(
        message,
        f"{t(lang, 'prompt_intro')}\n<pre>{html.escape(pb.PROMPT)}</pre>\n{html.escape(pb.CREDIT)}",
    )


async def on_questions(update: Update, context: BotContext) -> None:
    message = update.effective_message
    if message is None:
        return
    lang = await user_lang(context, update.effective_user)
    path = datafiles.questions_path(context.services.settings.data_dir)
    if path is None:
        await reply(message, t(lang, "no_questions"))
        return
    await message.reply_document(
        path.read_bytes(), filename="Q.json", caption=t(lang, "questions_caption")
    )


async def on_benchmarks(update: Update, context: BotContext) -> None:
    message = update.effective_message
    if message is None:
        return
    lang = await user_lang(context, update.effective_user)
    lines = []
    for benchmark in registry.all_benchmarks():
        loaded = context.services.keys.get(benchmark.name)
        if benchmark.name == "natory":
            status = "target of the day: /natory"
        elif loaded is not None:
            status = t(lang, "key_loaded", version=loaded.version.version)
        else:
            status = t(lang, "key_missing")
        lines.append(f"• <b>{html.escape(benchmark.title)}</b> (#{benchmark.name}) — {status}")
    await reply(message, t(lang, "benchmarks", lines="\n".join(lines)))


async def on_lang(update: Update, context: BotContext) -> None:
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    choice = (context.args or [""])[0].lower()
    if choice not in LANGUAGES:
        await reply(message, t(await user_lang(context, user), "lang_usage"))
        return
    await context.services.store.set_user_language(user.id, choice)
    if context.user_data is not None:
        context.user_data[_LANG] = choice
    await reply(message, t(choice, "lang_set"))


# --- errors ----------------------------------------------------------------------------


async def on_error(update: object, context: BotContext) -> None:
    """Log with the update id; tell the user something short and true."""
    error = context.error
    update_id = update.update_id if isinstance(update, Update) else None
    if isinstance(error, ScoringError):
        log.warning("update %s: %s", update_id, error)
    else:
        log.error("update %s failed", update_id, exc_info=error)
    if not isinstance(update, Update) or update.effective_message is None:
        return
    lang = pick_language(
        None, update.effective_user.language_code if update.effective_user else None
    )
    key = "store_busy" if isinstance(error, StoreUnavailable) else "internal_error"
    if isinstance(error, NotFound):
        key = "gone"
    try:
        text = t(lang, key)
        if isinstance(error, ScoringError):
            text = html.escape(str(error))
        await reply(update.effective_message, text)
    except Exception:  # the chat may be gone; the error is already logged
        log.debug("could not tell the user about update %s", update_id)

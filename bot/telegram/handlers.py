"""Telegram handlers of the users' messages, commands and buttons: read the update, call
a use case in ``bot.core``, send what ``bot.render`` makes of its answer.

Parse mode (HTML) and link previews (off) come from the Application's ``Defaults``;
a reply that is plain text says ``parse_mode=None``.
"""

from __future__ import annotations

import contextlib
import difflib
import html
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import Any

from telegram import (
    Chat,
    Document,
    Message,
    MessageOriginUser,
    Update,
    User,
)
from telegram.constants import ChatType
from telegram.error import BadRequest, ChatMigrated, TelegramError
from telegram.ext import ApplicationHandlerStop, filters

from scoring import Benchmark, Result, ScoringError, registry

from ..core import groups, people, sharing, submissions, submit
from ..core.bounded import Lru, storable
from ..core.errors import DailyLimit, NotFound, UserError
from ..core.pastes import Paste, Pastes, at_limit
from ..core.submissions import DETECTED, Submission
from ..core.tags import looks_like_answers, split_score_line
from ..render.card_views import challenge_line
from ..render.format import (
    card_hides_lines,
    mode_label,
    next_step,
    render_score_reply,
)
from ..render.i18n import DEFAULT_LANGUAGE, N_, pick_language, t, tn
from ..render.trust_format import held_line, held_reason
from .context import BotApp, BotContext
from .http import send_reply
from .keyboards import (
    Keyboard,
    markup,
    score_keyboard,
)
from .uploads import DocumentUpload

log = logging.getLogger(__name__)

_LANG = "lang"
_RECENT = "recent_users_and_chats"
_PASTES = "pastes"
#: Users and chats whose PTB ``user_data``/``chat_data`` (the language) is kept; the
#: least recently seen beyond this are dropped. A model name the bot waits for is in the
#: database (``core.awaiting``).
RECENT_MAX = 20_000
#: ``/score`` at the start of a text or caption (commands are case-insensitive), and the
#: bot it is addressed to (``/score@name``), if any.
SCORE_COMMAND = re.compile(r"^/score(?:@(\w+))?(?=\s|$)", re.IGNORECASE)


class CaptionCommand(filters.MessageFilter):
    """A caption that starts with a command for this bot: ``pattern``'s first group is
    the bot it is addressed to (``/score@name``), if any. ``/score@OtherBot`` is another
    bot's, as a text command's is."""

    def __init__(self, pattern: re.Pattern[str], name: str, *, text: bool = False) -> None:
        super().__init__(name=name)
        self.pattern = pattern
        #: a text's command too, not only a caption's
        self.text = text

    def filter(self, message: Message) -> bool:
        said = (message.text if self.text else None) or message.caption
        found = self.pattern.match(said or "")
        if found is None:
            return False
        to = found[1]
        return to is None or to.casefold() == (message.get_bot().username or "").casefold()


SCORE_CAPTION = CaptionCommand(SCORE_COMMAND, "SCORE_CAPTION")
#: ``/score`` for this bot starting a text or a caption.
SCORE_MESSAGE = CaptionCommand(SCORE_COMMAND, "SCORE_MESSAGE", text=True)


# --- small helpers -----------------------------------------------------------------


async def user_lang(context: BotContext, user: User | None) -> str:
    """The /lang choice (cached per user), else Telegram's language, else English."""
    if user is None:
        return "en"
    data = context.user_data if context.user_data is not None else {}
    if _LANG not in data:
        data[_LANG] = await people.chosen_language(context.services, user.id)
    return pick_language(data[_LANG], user.language_code)


def forget_lang(app: BotApp, topic: str) -> None:
    """Another instance announced a /lang choice (``lang:ID``; ``""``: anything may have
    changed): drop the cached one, read again when next needed."""
    kind, _, user = topic.partition(":")
    if topic == "":
        for data in app.user_data.values():
            data.pop(_LANG, None)
    elif kind == "lang" and user.lstrip("-").isdigit():
        found = app.user_data.get(int(user))
        if found is not None:
            found.pop(_LANG, None)


def remember_lang(context: BotContext, choice: str) -> None:
    """The user's new /lang choice, for :func:`user_lang`."""
    if context.user_data is not None:
        context.user_data[_LANG] = choice


#: The longest value (as typed by a user, or an error's reason) put into a reply.
MAX_VALUE_CHARS = 300


def _escaped(values: dict[str, object]) -> dict[str, object]:
    """Values for a message: escaped for HTML, and cut short, so that whatever a user
    typed keeps a reply within Telegram's length limit."""
    return {
        k: html.escape(v if len(v) <= MAX_VALUE_CHARS else v[: MAX_VALUE_CHARS - 1] + "…")
        if isinstance(v, str)
        else v
        for k, v in values.items()
    }


def error_text(lang: str, error: UserError) -> str:
    if isinstance(error, DailyLimit):
        return tn(lang, "limit_reached", error.limit, **_escaped(error.values))
    values = _escaped(error.values)
    if isinstance(error.values.get("state"), str):  # a result's state, in the reader's words
        values["state"] = t(lang, f"state_{error.values['state']}")
    if error.key == "bad_encoding":  # why, in the reader's language (the scorer's is English)
        offset = error.values.get("offset")
        values["reason"] = (
            t(lang, "reason_binary")
            if offset is None
            else t(lang, "reason_not_utf8", offset=offset)
        )
    return t(lang, error.key, **values)


async def reply_error(message: Message, lang: str, error: UserError) -> None:
    await message.reply_text(error_text(lang, error))


#: How often the admins are told again that a key is missing (per benchmark, per process).
KEY_MISSING_EVERY = 3600.0


async def no_key(
    context: BotContext, source: Message, lang: str, user_id: int, error: UserError
) -> None:
    """A submission whose benchmark's key is not loaded: an admin is told how to load it;
    anyone else that the admins know and when to send it again, and the admins are told
    (at most once an hour per benchmark)."""
    admins = context.services.settings.admins
    if user_id in admins:
        await source.reply_text(t(lang, "no_key_admin", **_escaped(error.values)))
        return
    if not admins:  # nobody to tell: the answer does not say anyone was
        await source.reply_text(t(lang, "no_key_later", **_escaped(error.values)))
        return
    await reply_error(source, lang, error)
    told: dict[str, float] = context.bot_data.setdefault("key_missing_told", {})
    name, now = str(error.values.get("name", "")), time.monotonic()
    if now - told.get(name, -KEY_MISSING_EVERY) < KEY_MISSING_EVERY:
        return
    told[name] = now
    log.warning("a submission met a missing key", extra={"benchmark": name})
    for admin in sorted(admins):
        with contextlib.suppress(TelegramError):
            await context.bot.send_message(
                admin, t(DEFAULT_LANGUAGE, "admin_key_missing", **_escaped(error.values))
            )


def from_this_bot(message: Message, bot_id: int) -> bool:
    """A message of the bot's own: sent by it (``/score`` in reply to its card),
    forwarded back from it, or posted through its inline mode."""
    origin = message.forward_origin
    if isinstance(origin, MessageOriginUser) and origin.sender_user.id == bot_id:
        return True
    return any(u is not None and u.id == bot_id for u in (message.from_user, message.via_bot))


def in_group(chat: Chat | None) -> bool:
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


def _forged(update: Update) -> bool:
    """An update carrying an id no Telegram user, chat or message has (beyond 64 bits):
    it never reaches the store."""
    user, chat, message = update.effective_user, update.effective_chat, update.effective_message
    ids = [update.update_id]
    ids += [user.id] if user is not None else []
    ids += [chat.id] if chat is not None else []
    ids += [message.message_id] if message is not None else []
    return not all(storable(i) for i in ids)


def _remember(context: BotContext, user_id: int | None, chat_id: int | None) -> None:
    """Keep PTB's per-user and per-chat data for the most recent users and chats only."""
    recent = context.bot_data.get(_RECENT)
    if not isinstance(recent, Lru):
        application = context.application

        def drop(key: tuple[str, int], _: object) -> None:
            kind, number = key
            if kind == "u":
                application.drop_user_data(number)
            else:
                application.drop_chat_data(number)

        recent = context.bot_data[_RECENT] = Lru(RECENT_MAX, on_evict=drop)
    if user_id is not None:
        recent[("u", user_id)] = True
    if chat_id is not None:
        recent[("c", chat_id)] = True


async def track(update: Update, context: BotContext) -> None:
    """Record users and chats as Telegram reports them (only when something changed).
    An update with ids beyond what Telegram gives goes no further (a button is answered)."""
    if _forged(update):
        log.warning("update %s: ids out of range, dropped", update.update_id)
        query = update.callback_query
        if query is not None:
            with contextlib.suppress(TelegramError):
                await query.answer(t(pick_language(None, query.from_user.language_code), "gone"))
        raise ApplicationHandlerStop
    user, chat = update.effective_user, update.effective_chat
    _remember(context, user.id if user else None, chat.id if chat else None)
    _note_paste(update, context)  # before anything awaits: in the order updates arrived
    person = place = None
    if user is not None:
        person = people.Person(
            user.id, user.first_name, user.last_name, user.username, user.language_code
        )
    if chat is not None:
        place = people.Place(chat.id, chat.type, chat.title)
    written = await people.track(context.services, person, place)
    if written is not None and context.user_data is not None:
        # their /lang choice came back with the write: no read of it for this update
        context.user_data[_LANG] = written.chosen_language


def pastes(context: BotContext) -> Pastes:
    """The pastes being put together (one per Application)."""
    found = context.bot_data.get(_PASTES)
    if not isinstance(found, Pastes):
        found = context.bot_data[_PASTES] = Pastes()
    return found


def _note_paste(update: Update, context: BotContext) -> None:
    """Tell the paste buffer about a new private text message (a possible part of a
    long paste Telegram split); commands and replies are never parts."""
    message, user = update.message, update.effective_user
    if (
        message is None
        or user is None
        or message.text is None
        or message.chat.type != ChatType.PRIVATE
        or message.text.startswith("/")
        or message.reply_to_message is not None
    ):
        return
    pastes(context).note(message.chat_id, user.id, message.message_id, message.text)


#: What Telegram answers an edit that has nothing to do: the same text again, a message
#: deleted since its button was pressed, or one that is not the bot's (a forged press).
_NOTHING_TO_EDIT = ("not modified", "message to edit not found", "message can't be edited")


async def edited(edit: Awaitable[object]) -> None:
    """Await an edit; an edit with nothing to do (:data:`_NOTHING_TO_EDIT`) is no error:
    the press was answered, and there is no message of the bot's to change."""
    try:
        await edit
    except BadRequest as exc:
        if not any(s in str(exc).lower() for s in _NOTHING_TO_EDIT):
            raise


# --- scoring a submission ------------------------------------------------------------


#: The card's line saying which benchmark read the message and which tags choose
#: another, by (language, benchmark): the same for every card.
_CHOSEN: dict[tuple[str, str], str] = {}


def _chosen_line(lang: str, benchmark: Benchmark) -> str:
    line = _CHOSEN.get((lang, benchmark.name))
    if line is None:
        others = " ".join(f"#{b.name}" for b in registry.all_benchmarks() if b is not benchmark)
        title = html.escape(benchmark.title)
        line = _CHOSEN[(lang, benchmark.name)] = t(
            lang, "benchmark_chosen", title=title, tags=others
        )
    return line


async def card(
    context: BotContext,
    sub: Submission,
    lang: str,
    *,
    owner: bool = True,
    result: Result | None = None,
    notes: Sequence[str] = (),
) -> tuple[str, Keyboard | None]:
    """The score reply and its buttons (for someone else, no allowance and no buttons):
    for its owner, one line saying what is missing to publish, and the buttons for it."""
    card = await submissions.card(context.services, sub, owner=owner, result=result)
    # which benchmark read it, and how to choose another: only when it was guessed
    chosen = _chosen_line(lang, card.benchmark) if sub.extra.get(DETECTED) else None
    step = None
    held = None
    if card.flag is not None:
        flag = card.flag
        why = held_reason(lang, flag.reason, flag.agree, flag.of, flag.match, flag.wrong)
        held = held_line(lang, card.flag_state, why)
    if owner and card.flag_state != "held":
        step = next_step(
            lang,
            has_mode=sub.mode is not None,
            has_model=sub.model is not None,
            visibility=sub.visibility.value,
            publishable=card.publishable,
        )
    text = render_score_reply(
        card.result,
        card.benchmark,
        lang=lang,
        submission_id=sub.id,
        mode_label=mode_label(sub.mode, lang),
        model=sub.model,
        left_today=card.left_today,
        published=card.published,
        step=step,
        author=card.author,
        asked_by=card.asked_by,
        withdrawn=card.withdrawn,
        notes=[*notes, *filter(None, [held, challenge_line(lang, sub.extra), chosen])],
    )
    keyboard = score_keyboard(
        lang,
        sub.id,
        mode=sub.mode,
        has_model=sub.model is not None,
        editable=card.editable,
        can_publish=card.publishable,
        published=card.published,
        has_details=card_hides_lines(card.result),
        bot_username=context.services.bot_username,
    )
    return text, keyboard if owner else None


#: Texts from this size on are scored in the worker pool (and watched with 👀).
POOL = submit.POOL_THRESHOLD


@contextlib.asynccontextmanager
async def _watched(context: BotContext, message: Message, on: bool) -> AsyncIterator[None]:
    """The bot's 👀 on ``message`` while the block runs (when ``on``); a chat where the
    bot may not react is no error."""

    async def react(emoji: str | None) -> None:
        with contextlib.suppress(TelegramError):
            await context.bot.set_message_reaction(
                message.chat_id, message.message_id, [emoji] if emoji else []
            )

    if on:
        await react("👀")
    try:
        yield
    finally:
        if on:
            await react(None)


async def score(
    update: Update,
    context: BotContext,
    source: Message,
    *,
    text: str | None,
    document: Document | None = None,
    command_args: str = "",
    paste: Paste | None = None,
    author: User | None = None,
    given: tuple[str, Mapping[str, Any]] | None = None,
) -> None:
    """Score text or a document from ``source`` and reply to it (the submission). A file,
    or a paste big enough for the worker pool, may take a moment: it wears the bot's 👀
    until it is answered (a small paste is answered before a reaction would show).

    The submission is recorded under ``update.effective_message`` (the message that asked
    for scoring), so a delivery repeated by Telegram is stored once. ``paste``: the
    message is the first part of a split paste (``text`` is the whole paste), whose
    later parts wait until the submission is stored. ``author``: whose output it is,
    when someone else asked (``/score`` in reply to their message): the submission is
    theirs. ``given``: the benchmark the text is of and options the handler knows (a
    reply to a challenge's message: its target).
    """
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    if message.sender_chat is not None:
        # an anonymous group admin (or a channel) speaks as the chat, and Telegram names
        # a placeholder user every group shares: the result would be nobody's
        await reply_error(message, await user_lang(context, user), UserError("anonymous"))
        return
    if from_this_bot(source, context.bot.id):
        # a card sent back (its lines read as answers and tags), a challenge's message
        # forwarded: no model's output
        if paste is not None:
            paste.stored.set()  # its later parts wait for nothing more
        await reply_error(message, await user_lang(context, user), UserError("own_message"))
        return
    big = document is not None or len(text or "") >= POOL
    async with _watched(context, source, big):
        lang = await user_lang(context, user)
        owner_id, asked_by = user.id, None
        if author is not None and not author.is_bot and author.id != user.id:
            owner_id, asked_by = author.id, user.id
            await people.track(
                context.services,
                people.Person(
                    author.id,
                    author.first_name,
                    author.last_name,
                    author.username,
                    author.language_code,
                ),
                None,
            )
        # a challenge the user opened (a link): their next result on its benchmark answers it
        challenge = await sharing.pending(context.services, owner_id) if asked_by is None else None
        try:
            sub, fresh = await submit.submit(
                context.services,
                text=text,
                upload=DocumentUpload(document) if document is not None else None,
                command_args=command_args,
                user_id=owner_id,
                chat_id=message.chat_id,
                message_id=message.message_id,
                asked_by=asked_by,
                challenge=(challenge.benchmark, challenge.extra()) if challenge else None,
                given=given,
            )
        except UserError as exc:
            if exc.key == "no_key":
                await no_key(context, source, lang, user.id, exc)
            else:
                await reply_error(source, lang, exc)
            return
        finally:
            if paste is not None:
                paste.stored.set()
        if challenge is not None:
            await sharing.answered(context.services, owner_id, sub, challenge)
        notes = []
        # the text's last message at Telegram's limit: what follows may be the rest of it
        last = paste.parts[-1][1] if paste is not None else text
        long = last is not None and at_limit(last)
        if fresh is not None and pastes(context).submitted(
            message.chat_id, user.id, fresh, long=long
        ):
            notes.append(t(lang, "partial_paste"))
        body, keyboard = await card(context, sub, lang, result=fresh, notes=notes)
        await send_reply(context.bot, source, body, keyboard)


async def on_private_media(update: Update, context: BotContext) -> None:
    """A photo, sticker, voice message or other media: its caption is scored (a photo of
    a model's answers with the answers typed in the caption); without one, say what the
    bot reads."""
    message = update.effective_message
    if message is None:
        return
    caption = SCORE_COMMAND.sub("", message.caption or "", count=1)
    if caption.strip():
        await score(update, context, message, text=caption)
        return
    await message.reply_text(t(await user_lang(context, update.effective_user), "media_not_text"))


def unknown_command(
    known: Sequence[str],
) -> Callable[[Update, BotContext], Coroutine[Any, Any, None]]:
    """The handler of a command no other handler took: "unknown command" and the
    closest of ``known`` (in a group, only for commands addressed to this bot)."""
    names = sorted({name.lower() for name in known})

    async def on_unknown_command(update: Update, context: BotContext) -> None:
        message = update.effective_message
        if message is None or not message.text:
            return
        word = message.text.split(maxsplit=1)[0][1:]
        name, _, addressee = word.partition("@")
        username = context.services.bot_username or context.bot.username or ""
        for_another = bool(addressee) and addressee.lower() != username.lower()
        if in_group(message.chat) and (for_another or not addressee):
            return  # meant for another bot, or for none in particular
        lang = await user_lang(context, update.effective_user)
        shown = html.escape("/" + name[:40])
        if for_another:  # in a private chat: say so, rather than "did you mean" itself
            other = html.escape("@" + addressee[:40])
            await message.reply_text(t(lang, "command_for_another_bot", command=shown, bot=other))
            return
        close = difflib.get_close_matches(name.lower(), names, n=1, cutoff=0.6)
        if close:
            await message.reply_text(
                t(lang, "unknown_command", command=shown, suggestion="/" + close[0])
            )
        else:
            await message.reply_text(t(lang, "unknown_command_help", command=shown))

    return on_unknown_command


async def on_private_document(update: Update, context: BotContext) -> None:
    message = update.effective_message
    if message is None or message.document is None:
        return
    args = SCORE_COMMAND.sub("", message.caption or "", count=1).strip()
    await score(update, context, message, text=None, document=message.document, command_args=args)


def _joined(*args: str) -> str:
    """Tags from several places, one line each (the later win)."""
    return "\n".join(a for a in args if a)


def _replied_output(target: Message) -> tuple[str, str]:
    """(the output, its tags) of a message ``/score`` replies to: a text or caption that
    is itself a ``/score`` command is read as one (its command's line holds tags, not
    an invalid line); a document's caption is its tags."""
    said = target.text or target.caption or ""
    if target.document is not None:
        return "", SCORE_COMMAND.sub("", said, count=1).strip()
    if SCORE_COMMAND.match(said) is None:
        return said, ""
    first, _, rest = said.partition("\n")
    args = SCORE_COMMAND.sub("", first, count=1).strip()
    if looks_like_answers(args):
        return f"{args}\n{rest}", ""
    if rest.strip():
        return f"\n{rest}", args
    tags, output = split_score_line(args)
    return output, tags


async def on_score_command(update: Update, context: BotContext) -> None:
    """``/score`` with text after it, as a reply to a message or a document, or as a caption."""
    message = update.effective_message
    if message is None:
        return
    full = message.text or message.caption or ""
    if message.document is not None:
        # The whole caption is metadata: ``/score #think`` and lines like ``model: NAME``.
        args = SCORE_COMMAND.sub("", full, count=1).strip()
        await score(
            update, context, message, text=None, document=message.document, command_args=args
        )
        return
    first, _, rest = full.partition("\n")
    args = SCORE_COMMAND.sub("", first, count=1).strip()
    if looks_like_answers(args):
        # ``/score 1:3 2:4``: the command's own line is part of the submission.
        await score(update, context, message, text=f"{args}\n{rest}")
        return
    if rest.strip():
        # The command's line stays line 1, so invalid lines keep the numbers the user sees.
        await score(update, context, message, text=f"\n{rest}", command_args=args)
        return
    target = message.reply_to_message
    author = target.from_user if target is not None else None
    replied = _replied_output(target) if target is not None else ("", "")
    if target is not None and target.document is not None:
        await score(
            update,
            context,
            target,
            text=None,
            document=target.document,
            command_args=_joined(replied[1], args),  # the replier's tags after the file's
            author=author,
        )
    elif target is not None and replied[0].strip():
        await score(
            update,
            context,
            target,
            text=replied[0],
            command_args=_joined(replied[1], args),
            author=author,
        )
    elif (line := split_score_line(args))[1]:
        # ``/score 3^(1+1)+(3+1)``, ``/score #NAME …``: the output on the command's line
        await score(update, context, message, text=line[1], command_args=line[0])
    else:
        lang = await user_lang(context, update.effective_user)
        if in_group(message.chat):
            await message.reply_text(t(lang, "score_usage"))
        else:  # the menu's /score, tapped by someone new: no command is needed here
            await message.reply_text(t(lang, "score_usage_private"))


# --- a group upgraded to a supergroup ---------------------------------------------------


def migration(message: Message) -> tuple[int, int] | None:
    """(old chat id, new chat id) of a group's upgrade to a supergroup, from either of
    the service messages Telegram sends: ``migrate_to_chat_id`` in the old chat,
    ``migrate_from_chat_id`` in the new one; None for any other message."""
    if message.migrate_to_chat_id:
        return message.chat_id, message.migrate_to_chat_id
    if message.migrate_from_chat_id:
        return message.migrate_from_chat_id, message.chat_id
    return None


async def on_migrate(update: Update, context: BotContext) -> None:
    """A group became a supergroup (``filters.StatusUpdate.MIGRATE``): its board and
    everything else kept by its old chat id move to the new one. Either message is
    enough; the second one, or one delivered again, finds nothing left to move. Nothing
    is said in the chat (the bot keeps nothing in PTB's ``chat_data`` to move)."""
    message = update.effective_message
    found = migration(message) if message is not None else None
    if found is not None:
        await groups.upgraded(context.services, *found)


# --- the model name asked for by the Model button -------------------------------------


async def refresh(
    context: BotContext, sub: Submission, chat_id: int, message_id: int, lang: str
) -> None:
    body, keyboard = await card(context, sub, lang)
    await edited(
        context.bot.edit_message_text(
            body,
            chat_id=chat_id,
            message_id=message_id,
            reply_markup=None if keyboard is None else markup(keyboard),
        )
    )


# --- errors ----------------------------------------------------------------------------


async def on_error(update: object, context: BotContext) -> None:
    """Log with the update id; tell the user something short and true."""
    error = context.error
    update_id = update.update_id if isinstance(update, Update) else None
    if isinstance(error, ChatMigrated):
        # a button of an old message in a group that has become a supergroup: the old
        # chat takes nothing more (no edit, no answer there); its results moved already
        log.warning(
            "update %s: its chat is now the supergroup %s, which its message is not in",
            update_id,
            error.new_chat_id,
        )
        return
    if isinstance(error, ScoringError):
        log.warning("update %s: %s", update_id, error)
    else:
        log.error("update %s failed", update_id, exc_info=error)
    if not isinstance(update, Update) or update.effective_message is None:
        return
    lang = pick_language(
        None, update.effective_user.language_code if update.effective_user else None
    )
    key = N_("gone") if isinstance(error, NotFound) else N_("internal_error")
    try:
        text = t(lang, key)
        if isinstance(error, ScoringError):
            text = html.escape(str(error))
        await update.effective_message.reply_text(text)
    except Exception:  # the chat may be gone; the error is already logged
        log.debug("could not tell the user about update %s", update_id)

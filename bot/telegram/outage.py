"""A database that does not answer is a transient fault, like a Bot API that does not.

An update whose handling failed because the store was unavailable (PostgreSQL down or
restarting, SQLite locked for longer than its busy timeout, a full disk) is not marked
done: :class:`DatabaseWait` keeps it and hands it back to the Application once the
database answers again (probed with backoff), and it stays unfinished in the intake
meanwhile, so a restart handles it too. Handling it again repeats the answer, never the
effect (``telegram/intake.py``).

What the user sees:

- at most one note per user and chat per outage, "taking longer than usual" (a full
  disk is named as such, and the admins are told, at most once an hour), never "nothing
  was saved": what failed may have been a step after a write that was committed. Their
  further messages meanwhile are kept all the same, and answered once it is over;
- a payment's pre-checkout query (Telegram waits 10 s) is refused with a note that
  nobody was charged and to try again in a minute;
- a pressed button is always answered: with the note when the handler fails, or when it
  still waits for the database a few seconds after the press (:meth:`started`), or when
  the press cannot even be admitted (:meth:`tell_unadmitted`). The handler's own answer,
  later, is then "too old", which the sender takes for done.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from telegram import ReplyParameters, Update
from telegram.constants import ChatType
from telegram.error import TelegramError

from storage import DiskFull, StorageError, StoreUnavailable

from ..core.bounded import Lru
from ..core.services import Services
from ..render.i18n import DEFAULT_LANGUAGE, N_, pick_language, t
from .context import BotApp

log = logging.getLogger("benchboard.outage")

#: Seconds between the first probes of a database that failed; doubled up to
#: :data:`MAX_PAUSE` while it does not answer.
FIRST_PAUSE = 0.5
MAX_PAUSE = 5.0
#: Seconds between tries while the disk is full (a read answers then; writes do not).
FULL_PAUSE = 10.0
#: Seconds a probe may take before it counts as not answered.
PROBE_TIMEOUT = 5.0
#: Seconds an update may wait for a failing database before its user gets the note,
#: and between the looks at the updates being handled while it fails.
PATIENCE = 3.0
SWEEP_EVERY = 0.5
#: Tries of one update after the database answered a probe, before it is left to the
#: next start (it stays unfinished in the intake).
MAX_TRIES = 30
#: Seconds between two notices to the admins about a full disk.
ADMIN_EVERY = 3600.0
#: Update ids (and callback query ids) remembered as told.
TOLD_MAX = 20_000


def is_unavailable(error: BaseException | None) -> bool:
    """The store could not do the work now (``StoreUnavailable``: down, locked, full)."""
    return isinstance(error, StoreUnavailable)


def _told_key(update: Update) -> tuple[str, object]:
    """What the note is about: a press (its query: the same press in another update is
    answered once), else the update."""
    query = update.callback_query
    if update.pre_checkout_query is not None:
        return ("p", update.pre_checkout_query.id)
    return ("u", update.update_id) if query is None else ("q", query.id)


def _chat_key(update: Update) -> tuple[int, int | None] | None:
    """Who is told in which chat (a message's sender in its chat), None for a press
    (every press is answered) or an update without a chat."""
    chat = update.effective_chat
    if update.callback_query is not None or chat is None:
        return None
    user = update.effective_user
    return chat.id, user.id if user is not None else None


def _addressed(update: Update, bot_id: int) -> bool:
    """The update asks the bot something: anything in a private chat; in a group, a
    command or a reply to one of the bot's messages (in a group the bot may see every
    message, and people talking among themselves are not answered, nor told)."""
    message = update.message or update.edited_message
    if message is None or message.chat.type == ChatType.PRIVATE:
        return True  # a press, a payment, an inline query: asked of the bot
    text = message.text or message.caption or ""
    if text.startswith("/"):
        return True
    replied = message.reply_to_message
    return replied is not None and replied.from_user is not None and replied.from_user.id == bot_id


def _lang(update: Update) -> str:
    """The language of the update's user as Telegram gives it (their /lang choice is
    in the database, which may not answer)."""
    user = update.effective_user
    return pick_language(None, user.language_code if user is not None else None)


class DatabaseWait:
    """The updates waiting for the database, and what their users were told."""

    def __init__(self, app: BotApp, services: Services) -> None:
        self.app = app
        self.services = services
        #: the database failed and has not answered a probe since
        self.out = False
        #: the last failure was a full disk
        self.full = False
        self._waiting: dict[int, Update] = {}
        self._tries: dict[int, int] = {}
        self._told: Lru[object, None] = Lru(TOLD_MAX)
        #: (chat, user) told during this outage: one note each, until a probe answers
        self._told_chats: Lru[tuple[int, int | None], None] = Lru(TOLD_MAX)
        self._prober: asyncio.Task[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None
        #: the updates being handled, and since when (loop time)
        self._handling: dict[int, tuple[float, Update]] = {}
        self._admins_told_at: float | None = None
        #: called once a probe answers, after the kept updates are handed back
        self.on_back: list[Callable[[], Awaitable[None]]] = []

    # --- the updates ----------------------------------------------------------------

    def keep(self, update: Update) -> bool:
        """Keep ``update`` until the database answers; False when it failed too often
        while the database answered (it is left unfinished, for the next start)."""
        update_id = update.update_id
        tries = self._tries.get(update_id, 0) + 1
        if tries > MAX_TRIES:
            self._tries.pop(update_id, None)
            log.error(
                "update left unfinished after failing while the database answered",
                extra={"update_id": update_id, "tries": tries - 1},
            )
            return False
        self._tries[update_id] = tries
        self._waiting[update_id] = update
        self.failed()
        return True

    def done(self, update_id: int) -> None:
        """The update was handled: forget its tries."""
        self._tries.pop(update_id, None)

    def failed(self, error: BaseException | None = None) -> None:
        """The database failed (a handler, an admission, a mark): probe it until it
        answers, then hand the kept updates back."""
        self.out = True
        if error is not None:
            self.full = isinstance(error, DiskFull)
        if self._prober is None or self._prober.done():
            self._prober = self.services.spawn(self._recover())
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = self.services.spawn(self._sweep())

    async def _recover(self) -> None:
        pause = FIRST_PAUSE
        while True:
            wait = FULL_PAUSE if self.full else pause
            await asyncio.sleep(wait / 2 + random.uniform(0, wait / 2))
            pause = min(pause * 2, MAX_PAUSE)
            try:
                await asyncio.wait_for(self.services.store.schema_version(), PROBE_TIMEOUT)
            except (StorageError, TimeoutError) as exc:
                log.info("the database does not answer yet", extra={"error": str(exc)})
                with contextlib.suppress(StorageError, TimeoutError):
                    # a server back after a long outage: connect now, not when the
                    # pool's backed-off attempts come round
                    await asyncio.wait_for(self.services.store.revive(), PROBE_TIMEOUT)
                continue
            self.out = False
            self._told_chats = Lru(TOLD_MAX)  # the next outage is told again
            waiting, self._waiting = self._waiting, {}
            store = self.services.store
            if store.shared and waiting:
                # several instances: a kept update whose lease another instance took
                # while this one could not renew it is that one's to answer now
                with contextlib.suppress(StorageError, TimeoutError):
                    await asyncio.wait_for(store.renew(), PROBE_TIMEOUT)
                held = store.held
                for update_id in [u for u in waiting if u not in held]:
                    log.info("a kept update is another's now", extra={"update_id": update_id})
                    del waiting[update_id]
                    self._tries.pop(update_id, None)
            if waiting:
                log.info(
                    "the database answers: handling the kept updates again",
                    extra={"count": len(waiting)},
                )
            for update in waiting.values():
                await self.app.update_queue.put(update)
            for hook in self.on_back:
                try:
                    await hook()
                except StorageError as exc:  # the database away again: the next answer
                    log.warning("after the outage: %s", exc)
                    self.failed(exc)
            if not self._waiting and not self.out:
                return
            pause = FIRST_PAUSE

    # --- what the users see ---------------------------------------------------------

    async def tell(self, update: Update, error: BaseException | None = None) -> None:
        """The update waits for the database (which failed with ``error``): its user's
        one note in that chat for this outage (a press: its answer, every time)."""
        # a note says the database is out: probe it until it answers, which ends the
        # outage (and its one note per chat)
        self.failed(error)
        if self.full:
            self.services.spawn(self._tell_admins())  # at most once an hour, whoever wrote
        query = update.callback_query
        told = _told_key(update)
        if told in self._told:
            return
        self._told[told] = None
        if not _addressed(update, self.app.bot.id):
            return  # kept all the same, handled once the database answers
        chat = _chat_key(update)
        if chat is not None:
            if chat in self._told_chats:
                return  # told already: this one is kept and answered all the same
            self._told_chats[chat] = None
        text = t(_lang(update), N_("store_full") if self.full else N_("store_slow"))
        with contextlib.suppress(TelegramError):
            checkout = update.pre_checkout_query
            if checkout is not None:
                # Telegram waits 10 s for the answer: refused now, nobody charged (the
                # handler's own answer later is "already answered", taken for done)
                why = t(_lang(update), N_("store_slow_checkout"))
                await checkout.answer(ok=False, error_message=why)
            elif query is not None:
                await query.answer(text)
            elif update.effective_message is not None:
                message = update.effective_message
                await message.reply_text(
                    text,
                    reply_parameters=ReplyParameters(
                        message.message_id, allow_sending_without_reply=True
                    ),
                )

    def started(self, update: Update) -> None:
        """``update`` is being handled: if the database fails and it is still not done
        :data:`PATIENCE` seconds after it started, its user gets the note."""
        self._handling[update.update_id] = (asyncio.get_running_loop().time(), update)

    def finished(self, update_id: int) -> None:
        self._handling.pop(update_id, None)

    async def _sweep(self) -> None:
        """While the database fails: the note for each update handled for longer than
        :data:`PATIENCE` seconds (a handler waiting for a connection)."""
        loop = asyncio.get_running_loop()
        while self.out:
            await asyncio.sleep(SWEEP_EVERY)
            due = loop.time() - PATIENCE
            for since, update in list(self._handling.values()):
                if since <= due and _told_key(update) not in self._told:
                    self.services.spawn(self.tell(update))

    def tell_unadmitted(self, batch: Iterable[Any], parse: Callable[[Any], Update | None]) -> None:
        """A batch the database could not admit (Telegram keeps it and it comes again):
        each of its users gets the note now (once), each press its answer."""
        for data in batch:
            update = parse(data)
            if update is not None:
                self.services.spawn(self.tell(update))

    async def _tell_admins(self) -> None:
        loop = asyncio.get_running_loop()
        if self._admins_told_at is not None and loop.time() - self._admins_told_at < ADMIN_EVERY:
            return
        self._admins_told_at = loop.time()
        log.error("the database's disk is full: updates are kept and tried again")
        text = t(DEFAULT_LANGUAGE, "admin_disk_full")
        for admin in sorted(self.services.settings.admins):
            with contextlib.suppress(TelegramError):
                await self.app.bot.send_message(admin, text)

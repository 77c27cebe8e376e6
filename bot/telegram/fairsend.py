"""Fair to everyone: one user's flood neither holds the bot nor its sending.

Two places share the bot among its users:

- **Handling** (:class:`FairUpdates`, PTB's ``BaseUpdateProcessor`` hook): at most
  ``limit`` updates are handled at once; each user's messages wait in a line of their
  own (their presses and queries in another), and when a slot frees, the lines waiting
  take turns (round-robin). A flooding user's messages are handled at most
  :data:`PER_USER` at a time. A flood waits in its own line, not in front of everyone
  else. (Other users are not capped: a handler may wait for its user's next messages,
  as the first part of a long paste does.)
- **Sending** (:class:`FairSchedule`, used by ``http.RetryingRateLimiter``): the bot's
  overall limit (Telegram's ~30 messages a second) is given out in turns, round-robin
  over the chats that have a call waiting, so a chat with a long backlog gets its share
  and no more. With several instances (``core.sendrate``) each turn also reserves the
  shared slot, one at a time: the queue stays here, in fair order, not in the database.

**Floods.** A user is *flooding* when more than :data:`FLOOD_BACKLOG` of their updates
have arrived and are not yet handled (a user who waits for each answer has one; a long
output Telegram split into several messages has a few). From then on, their new messages
are still handled in full (every submission stored, its update marked done: ``/me``
shows the results) but *quietly*: the messages a quiet update would send are skipped
(:data:`QUIET`, read by the rate limiter). The user gets one "slow down" notice (in their
language) when the flood begins. They are calm again, and answered as usual, once all
their updates were handled and they sent fewer than :data:`CALM_MESSAGES` messages in the
last :data:`CALM_SECONDS`; a later flood gets a new notice. Button presses and inline
queries are never quiet (a pressed button is always answered).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from telegram import Update
from telegram.ext import BaseUpdateProcessor

from ..core import people
from ..core.services import Services
from ..render.i18n import pick_language, t

if TYPE_CHECKING:  # context imports http, which imports this
    from .context import BotApp

log = logging.getLogger("benchboard.fair")

#: A flooding user's messages handled at once (the rest wait their turn).
PER_USER = 4
#: More than this many of one user's updates arrived and not yet handled: a flood.
FLOOD_BACKLOG = 20
#: A flooding user is calm again once all their updates were handled and they sent fewer
#: than CALM_MESSAGES messages in the last CALM_SECONDS.
CALM_MESSAGES = 3
CALM_SECONDS = 10.0
#: Users whose state is kept without an update of theirs in hand, before the calm ones
#: among them are forgotten.
KEPT_USERS = 10_000

#: True while a quiet update (a flooding user's) is handled: its messages are not sent.
QUIET: contextvars.ContextVar[bool] = contextvars.ContextVar("benchboard_quiet", default=False)


# --- sending ---------------------------------------------------------------------------


class SharedRate(Protocol):
    """The limits shared with other instances (``core.sendrate.SharedSendRate``)."""

    async def overall(self, endpoint: str) -> None: ...

    async def chat(self, endpoint: str, chat_id: object) -> None: ...


@dataclass(eq=False)
class _Turn:
    future: asyncio.Future[None]
    endpoint: str


class FairSchedule:
    """Turns to call the Bot API, ``rate`` a second (0: no limit of its own), given out
    round-robin over the chats waiting; with ``shared``, each turn also waits for the
    shared overall slot."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self.shared: SharedRate | None = None
        #: calls waiting, per chat; the order of the keys is the round (insertion order)
        self._waiting: dict[object, deque[_Turn]] = {}
        self._next = 0.0  # loop time of the next free turn
        self._runner: asyncio.Task[None] | None = None

    @property
    def waiting(self) -> int:
        return sum(len(q) for q in self._waiting.values())

    async def turn(self, endpoint: str, chat_id: object) -> None:
        """Wait for this call's turn (at once while nobody waits and the rate allows)."""
        if self.shared is not None:
            await self.shared.chat(endpoint, chat_id)  # a group's own slot, in its own time
        elif not self.interval:
            return
        loop = asyncio.get_running_loop()
        if self.shared is None and not self._waiting:
            now = loop.time()
            if now >= self._next:
                self._next = now + self.interval
                return
        turn = _Turn(loop.create_future(), endpoint)
        self._waiting.setdefault(chat_id, deque()).append(turn)
        if self._runner is None or self._runner.done():
            self._runner = loop.create_task(self._run())
        await turn.future

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while self._waiting:
            pause = self._next - loop.time()
            if pause > 0:
                await asyncio.sleep(pause)  # then pick: a chat that came meanwhile is in
                continue
            chat_id = next(iter(self._waiting))
            queue = self._waiting.pop(chat_id)
            turn = queue.popleft()
            if queue:
                self._waiting[chat_id] = queue  # to the end of the round
            if turn.future.done():  # its caller gave up
                continue
            if self.shared is not None:
                try:
                    await self.shared.overall(turn.endpoint)
                except Exception:  # the local rate still holds
                    log.exception("the shared send rate failed")
            self._next = max(self._next, loop.time()) + self.interval
            if not turn.future.done():
                turn.future.set_result(None)


#: What a skipped send answers, by method (as PTB names the endpoint); a message for
#: the others.
_SKIPPED: dict[str, Any] = {"sendChatAction": True, "sendMediaGroup": []}
#: The message id of a skipped message (Telegram's are positive): edits of it are skipped.
SKIPPED_MESSAGE_ID = 0


def skipped(endpoint: str, data: dict[str, Any]) -> Any | None:
    """When the current update is quiet: what a call that is skipped answers (a send's
    stand-in message, True for an edit of one), else None (the call goes)."""
    if not QUIET.get():
        return None
    method = endpoint.lower()
    if method.startswith(("send", "copy", "forward")):
        if endpoint in _SKIPPED:
            return _SKIPPED[endpoint]
        chat_id = data.get("chat_id")
        chat = chat_id if isinstance(chat_id, int) else 0
        return {
            "message_id": SKIPPED_MESSAGE_ID,
            "date": int(time.time()),
            "chat": {"id": chat, "type": "private" if chat > 0 else "supergroup"},
        }
    if method.startswith(("edit", "delete")) and data.get("message_id") == SKIPPED_MESSAGE_ID:
        return True
    return None


# --- handling --------------------------------------------------------------------------


@dataclass(eq=False)
class _User:
    pending: int = 0  # updates arrived, not yet handled
    running: int = 0  # of which being handled
    flooding: bool = False
    skipped: int = 0  # quiet updates in this flood
    recent: deque[float] = field(default_factory=lambda: deque(maxlen=CALM_MESSAGES))


def _who(update: object, message: bool) -> object:
    """The line an update waits in: its user's (else its chat's), one for their messages
    and one for the rest (a press is not held behind its user's flood of messages)."""
    if isinstance(update, Update):
        if update.effective_user is not None:
            return (update.effective_user.id, message)
        if update.effective_chat is not None:
            return (update.effective_chat.id, message)
    return None


def _id(key: object) -> object:
    return key[0] if isinstance(key, tuple) else key


def _quietable(update: object) -> bool:
    """A message (new or edited): what a flood is made of; not a press, not a query."""
    return isinstance(update, Update) and (
        update.message is not None or update.edited_message is not None
    )


class FairUpdates(BaseUpdateProcessor):
    """At most ``limit`` updates handled at once, at most ``per_user`` of a flooding
    user's messages; freed slots go round-robin to the lines waiting; floods are handled
    quietly with one notice (``notify``). See the module's docstring."""

    def __init__(
        self,
        limit: int,
        *,
        per_user: int = PER_USER,
        backlog: int = FLOOD_BACKLOG,
        calm_messages: int = CALM_MESSAGES,
        calm_seconds: float = CALM_SECONDS,
    ) -> None:
        # PTB's own semaphore would hold a slot while an update waits for its user's
        # turn: the slots are counted here instead
        super().__init__(max_concurrent_updates=1 << 30)
        self.limit = limit
        self.per_user = per_user
        self.backlog = backlog
        self.calm_messages = calm_messages
        self.calm_seconds = calm_seconds
        #: sends the "slow down" notice for the update that began a flood
        self.notify: Callable[[Update], Awaitable[None]] | None = None
        self.running = 0
        self.floods = 0
        self.quiet = 0
        self._users: dict[object, _User] = {}
        self._waiting: dict[object, deque[asyncio.Future[None]]] = {}
        self._notices: set[asyncio.Task[None]] = set()

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        for task in list(self._notices):
            task.cancel()

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        message = _quietable(update)
        key = _who(update, message)
        user = self._users.get(key)
        if user is None:
            user = self._users[key] = _User()
        quiet = message and self._arrived(key, user, update)
        user.pending += 1
        try:
            await self._slot(key, user)
            try:
                if quiet:
                    QUIET.set(True)  # this update's task only (and what it starts)
                await coroutine
            finally:
                self._release(user)
        finally:
            user.pending -= 1
            if user.pending == 0 and not user.flooding:
                self._users.pop(key, None)

    def _arrived(self, key: object, user: _User, update: object) -> bool:
        """Note a message's arrival; True when it is to be handled quietly."""
        now = time.monotonic()
        if user.flooding:
            recent = user.recent
            calm = user.pending == 0 and (
                len(recent) < self.calm_messages or recent[0] < now - self.calm_seconds
            )
            if calm:
                log.info("a flood ended", extra={"user": _id(key), "quiet": user.skipped})
                user.flooding = False
                user.skipped = 0
                user.recent.clear()
        elif user.pending >= self.backlog:
            user.flooding = True
            self.floods += 1
            log.warning(
                "a user is flooding: their messages are handled without replies",
                extra={"user": _id(key), "backlog": user.pending},
            )
            if self.notify is not None and isinstance(update, Update):
                self._notice(update)
            if len(self._users) > KEPT_USERS:
                self._forget_calm()
        if user.flooding:
            user.recent.append(now)
            user.skipped += 1
            self.quiet += 1
        return user.flooding

    def _notice(self, update: Update) -> None:
        assert self.notify is not None
        # in a context of its own: the notice is not quiet
        task = asyncio.get_running_loop().create_task(
            _logged_notice(self.notify, update), context=contextvars.Context()
        )
        self._notices.add(task)
        task.add_done_callback(self._notices.discard)

    def _forget_calm(self) -> None:
        now = time.monotonic()
        for key, user in list(self._users.items()):
            if user.pending == 0 and (not user.recent or user.recent[-1] < now - self.calm_seconds):
                del self._users[key]

    async def _slot(self, key: object, user: _User) -> None:
        """Wait for a slot: at once when one is free, this user has fewer than
        ``per_user`` running (or is not flooding) and nobody of theirs waits before them."""
        if self.running < self.limit and self._may_run(user) and key not in self._waiting:
            self.running += 1
            user.running += 1
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(key, deque()).append(future)
        try:
            await future
        except asyncio.CancelledError:
            if not future.cancelled():  # granted, then cancelled
                self._release(user)
            else:
                queue = self._waiting.get(key)
                if queue is not None and future in queue:
                    queue.remove(future)
                    if not queue:
                        del self._waiting[key]
            raise

    def _may_run(self, user: _User) -> bool:
        return not user.flooding or user.running < self.per_user

    def _release(self, user: _User) -> None:
        self.running -= 1
        user.running -= 1
        self._grant()

    def _grant(self) -> None:
        """Free slots to the users waiting, one each in turn."""
        while self.running < self.limit and self._waiting:
            for key in self._waiting:
                user = self._users.get(key)
                if user is not None and self._may_run(user):
                    break
            else:
                return
            queue = self._waiting.pop(key)
            future = queue.popleft()
            if queue:
                self._waiting[key] = queue  # to the end of the round
            if future.done():  # cancelled while waiting
                continue
            self.running += 1
            user.running += 1
            future.set_result(None)


async def _logged_notice(notify: Callable[[Update], Awaitable[None]], update: Update) -> None:
    try:
        await notify(update)
    except Exception:  # the chat may be gone; the flood is handled all the same
        log.warning("could not send the slow-down notice", exc_info=True)


async def slow_down(app: BotApp, update: Update) -> None:
    """The one "slow down" notice of a flood, in the user's language."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None:
        return
    from .context import SERVICES  # here: context imports http, which imports this

    chosen = None
    services = app.bot_data.get(SERVICES)
    if user is not None and isinstance(services, Services):
        chosen = await people.chosen_language(services, user.id)
    lang = pick_language(chosen, user.language_code if user is not None else None)
    message = update.effective_message  # in a forum, the notice goes to its topic
    topic = message.message_thread_id if message and message.is_topic_message else None
    await app.bot.send_message(chat.id, t(lang, "slow_down"), message_thread_id=topic)

"""Long pastes that Telegram splits into several messages, put back together.

Telegram cuts a text longer than its limit (4,096 UTF-16 code units) into messages sent
one after the other. A message at the limit may be the first part of such a paste: its
handler waits a few seconds for the next messages of the same user in the same chat,
and scores all of them as one submission (one card, line numbers counted through the
whole paste). The later parts' handlers wait until that submission is stored, so no
part's update is marked done in the durable intake before the submission that holds
it is: if the process dies first, every part is handled again, and the first part's
message (under which the submission is stored) makes that idempotent.

:meth:`Pastes.note` must see the messages in the order they arrived, before any of
their handlers awaits anything (the Telegram layer calls it first thing for every
update); the rest is plain asyncio. Everything kept is bounded (:class:`Lru`) and
short-lived.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .bounded import Lru

#: Telegram's length limit for one message, in UTF-16 code units.
MESSAGE_LIMIT = 4096
#: A message at least this long may be a first part (clients cut at a line break or a
#: space before the limit).
NEAR_LIMIT = MESSAGE_LIMIT - 256
#: Seconds to wait after a part at the limit for the next one.
WINDOW = 3.0
#: Seconds a later part waits for the merged submission to be stored before it is
#: handled on its own (the first part's handler is gone).
FOLLOWER_TIMEOUT = 120.0
#: Seconds within which a partial-looking card after another gets the "part of a
#: longer paste" note.
RECENT = 120.0

Key = tuple[int, int]  # (chat id, user id)


def at_limit(text: str) -> bool:
    """Whether ``text`` is as long as Telegram lets one message be (nearly)."""
    return len(text) >= NEAR_LIMIT // 2 and len(text.encode("utf-16-le")) >= 2 * NEAR_LIMIT


@dataclass(eq=False)
class Paste:
    """The parts of one paste, in order; the first part's handler owns it."""

    key: Key
    parts: list[tuple[int, str]]  # (message id, text)
    last: float
    closed: bool = False
    grew: asyncio.Event = field(default_factory=asyncio.Event)
    stored: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def text(self) -> str:
        return "\n".join(text for _, text in self.parts)

    @property
    def message_ids(self) -> tuple[int, ...]:
        return tuple(message_id for message_id, _ in self.parts)


class Pastes:
    """The pastes being put together, per (chat, user)."""

    def __init__(
        self,
        *,
        window: float = WINDOW,
        maxsize: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.window = window
        self.clock = clock
        self._open: Lru[Key, Paste] = Lru(maxsize)
        self._roles: Lru[tuple[Key, int], tuple[Paste, bool]] = Lru(maxsize)
        self._submitted: Lru[Key, tuple[float, bool]] = Lru(maxsize)

    def note(self, chat_id: int, user_id: int, message_id: int, text: str) -> None:
        """A text message arrived (called in arrival order, before its handler runs)."""
        key, now = (chat_id, user_id), self.clock()
        paste = self._open.get(key)
        if paste is not None:
            if (
                not paste.closed
                and now - paste.last <= self.window
                and message_id > paste.parts[-1][0]
            ):
                paste.parts.append((message_id, text))
                paste.last = now
                self._roles[(key, message_id)] = (paste, False)
                if not at_limit(text):
                    paste.closed = True
                    del self._open[key]
                paste.grew.set()
                return
            del self._open[key]
        if at_limit(text):
            paste = Paste(key, [(message_id, text)], now)
            self._open[key] = paste
            self._roles[(key, message_id)] = (paste, True)

    def role(self, chat_id: int, user_id: int, message_id: int) -> tuple[Paste, bool] | None:
        """The paste a message is part of and whether it is the first part; None when it
        is a message of its own."""
        return self._roles.pop(((chat_id, user_id), message_id), None)

    async def gather(self, paste: Paste) -> str:
        """(The first part's handler.) Wait until the paste is complete, or no part came
        for :attr:`window` seconds; the whole text."""
        while not paste.closed:
            remaining = paste.last + self.window - self.clock()
            if remaining <= 0:
                break
            paste.grew.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(paste.grew.wait(), remaining)
        paste.closed = True
        if self._open.get(paste.key) is paste:
            del self._open[paste.key]
        return paste.text

    @staticmethod
    async def joined(paste: Paste, seconds: float = FOLLOWER_TIMEOUT) -> bool:
        """(A later part's handler.) Wait until the paste's submission is stored (or its
        handling failed); False when that did not happen within ``seconds``."""
        try:
            await asyncio.wait_for(paste.stored.wait(), seconds)
        except TimeoutError:
            return False
        return True

    def submitted(self, chat_id: int, user_id: int, result: Any, *, long: bool) -> bool:
        """Note a submission stored just now (``long``: its text was at Telegram's length
        limit); True when it looks like the rest of a paste Telegram cut: many questions
        unanswered, right after a submission at the limit (two short messages in a row
        are two messages: Telegram cuts only near 4,096 characters)."""
        key, now = (chat_id, user_id), self.clock()
        previous = self._submitted.get(key)
        self._submitted[key] = (now, long)
        if previous is None:
            return False
        then, cut = previous
        return cut and now - then <= RECENT and looks_partial(result)


def looks_partial(result: Any) -> bool:
    """A result with answers, but a quarter or more of its questions unanswered."""
    try:
        data = result.to_json()
        total, unanswered = int(data["total_questions"]), int(data["unanswered"])
    except (AttributeError, KeyError, TypeError, ValueError):
        return False
    return total > 0 and unanswered < total and unanswered * 4 >= total

"""Work of one kind asked for at the same moment, done by one statement.

Under load many handlers ask the same kind of thing at once: a new submission's
insert, its copy check's read of candidates. A trip to the database costs more than
such a statement: on SQLite a hand-off to the database thread and back, which took
0.1–0.15 ms of CPU per trip in the bot, on PostgreSQL a network round trip. So the
first asked goes at once, and those asked while it is out go together in the next
trip, one statement for all of them (``storage.submissions`` groups its inserts so,
``storage.trust`` the reads of candidates). Nobody waits for a timer: asked alone, it
is one trip, as it was.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

from .errors import StoreUnavailable

K = TypeVar("K")
R = TypeVar("R")


def settle(future: asyncio.Future[R], outcome: R | BaseException) -> None:
    """Give a waiting caller its answer or its error (unless it stopped waiting)."""
    if future.done():  # its caller was cancelled
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)


class Batched(Generic[K, R]):
    """``await batched(question)``: the answer ``fetch`` gives to ``question``, where
    ``fetch(questions)`` answers up to ``most`` questions at once, in their order. An
    answer that is an exception fails its question; a failed ``fetch`` fails each of
    its questions with its error."""

    def __init__(
        self, fetch: Callable[[Sequence[K]], Awaitable[Sequence[R | Exception]]], most: int
    ) -> None:
        self._fetch = fetch
        self._most = most
        self._waiting: list[tuple[K, asyncio.Future[R]]] = []
        self._runner: asyncio.Task[None] | None = None

    async def __call__(self, question: K) -> R:
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._waiting.append((question, future))
        if self._runner is None or self._runner.done():
            self._runner = asyncio.create_task(self._answer_waiting())
            self._runner.add_done_callback(self._ended)
        return await future

    async def idle(self) -> None:
        """Wait until every question asked so far is answered."""
        if self._runner is not None:
            await asyncio.wait([self._runner])

    def _ended(self, runner: asyncio.Task[None]) -> None:
        """A runner cancelled before it began (the loop shutting down) answered nobody:
        nobody may wait forever."""
        if runner is self._runner and runner.cancelled():
            self._unavailable([])

    async def _answer_waiting(self) -> None:
        group: list[tuple[K, asyncio.Future[R]]] = []
        try:
            while self._waiting:
                group = self._waiting[: self._most]
                del self._waiting[: self._most]
                try:
                    answers = await self._fetch([question for question, _ in group])
                except Exception as exc:
                    for _, future in group:
                        settle(future, exc)
                    continue
                for (_, future), answer in zip(group, answers, strict=True):
                    settle(future, answer)
            group = []
        except BaseException:
            # cancelled (the loop is shutting down): nobody may wait forever
            self._unavailable(group)
            raise

    def _unavailable(self, group: list[tuple[K, asyncio.Future[R]]]) -> None:
        for _, future in group + self._waiting:
            settle(future, StoreUnavailable("the store is shutting down"))
        self._waiting.clear()

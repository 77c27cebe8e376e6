"""Images are drawn off the event loop, in one render thread.

matplotlib draws in one dedicated thread (the object API touches no global state, and
one thread keeps its font cache single-threaded): a card takes tens of milliseconds
of CPU, which the event loop never waits for. ``bot.render.cards`` (which imports
matplotlib) is imported there, on first use, so starting the bot does not load it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass
class RenderPool:
    """The render thread (started on first use)."""

    _executor: ThreadPoolExecutor | None = None

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the render thread."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="render")
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

"""Reads asked at the same moment answered together (``storage.batched``)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from storage.batched import Batched
from storage.errors import StoreUnavailable


class Doubling:
    """A fetch that doubles numbers after a moment, keeping every group it was given,
    failing a group holding a negative number."""

    def __init__(self) -> None:
        self.groups: list[list[int]] = []

    async def __call__(self, numbers: Sequence[int]) -> list[int]:
        self.groups.append(list(numbers))
        await asyncio.sleep(0.01)
        if any(n < 0 for n in numbers):
            raise ValueError("negative")
        return [2 * n for n in numbers]


async def test_those_asked_together_are_answered_together_in_order() -> None:
    fetch = Doubling()
    batched = Batched(fetch, most=4)
    assert await batched(1) == 2  # alone: one group of one
    answers = await asyncio.gather(*(batched(n) for n in range(10)))
    assert answers == [2 * n for n in range(10)]
    assert fetch.groups == [[1], [0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


async def test_a_failed_fetch_fails_its_group_only() -> None:
    fetch = Doubling()
    batched = Batched(fetch, most=2)
    results = await asyncio.gather(*(batched(n) for n in (1, 2, -3, 4, 5)), return_exceptions=True)
    assert results[:2] == [2, 4] and results[4] == 10
    assert all(isinstance(r, ValueError) for r in results[2:4])
    assert await batched(6) == 12  # and it goes on


async def test_a_cancelled_asker_leaves_the_others_their_answers() -> None:
    fetch = Doubling()
    batched = Batched(fetch, most=8)
    tasks = [asyncio.create_task(batched(n)) for n in range(4)]
    await asyncio.sleep(0)
    tasks[2].cancel()
    done = await asyncio.gather(*tasks, return_exceptions=True)
    assert done[:2] == [0, 2] and done[3] == 6
    assert isinstance(done[2], asyncio.CancelledError)


@pytest.mark.parametrize("turns", [1, 3])
async def test_askers_are_not_left_waiting_when_the_reads_are_cancelled(turns: int) -> None:
    """Cancelled before the runner began (one turn) or while it reads (three)."""
    fetch = Doubling()
    batched = Batched(fetch, most=1)
    tasks = [asyncio.create_task(batched(n)) for n in range(3)]
    for _ in range(turns):
        await asyncio.sleep(0)
    runner = batched._runner
    assert runner is not None
    runner.cancel()
    done = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 1)
    assert all(isinstance(r, StoreUnavailable) for r in done)
    assert len(fetch.groups) == turns // 2  # the reads had (not) begun
    assert await batched(4) == 8  # and the next read is made

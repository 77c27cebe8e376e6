"""Split pastes: parts at the length limit are put back together, in order, bounded."""

from __future__ import annotations

import asyncio

from bot.core.pastes import NEAR_LIMIT, Pastes, looks_partial

LONG = "1:1\n" * (NEAR_LIMIT // 4 + 1)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_a_part_at_the_limit_and_the_next_are_one_paste() -> None:
    pastes = Pastes(window=0.5)
    pastes.note(1, 2, 10, LONG)
    pastes.note(1, 2, 11, "2:3")
    owner, follower = pastes.role(1, 2, 10), pastes.role(1, 2, 11)
    assert owner is not None and owner[1] and follower is not None and not follower[1]
    assert await pastes.gather(owner[0]) == LONG + "\n2:3"
    waiting = asyncio.ensure_future(Pastes.joined(follower[0], 5))
    await asyncio.sleep(0)
    assert not waiting.done()
    owner[0].stored.set()
    assert await waiting


async def test_a_short_message_is_its_own() -> None:
    pastes = Pastes()
    pastes.note(1, 2, 10, "1:1")
    pastes.note(1, 2, 11, "2:3")
    assert pastes.role(1, 2, 10) is None and pastes.role(1, 2, 11) is None


async def test_a_lone_part_at_the_limit_is_scored_after_the_window() -> None:
    pastes = Pastes(window=0.05)
    pastes.note(1, 2, 10, LONG)
    role = pastes.role(1, 2, 10)
    assert role is not None
    assert await pastes.gather(role[0]) == LONG
    pastes.note(1, 2, 11, "2:3")  # too late: a message of its own
    assert pastes.role(1, 2, 11) is None


async def test_other_users_and_late_parts_do_not_join() -> None:
    clock = Clock()
    pastes = Pastes(window=3.0, clock=clock)
    pastes.note(1, 2, 10, LONG)
    pastes.note(1, 3, 11, "2:3")  # someone else
    assert pastes.role(1, 3, 11) is None
    clock.now += 10
    pastes.note(1, 2, 12, "2:3")  # after the window
    assert pastes.role(1, 2, 12) is None


async def test_three_parts() -> None:
    pastes = Pastes(window=0.5)
    for message_id, text in ((10, LONG), (11, LONG), (12, "end")):
        pastes.note(1, 2, message_id, text)
    role = pastes.role(1, 2, 10)
    assert role is not None and role[0].message_ids == (10, 11, 12)


def test_the_buffer_is_bounded() -> None:
    pastes = Pastes(maxsize=10)
    for user in range(100):
        pastes.note(1, user, 10, LONG)
    assert len(pastes._open) == 10 and len(pastes._roles) == 10


class _Result:
    def __init__(self, total: int, unanswered: int) -> None:
        self.data = {"total_questions": total, "unanswered": unanswered}

    def to_json(self) -> dict[str, int]:
        return self.data


def test_a_partial_result() -> None:
    assert looks_partial(_Result(104, 46))
    assert not looks_partial(_Result(104, 3))
    assert not looks_partial(_Result(104, 104))
    assert not looks_partial(object())


def test_the_rest_of_a_cut_paste_is_noted_only_after_a_message_at_the_limit() -> None:
    now = [0.0]
    pastes = Pastes(clock=lambda: now[0])
    partial = _Result(104, 60)
    assert not pastes.submitted(1, 2, partial, long=False)
    now[0] += 5
    assert not pastes.submitted(1, 2, partial, long=False)  # two short messages
    assert not pastes.submitted(1, 2, partial, long=True)
    now[0] += 5
    assert pastes.submitted(1, 2, partial, long=False)  # right after one at the limit
    assert not pastes.submitted(1, 3, partial, long=False)  # another user
    pastes.submitted(1, 2, partial, long=True)
    now[0] += 1000
    assert not pastes.submitted(1, 2, partial, long=False)  # long after

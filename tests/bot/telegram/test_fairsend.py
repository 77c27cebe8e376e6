"""Fair turns and quiet floods (bot/telegram/fairsend.py), on the event loop itself."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from telegram import Bot, Update

from bot.telegram.fairsend import QUIET, FairSchedule, FairUpdates, skipped

_BOT = Bot("1:x")


def _message(user_id: int, n: int) -> Update:
    data = {
        "update_id": n,
        "message": {
            "message_id": n,
            "date": 0,
            "chat": {"id": user_id, "type": "private"},
            "from": {"id": user_id, "is_bot": False, "first_name": "U"},
            "text": "hi",
        },
    }
    return Update.de_json(data, _BOT)


def _press(user_id: int, n: int) -> Update:
    data = {
        "update_id": n,
        "callback_query": {
            "id": str(n),
            "from": {"id": user_id, "is_bot": False, "first_name": "U"},
            "chat_instance": "c",
            "data": "x",
        },
    }
    return Update.de_json(data, _BOT)


async def test_turns_go_round_robin_over_the_chats_waiting() -> None:
    schedule = FairSchedule(rate=200)
    order: list[str] = []

    async def call(chat: str) -> None:
        await schedule.turn("sendMessage", chat)
        order.append(chat)

    # chat a has 10 calls waiting before b's and c's 2 arrive
    calls = [call("a") for _ in range(10)] + [call("b"), call("b"), call("c"), call("c")]
    await asyncio.gather(*calls)
    # b and c are not served after all of a's: each gets a turn every round
    assert order.index("c") <= 3, order
    assert max(i for i, c in enumerate(order) if c in "bc") <= 7, order


async def test_turns_keep_the_rate() -> None:
    schedule = FairSchedule(rate=100)
    start = time.monotonic()
    await asyncio.gather(*(schedule.turn("sendMessage", n % 3) for n in range(30)))
    took = time.monotonic() - start
    assert took >= 29 / 100 * 0.9, took  # 30 turns, 10 ms apart
    assert schedule.waiting == 0


async def test_without_a_rate_a_turn_is_at_once() -> None:
    schedule = FairSchedule(rate=0)
    await asyncio.wait_for(
        asyncio.gather(*(schedule.turn("sendMessage", 1) for _ in range(1000))), 1
    )


async def test_the_shared_slot_is_taken_in_turn_and_the_groups_first() -> None:
    seen: list[tuple[str, object]] = []

    class Shared:
        async def overall(self, endpoint: str) -> None:
            seen.append(("overall", endpoint))
            await asyncio.sleep(0.001)

        async def chat(self, endpoint: str, chat_id: object) -> None:
            seen.append(("chat", chat_id))

    schedule = FairSchedule(rate=0)
    schedule.shared = Shared()
    await asyncio.gather(*(schedule.turn("sendMessage", -5) for _ in range(3)))
    assert sorted(seen) == [("chat", -5)] * 3 + [("overall", "sendMessage")] * 3


async def test_a_cancelled_call_gives_its_turn_away() -> None:
    schedule = FairSchedule(rate=50)
    await schedule.turn("sendMessage", 1)  # the next turn is 20 ms away
    waiting = asyncio.ensure_future(schedule.turn("sendMessage", 1))
    await asyncio.sleep(0)
    waiting.cancel()
    await asyncio.wait_for(schedule.turn("sendMessage", 2), 1)


async def _handle(updates: FairUpdates, update: Update, work: Any) -> None:
    await updates.do_process_update(update, work)


async def test_a_flooding_user_does_not_hold_the_others() -> None:
    updates = FairUpdates(64, per_user=2, backlog=5)
    running: dict[int, int] = {}
    most: dict[int, int] = {}
    release = asyncio.Event()
    done: list[int] = []

    async def work(user: int) -> None:
        running[user] = running.get(user, 0) + 1
        most[user] = max(most.get(user, 0), running[user])
        if user == 1:
            await release.wait()
        running[user] -= 1
        done.append(user)

    flood = [asyncio.ensure_future(_handle(updates, _message(1, n), work(1))) for n in range(50)]
    await asyncio.sleep(0.01)
    # the five before the flood began run; the flood's wait for 2 of the flooder's to end
    assert most[1] == 5
    await asyncio.wait_for(_handle(updates, _message(2, 99), work(2)), 1)
    assert done == [2]
    release.set()
    await asyncio.gather(*flood)
    assert most[1] == 5
    assert updates.running == 0


async def test_freed_slots_go_round_robin() -> None:
    updates = FairUpdates(2)
    gates = {n: asyncio.Event() for n in range(12)}
    order: list[int] = []

    async def work(n: int) -> None:
        order.append(n)
        await gates[n].wait()

    tasks = [asyncio.ensure_future(_handle(updates, _message(1, n), work(n))) for n in range(10)]
    tasks += [asyncio.ensure_future(_handle(updates, _message(2, n), work(n))) for n in (10, 11)]
    await asyncio.sleep(0.01)
    assert order == [0, 1]  # both slots taken
    for n in range(12):  # the slots free one by one
        gates[n].set()
        await asyncio.sleep(0.001)
    await asyncio.gather(*tasks)
    # user 2's two updates are not served after all of user 1's
    assert order.index(10) <= 3 and order.index(11) <= 5, order


async def test_a_flood_is_handled_quietly_with_one_notice_then_calm_again() -> None:
    updates = FairUpdates(8, per_user=2, backlog=5, calm_messages=3, calm_seconds=0.2)
    notices: list[int] = []

    async def notify(update: Update) -> None:
        notices.append(update.update_id)
        assert not QUIET.get()  # the notice itself is sent

    updates.notify = notify
    quiet: list[bool] = []
    gate = asyncio.Event()

    async def work() -> None:
        await gate.wait()
        quiet.append(QUIET.get())

    flood = [asyncio.ensure_future(_handle(updates, _message(1, n), work())) for n in range(20)]
    await asyncio.sleep(0.01)
    # a press from the flooder is no flood message: handled as usual
    await asyncio.wait_for(_handle(updates, _press(1, 500), asyncio.sleep(0)), 1)
    gate.set()
    await asyncio.gather(*flood)
    assert quiet == [False] * 5 + [True] * 15  # every one handled; the 6th on quietly
    await asyncio.sleep(0.01)
    assert notices == [5]
    # still sending fast: still quiet, no second notice
    gate.clear()
    again = asyncio.ensure_future(_handle(updates, _message(1, 30), work()))
    gate.set()
    await again
    assert quiet[-1] is True
    # calm: answered again; a new flood gets a new notice
    await asyncio.sleep(0.3)
    await _handle(updates, _message(1, 40), work())
    assert quiet[-1] is False
    gate.clear()
    flood = [asyncio.ensure_future(_handle(updates, _message(1, n), work())) for n in range(50, 60)]
    await asyncio.sleep(0.01)
    gate.set()
    await asyncio.gather(*flood)
    await asyncio.sleep(0.01)
    assert notices == [5, 55]


def test_a_quiet_update_skips_sends_and_edits_of_what_it_skipped() -> None:
    data: dict[str, Any] = {"chat_id": 7, "text": "x"}
    assert skipped("sendMessage", data) is None  # not quiet: sent
    token = QUIET.set(True)
    try:
        message = skipped("sendMessage", data)
        assert isinstance(message, dict)
        assert message["chat"] == {"id": 7, "type": "private"}
        assert skipped("sendChatAction", data) is True
        assert skipped("editMessageText", {"chat_id": 7, "message_id": 0}) is True
        assert skipped("editMessageText", {"chat_id": 7, "message_id": 3}) is None
        assert skipped("answerCallbackQuery", {"callback_query_id": "1"}) is None
    finally:
        QUIET.reset(token)

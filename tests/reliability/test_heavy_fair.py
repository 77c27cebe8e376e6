"""A small hostile file stalls no one, and one user's heavy uploads do not hold the
worker processes (issue 29).

A 60,000-byte line of ``9`` is under the offload threshold, so it is read and scored on
the event loop: with the old quadratic PrimeBench hint that took some 20 s, and every
other user waited. And with one worker process served first-come first-served, one user's
several heavy uploads made another user's heavy upload wait for all of them; now each
user has one job in a worker at a time and users are served in turn, so another user's
upload finds a process free.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from tests.e2e.botapi import FakeBotAPI
from tests.e2e.botkit import check_log
from tests.e2e.harness import running_bot

from .heavy import KEY, probe_text

#: The bound of the issue's done-when: another user's submission answered within 2 s.
ANSWERED_WITHIN = 2.0
NINES = b"9" * 60_000


async def test_a_file_of_digits_does_not_stall_other_users(tmp_path: Path) -> None:
    async with FakeBotAPI() as api, running_bot(api, tmp_path, key=KEY) as bot:
        mallory, alice = api.user(9301, "Mallory"), api.user(9302, "Alice")
        mallory_chat, alice_chat = api.private_chat(mallory), api.private_chat(alice)
        text = probe_text()
        warm = await api.send_text(alice_chat, alice, text)  # the bot is up and warm
        await api.reply_to(warm, timeout=30)
        started = time.perf_counter()
        # as uploads (one a submission: its line of digits is an invalid line that the
        # hints are searched over) and pasted
        hostile = [
            await api.send_document(mallory_chat, mallory, body, f"nines{n}.txt")
            for n, body in enumerate((NINES, b"1:1\n" + NINES, NINES))
        ]
        hostile.append(await api.send_text(mallory_chat, mallory, NINES.decode()))
        latencies = []
        for _ in range(5):
            sent = time.perf_counter()
            probe = await api.send_text(alice_chat, alice, text)
            call = await api.reply_to(probe, timeout=60)
            latencies.append(time.perf_counter() - sent)
            assert "Total Questions: 104" in str(call["params"]["text"])
            await asyncio.sleep(0.1)
        assert max(latencies) < ANSWERED_WITHIN, latencies
        for message in hostile:  # and the hostile inputs got their answers too
            await api.reply_to(message, timeout=60)
        assert time.perf_counter() - started < 30
        check_log(bot)


def different_lines(size: int) -> bytes:
    """A PrimeBench output of ``size`` bytes, every line different: among the slowest
    inputs per byte (some 10 MB/s), so that a 16 MB upload keeps a worker busy."""
    out, total, n = [], 0, 0
    while total < size:
        line = f"{n % 104 + 1}:{n % 4 + 1} is step {n} of the model's reasoning\n"
        out.append(line)
        total += len(line)
        n += 1
    return "".join(out).encode()


async def test_one_users_heavy_uploads_do_not_delay_anothers(tmp_path: Path) -> None:
    heavy = different_lines(16 * 1024 * 1024)
    async with FakeBotAPI() as api, running_bot(api, tmp_path, key=KEY) as bot:
        hog, bob = api.user(9311, "Hog"), api.user(9312, "Bob")
        carol = api.user(9313, "Carol")
        hog_chat, bob_chat = api.private_chat(hog), api.private_chat(bob)

        async def upload(user: dict, chat: dict, name: str) -> float:
            """When the bot answered the user's heavy upload."""
            message = await api.send_document(chat, user, heavy, name)
            call = await api.reply_to(message, timeout=120)
            assert "Total Questions: 104" in str(call["params"].get("text", "")), call
            return time.perf_counter()

        async def answers(chat: dict, count: int, since: int) -> list[float]:
            """When each of the next ``count`` cards in ``chat`` came (the bot's replies
            in a private chat name no message they answer, so they are counted)."""
            times, index = [], since
            for _ in range(count):
                call = await api.wait_for(
                    lambda c: (
                        c["method"] == "sendMessage"
                        and c["params"].get("chat_id") in (chat["id"], str(chat["id"]))
                        and "Total Questions: 104" in str(c["params"].get("text", ""))
                    ),
                    120,
                    since=index,
                )
                times.append(time.perf_counter())
                index = next(i for i in range(index, len(api.calls)) if api.calls[i] is call)
                index += 1
            return times

        # both worker processes up (two users at once), then Bob's upload alone
        await asyncio.gather(
            upload(carol, api.private_chat(carol), "warm.txt"), upload(bob, bob_chat, "warm.txt")
        )
        sent = time.perf_counter()
        alone = await upload(bob, bob_chat, "alone.txt") - sent
        # Hog sends three, then Bob one
        hogs = asyncio.create_task(answers(hog_chat, 3, api.mark()))
        for n in range(3):
            await api.send_document(hog_chat, hog, heavy, f"hog{n}.txt")
        await asyncio.sleep(0.3)
        sent = time.perf_counter()
        bob_done = await upload(bob, bob_chat, "bob.txt")
        waited = bob_done - sent
        hog_done = [t - sent for t in await hogs]
        # its own time and a margin (the other process works on Hog's meanwhile, on a
        # shared machine), not behind Hog's three
        assert waited < 2 * alone + 3.0, (waited, alone, hog_done)
        assert waited < hog_done[1], (waited, alone, hog_done)
        check_log(bot)

"""A burst of submissions and Publish presses against the real bot process, optionally
SIGKILLed part-way and restarted on the same database, optionally with faults injected
into the Bot API; then what the users saw, counted.

Used by the reliability tests (small sizes) and ``tests/benchmarks/bench_reliability.py``
(full sizes).
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.e2e.botapi import FakeBotAPI
from tests.e2e.botkit import KEY, answers, button, submission_id
from tests.e2e.harness import running_bot

SCORE = "Final Score"
WENT_WRONG = "Something went wrong"
#: The old answer to a database outage (untrue when the submission was stored).
NOTHING_SAVED = "nothing was saved"
#: The note a user gets when their update waits for the database.
SLOW = "taking longer than usual"


@dataclass
class Outcome:
    """What happened to a burst, as the users saw it and as the database holds it."""

    tried: int = 0
    answered: int = 0  # submissions with at least one score card in reply
    duplicated: int = 0  # score cards beyond the first, over all submissions
    stored: int = 0  # submissions in the database
    went_wrong: int = 0  # "Something went wrong" messages
    presses: int = 0
    presses_answered: int = 0
    published: int = 0  # submissions published (each press's effect)
    unfinished_at_kill: int | None = None  # intake entries not done when the bot died
    faults: int = 0
    nothing_saved: int = 0  # replies saying "nothing was saved"
    slow_notes: int = 0  # "taking longer than usual" notes (messages and press answers)
    slow_notes_max: int = 0  # the most of those notes about one update
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def lost(self) -> int:
        return self.tried - self.answered

    def line(self, name: str) -> str:
        kill = (
            f"  in flight at kill {self.unfinished_at_kill}"
            if self.unfinished_at_kill is not None
            else ""
        )
        outage = (
            f"  nothing-saved {self.nothing_saved}  slow notes {self.slow_notes} "
            f"(most per update {self.slow_notes_max})"
            if self.slow_notes or self.nothing_saved
            else ""
        )
        return (
            f"{name:28s} tried {self.tried:5d}  answered {self.answered:5d}  "
            f"lost {self.lost:4d}  duplicated {self.duplicated:3d}  stored {self.stored:5d}  "
            f"went wrong {self.went_wrong}  presses {self.presses_answered}/{self.presses} "
            f"published {self.published}  faults {self.faults}{kill}{outage}  "
            f"({self.seconds:.1f} s)"
        )


def _db(data_dir: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{data_dir / 'benchboard.sqlite3'}?mode=ro", uri=True)


def _rows(data_dir: Path, db_url: str | None, sql: str) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` in the bot's database: the SQLite file in ``data_dir``, or
    the PostgreSQL database at ``db_url``."""
    if db_url is not None:
        import psycopg

        with psycopg.connect(db_url) as conn:
            return [tuple(r) for r in conn.execute(sql.encode()).fetchall()]
    with _db(data_dir) as db:
        return [tuple(r) for r in db.execute(sql).fetchall()]


def unfinished_in(data_dir: Path) -> int:
    with _db(data_dir) as db:
        return int(db.execute("SELECT count(*) FROM intake WHERE done_at IS NULL").fetchone()[0])


class Burst:
    """``submissions`` outputs from ``users`` users; the first ``presses`` score cards
    to arrive each get a Publish press at once."""

    def __init__(self, api: FakeBotAPI, *, users: int, submissions: int, presses: int) -> None:
        self.api = api
        rng = random.Random(3)
        self.people = [api.user(80_000 + n, f"B{n}") for n in range(users)]
        self.chats = [api.private_chat(p) for p in self.people]
        self.texts = [
            "\n".join(["model: burst", "#think", *answers(KEY, correct=rng.randint(1, 100))])
            for _ in range(20)
        ]
        self.submissions = submissions
        self.presses = presses
        self.sent: list[dict[str, Any]] = []  # the users' messages
        self.queries: list[dict[str, Any]] = []  # the Publish presses
        self._pressed: set[int] = set()

    # --- the users -----------------------------------------------------------------

    async def send(self, rate: float | None) -> None:
        """Every submission: all at once (``rate`` None) or ``rate`` a second."""
        for i in range(self.submissions):
            person, chat = self.people[i % len(self.people)], self.chats[i % len(self.chats)]
            message = await self.api.send_text(chat, person, self.texts[i % len(self.texts)])
            self.sent.append(message)
            if rate is not None:
                await asyncio.sleep(1 / rate)

    async def press(self) -> None:
        """Press Publish on the first ``presses`` score cards, as they arrive."""
        while len(self.queries) < self.presses:
            for n, chat in enumerate(self.chats):
                for card in self.api.messages_in(chat["id"]):
                    text = str(card.get("text") or "")
                    if SCORE not in text or len(self.queries) >= self.presses:
                        continue
                    sub = submission_id(text)
                    if sub in self._pressed:
                        continue
                    self._pressed.add(sub)
                    data = button(card, "Publish")
                    self.queries.append(
                        await self.api.press_button(chat, self.people[n], card, data)
                    )
            await asyncio.sleep(0.05)

    # --- what they saw -------------------------------------------------------------

    def cards(self) -> dict[int, int]:
        """Score cards the users got: submission id -> how many."""
        seen: dict[int, int] = {}
        for chat in self.chats:
            for m in self.api.messages_in(chat["id"]):
                text = str(m.get("text") or "")
                if SCORE in text:
                    sub = submission_id(text)
                    seen[sub] = seen.get(sub, 0) + 1
        return seen

    def answered(self) -> int:
        return len(self.cards())

    def presses_answered(self) -> int:
        ok = {
            str(c["params"].get("callback_query_id"))
            for c in self.api.calls_of("answerCallbackQuery")
            if c["ok"]
        }
        return sum(1 for q in self.queries if q["id"] in ok)

    def done(self) -> bool:
        return (
            self.answered() >= self.submissions
            and len(self.queries) >= self.presses
            and self.presses_answered() >= self.presses
        )

    def slow_notes(self) -> Counter[object]:
        """The "taking longer" notes, counted per update they are about: a message
        (the one it replies to) or a press (its query id)."""
        about: Counter[object] = Counter()
        for chat in self.chats:
            for m in self.api.messages_in(chat["id"]):
                if SLOW in str(m.get("text") or ""):
                    reply = m.get("reply_to_message") or {}
                    about[("message", chat["id"], reply.get("message_id"))] += 1
        for c in self.api.calls_of("answerCallbackQuery"):
            if c["ok"] and SLOW in str(c["params"].get("text") or ""):
                about[("press", str(c["params"].get("callback_query_id")))] += 1
        return about

    def outcome(self, data_dir: Path, db_url: str | None = None) -> Outcome:
        out = Outcome(tried=len(self.sent), presses=self.presses)
        rows = _rows(data_dir, db_url, "SELECT id, chat_id, message_id FROM submissions")
        stored = {int(r[0]): (int(r[1]), int(r[2])) for r in rows}
        published = "SELECT count(*) FROM submissions WHERE visibility = 'published'"
        out.published = int(_rows(data_dir, db_url, published)[0][0])
        out.stored = len(stored)
        cards = self.cards()
        sent = {(m["chat"]["id"], m["message_id"]) for m in self.sent}
        # a card counts for the message its submission was stored under
        answered = {stored[sub] for sub in cards if sub in stored} & sent
        out.answered = len(answered)
        out.duplicated = sum(n - 1 for n in cards.values())
        out.went_wrong = sum(
            1
            for chat in self.chats
            for m in self.api.messages_in(chat["id"])
            if WENT_WRONG in str(m.get("text") or "")
        )
        out.nothing_saved = sum(
            1
            for chat in self.chats
            for m in self.api.messages_in(chat["id"])
            if NOTHING_SAVED in str(m.get("text") or "")
        )
        notes = self.slow_notes()
        out.slow_notes = sum(notes.values())
        out.slow_notes_max = max(notes.values(), default=0)
        out.presses_answered = self.presses_answered()
        out.faults = len(self.api.fault_log)
        return out


async def wait(condition: Callable[[], bool], timeout: float, what: str) -> None:  # noqa: ASYNC109
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.05)


async def run_burst(
    api: FakeBotAPI,
    tmp: Path,
    *,
    users: int,
    submissions: int,
    presses: int,
    kill_at: float | None = None,
    rate: float | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120.0,  # noqa: ASYNC109
) -> Outcome:
    """Run a burst; with ``kill_at`` (a fraction of the submissions answered), SIGKILL
    the bot then and restart it on the same database. Returns the outcome once every
    submission and press is answered, or when ``timeout`` has passed (with a note)."""
    burst = Burst(api, users=users, submissions=submissions, presses=presses)
    start = time.monotonic()
    unfinished: int | None = None
    notes: list[str] = []

    async def settle() -> Outcome:
        try:
            await wait(burst.done, timeout, "every submission and press answered")
        except AssertionError as exc:
            notes.append(str(exc))
        return burst.outcome(tmp / "data")

    async with running_bot(api, tmp, key=KEY, env=env) as bot:
        sending = asyncio.create_task(burst.send(rate))
        pressing = asyncio.create_task(burst.press())
        if kill_at is None:
            await sending
            outcome = await settle()
        else:
            await wait(
                lambda: burst.answered() >= kill_at * submissions,
                timeout,
                f"{kill_at:.0%} of the submissions answered",
            )
            await bot.kill()
            unfinished = unfinished_in(bot.data_dir)
    if kill_at is not None:
        async with running_bot(api, tmp, key=KEY, env=env, wait=False):
            await sending
            outcome = await settle()
    pressing.cancel()
    outcome.unfinished_at_kill = unfinished
    outcome.seconds = time.monotonic() - start
    outcome.notes = notes
    return outcome

"""Random callback data and random updates fed to the real bot: every button is
answered, nothing reaches an unhandled exception (no traceback, no ERROR line in the
log, checked when the session ends), and the bot still answers a submission after."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from .botapi import command_entities
from .botkit import KEY, Bot, answers, bot_session, private_user, text_of

pytestmark = pytest.mark.asyncio(loop_scope="module")
_query_ids = itertools.count(1)
_message_ids = itertools.count(10_000)

# Numbers a forger likes: near the 64-bit edges, negative, huge.
NUMBERS = st.one_of(
    st.integers(-5, 2_000),
    st.sampled_from([0, -1, 2**31, 2**53, 2**63 - 1, 2**63, -(2**63) - 1, 2**70, 10**36]),
)
DIGITS = st.one_of(NUMBERS.map(str), st.text("0123456789-٠١٢٣²", max_size=40))
ACTIONS = st.sampled_from(["pub", "det", "wd", "mode", "model", "lb", "x", ""])
CALLBACK_DATA = st.one_of(
    st.text(max_size=64),
    st.builds(lambda a, n, r: f"{a}:{n}{r}"[:64], ACTIONS, DIGITS, st.text(max_size=12)),
    st.builds(
        lambda b, s, m, d, p: f"lb:{b}:{s}:{m}:{d}:{p}"[:64],
        st.sampled_from(["primebench", "zerobench", "natory", "x"]),
        st.sampled_from(["g", "c", "u", "z"]),
        st.sampled_from(["-", "think", "tools", "x"]),
        DIGITS,
        DIGITS,
    ),
)
COMMANDS = st.sampled_from(
    ["/start s", "/hide ", "/verify ", "/ban ", "/unban ", "/natory ", "/natory set ",
     "/leaderboard natory ", "/leaderboard ", "/score #natory target: ", "#natory\ntarget: ",
     "model: m\ncost: ", "latency: ", "/lang ", "/me ", "k: "]
)  # fmt: skip
TEXTS = st.one_of(
    st.text(max_size=200),
    st.builds(lambda c, d, tail: f"{c}{d}{tail}", COMMANDS, DIGITS, st.text(max_size=30)),
)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    async with bot_session(
        tmp_path_factory.mktemp("random"), env={"BENCHBOARD_ADMINS": "9501"}
    ) as b:
        yield b
        # after the storm: a normal submission is answered
        user, chat = private_user(b, 9599)
        reply = text_of(await b.say(chat, user, "\n".join(answers(KEY, correct=4))))
        assert "Correct: 4" in reply


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=CALLBACK_DATA)
async def test_random_callback_data_is_answered(bot: Bot, data: str) -> None:
    user, chat = private_user(bot, 9502)
    card = bot.api.messages_in(int(chat["id"]))
    if not card:
        await bot.say(chat, user, "\n".join(answers(KEY, correct=2)))
        card = bot.api.messages_in(int(chat["id"]))
    query = await bot.api.press_button(chat, user, card[-1], data, check_button=False)
    await bot.api.callback_answer(query, timeout=20)


def _user(uid: int, name: str) -> dict[str, Any]:
    return {"id": uid, "is_bot": False, "first_name": name or "x"}


@st.composite
def updates(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A random update of the kinds the bot handles, its ids sometimes forged."""
    uid = draw(st.one_of(st.integers(9510, 9520), NUMBERS))
    user = _user(uid, draw(st.text(max_size=20)))
    kind_of_chat = draw(st.sampled_from(["private", "group", "supergroup", "channel"]))
    chat_id = uid if kind_of_chat == "private" else draw(st.one_of(st.just(-1009), NUMBERS))
    chat: dict[str, Any] = {"id": chat_id, "type": kind_of_chat}
    if kind_of_chat != "private":
        chat["title"] = draw(st.text(max_size=20))
    message: dict[str, Any] = {
        "message_id": draw(st.one_of(st.just(next(_message_ids)), NUMBERS)),
        "from": user,
        "chat": chat,
        "date": 0,
    }
    text = draw(TEXTS)
    if draw(st.booleans()):
        message["text"] = text
        if entities := command_entities(text):
            message["entities"] = entities
    else:
        message["caption"] = text
    if draw(st.booleans()):
        message["reply_to_message"] = {
            "message_id": draw(NUMBERS),
            "from": {"id": 1, "is_bot": True, "first_name": "B"},
            "chat": chat,
            "date": 0,
            "text": draw(TEXTS),
        }
    kind = draw(st.sampled_from(["message", "edited_message", "callback_query"]))
    if kind == "edited_message":
        message["edit_date"] = 1
    if kind != "callback_query":
        return kind, message
    query: dict[str, Any] = {
        "id": f"rnd{next(_query_ids)}",
        "from": user,
        "chat_instance": "1",
        "data": draw(CALLBACK_DATA),
    }
    if draw(st.booleans()):
        query["message"] = message
    else:
        query["inline_message_id"] = draw(st.text(min_size=1, max_size=10))
    return kind, query


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(update=updates())
# a board button pressed on a message that is not the bot's: the press is answered, the
# edit Telegram refuses ("message can't be edited") is no error
@example(
    update=(
        "callback_query",
        {
            "id": "board-on-a-user-message",
            "from": _user(9511, "x"),
            "chat_instance": "1",
            "data": "lb:primebench:g:-:0:0",
            "message": {
                "message_id": 9,
                "from": _user(9511, "x"),
                "chat": {"id": 9511, "type": "private"},
                "date": 0,
                "text": "hello",
            },
        },
    )
)
async def test_random_updates_reach_no_unhandled_exception(
    bot: Bot, update: tuple[str, dict[str, Any]]
) -> None:
    kind, payload = update
    await bot.api.send_raw_update(kind, payload)
    if kind == "callback_query":
        await bot.api.callback_answer({"id": payload["id"]}, timeout=20)

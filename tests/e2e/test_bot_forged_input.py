"""Numbers users type and callback data they forge: each is parsed with bounds and
refused with a short, true message (a forged button is answered), never an internal
error. The session checks the bot logged no traceback and no ERROR line."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from .botkit import KEY, Bot, answers, bot_session, private_user, submission_id, text_of

pytestmark = pytest.mark.asyncio(loop_scope="module")
ADMIN = 9301
HUGE = "9" * 36
NINES = "9" * 5000
_ids = itertools.count(9400)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    env = {"BENCHBOARD_ADMINS": str(ADMIN), "BENCHBOARD_NATORY_SEED": "forged"}
    async with bot_session(tmp_path_factory.mktemp("forged"), env=env) as b:
        yield b


async def _card(bot: Bot, chat: dict, user: dict) -> dict:
    return await bot.say(chat, user, "\n".join(answers(KEY, correct=3)))


async def test_natory_target_of_5000_nines_is_refused(bot: Bot) -> None:
    user, chat = private_user(bot, next(_ids))
    mark = bot.api.mark()
    reply = text_of(await bot.say(chat, user, f"#natory\ntarget: {NINES}\n1+2"))
    assert "target" in reply.lower() and "went wrong" not in reply
    assert len(reply) < 400
    bot.check_clean(mark)


@pytest.mark.parametrize("data", [f"pub:{HUGE}", f"det:{HUGE}", f"wd:-{HUGE}", f"mode:{HUGE}:think",
                                  f"model:{NINES[:58]}", "pub:\u0669", "pub:0"])  # fmt: skip
async def test_a_forged_submission_button_is_answered(bot: Bot, data: str) -> None:
    user, chat = private_user(bot, next(_ids))
    card = await _card(bot, chat, user)
    answer = await bot.press(chat, user, card, data, check_button=False)
    assert "no longer" in answer["text"].lower() or "not available" in answer["text"].lower()


@pytest.mark.parametrize(
    "data",
    ["lb:primebench:g:-:-7:0", "lb:primebench:g:-:7:-1", f"lb:primebench:g:-:{HUGE}:0",
     f"lb:primebench:g:-:0:{HUGE}", "lb:nobench:g:-:0:0", "lb:primebench:g:-:\u0663:0"],
)  # fmt: skip
async def test_a_forged_board_button_is_answered(bot: Bot, data: str) -> None:
    user, chat = private_user(bot, next(_ids))
    board = await bot.say(chat, user, "/leaderboard")
    mark = bot.api.mark()
    answer = await bot.press(chat, user, board, data, check_button=False)
    assert answer.get("text"), answer
    bot.check_clean(mark)


async def test_a_shared_link_beyond_any_id_is_not_found(bot: Bot) -> None:
    user, chat = private_user(bot, next(_ids))
    reply = text_of(await bot.say(chat, user, f"/start s{HUGE}"))
    assert "was not found" in reply


@pytest.mark.parametrize("command", ["hide", "unhide", "verify", "ban", "unban"])
async def test_admin_commands_refuse_an_id_beyond_64_bits(bot: Bot, command: str) -> None:
    admin, chat = private_user(bot, ADMIN)
    mark = bot.api.mark()
    reply = text_of(await bot.say(chat, admin, f"/{command} {HUGE} spam"))
    assert f"/{command}" in reply  # its usage
    bot.check_clean(mark)


@pytest.mark.parametrize(
    "text", [f"/natory {NINES}", f"/leaderboard natory {NINES}", f"/natory set {NINES}",
             f"/natory set 12 {NINES}", "/natory \u00b2"],
)  # fmt: skip
async def test_natory_commands_refuse_huge_targets(bot: Bot, text: str) -> None:
    admin, chat = private_user(bot, ADMIN)
    mark = bot.api.mark()
    reply = text_of(await bot.say(chat, admin, text))
    assert reply and "went wrong" not in reply and len(reply) < 1000
    bot.check_clean(mark)


@pytest.mark.parametrize("data", ["sh:1", "chl:1", "lbi:primebench:g:-:0:0", "rt:1", "rc:1"])
async def test_a_press_on_an_inline_message_or_a_run_that_is_not_is_answered(
    bot: Bot, data: str
) -> None:
    user, _ = private_user(bot, next(_ids))
    mark = bot.api.mark()
    query_id = f"inline-{data}"
    query = {"id": query_id, "from": user, "inline_message_id": "AAAA", "chat_instance": "1",
             "data": data}  # fmt: skip
    await bot.api.send_raw_update("callback_query", query)
    answer = await bot.api.callback_answer({"id": query_id}, timeout=20)
    assert "no longer available" in answer["params"].get("text", ""), answer
    bot.check_clean(mark)


async def test_an_update_with_ids_beyond_64_bits_is_dropped_and_its_button_answered(
    bot: Bot,
) -> None:
    user, chat = private_user(bot, next(_ids))
    card = await _card(bot, chat, user)
    sid = submission_id(text_of(card))
    forged_user = {**user, "id": 2**70}
    query = {
        "id": "forged-1",
        "from": forged_user,
        "message": card["result"],
        "chat_instance": "1",
        "data": f"pub:{sid}",
    }
    await bot.api.send_raw_update("callback_query", query)
    await bot.api.callback_answer({"id": "forged-1"}, timeout=20)
    message = {
        "message_id": 2**64,
        "from": forged_user,
        "chat": {"id": 2**70, "type": "private", "first_name": "F"},
        "date": 0,
        "text": "\n".join(answers(KEY, correct=2)),
    }
    await bot.api.send_raw_update("message", message)
    # still answering, and the forged submission was not stored (ids are per message)
    reply = text_of(await _card(bot, chat, user))
    assert submission_id(reply) == sid + 1


async def test_names_and_a_model_no_database_holds_as_given_are_scored(bot: Bot) -> None:
    """A user's name and a model with a lone surrogate or NUL (JSON carries both) get
    the usual card; the model shows U+FFFD for the surrogate, which the database could
    not keep, and drops the NUL, a control character no name keeps."""
    user = bot.api.user(next(_ids), "A\ud800\x00")
    user["last_name"] = "\udfff"
    chat = bot.api.private_chat(user)
    mark = bot.api.mark()
    text = "\n".join(["model: m\ud800x\x00y", "#think", *answers(KEY, correct=3)])
    reply = text_of(await bot.say(chat, user, text))
    assert "Correct: 3" in reply and "Model: m\ufffdxy" in reply, reply
    bot.check_clean(mark)

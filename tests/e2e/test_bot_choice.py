"""A multiple-choice benchmark defined by data (issue 30): added with ``benchboard
benchmark add`` to the bot's database before it starts, it is a benchmark everywhere —
scored from ``#tinymcq`` with its points, published, on ``/leaderboard tinymcq``, in
``/benchmarks`` and on the web board ``/b/tinymcq``; a bot admin adds another one as a
document captioned ``/benchmark add``. The keys are made up here."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest
import pytest_asyncio

from tests.cli.test_cli import run_cli

from .botapi import free_port
from .botkit import Bot, bot_session, private_user, submission_id, text_of
from .harness import webhook_env

pytestmark = pytest.mark.asyncio(loop_scope="module")

ADMIN = 9301
SECRET = "choice-secret-0123456789"

TINY = '''name = "tinymcq"
title = "TinyMCQ"
kind = "choice"
options = 5
points = { right = 2, wrong = -1, none = 0 }
prompt = """Answer as Q:O, options 1 to 5.
"""
credit = "TinyMCQ by Example Lab"
license = "CC BY 4.0"
key = """
1:3
2:1
3:5
4:2
"""
'''


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    tmp = tmp_path_factory.mktemp("choice")
    (tmp / "tiny.toml").write_text(TINY)
    added = run_cli("benchmark", "add", str(tmp / "tiny.toml"), cwd=tmp)
    assert added.returncode == 0, added.stderr
    port = free_port()
    env = {**webhook_env(port, SECRET), "BENCHBOARD_ADMINS": str(ADMIN)}
    async with bot_session(tmp, env=env) as b:
        b.port = port  # type: ignore[attr-defined]
        yield b


async def get(bot: Bot, path: str) -> tuple[int, str]:
    port = bot.port  # type: ignore[attr-defined]
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}{path}") as response,
    ):
        return response.status, await response.text()


async def test_a_defined_benchmark_is_scored_published_and_listed(bot: Bot) -> None:
    user, chat = private_user(bot, 9311)
    mark = bot.api.mark()
    reply = await bot.say(chat, user, "#tinymcq #think\nmodel: Tiny One\n1:3\n2:4\n3:5\n4:none")
    plain = text_of(reply)
    assert "TinyMCQ" in plain and "Final Score: 3" in plain, plain
    sid = submission_id(plain)
    answer = await bot.press(chat, user, reply, f"pub:{sid}")
    assert f"Published #{sid}" in answer["text"]
    board = text_of(await bot.say(chat, user, "/leaderboard tinymcq"))
    assert "TinyMCQ" in board and "1. Tiny One" in board, board
    listed = text_of(await bot.say(chat, user, "/benchmarks"))
    assert "TinyMCQ" in listed and "PrimeBench" in listed
    prompt = await bot.say(chat, user, "/prompt tinymcq")
    assert "Answer as Q:O, options 1 to 5." in text_of(prompt)
    # untagged answer lines stay PrimeBench's
    untagged = text_of(await bot.say(chat, user, "model: Plain\n1:3"))
    assert "PrimeBench" in untagged and "TinyMCQ" not in untagged
    status, html = await get(bot, "/b/tinymcq")
    assert status == 200 and "Tiny One" in html and "TinyMCQ" in html
    bot.check_clean(mark)


async def test_an_admin_adds_a_benchmark_by_document(bot: Bot) -> None:
    admin, chat = private_user(bot, ADMIN)
    quiz = TINY.replace('"tinymcq"', '"quizb"').replace('"TinyMCQ"', '"QuizB"')
    quiz = quiz.replace("right = 2, wrong = -1", "right = 10, wrong = -5")
    user, user_chat = private_user(bot, 9312)
    refused = await bot.api.send_document(
        user_chat, user, quiz.encode(), "quiz.toml", caption="/benchmark add"
    )
    assert "admin" in text_of(await bot.api.reply_to(refused, timeout=20)).lower()
    bad = await bot.api.send_document(
        chat, admin, quiz.replace("options = 5", "options = 1").encode(), "quiz.toml",
        caption="/benchmark add",
    )  # fmt: skip
    said = text_of(await bot.api.reply_to(bad, timeout=20))
    assert said == "Benchmark file refused, nothing changed: options: must be 2 to 99, not 1"
    good = await bot.api.send_document(
        chat, admin, quiz.encode(), "quiz.toml", caption="/benchmark add"
    )
    said = text_of(await bot.api.reply_to(good, timeout=20))
    assert "QuizB is a benchmark now" in said and "#quizb" in said, said
    scored = text_of(await bot.say(user_chat, user, "#quizb\nmodel: Q\n1:3\n2:2"))
    assert "QuizB" in scored and "Final Score: 5" in scored, scored
    audit = text_of(await bot.say(chat, admin, "/audit"))
    assert "benchmark_add" in audit and "quizb v1" in audit, audit


async def test_a_changed_key_is_said_and_rescored(bot: Bot) -> None:
    """The same definition with another key was answered "QuizB is unchanged: definition
    version 1, key version 2" while its stored results were being re-scored."""
    admin, chat = private_user(bot, ADMIN)
    quiz = TINY.replace('"tinymcq"', '"quizb"').replace('"TinyMCQ"', '"QuizB"')
    quiz = quiz.replace("right = 2, wrong = -1", "right = 10, wrong = -5")
    corrected = quiz.replace("2:1\n", "2:2\n")  # the stored 2:2 is right now
    sent = await bot.api.send_document(
        chat, admin, corrected.encode(), "quiz.toml", caption="/benchmark add"
    )
    said = text_of(await bot.api.reply_to(sent, timeout=20))
    assert said.splitlines() == [
        "The key of QuizB changed: key version 2 is in use now "
        "(definition version 1 unchanged, #quizb).",
        "Re-scoring 1 stored submission in the background; I will report here.",
    ]
    report = await bot.api.wait_for(
        lambda c: c["method"] == "sendMessage" and "Re-score done" in str(c["params"]["text"]),
        timeout=30,
    )
    assert "QuizB, key version 2: 1 of 1 submission changed score" in text_of(report)
    user, user_chat = private_user(bot, 9312)
    mine = text_of(await bot.say(user_chat, user, "/me"))
    assert "QuizB · Q · — · +20" in mine, mine  # 1:3 and 2:2 both right now: 2 × 10


async def test_a_file_nested_too_deeply_is_refused_in_one_line(bot: Bot) -> None:
    """tomllib's RecursionError was "Something went wrong" and a traceback in the log
    (the session checks there is none)."""
    admin, chat = private_user(bot, ADMIN)
    nested = TINY.replace('name = "tinymcq"', "name = " + "[" * 3000 + "]" * 3000)
    sent = await bot.api.send_document(
        chat, admin, nested.encode(), "deep.toml", caption="/benchmark add"
    )
    said = text_of(await bot.api.reply_to(sent, timeout=20))
    assert said == (
        "Benchmark file refused, nothing changed: TOML: arrays or inline tables nested too deeply"
    )


async def test_a_name_of_the_bots_own_is_refused(bot: Bot) -> None:
    """``top`` was accepted, though ``@bot top`` is inline mode's top five."""
    admin, chat = private_user(bot, ADMIN)
    named = TINY.replace('"tinymcq"', '"top"').replace('"TinyMCQ"', '"Top"')
    sent = await bot.api.send_document(
        chat, admin, named.encode(), "top.toml", caption="/benchmark add"
    )
    said = text_of(await bot.api.reply_to(sent, timeout=20))
    assert said == (
        "Benchmark file refused, nothing changed: name: 'top' is the bot's own word: "
        "inline mode's keyword (@bot top) and a command (/top)"
    )
    listed = text_of(await bot.say(chat, admin, "/benchmarks"))
    assert "(#tinymcq)" in listed and "(#top)" not in listed, listed


async def test_a_prompt_too_long_for_a_message_is_sent_as_a_file(bot: Bot) -> None:
    """A definition may hold a prompt of 100,000 characters; /prompt sent it as one
    message, Telegram refused it (4,096 at most), and the user got no answer at all (the
    bot logged the failure). It comes as a file now, its bytes as the definition's."""
    admin, chat = private_user(bot, ADMIN)
    prompt = "Answer <each> question as Q:O & nothing else. ۱\n" * 200 + "Last line, no break"
    long = TINY.replace('"tinymcq"', '"longp"').replace('"TinyMCQ"', '"LongP"')
    long = long.replace('"""Answer as Q:O, options 1 to 5.\n"""', f'"""{prompt}"""')
    sent = await bot.api.send_document(
        chat, admin, long.encode(), "long.toml", caption="/benchmark add"
    )
    assert "LongP is a benchmark now" in text_of(await bot.api.reply_to(sent, timeout=20))
    user, user_chat = private_user(bot, 9313)
    mark = bot.api.mark()
    reply = await bot.say(user_chat, user, "/prompt longp")
    assert reply["method"] == "sendDocument", reply
    assert text_of(reply).startswith("The LongP prompt (send it verbatim):")
    assert "TinyMCQ by Example Lab" in text_of(reply)
    document = reply["result"]["document"]
    assert document["file_name"] == "longp-prompt.txt"
    assert bot.api.file_content(document["file_id"]) == prompt.encode()
    short = await bot.say(user_chat, user, "/prompt tinymcq")  # one that fits: a message
    assert short["method"] == "sendMessage" and "Answer as Q:O" in text_of(short)
    bot.check_clean(mark)


async def test_a_benchmark_added_beside_the_running_bot_is_known_at_once(bot: Bot) -> None:
    """`benchboard benchmark add` while the bot runs on the same SQLite file: its tag,
    `/leaderboard NAME` and `/prompt NAME` were "unknown" for up to a minute (until the
    bot read the definitions again); a name it does not know is read again at once."""
    tmp = bot.proc.data_dir.parent
    beside = TINY.replace('"tinymcq"', '"besideb"').replace('"TinyMCQ"', '"Beside B"')
    (tmp / "beside.toml").write_text(beside)
    added = run_cli("benchmark", "add", str(tmp / "beside.toml"), cwd=tmp)
    assert added.returncode == 0, added.stderr
    user, chat = private_user(bot, 9314)
    mark = bot.api.mark()
    scored = text_of(await bot.say(chat, user, "#besideb\nmodel: B\n1:3\n2:1"))
    assert "Beside B" in scored and "Final Score: 4" in scored, scored
    board = text_of(await bot.say(chat, user, "/leaderboard besideb"))
    assert board.startswith("Beside B leaderboard"), board
    bot.check_clean(mark)


async def test_a_board_and_a_prompt_of_a_benchmark_added_beside_are_known_at_once(
    bot: Bot,
) -> None:
    tmp = bot.proc.data_dir.parent
    beside = TINY.replace('"tinymcq"', '"besidec"').replace('"TinyMCQ"', '"Beside C"')
    (tmp / "besidec.toml").write_text(beside)
    added = run_cli("benchmark", "add", str(tmp / "besidec.toml"), cwd=tmp)
    assert added.returncode == 0, added.stderr
    user, chat = private_user(bot, 9315)
    board = text_of(await bot.say(chat, user, "/leaderboard besidec"))
    assert board.startswith("Beside C leaderboard"), board
    beside = beside.replace('"besidec"', '"besided"').replace('"Beside C"', '"Beside D"')
    (tmp / "besided.toml").write_text(beside)
    assert run_cli("benchmark", "add", str(tmp / "besided.toml"), cwd=tmp).returncode == 0
    prompt = text_of(await bot.say(chat, user, "/prompt besided"))
    assert prompt.startswith("The Beside D prompt"), prompt


async def test_remove_is_said_not_to_exist(bot: Bot) -> None:
    """``/benchmark remove tinymcq`` was answered how to send a file to add one, as if
    the admin had asked nothing else: that a benchmark stays is said now."""
    admin, chat = private_user(bot, ADMIN)
    for word in ("remove", "rename"):
        said = text_of(await bot.say(chat, admin, f"/benchmark {word} tinymcq"))
        assert said.startswith(f"There is no /benchmark {word}: a benchmark once added stays")
    listed = text_of(await bot.say(chat, admin, "/benchmarks"))
    assert "(#tinymcq)" in listed

"""Many benchmarks defined by data (an admin may add a hundred with ``benchboard
benchmark add``): every message that lists them still reaches the user. ``/benchmarks``
was one message, longer than Telegram takes past some thirty benchmarks of long titles:
the user got nothing and the bot logged a traceback; ``/help`` lists every tag and
failed so past some ninety. The keys are made up here."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.core import benchmarks
from bot.core.services import opened
from bot.settings import Settings
from scoring import choice, registry

from .botkit import Bot, bot_session, private_user, text_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

N = 100
NAMES = [f"b{i:02d}" + "x" * 29 for i in range(N)]


def _definition(i: int) -> str:
    return (
        f'name = "{NAMES[i]}"\ntitle = "Benchmark number {i:02d} {"W" * 40}"\n'
        'kind = "choice"\noptions = 4\npoints = { right = 1, wrong = 0, none = 0 }\n'
        'key = "1:3\\n2:1\\n"\n'
    )


async def _add_all(data: Path) -> None:
    """What ``benchboard benchmark add`` stores, N times (in one process: quicker)."""
    settings = Settings(db=str(data / "benchboard.sqlite3"), data_dir=data)
    try:
        async with opened(settings) as services:
            for i in range(N):
                definition = choice.read_definition(_definition(i))
                await benchmarks.add(services, definition, source=f"file b{i}.toml")
    finally:
        for name in NAMES:  # this process's registry: the bot reads them from the database
            registry.unregister(name)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    tmp = tmp_path_factory.mktemp("many")
    (tmp / "data").mkdir()
    await _add_all(tmp / "data")
    async with bot_session(tmp) as b:
        yield b


async def test_benchmarks_lists_every_one_in_as_many_messages_as_it_takes(bot: Bot) -> None:
    user, chat = private_user(bot, 9401)
    mark = bot.api.mark()
    await bot.api.send_text(chat, user, "/benchmarks")
    await bot.api.wait_for(
        lambda c: c["method"] == "sendMessage" and f"#{NAMES[-1]}" in str(c["params"]["text"]),
        timeout=20,
        since=mark,
    )
    await asyncio.sleep(0.5)  # nothing after the last
    sent = [c for c in bot.api.calls if c["index"] >= mark and c["method"] == "sendMessage"]
    assert len(sent) >= 2 and all(c["ok"] for c in sent)
    shown = "\n".join(text_of(c) for c in sent)
    assert shown.startswith("Benchmarks\n• PrimeBench (#primebench)")
    for name in ("primebench", "zerobench", "natory", *NAMES):
        assert shown.count(f"(#{name})") == 1, name
    bot.check_clean(mark)


async def test_help_and_the_lists_of_names_fit_a_message(bot: Bot) -> None:
    user, chat = private_user(bot, 9402)
    mark = bot.api.mark()
    shown = text_of(await bot.say(chat, user, "/help"))
    assert f"#{NAMES[26]} … (+73) to pick the benchmark" in shown, shown
    unknown = text_of(await bot.say(chat, user, "#nosuch\n1:1"))
    assert unknown.startswith("unknown tag #nosuch: modes are #default"), unknown
    prompt = text_of(await bot.say(chat, user, "/prompt qqqqqqqqqq"))
    assert prompt.startswith("I do not know “qqqqqqqqqq”"), prompt
    bot.check_clean(mark)

"""The web boards in webhook mode: served on the webhook's port beside /healthz, the
/leaderboard Mini App button, /public and /weblink (a group admin's revocable link)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import aiohttp
import pytest
import pytest_asyncio

from .botapi import free_port
from .botkit import KEY, Bot, answers, bot_session, private_user, submission_id, text_of
from .harness import webhook_env

pytestmark = pytest.mark.asyncio(loop_scope="module")
SECRET = "w3b-secret"
PUBLIC = "https://boards.example.org"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    port = free_port()
    env = {**webhook_env(port, SECRET), "BENCHBOARD_WEB_URL": PUBLIC}
    async with bot_session(tmp_path_factory.mktemp("web"), env=env) as b:
        b.port = port  # type: ignore[attr-defined]
        yield b


async def get(bot: Bot, path: str) -> tuple[int, str]:
    port = bot.port  # type: ignore[attr-defined]
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}{path}") as response,
    ):
        return response.status, await response.text()


async def test_the_boards_share_the_webhook_port(bot: Bot) -> None:
    user, chat = private_user(bot, 9101)
    text = "\n".join(["#think", "model: web-model", *answers(KEY, correct=5)])
    reply = await bot.say(chat, user, text)
    sid = submission_id(text_of(reply))
    await bot.press(chat, user, reply, f"pub:{sid}")
    status, html = await get(bot, "/b/primebench")
    assert status == 200 and "web-model" in html and "anonymous" in html
    assert str(user["id"]) not in html
    assert (await get(bot, "/healthz"))[0] == 200
    assert (await get(bot, "/b/nosuch"))[0] == 404
    # /public on: the name shows (once the page's few cached seconds are over)
    assert "Your name" in text_of(await bot.say(chat, user, "/public on"))
    status, html = await get(bot, "/b/primebench?window=all")
    assert status == 200 and user["first_name"] in html
    assert "“anonymous”" in text_of(await bot.say(chat, user, "/public off"))


async def test_leaderboard_opens_the_board_as_a_mini_app(bot: Bot) -> None:
    user, chat = private_user(bot, 9102)
    reply = await bot.say(chat, user, "/leaderboard")
    rows = reply["params"]["reply_markup"]["inline_keyboard"]
    apps = [b["web_app"]["url"] for row in rows for b in row if "web_app" in b]
    assert apps == [f"{PUBLIC}/b/primebench?lang=en"]
    # in the language the user reads the bot in, whatever their phone's: Persian by
    # Telegram's language, English after /lang en though Telegram's is Persian
    reader, reader_chat = private_user(bot, 9106, "fa")
    reply = await bot.say(reader_chat, reader, "/leaderboard zerobench")
    rows = reply["params"]["reply_markup"]["inline_keyboard"]
    apps = [b["web_app"]["url"] for row in rows for b in row if "web_app" in b]
    assert apps == [f"{PUBLIC}/b/zerobench?lang=fa"]
    await bot.say(reader_chat, reader, "/lang en")
    reply = await bot.say(reader_chat, reader, "/leaderboard")
    rows = reply["params"]["reply_markup"]["inline_keyboard"]
    apps = [b["web_app"]["url"] for row in rows for b in row if "web_app" in b]
    assert apps == [f"{PUBLIC}/b/primebench?lang=en"]
    status, html = await get(bot, "/b/zerobench?lang=fa")
    assert status == 200 and 'lang="fa"' in html


async def test_weblink_for_a_group_admin_only_and_revocable(bot: Bot) -> None:
    group = bot.api.group_chat(-1009101, "Web Lab")
    admin, member = bot.api.user(9103, "Ada"), bot.api.user(9104, "Bo")
    bot.api.set_member_status(group["id"], admin, "administrator")
    refused = text_of(await bot.say(group, member, "/weblink"))
    assert PUBLIC not in refused
    given = text_of(await bot.say(group, admin, "/weblink"))
    token = re.search(rf"{re.escape(PUBLIC)}/g/([A-Za-z0-9_-]+)", given)
    assert token is not None
    assert (await get(bot, f"/g/{token[1]}"))[0] == 200
    again = text_of(await bot.say(group, admin, "/weblink new"))
    fresh = re.search(rf"{re.escape(PUBLIC)}/g/([A-Za-z0-9_-]+)", again)
    assert fresh is not None and fresh[1] != token[1]
    assert (await get(bot, f"/g/{fresh[1]}?lang=en"))[0] == 200
    assert (await get(bot, f"/g/{token[1]}?lang=fa"))[0] == 404  # the old one is revoked
    someone, chat = private_user(bot, 9105)
    assert "in the group" in text_of(await bot.say(chat, someone, "/weblink"))

"""Submitting from scripts, end to end: the real bot process in webhook mode gives a
token with ``/token`` (a private chat only), its port serves ``/api/v1`` beside the
boards, and ``benchboard submit`` (a real process) posts to it; both results land on
the web board."""

from __future__ import annotations

import asyncio
import io
import json
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from .botapi import FakeBotAPI, free_port
from .botkit import BOT, KEY, Bot, answers, bot_session, check_log, private_user, text_of
from .harness import running_bot, webhook_env

pytestmark = pytest.mark.asyncio(loop_scope="module")
SECRET = "api-secret"
TOKEN = re.compile(r"<code>(bb_[A-Za-z0-9_-]{43})</code>")
ROOT = Path(__file__).resolve().parents[2]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    port = free_port()
    async with bot_session(tmp_path_factory.mktemp("api"), env=webhook_env(port, SECRET)) as b:
        b.port = port  # type: ignore[attr-defined]
        yield b


def base(bot: Bot) -> str:
    return f"http://127.0.0.1:{bot.port}"  # type: ignore[attr-defined]


def raw_text(reply: dict[str, Any]) -> str:
    """The text the bot sent, as sent (HTML)."""
    return str(reply["params"].get("text", ""))


async def token_for(bot: Bot, uid: int) -> str:
    user, chat = private_user(bot, uid)
    made = TOKEN.search(raw_text(await bot.say(chat, user, "/token")))
    assert made is not None
    return made[1]


async def post(
    bot: Bot, body: Any, token: str | None, **headers: str
) -> tuple[int, dict[str, Any]]:
    given = {**headers, **({"Authorization": f"Bearer {token}"} if token else {})}
    kwargs = {"data": body} if isinstance(body, bytes | io.BytesIO) else {"json": body}
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            base(bot) + "/api/v1/submissions", headers=given, expect100=True, **kwargs
        ) as r,
    ):
        return r.status, json.loads(await r.text())


async def get(bot: Bot, path: str, token: str | None = None) -> tuple[int, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        aiohttp.ClientSession() as session,
        session.get(base(bot) + path, headers=headers) as r,
    ):
        return r.status, json.loads(await r.text())


async def cli(*args: str, token: str) -> tuple[int, str, str]:
    """``benchboard submit ...`` as its own process."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "submit", *args,
        env={"BENCHBOARD_API_TOKEN": token, "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_token_only_in_a_private_chat_and_revocable(bot: Bot) -> None:
    group = bot.api.group_chat(-1009301, "API Lab")
    member = bot.api.user(9301, "Gi")
    refused = raw_text(await bot.say(group, member, "/token"))
    assert "private chat" in refused and "bb_" not in refused
    token = await token_for(bot, 9301)
    user, chat = private_user(bot, 9301)
    listed = raw_text(await bot.say(chat, user, "/token list"))
    assert "1 API token" in listed and token not in listed
    assert (await get(bot, "/api/v1/me", token))[0] == 200
    assert "1 API token revoked" in raw_text(await bot.say(chat, user, "/token revoke"))
    status, err = await get(bot, "/api/v1/me", token)
    assert status == 401 and err["error"]["code"] == "invalid_token"
    assert "no API token" in raw_text(await bot.say(chat, user, "/token list"))


async def test_post_scores_publishes_and_the_cli_submits(bot: Bot, tmp_path: Path) -> None:
    token = await token_for(bot, 9302)
    body = {
        "benchmark": "primebench",
        "output": "\n".join(answers(KEY, correct=12, wrong=2)),
        "model": "api-e2e-model",
        "mode": "think",
        "publish": True,
    }
    status, made = await post(bot, body, token, **{"Idempotency-Key": "e2e-1"})
    assert status == 201, made
    assert made["final_score"] == 12 - 3 * 2 and made["published"] is True
    assert made["url"].startswith(base(bot) + "/r/") and made["held"] is False
    again = await post(bot, body, token, **{"Idempotency-Key": "e2e-1"})
    assert again[0] == 200 and again[1]["id"] == made["id"]
    assert (await get(bot, f"/api/v1/submissions/{made['id']}", token))[1]["id"] == made["id"]
    # refusals, as JSON
    assert (await post(bot, body, None))[0] == 401
    assert (await post(bot, body, "bb_" + "x" * 43))[0] == 401
    assert (await post(bot, b"not json at all", token))[0] == 400
    status, err = await post(bot, {**body, "mode": None}, token)
    assert status == 422 and err["error"]["field"] == "mode" and "mode" in err["error"]["message"]
    huge = io.BytesIO(b'{"output": "' + b"1" * (21 << 20) + b'"}')
    assert (await post(bot, huge, token, **{"Content-Type": "application/json"}))[0] == 413
    status, spec = await get(bot, "/openapi.json")
    assert status == 200 and "/api/v1/submissions" in spec["paths"]

    # the command line, against the same server
    out_file = tmp_path / "run.txt"
    out_file.write_text("\n".join(answers(KEY, correct=9, wrong=1)) + "\n")
    server = base(bot)
    common = ["--server", server, "--benchmark", "primebench", "--model", "cli-e2e-model"]
    code, out, err = await cli(str(out_file), *common, "--mode", "tools", "--publish", token=token)
    assert code == 0, err
    assert "score 6" in out and f"{server}/r/" in out
    # refused: no mode to publish (the server's message), a bad token, no server
    code, out, err = await cli(str(out_file), *common, "--publish", token=token)
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1
    assert "422" in err and "mode" in err
    code, _, err = await cli(str(out_file), *common, token="bb_" + "y" * 43)
    assert code == 1 and "401" in err and len(err.strip().splitlines()) == 1
    dead = f"http://127.0.0.1:{free_port()}"
    code, _, err = await cli(str(out_file), "--server", dead, "--benchmark", "primebench",
                             "--wait", "0", token=token)  # fmt: skip
    assert code == 1 and "cannot reach" in err and len(err.strip().splitlines()) == 1

    # both results are on the web board
    status, board = await get(bot, "/b/primebench.json?window=all")
    assert status == 200
    models = {row["model"] for row in board["rows"]}
    assert {"api-e2e-model", "cli-e2e-model"} <= models


async def test_a_token_whose_reply_was_lost_is_replaced_not_doubled(tmp_path: Path) -> None:
    """/token made its token, then its reply never arrived (the process died while
    Telegram did not answer): started again, the bot handles /token again and answers
    a new token that replaces the first (never seen, so revoked): one live token."""
    async with FakeBotAPI(bot_username=BOT) as api:
        async with running_bot(api, tmp_path) as proc:
            bot = Bot(api, proc, {})
            user, chat = private_user(bot, 9390)
            api.faults(methods=("sendMessage",), kinds=("timeout",), times=1, delay=30)
            await api.send_text(chat, user, "/token")
            for _ in range(400):  # the reply is out (its token made), its answer awaited
                if api.fault_log:
                    break
                await asyncio.sleep(0.05)
            assert api.fault_log
            await proc.kill()
        api.clear_faults()
        async with running_bot(api, tmp_path) as proc:
            bot = Bot(api, proc, {})
            mark = api.mark()
            reply = await api.wait_for(
                lambda c: c["method"] == "sendMessage" and c["params"].get("chat_id") == 9390
                and c["ok"],
                timeout=30,
                since=mark,
            )  # fmt: skip
            listed = raw_text(await bot.say(chat, user, "/token list"))
            assert "1 API token" in listed, listed
            assert TOKEN.search(raw_text(reply)) is not None
            assert "replaces the one this message made before" in text_of(reply)
            check_log(proc)

"""Operations, end to end: webhook secret, health endpoint, graceful SIGTERM, logs."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import sqlite3
from pathlib import Path

import aiohttp

from .botapi import FakeBotAPI, free_port
from .harness import make_key, running_bot, webhook_env

SECRET = "s3cret-token"


async def get_health(port: int) -> tuple[int, dict[str, object]]:
    async with aiohttp.ClientSession() as session:
        for _ in range(100):
            try:
                async with session.get(f"http://127.0.0.1:{port}/healthz") as response:
                    return response.status, await response.json()
            except aiohttp.ClientConnectionError:
                await asyncio.sleep(0.1)
    raise AssertionError("the health endpoint never answered")


async def test_webhook_checks_the_secret_and_serves_health(
    botapi: FakeBotAPI, tmp_path: Path
) -> None:
    port = free_port()
    async with running_bot(botapi, tmp_path, key=make_key(), env=webhook_env(port, SECRET)) as bot:
        ann = botapi.user(2001, "Ann")
        chat = botapi.private_chat(ann)
        message = await botapi.send_text(chat, ann, "#default\nmodel: m\n1:1")
        call = await botapi.reply_to(message, timeout=20)
        assert "Final Score:" in call["params"]["text"]
        update = botapi.make_text_update(chat, ann, "1:2")
        assert await botapi.post_raw_update(update, "wrong") == 403
        assert await botapi.post_raw_update(update, None) == 403
        status, body = await get_health(port)
        assert status == 200
        assert body["ok"] is True and body["database"] == "ok" and body["primebench_key"] is True
        log_lines = [json.loads(line) for line in bot.log().splitlines() if line.startswith("{")]
    handled = [line for line in log_lines if line["msg"] == "update handled"]
    assert handled and handled[0]["chat_type"] == "private" and handled[0]["outcome"] == "ok"
    assert {"update_id", "command", "duration_ms"} <= set(handled[0])
    assert not any(botapi.token in line for line in bot.log().splitlines())
    assert any(
        line["msg"] == "webhook request refused: wrong or missing secret token"
        for line in log_lines
    )


async def test_health_reports_a_missing_key(botapi: FakeBotAPI, tmp_path: Path) -> None:
    port = free_port()
    async with running_bot(botapi, tmp_path, key=None, env=webhook_env(port, SECRET)):
        status, body = await get_health(port)
    assert status == 503
    assert body["primebench_key"] is False and body["database"] == "ok"


async def test_sigterm_during_a_burst_loses_nothing_acknowledged(
    botapi: FakeBotAPI, tmp_path: Path
) -> None:
    key = make_key()
    users = [botapi.user(3000 + n, f"U{n}") for n in range(20)]
    async with running_bot(botapi, tmp_path, key=key) as bot:
        sent = [
            await botapi.send_text(botapi.private_chat(u), u, f"#think\nmodel: m{n}\n1:{key[1]}")
            for n, u in enumerate(users)
        ]
        await botapi.wait_for(lambda c: c["method"] == "sendMessage" and c["ok"], timeout=20)
        bot.proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(bot.proc.wait(), 30)
    assert code == 0, bot.log()[-2000:]
    replies = [c for c in botapi.calls if c["method"] == "sendMessage" and c["ok"]]
    assert replies
    db = sqlite3.connect(bot.data_dir / "benchboard.sqlite3")
    stored = set(db.execute("SELECT chat_id, message_id FROM submissions"))
    db.close()
    # every user sent one message (message_id 1 in their private chat); a reply in a chat
    # acknowledges that chat's submission, which must be stored
    acknowledged = {(int(c["params"]["chat_id"]), 1) for c in replies}
    assert acknowledged <= stored
    assert {(m["chat"]["id"], m["message_id"]) for m in sent} >= stored
    assert '"benchboard stopped; database closed"' in bot.log() or "database closed" in bot.log()


async def test_webhook_mode_stops_cleanly_on_sigterm(botapi: FakeBotAPI, tmp_path: Path) -> None:
    port = free_port()
    key = make_key()
    async with running_bot(botapi, tmp_path, key=key, env=webhook_env(port, SECRET)) as bot:
        ann = botapi.user(2101, "Ann")
        chat = botapi.private_chat(ann)
        message = await botapi.send_text(chat, ann, f"1:{key[1]}")
        await botapi.reply_to(message, timeout=20)
        bot.proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(bot.proc.wait(), 30)
    assert code == 0, bot.log()[-2000:]
    assert "database closed" in bot.log()
    assert "Traceback" not in bot.log()


async def test_a_refused_token_stops_start_up_with_one_line(
    botapi: FakeBotAPI, tmp_path: Path
) -> None:
    env = {"BENCHBOARD_TOKEN": "999:not-this-bots-token", "PYTHONDEVMODE": "1"}
    async with running_bot(botapi, tmp_path, key=make_key(), env=env, wait=False) as bot:
        code = await asyncio.wait_for(bot.proc.wait(), 30)
    assert code == 2
    assert "benchboard: Telegram refused the token: check BENCHBOARD_TOKEN" in bot.log()
    assert "Traceback" not in bot.log()
    assert "Unclosed" not in bot.log()  # the failed start closed what it opened
    assert "not-this-bots-token" not in bot.log()


async def test_a_database_that_cannot_open_stops_start_up_with_one_line(
    botapi: FakeBotAPI, tmp_path: Path
) -> None:
    # the database opens while the first calls to Telegram are out: its failure is still
    # the start's, said in one line
    (tmp_path / "a-file").write_text("not a folder")
    env = {"BENCHBOARD_DB": str(tmp_path / "a-file" / "benchboard.sqlite3"), "PYTHONDEVMODE": "1"}
    async with running_bot(botapi, tmp_path, key=make_key(), env=env, wait=False) as bot:
        code = await asyncio.wait_for(bot.proc.wait(), 30)
    assert code == 2
    assert f"benchboard: cannot open the database {tmp_path / 'a-file'}" in bot.log()
    assert "Traceback" not in bot.log() and "Unclosed" not in bot.log()
    assert not any(c["method"] == "sendMessage" for c in botapi.calls)


async def test_an_unreachable_bot_api_is_named_in_one_plain_line_within_5_s(
    botapi: FakeBotAPI, tmp_path: Path
) -> None:
    nobody = f"http://127.0.0.1:{free_port()}/bot"  # nothing listens there
    env = {"BENCHBOARD_API_BASE_URL": nobody}
    async with running_bot(botapi, tmp_path, key=make_key(), env=env, wait=False) as bot:
        loop = asyncio.get_running_loop()
        started = loop.time()
        said = ""
        while loop.time() - started < 5 and not said:
            await asyncio.sleep(0.1)
            said = next((x for x in bot.log().splitlines() if x.startswith("benchboard:")), "")
        assert said.startswith(f"benchboard: the Bot API at {nobody} does not answer yet"), (
            bot.log()[-2000:]
        )
        assert "retrying" in said and bot.proc.returncode is None  # and it goes on trying
    assert "Traceback" not in bot.log()


async def test_a_refused_command_menu_is_logged_and_the_bot_runs_on(
    botapi: FakeBotAPI, tmp_path: Path
) -> None:
    botapi.faults(methods=("setMyCommands",), kinds=("400",))
    key = make_key()
    async with running_bot(botapi, tmp_path, key=key) as bot:
        ann = botapi.user(2101, "Ann")
        message = await botapi.send_text(botapi.private_chat(ann), ann, f"1:{key[1]}")
        call = await botapi.reply_to(message, timeout=20)
        assert "Final Score:" in call["params"]["text"]
        assert any(f["method"] == "setMyCommands" for f in botapi.fault_log)
    assert "a menu was not set" in bot.log()
    assert "Traceback" not in bot.log()


async def test_a_missing_key_tells_users_when_and_admins_how(
    botapi: FakeBotAPI, tmp_path: Path
) -> None:
    admin = 9301
    env = {"BENCHBOARD_ADMINS": str(admin)}
    async with running_bot(botapi, tmp_path, key=None, env=env):
        ann = botapi.user(2201, "Ann")
        first = await botapi.send_text(botapi.private_chat(ann), ann, "1:3\n2:1")
        said = (await botapi.reply_to(first, timeout=20))["params"]["text"]
        assert "not loaded yet" in said and "admins have been told" in said
        told = await botapi.wait_for(
            lambda c: c["method"] == "sendMessage" and c["params"].get("chat_id") == admin,
            timeout=20,
        )
        assert "benchboard data fetch primebench" in told["params"]["text"]
        assert "/setkey primebench" in told["params"]["text"]
        # a second user's miss within the hour tells the admins nothing new
        bob = botapi.user(2202, "Bob")
        again = await botapi.send_text(botapi.private_chat(bob), bob, "1:2")
        await botapi.reply_to(again, timeout=20)
        boss = botapi.user(admin, "Boss")
        own = await botapi.send_text(botapi.private_chat(boss), boss, "1:4")
        reply = (await botapi.reply_to(own, timeout=20))["params"]["text"]
        assert "benchboard data load primebench --key FILE" in reply
    to_admin = [
        c for c in botapi.calls
        if c["method"] == "sendMessage" and c["params"].get("chat_id") == admin
    ]  # fmt: skip
    assert len(to_admin) == 2  # one notice, then the reply to the admin's own message


async def test_a_reply_that_went_through_is_never_reported_as_failed(
    botapi: FakeBotAPI, tmp_path: Path
) -> None:
    key = make_key()
    async with running_bot(botapi, tmp_path, key=key) as bot:
        botapi.faults(methods=("sendMessage",), kinds=("unreadable",), times=1)
        ann = botapi.user(2301, "Ann")
        message = await botapi.send_text(botapi.private_chat(ann), ann, f"1:{key[1]}")
        call = await botapi.reply_to(message, timeout=20)
        assert "Final Score:" in call["params"]["text"]
        await asyncio.sleep(2)  # what would follow it: "something went wrong"
        # the next message is handled as usual
        later = await botapi.send_text(botapi.private_chat(ann), ann, f"2:{key[2]}")
        await botapi.reply_to(later, timeout=20)
    to_ann = [
        c["params"]["text"] for c in botapi.calls
        if c["method"] == "sendMessage" and c["params"].get("chat_id") == 2301
    ]  # fmt: skip
    assert len(to_ann) == 2 and all("Final Score:" in text for text in to_ann), to_ann
    assert botapi.fault_log and botapi.fault_log[0]["kind"] == "unreadable"
    assert "the call went through" in bot.log()


async def test_a_taken_webhook_port_stops_start_up_with_one_line_closing_all(
    botapi: FakeBotAPI, tmp_path: Path
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        # development mode: every unclosed session, socket or file is reported
        env = {**webhook_env(port, SECRET), "PYTHONDEVMODE": "1", "PYTHONWARNINGS": "always"}
        async with running_bot(botapi, tmp_path, key=make_key(), env=env, wait=False) as bot:
            code = await asyncio.wait_for(bot.proc.wait(), 30)
    assert code == 2, bot.log()[-2000:]
    assert f"benchboard: cannot listen on 127.0.0.1:{port}: address already in use" in bot.log()
    assert "Traceback" not in bot.log()
    assert "Unclosed" not in bot.log() and "ResourceWarning" not in bot.log(), bot.log()[-3000:]


async def test_admins_get_their_own_menu_and_the_mini_app_is_the_menu_button(
    botapi: FakeBotAPI, tmp_path: Path
) -> None:
    admin = 9401
    env = {"BENCHBOARD_ADMINS": str(admin), "BENCHBOARD_WEB_URL": "https://boards.example.com"}
    async with running_bot(botapi, tmp_path, key=make_key(), env=env):
        pass
    scope = {"type": "chat", "chat_id": admin}
    for lang in ("", "fa"):
        everyone = {c["command"] for c in botapi.commands(lang) or []}
        theirs = {c["command"] for c in botapi.commands(lang, scope) or []}
        assert {"score", "leaderboard"} <= everyone and "setkey" not in everyone
        assert everyone < theirs and {"setkey", "rescore", "verify", "backup"} <= theirs
    button = botapi.menu_buttons[None]
    assert button["type"] == "web_app" and button["web_app"]["url"] == (
        "https://boards.example.com/app"
    )
    assert button["text"] == "Boards"


async def test_an_uploaded_submission_wears_eyes_while_it_is_scored(
    botapi: FakeBotAPI, tmp_path: Path
) -> None:
    key = make_key()
    async with running_bot(botapi, tmp_path, key=key):
        ann = botapi.user(2401, "Ann")
        chat = botapi.private_chat(ann)
        small = await botapi.send_text(chat, ann, f"1:{key[1]}")
        await botapi.reply_to(small, timeout=20)
        body = "\n".join(f"{q}:{a}" for q, a in key.items()).encode()
        upload = await botapi.send_document(chat, ann, body, "out.txt")
        reply = await botapi.reply_to(upload, timeout=20)
        cleared = await botapi.wait_for(
            lambda c: c["method"] == "setMessageReaction" and c["params"]["reaction"] == [],
            timeout=20,
        )
    reactions = [c for c in botapi.calls if c["method"] == "setMessageReaction"]
    assert [c["params"]["message_id"] for c in reactions] == [upload["message_id"]] * 2
    assert reactions[0]["params"]["reaction"] == [{"type": "emoji", "emoji": "👀"}]
    assert reactions[0]["index"] < reply["index"] < cleared["index"]  # on while scored
    assert botapi.reactions[(chat["id"], upload["message_id"])] == []

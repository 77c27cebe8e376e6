"""Inputs and operations of issue 29 through the real bot process: odd inline offsets
get an answer; a spoofing model name is stored and shown without its bidi controls; a
start that cannot open PostgreSQL never prints the password, in whatever form it was
given; a damaged database stops the start with one line naming the backup to restore."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from storage import Store

from .botapi import FakeBotAPI
from .botkit import KEY, Bot, answers, bot_session, private_user, text_of
from .botkit import submission_id as sid_of
from .harness import ROOT, make_key, running_bot

RLO = "\u202e"
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    async with bot_session(tmp_path_factory.mktemp("inputs")) as b:
        yield b


@pytest.mark.asyncio(loop_scope="module")
async def test_odd_inline_offsets_are_answered(bot: Bot) -> None:
    api = bot.api
    user, chat = private_user(bot, 29101)
    reply = await bot.say(
        chat, user, "#think\nmodel: Offset One\n" + "\n".join(answers(KEY, correct=5))
    )
    sid = sid_of(text_of(reply))
    answer = await bot.press(chat, user, reply, f"pub:{sid}")
    assert not answer.get("show_alert"), answer
    first = (await api.inline_answer(await api.inline_query(user, "")))["params"]
    assert [r["id"] for r in first["results"]] == [f"r:{sid}"]
    # "²" and "٣" pass str.isdigit() but not int(); 25 digits overflow SQLite's integers
    for offset in ("²", "٣", "9" * 25, "-1", "1e3", " 1", "0x10", "\x00"):
        query = await api.inline_query(user, "", offset=offset)
        params = (await api.inline_answer(query, timeout=15))["params"]
        if offset == "9" * 25:
            assert params["results"] == [] and not params.get("next_offset"), offset
        else:  # not a number we handed out: the first page
            assert [r["id"] for r in params["results"]] == [f"r:{sid}"], offset


@pytest.mark.asyncio(loop_scope="module")
async def test_a_model_name_with_bidi_controls_is_shown_without_them(bot: Bot) -> None:
    user, chat = private_user(bot, 29102)
    body = "\n".join(answers(KEY, correct=4))
    reply = await bot.say(chat, user, f"#think\nmodel: {BIDI}Evil{RLO}4-TPG\n{body}")
    text = text_of(reply)
    assert "Evil4-TPG" in text, text
    assert not any(c in text for c in BIDI), ascii(text)
    # on the board too (the model went into the store without them)
    sid = sid_of(text)
    answer = await bot.press(chat, user, reply, f"pub:{sid}")
    assert not answer.get("show_alert"), answer
    board = await bot.say(chat, user, "/leaderboard")
    assert "Evil4-TPG" in text_of(board) and RLO not in text_of(board)


# --- the start --------------------------------------------------------------------------

PASSWORD = "Hunter2-s3cr3t"
BAD_DATABASES = {
    "user-password": f"postgresql://postgres:{PASSWORD}@127.0.0.1:9/benchboard",
    "query": f"postgresql://postgres@127.0.0.1:9/benchboard?password={PASSWORD}",
    "query-and-bad-option": (
        f"postgresql://postgres@127.0.0.1:9/benchboard?sslmode=disable&password={PASSWORD}&nosuch=1"
    ),
    "percent-encoded": "postgresql://postgres:Hunter2%2Ds3cr3t@127.0.0.1:9/benchboard",
    "bad-port": f"postgresql://postgres:{PASSWORD}@127.0.0.1:notaport/benchboard",
    "key-value": f"host=127.0.0.1 port=9 user=postgres password={PASSWORD} dbname=benchboard",
    "key-value-quoted": f"host=127.0.0.1 port=9 password='{PASSWORD} x' dbname=benchboard",
}


#: What the bot logs while it waits for a database that does not answer at start.
RETRYING = "does not answer yet"
#: The addresses whose server refuses connections (port 9): waited for, not an error.
REFUSED = ("user-password", "query", "percent-encoded")


async def _failed_start(tmp: Path, database: str) -> tuple[int, str, float | None]:
    """The bot's exit code and log: it stopped by itself, or, once it said twice that
    the database does not answer yet, on SIGTERM (then how long that took)."""
    api = FakeBotAPI()
    await api.start()
    try:
        env = {"BENCHBOARD_DB": database}
        async with running_bot(api, tmp, key=make_key(), env=env, wait=False) as proc:
            deadline = time.monotonic() + 60
            while proc.proc.returncode is None and proc.log().count(RETRYING) < 2:
                assert time.monotonic() < deadline, proc.log()[-2000:]
                await asyncio.sleep(0.1)
            stopped = None
            if proc.proc.returncode is None:
                started = time.monotonic()
                proc.proc.terminate()
                await asyncio.wait_for(proc.proc.wait(), 30)
                stopped = time.monotonic() - started
            code = await asyncio.wait_for(proc.proc.wait(), 60)
        return code, proc.log(), stopped
    finally:
        await api.stop()


async def test_no_password_in_any_line_of_a_failed_start(tmp_path: Path) -> None:
    """The real start, once per form a password can take, all at once: an address that
    cannot be read stops it (exit code 2, one ``benchboard:`` line naming the database
    without its password); a server that refuses connections is waited for, each try
    logged as a warning naming the database without its password, and a SIGTERM
    meanwhile stops the bot at once. The password is in no line of the output."""
    names = list(BAD_DATABASES)
    for name in names:
        (tmp_path / name).mkdir()
    results = await asyncio.gather(
        *(_failed_start(tmp_path / name, BAD_DATABASES[name]) for name in names)
    )
    for name, (code, log, stopped) in zip(names, results, strict=True):
        for secret in (PASSWORD, "Hunter2%2Ds3cr3t", "Hunter2"):
            assert secret not in log, (name, log[-3000:])
        assert "Traceback" not in log, (name, log[-3000:])
        last = [line for line in log.splitlines() if line.startswith("benchboard: ")]
        if name in REFUSED:
            # a transient fault: retried with a growing pause, never an error
            assert stopped is not None and stopped < 10, (name, stopped, log[-2000:])
            assert code == 0 and last == [], (name, code, log[-2000:])
            tries = [line for line in log.splitlines() if RETRYING in line]
            assert all('"level": "WARNING"' in line for line in tries), tries
            assert "postgresql://postgres" in tries[0] and "Connection refused" in tries[0]
            assert "ERROR" not in log, (name, log[-2000:])
            continue
        assert code == 2, (name, log[-2000:])
        assert len(last) == 1, (name, log[-2000:])
        if name.startswith("key-value"):
            assert "BENCHBOARD_DB" in last[0] and "postgresql://" in last[0], last
        else:
            assert "cannot open the database postgresql://postgres" in last[0], last
        # nothing was created from the value (a key=value string is not a file's name)
        assert [p.name for p in (tmp_path / name).iterdir()] in (
            ["bot.log", "data"],
            ["data", "bot.log"],
        )


async def test_a_damaged_database_stops_the_start_naming_the_backup(tmp_path: Path) -> None:
    data = tmp_path / "data"
    db = data / "benchboard.sqlite3"
    store = await Store.open(db)
    try:
        for uid in range(1, 3001):
            await store.upsert_user(uid, first_name=f"User {uid} " + "x" * 60, last_name=None,
                                    username=None, language_code="en")  # fmt: skip
        snapshot = data / "backups" / "benchboard-20261201-030000.sqlite3"
        await store.backup(data / "backups" / "benchboard-20261130-030000.sqlite3")
        await store.backup(snapshot)
    finally:
        await store.close()
    with sqlite3.connect(db) as con:
        page_size = con.execute("PRAGMA page_size").fetchone()[0]
        pages = con.execute("PRAGMA page_count").fetchone()[0]
    con.close()
    with db.open("r+b") as handle:  # pages of the users' table, overwritten
        # (the last quarter of the file: the 3,000 users fill it; an empty table's
        # page in the middle could be overwritten without a trace)
        for page in range(pages * 3 // 4, pages * 3 // 4 + 4):
            handle.seek(page * page_size + 8)
            handle.write(b"\xa5\x5a" * ((page_size - 16) // 2))
    damaged = db.read_bytes()

    api = FakeBotAPI()
    await api.start()
    try:
        async with running_bot(api, tmp_path, key=make_key(), wait=False) as proc:
            code = await asyncio.wait_for(proc.proc.wait(), 60)
        log = proc.log()
        assert code == 2, log[-2000:]
        assert "Traceback" not in log, log[-3000:]
        lines = [line for line in log.splitlines() if line.startswith("benchboard: ")]
        assert len(lines) == 1, log[-2000:]
        assert "damaged" in lines[0], lines
        command = f"benchboard db restore {snapshot}"
        assert command in lines[0], lines  # the latest of the two
        assert not any(c["method"] == "sendMessage" for c in api.calls)
        assert db.read_bytes() == damaged  # refused before anything was written into it
    finally:
        await api.stop()
    # the line's advice works: the restore, then a start that comes up
    env = {"BENCHBOARD_DATA_DIR": str(data), "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    restore = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "db", "restore", str(snapshot), cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    said, _ = await asyncio.wait_for(restore.communicate(), 60)
    assert restore.returncode == 0, said
    api = FakeBotAPI()
    await api.start()
    try:
        async with running_bot(api, tmp_path, key=make_key()):
            pass
    finally:
        await api.stop()

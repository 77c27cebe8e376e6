"""python-telegram-bot used as its maintainers document it: Bot API methods by their
documented names, no warning filters at run time, PTB's own lifecycle around the
services (``bot/telegram/app.py``'s docstring says why no ``post_init`` is registered).
"""

from __future__ import annotations

import re
from pathlib import Path

import telegram
from telegram.ext import Application

from bot.settings import Settings
from bot.telegram import app as app_module
from tests.e2e.botapi import FakeBotAPI
from tests.e2e.botkit import KEY, answers, text_of
from tests.e2e.harness import running_bot

BOT = Path(app_module.__file__).resolve().parents[1]


def _sources() -> dict[Path, str]:
    return {path: path.read_text(encoding="utf-8") for path in sorted(BOT.rglob("*.py"))}


def test_no_warning_filter_anywhere_in_the_bot() -> None:
    found = [
        f"{path.relative_to(BOT)}:{n}"
        for path, text in _sources().items()
        for n, line in enumerate(text.splitlines(), 1)
        if re.search(r"\b(filterwarnings|simplefilter|catch_warnings)\b", line)
    ]
    assert found == []


def test_bot_api_methods_are_called_by_their_documented_names() -> None:
    """No ``do_api_request`` (PTB's way to call a method it lacks) and no Bot API
    method name written other than as documented (``sendmessage``)."""
    methods = {
        name
        for name in dir(telegram.Bot)
        if re.fullmatch(r"[a-z]+(?:[A-Z][a-z]*)+", name) and callable(getattr(telegram.Bot, name))
    }
    assert "sendMessage" in methods and "getUpdates" in methods
    names = "|".join(sorted(m.lower() for m in methods))
    variants = re.compile(rf"""["']({names})["']""", re.IGNORECASE)
    found = []
    for path, text in _sources().items():
        for n, line in enumerate(text.splitlines(), 1):
            if "do_api_request" in line:
                found.append(f"{path.relative_to(BOT)}:{n}: {line.strip()}")
            for match in variants.finditer(line):
                if match.group(1) not in methods:
                    found.append(f"{path.relative_to(BOT)}:{n}: {match.group(0)}")
    assert found == []


def test_the_application_registers_no_hook_ptb_would_not_call(tmp_path: Path) -> None:
    """Without an Updater PTB calls neither post_init nor post_shutdown (only
    run_polling/run_webhook do); the services are opened inside ``async with app``."""
    settings = Settings(_env_file=None, token="1:x", data_dir=tmp_path)  # type: ignore[call-arg]
    app = app_module.build_application(settings)
    assert isinstance(app, Application)
    assert app.updater is None
    assert app.post_init is None and app.post_shutdown is None and app.post_stop is None


async def test_a_real_run_warns_nothing_and_keeps_ptbs_order(tmp_path: Path) -> None:
    """The real process, every warning shown (``PYTHONWARNINGS=always``): a submission
    answered, then SIGTERM. PTB's ``initialize`` (getMe) comes before the services,
    its ``shutdown`` before the database closes; no PTB warning in the whole log."""
    async with FakeBotAPI() as api:
        user = api.user(93_001, "Lifecycle")
        chat = api.private_chat(user)
        async with running_bot(api, tmp_path, key=KEY, env={"PYTHONWARNINGS": "always"}) as bot:
            mark = api.mark()
            await api.send_text(chat, user, "\n".join(["model: m", *answers(KEY, correct=3)]))
            reply = await api.wait_call(
                "sendMessage", chat_id=chat["id"], since=mark, ok=True, timeout=30
            )
            assert "Correct: 3" in text_of(reply)
        log = bot.log()
    assert "Warning" not in log, log[-3000:]
    order = [
        "the token belongs to @",
        "benchboard started as @",
        "stopping: finishing the updates already received",
        "benchboard stopped; database closed",
    ]
    at = [log.find(line) for line in order]
    assert all(i >= 0 for i in at) and at == sorted(at), log[-3000:]

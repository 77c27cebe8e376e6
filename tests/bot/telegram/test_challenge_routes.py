"""The challenges' chat commands come from the registry: a second challenge benchmark
registered beside Natory gets its command word routed like Natory's, with nothing else
changed."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from telegram import Chat, Message, MessageEntity, Update, User
from telegram.ext import BaseHandler, CommandHandler, MessageHandler

from bot.core import challenges
from bot.settings import Settings
from bot.telegram import admin_handlers as ah
from bot.telegram import app as app_module
from bot.telegram import challenge_handlers as ch
from scoring import Benchmark, registry
from scoring.natory import Natory
from scoring.natory.challenge import CHALLENGE


class _Countdown(Natory):
    """A second challenge benchmark: Natory's rules under another name and command."""

    name = "countdown"
    title = "Countdown"
    tags = ("countdown",)
    challenge = CHALLENGE._replace(command="countdown")


@pytest.fixture
def second(monkeypatch: pytest.MonkeyPatch) -> Benchmark:
    fake = _Countdown()
    known = registry.all_benchmarks()
    monkeypatch.setattr(registry, "all_benchmarks", lambda: (*known, fake))
    return fake


#: What a command filter asks of the bot: its name (``/cmd@name``).
_BOT = SimpleNamespace(username="bench_bot")


def _update(text: str, *, reply_to: Message | None = None) -> Update:
    command = text.split()[0] if text.startswith("/") else ""
    entities = [MessageEntity(MessageEntity.BOT_COMMAND, 0, len(command))] if command else []
    message = Message(
        2, datetime.now(UTC), Chat(7, Chat.PRIVATE), from_user=User(7, "Ann", False),
        text=text, entities=entities, reply_to_message=reply_to,
    )  # fmt: skip
    message.set_bot(_BOT)  # type: ignore[arg-type]
    return Update(1, message=message)


def _handlers(tmp_path: Path) -> list[BaseHandler[Any, Any, Any]]:
    settings = Settings(_env_file=None, token="1:x", data_dir=tmp_path)  # type: ignore[call-arg]
    app = app_module.build_application(settings)
    return [handler for group in sorted(app.handlers) for handler in app.handlers[group]]


def _first(handlers: list[BaseHandler[Any, Any, Any]], update: Update) -> Callable[..., Any]:
    """The callback of the first handler that takes ``update`` (as PTB tries them)."""
    for handler in handlers:
        if not isinstance(handler, CommandHandler | MessageHandler):
            continue
        if handler.check_update(update):
            return handler.callback
    raise AssertionError("no handler takes it")


def test_the_registered_challenge_words_are_the_registrys(
    tmp_path: Path, second: Benchmark
) -> None:
    handlers = _handlers(tmp_path)
    words = {b.challenge.command for b in challenges.benchmarks() if b.challenge}
    assert words == {"natory", "countdown"}
    for callback in (ch.on_challenge, ah.on_challenge_set):
        registered = {
            word
            for handler in handlers
            if isinstance(handler, CommandHandler) and handler.callback is callback
            for word in handler.commands
        }
        assert registered == words, callback


@pytest.mark.parametrize("word", ["natory", "countdown"])
def test_each_challenge_word_is_routed_to_its_benchmark(
    tmp_path: Path, second: Benchmark, word: str
) -> None:
    handlers = _handlers(tmp_path)
    benchmark = challenges.by_command(word)
    assert benchmark is not None and benchmark.challenge is not None
    assert benchmark.challenge.command == word
    for text, callback in (
        (f"/{word}", ch.on_challenge),
        (f"/{word} models", ch.on_challenge),
        (f"/{word} set 7777", ah.on_challenge_set),
        (f"/leaderboard {word} 12", ch.on_challenge_leaderboard),
        (f"/top {word}", ch.on_challenge_leaderboard),
        (f"/compare {word}", ch.on_compare),
    ):
        update = _update(text)
        assert _first(handlers, update) is callback, text
        assert update.message is not None
    assert ch.command_of(_update(f"/{word}@bench_bot today").message) is benchmark  # type: ignore[arg-type]
    assert ch.command_of(_update(f"/board {word}").message, 1) is benchmark  # type: ignore[arg-type]
    assert challenges.compared([word]) is benchmark
    # the challenge's message ends with its target line; a reply to it is an attempt
    asked = Message(
        3, datetime.now(UTC), Chat(7, Chat.PRIVATE), from_user=User(9, "bot", True),
        text=f"Target: 12\n#{word} target: 12",
    )  # fmt: skip
    reply = _update("3*4", reply_to=asked)
    assert _first(handlers, reply) is ch.on_challenge_reply
    assert ch.target_of(asked) == (benchmark, 12)


def test_other_words_are_not_challenges(tmp_path: Path, second: Benchmark) -> None:
    handlers = _handlers(tmp_path)
    assert challenges.by_command("primebench") is None
    assert _first(handlers, _update("/leaderboard primebench")) is not ch.on_challenge_leaderboard
    assert _first(handlers, _update("/primebench")) is not ch.on_challenge
    assert challenges.compared(["primebench"]) is None

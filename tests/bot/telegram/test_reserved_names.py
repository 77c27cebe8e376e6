"""The words a benchmark defined by data may not be named (``bot.core.benchmarks``) are
every word the bot's own interfaces give a meaning to where a benchmark's name stands:
the commands the Application registers, the command line's commands, inline mode's
keyword and the web's paths beside ``/b/NAME``. A command added to any of them without
its word reserved fails here."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from telegram.ext import CommandHandler

from bot import cli
from bot.core import challenges, sharing
from bot.core.benchmarks import CHAT_COMMANDS, CLI_COMMANDS, INLINE_WORDS, check_name
from bot.settings import Settings
from bot.telegram import app as app_module
from bot.web import server
from scoring.errors import DefinitionError


def _challenge_words() -> set[str]:
    return {challenges.spec(b).command for b in challenges.benchmarks()}


def test_every_registered_command_is_reserved(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, token="1:x", data_dir=tmp_path)  # type: ignore[call-arg]
    application = app_module.build_application(settings)
    commands = {
        command
        for group in application.handlers.values()
        for handler in group
        if isinstance(handler, CommandHandler)
        for command in handler.commands
    }
    assert "top" in commands and "leaderboard" in commands  # read right
    assert commands - _challenge_words() == set(CHAT_COMMANDS)


def test_every_command_line_command_is_reserved() -> None:
    parser = cli.build_parser()
    (commands,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    words = set(commands.choices)
    assert "score" in words  # read right
    assert words - _challenge_words() == set(CLI_COMMANDS)
    assert set(cli.COMMANDS) == set(CLI_COMMANDS)


def test_inline_modes_keyword_is_reserved() -> None:
    assert sharing.TOP_WORD in INLINE_WORDS


def test_no_fixed_web_path_stands_beside_a_board() -> None:
    """``/b/NAME`` has no fixed sibling (a path such as ``/b/compare`` would need its
    word reserved): every route under ``/b/`` starts with the name's pattern."""
    state: Any = SimpleNamespace(services=SimpleNamespace(settings=Settings(_env_file=None)))  # type: ignore[call-arg]
    patterns = [route[0] for route in server.routes(state)]
    boards = [p for p in patterns if p.startswith("/b/")]
    assert len(boards) >= 4  # read right
    name = re.escape("/b/" + server._NAME)
    assert all(re.match(name, p) for p in boards), boards


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("top", "'top' is the bot's own word: inline mode's keyword (@bot top) and a command"),
        ("help", "'help' is the bot's own word: a command (/help)"),
        ("eval", "'eval' is the bot's own word: a command-line command (benchboard eval)"),
        ("score", "a command (/score) and a command-line command (benchboard score)"),
    ],
)
def test_a_reserved_name_is_refused_naming_where_it_is_used(name: str, said: str) -> None:
    with pytest.raises(DefinitionError) as refused:
        check_name(name)
    assert refused.value.field == "name" and said in str(refused.value)
    assert "\n" not in str(refused.value)


def test_other_names_pass() -> None:
    for name in ("tinymcq", "toppers", "helpful", "mmlu", "scores"):
        check_name(name)

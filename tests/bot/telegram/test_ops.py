"""Operations code: JSON log lines, token redaction."""

from __future__ import annotations

import json
import logging

from bot.telegram import ops


def test_json_formatter_keeps_extra_fields() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "update %s", (7,), None)
    record.update_id = 7
    line = json.loads(ops.JsonFormatter().format(record))
    assert line["msg"] == "update 7"
    assert line["update_id"] == 7
    assert line["level"] == "INFO"


def test_token_is_redacted_from_any_log_line() -> None:
    token = "123456:SECRET-token"
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "GET /bot%s/getMe", (token,), None)
    assert ops.RedactToken(token).filter(record)
    assert token not in record.getMessage()
    assert "<token>" in record.getMessage()


def test_the_marked_updates_are_bounded() -> None:
    """Errors reported after their update's handling ended leave marks: the oldest go."""
    from types import SimpleNamespace
    from typing import Any, cast

    from telegram import Update

    bot_data: dict[Any, Any] = {}
    context = cast(ops.BotContext, SimpleNamespace(bot_data=bot_data))
    for update_id in range(ops.MARKED_MAX + 50):
        ops.mark_failed(context, Update(update_id))
        ops.mark_transient(context, Update(update_id))
    for name in (ops._FAILED, ops._TRANSIENT):
        assert len(bot_data[name]) == ops.MARKED_MAX
        assert 49 not in bot_data[name] and ops.MARKED_MAX + 49 in bot_data[name]
    assert ops._take(bot_data, ops._FAILED, ops.MARKED_MAX + 49)
    assert not ops._take(bot_data, ops._FAILED, ops.MARKED_MAX + 49)

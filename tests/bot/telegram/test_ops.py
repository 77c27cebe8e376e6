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

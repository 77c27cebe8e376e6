"""The mark of a run by Benchboard in what the web and the chat render."""

from __future__ import annotations

import pytest

from bot.render.i18n import t
from bot.web import pages


def test_the_web_board_filters_on_the_benchboard_mark() -> None:
    assert pages.board_query("primebench", {"mark": "benchboard"}).mark == "benchboard"
    same = pages.board_query("primebench", {"mark": "verified"})
    assert same.verified and same.mark == ""
    with pytest.raises(pages.BadRequest):
        pages.board_query("primebench", {"mark": "mine"})
    q = pages.board_query("primebench", {"mark": "benchboard"})
    assert "mark=benchboard" in pages.board_params(q, None)


def test_the_mark_reads_run_by_benchboard_in_both_languages() -> None:
    assert t("en", "web_mark_benchboard") == "🤖 run by Benchboard"
    assert "🤖" in t("fa", "web_mark_benchboard") and "🤖" in t("fa", "card_benchboard")

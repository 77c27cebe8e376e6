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


def test_the_admins_daily_cost_report() -> None:
    from bot.render.run_cards import cost_report

    text = cost_report(
        "en",
        "2026-12-01",
        [("daily", "local/m1", 2, 0.0123, 0), ("chat", "x/y", 3, 0.5, 1)],
    )
    assert text.splitlines() == [
        "🤖 Runs by Benchboard on 2026-12-01:",
        "• local/m1 (daily): 2 attempts, $0.0123",
        "• x/y (chat): 3 attempts, $0.5 (1 of them without a cost reported by its provider)",
        "Total: $0.5123",
    ]
    assert cost_report("fa", "2026-12-01", []).splitlines()[-1] == "اجرایی نبود."

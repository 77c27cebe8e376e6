"""render_board (pure) over a page as bot.core.boards places it: reported results beside
their submitted row, never ranked; the re-scoring notice; the key version."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.core.boards import place_references
from bot.render.boards import render_board
from bot.render.views import BoardPage, BoardQuery
from scoring import registry
from storage import Board, BoardRow

AT = datetime(2026, 3, 1, tzinfo=UTC)


def _row(rank: int, model: str, mode: str, best: float, *, reported: bool = False) -> BoardRow:
    return BoardRow(
        rank=rank, model=model, mode=mode, best=best, runs=1, mean=best,
        submission_id=None if reported else rank, user_id=None if reported else 1,
        first_at=AT, last_at=AT, verified=False, reported=reported,
        source="authors" if reported else None,
    )  # fmt: skip


def _page(board: Board) -> BoardPage:
    reported, apart = place_references(board)
    query = BoardQuery("primebench", "g", None, 0, 0)
    return BoardPage(query, registry.get("primebench"), board, 1, reported, apart)


def _render(board: Board) -> list[str]:
    return render_board(_page(board), lang="en").splitlines()


def test_a_reported_result_sits_beside_its_submitted_row_never_ranked() -> None:
    board = Board(
        rows=(_row(1, "Small", "default", 12), _row(2, "Jibay 5 High", "think_tools", 9)),
        total=2,
        key_version=3,
        references=(
            _row(1, "jibay 5  high", "think_tools", 18, reported=True),
            _row(2, "Other", "think", 17, reported=True),
        ),
    )
    lines = _render(board)
    assert "1. Small · default · +12 (1 run, mean +12)" in lines
    # The reported +18 is above the submitted +9 but does not outrank anything: beside.
    assert "2. Jibay 5 High · think & tools · +9 (1 run, mean +9) · reported +18" in lines
    # Unmatched reported results are listed apart, after the ranked rows.
    assert "• Other · think · +17 (reported)" in lines
    assert not any(line.startswith("• jibay") for line in lines)
    assert lines.index("• Other · think · +17 (reported)") > lines.index(
        "2. Jibay 5 High · think & tools · +9 (1 run, mean +9) · reported +18"
    )
    assert "Scored against key version 3." in lines
    assert not any("Re-scoring" in line for line in lines)


def test_the_board_says_when_a_rescore_is_running() -> None:
    board = Board(rows=(_row(1, "A", "default", 1),), total=1, key_version=4, rescoring=True)
    lines = _render(board)
    assert "Scored against key version 4." in lines
    assert "Re-scoring against key version 4 is in progress: scores may still change." in lines
    fa = render_board(_page(board), lang="fa")
    assert "امتیازدهی دوباره با نسخه‌ی ۴ کلید در جریان است" in fa

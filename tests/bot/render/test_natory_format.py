"""The pure parts of the Natory/ZeroBench bot features: score formatting, cost and
latency parsing, board rendering, the /natory message and its target line."""

from __future__ import annotations

import re

import pytest

from bot.core.tags import split_tags
from bot.render.boards import (
    board_cells_text,
    format_cost,
    format_latency,
    render_challenge,
    render_challenge_board,
)
from bot.render.charts import challenge_points
from bot.render.fields import prose
from bot.render.format import fits
from bot.telegram.challenge_handlers import TARGET_LINE
from scoring import OptionError, registry
from scoring.options import parse_cost, parse_latency
from storage.analytics import ChallengeBoard, ChallengeRow

NATORY = registry.get("natory")


@pytest.mark.parametrize(
    ("benchmark", "value", "mean", "shown"),
    [
        ("primebench", 18.0, False, "+18"),
        ("primebench", -71.0, False, "-71"),
        ("primebench", 0.0, False, "+0"),
        ("primebench", 45.0, True, "+45"),
        ("primebench", 12.3456, True, "12.3"),
        ("zerobench", 0.119, False, "11.9%"),
        ("zerobench", 0.0, False, "0.0%"),
        ("zerobench", 1.0, False, "100.0%"),
        ("zerobench", 2 / 3, True, "66.7%"),
        ("natory", 133.0, False, "133"),
        ("natory", 0.0, False, "0"),
        ("natory", 66.5, True, "66.5"),
        ("natory", 66.0, True, "66"),
    ],
)
def test_format_score_per_benchmark(benchmark: str, value: float, mean: bool, shown: str) -> None:
    assert registry.get(benchmark).format_score(value, mean=mean) == shown


def test_cost_and_latency_shown() -> None:
    assert format_cost(0.012) == "$0.012"
    assert format_cost(None) == "—"
    assert format_latency(3.2) == "3.2s"
    assert format_latency(0.45) == "0.45s"  # one unit on a board: seconds
    assert format_latency(None) == "—"


@pytest.mark.parametrize(
    ("text", "usd"),
    [("0.012", 0.012), ("$0.012", 0.012), ("0.5 USD", 0.5), ("0", 0.0), (".25", 0.25),
     ("۰٫۵", 0.5)],
)  # fmt: skip
def test_parse_cost(text: str, usd: float) -> None:
    assert parse_cost(text) == pytest.approx(usd)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("3.2s", 3.2), ("3200ms", 3.2), ("3.2", 3.2), ("12 sec", 12.0), ("0", 0.0),
     ("450 ms", 0.45), ("2 seconds", 2.0)],
)  # fmt: skip
def test_parse_latency(text: str, seconds: float) -> None:
    assert parse_latency(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["-1", "abc", "1e3", "nan", "inf", "", "1.2.3", "$-3", "10^9"])
def test_bad_cost_is_refused(text: str) -> None:
    with pytest.raises(OptionError):
        parse_cost(text)


@pytest.mark.parametrize("text", ["-3s", "fast", "3h", "3.2 s s", "", "1e3ms", "99999999"])
def test_bad_latency_is_refused(text: str) -> None:
    with pytest.raises(OptionError):
        parse_latency(text)


def test_tag_lines_carry_cost_and_latency_as_typed() -> None:
    body, tags = split_tags("#natory\nmodel: M\ncost: 0.012\nlatency: 3200ms\n2*5^5+6")
    assert tags.fields == {"cost": "0.012", "latency": "3200ms"}
    assert body.strip() == "2*5^5+6"


def test_zerobench_board_cells_from_the_record() -> None:
    zerobench = registry.get("zerobench")
    record = {
        "k": 5,
        "primary_split": "zerobench",
        "main": {"pass_at_k": 0.2, "reliability_k_of_k": 0.05},
        "subquestions": {"pass_at_k": 0.5, "reliability_k_of_k": 0.25},
    }
    assert board_cells_text(zerobench, record) == " · pass@5 20.0% · 5/5 5.0%"
    sub_only = {**record, "primary_split": "zerobench_subquestions"}
    assert board_cells_text(zerobench, sub_only) == " · pass@5 50.0% · 5/5 25.0%"
    assert board_cells_text(zerobench, {}) == ""


def _row(rank: int, model: str, **kw: object) -> ChallengeRow:
    values: dict[str, object] = {
        "rank": rank, "model": model, "mode": "default", "best": 133.0, "mean": 66.5,
        "attempts": 2, "valid": 1, "targets": 1, "mean_cost": 0.012, "mean_latency": 3.2,
        "best_id": rank, "best_expression": "2 * sopfr(6)^5 + 6",
    }  # fmt: skip
    values.update(kw)
    return ChallengeRow(**values)  # type: ignore[arg-type]


def test_target_board_rendering_escapes_and_shows_cost_latency() -> None:
    board = ChallengeBoard(6256, (_row(1, "<GPT & co>"), _row(2, "b", mean_cost=None)), 2)
    text = render_challenge_board(NATORY, "natory", board, lang="en")
    lines = text.splitlines()
    assert "target 6256" in lines[0]
    assert (
        "1. &lt;GPT &amp; co&gt; · default · best 133 · mean 66.5 · 2 attempts · $0.012 · 3.2s"
        in lines
    )
    assert "   <code>2 * sopfr(6)^5 + 6</code>" in lines
    assert "2. b · default · best 133 · mean 66.5 · 2 attempts · — · 3.2s" in lines
    persian = render_challenge_board(NATORY, "natory", board, lang="fa")
    assert "بهترین ۱۳۳" in persian and "&lt;GPT" in persian
    assert "\u2066۶۶٫۵\u2069" in persian  # the mean: Persian digits, left to right


def test_model_board_rendering_and_empty_board() -> None:
    board = ChallengeBoard(None, (_row(1, "m", targets=3, attempts=7),), 1)
    text = render_challenge_board(NATORY, "natory", board, lang="en", targets=[(6256, 5), (13, 2)])
    assert "1. m · default · mean 66.5 · best 133 · 7 attempts on 3 targets" in text
    assert "6256 (5), 13 (2)" in text
    empty = render_challenge_board(NATORY, "natory", ChallengeBoard(5, (), 0), lang="en")
    assert "No published results yet" in empty


def test_long_boards_fit_one_message() -> None:
    rows = tuple(_row(i, "x" * 300, best_expression="y" * 900) for i in range(1, 21))
    assert fits(render_challenge_board(NATORY, "natory", ChallengeBoard(6256, rows, 20), lang="fa"))


def test_challenge_message_ends_with_the_target_line() -> None:
    for lang in ("en", "fa"):
        text = render_challenge(
            lang,
            command="natory",
            title="Natory",
            target=6256,
            allowed="2, 5, 6",
            digits="2 5 6 6",
            day="2026-03-01",
        )
        assert "6256" in text and "2, 5, 6" in text
        plain = re.sub(r"<[^>]+>", "", text)
        match = TARGET_LINE.search(plain)
        assert match and (match[1], match[2]) == ("natory", "6256")


def test_natory_points_label_model_and_mode() -> None:
    points = challenge_points([_row(1, "m", mode="think")])
    assert points[0].model == "m · think" and points[0].mean_score == 66.5
    assert points[0].mean_cost == 0.012 and points[0].attempts == 2


@pytest.mark.parametrize(
    ("target", "expression", "en", "fa"),
    [
        (b"24", "4!", "factorial", "فاکتوریل"),
        (b"625", "5^(2+2)", "perfect power", "توان کامل"),
        (b"23", "p_n(3*3)", "prime", "عدد اول"),
    ],
)
def test_the_special_number_bonus_is_named_in_the_readers_language(
    target: bytes, expression: str, en: str, fa: str
) -> None:
    natory = registry.get("natory")
    result = natory.score(expression, natory.load_key(target))
    assert result.special_number_key
    natory_prose = result.card().prose
    english = "\n".join(prose("en", natory, natory_prose))
    persian = "\n".join(prose("fa", natory, natory_prose))
    assert en in english and en not in persian and fa in persian
    assert result.special_number_key[0] not in persian

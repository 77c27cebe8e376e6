"""A benchmark the bot has never heard of, defined here: its card, its reply, its web
row and its result page come out right in English and Persian from what it declares
(fields with kinds), with no code in ``bot/`` knowing it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

import pytest

from bot.core import webboards
from bot.render.card_views import ResultCardView, plain, result_card_text
from bot.render.fields import plain_number, write
from bot.render.format import render_result, render_score_reply
from bot.render.webviews import WebResult
from bot.web.pages import result_page
from scoring import Benchmark, Hint, InvalidLine, KeyCheck, Source, WebCells, WebColumn
from scoring.base import (
    BEST,
    COUNT,
    MEAN,
    MONEY,
    NAMES,
    PERCENT,
    POINTS,
    SCORE,
    SECONDS,
    TEXT,
    Bar,
    Card,
    Field,
    Note,
    Reason,
    Segment,
    Shown,
    percent_of,
)
from scoring.runs import RunMaterials, RunPlan, RunRefused
from storage import BoardRow

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

# labels are message ids; the catalogues have these, and "field_no_such" falls back
SOLVED = Field("solved", COUNT, "field_correct")
MISSED = Field("missed", COUNT, "field_wrong")
BONUS = Field("bonus", POINTS, "field_eleganceBonus")
SHARE = Field("share", PERCENT, "field_coverage")
COST = Field("cost", MONEY, "web_col_cost")
TIME = Field("time", SECONDS, "web_col_latency")
TOTAL = Field("total", SCORE, "field_final_score")
ANSWER = Field("answer", TEXT, "field_expression")
BADGES = Field("badges", NAMES, "field_specialNumberKey")
ODD = Field("odd", COUNT, "field_no_such")


class QuizResult(NamedTuple):
    solved: int
    missed: int
    reason: Reason | None = None
    benchmark: str = "quizlet"
    invalid_lines: tuple[InvalidLine, ...] = (InvalidLine(3, "<b>prose</b>"),)
    invalid_line_count: int = 1
    hints: tuple[Hint, ...] = (Hint("spaces", "no spaces, please", (3,)),)
    fingerprint: str = "f"

    @property
    def primary(self) -> float:
        return float(2 * self.solved - self.missed)

    def card(self) -> Card:
        summary = (
            Shown(SOLVED, self.solved),
            Shown(MISSED, self.missed),
            Shown(BONUS, -5),
            percent_of(SHARE, self.solved, self.solved + self.missed),
            Shown(COST, 0.012345),
            Shown(TIME, 3.25),
            Shown(TOTAL, self.primary),
            Shown(ANSWER, "a<b"),
            Shown(BADGES, ("gem_prime", "gem_shiny_star")),
            Shown(ODD, -5243420),
        )
        if self.reason is not None:
            prose = (
                Shown(ANSWER, "a<b"),
                Note("natory_invalid", (("error", self.reason),)),
            )
            return Card(summary, prose=prose, target=77)
        bar = Bar(
            (Segment(SOLVED, self.solved, "good"), Segment(MISSED, self.missed, "bad")),
            (Shown(BONUS, 4), Shown(BONUS, -2)),
        )
        return Card(summary, bar=bar, figures=summary[:2], duplicates=(4, 5), duplicate_count=9)

    def to_json(self) -> dict[str, Any]:
        return {}

    def to_record(self) -> dict[str, Any]:
        return {}


class Quizlet:
    name = "quizlet"
    title = "Quizlet"
    scorer_version = "q-1"
    credit = "Quizlet by Someone"
    prompt = ""
    tags: tuple[str, ...] = ("quizlet",)
    key_file: str | None = None
    questions_file: str | None = None
    source: Source | None = None
    essential = False
    daily = False
    tag_fields: tuple[str, ...] = ()
    board_columns: tuple[str, ...] = ()
    recognise_order = 9
    web_columns: tuple[WebColumn, ...] = (
        WebColumn("score", "web_col_score", SCORE),
        WebColumn("solved", "web_col_correct", COUNT),
        WebColumn("share", "web_col_coverage", PERCENT),
        WebColumn("cost", "web_col_cost", MONEY),
        WebColumn("time", "web_col_latency", SECONDS),
        WebColumn("runs", "web_col_runs", COUNT),
        WebColumn("mean", "web_col_mean", MEAN),
    )
    web_paths: tuple[str, ...] = ()
    board_aggregate = BEST
    license = "CC0"
    license_url = "https://example.org/cc0"
    author = "Someone"
    author_url = "https://example.org"
    # an existing Persian text for a hint code, and one for a reason code
    hint_messages: Mapping[str, str] = {"spaces": "hint_q_prefix"}
    reason_messages: Mapping[str, str] = {"empty": "natory_error_empty"}

    def check_key(
        self, data: bytes, *, filename: str = "", questions: bytes | None = None
    ) -> KeyCheck:
        return KeyCheck(data, 0)

    def format_score(self, value: float, *, mean: bool = False) -> str:
        return f"{value:.1f} pts" if mean else f"{value:g} pts"

    def board_cells(self, record: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
        return ()

    def web_cells(self, best: float, fields: Mapping[str, Any]) -> WebCells:
        return {}, {"solved": 7, "share": 0.875, "cost": 0.5, "time": 12.0}

    def options_from_tags(self, fields: Mapping[str, str]) -> dict[str, Any]:
        return {}

    def key_for(self, options: Mapping[str, Any], default: Any) -> tuple[Any, dict[str, Any]]:
        return default, dict(options)

    def load_key(self, data: bytes, *, filename: str = "") -> Any:
        return None

    def recognises(self, text: str) -> bool:
        return False

    def score(self, text: str, key: Any, *, options: Mapping[str, Any] | None = None) -> Any:
        return QuizResult(7, 1)

    def result_from_record(self, data: Mapping[str, Any]) -> Any:
        return QuizResult(7, 1)

    run_version = "quizlet-run-1"
    run_questions_file: str | None = None

    def run_plan(self, materials: RunMaterials, *, attempts: int = 1) -> RunPlan:
        raise RunRefused("no runs", code="no_runs")

    def run_output(self, plan: RunPlan, answers: Sequence[str]) -> str:
        return ""


QUIZLET: Benchmark = Quizlet()


def test_each_kind_is_written_one_way() -> None:
    assert write(COUNT, 1234, lang="fa") == "۱۲۳۴"
    assert write(COUNT, -5243420.0) == "-5243420"  # never -5.24342e+06
    assert write(POINTS, 10) == "+10" and write(POINTS, -5) == "−5" and write(POINTS, 0) == "0"
    assert write(PERCENT, 0.75, of=(3, 4)) == "75.0% (3/4)"
    # Persian: the reader's digits and separators, the percent before its number, the
    # whole a left-to-right isolate (bot.render.bidi)
    assert write(PERCENT, 0.5, lang="fa", of=(1.5, 3)) == "\u2066٪۵۰٫۰ (۱٫۵/۳)\u2069"
    assert write(POINTS, -5, lang="fa") == "\u2066−۵\u2069"
    assert write(PERCENT, None) == "—"
    assert write(MONEY, 0.012) == "$0.012" and write(MONEY, 0.00001234) == "$0.00001234"
    assert write(SECONDS, 3.2) == "3.2 s" and write(SECONDS, 1234.5) == "1230 s"
    assert write(SCORE, 18.0, benchmark=QUIZLET) == "18 pts"
    assert write(MEAN, 18.25, benchmark=QUIZLET) == "18.2 pts"
    assert write(NAMES, ("gem_prime", "gem_perfect_power"), lang="en") == "prime, perfect power"
    assert plain_number(-5243420.0) == "-5243420"


def test_the_reply_lists_the_declared_fields_in_both_languages() -> None:
    result = QuizResult(7, 1)
    english = render_score_reply(
        result, QUIZLET, lang="en", submission_id=5, mode_label=None, model="m", left_today=None
    )
    lines = english.splitlines()
    assert lines[0] == "<b>Quizlet</b>"
    for line in (
        "Correct: 7",
        "Wrong: 1",
        "Advanced operators: −5",
        "Coverage: 87.5% (7/8)",
        "Mean cost: $0.01235",
        "Mean latency: 3.25 s",
        "Final Score: 13 pts",
        "Expression: a&lt;b",  # text from a model is escaped
        "Gems: prime, shiny star",  # a name without a text: its id's words
        "odd: -5243420",  # a label without a text: the field's key
    ):
        assert line in lines, line
    assert "  line 3: &lt;b&gt;prose&lt;/b&gt;" in lines
    assert any("4, 5 … (+7)" in line for line in lines)  # listed of nine counted
    assert "  • no spaces, please" in lines  # English: the scorer's own text
    assert lines[-1] == "Quizlet by Someone"  # its credit
    persian = render_score_reply(
        result, QUIZLET, lang="fa", submission_id=5, mode_label=None, model="m", left_today=None
    )
    assert "درست: ۷" in persian and "پوشش: \u2066٪۸۷٫۵ (۷/۸)\u2069" in persian
    assert "no spaces, please" not in persian and "حرف Q پیش از" in persian  # declared hint


def test_the_command_line_lists_every_field_without_markup() -> None:
    text = render_result(QuizResult(7, 1, reason=Reason("empty", "there is none")), QUIZLET)
    assert "Expression: a<b" in text and "Final Score: 13 pts" in text
    assert "Not valid" not in text  # prose is for the card and the reply


def test_a_reply_in_prose_explains_the_reason_in_the_readers_language() -> None:
    result = QuizResult(7, 1, reason=Reason("empty", "there is none", position=2))
    english = render_score_reply(
        result, QUIZLET, lang="en", submission_id=5, mode_label=None, model="m", left_today=None
    )
    assert "Not valid: there is none" in english and "Correct: 7" not in english
    persian = render_score_reply(
        result, QUIZLET, lang="fa", submission_id=5, mode_label=None, model="m", left_today=None
    )
    assert "there is none" not in persian and "در جایگاه ۳" in persian


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_card_draws_the_declared_bar_and_rank(lang: str) -> None:
    view = ResultCardView(QUIZLET, QuizResult(7, 1), "m", "think", 2, True, None, NOW, lang=lang)
    text = result_card_text(view)
    assert text.benchmark == "Quizlet"
    assert plain(text.score) == ("13 pts" if lang == "en" else "۱۳ pts")
    assert text.bar is not None
    assert text.bar.counts == (7, 1) and text.bar.tones == ("good", "bad")
    if lang == "en":
        assert text.bar.labels == ("Correct", "Wrong")
        assert text.bar.points == "Advanced operators: +4 · Advanced operators: −2"
        assert text.rank == "#2 on the global board"
    else:
        assert text.bar.labels == ("درست", "نادرست")
        assert "\u2066+۴\u2069" in text.bar.points and "\u2066−۲\u2069" in text.bar.points
    invalid = QuizResult(7, 1, Reason("empty", "none"))
    view = ResultCardView(QUIZLET, invalid, "m", None, 4, False, None, NOW, lang=lang)
    prose = result_card_text(view)
    assert prose.bar is None and plain(prose.lines[0]).endswith("a<b")  # no escaping in images
    assert ("77" if lang == "en" else "۷۷") in prose.rank  # among the attempts at its target


def test_a_web_row_writes_each_column_by_its_kind() -> None:
    row = BoardRow(1, "m", "think", 13.0, 3, 11.5, 9, 1, NOW, NOW, True)
    web = webboards.web_row(QUIZLET, row, None, None)
    assert web.cells == {
        "score": "13 pts",
        "solved": "7",
        "share": "87.5%",
        "cost": "$0.5",
        "time": "12 s",
        "runs": "3",
        "mean": "11.5 pts",
    }
    assert web.values["score"] == 13.0 and web.values["share"] == 0.875
    assert [c.label for c in webboards.columns(QUIZLET)][:2] == ["web_col_score", "web_col_correct"]


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_result_page_labels_the_declared_fields(lang: str) -> None:
    result = QuizResult(7, 1)
    found = WebResult(
        token="t", benchmark="quizlet", title="Quizlet", credit="Quizlet by Someone",
        model="m", mode="think", score="13 pts", mark="self", author=None,
        fields=result.card().summary, invalid_lines=(), invalid_count=0, hints=result.hints,
        key_version=None, key_hash=None, scorer_version="q-1", created_at=NOW,
        published_at=NOW, from_group=False, bot_link=None, declared=QUIZLET,
    )  # fmt: skip
    html = result_page(found, lang, True, here="/r/t")
    label = "Coverage" if lang == "en" else "پوشش"
    value = "87.5% (7/8)" if lang == "en" else "٪۸۷٫۵ (۷/۸)"
    assert f'<th scope="row">{label}</th><td><bdi dir="ltr">{value}</bdi></td>' in html
    assert "a&lt;b" in html


@pytest.mark.parametrize("name", ["primebench", "zerobench", "natory"])
def test_the_shipped_benchmarks_label_every_field_in_both_languages(name: str) -> None:
    from bot.render.i18n import translated
    from tests.bot.render.test_cards import _result

    card = _result(name).card()
    fields = [*card.summary, *card.figures, *(s for s in card.prose if isinstance(s, Shown))]
    if card.bar is not None:
        fields += card.bar.points
    for shown in fields:
        assert translated("en", shown.field.label) and translated("fa", shown.field.label), (
            shown.field
        )

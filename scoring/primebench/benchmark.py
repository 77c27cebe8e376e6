"""The registry's PrimeBench object."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..base import (
    BEST,
    CHART_INTERVALS,
    N_,
    About,
    AnswerSet,
    Benchmark,
    ChallengeSpec,
    KeyCheck,
    Note,
    QuestionPoints,
    Result,
    Source,
    WebCells,
    WebColumn,
    counted_points,
)
from ..text import normalise_newlines
from .answers import question_answers
from .dataset import (
    CREDIT,
    KEY_FILE,
    NAME,
    OFFICIAL_QUESTIONS,
    OPTIONS,
    POINTS_CORRECT,
    POINTS_WRONG,
    PROMPT,
    QUESTIONS_FILE,
    SCORER_VERSION,
    SOURCE,
    TITLE,
)
from .key import PrimeKey, check_key, load_key
from .parse import recognises
from .result import (
    WEB_COLUMNS,
    WEB_PATHS,
    PrimeBenchResult,
    format_score,
    result_from_record,
    web_cells,
)
from .scorer import answer_set, score, score_with_answers

if TYPE_CHECKING:
    from ..runs import RunMaterials, RunPlan

#: The message id of each hint code (``scoring.primebench.hints``): one for every
#: benchmark of answer lines ``Q:O``, so a benchmark like PrimeBench may share them.
HINT_MESSAGES = {
    "persian_digits": N_("hint_persian_digits"),
    "fullwidth_colon": N_("hint_fullwidth_colon"),
    "q_prefix": N_("hint_q_prefix"),
    "trailing_period": N_("hint_trailing_period"),
    "markdown_bold": N_("hint_markdown_bold"),
    "bullets": N_("hint_bullets"),
    "markdown_table": N_("hint_markdown_table"),
    "answers_in_prose": N_("hint_answers_in_prose"),
}


class PrimeBench:
    """The registry's PrimeBench object (see :class:`scoring.base.Benchmark`)."""

    name = NAME
    title = TITLE
    scorer_version = SCORER_VERSION
    credit = CREDIT
    prompt = PROMPT
    tags: tuple[str, ...] = (NAME,)
    key_file: str | None = KEY_FILE
    questions_file: str | None = QUESTIONS_FILE
    source: Source | None = SOURCE
    essential = True
    daily = False
    tag_fields: tuple[str, ...] = ()
    board_columns: tuple[str, ...] = ()
    recognise_order = 1
    web_columns: tuple[WebColumn, ...] = WEB_COLUMNS
    web_paths: tuple[str, ...] = WEB_PATHS
    #: Q.json's whole text, then the official prompt, both byte-exact, in one message
    run_version = "primebench-run-1"
    run_questions_file: str | None = QUESTIONS_FILE
    challenge: ChallengeSpec | None = None
    board_aggregate = BEST
    license = "CC BY-ND 4.0"
    license_url = "https://creativecommons.org/licenses/by-nd/4.0/"
    author = "JibayAI"
    author_url = "https://jibay.ir"
    web_chart = CHART_INTERVALS
    hint_messages: Mapping[str, str] = HINT_MESSAGES
    reason_messages: Mapping[str, str] = {}
    has_questions = True

    def about(self) -> About:
        points = (("right", POINTS_CORRECT), ("wrong", POINTS_WRONG), ("none", 0))
        return About(
            Note(N_("about_prime_measures"), (("questions", OFFICIAL_QUESTIONS),)),
            Note(N_("about_rule_points"), (*points, ("options", len(OPTIONS)))),
            (
                (N_("about_link_dataset"), "https://huggingface.co/datasets/JibayAI/PrimeBench"),
                (N_("about_link_author"), "https://jibay.ir"),
            ),
        )

    def recognises(self, text: str) -> bool:
        return recognises(normalise_newlines(text))  # a lone \r breaks a line here

    def question_answers(self, text: str, key: Any) -> Mapping[int, tuple[int | None, int]]:
        return question_answers(normalise_newlines(text), key)

    def load_key(self, data: bytes, *, filename: str = "A.txt") -> PrimeKey:
        return load_key(data, filename=filename)

    def check_key(
        self, data: bytes, *, filename: str = "", questions: bytes | None = None
    ) -> KeyCheck:
        return check_key(data, filename=filename, questions=questions)

    def score(
        self, text: str, key: PrimeKey, *, options: Mapping[str, Any] | None = None
    ) -> PrimeBenchResult:
        return score(text, key)

    def result_from_record(self, data: Mapping[str, Any]) -> PrimeBenchResult:
        return result_from_record(data)

    def answer_set(
        self, text: str, key: PrimeKey, *, options: Mapping[str, Any] | None = None
    ) -> AnswerSet:
        return answer_set(text, key)

    def score_with_answers(
        self, text: str, key: PrimeKey, *, options: Mapping[str, Any] | None = None
    ) -> tuple[PrimeBenchResult, AnswerSet]:
        return score_with_answers(text, key)

    def format_score(self, value: float, *, mean: bool = False) -> str:
        return format_score(value, mean=mean)

    def board_cells(self, record: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
        return ()

    def web_cells(self, best: float, fields: Mapping[str, Any]) -> WebCells:
        return web_cells(best, fields)

    # scoring.runs is imported by the methods that run a model: scoring a file needs none
    def run_plan(self, materials: RunMaterials, *, attempts: int = 1) -> RunPlan:
        from ..runs import BAD_ATTEMPTS, RunRefused, questions_and_prompt, questions_text

        if attempts != 1:
            raise RunRefused(f"a {TITLE} run makes one attempt", code=BAD_ATTEMPTS)
        hint = f"benchboard data fetch {NAME}"
        return questions_and_prompt(
            self.run_version, questions_text(materials, TITLE, hint), PROMPT
        )

    def run_output(self, plan: RunPlan, answers: Sequence[str]) -> str:
        from ..runs import single_answer

        return single_answer(plan, answers)

    def question_points(self, result: Result) -> QuestionPoints | None:
        """+1 for each correct answer, −3 for each wrong one (``POINTS_WRONG``), 0 for
        each other question of the key: the final score is their sum."""
        if not isinstance(result, PrimeBenchResult):
            return None
        return counted_points(
            (
                (result.correct, POINTS_CORRECT),
                (result.wrong, POINTS_WRONG),
                (result.unanswered, 0),
            )
        )

    def options_from_tags(self, fields: Mapping[str, str]) -> dict[str, Any]:
        return {}

    def key_for(self, options: Mapping[str, Any], default: Any) -> tuple[Any, dict[str, Any]]:
        return default, dict(options)


BENCHMARK = PrimeBench()

if TYPE_CHECKING:  # the registry object satisfies the interface
    _CHECKED: Benchmark = BENCHMARK

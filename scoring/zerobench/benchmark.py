"""The registry's ZeroBench object."""

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
from ..errors import OptionError, ScoringError
from .dataset import (
    CREDIT,
    DATASET,
    DEFAULT_K,
    KEY_FILE,
    NAME,
    PROMPT_SUFFIX,
    QUESTIONS_FILE,
    RUN_VERSION,
    SCORER_VERSION,
    SOURCE,
    SPLITS,
    TITLE,
)
from .key import ZeroKey, check_key, load_key
from .result import (
    BOARD_COLUMNS,
    WEB_COLUMNS,
    WEB_PATHS,
    ZeroBenchResult,
    board_cells,
    format_score,
    result_from_record,
    web_cells,
)
from .scorer import k_option, score
from .submission import read_submission, recognises

if TYPE_CHECKING:
    from ..runs import RunMaterials, RunPlan

#: The message id of each hint code (``scoring.zerobench.hints``); its own, as its
#: ``trailing_period`` is not PrimeBench's.
HINT_MESSAGES = {
    "unknown_format": N_("hint_zerobench_unknown_format"),
    "invalid_json": N_("hint_zerobench_invalid_json"),
    "too_deeply_nested": N_("hint_zerobench_too_deeply_nested"),
    "response_not_text": N_("hint_zerobench_response_not_text"),
    "duplicate_ids": N_("hint_zerobench_duplicate_ids"),
    "no_braces": N_("hint_zerobench_no_braces"),
    "braces_across_lines": N_("hint_zerobench_braces_across_lines"),
    "spaces_in_braces": N_("hint_zerobench_spaces_in_braces"),
    "trailing_period": N_("hint_zerobench_trailing_period"),
    "number_format": N_("hint_zerobench_number_format"),
    "nested_braces": N_("hint_zerobench_nested_braces"),
    "earlier_braces": N_("hint_zerobench_earlier_braces"),
    "correct_column_differs": N_("hint_zerobench_correct_column_differs"),
    "no_main_attempts": N_("hint_zerobench_no_main_attempts"),
    "fewer_than_k": N_("hint_zerobench_fewer_than_k"),
    "more_than_k": N_("hint_zerobench_more_than_k"),
}


class ZeroBench:
    """The registry's ZeroBench object (see :class:`scoring.base.Benchmark`)."""

    name = NAME
    title = TITLE
    scorer_version = SCORER_VERSION
    credit = CREDIT
    #: ZeroBench hands out no prompt of its own: its suffix follows each question's text
    prompt = ""
    prompt_suffix = PROMPT_SUFFIX
    tags: tuple[str, ...] = (NAME,)
    key_file: str | None = KEY_FILE
    questions_file: str | None = None
    source: Source | None = SOURCE
    essential = False
    daily = False
    #: ``k: 3`` scores the first three attempts per question (the default is 5)
    tag_fields: tuple[str, ...] = ("k",)
    board_columns: tuple[str, ...] = BOARD_COLUMNS
    #: JSON Lines, JSON and CSV are recognised before loose answer lines
    recognise_order = 0
    web_columns: tuple[WebColumn, ...] = WEB_COLUMNS
    web_paths: tuple[str, ...] = WEB_PATHS
    run_version = RUN_VERSION
    #: the question set with its images (not part of the key; see :mod:`.runs`)
    run_questions_file: str | None = QUESTIONS_FILE
    challenge: ChallengeSpec | None = None
    board_aggregate = BEST
    license = ""
    license_url = ""
    author = "Jonathan Roberts et al."
    author_url = "https://arxiv.org/abs/2502.09696"
    web_chart = CHART_INTERVALS
    hint_messages: Mapping[str, str] = HINT_MESSAGES
    reason_messages: Mapping[str, str] = {}
    has_questions = False  # free answers, no options: no questions page

    def question_answers(self, text: str, key: Any) -> None:
        return None

    def about(self) -> About:
        return About(
            Note(N_("about_zero_measures")),
            Note(N_("about_zero_rule"), (("k", DEFAULT_K),)),
            (
                (N_("about_link_paper"), "https://arxiv.org/abs/2502.09696"),
                (N_("about_link_dataset"), f"https://huggingface.co/datasets/{DATASET}"),
            ),
        )

    def recognises(self, text: str) -> bool:
        return recognises(text)

    def load_key(self, data: bytes, *, filename: str = "") -> ZeroKey:
        return load_key(data, filename=filename)

    def check_key(
        self, data: bytes, *, filename: str = "", questions: bytes | None = None
    ) -> KeyCheck:
        return check_key(data, filename=filename, questions=questions)

    def score(
        self, text: str, key: ZeroKey, *, options: Mapping[str, Any] | None = None
    ) -> ZeroBenchResult:
        return score(text, key, k=k_option(options))

    def score_with_answers(
        self, text: str, key: ZeroKey, *, options: Mapping[str, Any] | None = None
    ) -> tuple[ZeroBenchResult, AnswerSet]:
        return self.score(text, key, options=options), self.answer_set(text, key)

    def answer_set(
        self, text: str, key: ZeroKey, *, options: Mapping[str, Any] | None = None
    ) -> AnswerSet:
        """Free text, compared with the key only: a question agrees when its first
        response is the key's answer itself (in braces or not); the questions are those
        of the splits the submission answers."""
        first: dict[str, str] = {}
        for qid, response, _ in read_submission(text).attempts:
            first.setdefault(qid, response)
        agree = questions = 0
        for split in SPLITS:
            truth = key.split(split)
            if not any(qid in truth for qid in first):
                continue
            questions += len(truth)
            for qid, gt in truth.items():
                given = first.get(qid)
                if given is None:
                    continue
                given = given.strip()
                if given.startswith("{") and given.endswith("}"):
                    given = given[1:-1].strip()
                agree += given == gt.strip()
        return AnswerSet((), (), agree, questions)

    def result_from_record(self, data: Mapping[str, Any]) -> ZeroBenchResult:
        return result_from_record(data)

    def format_score(self, value: float, *, mean: bool = False) -> str:
        return format_score(value, mean=mean)

    def board_cells(self, record: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
        return board_cells(record)

    def web_cells(self, best: float, fields: Mapping[str, Any]) -> WebCells:
        return web_cells(best, fields)

    def question_points(self, result: Result) -> QuestionPoints | None:
        """Each question's pass@1 share over the ranking split (the score is their mean).
        The record keeps counts, not each share: the questions all of whose attempts
        were right count 1, those with none right 0, and the others (right in some
        attempts only) their mean share; with k = 1 that is exact."""
        if not isinstance(result, ZeroBenchResult):
            return None
        split = result.main if result.primary_split == result.main.split else result.sub
        figures = split.official
        n, full = split.questions, figures.reliability_count
        some = figures.pass_at_k_count - full
        share = (figures.pass_at_1_count - full) / some if some > 0 else 0.0
        return counted_points(
            ((full, 1.0), (some, share), (n - full - max(some, 0), 0.0)), mean=True
        )

    def options_from_tags(self, fields: Mapping[str, str]) -> dict[str, Any]:
        if "k" not in fields:
            return {}
        typed = fields["k"]
        try:
            return {"k": k_option({"k": typed})}
        except ScoringError as exc:
            raise OptionError("k", typed, str(exc)) from None

    def key_for(self, options: Mapping[str, Any], default: Any) -> tuple[Any, dict[str, Any]]:
        return default, dict(options)

    # .runs (and scoring.runs) is imported by the methods that run a model: scoring a
    # file needs neither
    def run_plan(self, materials: RunMaterials, *, attempts: int = 1) -> RunPlan:
        from . import runs

        return runs.run_plan(materials, attempts)

    def run_output(self, plan: RunPlan, answers: Sequence[str]) -> str:
        from . import runs

        return runs.run_output(plan, answers)


BENCHMARK = ZeroBench()

if TYPE_CHECKING:  # the registry object satisfies the interface
    _CHECKED: Benchmark = BENCHMARK

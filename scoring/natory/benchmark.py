"""The registry's Natory object: what the bot asks of Natory, and its options."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..base import (
    ATTEMPTS,
    CHART_FRONT,
    COUNT,
    MEAN,
    MONEY,
    N_,
    SCORE,
    SECONDS,
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
)
from ..errors import KeyFormatError, OptionError
from ..options import parse_cost, parse_latency
from ..runs import BAD_ATTEMPTS, RunMaterials, RunPlan, RunRefused, single_answer
from ..text import decode, normalise_newlines
from . import runs
from .challenge import CHALLENGE
from .result import CREDIT, NAME, SCORER_VERSION, TITLE, NatoryResult, result_from_record
from .scorer import Challenge, parse_target, recognises, score

#: The largest target a ``target:`` tag may name (twelve digits).
_MAX_TAG_TARGET = 10**12


def target_option(typed: str) -> int:
    """The target a ``target:`` tag names; :class:`OptionError` unless a whole number
    from 1 to 999,999,999,999."""
    digits = typed.strip()
    # the length first: int() of thousands of digits is an error (and slow before that)
    if (
        not (digits.isascii() and digits.isdigit())
        or len(digits.lstrip("0")) > len(str(_MAX_TAG_TARGET - 1))
        or int(digits) == 0
    ):
        shown = digits if len(digits) <= 30 else digits[:27] + "..."
        raise OptionError(
            "target",
            shown,
            f"the target must be a positive whole number such as 6256, not {shown!r}",
        )
    return int(digits)


#: The message id of each reason an expression is not valid
#: (``scoring.errors.ExpressionError.code``).
REASON_MESSAGES = {
    "nth_root": N_("natory_error_nth_root"),
    "latex_command": N_("natory_error_latex_command"),
    "backslash": N_("natory_error_backslash"),
    "superscript": N_("natory_error_superscript"),
    "not_ascii": N_("natory_error_not_ascii"),
    "one_only": N_("natory_error_one_only"),
    "unexpected_char": N_("natory_error_unexpected_char"),
    "unknown_name": N_("natory_error_unknown_name"),
    "too_nested": N_("natory_error_too_nested"),
    "too_deep": N_("natory_error_too_deep"),
    "unclosed": N_("natory_error_unclosed"),
    "unclosed_end": N_("natory_error_unclosed_end"),
    "ends_early": N_("natory_error_ends_early"),
    "unexpected": N_("natory_error_unexpected"),
    "unexpected_end": N_("natory_error_unexpected_end"),
    "too_long": N_("natory_error_too_long"),
    "empty": N_("natory_error_empty"),
    "unmatched_close": N_("natory_error_unmatched_close"),
    "missing_operator": N_("natory_error_missing_operator"),
    "too_many_bits": N_("natory_error_too_many_bits"),
    "not_whole": N_("natory_error_not_whole"),
    "numeral_too_big": N_("natory_error_numeral_too_big"),
    "division_by_zero": N_("natory_error_division_by_zero"),
    "mod_by_zero": N_("natory_error_mod_by_zero"),
    "factorial_negative": N_("natory_error_factorial_negative"),
    "factorial_limit": N_("natory_error_factorial_limit"),
    "pn_positive": N_("natory_error_pn_positive"),
    "pn_limit": N_("natory_error_pn_limit"),
    "zero_to_zero": N_("natory_error_zero_to_zero"),
    "zero_negative_power": N_("natory_error_zero_negative_power"),
    "power_too_big": N_("natory_error_power_too_big"),
    "negative_root": N_("natory_error_negative_root"),
    "irrational_power": N_("natory_error_irrational_power"),
    "sqrt_negative": N_("natory_error_sqrt_negative"),
    "sqrt_irrational": N_("natory_error_sqrt_irrational"),
    "sopfr_positive": N_("natory_error_sopfr_positive"),
    "sopfr_budget": N_("natory_error_sopfr_budget"),
    "digit_not_allowed": N_("natory_error_digit_not_allowed"),
    "not_target": N_("natory_error_not_target"),
}
#: The message id of each hint code.
HINT_MESSAGES = {
    "natory_extracted": N_("hint_natory_extracted"),
    "natory_trivial": N_("hint_natory_trivial"),
    "natory_target_itself": N_("hint_natory_target_itself"),
    "natory_extra_digits": N_("hint_natory_extra_digits"),
}


def format_score(value: float, *, mean: bool = False) -> str:
    """A whole number (``133``); a mean keeps one decimal (``66.5``)."""
    if value == int(value):
        return str(int(value))
    return f"{value:.1f}" if mean else str(round(value))


class Natory:
    """The registry's Natory object (see :class:`scoring.base.Benchmark`).

    The "key" is the challenge: ``load_key(b"6256")``, or the day's. ``options`` may
    carry ``target`` (the challenge's target), ``cost`` and ``latency`` (kept with the
    submission, never scored) and ``previous`` (simplified expressions already stored
    for the target, for uniqueResultBonus).
    """

    name = NAME
    title = TITLE
    scorer_version = SCORER_VERSION
    credit = CREDIT
    prompt = ""
    tags: tuple[str, ...] = (NAME,)
    key_file: str | None = None
    questions_file: str | None = None
    source: Source | None = None
    essential = False
    daily = True
    tag_fields: tuple[str, ...] = ("target", "cost", "latency")
    board_columns: tuple[str, ...] = ()
    recognise_order = 2
    #: the web board is the model comparison over the attempts at every target (mean and
    #: best score, attempts, mean cost and latency), drawn from its own board
    web_columns: tuple[WebColumn, ...] = (
        WebColumn("mean", N_("web_col_mean"), MEAN),
        WebColumn("score", N_("web_col_best"), SCORE),
        WebColumn("attempts", N_("web_col_attempts"), COUNT),
        WebColumn("cost", N_("web_col_cost"), MONEY),
        WebColumn("latency", N_("web_col_latency"), SECONDS),
    )
    web_paths: tuple[str, ...] = ()
    #: the challenge's target with its digits and rules, in a fixed instruction
    run_version = runs.RUN_VERSION
    run_questions_file: str | None = None
    challenge: ChallengeSpec | None = CHALLENGE
    board_aggregate = ATTEMPTS
    license = ""
    license_url = ""
    #: the game's author (its rules as published; no name or address is given)
    author = "the Natory game's author"
    author_url = ""
    web_chart = CHART_FRONT
    hint_messages: Mapping[str, str] = HINT_MESSAGES
    reason_messages: Mapping[str, str] = REASON_MESSAGES
    has_questions = False  # one expression per target: no questions

    def question_answers(self, text: str, key: Any) -> None:
        return None

    def about(self) -> About:
        return About(
            Note(N_("about_natory_measures")),
            Note(N_("about_natory_rule"), (("version", SCORER_VERSION),)),
        )

    def recognises(self, text: str) -> bool:
        return recognises(normalise_newlines(text))  # a lone \r breaks a line here

    def load_key(self, data: bytes, *, filename: str = "") -> Challenge:
        return parse_target(decode(data))

    def check_key(
        self, data: bytes, *, filename: str = "", questions: bytes | None = None
    ) -> KeyCheck:
        raise KeyFormatError(f"{TITLE} takes no key file: its key is the day's target")

    def score(
        self, text: str, key: Challenge, *, options: Mapping[str, Any] | None = None
    ) -> NatoryResult:
        previous = (options or {}).get(CHALLENGE.previous_option)
        return score(normalise_newlines(text), key, previous=previous)

    def answer_set(
        self, text: str, key: Challenge, *, options: Mapping[str, Any] | None = None
    ) -> AnswerSet | None:
        return None  # a challenge has no answer key to copy

    def score_with_answers(
        self, text: str, key: Challenge, *, options: Mapping[str, Any] | None = None
    ) -> tuple[NatoryResult, AnswerSet | None]:
        return self.score(text, key, options=options), None

    def result_from_record(self, data: Mapping[str, Any]) -> NatoryResult:
        return result_from_record(data)

    def format_score(self, value: float, *, mean: bool = False) -> str:
        return format_score(value, mean=mean)

    def board_cells(self, record: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
        return ()

    def web_cells(self, best: float, fields: Mapping[str, Any]) -> WebCells:
        return {}, {}

    def question_points(self, result: Result) -> QuestionPoints | None:
        """None: an attempt is one expression, not a set of questions (a board line's
        interval is over its attempts)."""
        return None

    def options_from_tags(self, fields: Mapping[str, str]) -> dict[str, Any]:
        options: dict[str, Any] = {}
        if "target" in fields:
            options["target"] = target_option(fields["target"])
        if "cost" in fields:
            options["cost"] = parse_cost(fields["cost"])
        if "latency" in fields:
            options["latency"] = parse_latency(fields["latency"])
        return options

    def key_for(self, options: Mapping[str, Any], default: Any) -> tuple[Any, dict[str, Any]]:
        """The challenge of ``options["target"]``, else ``default`` (the day's); the
        options carry the target either way."""
        target = options.get("target")
        key = default if target is None else self.load_key(str(target).encode())
        rest = {name: value for name, value in options.items() if name != "target"}
        return key, {"target": key.target, **rest}

    def run_plan(self, materials: RunMaterials, *, attempts: int = 1) -> RunPlan:
        if attempts != 1:
            raise RunRefused(f"a {TITLE} run makes one attempt", code=BAD_ATTEMPTS)
        return runs.run_plan(materials)

    def run_output(self, plan: RunPlan, answers: Sequence[str]) -> str:
        return single_answer(plan, answers)


BENCHMARK = Natory()

if TYPE_CHECKING:  # the registry object satisfies the interface
    _CHECKED: Benchmark = BENCHMARK

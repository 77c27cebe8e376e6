"""The registry's Natory object: what the bot asks of Natory, and its options."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..base import Benchmark, ChallengeSpec, KeyCheck, Source, WebCells, WebColumn
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
    #: the web board of a benchmark with costs is the model comparison (mean and best
    #: score, attempts, cost, latency), drawn from its own board, not from records
    web_columns: tuple[WebColumn, ...] = (WebColumn("score", "best"),)
    web_paths: tuple[str, ...] = ()
    #: the challenge's target with its digits and rules, in a fixed instruction
    run_version = runs.RUN_VERSION
    run_questions_file: str | None = None
    challenge: ChallengeSpec | None = CHALLENGE

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

    def result_from_record(self, data: Mapping[str, Any]) -> NatoryResult:
        return result_from_record(data)

    def format_score(self, value: float, *, mean: bool = False) -> str:
        return format_score(value, mean=mean)

    def board_cells(self, record: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
        return ()

    def web_cells(self, best: float, fields: Mapping[str, Any]) -> WebCells:
        return {}, {}

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

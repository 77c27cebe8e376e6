"""The frozen result: figures per split and rule, and the whole breakdown."""

import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from ..base import (
    COUNT,
    MEAN,
    N_,
    PERCENT,
    SCORE,
    Card,
    Field,
    Hint,
    InvalidLine,
    Shown,
    WebCells,
    WebColumn,
    percent_text,
    record_number,
    worked_out,
)
from .check import LENIENT_NOTE
from .dataset import MAIN_SPLIT, NAME, SCORER_VERSION, SUB_SPLIT


def _fraction(count: float, total: int) -> float | None:
    return count / total if total else None


class Figures(NamedTuple):
    """pass@1, pass@k and k/k reliability over one split, under one rule."""

    correct_attempts: int
    pass_at_1_count: float
    pass_at_k_count: int
    reliability_count: int
    questions: int
    #: pass@1 as the correctly rounded exact ratio (sum of shares / questions)
    exact_pass_at_1: float | None = None

    @property
    def pass_at_1(self) -> float | None:
        if self.exact_pass_at_1 is not None:
            return self.exact_pass_at_1
        return _fraction(self.pass_at_1_count, self.questions)

    @property
    def pass_at_k(self) -> float | None:
        return _fraction(self.pass_at_k_count, self.questions)

    @property
    def reliability(self) -> float | None:
        return _fraction(self.reliability_count, self.questions)

    def to_json(self) -> dict[str, Any]:
        return {
            "correct_attempts": self.correct_attempts,
            "pass_at_1": self.pass_at_1,
            "pass_at_1_count": self.pass_at_1_count,
            "pass_at_k": self.pass_at_k,
            "pass_at_k_count": self.pass_at_k_count,
            "reliability_k_of_k": self.reliability,
            "reliability_k_of_k_count": self.reliability_count,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], questions: int) -> "Figures":
        return cls(
            correct_attempts=data["correct_attempts"],
            pass_at_1_count=data["pass_at_1_count"],
            pass_at_k_count=data["pass_at_k_count"],
            reliability_count=data["reliability_k_of_k_count"],
            questions=questions,
            exact_pass_at_1=data["pass_at_1"],
        )


class SplitResult(NamedTuple):
    """One split of the key: how many questions, attempts, and the figures."""

    split: str
    questions: int
    attempts: int
    attempts_scored: int
    official: Figures
    lenient: Figures
    unattempted: tuple[str, ...]
    fewer_than_k: tuple[str, ...]

    @property
    def attempted(self) -> int:
        return self.questions - len(self.unattempted)

    def to_json(self) -> dict[str, Any]:
        official = self.official.to_json()
        lenient = self.lenient.to_json()
        return {
            "split": self.split,
            "questions": self.questions,
            "attempted": self.attempted,
            "unattempted": len(self.unattempted),
            "unattempted_ids": list(self.unattempted),
            "attempts": self.attempts,
            "attempts_scored": self.attempts_scored,
            "attempts_beyond_k": self.attempts - self.attempts_scored,
            **official,
            "fewer_than_k": list(self.fewer_than_k),
            "fewer_than_k_count": len(self.fewer_than_k),
            "lenient": {"note": LENIENT_NOTE, **lenient},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "SplitResult":
        questions = data["questions"]
        return cls(
            split=data["split"],
            questions=questions,
            attempts=data["attempts"],
            attempts_scored=data["attempts_scored"],
            official=Figures.from_json(data, questions),
            lenient=Figures.from_json(data["lenient"], questions),
            unattempted=tuple(data["unattempted_ids"]),
            fewer_than_k=tuple(data["fewer_than_k"]),
        )


K_ATTEMPTS = Field("k_attempts", COUNT, N_("field_k_attempts"))


def _split_fields(prefix: str) -> dict[str, Field]:
    """The fields of one split (``main``, ``sub``) by what they count."""

    def field(what: str, kind: str) -> Field:
        return Field(f"{prefix}_{what}", kind, f"field_{prefix}_{what}")

    return {
        "questions": field("questions", COUNT),
        "unattempted": field("unattempted", COUNT),
        "fewer_than_k": field("fewer_than_k", COUNT),
        "pass_at_1": field("pass_at_1", PERCENT),
        "pass_at_k": field("pass_at_k", PERCENT),
        "reliability": field("reliability", PERCENT),
        "lenient_pass_at_1": field("lenient_pass_at_1", PERCENT),
        "lenient_pass_at_k": field("lenient_pass_at_k", PERCENT),
    }


#: The fields of each split, and their labels marked for the catalogues.
SPLIT_FIELDS = {prefix: _split_fields(prefix) for prefix in ("main", "sub")}
_LABELS = (
    N_("field_main_questions"),
    N_("field_main_unattempted"),
    N_("field_main_fewer_than_k"),
    N_("field_main_pass_at_1"),
    N_("field_main_pass_at_k"),
    N_("field_main_reliability"),
    N_("field_main_lenient_pass_at_1"),
    N_("field_main_lenient_pass_at_k"),
    N_("field_sub_questions"),
    N_("field_sub_unattempted"),
    N_("field_sub_fewer_than_k"),
    N_("field_sub_pass_at_1"),
    N_("field_sub_pass_at_k"),
    N_("field_sub_reliability"),
    N_("field_sub_lenient_pass_at_1"),
    N_("field_sub_lenient_pass_at_k"),
)
#: What a card image shows of a split: the official figures (the lenient re-check is
#: not a board figure).
_OFFICIAL = ("pass_at_1", "pass_at_k", "reliability")


def _share(field: Field, fraction: float | None, count: float, total: int) -> Shown:
    return Shown(field, fraction, None if fraction is None else (count, total))


#: What a result's hints are made from when first read (see ZeroBenchResult).
Later = Callable[[], tuple[Hint, ...]]

_FIELDS = (
    "k",
    "main",
    "sub",
    "submission_format",
    "invalid_lines",
    "invalid_line_count",
    "unknown_ids",
    "unknown_id_count",
    "hints",
    "fingerprint",
    "benchmark",
)


class ZeroBenchResult:
    """The breakdown; read-only. The scorer hands over the figures at once, and the
    hints and the fingerprint as functions: each is worked out the first time it is
    read (scoring a file offline reads no fingerprint)."""

    __slots__ = (
        "_fingerprint",
        "_hints",
        *(f for f in _FIELDS if f not in {"hints", "fingerprint"}),
    )

    k: int
    main: SplitResult
    sub: SplitResult
    _hints: tuple[Hint, ...] | Later
    submission_format: str
    invalid_lines: tuple[InvalidLine, ...]
    invalid_line_count: int
    unknown_ids: tuple[str, ...]
    unknown_id_count: int
    _fingerprint: str | Callable[[], str]
    benchmark: str

    def __init__(
        self,
        k: int,
        main: SplitResult,
        sub: SplitResult,
        submission_format: str,
        invalid_lines: tuple[InvalidLine, ...],
        invalid_line_count: int,
        unknown_ids: tuple[str, ...],
        unknown_id_count: int,
        hints: tuple[Hint, ...] | Later,
        fingerprint: str | Callable[[], str],
        benchmark: str = NAME,
    ) -> None:
        init = object.__setattr__
        for name, value in (
            ("k", k),
            ("main", main),
            ("sub", sub),
            ("submission_format", submission_format),
            ("invalid_lines", invalid_lines),
            ("invalid_line_count", invalid_line_count),
            ("unknown_ids", unknown_ids),
            ("unknown_id_count", unknown_id_count),
            ("_hints", hints),
            ("_fingerprint", fingerprint),
            ("benchmark", benchmark),
        ):
            init(self, name, value)

    @property
    def hints(self) -> tuple[Hint, ...]:
        hints: tuple[Hint, ...] = worked_out(self, "_hints", tuple)
        return hints

    @property
    def fingerprint(self) -> str:
        fingerprint: str = worked_out(self, "_fingerprint", str)
        return fingerprint

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _FIELDS)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a ZeroBenchResult is read-only: cannot set {name}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ZeroBenchResult):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={value!r}" for name, value in zip(_FIELDS, self._values(), strict=True)
        )
        return f"ZeroBenchResult({shown})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (ZeroBenchResult, self._values())

    @property
    def publishable(self) -> bool:
        """Whether it may go on a board: only when an attempt at a question of the key
        was read. A file none of whose records could be read (its format not told, or
        only ids the key does not have) says nothing of the model: its 0 % would rank
        as a result (``scoring.publishable``)."""
        return self.main.attempts + self.sub.attempts > 0

    @property
    def primary_split(self) -> str:
        """The split that ranks: main, unless the key has no main questions."""
        return MAIN_SPLIT if self.main.questions or not self.sub.questions else SUB_SPLIT

    @property
    def primary(self) -> float:
        """Official pass@1 (a fraction in [0, 1]) over :attr:`primary_split`."""
        split = self.main if self.primary_split == MAIN_SPLIT else self.sub
        return split.official.pass_at_1 or 0.0

    @property
    def unknown_questions(self) -> tuple[str, ...]:
        """The ids not in the key (what the bot lists as ignored)."""
        return self.unknown_ids

    def splits(self) -> tuple[tuple[str, SplitResult], ...]:
        return (("main", self.main), ("sub", self.sub))

    def card(self) -> Card:
        summary: list[Shown] = [Shown(K_ATTEMPTS, self.k)]
        figures: list[Shown] = [summary[0]]
        for prefix, split in self.splits():
            shown = split.questions and (
                split.split == self.primary_split or split.attempts or not self.main.questions
            )
            if not shown:
                continue
            fields, o, n = SPLIT_FIELDS[prefix], split.official, split.lenient
            summary.append(Shown(fields["questions"], split.questions))
            if split.unattempted:
                summary.append(Shown(fields["unattempted"], len(split.unattempted)))
            if split.fewer_than_k:
                summary.append(Shown(fields["fewer_than_k"], len(split.fewer_than_k)))
            official = (
                _share(fields["pass_at_1"], o.pass_at_1, o.pass_at_1_count, o.questions),
                _share(fields["pass_at_k"], o.pass_at_k, o.pass_at_k_count, o.questions),
                _share(fields["reliability"], o.reliability, o.reliability_count, o.questions),
            )
            summary += official
            figures += official
            summary += (
                _share(fields["lenient_pass_at_1"], n.pass_at_1, n.pass_at_1_count, n.questions),
                _share(fields["lenient_pass_at_k"], n.pass_at_k, n.pass_at_k_count, n.questions),
            )
        return Card(
            tuple(summary),
            figures=tuple(figures),
            unknown=self.unknown_ids,
            unknown_count=self.unknown_id_count,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "scorer_version": SCORER_VERSION,
            "format": self.submission_format,
            "k": self.k,
            "primary": self.primary,
            "primary_metric": "pass_at_1",
            "primary_split": self.primary_split,
            "main": self.main.to_json(),
            "subquestions": self.sub.to_json(),
            "invalid_line_count": self.invalid_line_count,
            "invalid_lines": [il.to_json() for il in self.invalid_lines],
            "unknown_ids": list(self.unknown_ids),
            "unknown_id_count": self.unknown_id_count,
            "hints": [
                {"code": h.code, "message": h.message, "lines": list(h.lines)}
                | ({"params": dict(h.params)} if h.params else {})
                for h in self.hints
            ],
        }

    def to_record(self) -> dict[str, Any]:
        data = self.to_json()
        data["fingerprint"] = self.fingerprint
        return data


def result_from_record(data: Mapping[str, Any]) -> ZeroBenchResult:
    """Rebuild a result from :meth:`ZeroBenchResult.to_record` output."""
    return ZeroBenchResult(
        k=data["k"],
        main=SplitResult.from_json(data["main"]),
        sub=SplitResult.from_json(data["subquestions"]),
        submission_format=data["format"],
        invalid_lines=tuple(InvalidLine(il["line"], il["text"]) for il in data["invalid_lines"]),
        invalid_line_count=data["invalid_line_count"],
        unknown_ids=tuple(data["unknown_ids"]),
        unknown_id_count=data["unknown_id_count"],
        hints=tuple(
            Hint(
                h["code"],
                h["message"],
                tuple(h["lines"]),
                tuple((str(k), str(v)) for k, v in h.get("params", {}).items()),
            )
            for h in data["hints"]
        ),
        fingerprint=data.get("fingerprint", ""),
    )


def format_score(value: float, *, mean: bool = False) -> str:
    """pass@1 (a fraction) as a percentage with one decimal (``11.9%``), mean or not."""
    return f"{value:.1%}"


#: What a board row shows beside pass@1 (see :func:`board_cells`).
BOARD_COLUMNS = ("pass_at_k", "reliability_k_of_k")


def board_cells(record: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """pass@k and k/k of the ranking split, from a result's ``to_record()``, as
    (label, percentage); () when the record lacks them."""
    split = record.get("main") if record.get("primary_split") != SUB_SPLIT else None
    split = split or record.get("subquestions")
    k = record.get("k")
    if not isinstance(split, Mapping) or not isinstance(k, int):
        return ()
    cells = []
    for label, column in zip((f"pass@{k}", f"{k}/{k}"), BOARD_COLUMNS, strict=True):
        value = split.get(column)
        if isinstance(value, int | float):
            cells.append((label, f"{value:.1%}"))
    return tuple(cells)


#: A web board row: pass@1 with its 95 % interval, pass@k and k/k of the ranking split.
WEB_COLUMNS = (
    WebColumn("score", N_("web_col_pass1"), SCORE),
    WebColumn("pass_k", N_("web_col_pass_k"), PERCENT),
    WebColumn("k_of_k", N_("web_col_k_of_k"), PERCENT),
    WebColumn("runs", N_("web_col_runs"), COUNT),
    WebColumn("mean", N_("web_col_mean"), MEAN),
)
WEB_PATHS = (
    "$.k",
    "$.primary_split",
    "$.main.questions",
    "$.main.pass_at_k",
    "$.main.reliability_k_of_k",
    "$.subquestions.questions",
    "$.subquestions.pass_at_k",
    "$.subquestions.reliability_k_of_k",
)
#: z for a two-sided 95 % interval.
_Z = 1.959963984540054


def wilson(p: float, n: int) -> tuple[float, float] | None:
    """The 95 % Wilson score interval of a proportion ``p`` of ``n`` (None: n is 0)."""
    if n <= 0:
        return None
    p = min(1.0, max(0.0, p))
    z2 = _Z * _Z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = _Z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def web_cells(best: float, fields: Mapping[str, Any]) -> WebCells:
    """pass@1 (``best``) with its Wilson interval over the split's questions, pass@k
    and k/k, of the split the result ranks by."""
    split = "$.subquestions" if fields.get("$.primary_split") == "sub" else "$.main"
    n = record_number(fields.get(f"{split}.questions"))
    k = record_number(fields.get("$.k"))
    interval = wilson(best, int(n)) if n else None
    text: dict[str, str] = {}
    values: dict[str, float | int | str | None] = {
        "n": None if n is None else int(n),
        "k": None if k is None else int(k),
        "ci_low": None if interval is None else round(interval[0], 6),
        "ci_high": None if interval is None else round(interval[1], 6),
    }
    if interval is not None:
        text["score"] = f"{format_score(best)} [{interval[0]:.1%}–{interval[1]:.1%}]"
    for key, path in (("pass_k", "pass_at_k"), ("k_of_k", "reliability_k_of_k")):
        found = record_number(fields.get(f"{split}.{path}"))
        values[key] = found
        text[key] = percent_text(found)
    return text, values

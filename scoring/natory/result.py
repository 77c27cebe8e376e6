"""A Natory result: the breakdown's fields under the game's names, the result a score
returns and what storage keeps of it (``to_record`` / :func:`result_from_record`)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..base import (
    COUNT,
    N_,
    NAMES,
    POINTS,
    TEXT,
    Card,
    Field,
    Hint,
    InvalidLine,
    Line,
    Note,
    Reason,
    Shown,
    Sum,
)
from .evaluator import short
from .rules import DEFAULT_VERSION

NAME = "natory"
TITLE = "Natory"
SCORER_VERSION = DEFAULT_VERSION
CREDIT = ""

#: The breakdown's JSON field names (the game's), in order, and their attribute names.
FIELDS: tuple[tuple[str, str], ...] = (
    ("baseScore", "base_score"),
    ("eleganceBonus", "elegance_bonus"),
    ("operatorDiversityBonus", "operator_diversity_bonus"),
    ("allDigitsBonus", "all_digits_bonus"),
    ("exactUsageBonus", "exact_usage_bonus"),
    ("repetitionPenalty", "repetition_penalty"),
    ("complexityPenalty", "complexity_penalty"),
    ("trivialExpressionPenalty", "trivial_expression_penalty"),
    ("specialNumberBonus", "special_number_bonus"),
    ("uniqueResultBonus", "unique_result_bonus"),
    ("finalScore", "final_score"),
)


#: The label of each breakdown field, by the game's name.
LABELS = {
    "baseScore": N_("field_baseScore"),
    "eleganceBonus": N_("field_eleganceBonus"),
    "operatorDiversityBonus": N_("field_operatorDiversityBonus"),
    "allDigitsBonus": N_("field_allDigitsBonus"),
    "exactUsageBonus": N_("field_exactUsageBonus"),
    "repetitionPenalty": N_("field_repetitionPenalty"),
    "complexityPenalty": N_("field_complexityPenalty"),
    "trivialExpressionPenalty": N_("field_trivialExpressionPenalty"),
    "specialNumberBonus": N_("field_specialNumberBonus"),
    "uniqueResultBonus": N_("field_uniqueResultBonus"),
    "finalScore": N_("field_finalScore"),
}
TARGET = Field("target", COUNT, N_("field_target"))
EXPRESSION = Field("expression", TEXT, N_("field_expression"))
VALUE = Field("value", TEXT, N_("field_value"))
VALID = Field("valid", TEXT, N_("field_valid"))
ERROR = Field("error", TEXT, N_("field_error"))
SIMPLIFIED = Field("simplified", TEXT, N_("field_simplified"))
GEMS = Field("specialNumberKey", NAMES, N_("field_specialNumberKey"))
#: The name of each special-number bonus (``specialNumberKey``), by key.
GEM_NAMES = {
    "factorial": N_("gem_factorial"),
    "perfect_power": N_("gem_perfect_power"),
    "prime": N_("gem_prime"),
}
#: Each breakdown field as a total (the summary) and as a term of the sum (the card).
TOTALS = {name: Field(name, COUNT, label) for name, label in LABELS.items()}
TERMS = {name: Field(name, POINTS, label) for name, label in LABELS.items()}


@dataclass(frozen=True, slots=True)
class Breakdown:
    """The natory fields; ``to_json`` gives them under the game's names."""

    base_score: int = 0
    elegance_bonus: int = 0
    operator_diversity_bonus: int = 0
    all_digits_bonus: int = 0
    exact_usage_bonus: int = 0
    repetition_penalty: int = 0
    complexity_penalty: int = 0
    trivial_expression_penalty: int = 0
    special_number_bonus: int = 0
    unique_result_bonus: int = 0
    final_score: int = 0
    special_number_key: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {name: getattr(self, attr) for name, attr in FIELDS}
        data["specialNumberKey"] = list(self.special_number_key)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Breakdown:
        values = {attr: int(data.get(name, 0)) for name, attr in FIELDS}
        return cls(**values, special_number_key=tuple(data.get("specialNumberKey", ())))


@dataclass(frozen=True, slots=True)
class NatoryResult:
    target: int
    #: the expression as read from the submission (cut at 1,000 characters)
    expression: str
    #: the canonical text of the simplified expression ("" when invalid)
    simplified: str
    value: Fraction | None
    valid: bool
    error: str | None
    error_position: int | None
    breakdown: Breakdown
    #: the null operations removed by simplification (``+0``, ``sopfr(p)`` …)
    removed: tuple[str, ...]
    #: T, numerals + operators
    tokens: int
    #: digits written beyond the target's multiset
    extra_digits: int
    #: the line of the submission the expression was read from
    line: int | None
    invalid_lines: tuple[InvalidLine, ...]
    invalid_line_count: int
    hints: tuple[Hint, ...]
    fingerprint: str
    scorer_version: str = SCORER_VERSION
    benchmark: str = field(default=NAME)
    #: why it is not valid, by code (``scoring.errors.ExpressionError.code``) and the
    #: values the reason quotes, for showing it in the reader's language
    error_code: str | None = None
    error_params: tuple[tuple[str, str], ...] = ()

    @property
    def final_score(self) -> int:
        return self.breakdown.final_score

    @property
    def primary(self) -> float:
        return float(self.breakdown.final_score)

    @property
    def special_number_key(self) -> tuple[str, ...]:
        return self.breakdown.special_number_key

    @property
    def publishable(self) -> bool:
        """Only an expression equal to the target goes on a board; one that is not is
        scored and explained, never published."""
        return self.valid

    @property
    def trivial(self) -> bool:
        """Valid, but just the target written out once null operations are removed
        (the triviality rule zeroes its score)."""
        return self.valid and self.simplified.isascii() and self.simplified.isdigit()

    @property
    def value_json(self) -> int | str | None:
        """The value for JSON: an int, or a string such as ``"13/2"``; None if unknown."""
        if self.value is None:
            return None
        if self.value.denominator == 1:
            return self.value.numerator
        return f"{self.value.numerator}/{self.value.denominator}"

    def card(self) -> Card:
        return Card(
            self._summary(),
            prose=self._prose(),
            target=self.target,
            hint_values=(
                ("target", self.target),
                ("removed", tuple(dict.fromkeys(self.removed))),
                ("extra", self.extra_digits),
                ("digits", " ".join(str(self.target))),
                ("line", self.line or 1),
                ("expression", shown(self.expression, 120)),
            ),
        )

    def _summary(self) -> tuple[Shown, ...]:
        fields = [Shown(TARGET, self.target), Shown(EXPRESSION, shown(self.expression))]
        if self.value is not None:
            fields.append(Shown(VALUE, short(self.value, limit=40)))
        fields.append(Shown(VALID, "yes" if self.valid else "no"))
        if self.error is not None:
            fields.append(Shown(ERROR, self.error))
        if self.valid and self.simplified != plain(self.expression):
            fields.append(Shown(SIMPLIFIED, shown(self.simplified)))
        breakdown = self.breakdown
        fields.extend(Shown(TOTALS[name], getattr(breakdown, attr)) for name, attr in FIELDS)
        if breakdown.special_number_key:
            fields.append(Shown(GEMS, self._gems()))
        return tuple(fields)

    def _gems(self) -> tuple[str, ...]:
        return tuple(GEM_NAMES.get(k, k) for k in self.breakdown.special_number_key)

    def _prose(self) -> tuple[Line, ...]:
        """The target and the expression (as typed); why it is not valid; or the fields
        that paid or cost, and the sum that makes the final score (saying so when the
        triviality rule zeroes it)."""
        out: list[Line] = [Shown(TARGET, self.target), Shown(EXPRESSION, shown(self.expression))]
        if not self.valid:
            if self.value is not None:
                value = shown(str(self.value_json), 40)
                out.append(
                    Note(N_("natory_not_target"), (("value", value), ("target", self.target)))
                )
            else:
                reason = Reason(self.error_code, self.error or "", self.error_params,
                                self.error_position)  # fmt: skip
                out.append(Note(N_("natory_invalid"), (("error", reason),)))
            out.append(Note(N_("natory_not_publishable")))
            return tuple(out)
        if self.simplified != plain(self.expression):
            out.append(Shown(SIMPLIFIED, shown(self.simplified)))
        breakdown = self.breakdown
        paid = [
            (name, int(getattr(breakdown, attr)))
            for name, attr in FIELDS
            if name != "finalScore" and getattr(breakdown, attr)
        ]
        out.extend(Shown(TERMS[name], value, term=True) for name, value in paid)
        if breakdown.special_number_key:
            out.append(Shown(GEMS, self._gems(), term=True))
        total = sum(value for _, value in paid)
        if len(paid) > 1:
            out.append(Sum(tuple(value for _, value in paid), total))
        if self.trivial:
            out.append(Note(N_("natory_trivial_zero"), (("total", total),)))
        out.append(Shown(TOTALS["finalScore"], breakdown.final_score))
        return tuple(out)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "benchmark": self.benchmark,
            "scorer_version": self.scorer_version,
            "target": self.target,
            "expression": self.expression,
            "simplified": self.simplified,
            "value": self.value_json,
            "valid": self.valid,
        }
        if self.error is not None:
            data["error"] = self.error
            data["error_position"] = self.error_position
        data.update(self.breakdown.to_json())
        data["hints"] = [h.message for h in self.hints]
        return data

    def to_record(self) -> dict[str, Any]:
        data = self.to_json()
        data["removed"] = list(self.removed)
        data["tokens"] = self.tokens
        data["extra_digits"] = self.extra_digits
        data["line"] = self.line
        data["invalid_lines"] = [il.to_json() for il in self.invalid_lines]
        data["invalid_line_count"] = self.invalid_line_count
        data["hint_codes"] = [[h.code, list(h.lines)] for h in self.hints]
        data["fingerprint"] = self.fingerprint
        if self.error_code is not None:
            data["error_code"] = self.error_code
            data["error_params"] = dict(self.error_params)
        return data


def shown(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def plain(expression: str) -> str:
    return "".join(expression.split())


def result_from_record(data: Mapping[str, Any]) -> NatoryResult:
    """Rebuild a result from :meth:`NatoryResult.to_record` output."""
    raw_value = data.get("value")
    value = None if raw_value is None else Fraction(raw_value)
    hints = tuple(
        Hint(code, message, tuple(lines))
        for (code, lines), message in zip(data.get("hint_codes", []), data["hints"], strict=True)
    )
    invalid = tuple(InvalidLine(il["line"], il["text"]) for il in data.get("invalid_lines", []))
    return NatoryResult(
        target=int(data["target"]),
        expression=data["expression"],
        simplified=data.get("simplified", ""),
        value=value,
        valid=bool(data["valid"]),
        error=data.get("error"),
        error_position=data.get("error_position"),
        breakdown=Breakdown.from_json(data),
        removed=tuple(data.get("removed", ())),
        tokens=int(data.get("tokens", 0)),
        extra_digits=int(data.get("extra_digits", 0)),
        line=data.get("line"),
        invalid_lines=invalid,
        invalid_line_count=int(data.get("invalid_line_count", len(invalid))),
        hints=hints,
        fingerprint=data.get("fingerprint", ""),
        scorer_version=data.get("scorer_version", SCORER_VERSION),
        error_code=data.get("error_code"),
        error_params=tuple((str(k), str(v)) for k, v in data.get("error_params", {}).items()),
    )


def fingerprint_of(*parts: object) -> str:
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()

"""PrimeBench's result: the breakdown, its record, and how a score is written."""

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from ..base import (
    COUNT,
    MEAN,
    N_,
    PERCENT,
    SCORE,
    Bar,
    Card,
    Field,
    Hint,
    InvalidLine,
    Segment,
    Shown,
    WebCells,
    WebColumn,
    percent_of,
    percent_text,
    record_number,
)
from .dataset import NAME, POINTS_CORRECT, POINTS_WRONG, RECORD_LINE_TEXT


class PrimeBenchResult(NamedTuple):
    total_questions: int
    correct: int
    wrong: int
    unanswered: int
    invalid_lines: tuple[InvalidLine, ...]
    invalid_line_count: int
    duplicates: tuple[int, ...]
    unknown_questions: tuple[int, ...]
    hints: tuple[Hint, ...]
    fingerprint: str
    #: how many questions were answered more than once (``duplicates`` lists the first
    #: ``MAX_REPORTED_QUESTIONS``), and how many the key lacks (``unknown_questions``)
    duplicate_count: int
    unknown_question_count: int
    benchmark: str = NAME

    @property
    def positive_points(self) -> int:
        return self.correct * POINTS_CORRECT

    @property
    def negative_points(self) -> int:
        return -self.wrong * POINTS_WRONG

    @property
    def final_score(self) -> int:
        return self.positive_points - self.negative_points

    @property
    def primary(self) -> float:
        return float(self.final_score)

    @property
    def answered(self) -> int:
        return self.correct + self.wrong

    @property
    def accuracy(self) -> float | None:
        """Share of answered questions that are correct (None when nothing was answered)."""
        return self.correct / self.answered if self.answered else None

    @property
    def coverage(self) -> float:
        """Share of the key's questions that were answered."""
        return self.answered / self.total_questions if self.total_questions else 0.0

    def card(self) -> Card:
        return answers_card(self)

    def to_json(self) -> dict[str, Any]:
        return counts_json(self)

    def to_record(self) -> dict[str, Any]:
        """Everything needed to rebuild this result (``to_json`` plus internals)."""
        return counts_record(self)


class Counts(Protocol):
    """What a result of answer lines ``Q:O`` shows: PrimeBench's, and those of the
    multiple-choice benchmarks defined by data (``scoring.choice``), which score
    the same counts with points of their own."""

    @property
    def total_questions(self) -> int: ...
    @property
    def correct(self) -> int: ...
    @property
    def wrong(self) -> int: ...
    @property
    def unanswered(self) -> int: ...
    @property
    def invalid_lines(self) -> tuple[InvalidLine, ...]: ...
    @property
    def invalid_line_count(self) -> int: ...
    @property
    def duplicates(self) -> tuple[int, ...]: ...
    @property
    def unknown_questions(self) -> tuple[int, ...]: ...
    @property
    def hints(self) -> tuple[Hint, ...]: ...
    @property
    def fingerprint(self) -> str: ...
    @property
    def duplicate_count(self) -> int: ...
    @property
    def unknown_question_count(self) -> int: ...
    @property
    def positive_points(self) -> int: ...
    @property
    def negative_points(self) -> int: ...
    @property
    def final_score(self) -> int: ...
    @property
    def answered(self) -> int: ...
    @property
    def accuracy(self) -> float | None: ...
    @property
    def coverage(self) -> float: ...


def counts_json(result: Counts) -> dict[str, Any]:
    """The machine-readable breakdown (what ``benchboard score --json`` prints)."""
    return {
        "total_questions": result.total_questions,
        "correct": result.correct,
        "wrong": result.wrong,
        "unanswered": result.unanswered,
        "positive_points": result.positive_points,
        "negative_points": result.negative_points,
        "final_score": result.final_score,
        "invalid_lines": [il.to_json() for il in result.invalid_lines],
        "invalid_line_count": result.invalid_line_count,
        "duplicates": list(result.duplicates),
        "duplicate_count": result.duplicate_count,
        "unknown_questions": list(result.unknown_questions),
        "unknown_question_count": result.unknown_question_count,
        "hints": [h.message for h in result.hints],
    }


def counts_record(result: Counts) -> dict[str, Any]:
    """Everything needed to rebuild a result (``to_json`` plus internals).

    An invalid line's text is kept up to ``RECORD_LINE_TEXT`` characters (the raw
    input is stored whole beside the record), so one 20 MB line does not make a
    20 MB record that every button press reads back.
    """
    data = counts_json(result)
    for line in data["invalid_lines"]:
        if len(line["text"]) > RECORD_LINE_TEXT:
            line["text"] = line["text"][: RECORD_LINE_TEXT - 1] + "…"
    data["hint_codes"] = [
        [h.code, list(h.lines), dict(h.params)] if h.params else [h.code, list(h.lines)]
        for h in result.hints
    ]
    data["fingerprint"] = result.fingerprint
    return data


TOTAL_QUESTIONS = Field("total_questions", COUNT, N_("field_total_questions"))
CORRECT = Field("correct", COUNT, N_("field_correct"))
WRONG = Field("wrong", COUNT, N_("field_wrong"))
UNANSWERED = Field("unanswered", COUNT, N_("field_unanswered"))
POSITIVE_POINTS = Field("positive_points", COUNT, N_("field_positive_points"))
NEGATIVE_POINTS = Field("negative_points", COUNT, N_("field_negative_points"))
FINAL_SCORE = Field("final_score", COUNT, N_("field_final_score"))
ACCURACY = Field("accuracy", PERCENT, N_("field_accuracy"))
COVERAGE = Field("coverage", PERCENT, N_("field_coverage"))


def answers_card(result: Counts) -> Card:
    """The card of a multiple-choice result (PrimeBench's, or one like it with its own
    point values): the counts, the points they make as the result counts them (earned,
    lost), the final score, accuracy and coverage, and the correct / wrong / unanswered
    bar."""
    positive, negative = result.positive_points, result.negative_points
    answered = result.correct + result.wrong
    summary = [
        Shown(TOTAL_QUESTIONS, result.total_questions),
        Shown(CORRECT, result.correct),
        Shown(WRONG, result.wrong),
        Shown(UNANSWERED, result.unanswered),
        Shown(POSITIVE_POINTS, positive),
        Shown(NEGATIVE_POINTS, negative),
        Shown(FINAL_SCORE, result.final_score),
    ]
    if answered:
        summary.append(percent_of(ACCURACY, result.correct, answered))
    total = result.total_questions
    summary.append(Shown(COVERAGE, answered / total if total else 0.0, (answered, total)))
    bar = Bar(
        (
            Segment(CORRECT, result.correct, "good"),
            Segment(WRONG, result.wrong, "bad"),
            Segment(UNANSWERED, result.unanswered, "none"),
        ),
        (Shown(POSITIVE_POINTS, positive), Shown(NEGATIVE_POINTS, negative)),
    )
    return Card(
        tuple(summary),
        bar=bar,
        duplicates=result.duplicates,
        duplicate_count=result.duplicate_count,
        unknown=result.unknown_questions,
        unknown_count=result.unknown_question_count,
    )


def _hint(entry: Sequence[Any], message: str) -> Hint:
    """A hint from its record entry: ``[code, lines]``, or ``[code, lines, params]``
    for one that quotes values (older records hold none)."""
    params: Mapping[str, Any] = entry[2] if len(entry) > 2 else {}
    return Hint(
        entry[0], message, tuple(entry[1]), tuple((str(k), str(v)) for k, v in params.items())
    )


def record_counts(data: Mapping[str, Any]) -> tuple[Any, ...]:
    """The first twelve fields of a result (those of :class:`PrimeBenchResult` before
    ``benchmark``), in order, from :func:`counts_record` output."""
    hints = tuple(
        _hint(entry, message)
        for entry, message in zip(data.get("hint_codes", []), data["hints"], strict=True)
    )
    return (
        data["total_questions"],
        data["correct"],
        data["wrong"],
        data["unanswered"],
        tuple(InvalidLine(il["line"], il["text"]) for il in data["invalid_lines"]),
        data.get("invalid_line_count", len(data["invalid_lines"])),
        tuple(data["duplicates"]),
        tuple(data["unknown_questions"]),
        hints,
        data.get("fingerprint", ""),
        # records written before the lists were capped hold every number
        data.get("duplicate_count", len(data["duplicates"])),
        data.get("unknown_question_count", len(data["unknown_questions"])),
    )


def result_from_record(data: Mapping[str, Any]) -> PrimeBenchResult:
    """Rebuild a result from :meth:`PrimeBenchResult.to_record` output."""
    return PrimeBenchResult(*record_counts(data))


def format_score(value: float, *, mean: bool = False) -> str:
    """A signed count (``+18``, ``-71``); a mean is rounded to two places first and a
    fraction keeps three significant digits (``12.3``)."""
    if mean:
        value = round(value, 2)
    return f"{int(value):+d}" if value == int(value) else f"{value:.3g}"


#: A web board row: the score, the breakdown of the best run, its coverage, the runs and
#: their mean.
WEB_COLUMNS = (
    WebColumn("score", N_("web_col_score"), SCORE),
    WebColumn("correct", N_("web_col_correct"), COUNT),
    WebColumn("wrong", N_("web_col_wrong"), COUNT),
    WebColumn("unanswered", N_("web_col_unanswered"), COUNT),
    WebColumn("coverage", N_("web_col_coverage"), PERCENT),
    WebColumn("runs", N_("web_col_runs"), COUNT),
    WebColumn("mean", N_("web_col_mean"), MEAN),
)
WEB_PATHS = ("$.correct", "$.wrong", "$.unanswered", "$.total_questions")


def web_cells(best: float, fields: Mapping[str, Any]) -> WebCells:
    """Correct, wrong, unanswered and coverage of the best run, from its record."""
    text: dict[str, str] = {}
    values: dict[str, float | int | str | None] = {}
    counts = {k: record_number(fields.get(f"$.{k}")) for k in ("correct", "wrong", "unanswered")}
    for key, found in counts.items():
        values[key] = None if found is None else int(found)
        text[key] = "—" if found is None else str(int(found))
    total = record_number(fields.get("$.total_questions"))
    answered = (counts["correct"] or 0) + (counts["wrong"] or 0)
    coverage = answered / total if total else None
    values["coverage"] = None if coverage is None else round(coverage, 6)
    text["coverage"] = percent_text(coverage)
    return text, values

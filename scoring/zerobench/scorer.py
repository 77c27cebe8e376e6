"""Scoring: each attempt through the official check, then pass@1, pass@k and k/k."""

from __future__ import annotations

import gc
import math
import re
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import Any, TypeVar

from ..base import Hint
from ..errors import ScoringError
from .check import SCAN, nested_group, number
from .dataset import DEFAULT_K, MAIN_SPLIT, SUB_SPLIT
from .hints import HINT_ITEMS, Notes, build_hints, short
from .key import ZeroKey
from .reading import safe
from .result import Figures, SplitResult, ZeroBenchResult
from .submission import stream_submission

T = TypeVar("T")

#: The largest k of pass@k (far more attempts than any run makes).
MAX_K = 10_000


def k_option(options: Mapping[str, Any] | None) -> int:
    value = (options or {}).get("k", DEFAULT_K)
    if value is None:
        return DEFAULT_K
    if isinstance(value, str):
        digits = value.strip()
        if digits.isascii() and digits.isdigit() and len(digits.lstrip("0")) <= len(str(MAX_K)):
            value = int(digits)
        elif len(value) > 30:
            value = value[:27] + "..."
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_K:
        raise ScoringError(f"k must be a whole number from 1 to {MAX_K} (got {value!r})")
    return value


_DIGIT_RUNS = re.compile(r"([0-9]++)")


def _natural(qid: str) -> tuple[tuple[int, int, str], ...]:
    """Natural order (q2 before q10). A run of digits orders as its number does: by the
    count of its significant digits, then by them (never ``int()``, which refuses an id
    of 5,000 digits and is slow on one of 4,000)."""
    key: list[tuple[int, int, str]] = []
    for part in _DIGIT_RUNS.split(qid):
        if part and "0" <= part[0] <= "9":
            significant = part.lstrip("0")
            key.append((0, len(significant), significant))
        elif part:
            key.append((1, 0, part))
    return tuple(key)


def _sorted_ids(ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(ids, key=_natural))


class _Question:
    """One question's ground truth and its attempts as they are read: how many, how many
    correct (official and lenient), and the officially extracted answer of each, in
    order (for the fingerprint)."""

    __slots__ = ("answers", "attempts", "correct", "lenient", "truth")

    def __init__(self, gt: str) -> None:
        norm = gt.strip()
        self.truth: _Truth = (gt, len(gt), norm.lower(), len(norm))
        self.attempts = self.correct = self.lenient = 0
        self.answers: list[str] = []


def score(text: str, key: ZeroKey, *, k: int = DEFAULT_K) -> ZeroBenchResult:
    """Score decoded submission text against a key. Never raises on any text.

    The cyclic garbage collector is paused meanwhile: reading and scoring keep a few
    objects per attempt (and make no cycles), and on 100,000 attempts its passes over
    them, all survivors, cost a third of the time.
    """
    if k < 1:
        raise ScoringError(f"k must be a whole number of at least 1 (got {k!r})")
    return _gc_paused(_score, text, key, k)


def _gc_paused(fn: Callable[..., T], *args: Any) -> T:
    paused = gc.isenabled()
    gc.disable()
    try:
        return fn(*args)
    finally:
        if paused:
            gc.enable()


def _score(text: str, key: ZeroKey, k: int) -> ZeroBenchResult:
    submission, attempts = stream_submission(text)
    notes = submission.notes
    # the questions attempted, each made when its first attempt is read
    main_key, sub_key = key.split(MAIN_SPLIT), key.split(SUB_SPLIT)
    questions: dict[str, _Question] = {}
    unknown: dict[str, None] = {}
    # line -> verdict, kept only to compare with the official CSV's own Correct? column
    official_of: dict[int, bool] | None = {} if submission.claims else None
    # One pass, each attempt as it is read (JSON Lines are not gathered first): the
    # official check, then, for an attempt of the first k that it counts wrong, the
    # lenient re-check and the usual hints (_explain_wrong's first tests). The few
    # attempts whose hints need a closer look (nested or earlier braces) are kept for
    # when the hints are read.
    hinted: dict[str, list[int]] = {code: [] for code in _ATTEMPT_CODES}
    no_braces = hinted["no_braces"].append
    across = hinted["braces_across_lines"].append
    examples = notes.examples
    shapes: dict[str, _Shape] = {}
    closer: list[_Closer] = []
    last: str | None = None  # the question of gt_number and plain
    gt_number: Decimal | None = None
    plain = False
    scan = SCAN.findall
    for qid, response, line in attempts:
        question = questions.get(qid)
        if question is None:
            gt = main_key.get(qid)
            if gt is None:
                gt = sub_key.get(qid)
                if gt is None:
                    unknown[qid] = None
                    continue
            question = questions[qid] = _Question(gt)
        entry = question.truth
        question.attempts += 1
        # The official extraction and check (see official_check), inlined for speed. It
        # reads the response as sent: stripping changes none of its {...} and lowering
        # none either (no character lowers to or from a brace or a line break, and a
        # brace bounds the final-sigma rule), so only the text read is lowered. The rule
        # lowers that text again before comparing; lowering is idempotent (for every code
        # point, and a lowered text holds no capital sigma), so that is left out.
        parsed = ""
        found = 0  # how many {...} the official rule could read (0: none)
        if "}" in response and (matches := scan(response)):
            inner, close = matches[-1]  # the last {...} closes, as a rule
            if not close:
                inner = next((i for i, c in reversed(matches) if c), None)
            if inner is not None:
                parsed = inner.lower()
                found = len(matches)
        question.answers.append(parsed)
        correct = len(parsed) == entry[3] and parsed[: entry[1]] == entry[2]
        if official_of is not None:
            official_of[line] = correct
        if question.attempts > k:
            continue
        if correct:
            question.correct += 1
            question.lenient += 1
            continue
        # Counted wrong: the lenient re-check and the hints (_explain_wrong's first
        # tests made here). No {...} read: braces on no line, or across lines.
        if not found:
            opening = response.find("{")
            if opening >= 0 and response.find("}", opening) > 0:
                across(line)
            else:
                no_braces(line)
            continue
        if qid != last:
            last = qid
            gt_number = number(entry[2])
            plain = gt_number is not None and _plain_integer(entry[2])
        shape = shapes.get(parsed)
        if shape is None:
            shape = shapes[parsed] = _shape(parsed)
        # untrimmed, and not a number or two different plain integers: nothing to forgive
        if shape[3] or (gt_number is not None and not (plain and shape[4])):
            if shape[0] == entry[2]:
                right: tuple[str, ...] | None = shape[1]
            elif gt_number is not None and shape[2] is not None and shape[2] == gt_number:
                right = (*shape[1], "number_format")
            else:
                right = None
            if right is not None:
                question.lenient += 1
                for code in right:
                    hinted[code].append(line)
                    if code not in examples:
                        examples[code] = (qid, safe(short("{" + parsed + "}", 40)), entry[0])
                continue
        # no "{" sits inside a match (none is nested), and no earlier {...} holds the
        # right answer: nothing more to say
        if response.count("{") == found and (
            found == 1 or "{" + entry[2] + "}" not in response.strip().lower()
        ):
            continue
        closer.append((qid, line, response, found))
    for _, claimed, line in submission.claims:
        # (a line of a question the key lacks has no verdict, so never differs)
        if official_of is not None and official_of.get(line, claimed) != claimed:
            notes.add("correct_column_differs", line)
    beyond: list[str] = []  # questions with more than k attempts
    main = _split_result(MAIN_SPLIT, key, questions, k, beyond)
    sub = _split_result(SUB_SPLIT, key, questions, k, beyond)

    def hints() -> tuple[Hint, ...]:
        """The hints: worked out only when shown."""
        for qid, line, response, found in closer:
            _explain_wrong(hinted, examples, qid, line, response, found, *questions[qid].truth[1:])
        for code, lines in hinted.items():
            if lines:
                notes.extend(code, lines)
        _question_notes(notes, main, sub, beyond)
        return build_hints(notes, k, main)

    def fingerprint() -> str:
        """Worked out only when read (what is stored with a result, not what is shown)."""
        return _fingerprint({qid: q.answers for qid, q in questions.items()})

    return ZeroBenchResult(
        k=k,
        main=main,
        sub=sub,
        submission_format=submission.fmt,
        invalid_lines=tuple(submission.invalid),
        invalid_line_count=submission.invalid_count,
        unknown_ids=_sorted_ids(unknown)[:HINT_ITEMS],
        unknown_id_count=len(unknown),
        hints=lambda: _gc_paused(hints),
        fingerprint=fingerprint,
    )


#: A question's ground truth: (gt, len(gt), gt.strip().lower(), len(gt.strip())).
_Truth = tuple[str, int, str, int]


def _plain_integer(text: str) -> bool:
    """ASCII digits without a leading zero: two such texts are equal numbers only when
    they are equal texts."""
    return text.isdigit() and text.isascii() and (text[0] != "0" or len(text) == 1)


#: An attempt counted wrong whose hints need a closer look (:func:`_explain_wrong`): its
#: question id, line, response as sent and how many ``{...}`` the official rule saw.
_Closer = tuple[str, int, str, int]

#: The hints of an attempt the official check counts wrong (see :func:`_score`).
_ATTEMPT_CODES = (
    "no_braces",
    "braces_across_lines",
    "spaces_in_braces",
    "trailing_period",
    "number_format",
    "nested_braces",
    "earlier_braces",
)

#: What the lenient re-check makes of an extracted answer before it meets the ground
#: truth: the text it compares (trimmed, a trailing period dropped), the reasons that
#: took, that text as a number (or None), whether the answer had anything to trim, and
#: whether it is a plain integer.
_Shape = tuple[str, tuple[str, ...], Decimal | None, bool, bool]


def _shape(parsed: str) -> _Shape:
    """:func:`check.lenient_reasons`' reading of ``parsed``, the same for every question."""
    text = parsed.strip()
    reasons: tuple[str, ...] = ("spaces_in_braces",) if text != parsed else ()
    if text.endswith(".") and text[:-1].rstrip() != "":
        text = text[:-1].rstrip()
        reasons += ("trailing_period",)
    trimmed = text != parsed or parsed.endswith(".")
    return text, reasons, number(text), trimmed, _plain_integer(parsed)


def _explain_wrong(
    hinted: dict[str, list[int]],
    examples: dict[str, tuple[str, ...]],
    qid: str,
    line: int,
    response: str,
    found: int,
    gt_len: int,
    gt_norm: str,
    gt_slen: int,
) -> None:
    """The closer hints (nested or earlier braces) for an attempt the official check
    counts wrong (never changes the score), its line added to ``hinted``. ``response``:
    as sent; ``found``: how many ``{...}`` matches the official rule saw, at least one
    (an attempt with none is hinted as :func:`_score` reads it)."""
    formatted = response.strip().lower()  # as the official rule reads it
    # Cheap test first: some "{" opens no match of its own (it sits inside one).
    nested = nested_group(formatted) if formatted.count("{") > found else None
    if nested is not None:
        outer, read = nested
        hinted["nested_braces"].append(line)
        if "nested_braces" not in examples:
            examples["nested_braces"] = (qid, safe(short(outer, 40)), safe(short(read, 40)))
        return
    if found < 2 or "{" + gt_norm + "}" not in formatted:
        return  # no earlier {...} can hold the right answer
    # the last real match is wrong, so any right one is earlier
    for inner, close in SCAN.findall(formatted):
        if close and inner[:gt_len].lower() == gt_norm and len(inner) == gt_slen:
            hinted["earlier_braces"].append(line)
            return


def _split_result(
    split: str, key: ZeroKey, questions: dict[str, _Question], k: int, beyond: list[str]
) -> SplitResult:
    """One split's figures, official and lenient; its questions with more than ``k``
    attempts are added to ``beyond``."""
    ids = key.split(split)
    attempts = scored = 0
    unattempted: list[str] = []
    fewer: list[str] = []
    # Exact sums: sum of correct/n over questions == sum over n of (correct with n) / n.
    official_by_n: dict[int, int] = {}
    lenient_by_n: dict[int, int] = {}
    official = [0, 0, 0]  # correct attempts, pass@k, k/k
    lenient = [0, 0, 0]
    for qid in ids:
        question = questions.get(qid)
        if question is None:
            unattempted.append(qid)
            continue
        n = question.attempts
        attempts += n
        if n > k:
            beyond.append(qid)
            n = k
        elif n < k:
            fewer.append(qid)
        scored += n
        correct = question.correct
        official_by_n[n] = official_by_n.get(n, 0) + correct
        official[0] += correct
        official[1] += correct > 0
        official[2] += correct == k
        correct = question.lenient
        lenient_by_n[n] = lenient_by_n.get(n, 0) + correct
        lenient[0] += correct
        lenient[1] += correct > 0
        lenient[2] += correct == k
    total = len(ids)
    return SplitResult(
        split=split,
        questions=total,
        attempts=attempts,
        attempts_scored=scored,
        official=_figures(official, official_by_n, total),
        lenient=_figures(lenient, lenient_by_n, total),
        unattempted=_sorted_ids(unattempted),
        fewer_than_k=_sorted_ids(fewer),
    )


def _figures(tally: list[int], by_n: dict[int, int], total: int) -> Figures:
    """Figures from (correct attempts, pass@k, k/k) and correct attempts by attempt count."""
    # the sum as one fraction over the attempt counts' least common multiple, each float
    # from it by one integer division (which Python rounds correctly)
    common = math.lcm(*by_n)
    exact = sum(c * (common // n) for n, c in by_n.items())
    share = exact / (common * total) if total else None
    return Figures(tally[0], exact / common, tally[1], tally[2], total, share)


def _question_notes(notes: Notes, main: SplitResult, sub: SplitResult, beyond: list[str]) -> None:
    for split in (main, sub):
        for qid in split.fewer_than_k:
            notes.add("fewer_than_k", qid)
    for qid in _sorted_ids(beyond):
        notes.add("more_than_k", qid)
    if main.questions and not main.attempts and sub.attempts:
        notes.add("no_main_attempts", main.questions)


def _fingerprint(parsed_answers: Mapping[str, list[str]]) -> str:
    """SHA-256 over the extracted answers, question by question (ids sorted)."""
    import hashlib  # (here: the fingerprint is worked out when first read, if ever)

    text = "\x1d".join(
        qid + "\x1f" + "\x1e".join(parsed_answers[qid]) for qid in sorted(parsed_answers)
    )
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

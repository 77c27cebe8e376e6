"""Scoring answer lines against a key, a megabyte at a time in bounded memory.

A model's output repeats itself (a file of answer lines has few distinct lines), so
each chunk of about a megabyte is split into lines, the distinct lines are counted,
and only distinct lines are parsed. Counting the lines backwards keeps them in order
of their last occurrence, which is all "the last answer stands" needs. A chunk of
mostly different lines is scanned with the regular expressions instead, and a line
longer than a chunk is read a piece at a time.

A short text (the usual submission: about a hundred lines such as 12:3) is first tried
on a fast path that looks each line up in a table of the key's plain answer lines
(:attr:`PrimeKey.plain`) and parses none of them; see :func:`_score_small` for when it
steps aside.
"""

from __future__ import annotations

import hashlib
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import compress, repeat
from operator import eq, is_, itemgetter
from typing import Any, cast

from ..base import MAX_REPORTED_INVALID_LINES, MAX_REPORTED_QUESTIONS, AnswerSet, InvalidLine
from ..text import normalise_newlines
from .dataset import NONE
from .hints import hints_for
from .key import PrimeKey
from .parse import (
    ANSWER,
    CHUNK,
    INVALID_LINE,
    TOKEN,
    Answers,
    Parsed,
    parse_line,
    pieces,
    tighten_colons,
)
from .result import PrimeBenchResult

#: Texts up to this many characters are first tried on the fast path (_score_small);
#: well under a chunk, so to the full parser such a text is one chunk too.
_SMALL_TEXT = 1 << 16


def _chunks(text: str) -> Iterator[str]:
    """Yield pieces of about a chunk, each ending just after a newline (but the last)."""
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start + CHUNK)
        end = size if end < 0 else end + 1
        yield text[start:end]
        start = end


class _Tally:
    """What scoring accumulates while it reads the text in order.

    Only the key's questions keep their answers. Of the others (ignored by the rules,
    listed) only the question numbers are kept, once each, to tell repeats; the first
    :data:`MAX_REPORTED_QUESTIONS` are listed, the rest counted. A number below
    ``dense`` (the text's length: the map is never larger than the text) is kept as a
    byte in a map indexed by it, where a set would keep about 60 bytes; a file of a
    million different questions then costs a megabyte, not sixty.
    """

    def __init__(self, key: PrimeKey, dense: int = 0) -> None:
        self.questions = key.by_text.keys()
        self.final: Answers = {}  # the last answer standing per key question
        self.seen: Counter[str] = Counter()  # how many times each key question was answered
        self.dense = dense
        self.marks = bytearray()  # marks[q]: question q (below dense) was answered
        self.unknown: set[int] = set()  # every other question answered (dense or above)
        self.unknown_count = 0  # how many different questions the key lacks
        self.unknown_listed: list[int] = []  # the first of them, in order of appearance
        self.repeated: dict[int, None] = {}  # the other questions answered more than once
        self.invalid: list[InvalidLine] = []
        self.invalid_count = 0

    def answers(self, found: Sequence[tuple[str, str, str]], times: int = 1) -> None:
        questions = list(map(itemgetter(0), found))
        distinct = set(questions)
        if self.questions >= distinct:  # the usual case: all in the key
            known: Sequence[tuple[str, str, str]] = found
        else:
            in_key = distinct.intersection(self.questions)
            if in_key:
                known = list(compress(found, map(in_key.__contains__, questions)))
                distinct -= in_key
                questions = list(compress(questions, map(distinct.__contains__, questions)))
            else:  # none in the key (a file of other questions)
                known = ()
            self._unknown(questions, times)
        if not known:
            return
        self.final.update(zip(map(itemgetter(0), known), map(itemgetter(1, 2), known), strict=True))
        if times == 1:
            self.seen.update(map(itemgetter(0), known))
        else:
            for question, _, _ in known:
                self.seen[question] += times

    def _unknown(self, digits: list[str], times: int) -> None:
        """Questions the key lacks, in order, as numbers: kept once each (to tell a
        repeat), a number is half the memory of its digits."""
        try:
            questions = list(map(int, digits))
        except ValueError:  # question 0 (no significant digits)
            questions = [int(q) if q else 0 for q in digits]
        distinct = set(questions)
        if times > 1:
            self.repeated.update(dict.fromkeys(questions))
        elif len(distinct) < len(questions):
            counts = Counter(questions)
            self.repeated.update(dict.fromkeys(q for q in questions if counts[q] > 1))
        again = self._remember(distinct)
        if again:
            self.repeated.update(
                dict.fromkeys(compress(questions, map(again.__contains__, questions)))
            )
        room = MAX_REPORTED_QUESTIONS - len(self.unknown_listed)
        if room > 0 and len(again) < len(distinct):
            fresh = dict.fromkeys(q for q in questions if q not in again)
            self.unknown_listed.extend(list(fresh)[:room])

    def _remember(self, distinct: set[int]) -> set[int]:
        """Keep questions the key lacks; returns those kept before."""
        if not distinct:
            return set()
        top = max(distinct)
        if top < self.dense:
            small, large = list(distinct), set()
        else:
            small = [q for q in distinct if q < self.dense]
            large = distinct.difference(small)
        again = large.intersection(self.unknown)
        self.unknown |= large
        if small:
            marks = self.marks
            top = max(small)
            if top >= len(marks):  # grown by doubling, up to dense
                marks.extend(bytes(min(max(top + 1, 2 * len(marks)), self.dense) - len(marks)))
            flags = itemgetter(*small)(marks) if len(small) > 1 else (marks[small[0]],)
            again.update(compress(small, flags))
            deque(map(marks.__setitem__, small, repeat(1)), maxlen=0)
        self.unknown_count += len(distinct) - len(again)
        return again

    def invalid_at(self, line: int, text: str) -> None:
        self.invalid_count += 1
        if len(self.invalid) < MAX_REPORTED_INVALID_LINES:
            self.invalid.append(InvalidLine(line, text))


def score(text: str, key: PrimeKey, *, sink: dict[str, str] | None = None) -> PrimeBenchResult:
    """Score decoded text against a key. Never raises on any text. ``sink``, when given,
    receives the answers standing to the key's questions (question digits →
    ``question:option``, as :func:`_build_result` takes them)."""
    text = normalise_newlines(text)
    if len(text) <= _SMALL_TEXT:
        result = _score_small(text, key, sink)
        if result is not None:
            return result
    tally = _Tally(key, dense=len(text))
    parsed: dict[str, Parsed] = {}
    first_line = 1
    for raw in _chunks(text):
        chunk = tighten_colons(raw)
        lines = chunk.split("\n")
        if chunk.endswith("\n"):
            lines.pop()  # the empty piece after the final newline is not a line
        if len(lines) == 1 and len(chunk) > CHUNK:
            _score_long_line(tally, chunk, raw, first_line)
        else:
            counts = Counter(reversed(lines))
            if len(counts) * 4 > len(lines) > 64:
                _score_scan(tally, chunk, raw, first_line)
            else:
                _score_distinct(tally, lines, counts, raw, first_line, parsed)
        first_line += len(lines)
    return _result(key, tally, sink)


def _score_small(
    text: str, key: PrimeKey, sink: dict[str, str] | None = None
) -> PrimeBenchResult | None:
    """The fast path for a short text, or None to leave it to the full parser.

    A line the key recognises as one plain answer (``PrimeKey.plain``), maybe with
    whitespace around it, needs no parsing; every other distinct line is checked with
    the regular expressions, all of them together. This path only takes texts whose
    other lines hold no answer: then the plain lines alone, in order, decide which
    answer stands, and the other lines can only be invalid or blank. Anything else (an
    answer in prose, two answers on a line, ``01:3``, a question the key lacks) goes to
    the full parser.
    """
    chunk = tighten_colons(text)
    lines = chunk.split("\n")
    if chunk.endswith("\n"):
        lines.pop()  # the empty piece after the final newline is not a line
    plain = key.plain
    looked_up = list(map(plain.get, lines))
    bad: set[str] = set()
    if None in looked_up:  # some lines are not plain answers: the distinct ones
        others = set(compress(lines, map(is_, looked_up, repeat(None))))
        others.discard("")
        # a plain answer with whitespace around it (12:3 and two spaces) is one too
        padded = {line: answer for line in others if (answer := plain.get(line.strip()))}
        if padded:
            looked_up = list(map(padded.get, lines, looked_up))
            others.difference_update(padded)
        if others:
            joined = "\n".join(others)
            if ANSWER.search(joined) is not None:
                return None
            bad.update(map(itemgetter(0), INVALID_LINE.finditer(joined)))
        found = list(filter(None, looked_up))
    else:
        found = cast(list[tuple[str, str]], looked_up)
    final = dict(found)
    duplicates: list[str] = []
    if len(final) != len(found):
        seen = Counter(map(itemgetter(0), found))
        duplicates = [q for q, n in seen.items() if n > 1]
    invalid: list[InvalidLine] = []
    invalid_count = 0
    if bad:
        raw_lines = text.split("\n")
        numbers = list(compress(range(1, len(lines) + 1), map(bad.__contains__, lines)))
        invalid_count = len(numbers)
        del numbers[MAX_REPORTED_INVALID_LINES:]
        invalid = [InvalidLine(n, raw_lines[n - 1]) for n in numbers]
    if sink is not None:
        sink.update(final)
    return _build_result(key, final, duplicates, (), invalid, invalid_count)


def _score_distinct(
    tally: _Tally,
    lines: list[str],
    counts: Counter[str],
    raw: str,
    first_line: int,
    parsed: dict[str, Parsed],
) -> None:
    """A chunk of repeated lines: parse each distinct line once."""
    if len(parsed) > 100_000:
        parsed.clear()  # bounded memory on files of all-different lines
    bad: set[str] = set()
    for line in reversed(counts):
        entry = parsed.get(line)
        if entry is None:
            entry = parsed[line] = parse_line(line)
        found, is_invalid = entry
        times = counts[line]
        if found:
            tally.answers(found, times)
        if is_invalid:
            bad.add(line)
    if not bad:
        return
    raw_lines = raw.split("\n")
    for index in compress(range(len(lines)), map(bad.__contains__, lines)):
        tally.invalid_at(first_line + index, raw_lines[index])


def _score_scan(tally: _Tally, chunk: str, raw: str, first_line: int) -> None:
    """A chunk of mostly different lines: regular expressions over the whole chunk."""
    tally.answers(ANSWER.findall(chunk))
    raw_lines: list[str] | None = None
    position, line = 0, first_line
    for match in INVALID_LINE.finditer(chunk):
        line += chunk.count("\n", position, match.start())
        position = match.start()
        if len(tally.invalid) >= MAX_REPORTED_INVALID_LINES:
            tally.invalid_count += 1
            continue
        if raw_lines is None:
            raw_lines = raw.split("\n")
        tally.invalid_at(line, raw_lines[line - first_line])


def _score_long_line(tally: _Tally, line: str, raw: str, number: int) -> None:
    """One line longer than a chunk: its tokens, a piece at a time, each distinct token
    parsed once (counted backwards, like lines, to keep the order of last occurrence)."""
    is_invalid = False
    for piece in pieces(line.rstrip("\n")):
        # str.split() splits at exactly the characters \s matches; "," and ";" join them
        tokens = piece.replace(",", " ").replace(";", " ").split()
        counts = Counter(reversed(tokens))
        for token in reversed(counts):
            match = TOKEN.fullmatch(token)
            if match is None:
                is_invalid = True
            else:
                question, option, none = match.groups("")
                tally.answers(((question, option, none),), counts[token])
    if is_invalid:
        tally.invalid_at(number, raw.rstrip("\n"))


def _result(key: PrimeKey, tally: _Tally, sink: dict[str, str] | None = None) -> PrimeBenchResult:
    final: dict[str, Any] = tally.final
    for digits, (option_digits, none) in final.items():  # in place: no second dict
        final[digits] = f"{digits}:{NONE if none else option_digits or '0'}"
    if sink is not None:
        sink.update(final)
    duplicates: list[str | int] = [q for q, n in tally.seen.items() if n > 1]
    duplicates.extend(tally.repeated)
    listed = tally.unknown_listed
    unknown = (listed, tally.unknown_count) if listed else ()
    return _build_result(key, final, duplicates, unknown, tally.invalid, tally.invalid_count)


def _numbers(questions: Iterable[str | int]) -> tuple[int, ...]:
    """Question numbers, or their digits (empty: question 0), as sorted numbers."""
    return tuple(sorted(int(q or "0") for q in questions))


def _build_result(
    key: PrimeKey,
    final: Mapping[str, str],
    duplicates: Sequence[str | int],
    unknown: tuple[list[int], int] | tuple[()],
    invalid: list[InvalidLine],
    invalid_count: int,
) -> PrimeBenchResult:
    """The result from the answers standing to the key's questions: question digits →
    ``question:option``, both in canonical form (no leading zeros, ``none`` in lower
    case). ``duplicates``: the questions answered more than once, in the order found;
    ``unknown``: the first questions the key lacks, and how many it lacks."""
    standing = final.values()
    in_order: Iterable[str]
    if len(final) == len(key.order) and tuple(final) == key.order:
        in_order = standing  # every question, answered in order (the usual case)
    else:
        in_order = filter(None, map(final.get, key.order))
    # the fingerprint is of the answers that count: the key's questions
    fingerprint = hashlib.sha256(";".join(in_order).encode()).hexdigest()
    correct = len(key.correct_lines.intersection(standing))
    # options outside 1-4 ("malformed but parseable") are wrong like any other
    wrong = len(final) - correct - len(key.none_lines.intersection(standing))
    total = len(key.answers)
    listed, unknown_count = unknown or ((), 0)
    repeated = _numbers(duplicates[:MAX_REPORTED_QUESTIONS])
    return PrimeBenchResult(
        total_questions=total,
        correct=correct,
        wrong=wrong,
        unanswered=total - correct - wrong,
        invalid_lines=tuple(invalid),
        invalid_line_count=invalid_count,
        duplicates=repeated,
        unknown_questions=_numbers(listed),
        hints=hints_for(invalid, frozenset(repeated)) if invalid else (),
        fingerprint=fingerprint,
        duplicate_count=len(duplicates),
        unknown_question_count=unknown_count,
    )


def answer_set(text: str, key: PrimeKey) -> AnswerSet:
    """The answers standing to the key's questions, in the key's order (``""``: no
    answer line; ``none``: answered ``none``), beside the key's own: what the copy
    check compares."""
    return score_with_answers(text, key)[1]


def score_with_answers(text: str, key: PrimeKey) -> tuple[PrimeBenchResult, AnswerSet]:
    """:func:`score` and :func:`answer_set` in one reading of the text."""
    standing: dict[str, str] = {}
    return score(text, key, sink=standing), _standing_set(standing, key)


def _standing_set(standing: Mapping[str, str], key: PrimeKey) -> AnswerSet:
    lines = map(standing.get, key.order)
    answers = tuple([line.partition(":")[2] if line else "" for line in lines])
    right = key.right
    agree = sum(map(eq, answers, right))
    return AnswerSet(answers, right, agree, len(right), comparable=True)

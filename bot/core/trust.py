"""Trust: the copy check that holds results for review, the admins' decisions, and the
notices a re-score sends.

**The copy check** (:func:`check`, called by the submission path; a run made by the bot
itself can skip it) looks at a submission's answer set (``Benchmark.answer_set``):

- against the benchmark's current key: answering at least :data:`KEY_SHARE` of the
  key's questions exactly as the key does is a copy of the key (the key is public);
- against earlier answer sets of *other* users (published or held ones), on the
  questions both answered: agreeing on at least :data:`COPY_SHARE` of them while sharing
  wrong answers worth at least :data:`MIN_EVIDENCE` is a copy (Harpp–Hogan: identical
  wrong answers are the evidence; agreeing on right answers proves nothing). Each shared
  wrong answer weighs by how rare it is: 1 when at most :data:`RARE_SHARE` of the latest
  answer sets give it, less for a common trap (``RARE_SHARE / share``). So two runs of
  one strong model (few wrong answers) are never held, nor are random or independent
  answer sets (they agree on far fewer than 97 %).

It is cheap: the candidates are an indexed lookup of the answer set's band hashes
(:func:`bands`: the answers cut into ``d + 1`` interleaved bands, ``d`` the most
questions a copy may differ on (3 % of them: 3 of 104, so 4 bands), each band holding
a wrong answer hashed. ``d`` differences touch at most ``d`` bands, so a copy shares
at least one band whole, found by its hash when it holds one of the wrong answers the
copy shares (both sides hashed it). No fewer hashes promise as much: ``d`` changes can
touch every one of ``d`` bands, or of fewer overlapping ones),
at most ``per_band`` rows a hash and :data:`CANDIDATES` compared, each answer set
unpacked only when its turn comes (the first copy decides), never a scan of a board
(``storage.trust``).

A result the check flags keeps why in ``extra["trust"]["flag"]``; publishing it
*holds* it (:func:`hold`): off every board until an admin releases or rejects it.
"""

from __future__ import annotations

import hashlib
import json
import math
import operator
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from scoring import AnswerSet, Benchmark
from scoring.base import NO_ANSWER
from storage import Flag, Submission, Visibility
from storage.trust import EXTRA as EXTRA
from storage.trust import HELD as HELD
from storage.trust import REJECTED as REJECTED
from storage.trust import RELEASED as RELEASED

from .services import Services

#: A share of the key's questions answered as the key does that holds a result.
KEY_SHARE = 0.97
#: A share of the questions both answered, answered alike, that makes two answer sets of
#: different users a copy (with enough shared wrong answers).
COPY_SHARE = 0.97
#: The weight of shared wrong answers that makes agreeing answer sets a copy.
MIN_EVIDENCE = 6.0
#: A wrong answer given by at most this share of the latest answer sets weighs 1.
RARE_SHARE = 0.10
#: Answer sets read to tell how often each answer is given, and for how long (s).
SAMPLE, SAMPLE_TTL = 500, 300.0
#: Fewer answer sets than this give a question no rarity to go by: every wrong answer
#: to it weighs 1.
MIN_SAMPLE = 20
#: Candidates compared at most (those sharing most bands first; the first copy found
#: decides), of them read in a first batch, and rows read per band hash.
CANDIDATES, FIRST_READ, PER_BAND = 32, 4, 16


@dataclass(frozen=True, slots=True)
class Verdict:
    """Why a result is held: ``key`` (it matches the key on ``agree`` of ``of``
    questions) or ``copy`` (it matches result ``match`` of another user on ``agree`` of
    the ``of`` questions both answered, ``wrong`` of them the same wrong answers)."""

    reason: str
    agree: int
    of: int
    match: int | None = None
    wrong: int = 0

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"reason": self.reason, "agree": self.agree, "of": self.of}
        if self.match is not None:
            data["match"] = self.match
            data["wrong"] = self.wrong
        return data

    @classmethod
    def from_json(cls, data: object) -> Verdict | None:
        if not isinstance(data, Mapping):
            return None
        try:
            match = data.get("match")
            return cls(
                str(data["reason"]),
                int(data["agree"]),
                int(data["of"]),
                None if match is None else int(match),
                int(data.get("wrong", 0)),
            )
        except (KeyError, TypeError, ValueError):
            return None


# --- pure parts ------------------------------------------------------------------------


def band_count(questions: int) -> int:
    """Bands an answer set of ``questions`` is cut into: one more than the differences a
    copy may have, so a copy shares at least one band whole (each band is a row the
    publication writes: no more of them than that promise needs)."""
    return max(2, min(64, math.floor(questions * (1 - COPY_SHARE)) + 1))


def wrong_at(answers: Sequence[str], right: Sequence[str]) -> tuple[int, ...]:
    """The questions answered wrong: an answer given, not declined, and not the key's."""
    pairs = enumerate(zip(answers, right, strict=True))
    return tuple([i for i, (a, r) in pairs if a and a != NO_ANSWER and a != r])


def bands(
    answers: Sequence[str], right: Sequence[str], wrong: Sequence[int] | None = None
) -> tuple[int, ...]:
    """The hashes of the bands (question ``i`` in band ``i mod n``) that hold a wrong
    answer (a band of right answers and blanks is no evidence of copying), as signed
    64-bit numbers. ``wrong``: :func:`wrong_at`, when it is known already."""
    count = band_count(len(answers))
    holding = {i % count for i in (wrong_at(answers, right) if wrong is None else wrong)}
    out = []
    for band in sorted(holding):
        text = f"{band}|{len(answers)}|" + ",".join(answers[band::count])
        digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
        out.append(int.from_bytes(digest, "big", signed=True))
    return tuple(out)


#: The compact form of answers of one character each (``=31-4.2``: ``-`` declined,
#: ``.`` not answered); others are joined with commas.
_COMPACT, _DECLINED, _BLANK = "=", "-", "."
_TO_CHAR = {"": _BLANK, NO_ANSWER: _DECLINED}
_FROM_CHAR = {_BLANK: "", _DECLINED: NO_ANSWER}


def joined(answers: Sequence[str]) -> str:
    """Answers as stored: one character each when they are single digits (a choice
    benchmark of up to 9 options), else joined with commas."""
    text = "".join(map(_TO_CHAR.get, answers, answers))  # (each a, or its mark)
    if (  # one character each, and none of them an answer spelled like a mark
        len(text) == len(answers)
        and "," not in text
        and text.count(_DECLINED) == answers.count(NO_ANSWER)
        and text.count(_BLANK) == answers.count("")
    ):
        return _COMPACT + text
    return ",".join(answers)


def split(answers: str) -> tuple[str, ...]:
    """The answers :func:`joined` stored."""
    if answers.startswith(_COMPACT):
        text = answers[1:]
        return tuple(map(_FROM_CHAR.get, text, text))
    return tuple(answers.split(","))


def key_verdict(found: AnswerSet) -> Verdict | None:
    """A copy of the key: :data:`KEY_SHARE` of its questions answered as it does."""
    if found.questions and found.agree >= KEY_SHARE * found.questions:
        return Verdict("key", found.agree, found.questions)
    return None


@dataclass(frozen=True, slots=True)
class Match:
    """Two answer sets compared: alike on ``agree`` of the ``both`` questions both
    answered (declining, ``none``, is an answer here: a copy keeps it); the questions
    where they give the same wrong answer."""

    agree: int
    both: int
    shared_wrong: tuple[int, ...]


def compare(mine: Sequence[str], other: Sequence[str], right: Sequence[str]) -> Match:
    agree = both = 0
    shared: list[int] = []
    for i, (a, b) in enumerate(zip(mine, other, strict=False)):
        if not a or not b:
            continue
        both += 1
        if a == b:
            agree += 1
            if a != NO_ANSWER and a != right[i]:  # (given: a wrong answer)
                shared.append(i)
    return Match(agree, both, tuple(shared))


class Rarity:
    """How often each answer to each question is given among a sample of answer sets."""

    def __init__(self, sample: Sequence[Sequence[str]]) -> None:
        self._given: dict[int, tuple[Counter[str], int]] = {}
        self._sample = sample

    def weight(self, question: int, answer: str) -> float:
        """1 for a rare answer; ``RARE_SHARE / share`` for a common one."""
        found = self._given.get(question)
        if found is None:
            given = Counter(
                row[question] for row in self._sample if question < len(row) and row[question]
            )
            found = self._given[question] = (given, sum(given.values()))
        given, total = found
        if total < MIN_SAMPLE:
            return 1.0
        share = given[answer] / total
        return 1.0 if share <= RARE_SHARE else RARE_SHARE / share

    def evidence(self, shared_wrong: Sequence[int], answers: Sequence[str]) -> float:
        return sum(self.weight(i, answers[i]) for i in shared_wrong)

    def enough(self, shared_wrong: Sequence[int], answers: Sequence[str]) -> bool:
        """Whether the shared wrong answers weigh :data:`MIN_EVIDENCE` (summed until
        they do: a copy shares dozens)."""
        total = 0.0
        for i in shared_wrong:
            total += self.weight(i, answers[i])
            if total >= MIN_EVIDENCE:
                return True
        return False


class Prepared:
    """An answer set made ready to be compared with many others (the candidates of one
    check): its answers as stored (:func:`joined`), and where it left blanks and where
    it answered wrong, each found once. :meth:`compare` gives what :func:`compare` gives,
    counting equal positions in C (``map``) rather than in a Python loop, on the stored
    text itself when both sides are one character an answer (no unpacking)."""

    __slots__ = ("_blanks", "_text", "found", "stored", "wrong")

    def __init__(self, found: AnswerSet) -> None:
        self.found = found
        self.stored = joined(found.answers)
        self._text = self.stored[1:] if self.stored.startswith(_COMPACT) else None
        self._blanks = tuple([i for i, a in enumerate(found.answers) if not a])
        self.wrong = wrong_at(found.answers, found.right)

    def compare(self, other: str | Sequence[str]) -> Match | None:
        """``other`` (answers, or answers as stored) compared with this set; None when it
        answers another number of questions (another key's)."""
        mine: Sequence[str] = self.found.answers
        blank = ""
        if isinstance(other, str):
            if self._text is not None and other.startswith(_COMPACT):
                mine, other, blank = self._text, other[1:], _BLANK
            else:
                other = split(other)
        if len(other) != len(mine):
            return None
        # blank on both sides: equal, but neither answered
        both_blank = sum([other[i] == blank for i in self._blanks])
        agree = sum(map(operator.eq, mine, other)) - both_blank
        both = len(mine) - (len(self._blanks) + other.count(blank) - both_blank)
        shared = tuple([i for i in self.wrong if other[i] == mine[i]])
        return Match(agree, both, shared)

    def alike(self, other: str | Sequence[str]) -> Match | None:
        """``other`` compared with this set: the match when they agree on
        :data:`COPY_SHARE` of the questions both answered and share at least
        :data:`MIN_EVIDENCE` wrong answers (each weighs at most 1), else None."""
        match = self.compare(other)
        if match is None or not match.both or match.agree < COPY_SHARE * match.both:
            return None
        if len(match.shared_wrong) < MIN_EVIDENCE:  # every weight is at most 1
            return None
        return match


def alike(found: AnswerSet, other: Sequence[str]) -> Match | None:
    """:meth:`Prepared.alike` of one comparison."""
    return Prepared(found).alike(other)


def copy_verdict(
    found: AnswerSet,
    candidates: Sequence[tuple[int, Sequence[str]]],
    rarity: Rarity | None = None,
) -> Verdict | None:
    """The first copy among ``candidates`` ((submission id, answers) of other users, the
    likeliest first), or None. Without ``rarity`` every shared wrong answer weighs 1."""
    weigh, mine = rarity or Rarity(()), Prepared(found)
    for sub_id, other in candidates:
        match = mine.alike(other)
        if match is not None and weigh.enough(match.shared_wrong, found.answers):
            return Verdict("copy", match.agree, match.both, sub_id, len(match.shared_wrong))
    return None


# --- the check -------------------------------------------------------------------------


async def _rarity(services: Services, benchmark: str) -> Rarity:
    """How often each answer is given (the latest :data:`SAMPLE` answer sets, read again
    after :data:`SAMPLE_TTL` seconds; the counts kept with them)."""
    now = time.monotonic()
    cached = services.answer_samples.get(benchmark)
    if cached is None or now - cached[0] > SAMPLE_TTL:
        rows = await services.store.recent_answers(benchmark, SAMPLE)
        cached = services.answer_samples[benchmark] = (now, Rarity([split(r) for r in rows]))
    return cast(Rarity, cached[1])


async def _copy_of(
    services: Services, benchmark: str, mine: Prepared, hashes: Sequence[int], user_id: int
) -> Verdict | None:
    """The first copy among the earlier answer sets of other users sharing a band with
    ``mine`` (those sharing most first), or None. They are read a few at a time (each
    candidate's answers are a page of their own to read, the first copy decides, and a
    copy shares most bands): :data:`FIRST_READ`, then up to :data:`CANDIDATES`."""
    rarity: Rarity | None = None
    offset = 0
    for size in (FIRST_READ, CANDIDATES - FIRST_READ):
        candidates = await services.store.candidates(
            benchmark, hashes, user_id=user_id, per_band=PER_BAND, limit=size, offset=offset
        )
        for candidate in candidates:  # compared in turn
            match = mine.alike(candidate.answers)
            if match is None:  # most never get near: no rarity needed
                continue
            rarity = rarity or await _rarity(services, benchmark)
            if rarity.enough(match.shared_wrong, mine.found.answers):
                wrong = len(match.shared_wrong)
                return Verdict("copy", match.agree, match.both, candidate.submission_id, wrong)
        if len(candidates) < size:
            break  # none left
        offset += size
    return None


async def check(
    services: Services, benchmark: Benchmark, found: AnswerSet | None, user_id: int
) -> dict[str, Any] | None:
    """The copy check of a new submission by ``user_id``: what its ``extra`` keeps
    under :data:`EXTRA` (its answers and bands for later checks, and the verdict when it
    is flagged), or None when there is nothing to keep."""
    if found is None:
        return None
    kept: dict[str, Any] = {}
    verdict = key_verdict(found)
    if found.comparable and found.answers:
        mine = Prepared(found)
        hashes = bands(found.answers, found.right, mine.wrong)
        kept["answers"] = mine.stored
        kept["bands"] = list(hashes)
        if verdict is None and hashes:
            verdict = await _copy_of(services, benchmark.name, mine, hashes, user_id)
    if verdict is not None:
        kept["flag"] = verdict.to_json()
    return kept or None


def verdict_of(sub: Submission) -> Verdict | None:
    """Why the copy check flagged a stored submission, or None."""
    kept = sub.extra.get(EXTRA)
    return Verdict.from_json(kept.get("flag")) if isinstance(kept, Mapping) else None


# --- holding and deciding --------------------------------------------------------------


async def held_state(services: Services, sub: Submission) -> tuple[Verdict, Flag | None] | None:
    """A flagged submission's verdict and its flag row (None until it was held)."""
    verdict = verdict_of(sub)
    if verdict is None:
        return None
    return verdict, await services.store.flag_of(sub.id)


async def is_held(services: Services, sub: Submission) -> bool:
    """Whether a result waits for an admin's review: held, and not withdrawn by its
    owner since (which waits for no one until they ask to publish it again)."""
    if sub.visibility is Visibility.WITHDRAWN:
        return False
    found = await held_state(services, sub)
    return found is not None and found[1] is not None and found[1].state == HELD


async def withdrawn_held(services: Services, sub: Submission) -> bool:
    """Whether a result held for review was withdrawn by its owner since."""
    if sub.visibility is not Visibility.WITHDRAWN:
        return False
    found = await held_state(services, sub)
    return found is not None and found[1] is not None and found[1].state == HELD


async def hold(services: Services, sub: Submission, verdict: Verdict) -> Flag:
    """Hold a flagged result instead of publishing it."""
    reason = json.dumps(verdict.to_json(), sort_keys=True)
    return await services.store.hold(sub, reason)

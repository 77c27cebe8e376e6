"""The small frozen dataclasses the store takes and returns. Callers never see a cursor."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol


class Visibility(StrEnum):
    """Where a submission shows.

    ``private`` (just scored) → ``published`` (on the boards) → ``hidden`` (by an admin);
    ``withdrawn`` (by its owner, from private or published).
    """

    PRIVATE = "private"
    PUBLISHED = "published"
    HIDDEN = "hidden"
    WITHDRAWN = "withdrawn"


class ScoredResult(Protocol):
    """What the store needs from a scoring result (every ``scoring.Result`` fits)."""

    @property
    def primary(self) -> float: ...

    @property
    def fingerprint(self) -> str: ...

    def to_record(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class PackedText:
    """A raw input compressed as the store keeps it (``pack_raw``), with its length in
    characters: a large input is packed in a worker process while it is scored, so the
    text itself never has to be in the recording process."""

    blob: bytes = field(repr=False)
    chars: int


@dataclass(frozen=True, slots=True, kw_only=True)
class NewSubmission:
    """A scored submission to record. ``model`` and ``mode`` may come later (buttons).

    ``raw`` is the decoded input exactly as scored (kept losslessly, compressed), or
    that input already packed by ``pack_raw`` (a worker process packs a large one).
    ``extra`` holds benchmark-specific JSON-able data (e.g. a challenge's target,
    cost, latency); a re-score passes it to the scorer as ``options``.
    """

    user_id: int
    chat_id: int
    message_id: int
    benchmark: str
    raw: str | PackedText
    result: ScoredResult
    scorer_version: str
    key_version_id: int | None = None
    model: str | None = None
    mode: str | None = None
    extra: Mapping[str, Any] | None = None
    #: the standard error of the score over its questions (-1: none; None: not known,
    #: computed when a board first shows it), and the provider its submitter named
    score_se: float | None = None
    provider: str | None = None


@dataclass(frozen=True, slots=True)
class Submission:
    """A stored submission (without its raw text: see ``Store.raw_text``).

    ``record`` is the result's ``to_record()`` data; rebuild the result object with
    ``scoring.get(sub.benchmark).result_from_record(sub.record)``. ``score`` is the
    ranking figure (the result's ``primary``). ``created`` tells whether the call that
    returned it stored it just now (``record_submission`` only; False elsewhere).
    """

    id: int
    user_id: int
    chat_id: int
    message_id: int
    benchmark: str
    key_version_id: int | None
    model: str | None
    model_norm: str | None
    mode: str | None
    score: float
    fingerprint: str | None
    record: Mapping[str, Any]
    scorer_version: str
    extra: Mapping[str, Any]
    raw_chars: int
    created_at: datetime
    published_at: datetime | None
    visibility: Visibility
    verified: bool
    #: who made it: None a person (a paste, an upload, the API); ``benchboard`` a run
    #: Benchboard made itself (``storage.runs``)
    origin: str | None = None
    created: bool = False

    @property
    def mark(self) -> str:
        """``benchboard`` (run by Benchboard), ``verified`` or ``self`` (self-reported)."""
        if self.origin == "benchboard":
            return "benchboard"
        return "verified" if self.verified else "self"


@dataclass(frozen=True, slots=True)
class DefinitionVersion:
    """One stored definition of a benchmark defined by data (its text, a kind's JSON);
    the latest version is the benchmark's. ``created`` is True when it was stored now."""

    benchmark: str
    version: int
    kind: str
    sha256: str
    definition: str
    source: str
    loaded_at: datetime
    created: bool = False


@dataclass(frozen=True, slots=True)
class KeyVersion:
    """One stored answer key of a benchmark. ``created`` is True when ``save_key`` stored it."""

    id: int
    benchmark: str
    version: int
    sha256: str
    source: str
    loaded_at: datetime
    created: bool = False


@dataclass(frozen=True, slots=True)
class User:
    id: int
    first_name: str
    last_name: str | None
    username: str | None
    language_code: str | None
    chosen_language: str | None
    first_seen: datetime
    last_seen: datetime
    public: bool = False  # /public: the name shows on the web boards


@dataclass(frozen=True, slots=True)
class Chat:
    id: int
    type: str
    title: str | None
    first_seen: datetime
    last_seen: datetime


@dataclass(frozen=True, slots=True)
class BoardRow:
    """One line of a leaderboard: a (normalised model, mode) and its best published result.

    ``runs`` counts distinct answer sets (equal fingerprints are one run) and ``mean`` is
    their mean. ``model``, ``submission_id``, ``user_id`` and ``verified`` describe the
    best submission (the earliest one when several share the best score). Reference
    entries (reported by a benchmark's authors) have ``reported=True``, no submission
    and no user, and are listed apart (``Board.references``), never ranked among
    submissions.
    """

    rank: int
    model: str
    mode: str
    best: float
    runs: int
    mean: float
    submission_id: int | None
    user_id: int | None
    first_at: datetime
    last_at: datetime
    verified: bool
    reported: bool = False
    source: str | None = None
    #: the best submission was made by Benchboard itself (a run, not a paste)
    benchboard: bool = False

    @property
    def mark(self) -> str:
        """The row's mark: ``benchboard`` (run by Benchboard), ``verified``, ``self``
        (self-reported) or ``reported`` (the benchmark's authors')."""
        if self.reported:
            return "reported"
        return "benchboard" if self.benchboard else "verified" if self.verified else "self"


@dataclass(frozen=True, slots=True)
class Board:
    """A page of a leaderboard.

    ``total`` counts every row of the board (all pages). ``key_version`` is the version
    number of the benchmark's current key (None without a key); ``rescoring`` is True
    while some published submissions are not yet re-scored against it. ``references``
    are the benchmark authors' reported results (only on the global, all-time board).
    """

    rows: tuple[BoardRow, ...]
    total: int
    key_version: int | None
    references: tuple[BoardRow, ...] = ()
    rescoring: bool = False


@dataclass(frozen=True, slots=True)
class RescoreReport:
    """What a re-score did.

    ``total`` submissions of the benchmark were looked at by the job (across resumed
    runs), ``rescored`` were scored again in this call, ``changed`` of those got a
    different score, fingerprint or breakdown, ``skipped`` had no key to score against
    (or were already on the current key). ``resumed`` is True when this call continued
    an interrupted job.
    """

    benchmark: str
    #: None for a benchmark without stored keys
    key_version: int | None
    total: int
    rescored: int
    changed: int
    skipped: int
    batches: int
    resumed: bool
    seconds: float
    #: the scorer version every re-scored submission is now on
    scorer_version: str = ""


@dataclass(frozen=True, slots=True)
class Ban:
    """A user whose submissions are on no board (they can still score privately)."""

    user_id: int
    reason: str | None
    banned_by: int
    banned_at: datetime


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One moderation action: who did what to which target, when and why.

    ``chat_id`` is the chat whose board the action concerns (the chat a submission was
    published from); None for bot-wide actions (bans, keys).
    """

    id: int
    at: datetime
    actor_id: int
    chat_id: int | None
    action: str
    target: str
    reason: str | None

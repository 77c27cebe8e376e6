"""What the copy check says: why a result is held, the card's line about it, the
admins' ``/flags`` list and the notices a re-score sends. Pure: plain values in, text
out (HTML: anything a user typed is escaped)."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from .i18n import t, tn


def held_reason(
    lang: str, reason: str, agree: int, of: int, match: int | None = None, wrong: int = 0
) -> str:
    """ "matches the public key on 104/104", "same answers as #12 by another user on
    101/104, 9 shared wrong answers"."""
    if reason == "key":
        return t(lang, "held_reason_key", agree=agree, of=of)
    return tn(lang, "held_reason_copy", wrong, match=match, agree=agree, of=of)


def held_line(lang: str, state: str | None, reason: str) -> str:
    """The card's line: flagged (``None``: not asked to publish yet), held, released,
    rejected."""
    if state == "released":
        return t(lang, "held_line_released")
    if state == "rejected":
        return t(lang, "held_line_rejected")
    if state == "held":
        return t(lang, "held_line_held", reason=reason)
    return t(lang, "held_line_flagged", reason=reason)


@dataclass(frozen=True, slots=True)
class FlagLine:
    """One held result of ``/flags``."""

    submission_id: int
    model: str | None
    owner: str
    benchmark: str
    score: str
    reason: str


def render_flags(lang: str, lines: Sequence[FlagLine], total: int, page: int, pages: int) -> str:
    if not lines:
        return t(lang, "flags_none")
    out = [tn(lang, "flags_title", total, page=page + 1, pages=pages)]
    for line in lines:
        out.append(
            t(
                lang,
                "flags_line",
                id=line.submission_id,
                model=html.escape(line.model or "—"),
                owner=html.escape(line.owner),
                benchmark=html.escape(line.benchmark),
                score=line.score,
                reason=line.reason,
            )
        )
    return "\n\n".join(out)


@dataclass(frozen=True, slots=True)
class Change:
    """One result a re-score changed: its score and rank (on the global board; None:
    not a board line's best) before and after."""

    submission_id: int
    model: str | None
    benchmark: str
    before: str
    after: str
    rank_before: int | None
    rank_after: int | None


def render_notice(lang: str, changes: Sequence[Change], total: int = 0) -> str:
    """The one message a user gets after a re-score: each result, before → after
    (``total``: how many changed, when ``changes`` lists only the first of them)."""
    total = max(total, len(changes))
    lines = [tn(lang, "notice_title", total)]
    for change in changes:
        ranks = ""
        if change.rank_before != change.rank_after or change.rank_before is not None:
            ranks = " " + t(
                lang,
                "notice_rank",
                before="—" if change.rank_before is None else change.rank_before,
                after="—" if change.rank_after is None else change.rank_after,
            )
        lines.append(
            t(
                lang,
                "notice_line",
                id=change.submission_id,
                model=html.escape(change.model or "—"),
                benchmark=html.escape(change.benchmark),
                before=change.before,
                after=change.after,
            )
            + ranks
        )
    if total > len(changes):
        lines.append(tn(lang, "notice_more", total - len(changes)))
    lines.append(t(lang, "notice_off_hint"))
    return "\n".join(lines)

"""Pure rendering of the admins' replies (Telegram HTML): key info, re-score reports,
the audit log. Everything that came from a user, a file or a model is escaped."""

from __future__ import annotations

import html
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from .format import fits, mode_label
from .i18n import N_, digits, t, tn
from .views import KeyInfo

if TYPE_CHECKING:
    from storage import AuditEntry, BoardRow, RescoreReport


_TIME = "%Y-%m-%d %H:%M UTC"


def _when(moment: datetime, lang: str) -> str:
    """A moment in the reader's digits (one digit script per reader)."""
    return digits(lang, moment.strftime(_TIME))


def _figure(value: float) -> str:
    return f"{value:+g}" if value == int(value) else f"{value:.3g}"


#: Ids built at run time (extraction finds them here).
_DOUBT_IDS = (
    N_("keyinfo_doubt_none"),
    N_("keyinfo_doubt_title"),
    N_("keyinfo_doubt_row"),
    N_("keyinfo_doubt_fix"),
)


def render_keyinfo(lang: str, infos: Sequence[KeyInfo]) -> str:
    """``/keyinfo``: per benchmark the loaded version, SHA-256, when and from where."""
    out = [t(lang, "keyinfo_title")]
    for info in infos:
        title = html.escape(info.benchmark.title)
        version = info.version
        out.append("")
        if version is None:
            out.append(t(lang, "keyinfo_missing", benchmark=title))
            continue
        out.append(
            t(
                lang,
                "keyinfo_row",
                benchmark=title,
                version=version.version,
                versions=info.versions,
                sha=version.sha256,
                stored=_when(version.loaded_at, lang),
                loaded=_when(info.loaded_at or version.loaded_at, lang),
                source=html.escape(info.source),
            )
        )
        out.extend(_doubts(lang, info))
    return "\n".join(out)


def _doubts(lang: str, info: KeyInfo) -> list[str]:
    """Where most of the strongest results contradict the key: each question with the
    key's option and theirs, and the way to correct it (``/setkey``)."""
    if not info.strong:
        return []
    if not info.doubts:
        return [t(lang, "keyinfo_doubt_none", n=info.strong)]
    lines = [t(lang, "keyinfo_doubt_title", n=info.strong)]
    lines += [
        t(lang, "keyinfo_doubt_row", question=d.question, answer=d.key_option, chosen=d.chosen,
          agree=d.agree, strong=d.strong)
        for d in info.doubts
    ]  # fmt: skip
    lines.append(t(lang, "keyinfo_doubt_fix", name=info.benchmark.name))
    return lines


def _top(rows: Sequence[BoardRow], lang: str) -> list[str]:
    if not rows:
        return [t(lang, "rescore_empty")]
    return [
        f"  {row.rank}. {html.escape(row.model[:48])} · {mode_label(row.mode)} · "
        f"{_figure(row.best)}"
        for row in rows
    ]


def render_rescore_done(
    lang: str,
    title: str,
    report: RescoreReport,
    before: Sequence[BoardRow] | None,
    after: Sequence[BoardRow],
) -> str:
    """The report sent when a background re-score ends: changes, top before (None: not
    known, for a re-score resumed at a start) and after."""
    counts = {
        "benchmark": html.escape(title),
        "changed": report.changed,
        "seconds": f"{report.seconds:.1f}",
    }
    if report.key_version is None:  # no stored key: the scorer version is what changed
        done = tn(
            lang, "rescore_done_scorer", report.total, version=report.scorer_version, **counts
        )
    else:
        done = tn(lang, "rescore_done", report.total, version=report.key_version, **counts)
    out = [done, ""]
    if before is not None:
        out += [t(lang, "rescore_before"), *_top(before, lang)]
    out += [t(lang, "rescore_after"), *_top(after, lang)]
    return "\n".join(out)


#: The answer to ``/benchmark add`` by what it changed (``bot.core.benchmarks.Change``).
BENCHMARK_ADDED = {
    "new": N_("benchmark_added"),
    "definition": N_("benchmark_new_definition"),
    "key": N_("benchmark_new_key"),
    "both": N_("benchmark_new_both"),
    "none": N_("benchmark_same"),
}


def render_benchmark_added(
    lang: str,
    *,
    change: str,
    title: str,
    name: str,
    version: int,
    key_version: int,
    pending: int,
) -> str:
    """The answer to ``/benchmark add``: what changed (the benchmark is new; its
    definition, its key or both changed; nothing did) with the versions, then what is
    re-scored. A change that leaves nothing to re-score says so."""
    values = {"title": html.escape(title), "name": name, "version": version}
    lines = [t(lang, BENCHMARK_ADDED[change], key_version=key_version, **values)]
    if pending:
        lines.append(tn(lang, "key_rescoring", pending))
    elif change in ("definition", "key", "both"):
        lines.append(t(lang, "key_nothing_to_rescore"))
    return "\n".join(lines)


def render_audit(lang: str, entries: Sequence[AuditEntry]) -> str:
    if not entries:
        return t(lang, "audit_empty")
    out = [t(lang, "audit_title")]
    for entry in entries:
        shown = (
            entry.reason
            if not entry.reason or len(entry.reason) <= 100
            else entry.reason[:99] + "…"
        )
        reason = f" — {html.escape(shown)}" if shown else ""
        out.append(
            t(
                lang,
                "audit_row",
                at=_when(entry.at, lang),
                actor=entry.actor_id,
                action=html.escape(entry.action),
                target=html.escape(entry.target),
                reason=reason,
            )
        )
    while not fits("\n".join(out)) and len(out) > 2:
        out.pop()  # the oldest entries go first
    return "\n".join(out)

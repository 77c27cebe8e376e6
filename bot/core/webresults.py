"""The web's use cases of one result: its page, its signed record (``/r/<token>.json``,
before the signature: :mod:`bot.core.signing`), its link-preview card, and a
signed-in user's own results (the Mini App).

No user id leaves here: a submitter is shown by name only when they chose ``/public``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from scoring import Benchmark, Result, registry
from storage import Submission, web_rows
from storage.web_rows import RowInfo

from ..render.card_views import ResultCardView
from ..render.webviews import MyResult, MyResults, WebResult
from . import intervals, links, provenance, sharing
from .errors import UserError
from .services import Services


async def _published(
    services: Services, token: str
) -> tuple[Submission, Benchmark, Result, RowInfo | None]:
    """The published result behind ``token``: the submission, its benchmark, its result
    and its row's details; hidden, withdrawn and unknown: UserError."""
    sub = await links.open_result(services, token)
    if sub is None:
        raise UserError("web_not_found")
    benchmark = registry.find(sub.benchmark)
    if benchmark is None:  # defined by another process since this one read them
        raise UserError("web_unknown_benchmark")
    found = benchmark.result_from_record(sub.record)
    info = (await web_rows.row_info(services.store, [sub.id])).get(sub.id)
    return sub, benchmark, found, info


async def result(services: Services, token: str, bot_username: str | None) -> WebResult:
    """One published result by its token; hidden, withdrawn and unknown: UserError."""
    sub, benchmark, found, info = await _published(services, token)
    return WebResult(
        token=token,
        benchmark=benchmark.name,
        title=benchmark.title,
        credit=benchmark.credit,
        model=sub.model or "",
        mode=sub.mode or "",
        score=benchmark.format_score(sub.score),
        mark=sub.mark,
        author=info.author if info else None,
        fields=found.card().summary,
        invalid_lines=tuple((il.line, il.text[:500]) for il in found.invalid_lines[:500]),
        invalid_count=found.invalid_line_count,
        hints=found.hints,
        key_version=info.key_version if info else None,
        key_hash=info.key_sha[:8] if info and info.key_sha else None,
        scorer_version=sub.scorer_version,
        created_at=sub.created_at,
        published_at=sub.published_at,
        from_group=bool(info and info.chat_type in ("group", "supergroup")),
        provenance=tuple((k, str(v)) for k, v in provenance.of(sub.extra).items()),
        bot_link=(
            links.start_link(bot_username, links.payload("result", token)) if bot_username else None
        ),
        declared=benchmark,
    )


#: The marks a result may carry besides "self" (self-reported: nobody vouches for it),
#: in the order shown, each with the test that gives it. A new mark is one more entry
#: (run by Benchboard, when Benchboard itself ran the model).
MARKS: tuple[tuple[str, Callable[[Submission], bool]], ...] = (
    ("benchboard", lambda sub: sub.mark == "benchboard"),
    ("verified", lambda sub: sub.verified),
)


def marks(sub: Submission) -> list[str]:
    """A published result's marks: those :data:`MARKS` give it, else ``["self"]``."""
    return [name for name, test in MARKS if test(sub)] or ["self"]


def _plain(value: Any) -> Any:
    """A declared value as JSON (a tuple of names as a list)."""
    return list(value) if isinstance(value, tuple) else value


async def result_record(services: Services, token: str, base: str) -> dict[str, Any]:
    """The published result behind ``token`` as ``/r/<token>.json`` gives it (before
    its signature: ``bot.core.signing``); hidden, withdrawn and unknown: UserError.
    ``base``: the server's public address (the record says where it came from)."""
    sub, benchmark, found, info = await _published(services, token)
    breakdown = found.to_json()
    breakdown.pop("invalid_lines", None)  # their count stays; the page lists them
    se = intervals.result_se(benchmark, found)
    return {
        "benchmark": benchmark.name,
        "model": sub.model,
        "mode": sub.mode,
        "score": sub.score,
        "ci95": list(c) if (c := intervals.line_interval(sub.score, se, 1, None)) else None,
        "scores": {s.field.key: _plain(s.value) for s in found.card().summary},
        "breakdown": breakdown,
        "key_sha256": info.key_sha if info else None,
        "key_version": info.key_version if info else None,
        "scorer_version": sub.scorer_version,
        "submitted_at": sub.created_at.isoformat(),
        "published_at": sub.published_at.isoformat() if sub.published_at else None,
        "marks": marks(sub),
        "provenance": provenance.of(sub.extra),
        "url": f"{base}/r/{token}.json",
        "page": f"{base}/r/{token}",
        # a score quoted from the record carries the benchmark's credit and license
        "credit": benchmark.credit or None,
    }


async def my_results(services: Services, user_id: int, name: str, limit: int = 20) -> MyResults:
    """The signed-in user's latest submissions (any state), newest first; published ones
    with their page."""
    subs: list[Submission] = await services.store.history(user_id, limit=limit)
    published = [s.id for s in subs if await links.visible(services, s)]
    tokens = await web_rows.result_tokens(services.store, published)
    out = []
    credits: dict[str, None] = {}
    for sub in subs:
        benchmark = registry.find(sub.benchmark)  # None: one not known here (yet)
        if benchmark is not None and benchmark.credit:  # a score listed carries its credit
            credits[benchmark.credit] = None
        out.append(
            MyResult(
                title=benchmark.title if benchmark else sub.benchmark,
                model=sub.model,
                mode=sub.mode,
                score=benchmark.format_score(sub.score) if benchmark else f"{sub.score:+g}",
                state=str(sub.visibility.value),
                created_at=sub.created_at,
                token=tokens.get(sub.id),
            )
        )
    return MyResults(name, tuple(out), tuple(credits))


async def result_card(
    services: Services, token: str, lang: str, bot_username: str | None
) -> tuple[ResultCardView, str]:
    """A published result's card (light, in ``lang``) and the digest of what it shows;
    hidden, withdrawn and unknown: :class:`UserError`."""
    sub = await links.open_result(services, token)
    if sub is None:
        raise UserError("web_not_found")
    view = await sharing.card_view(services, sub, lang=lang, theme_="light")
    view = replace(view, bot_username=bot_username or "")
    return view, sharing.card_key(view, sub.id)

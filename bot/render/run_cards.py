"""What the chat shows of Benchboard's own runs: the progress message, a card per
attempt (the score as a paste's reply writes it, marked run by Benchboard, with tokens,
cost and latency), and the admins' daily cost report. Pure: text from plain values."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from scoring import Benchmark, Result
from scoring.base import MONEY, SECONDS

from .fields import write
from .format import MESSAGE_LIMIT, SHOWN_INVALID, fits, render_result
from .i18n import digits, t, tn

#: The mark every card, board and page shows beside a run by Benchboard.
MARK = "🤖"


@dataclass(frozen=True, slots=True)
class AttemptLine:
    """One attempt as the progress message lists it."""

    n: int
    state: str  # queued | done | failed | cancelled
    score: str = ""
    error: str = ""


def money(lang: str, usd: float) -> str:
    return write(MONEY, usd, lang=lang)


def seconds(lang: str, value: float) -> str:
    return write(SECONDS, value, lang=lang)


def run_figures(
    lang: str, input_tokens: int | None, output_tokens: int | None, cost: float | None,
    latency: float,
) -> str:  # fmt: skip
    """An attempt's tokens, cost and latency (tokens and cost None: the provider did
    not report them, said so rather than shown as 0)."""
    if input_tokens is None or output_tokens is None or cost is None:
        return t(lang, "run_figures_unknown", latency=seconds(lang, latency))
    return t(
        lang,
        "run_figures",
        input=digits(lang, str(input_tokens)),
        output=digits(lang, str(output_tokens)),
        cost=money(lang, cost),
        latency=seconds(lang, latency),
    )


def run_card(
    lang: str,
    result: Result,
    benchmark: Benchmark,
    *,
    model: str,
    mode_label: str,
    submission_id: int,
    published: bool,
    input_tokens: int | None,
    output_tokens: int | None,
    cost: float | None,
    latency: float,
) -> str:
    """An attempt's card: the reply a paste of the same answer gets, marked run by
    Benchboard, with the run's own figures; always under Telegram's limit."""
    extra = [
        "",
        run_figures(lang, input_tokens, output_tokens, cost, latency),
        t(lang, "submission_id", id=submission_id),
    ]
    if published:
        extra.append(t(lang, "published_mark"))
    shown = SHOWN_INVALID
    while True:
        text = render_result(
            result, benchmark, lang=lang, html_mode=True, mode_label=mode_label, model=model,
            max_invalid=shown, extra_lines=extra, head_lines=[t(lang, "run_by_benchboard")],
        )  # fmt: skip
        if fits(text) or shown == 0:
            return text[:MESSAGE_LIMIT]
        shown //= 2


def run_progress(
    lang: str, title: str, model: str, mode_label: str, state: str, lines: Sequence[AttemptLine]
) -> str:
    """The progress message, edited as attempts finish."""
    done = sum(1 for a in lines if a.state in ("done", "failed"))
    out = [
        t(lang, "run_progress", benchmark=html.escape(title), model=html.escape(model),
          mode=html.escape(mode_label), done=done, total=len(lines)),
    ]  # fmt: skip
    for a in lines:
        if a.state == "done":
            out.append(t(lang, "run_attempt_done", n=a.n, score=html.escape(a.score)))
        elif a.state == "failed":
            out.append(t(lang, "run_attempt_failed", n=a.n, reason=html.escape(a.error[:300])))
    if state == "cancelled":
        out.append(t(lang, "run_cancelled"))
    elif state == "done":
        out.append(t(lang, "run_finished"))
    return "\n".join(out)[:MESSAGE_LIMIT]


def cost_report(lang: str, day: str, rows: Sequence[tuple[str, str, int, float, int]]) -> str:
    """The admins' report of a day's runs: per origin and model, attempts and cost (and
    how many attempts' cost their provider did not report: not in the sums)."""
    out = [t(lang, "run_cost_report", day=day)]
    for origin, model, attempts, cost, unknown in rows:
        line = f"• {html.escape(model)} ({html.escape(origin)}): " + t(
            lang,
            "run_cost_line",
            attempts=tn(lang, "daily_attempts", attempts),
            cost=money(lang, cost),
        )
        if unknown:
            line += " " + tn(lang, "run_cost_unknown", unknown)
        out.append(line)
    if not rows:
        out.append(t(lang, "run_cost_none"))
    else:
        out.append(t(lang, "run_cost_total", cost=money(lang, sum(r[3] for r in rows))))
    return "\n".join(out)[:MESSAGE_LIMIT]

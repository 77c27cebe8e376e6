"""Pure rendering: results and boards to text. No Telegram objects, no I/O.

Two targets share one renderer: plain text (the CLI) and Telegram HTML (the bot), where
everything that came from a user or a model is escaped. ``Label: value`` lines carry no
markup, so they read the same in both.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from scoring import Benchmark, Result

from .i18n import field_label, t

#: Telegram's limit for one message.
MESSAGE_LIMIT = 4096
#: How long a shown line of user text may be before it is cut.
SHOWN_LINE = 120


def _shorten(text: str, limit: int = SHOWN_LINE) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def numbers_list(numbers: Sequence[int], limit: int = 30) -> str:
    shown = ", ".join(str(n) for n in numbers[:limit])
    return shown + (f" … (+{len(numbers) - limit})" if len(numbers) > limit else "")


def render_result(
    result: Result,
    benchmark: Benchmark,
    *,
    lang: str = "en",
    html_mode: bool = False,
    mode_label: str | None = None,
    model: str | None = None,
    max_invalid: int | None = None,
    extra_lines: Sequence[str] = (),
) -> str:
    """The score reply: breakdown, mode/model, invalid lines, hints, credit.

    ``max_invalid`` caps how many invalid lines are listed (None lists every one kept).
    ``extra_lines`` are already-rendered lines added before the credit.
    """
    esc = html.escape if html_mode else (lambda s: s)
    out: list[str] = []
    title = benchmark.title
    out.append(f"<b>{esc(title)}</b>" if html_mode else title)
    if model:
        out.append(f"{t(lang, 'model')}: {esc(model)}")
    if mode_label:
        out.append(f"{t(lang, 'mode')}: {esc(mode_label)}")
    out.append("")
    for key, value in result.summary_fields():
        out.append(f"{field_label(lang, key)}: {esc(value)}")
    out.append("")
    count = result.invalid_line_count
    if count:
        out.append(t(lang, "invalid_lines", count=count))
        lines = result.invalid_lines if max_invalid is None else result.invalid_lines[:max_invalid]
        for invalid in lines:
            text = esc(_shorten(invalid.text)) if max_invalid is not None else esc(invalid.text)
            out.append("  " + t(lang, "invalid_line", line=invalid.line, text=text))
        if count > len(lines):
            out.append("  " + t(lang, "more_invalid", count=count - len(lines)))
    else:
        out.append(t(lang, "no_invalid"))
    duplicates = getattr(result, "duplicates", ())
    if duplicates:
        out.append(t(lang, "duplicates", items=numbers_list(duplicates)))
    unknown = getattr(result, "unknown_questions", ())
    if unknown:
        out.append(t(lang, "unknown_questions", items=numbers_list(unknown)))
    if result.hints:
        out.append(t(lang, "hints"))
        out.extend(f"  • {esc(h.message)}" for h in result.hints)
    out.extend(extra_lines)
    if benchmark.credit:
        out.append("")
        out.append(esc(benchmark.credit))
    return "\n".join(out)

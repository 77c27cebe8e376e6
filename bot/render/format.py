"""Pure rendering: results and score cards to text (boards: :mod:`bot.render.boards`).
No Telegram objects, no I/O.

Two targets share one renderer: plain text (the CLI) and Telegram HTML (the bot), where
everything that came from a user or a model is escaped. ``Label: value`` lines carry no
markup, so they read the same in both.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

from scoring import Benchmark, Hint, InvalidLine, Mode, Result

from .fields import hint_values, prose, prose_number, shown_line
from .i18n import join_list, t, tn, translated

_LABELS = {m.value: m.label for m in Mode}


def mode_label(value: str | None, lang: str = "en") -> str | None:
    """A stored mode as people read it in ``lang`` (``think & tools``); an unknown one
    as stored."""
    if value is None:
        return None
    if lang != "en" and value in _LABELS and translated(lang, f"mode_{value}"):
        return t(lang, f"mode_{value}")
    return _LABELS.get(value, value)


#: Telegram's limit for one message, counted in UTF-16 code units.
MESSAGE_LIMIT = 4096


def fits(text: str, limit: int = MESSAGE_LIMIT) -> bool:
    """Whether Telegram takes ``text`` as one message (it counts UTF-16 code units)."""
    return len(text) <= limit // 2 or len(text.encode("utf-16-le")) <= 2 * limit


#: How many benchmark names a list of them in a message shows: an admin may define a
#: hundred benchmarks (``benchmark add``), and the list is one line of a message.
SHOWN_NAMES = 30


def names_list(names: Sequence[str], lang: str = "en", *, sep: str | None = None) -> str:
    """The first :data:`SHOWN_NAMES` names, and how many more (``sep`` between them,
    else the language's list separator)."""
    if sep is None:
        return numbers_list(names, SHOWN_NAMES, lang=lang)
    more = len(names) - SHOWN_NAMES
    return sep.join(names[:SHOWN_NAMES]) + (f" … (+{more})" if more > 0 else "")


def split_lines(head: str, lines: Sequence[str], limit: int = MESSAGE_LIMIT) -> list[str]:
    """``head`` and ``lines`` as few messages as Telegram takes, each whole lines (a
    list of every benchmark may be longer than one message)."""
    messages: list[str] = []
    current = head
    for line in lines:
        joined = f"{current}\n{line}" if current else line
        if current and not fits(joined, limit):
            messages.append(current)
            joined = line
        current = joined
    return [*messages, current] if current else messages


#: How long a shown line of user text may be before it is cut.
SHOWN_LINE = 120


def shorten(text: str, limit: int = SHOWN_LINE) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def numbers_list(
    numbers: Sequence[object], limit: int = 30, *, lang: str = "en", total: int | None = None
) -> str:
    """The first ``limit`` numbers, and how many more (of ``total``: a result may list
    fewer than it counted)."""
    shown = join_list(lang, numbers[:limit])
    more = (len(numbers) if total is None else total) - min(limit, len(numbers))
    return shown + (f" … (+{more})" if more > 0 else "")


def hint_text(
    lang: str,
    hint: Hint,
    values: Mapping[str, object] | None = None,
    benchmark: Benchmark | None = None,
) -> str:
    """A hint in the reader's language; the scorer's own (English) text otherwise.

    The text is the message ``benchmark`` declares for the hint's code
    (``Benchmark.hint_messages``). ``values``: what a hint about no line says (the
    result's own figures, ``Card.hint_values``); the hint's own ``params`` are added.
    """
    key = benchmark.hint_messages.get(hint.code) if benchmark is not None else None
    if lang == "en" or key is None or not translated(lang, key):
        return hint.message
    merged: dict[str, object] = dict(values or {})
    merged.update((k, prose_number(lang, v, join=k == "ids")) for k, v in hint.params)
    if len(hint.lines) == 1:
        merged["lines"] = t(lang, "hint_lines_one", line=hint.lines[0])
    elif hint.lines:
        lines = numbers_list(hint.lines, limit=8, lang=lang)
        merged["lines"] = t(lang, "hint_lines_many", lines=lines)
    try:
        return t(lang, key, **merged)
    except (KeyError, IndexError):
        return hint.message


def _near_misses_first(result: Result) -> list[InvalidLine]:
    """The invalid lines in the order a card lists them: the near misses (lines a hint
    is about, then lines with answer-like digits) before prose, each group in line
    order."""
    hinted = {line for hint in result.hints for line in hint.lines}

    def rank(invalid: InvalidLine) -> int:
        if invalid.line in hinted:
            return 0
        return 1 if _ANSWER_LIKE.search(invalid.text) else 2

    return sorted(result.invalid_lines, key=lambda il: (rank(il), il.line))


#: A line with something like an answer in it (``1:3``, ``۱:۳``, ``Q1``…).
_ANSWER_LIKE = re.compile(r"[0-9\u06f0-\u06f9\u0660-\u0669]\s*[:：.)]|[{}]")


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
    head_lines: Sequence[str] = (),
) -> str:
    """The score reply: breakdown, mode/model, invalid lines, hints, credit.

    ``max_invalid`` caps how many invalid lines are listed (None lists every one kept,
    in line order; a cap lists the near misses first). ``head_lines`` are
    already-rendered lines after the title, ``extra_lines`` before the credit.
    """
    esc = html.escape if html_mode else (lambda s: s)
    out: list[str] = []
    title = benchmark.title
    out.append(f"<b>{esc(title)}</b>" if html_mode else title)
    out.extend(head_lines)
    if model:
        out.append(t(lang, "model") + f": {esc(model)}")
    if mode_label:
        out.append(t(lang, "mode") + f": {esc(mode_label)}")
    out.append("")
    card = result.card()
    # a card in prose reads as prose (the command line lists every field)
    in_prose = html_mode and bool(card.prose)
    if in_prose:
        out.extend(prose(lang, benchmark, card.prose, esc))
    else:
        out.extend(shown_line(lang, shown, esc, benchmark) for shown in card.summary)
    out.append("")
    count = result.invalid_line_count
    if count:
        out.append(tn(lang, "invalid_lines", count))
        if max_invalid is None:
            lines = list(result.invalid_lines)
        else:
            lines = _near_misses_first(result)[:max_invalid]
        for invalid in lines:
            text = esc(shorten(invalid.text)) if max_invalid is not None else esc(invalid.text)
            out.append("  " + t(lang, "invalid_line", line=invalid.line, text=text))
        if count > len(lines):
            more = count - len(lines)
            if html_mode:
                out.append("  " + tn(lang, "more_invalid", more))
            else:
                out.append("  " + tn(lang, "more_invalid_plain", more))
    elif not in_prose:
        out.append(t(lang, "no_invalid"))
    if card.duplicates:
        items = numbers_list(card.duplicates, lang=lang, total=card.duplicate_count)
        out.append(t(lang, "duplicates", items=items))
    if card.unknown:
        items = numbers_list(card.unknown, lang=lang, total=card.unknown_count)
        out.append(t(lang, "unknown_questions", items=items))
    if result.hints:
        values = hint_values(lang, dict(card.hint_values))
        out.append(t(lang, "hints"))
        out.extend(f"  • {esc(hint_text(lang, h, values, benchmark))}" for h in result.hints)
    out.extend(extra_lines)
    if benchmark.credit:
        out.append("")
        out.append(esc(benchmark.credit))
    return "\n".join(out)


# --- the bot's replies (Telegram HTML) ------------------------------------------------

#: Invalid lines shown in a score reply; the rest are behind the Details button.
SHOWN_INVALID = 10


def card_hides_lines(result: Result) -> bool:
    """Whether Details has more than the card shows: invalid lines beyond those listed,
    or listed lines cut short."""
    if result.invalid_line_count > SHOWN_INVALID:
        return True
    return any(len(il.text) > SHOWN_LINE for il in result.invalid_lines)


def next_step(
    lang: str,
    *,
    has_mode: bool,
    has_model: bool,
    visibility: str,
    publishable: bool = True,
) -> str | None:
    """The one line that says what the card's owner can do next to publish, or None."""
    if visibility in ("published", "hidden"):
        return None
    if not publishable:
        return t(lang, "next_not_publishable")
    if not has_mode and not has_model:
        return t(lang, "next_mode_and_model")
    if not has_mode:
        return t(lang, "next_mode")
    if not has_model:
        return t(lang, "next_model")
    if visibility == "withdrawn":
        return t(lang, "next_publish_again")
    return t(lang, "next_publish")


def render_score_reply(
    result: Result,
    benchmark: Benchmark,
    *,
    lang: str,
    submission_id: int,
    mode_label: str | None,
    model: str | None,
    left_today: tuple[int, int] | None,
    published: bool = False,
    step: str | None = None,
    author: str | None = None,
    asked_by: str | None = None,
    withdrawn: bool = False,
    notes: Sequence[str] = (),
) -> str:
    """The reply to a submission, always under Telegram's limit. ``step``: what to do
    next to publish (:func:`next_step`); ``author`` and ``asked_by``: whose output it is
    and who asked, when they differ; ``notes``: rendered lines shown after the hints
    (which benchmark read it, a split paste)."""
    head = []
    if author is not None and asked_by is not None:
        head.append(t(lang, "scored_for", author=html.escape(author), asker=html.escape(asked_by)))
    extra = ["", *notes, ""] if notes else [""]
    extra.append(t(lang, "submission_id", id=submission_id))
    if published:
        extra.append(t(lang, "published_mark"))
    elif withdrawn:
        extra.append(t(lang, "withdrawn_mark"))
    if left_today is not None and not published:
        extra.append(tn(lang, "left_today", left_today[1], left=left_today[0]))
    if step:
        extra.append(step)
    shown = SHOWN_INVALID
    while True:
        text = render_result(
            result,
            benchmark,
            lang=lang,
            html_mode=True,
            mode_label=mode_label or t(lang, "not_set"),
            model=model or t(lang, "not_set"),
            max_invalid=shown,
            extra_lines=extra,
            head_lines=head,
        )
        if fits(text) or shown == 0:
            return text[:MESSAGE_LIMIT]
        shown //= 2


def render_invalid_lines(
    result: Result, lang: str, submission_id: int, *, rest: bool = False
) -> str:
    """The kept invalid lines as plain text: every one (for a file), or with ``rest``
    only those the card does not show whole (for a message under the card)."""
    listed = result.invalid_lines
    if rest:
        whole = {il.line for il in _near_misses_first(result)[:SHOWN_INVALID]}
        whole = {il.line for il in listed if il.line in whole and len(il.text) <= SHOWN_LINE}
        listed = tuple(il for il in listed if il.line not in whole)
    if rest:
        lines = [t(lang, "details_rest_title", id=submission_id)]
    else:
        lines = [t(lang, "details_title", id=submission_id)]
    lines += [t(lang, "invalid_line", line=il.line, text=il.text) for il in listed]
    if result.invalid_line_count > len(result.invalid_lines):
        more = result.invalid_line_count - len(result.invalid_lines)
        lines.append(tn(lang, "more_invalid_plain", more))
    return "\n".join(lines)

"""Pure rendering: results and score cards to text (boards: :mod:`bot.render.boards`).
No Telegram objects, no I/O.

Two targets share one renderer: plain text (the CLI) and Telegram HTML (the bot), where
everything that came from a user or a model is escaped. ``Label: value`` lines carry no
markup, so they read the same in both.
"""

from __future__ import annotations

import html
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeGuard

from scoring import Benchmark, Hint, InvalidLine, Mode, Result

from .i18n import digits, field_label, join_list, t, tn, translated

if TYPE_CHECKING:
    from scoring import natory


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
    lang: str, hint: Hint, values: Mapping[str, object] | None = None, benchmark: str = ""
) -> str:
    """A hint in the reader's language; the scorer's own (English) text otherwise.

    The text is ``hint_<benchmark>_<code>`` where there is one (two benchmarks may use
    one code for different advice), else ``hint_<code>``. ``values``: what a hint about
    no line says (a Natory result's own figures); the hint's own ``params`` are added.
    """
    key = f"hint_{benchmark}_{hint.code}"
    if not translated(lang, key):
        key = f"hint_{hint.code}"
    if lang == "en" or not translated(lang, key):
        return hint.message
    merged: dict[str, object] = dict(values or {})
    merged.update((k, _prose_number(lang, v, join=k == "ids")) for k, v in hint.params)
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


def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else f"−{-value}" if value < 0 else "0"


def natory_breakdown(
    result: natory.NatoryResult, *, lang: str, esc: Callable[[str], str]
) -> list[str]:
    """A Natory result as people read it: the target and the expression (as typed);
    why it is not valid; or the fields that paid or cost, with readable labels, and
    the sum that makes the final score (saying so when the triviality rule zeroes it)."""
    from scoring import natory

    out = [f"{field_label(lang, 'target')}: {digits(lang, result.target)}"]
    out.append(f"{field_label(lang, 'expression')}: {esc(shorten(result.expression, 200))}")
    if not result.valid:
        if result.value is not None:
            shown = shorten(str(result.value_json), 40)
            out.append(t(lang, "natory_not_target", value=esc(shown), target=result.target))
        else:
            out.append(t(lang, "natory_invalid", error=esc(natory_reason(lang, result))))
        out.append(t(lang, "natory_not_publishable"))
        return out
    if result.simplified != "".join(result.expression.split()):
        out.append(f"{field_label(lang, 'simplified')}: {esc(shorten(result.simplified, 200))}")
    breakdown = result.breakdown
    paid = [
        (name, int(getattr(breakdown, attr)))
        for name, attr in natory.FIELDS
        if name != "finalScore" and getattr(breakdown, attr)
    ]
    for name, value in paid:
        out.append(f"  {field_label(lang, name)}: {digits(lang, _signed(value))}")
    if breakdown.special_number_key:
        keys = join_list(lang, (gem_label(lang, k) for k in breakdown.special_number_key))
        out.append(f"  {field_label(lang, 'specialNumberKey')}: {esc(keys)}")
    total = sum(value for _, value in paid)
    if len(paid) > 1:
        first, *rest = [value for _, value in paid]
        terms = [_signed(first).lstrip("+")]
        terms += [f"{'+' if v > 0 else '−'} {abs(v)}" for v in rest]
        out.append(digits(lang, f"{' '.join(terms)} = {_signed(total).lstrip('+')}"))
    if result.trivial:
        out.append(t(lang, "natory_trivial_zero", total=digits(lang, _signed(total).lstrip("+"))))
    out.append(f"{field_label(lang, 'finalScore')}: {digits(lang, breakdown.final_score)}")
    return out


_NUMBER = re.compile(r"-?[0-9][0-9,]*")
_BITS = re.compile(r"a ([0-9][0-9,]*)-bit number")


def _prose_number(lang: str, value: str, *, join: bool = False) -> str:
    """A value a scorer quotes, as Persian prose writes it when it is a number (or the
    scorer's "a 314-bit number"), or with ``join`` a list of ids; quoted input as typed."""
    bits = _BITS.fullmatch(value)
    if bits is not None:
        return t(lang, "natory_bits", bits=_prose_number(lang, bits[1]))
    if lang != "fa":
        return value
    if join:
        return value.replace(", ", "، ")
    if not _NUMBER.fullmatch(value):
        return value
    return digits(lang, value).replace(",", "٬")


def natory_reason(lang: str, result: natory.NatoryResult) -> str:
    """Why an expression is not valid, in the reader's language (the scorer's English
    text where there is no translation); numbers in prose in the reader's digits,
    quoted input as typed."""
    key = f"natory_error_{result.error_code}"
    if lang == "en" or result.error_code is None or not translated(lang, key):
        return result.error or ""
    values = {k: _prose_number(lang, v) for k, v in result.error_params}
    if "allowed" in values:  # the target's digits, a list in prose
        values["allowed"] = digits(lang, _prose_number(lang, values["allowed"], join=True))
    try:
        text = t(lang, key, **values)
    except (KeyError, IndexError):
        return result.error or ""
    if result.error_position is not None:
        text += " " + t(lang, "natory_error_at", position=result.error_position + 1)
    return text


def gem_label(lang: str, key: str) -> str:
    """The name of a special-number bonus (``factorial``, ``prime`` …) in ``lang``."""
    return t(lang, f"gem_{key}") if translated(lang, f"gem_{key}") else key.replace("_", " ")


def _natory_hint_values(result: natory.NatoryResult, lang: str) -> dict[str, object]:
    return {
        "target": result.target,
        "removed": join_list(lang, dict.fromkeys(result.removed)),
        "extra": result.extra_digits,
        "digits": " ".join(str(result.target)),
        "line": result.line or 1,
        "expression": shorten(result.expression, 120),
    }


def _is_natory(result: Result) -> TypeGuard[natory.NatoryResult]:
    """Whether ``result`` is Natory's. One exists only once ``scoring.natory`` is
    loaded, so a PrimeBench reply (the CLI scoring a file) does not load it."""
    module = sys.modules.get("scoring.natory")
    return module is not None and isinstance(result, module.NatoryResult)


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
    hint_values: Mapping[str, object] | None = None
    natory_card = html_mode and _is_natory(result)
    if natory_card and _is_natory(result):
        # the card reads as prose; the CLI keeps the game's field names
        out.extend(natory_breakdown(result, lang=lang, esc=esc))
        hint_values = _natory_hint_values(result, lang)
    else:
        # (the CLI shows a Natory breakdown under the game's own field names)
        plain_names = _is_natory(result)
        for key, value in result.summary_fields():
            label = key if plain_names else field_label(lang, key)
            out.append(f"{label}: {esc(digits(lang, value))}")
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
    elif not natory_card:
        out.append(t(lang, "no_invalid"))
    duplicates = getattr(result, "duplicates", ())
    if duplicates:
        total = getattr(result, "duplicate_count", None)
        out.append(t(lang, "duplicates", items=numbers_list(duplicates, lang=lang, total=total)))
    unknown = getattr(result, "unknown_questions", ())
    if unknown:
        total = getattr(result, "unknown_question_count", None)
        out.append(
            t(lang, "unknown_questions", items=numbers_list(unknown, lang=lang, total=total))
        )
    if result.hints:
        out.append(t(lang, "hints"))
        out.extend(
            f"  • {esc(hint_text(lang, h, hint_values, benchmark.name))}" for h in result.hints
        )
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

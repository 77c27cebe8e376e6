"""Declared fields written in the reader's language, by kind (``scoring.base.KINDS``).

A benchmark declares what its results show (``Result.card()``: fields with a kind and
a label, lines of prose, a stacked bar; ``Benchmark.web_columns``); this module writes
each value the one way its kind is written, whichever benchmark declared it: a count
in the reader's digits, points signed, a percentage with the part and whole it is the
share of, money in dollars, seconds with their unit, a score as its benchmark writes
it. Pure: no Telegram, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from scoring import Benchmark
from scoring.base import (
    MEAN,
    MONEY,
    NAMES,
    PERCENT,
    POINTS,
    SCORE,
    SECONDS,
    Field,
    Line,
    Note,
    Reason,
    Shown,
    Sum,
    Value,
)

from .bidi import figure_text
from .i18n import digits, join_list, t, text_or, translated

#: What an unknown value is shown as.
UNKNOWN = "—"


def plain_number(value: float, significant: int | None = None) -> str:
    """A number as people write it, never in e-notation: whole numbers in full
    (``-5243420``), others to ``significant`` digits (all of them when None)."""
    if value == int(value):
        return str(int(value))
    text = f"{value:.{significant}g}" if significant else repr(value)
    if "e" in text or "E" in text:
        from decimal import Decimal  # rare: only a number written in e-notation

        text = format(Decimal(text), "f")
    return text


def signed(value: int) -> str:
    """Points a part adds or takes: ``+10``, ``−5`` (a minus sign), ``0``."""
    return f"+{value}" if value > 0 else f"−{-value}" if value < 0 else "0"


def _part(value: float) -> str:
    """The part or whole of a share: whole, or to two decimals (``5.5``)."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.2f}".rstrip("0").rstrip(".")


def name_text(lang: str, message_id: str) -> str:
    """A name declared by its message id (``gem_prime``); the id's last words when the
    catalogue has none (``gem_perfect_power``: ``perfect power``)."""
    return text_or(lang, message_id, message_id.partition("_")[2].replace("_", " "))


def write(
    kind: str,
    value: Value,
    *,
    lang: str = "en",
    of: tuple[float, float] | None = None,
    benchmark: Benchmark | None = None,
) -> str:
    """``value`` of ``kind`` as the reader reads it (``—`` when unknown). A score or a
    mean is written by ``benchmark`` (``format_score``); text is returned as given (the
    caller escapes it)."""
    if value is None:
        return UNKNOWN
    if isinstance(value, tuple):
        return join_list(lang, (name_text(lang, v) for v in value))
    if kind == NAMES or isinstance(value, str):
        return str(value)
    # every figure as the reader writes it, a left-to-right run in Persian text
    # (bot.render.bidi: ``+۲۵`` never drawn ``۲۵+``)
    if kind in (SCORE, MEAN) and benchmark is not None:
        return figure_text(lang, benchmark.format_score(float(value), mean=kind == MEAN))
    if kind == POINTS:
        return figure_text(lang, signed(int(value)))
    if kind == PERCENT:
        text = f"{value:.1%}"
        if of is not None:
            text += f" ({_part(of[0])}/{_part(of[1])})"
        return figure_text(lang, text)
    if kind == MONEY:
        return figure_text(lang, "$" + plain_number(value, 4))
    if kind == SECONDS:
        return figure_text(lang, plain_number(value, 3) + " s")
    return figure_text(lang, plain_number(value))  # a count (a score or mean with no benchmark)


def label(lang: str, field: Field) -> str:
    """A field's label in ``lang``; its key when the catalogue has none."""
    return text_or(lang, field.label, field.key)


def shown_value(lang: str, shown: Shown, benchmark: Benchmark | None = None) -> str:
    return write(shown.field.kind, shown.value, lang=lang, of=shown.of, benchmark=benchmark)


def shown_line(
    lang: str, shown: Shown, esc: Callable[[str], str] = str, benchmark: Benchmark | None = None
) -> str:
    """``Label: value`` (a term of a sum indented by two spaces)."""
    indent = "  " if shown.term else ""
    return f"{indent}{label(lang, shown.field)}: {esc(shown_value(lang, shown, benchmark))}"


_NUMBER = re.compile(r"-?[0-9][0-9,]*")
_NUMBER_LIST = re.compile(r"[0-9]+(?:, [0-9]+)+")
_BITS = re.compile(r"a ([0-9][0-9,]*)-bit number")


def prose_number(lang: str, value: str, *, join: bool = False) -> str:
    """A value a scorer quotes, as Persian prose writes it when it is a number (or the
    scorer's "a 314-bit number"), or with ``join`` a list of ids; quoted input as typed."""
    bits = _BITS.fullmatch(value)
    if bits is not None:
        return t(lang, "number_bits", bits=prose_number(lang, bits[1]))
    if lang != "fa":
        return value
    if join:
        return value.replace(", ", "، ")
    if _NUMBER_LIST.fullmatch(value):
        return digits(lang, value.replace(", ", "، "))
    if not _NUMBER.fullmatch(value):
        return value
    return digits(lang, value).replace(",", "٬")


def reason_text(lang: str, benchmark: Benchmark, reason: Reason) -> str:
    """Why an attempt is not valid, in the reader's language (the scorer's English
    text where there is no translation); numbers in prose in the reader's digits,
    quoted input as typed."""
    key = benchmark.reason_messages.get(reason.code or "")
    if lang == "en" or key is None or not translated(lang, key):
        return reason.message
    values = {k: prose_number(lang, v) for k, v in reason.params}
    try:
        text = t(lang, key, **values)
    except (KeyError, IndexError):
        return reason.message
    if reason.position is not None:
        text += " " + t(lang, "reason_at", position=reason.position + 1)
    return text


def sum_text(lang: str, terms: Iterable[int], total: int) -> str:
    """``10 + 20 − 5 = 25`` in the reader's digits."""
    first, *rest = terms
    words = [signed(first).lstrip("+")]
    words += [f"{'+' if v > 0 else '−'} {abs(v)}" for v in rest]
    return digits(lang, f"{' '.join(words)} = {signed(total).lstrip('+')}")


def prose(
    lang: str, benchmark: Benchmark, lines: Iterable[Line], esc: Callable[[str], str] = str
) -> list[str]:
    """A result's declared prose (``Card.prose``) as lines of text; text from a user or
    a model goes through ``esc``."""
    out = []
    for line in lines:
        if isinstance(line, Shown):
            out.append(shown_line(lang, line, esc, benchmark))
        elif isinstance(line, Sum):
            out.append(sum_text(lang, line.terms, line.total))
        else:
            out.append(note_text(lang, benchmark, line, esc))
    return out


def note_text(lang: str, benchmark: Benchmark, note: Note, esc: Callable[[str], str]) -> str:
    values: dict[str, object] = {}
    for name, value in note.values:
        if isinstance(value, Reason):
            values[name] = esc(reason_text(lang, benchmark, value))
        elif isinstance(value, str):
            values[name] = esc(value)
        else:
            values[name] = value
    return t(lang, note.message, **values)


def hint_values(lang: str, declared: Mapping[str, object]) -> dict[str, object]:
    """What a hint about no line quotes, from ``Card.hint_values`` (a list joined in
    prose)."""
    return {k: join_list(lang, v) if isinstance(v, tuple) else v for k, v in declared.items()}

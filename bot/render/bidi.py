"""Figures inside right-to-left text: the one place a number, a signed number, a
percentage, an interval or a range is made safe for Persian.

In a right-to-left paragraph the Unicode bidirectional algorithm moves a sign or a
percent next to a number to the number's right: ``+25`` reads ``25+``, ``−155`` reads
``155−``, ``42.0% [28.1–57.3]`` reads ``%42.0 [%57.3–%28.1]``. A figure is therefore
always written as a left-to-right run of its own, in the reader's digits:

- on the web, :func:`figure_html` (``<bdi dir="ltr">…</bdi>``, escaped), which the
  templates reach through the ``num`` filter (``bot.web.pages``);
- in plain text drawn or sent to a reader (PNG cards, chat text), :func:`figure_text`
  (the Unicode isolates LRI … PDI around it, in Persian only);
- in an SVG chart, :func:`svg_figure` (the digits; the chart itself is ``direction:
  ltr``).

Digits: Persian (``۰``–``۹``) for a Persian reader, everywhere (``digits``), Western
otherwise. A hash or a code is not a figure and keeps its characters. Pure.
"""

from __future__ import annotations

import re
from html import escape

from .i18n import digits

#: Unicode directional isolates (left-to-right, first strong, pop).
LRI, FSI, PDI = "\u2066", "\u2068", "\u2069"
#: What an unknown figure is shown as.
UNKNOWN = "—"


#: A percentage as figures write it (``42.0%``), and a separator between digits.
_PERCENT = re.compile(r"([0-9][0-9.,]*)%")
_DECIMAL = re.compile(r"(?<=[0-9])\.(?=[0-9])")
_THOUSANDS = re.compile(r"(?<=[0-9]),(?=[0-9]{3})")


def figure(lang: str, value: object) -> str:
    """``value`` (a number, or a figure already written: ``+25``, ``42.0% (8/19)``,
    ``[28.1, 57.3]``) as the reader writes it; ``—`` for None. Persian: Persian digits,
    the Persian decimal and thousands separators (``۴۲٫۰``, ``۱٬۲۳۴``), and the percent
    sign before its number (``٪۴۲٫۰``: Persian reads ``۴۲٪`` right to left, so in the
    left-to-right run the sign stands on the left, as it does in Persian text)."""
    if value is None:
        return UNKNOWN
    text = str(value)
    if lang != "fa":
        return text
    text = _PERCENT.sub(r"٪\1", text)
    text = _THOUSANDS.sub("٬", _DECIMAL.sub("٫", text))
    return digits(lang, text)


def figure_text(lang: str, value: object) -> str:
    """A figure for plain right-to-left text: isolated left to right in Persian (digits
    alone need no isolate: they already run left to right)."""
    text = figure(lang, value)
    return f"{LRI}{text}{PDI}" if lang == "fa" and text and not text.isdigit() else text


def figure_html(lang: str, value: object) -> str:
    """A figure for a web page: escaped, in the reader's digits, as a left-to-right
    isolate (``<bdi dir="ltr">``) in every language, so it never mixes with the text
    around it."""
    return f'<bdi dir="ltr">{escape(figure(lang, value), quote=False)}</bdi>'


def svg_figure(lang: str, value: object) -> str:
    """A figure for an SVG ``<text>`` of a chart drawn left to right: the reader's
    digits, escaped."""
    return escape(figure(lang, value), quote=False)

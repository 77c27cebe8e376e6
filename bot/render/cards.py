"""Result cards and board images as PNG: pure functions from a view to bytes.

matplotlib (≥ 3.11 shapes Arabic-script text and lays it out right to left by itself,
with no system library) through its object API (``Figure`` + the Agg canvas), never
``pyplot``: nothing global changes, so a render thread is safe. The text is set in
Vazirmatn (SIL OFL 1.1, shipped in ``fonts/`` with its license), which covers Latin and
Persian; symbols it lacks fall back to DejaVu Sans (shipped with matplotlib), then to a
monochrome emoji font when the system has one (:data:`EMOJI_FONTS`), and a character
no font has is drawn as U+FFFD, not an empty box (:func:`drawable`). Mathtext is off for
every string (a model named ``$x$`` is shown as typed).

Images are 1080 px wide (a phone's width). Long names are cut with an ellipsis to the
width they have, measured on the rendered text, so nothing overflows. Persian cards
mirror the layout (right-aligned, columns from the right).

This module imports matplotlib: import it where an image is made (a render thread),
not at start (``bot.core.sharing`` does).
"""

from __future__ import annotations

import dataclasses
import functools
import io
import os
import threading
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font
from matplotlib.patches import FancyBboxPatch, Rectangle
from matplotlib.text import Text

from .card_views import (
    BENCHBOARD_GLYPH,
    BoardImageView,
    BoardText,
    CardText,
    ResultCardView,
    board_image_text,
    result_card_text,
)

FONT_DIR = Path(__file__).with_name("fonts")
FONT_FILES = ("Vazirmatn-Regular.ttf", "Vazirmatn-Bold.ttf")
FAMILY = ["Vazirmatn", "DejaVu Sans"]

#: Monochrome emoji fonts under a free license, the last fallback when the system has
#: one, the first found wins: Noto Emoji (OFL), Symbola (Debian's ``fonts-symbola``,
#: emoji up to Unicode 9). Neither ships here (colour emoji fonts cannot be drawn).
EMOJI_FONTS = (
    "NotoEmoji-Regular.ttf",
    "NotoEmoji[wght].ttf",
    "NotoEmoji-VariableFont_wght.ttf",
    "Symbola.ttf",
    "Symbola_hint.ttf",
)
FONT_DIRS = (
    Path("/usr/share/fonts"),
    Path("/usr/local/share/fonts"),
    Path("~/.local/share/fonts"),
    Path("~/.fonts"),
)
#: What a character no font has is drawn as (instead of an empty box).
REPLACEMENT = "\ufffd"

WIDTH = 1080
CARD_HEIGHT = 1350
DPI = 100
MARGIN = 60
_PT = 72 / DPI  # points per pixel

#: Board image: header, one row per line, footer (pixels).
BOARD_HEADER = 250
BOARD_ROW = 84
BOARD_FOOTER = 150


@dataclasses.dataclass(frozen=True, slots=True)
class Palette:
    background: str
    text: str
    muted: str
    accent: str
    panel: str
    good: str
    bad: str
    none: str


PALETTES = {
    "light": Palette(
        background="#ffffff", text="#111827", muted="#6b7280", accent="#2563eb",
        panel="#f1f5f9", good="#16a34a", bad="#dc2626", none="#cbd5e1",
    ),
    "dark": Palette(
        background="#0f172a", text="#f1f5f9", muted="#94a3b8", accent="#60a5fa",
        panel="#1e293b", good="#22c55e", bad="#f87171", none="#475569",
    ),
}  # fmt: skip

_fonts_lock = threading.Lock()


def emoji_font(dirs: Sequence[Path] = FONT_DIRS) -> Path | None:
    """The system's monochrome emoji font (:data:`EMOJI_FONTS`, the best one found in
    ``dirs``), or None."""
    found: dict[str, Path] = {}
    for top in dirs:
        for folder, _, names in os.walk(os.path.expanduser(top)):  # no home: as written
            for name in names:
                if name in EMOJI_FONTS:
                    found.setdefault(name, Path(folder) / name)
    return next((found[name] for name in EMOJI_FONTS if name in found), None)


@functools.cache
def register_fonts() -> tuple[str, ...]:
    """Make the shipped fonts (Vazirmatn) and the system's emoji font known to
    matplotlib, once; the family list every text is set in."""
    with _fonts_lock:
        for name in FONT_FILES:
            font_manager.fontManager.addfont(str(FONT_DIR / name))
        family = list(FAMILY)
        emoji = emoji_font()
        if emoji is not None:
            entry = font_manager.ttfFontProperty(FT2Font(str(emoji)))
            # its one weight serves bold text too (matplotlib would log each time it
            # looks for a bold one and settles for it)
            font_manager.fontManager.ttflist.append(dataclasses.replace(entry, weight=700))
            font_manager.fontManager.addfont(str(emoji))
            family.append(entry.name)
        return tuple(family)


@functools.cache
def _covered() -> frozenset[int]:
    """Every character some font of the family list has."""
    family = register_fonts()
    chars: set[int] = set()
    for name in family:
        for weight in ("normal", "bold"):
            prop = font_manager.FontProperties(family=name, weight=weight)
            path = font_manager.findfont(prop, fallback_to_default=False)
            chars.update(FT2Font(path).get_charmap())
    return frozenset(chars)


def drawable(value: str) -> str:
    """``value`` as the fonts can draw it: a character none has becomes
    :data:`REPLACEMENT` (a skin tone or combining mark none has is left out, and a
    format character such as a joiner or a variation selector is kept: the shaper hides
    it), where matplotlib would draw an empty box."""
    if value.isascii():
        return value
    covered = _covered()
    out = []
    for char in value:
        code = ord(char)
        if code in covered or unicodedata.category(char) == "Cf" or 0xFE00 <= code <= 0xFE0F:
            out.append(char)
        elif 0x1F3FB <= code <= 0x1F3FF or unicodedata.category(char) in ("Mn", "Me"):
            continue
        else:
            out.append(REPLACEMENT)
    return "".join(out)


class _Canvas:
    """A figure measured in pixels from the top-left, mirrored for right-to-left text."""

    def __init__(self, height: int, palette: Palette, rtl: bool) -> None:
        self.family = register_fonts()
        self.height = height
        self.palette = palette
        self.rtl = rtl
        self.figure = Figure(figsize=(WIDTH / DPI, height / DPI), dpi=DPI)
        self.figure.patch.set_facecolor(palette.background)
        self.canvas = FigureCanvasAgg(self.figure)

    def x(self, px: float) -> float:
        """A distance from the leading edge (left, or right in RTL) as a figure x."""
        return (WIDTH - px if self.rtl else px) / WIDTH

    def y(self, px: float) -> float:
        return 1 - px / self.height

    def text(
        self,
        px: float,
        py: float,
        value: str,
        *,
        size: float,
        color: str | None = None,
        bold: bool = False,
        width: float | None = None,
        trailing: bool = False,
        center: bool = False,
        shrink: bool = False,
    ) -> Text | None:
        """Draw ``value`` with its leading edge at ``px`` (its trailing edge with
        ``trailing``) from the top ``py`` (baseline), cut with an ellipsis to ``width``
        pixels; ``shrink`` (a number, which a cut would misstate): smaller first, down
        to :data:`SHRINK_LEAST` of ``size``."""
        if not value:
            return None
        value = drawable(value)
        leading = "right" if self.rtl else "left"
        other = "left" if self.rtl else "right"
        item = self.figure.text(
            0.5 if center else self.x(px),
            self.y(py),
            value,
            fontsize=size * _PT,
            family=list(self.family),
            weight="bold" if bold else "normal",
            color=color or self.palette.text,
            ha="center" if center else other if trailing else leading,
            va="baseline",
            parse_math=False,
        )
        if width is not None:
            scale = 1.0
            while shrink and scale > SHRINK_LEAST:
                shown = item.get_window_extent().width
                if shown <= width:
                    break
                scale = max(SHRINK_LEAST, scale * min(0.95, width / shown))
                item.set_fontsize(size * _PT * scale)
            fit(item, value, width)
        return item

    def box(
        self, px: float, py: float, w: float, h: float, color: str, *, round_: bool = False
    ) -> None:
        """A filled rectangle ``w`` × ``h`` pixels, its leading top corner at (px, py)."""
        left = WIDTH - px - w if self.rtl else px
        xy = (left / WIDTH, 1 - (py + h) / self.height)
        size = (w / WIDTH, h / self.height)
        patch: Rectangle | FancyBboxPatch
        if round_:
            style = "round,pad=0,rounding_size=0.012"
            patch = FancyBboxPatch(
                xy, *size, boxstyle=style, transform=self.figure.transFigure, color=color, lw=0
            )
        else:
            patch = Rectangle(xy, *size, transform=self.figure.transFigure, color=color, lw=0)
        self.figure.add_artist(patch)


#: The least share of its size a number is drawn at before it is cut (a score of
#: twelve digits, which points of a benchmark defined by data make, fits at it).
SHRINK_LEAST = 0.4


def fit(item: Text, value: str, width: float) -> str:
    """Cut ``item``'s text to ``width`` pixels with an ellipsis (binary search on the
    number of characters kept, measured on the rendered text); returns what it shows."""
    if item.get_window_extent().width <= width:
        return value
    low, high = 0, len(value)
    while low < high:
        middle = (low + high + 1) // 2
        item.set_text(value[:middle].rstrip() + "…")
        if item.get_window_extent().width <= width:
            low = middle
        else:
            high = middle - 1
    shown = value[:low].rstrip() + "…"
    item.set_text(shown)
    return shown


def _palette(theme: str) -> Palette:
    return PALETTES.get(theme, PALETTES["light"])


# --- the result card -----------------------------------------------------------------


def result_card_figure(view: ResultCardView) -> tuple[Figure, CardText]:
    """The card's figure (its texts can be read back) and the strings it shows."""
    text = result_card_text(view)
    palette = _palette(view.theme)
    c = _Canvas(CARD_HEIGHT, palette, text.rtl)
    inner = WIDTH - 2 * MARGIN
    c.box(0, 0, WIDTH, 14, palette.accent)
    c.text(MARGIN, 100, text.benchmark, size=46, bold=True, color=palette.accent, width=inner / 2)
    mark_color = palette.good if view.verified else palette.muted
    c.text(WIDTH - MARGIN, 100, text.mark, size=32, color=mark_color, trailing=True,
           width=inner / 2 - 20)  # fmt: skip
    c.text(MARGIN, 200, text.model, size=58, bold=True, width=inner)
    c.text(MARGIN, 260, text.mode, size=36, color=palette.muted, width=inner)
    c.box(MARGIN, 300, inner, 250, palette.panel, round_=True)
    c.text(MARGIN + 40, 360, text.score_label, size=32, color=palette.muted, width=inner * 0.35)
    c.text(WIDTH - MARGIN - 40, 360, text.rank, size=34, bold=True, color=palette.accent,
           trailing=True, width=inner * 0.6 - 40)  # fmt: skip
    c.text(MARGIN + 40, 515, text.score, size=150, bold=True, width=inner - 80, shrink=True)
    top = 620
    if text.bar is not None:
        _bar(c, text, top, inner)
    elif text.breakdown:
        for i, (label, value) in enumerate(text.breakdown[:6]):
            py = top + 30 + i * 72
            c.text(MARGIN, py, label, size=34, color=palette.muted, width=inner * 0.62)
            c.text(WIDTH - MARGIN, py, value, size=38, bold=True, trailing=True,
                   width=inner * 0.36)  # fmt: skip
    else:
        for i, line in enumerate(text.lines[:11]):
            c.text(MARGIN, top + 20 + i * 50, line, size=32 if i > 1 else 36,
                   bold=i == 1, width=inner)  # fmt: skip
    if text.challenge:
        c.text(MARGIN, 1160, text.challenge, size=32, bold=True, color=palette.accent, width=inner)
    c.box(MARGIN, 1200, inner, 2, palette.none)
    c.text(MARGIN, 1248, text.footer, size=28, color=palette.muted, width=inner * 0.62)
    c.text(WIDTH - MARGIN, 1248, text.handle, size=28, color=palette.muted, trailing=True,
           width=inner * 0.36)  # fmt: skip
    credit(c, text.credit, 1270, inner)
    return c.figure, text


def credit(c: _Canvas, value: str, top: float, width: float) -> None:
    """The benchmark's credit line from ``top`` down: smaller, or on two lines (broken
    between words, else anywhere: a credit in a script without spaces), when long; what
    two lines of the smallest size cannot hold (a benchmark defined by data may credit
    in 600 characters) is cut with an ellipsis."""
    item = c.text(MARGIN, top, value, size=24, color=c.palette.muted)
    if item is None:
        return
    item.set_verticalalignment("top")
    value = item.get_text()  # as drawn: a character no font has already replaced
    if _width(item, value) <= width:
        return
    for size in _CREDIT_SIZES:
        item.set_fontsize(size * _PT)
        lines = _lines(item, value, width, 2)
        if len(lines) == 1 or (len(lines) == 2 and _width(item, lines[1]) <= width):
            item.set_text("\n".join(lines))
            return
    first, rest = lines[0], value[len(lines[0]) :].lstrip()
    item.set_text(rest)
    item.set_text(f"{first}\n{fit(item, rest, width)}")


#: The sizes a long credit is tried at (points, after 24 on one line).
_CREDIT_SIZES = (20, 17)


def _width(item: Text, value: str) -> float:
    item.set_text(value)
    return float(item.get_window_extent().width)


def _lines(item: Text, value: str, width: float, count: int) -> list[str]:
    """``value`` broken into at most ``count`` lines of ``width`` pixels, between words
    where a word ends in the line's second half, else where the line is full; the last
    line holds the rest, however long."""
    lines: list[str] = []
    rest = value
    while rest and len(lines) < count - 1 and _width(item, rest) > width:
        low, high = 1, len(rest)  # the most characters that fit (at least one)
        while low < high:
            middle = (low + high + 1) // 2
            if _width(item, rest[:middle]) <= width:
                low = middle
            else:
                high = middle - 1
        space = rest.rfind(" ", 0, low + 1)
        cut = space if space > low // 2 else low  # a word's end late in the line
        lines.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    return [*lines, rest] if rest else lines


def _bar(c: _Canvas, text: CardText, top: float, inner: float) -> None:
    """A stacked bar (a benchmark's ``Card.bar``: correct, wrong, unanswered), its parts'
    numbers and the points they make."""
    bar = text.bar
    assert bar is not None
    palette = c.palette
    counts = bar.counts
    tones = {"good": palette.good, "bad": palette.bad}
    colors = tuple(tones.get(tone, palette.none) for tone in bar.tones)
    total = sum(counts) or 1
    offset = 0.0
    c.box(MARGIN, top + 20, inner, 60, palette.panel)
    for count, color in zip(counts, colors, strict=True):
        w = inner * count / total
        if w > 0:
            c.box(MARGIN + offset, top + 20, w, 60, color)
        offset += w
    column = inner / max(1, len(counts))
    for i, (count, label, color) in enumerate(zip(counts, bar.labels, colors, strict=True)):
        px = MARGIN + i * column
        shade = color if bar.tones[i] != "none" else palette.text
        c.text(px, top + 200, str(count) if not text.rtl else _fa(count), size=80, bold=True,
               color=shade, width=column - 20)  # fmt: skip
        c.text(px, top + 255, label, size=32, color=palette.muted, width=column - 20)
    c.text(MARGIN, top + 340, bar.points, size=30, color=palette.muted, width=inner)


def _fa(value: int) -> str:
    return str(value).translate(str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹"))


def render_result_card(view: ResultCardView) -> bytes:
    """The card of a published result as a PNG, 1080 × 1350 px."""
    figure, _ = result_card_figure(view)
    return _png(figure, view.theme)


# --- the board image -----------------------------------------------------------------


def board_image_figure(view: BoardImageView) -> tuple[Figure, BoardText]:
    """The board image's figure (its texts can be read back) and its strings."""
    text = board_image_text(view)
    palette = _palette(view.theme)
    rows = max(1, len(text.cells))
    height = BOARD_HEADER + rows * BOARD_ROW + BOARD_FOOTER
    c = _Canvas(height, palette, text.rtl)
    inner = WIDTH - 2 * MARGIN
    c.box(0, 0, WIDTH, 14, palette.accent)
    c.text(MARGIN, 96, text.title, size=46, bold=True, width=inner)
    c.text(MARGIN, 150, text.subtitle, size=28, color=palette.muted, width=inner)
    # columns: rank, model (what is left), mode, score, runs
    widths = (90, inner - 90 - 205 - 170 - 135, 205, 170, 135)
    starts = [MARGIN + sum(widths[:i]) for i in range(len(widths))]
    header_y = BOARD_HEADER - 30
    for i, label in enumerate(text.columns):
        c.text(starts[i] + 8, header_y, label, size=26, bold=True, color=palette.muted,
               width=widths[i] - 16)  # fmt: skip
    if not text.cells:
        c.text(MARGIN, BOARD_HEADER + 54, text.empty, size=32, color=palette.muted, width=inner)
    for r, cells in enumerate(text.cells):
        top = BOARD_HEADER + r * BOARD_ROW
        if r % 2 == 0:
            c.box(MARGIN, top, inner, BOARD_ROW, palette.panel)
        base = top + BOARD_ROW / 2 + 12
        interval = text.intervals[r] if r < len(text.intervals) else ""
        for i, cell in enumerate(cells):
            # a verified row's mark is drawn apart, after the name, so a cut name keeps it
            marked = text.verified[r] or (r < len(text.benchboard) and text.benchboard[r])
            room = widths[i] - 16 - (40 if i == 1 and marked else 0)
            # a score with its interval: the score a little higher, the interval under it
            y = base - 10 if i == 3 and interval else base
            # a rank, a score, runs: drawn smaller rather than cut (a cut number misstates)
            c.text(starts[i] + 8, y, cell, size=32 if i != 1 else 33, bold=i in (0, 3),
                   color=palette.text if i != 2 else palette.muted, width=room,
                   shrink=i in (0, 3, 4))  # fmt: skip
        if interval:
            c.text(starts[3] + 8, base + 20, interval, size=19, color=palette.muted,
                   width=widths[3] - 16)  # fmt: skip
        if r < len(text.benchboard) and text.benchboard[r]:
            c.text(starts[2] - 12, base, BENCHBOARD_GLYPH, size=30, color=palette.good,
                   trailing=True)  # fmt: skip
        elif text.verified[r]:
            c.text(starts[2] - 12, base, "✔", size=30, color=palette.good, trailing=True)
    bottom = height - BOARD_FOOTER
    c.box(MARGIN, bottom + 20, inner, 2, palette.none)
    handle = c.text(WIDTH - MARGIN, bottom + 62, text.handle, size=26, color=palette.muted,
                    trailing=True, width=inner * 0.38)  # fmt: skip
    # the footer (the key, the ⚙ mark's legend) has whatever the handle leaves
    left = inner - (handle.get_window_extent().width + 30 if handle is not None else 0)
    c.text(MARGIN, bottom + 62, text.footer, size=26, color=palette.muted, width=left)
    credit(c, text.credit, bottom + 82, inner)
    return c.figure, text


def render_board_image(view: BoardImageView) -> bytes:
    """A board page as a PNG table, 1080 px wide."""
    figure, _ = board_image_figure(view)
    return _png(figure, view.theme)


def _png(figure: Figure, theme: str) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(
        buffer,
        format="png",
        dpi=DPI,
        facecolor=_palette(theme).background,
        metadata={"Software": None},
        pil_kwargs={"compress_level": 2},
    )
    return buffer.getvalue()

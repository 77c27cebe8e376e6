"""A board's headline chart as an SVG drawing: score against cost with its Pareto front
marked (:func:`render_svg`), or each model line's score with its interval
(:func:`render_intervals`). Pure: points in, SVG text out (every label escaped);
presentation attributes only, no ``style`` (the web's Content-Security-Policy allows no
inline styles). Every number is a ``<text>`` of its own, isolated left to right
(:data:`NUMBER`), so a right-to-left page keeps its signs and percents in place."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from html import escape
from typing import NamedTuple

from .bidi import figure, svg_figure
from .scales import plain_number, robust_range
from .webviews import ChartPoint, IntervalPoint

WIDTH, HEIGHT = 640, 360
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 16, 16, 44


def pareto(points: Sequence[tuple[float, float]]) -> list[bool]:
    """Which (cost, score) points are on the front: no other point costs no more and
    scores at least as much, with one of the two strictly better."""
    front = []
    for i, (cost, score) in enumerate(points):
        beaten = any(
            j != i and c <= cost and s >= score and (c < cost or s > score)
            for j, (c, s) in enumerate(points)
        )
        front.append(not beaten)
    return front


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    step = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= step * factor:
            step *= factor
            break
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step) + 1)]


def _number(value: float) -> str:
    return plain_number(value)


#: The attributes of a ``<text>`` holding a number: a left-to-right run of its own.
NUMBER = 'direction="ltr" unicode-bidi="isolate"'
#: Costs spread over this ratio or more (all above 0) are drawn on a logarithmic axis.
LOG_RATIO = 20.0


def _log_ticks(low: float, high: float) -> list[float]:
    """Ticks of a logarithmic axis from ``low`` to ``high`` (both > 0): the powers of
    ten, with 2 and 5 times them when fewer than three decades are spanned."""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    steps = (1.0,) if last - first > 2 else (1.0, 2.0, 5.0)
    found = [m * 10.0**e for e in range(first, last + 1) for m in steps]
    return [v for v in found if low <= v <= high]


#: The estimated width of a label character and a label's height, as parts of its font
#: size (a generous sans-serif average: the boxes the labels are kept apart by).
CHAR_WIDTH = 0.62
LINE_HEIGHT = 1.25
LABEL_SIZE = 11
_LABEL_CHARS = 32
#: Label offsets from its point (dx, dy, text-anchor), tried in order at growing
#: distances; the first whose box overlaps no label and no point, inside the plot.
_PLACES = (
    (1, -1, "start"),
    (-1, -1, "end"),
    (1, 1, "start"),
    (-1, 1, "end"),
    (0, -1.3, "middle"),
    (0, 1.3, "middle"),
)
_DISTANCES = (6.0, 14.0, 24.0, 36.0)


class Box(NamedTuple):
    """A rectangle in the drawing's coordinates (y down)."""

    x0: float
    y0: float
    x1: float
    y1: float

    def overlaps(self, other: Box) -> bool:
        return (
            self.x0 < other.x1 and other.x0 < self.x1 and self.y0 < other.y1 and other.y0 < self.y1
        )

    def within(self, other: Box) -> bool:
        return (
            other.x0 <= self.x0
            and self.x1 <= other.x1
            and other.y0 <= self.y0
            and self.y1 <= other.y1
        )


def label_box(x: float, y: float, anchor: str, text: str, size: float = LABEL_SIZE) -> Box:
    """The box a label drawn at (x, y) (its baseline) with ``text-anchor`` takes."""
    width = len(text) * size * CHAR_WIDTH
    left = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
    return Box(left, y - size, left + width, y + size * (LINE_HEIGHT - 1))


def _place(
    px: float, py: float, text: str, taken: list[Box], plot: Box
) -> tuple[float, float, str] | None:
    """Where a label of the point at (px, py) overprints nothing: (x, y, anchor)."""
    for distance in _DISTANCES:
        for dx, dy, anchor in _PLACES:
            x = px + dx * distance
            # below the point: the label's top edge at the offset, not its baseline
            y = py + dy * distance + (LABEL_SIZE if dy > 0 else 0)
            box = label_box(x, y, anchor, text)
            if box.within(plot) and not any(box.overlaps(t) for t in taken):
                taken.append(box)
                return x, y, anchor
    return None


def render_svg(
    points: Sequence[ChartPoint],
    *,
    cost_label: str,
    score_label: str,
    log_cost_label: str | None = None,
    lang: str = "en",
) -> str:
    """The chart: one dot per model (hollow off the front), the front joined by a line,
    each point labelled where its label overprints no other label and no point (the
    front's first; every point has its name as a tooltip). The score axis keeps the
    normal models' scale: an outlier (one wild attempt) is drawn as a triangle in a band
    beyond the axis' end, its value in its label. Costs spread over :data:`LOG_RATIO`
    or more are drawn on a logarithmic axis (``log_cost_label`` names it), so the cheap
    models are not squeezed against the axis by a dear one. Empty points: an empty
    frame. The chart is drawn left to right in every language (``direction="ltr"``: a
    signed tick stays ``−5``), its figures in the reader's digits (``bot.render.bidi``)."""

    def number(value: float) -> str:
        return svg_figure(lang, _number(value))

    costs = [p.cost for p in points] or [0.0, 1.0]
    scale = robust_range([p.score for p in points] or [0.0, 1.0])
    log = min(costs) > 0 and max(costs) / min(costs) >= LOG_RATIO
    if log:
        cost_label = log_cost_label or cost_label
        x0, x1 = math.log10(min(costs) / 1.4), math.log10(max(costs) * 1.4)
    else:
        x0, x1 = min(0.0, min(costs)), max(costs) * 1.05 or 1.0
    # from 0 when 0 is near the normal scores (they are seen against it), else from
    # just below them: the normal models are spread over the plot's height
    spread = max(scale.high - scale.low, 0.2 * max(abs(scale.high), abs(scale.low)), 1.0)
    near_zero = 0 <= scale.low <= scale.high / 2
    normal_low = 0.0 if near_zero else scale.low - spread * 0.1
    normal_high = scale.high + spread * 0.1
    span = normal_high - normal_low
    band = span * 0.1
    low_out = any(scale.outlier(p.score) and p.score < scale.low for p in points)
    high_out = any(scale.outlier(p.score) and p.score > scale.high for p in points)
    y0 = normal_low - (band * 1.6 if low_out else 0.0)
    y1 = normal_high + (band * 1.6 if high_out else 0.0)
    plot_w, plot_h = WIDTH - _LEFT - _RIGHT, HEIGHT - _TOP - _BOTTOM
    plot = Box(_LEFT, _TOP, _LEFT + plot_w, _TOP + plot_h)

    def x(value: float) -> float:
        at = math.log10(value) if log else value
        return _LEFT + (at - x0) / ((x1 - x0) or 1) * plot_w

    def y(value: float) -> float:
        return _TOP + plot_h - (value - y0) / ((y1 - y0) or 1) * plot_h

    def drawn(p: ChartPoint) -> float:  # the score where the point is drawn
        if scale.outlier(p.score):
            return normal_low - band if p.score < scale.low else normal_high + band
        return p.score

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'class="chart" direction="ltr" role="img" '
        f'aria-label="{escape(score_label)} / {escape(cost_label)}">',
        f'<rect x="{_LEFT}" y="{_TOP}" width="{plot_w}" height="{plot_h}" fill="none" '
        'stroke="currentColor" stroke-opacity="0.3"/>',
    ]
    x_ticks = _log_ticks(10**x0, 10**x1) if log else _ticks(x0, x1)
    for tick in x_ticks:
        if log or x0 <= tick <= x1:
            out.append(
                f'<text x="{x(tick):.1f}" y="{HEIGHT - _BOTTOM + 16}" text-anchor="middle" '
                f'font-size="11" fill="currentColor" {NUMBER}>{number(tick)}</text>'
            )
    for tick in _ticks(normal_low, normal_high):  # none in the outliers' band
        if normal_low <= tick <= normal_high:
            out.append(
                f'<text x="{_LEFT - 6}" y="{y(tick) + 4:.1f}" text-anchor="end" '
                f'font-size="11" fill="currentColor" {NUMBER}>{number(tick)}</text>'
            )
    # the points' marks, the lines where the scale breaks: no label goes over them
    taken: list[Box] = []
    for out_of_scale, edge in (
        (low_out, normal_low - band / 2),
        (high_out, normal_high + band / 2),
    ):
        if out_of_scale:  # where the axis stops being to scale
            taken.append(Box(_LEFT, y(edge) - 1, _LEFT + plot_w, y(edge) + 1))
            out.append(
                f'<line x1="{_LEFT}" y1="{y(edge):.1f}" x2="{_LEFT + plot_w}" y2="{y(edge):.1f}" '
                'stroke="currentColor" stroke-opacity="0.5" stroke-dasharray="4 4"/>'
            )
    out.append(
        f'<text x="{_LEFT + plot_w / 2:.0f}" y="{HEIGHT - 6}" text-anchor="middle" '
        f'font-size="12" fill="currentColor">{escape(cost_label)}</text>'
    )
    out.append(
        f'<text x="14" y="{_TOP + plot_h / 2:.0f}" text-anchor="middle" font-size="12" '
        f'fill="currentColor" transform="rotate(-90 14 {_TOP + plot_h / 2:.0f})">'
        f"{escape(score_label)}</text>"
    )
    front = sorted((p for p in points if p.front), key=lambda p: p.cost)
    if len(front) > 1:
        path = " ".join(f"{x(p.cost):.1f},{y(drawn(p)):.1f}" for p in front)
        out.append(f'<polyline points="{path}" fill="none" stroke="#d9480f" stroke-width="1.5"/>')
    taken += [Box(x(p.cost) - 5, y(drawn(p)) - 6, x(p.cost) + 5, y(drawn(p)) + 6) for p in points]
    for p in points:
        fill = "#d9480f" if p.front else "none"
        cx, cy = x(p.cost), y(drawn(p))
        title = f"<title>{escape(p.label)}: {number(p.score)} / {number(p.cost)}</title>"
        if scale.outlier(p.score):  # a triangle pointing off the scale
            tip = 6 if p.score < scale.low else -6
            out.append(
                f'<polygon points="{cx - 5:.1f},{cy - tip:.1f} {cx + 5:.1f},{cy - tip:.1f} '
                f'{cx:.1f},{cy + tip:.1f}" fill="{fill}" stroke="#d9480f">{title}</polygon>'
            )
        else:
            out.append(
                f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" fill="{fill}" '
                f'stroke="#d9480f">{title}</circle>'
            )
    # labels: the front's first, then the outliers, then the others, each where it fits
    order = sorted(points, key=lambda p: (not p.front, not scale.outlier(p.score)))
    for p in order:
        text = p.label[:_LABEL_CHARS]
        if scale.outlier(p.score):
            text = f"{p.label[: _LABEL_CHARS - 10]}: {figure(lang, _number(p.score))}"
        at = _place(x(p.cost), y(drawn(p)), text, taken, plot)
        if at is not None:
            lx, ly, anchor = at
            px, py = x(p.cost), y(drawn(p))
            if abs(lx - px) > _DISTANCES[0] + 1 or abs(ly - py) > _DISTANCES[0] + LABEL_SIZE + 1:
                # a far label: a thin line from its point to it
                ty = ly - LABEL_SIZE * 0.35
                out.append(
                    f'<line x1="{px:.1f}" y1="{py:.1f}" x2="{lx:.1f}" y2="{ty:.1f}" '
                    'stroke="currentColor" stroke-opacity="0.35" stroke-width="0.8"/>'
                )
            out.append(
                f'<text x="{lx:.1f}" y="{ly:.1f}" text-anchor="{anchor}" font-size="{LABEL_SIZE}" '
                f'fill="currentColor" class="label">{escape(text)}</text>'
            )
    out.append("</svg>")
    return "".join(out)


#: The chart of scores: its width, a line's height, and where its columns are.
_ROW = 22
_NAME_END, _PLOT_START, _PLOT_END = 196, 206, 536
_NAME_CHARS = 30


def render_intervals(
    points: Sequence[IntervalPoint], *, fmt: Callable[[float], str], label: str
) -> str:
    """Each model line's score as a dot, with its interval as a line with end marks
    where it has one: the names on the left, the scores as written (``fmt``, the
    benchmark's own way) on the right, one line per model in rank order, the axis from 0
    when 0 is near the scores. ``label`` names the chart (its accessible name)."""
    values = [p.score for p in points]
    values += [v for p in points if p.interval is not None for v in p.interval]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    if low > 0 and low <= high / 2:
        low = 0.0
    if high < 0 and high >= low / 2:
        high = 0.0
    pad = (high - low) * 0.04 or 1.0
    low, high = low - pad if low != 0 else low, high + pad
    height = _TOP + max(1, len(points)) * _ROW + 30

    def x(value: float) -> float:
        return _PLOT_START + (value - low) / ((high - low) or 1) * (_PLOT_END - _PLOT_START)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'class="chart intervals" role="img" aria-label="{escape(label)}" direction="ltr">'
    ]
    bottom = _TOP + max(1, len(points)) * _ROW
    for tick in _ticks(low, high, 4):
        if low <= tick <= high:
            out.append(
                f'<line x1="{x(tick):.1f}" y1="{_TOP}" x2="{x(tick):.1f}" y2="{bottom}" '
                'stroke="currentColor" stroke-opacity="0.12"/>'
                f'<text x="{x(tick):.1f}" y="{bottom + 16}" text-anchor="middle" font-size="11" '
                f'fill="currentColor" {NUMBER}>{escape(fmt(tick))}</text>'
            )
    if low < 0 < high:
        out.append(
            f'<line x1="{x(0):.1f}" y1="{_TOP}" x2="{x(0):.1f}" y2="{bottom}" '
            'stroke="currentColor" stroke-opacity="0.5"/>'
        )
    for i, p in enumerate(points):
        cy = _TOP + i * _ROW + _ROW / 2
        name = p.label if len(p.label) <= _NAME_CHARS else p.label[: _NAME_CHARS - 1] + "…"
        shown = p.text
        if p.interval is not None:
            shown += f" [{fmt(p.interval[0])} – {fmt(p.interval[1])}]"
        out.append(f"<g><title>{escape(p.label)}: {escape(shown)}</title>")
        if i % 2 == 0:
            out.append(
                f'<rect x="0" y="{cy - _ROW / 2:.1f}" width="{WIDTH}" height="{_ROW}" '
                'fill="currentColor" fill-opacity="0.04"/>'
            )
        out.append(
            f'<text x="{_NAME_END}" y="{cy + 4:.1f}" text-anchor="end" font-size="12" '
            f'fill="currentColor" class="label" unicode-bidi="isolate">{escape(name)}</text>'
        )
        if p.interval is not None:
            a, b = x(p.interval[0]), x(p.interval[1])
            out.append(
                f'<line x1="{a:.1f}" y1="{cy:.1f}" x2="{b:.1f}" y2="{cy:.1f}" '
                'stroke="#d9480f" stroke-width="2" class="interval"/>'
                f'<line x1="{a:.1f}" y1="{cy - 5:.1f}" x2="{a:.1f}" y2="{cy + 5:.1f}" '
                'stroke="#d9480f" stroke-width="1.5"/>'
                f'<line x1="{b:.1f}" y1="{cy - 5:.1f}" x2="{b:.1f}" y2="{cy + 5:.1f}" '
                'stroke="#d9480f" stroke-width="1.5"/>'
            )
        out.append(
            f'<circle cx="{x(p.score):.1f}" cy="{cy:.1f}" r="4.5" fill="#d9480f" class="dot"/>'
            f'<text x="{_PLOT_END + 10}" y="{cy + 4:.1f}" font-size="12" fill="currentColor" '
            f"{NUMBER}>{escape(p.text)}</text></g>"
        )
    out.append("</svg>")
    return "".join(out)

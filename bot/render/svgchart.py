"""Score against cost as an SVG drawing, its Pareto front marked. Pure: points in, SVG
text out (every label escaped); presentation attributes only, no ``style`` (the web's
Content-Security-Policy allows no inline styles)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape
from typing import NamedTuple

from .bidi import figure, svg_figure
from .scales import plain_number, robust_range
from .webviews import ChartPoint

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
    points: Sequence[ChartPoint], *, cost_label: str, score_label: str, lang: str = "en"
) -> str:
    """The chart: one dot per model (hollow off the front), the front joined by a line,
    each point labelled where its label overprints no other label and no point (the
    front's first; every point has its name as a tooltip). The score axis keeps the
    normal models' scale: an outlier (one wild attempt) is drawn as a triangle in a band
    beyond the axis' end, its value in its label. Empty points: an empty frame. The chart
    is drawn left to right in every language (``direction="ltr"``: a signed tick stays
    ``−5``), its figures in the reader's digits (``bot.render.bidi``)."""

    def number(value: float) -> str:
        return svg_figure(lang, _number(value))

    costs = [p.cost for p in points] or [0.0, 1.0]
    scale = robust_range([p.score for p in points] or [0.0, 1.0])
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
        return _LEFT + (value - x0) / ((x1 - x0) or 1) * plot_w

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
    for tick in _ticks(x0, x1):
        if x0 <= tick <= x1:
            out.append(
                f'<text x="{x(tick):.1f}" y="{HEIGHT - _BOTTOM + 16}" text-anchor="middle" '
                f'font-size="11" fill="currentColor">{number(tick)}</text>'
            )
    for tick in _ticks(normal_low, normal_high):  # none in the outliers' band
        if normal_low <= tick <= normal_high:
            out.append(
                f'<text x="{_LEFT - 6}" y="{y(tick) + 4:.1f}" text-anchor="end" '
                f'font-size="11" fill="currentColor">{number(tick)}</text>'
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

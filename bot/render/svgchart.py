"""Score against cost as an SVG drawing, its Pareto front marked. Pure: points in, SVG
text out (every label escaped); presentation attributes only, no ``style`` (the web's
Content-Security-Policy allows no inline styles)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

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
    return f"{value:.4g}"


def render_svg(points: Sequence[ChartPoint], *, cost_label: str, score_label: str) -> str:
    """The chart: one dot per model (hollow off the front), the front joined by a line,
    the front's points labelled. Empty points: an empty frame."""
    costs = [p.cost for p in points] or [0.0, 1.0]
    scores = [p.score for p in points] or [0.0, 1.0]
    x0, x1 = min(0.0, min(costs)), max(costs) * 1.05 or 1.0
    y0, y1 = min(0.0, min(scores)), max(scores) * 1.05 or 1.0
    plot_w, plot_h = WIDTH - _LEFT - _RIGHT, HEIGHT - _TOP - _BOTTOM

    def x(value: float) -> float:
        return _LEFT + (value - x0) / ((x1 - x0) or 1) * plot_w

    def y(value: float) -> float:
        return _TOP + plot_h - (value - y0) / ((y1 - y0) or 1) * plot_h

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'class="chart" role="img" aria-label="{escape(score_label)} / {escape(cost_label)}">',
        f'<rect x="{_LEFT}" y="{_TOP}" width="{plot_w}" height="{plot_h}" fill="none" '
        'stroke="currentColor" stroke-opacity="0.3"/>',
    ]
    for tick in _ticks(x0, x1):
        if x0 <= tick <= x1:
            out.append(
                f'<text x="{x(tick):.1f}" y="{HEIGHT - _BOTTOM + 16}" text-anchor="middle" '
                f'font-size="11" fill="currentColor">{_number(tick)}</text>'
            )
    for tick in _ticks(y0, y1):
        if y0 <= tick <= y1:
            out.append(
                f'<text x="{_LEFT - 6}" y="{y(tick) + 4:.1f}" text-anchor="end" '
                f'font-size="11" fill="currentColor">{_number(tick)}</text>'
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
        path = " ".join(f"{x(p.cost):.1f},{y(p.score):.1f}" for p in front)
        out.append(f'<polyline points="{path}" fill="none" stroke="#d9480f" stroke-width="1.5"/>')
    for p in points:
        fill = "#d9480f" if p.front else "none"
        out.append(
            f'<circle cx="{x(p.cost):.1f}" cy="{y(p.score):.1f}" r="4" fill="{fill}" '
            f'stroke="#d9480f"><title>{escape(p.label)}: {_number(p.score)} / '
            f"{_number(p.cost)}</title></circle>"
        )
        if p.front:
            out.append(
                f'<text x="{x(p.cost) + 6:.1f}" y="{y(p.score) - 6:.1f}" font-size="11" '
                f'fill="currentColor">{escape(p.label[:32])}</text>'
            )
    out.append("</svg>")
    return "".join(out)

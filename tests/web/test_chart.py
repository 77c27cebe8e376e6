"""The score-against-cost chart: its Pareto front, and SVG that escapes its labels."""

from __future__ import annotations

from bot.render.svgchart import pareto, render_svg
from bot.render.webviews import ChartPoint


def test_the_pareto_front() -> None:
    points = [(1.0, 10.0), (2.0, 9.0), (2.0, 12.0), (3.0, 12.0), (0.5, 1.0), (5.0, 20.0)]
    assert pareto(points) == [True, False, True, False, True, True]
    assert pareto([(1.0, 1.0), (1.0, 1.0)]) == [True, True]  # equals do not beat each other
    assert pareto([]) == []


def test_the_svg_escapes_labels_and_marks_the_front() -> None:
    svg = render_svg(
        [
            ChartPoint('<b onload="x">', 0.01, 50.0, True),
            ChartPoint("b", 0.02, 40.0, False),
            ChartPoint("c", 0.03, 60.0, True),
        ],
        cost_label="cost & <usd>",
        score_label="score",
    )
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "<b onload" not in svg and "&lt;b onload=&quot;x&quot;&gt;" in svg
    assert "cost &amp; &lt;usd&gt;" in svg
    assert svg.count("<polyline") == 1 and svg.count("<circle") == 3
    assert 'fill="none" stroke="#d9480f"><title>b:' in svg  # off the front: hollow
    assert "style=" not in svg  # the CSP allows no inline styles


def test_an_empty_chart_is_a_frame() -> None:
    svg = render_svg([], cost_label="c", score_label="s")
    assert "<rect" in svg and "<circle" not in svg

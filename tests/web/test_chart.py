"""The score-against-cost chart: its Pareto front, and SVG that escapes its labels."""

from __future__ import annotations

import html
import re

from bot.render.svgchart import Box, label_box, pareto, render_svg
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


#: Ten normal models (means 22 to 38) and one whose only attempt natory-v1 scored -20,441.
CROWD = [
    ("gpt-5.5 · think", 0.031, 38.2),
    ("claude-opus-5 · think", 0.045, 36.9),
    ("gemini-3-pro · default", 0.012, 33.5),
    ("o5-high · think_tools", 0.060, 35.1),
    ("deepseek-v4 · default", 0.004, 29.8),
    ("qwen-4-max · default", 0.006, 27.4),
    ("llama-5-405b · default", 0.009, 22.0),
    ("mistral-large-3 · default", 0.008, 24.6),
    ("grok-5 · think", 0.030, 31.0),
    ("kimi-k3 · default", 0.005, 28.3),
    ("wild-model · default", 0.015, -20441.0),
]
_TEXT = re.compile(r'<text x="([-\d.]+)" y="([-\d.]+)" text-anchor="(\w+)"([^>]*)>([^<]*)</text>')


def crowd_svg(rows: list[tuple[str, float, float]] = CROWD) -> str:
    front = pareto([(c, s) for _, c, s in rows])
    points = [ChartPoint(n, c, s, f) for (n, c, s), f in zip(rows, front, strict=True)]
    return render_svg(points, cost_label="cost", score_label="score")


def texts(svg: str) -> list[tuple[float, float, str, str, str]]:
    return [
        (float(x), float(y), a, rest, html.unescape(t)) for x, y, a, rest, t in _TEXT.findall(svg)
    ]


def test_one_wild_model_does_not_set_the_scale() -> None:
    svg = crowd_svg()
    found = texts(svg)
    score_ticks = [t for _, _, anchor, rest, t in found if anchor == "end" and "label" not in rest]
    values = [float(t.replace("−", "-").replace(",", "")) for t in score_ticks]
    assert len(values) >= 3 and min(values) >= -10 and max(values) <= 50, score_ticks
    ticks = [t for _, _, _, rest, t in found if "label" not in rest]
    assert not any("e+" in t or "e-" in t for t in ticks)
    labels = [t for *_, rest, t in texts(svg) if 'class="label"' in rest]
    assert "wild-model · default: −20,441" in labels  # drawn clipped, its value written
    assert svg.count("<polygon") == 1  # the wild model: a triangle off the scale
    assert svg.count("stroke-dasharray") == 1  # where the scale breaks


def test_labels_do_not_overprint_each_other() -> None:
    for rows in (CROWD, [(n, c, 30.0) for n, c, _ in CROWD], [(n, 0.01, s) for n, _, s in CROWD]):
        svg = crowd_svg(rows)
        boxes = [
            (label_box(x, y, anchor, text), text)
            for x, y, anchor, rest, text in texts(svg)
            if 'class="label"' in rest
        ]
        assert len(boxes) >= 3
        plot = Box(56, 16, 640 - 16, 360 - 44)
        for i, (box, text) in enumerate(boxes):
            assert box.within(plot), text
            for other, name in boxes[:i]:
                assert not box.overlaps(other), (text, name)
        circles = re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)"', svg)
        for cx, cy in circles:  # nor a point
            dot = Box(float(cx) - 4, float(cy) - 4, float(cx) + 4, float(cy) + 4)
            assert not any(box.overlaps(dot) for box, _ in boxes)

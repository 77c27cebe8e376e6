"""The comparison chart and its Pareto front."""

from __future__ import annotations

import struct
from dataclasses import replace
from typing import Any

import pytest

from bot.render.charts import (
    LABEL_GID,
    ModelPoint,
    pareto_front,
    score_cost_latency_chart,
    score_cost_latency_figure,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def point(model: str, score: float, cost: float | None, latency: float | None = None) -> ModelPoint:
    return ModelPoint(model, score, cost, latency, attempts=3)


def names(front: tuple[ModelPoint, ...]) -> list[str]:
    return [p.model for p in front]


def test_front_keeps_the_models_nobody_beats() -> None:
    points = [
        point("cheap-bad", 10, 0.01),
        point("cheap-good", 40, 0.02),
        point("mid-worse", 30, 0.05),  # costs more than cheap-good and scores less
        point("pricey-best", 90, 1.00),
        point("pricey-worse", 80, 2.00),
    ]
    assert names(pareto_front(points)) == ["cheap-bad", "cheap-good", "pricey-best"]


def test_front_by_latency_and_missing_values() -> None:
    points = [
        point("a", 50, None, 2.0),
        point("b", 60, 0.1, 5.0),
        point("c", 55, 0.2, 1.0),
        point("d", 70, None, None),
    ]
    assert names(pareto_front(points, x="mean_latency")) == ["c", "b"]
    assert names(pareto_front(points)) == ["b"]  # c costs more and scores less


def test_front_ties() -> None:
    same = [point("x", 50, 0.1), point("y", 50, 0.1)]
    assert names(pareto_front(same)) == ["x", "y"]  # equal points do not beat each other
    # equal cost: only the higher score; equal score: only the cheaper
    assert names(pareto_front([point("lo", 40, 0.1), point("hi", 50, 0.1)])) == ["hi"]
    assert names(pareto_front([point("cheap", 50, 0.1), point("dear", 50, 0.3)])) == ["cheap"]


def test_front_edge_cases() -> None:
    assert pareto_front([]) == ()
    assert names(pareto_front([point("only", -5, 0.0)])) == ["only"]
    assert names(pareto_front([point("nan", 50, float("nan")), point("ok", 1, 1.0)])) == ["ok"]


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_SIGNATURE
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk
    return width, height


@pytest.mark.parametrize(
    "points",
    [
        [
            ModelPoint("gpt-something-very-long-model-name-2025", 120.5, 0.012, 14.2, 5),
            ModelPoint("claude-x", 133.0, 0.030, 9.5, 4),
            ModelPoint("small-open-model", 61.0, 0.0004, 3.1, 10),
            ModelPoint("no-cost-model", 90.0, None, 7.0, 2),
        ],
        [ModelPoint("alone", 37.0, None, None, 1)],
        [],
    ],
)
def test_chart_is_a_phone_sized_png(points: list[ModelPoint]) -> None:
    data = score_cost_latency_chart(points)
    assert len(data) > 10_000
    width, height = png_size(data)
    assert width == 1080 and height > width


def test_chart_leaves_no_global_state() -> None:
    import matplotlib

    before = (matplotlib.get_backend(), dict(matplotlib.rcParams))
    score_cost_latency_chart([point("a", 1, 0.1, 1.0)])
    assert (matplotlib.get_backend(), dict(matplotlib.rcParams)) == before
    import sys

    if "matplotlib.pyplot" in sys.modules:  # imported by someone else: no figure left open
        import matplotlib.pyplot as plt

        assert plt.get_fignums() == []


#: Ten normal models (means 22 to 38) and one whose only attempt natory-v1 scored -20,441.
CROWD = [
    ModelPoint("gpt-5.5 · think", 38.2, 0.031, 14.2, 12),
    ModelPoint("claude-opus-5 · think", 36.9, 0.045, 11.0, 10),
    ModelPoint("gemini-3-pro · default", 33.5, 0.012, 6.3, 15),
    ModelPoint("o5-high · think_tools", 35.1, 0.060, 22.5, 8),
    ModelPoint("deepseek-v4 · default", 29.8, 0.004, 9.1, 20),
    ModelPoint("qwen-4-max · default", 27.4, 0.006, 7.4, 11),
    ModelPoint("llama-5-405b · default", 22.0, 0.009, 8.8, 9),
    ModelPoint("mistral-large-3 · default", 24.6, 0.008, 5.2, 7),
    ModelPoint("grok-5 · think", 31.0, 0.030, 13.0, 6),
    ModelPoint("kimi-k3 · default", 28.3, 0.005, 10.5, 10),
    ModelPoint("wild-model · default", -20441.0, 0.015, 9.8, 1),
]


def labels_of(axes: Any) -> list[Any]:
    return [t for t in axes.texts if t.get_gid() == LABEL_GID and t.get_text()]


def test_one_wild_model_does_not_set_the_scale() -> None:
    figure = score_cost_latency_figure(CROWD)
    for axes in figure.axes:
        low, high = axes.get_ylim()
        assert -20 < low < 22 and 38.2 < high < 60  # the normal models' scale
        ticks = [t.get_text() for t in axes.get_yticklabels()]
        assert all("e" not in t and "×" not in t for t in ticks)
        figure.canvas.draw()
        assert axes.yaxis.get_offset_text().get_text() == ""  # no 1e6 offset
        # the wild model is drawn at the axis' edge, marked, with its value written
        wild = [t for t in labels_of(axes) if t.get_text().startswith("wild-model")]
        assert [t.get_text() for t in wild] == ["wild-model · default (n=1): −20,441"]
        assert low < wild[0].xy[1] < 22.0  # below every normal model, inside the axis


def test_labels_do_not_overprint_each_other() -> None:
    for points in (CROWD, [replace(p, mean_score=30.0) for p in CROWD]):  # many ties too
        figure = score_cost_latency_figure(points)
        renderer = figure.canvas.get_renderer()
        for axes in figure.axes:
            labels = labels_of(axes)
            boxes = [t.get_window_extent(renderer) for t in labels]
            inside = axes.get_window_extent(renderer)
            for i, box in enumerate(boxes):
                assert inside.x0 <= box.x0 and box.x1 <= inside.x1, labels[i].get_text()
                assert inside.y0 <= box.y0 and box.y1 <= inside.y1, labels[i].get_text()
                for j in range(i):
                    assert not box.overlaps(boxes[j]), (labels[i].get_text(), labels[j].get_text())
            footer = " ".join(t.get_text() for t in axes.texts if t.get_gid() != LABEL_GID)
            named = {t.get_text().split(" (n=")[0] for t in labels}
            for point in points:  # every model is labelled, or named under the panel
                short = point.model if len(point.model) <= 22 else point.model[:21] + "…"
                assert short in named or short in footer, short


def test_plain_ticks_on_a_log_cost_axis() -> None:
    points = [ModelPoint(f"m{i}", 10.0 + i, 0.0001 * 10**i, 1.0 + i, 3) for i in range(5)]
    figure = score_cost_latency_figure(points)
    figure.canvas.draw()
    cost_axes = figure.axes[0]
    assert cost_axes.get_xscale() == "log"
    ticks = [t.get_text() for t in cost_axes.get_xticklabels() if t.get_text()]
    assert "0.001" in ticks and not any("10^" in t or "e-" in t or "$" in t for t in ticks)


def test_a_persian_reader_gets_persian_words_and_digits() -> None:
    """/compare in Persian: the axes, the legend, the labels in Persian, every tick in
    Persian digits (one digit script per reader); English stays as it was."""
    from bot.render.charts import chart_words

    points = [point("alpha", 40, 0.02, 1.5), point("beta", 90, 1.0, 9.0)]
    figure = score_cost_latency_figure(points, title="Natory", words=chart_words("fa"))
    figure.canvas.draw()
    cost_axes = figure.axes[0]
    assert cost_axes.get_ylabel() == "امتیاز میانگین"
    assert cost_axes.get_xlabel() == "هزینهٔ میانگین هر تلاش (دلار)"
    ticks = [label.get_text() for axes in figure.axes
             for label in (*axes.get_xticklabels(), *axes.get_yticklabels())]  # fmt: skip
    assert ticks and not any(c in "0123456789" for c in "".join(ticks))
    assert any(c in "۰۱۲۳۴۵۶۷۸۹" for c in "".join(ticks))
    legend = [t.get_text() for t in cost_axes.get_legend().get_texts()]
    assert "مرز پارتو" in legend
    labels = [
        t.get_text()
        for t in figure.findobj(match=lambda a: getattr(a, "get_gid", lambda: None)() == LABEL_GID)
    ]
    assert any("۳ تلاش" in text for text in labels)
    english = score_cost_latency_figure(points)
    english.canvas.draw()
    assert english.axes[0].get_ylabel() == "mean score"
    assert any("n=3" in t.get_text() for t in english.findobj(
        match=lambda a: getattr(a, "get_gid", lambda: None)() == LABEL_GID))  # fmt: skip


def test_the_line_of_models_not_labelled_stays_inside_the_image() -> None:
    """Many long names on one score: those with no room for a label are named under the
    panel, on a line cut to the panel's width (it ran off the image)."""
    long_names = [f"{'x' * 30} {i}" for i in range(30)] + [
        f"wide-{'w' * 20}-{i}" for i in range(10)
    ]
    points = [
        point(name, 41.0, 0.001 * (i + 1), 0.5 * (i + 1)) for i, name in enumerate(long_names)
    ]
    figure = score_cost_latency_figure(points)
    renderer = figure.canvas.get_renderer()
    right = figure.bbox.width
    for axes in figure.axes:
        notes = [t for t in axes.texts if t.get_gid() != LABEL_GID and t.get_text().strip("·")]
        assert notes, "some model is named under the panel"
        for note in notes:
            box = note.get_window_extent(renderer)
            assert box.x0 >= 0 and box.x1 <= right, note.get_text()


def test_an_emoji_in_a_models_name_is_not_drawn_as_an_empty_box() -> None:
    import warnings

    points = [point("rocket 🚀 x\U0010fffd", 40, 0.02, 1.5), point("beta", 90, 1.0, 9.0)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        score_cost_latency_chart(points)
    assert [str(w.message) for w in caught if "missing from font" in str(w.message)] == []

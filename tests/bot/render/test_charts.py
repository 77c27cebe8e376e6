"""The comparison chart and its Pareto front."""

from __future__ import annotations

import struct

import pytest

from bot.render.charts import ModelPoint, pareto_front, score_cost_latency_chart

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

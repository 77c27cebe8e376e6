"""Charts for the model comparison board: score against cost and against latency.

Pure functions from data to PNG bytes. matplotlib is used through its object API
(``Figure`` + the Agg canvas), never ``pyplot``: no global figure registry, no backend
switch, no rcParams changed, so nothing leaks between calls or threads.

``pareto_front`` is the "cheapest model that is good enough" line: a model is on the
front when no other model has a score at least as high at a cost (or latency) at most
as low, with one of the two strictly better.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .format import mode_label

if TYPE_CHECKING:
    from storage.analytics import NatoryRow

#: Phone-friendly: 1080 px wide, two panels stacked.
WIDTH_PX = 1080
HEIGHT_PX = 1620
DPI = 120
_FONT = 17
_TITLE_FONT = 21
_LABEL_FONT = 14
_NAME_LIMIT = 22

Axis = Literal["mean_cost", "mean_latency"]
ScoreAxis = Literal["mean_score"]


@dataclass(frozen=True, slots=True)
class ModelPoint:
    """One model on the board: its mean score, mean cost (USD) and latency (s) per attempt."""

    model: str
    mean_score: float
    mean_cost: float | None
    mean_latency: float | None
    attempts: int


def _value(point: ModelPoint, name: str) -> float | None:
    value: float | None = getattr(point, name)
    if value is None or not math.isfinite(value):
        return None
    return value


def pareto_front(
    points: Sequence[ModelPoint], *, x: Axis = "mean_cost", y: ScoreAxis = "mean_score"
) -> tuple[ModelPoint, ...]:
    """The points no other point beats (lower or equal ``x`` and higher or equal ``y``,
    one strictly), ordered by ``x``. Points without ``x`` (or ``y``) are left out; equal
    points are all on the front."""
    usable = [
        (vx, vy, p)
        for p in points
        if (vx := _value(p, x)) is not None and (vy := _value(p, y)) is not None
    ]
    usable.sort(key=lambda t: (t[0], -t[1]))
    front: list[ModelPoint] = []
    best: tuple[float, float] | None = None  # (x, y) of the last point put on the front
    for vx, vy, point in usable:
        if best is None or vy > best[1] or (vx, vy) == best:
            front.append(point)
            best = (vx, vy)
    return tuple(front)


def _short(name: str) -> str:
    return name if len(name) <= _NAME_LIMIT else name[: _NAME_LIMIT - 1] + "…"


def _panel(axes: Axes, points: Sequence[ModelPoint], x: Axis, label: str, missing: str) -> None:
    shown = [p for p in points if _value(p, x) is not None]
    axes.tick_params(labelsize=_LABEL_FONT)
    axes.grid(True, alpha=0.3)
    axes.set_ylabel("mean score", fontsize=_FONT)
    axes.set_xlabel(label, fontsize=_FONT)
    if not shown:
        axes.text(0.5, 0.5, missing, ha="center", va="center", fontsize=_FONT,
                  transform=axes.transAxes)  # fmt: skip
        axes.set_xticks([])
        axes.set_yticks([])
        return
    front = pareto_front(shown, x=x)
    on_front = {id(p) for p in front}
    xs = [_value(p, x) or 0.0 for p in shown]
    ys = [p.mean_score for p in shown]
    others = [(vx, vy) for p, vx, vy in zip(shown, xs, ys, strict=True) if id(p) not in on_front]
    if others:
        axes.scatter([o[0] for o in others], [o[1] for o in others], s=140, color="#8c96a6",
                     zorder=3, label="dominated")  # fmt: skip
    fx = [_value(p, x) or 0.0 for p in front]
    fy = [p.mean_score for p in front]
    axes.step(fx, fy, where="post", color="#d1495b", linewidth=3, zorder=2)
    axes.scatter(fx, fy, s=260, color="#d1495b", edgecolor="black", linewidth=1.2,
                 zorder=4, label="Pareto front")  # fmt: skip
    positive = [v for v in xs if v > 0]
    log_scale = len(positive) == len(xs) and max(xs) / min(positive) > 100
    if log_scale:
        axes.set_xscale("log")
    low, high = min(xs), max(xs)
    for point, vx, vy in zip(shown, xs, ys, strict=True):
        where = (
            (math.log(vx) - math.log(low)) / (math.log(high) - math.log(low) or 1.0)
            if log_scale
            else (vx - low) / ((high - low) or 1.0)
        )
        right_half = where > 0.5
        note = axes.annotate(
            f"{_short(point.model)} (n={point.attempts})",
            (vx, vy),
            xytext=(-10 if right_half else 10, 10),
            textcoords="offset points",
            ha="right" if right_half else "left",
            fontsize=_LABEL_FONT,
            weight="bold" if id(point) in on_front else "normal",
        )
        note.set_in_layout(False)  # long names must not squeeze the plot
    axes.margins(x=0.15, y=0.15)
    axes.legend(fontsize=_LABEL_FONT, loc="lower right")
    hidden = len(points) - len(shown)
    if hidden:
        axes.text(0.01, 0.01, f"{hidden} model(s) without data", fontsize=_LABEL_FONT - 2,
                  transform=axes.transAxes, color="#555555")  # fmt: skip


def score_cost_latency_chart(points: Sequence[ModelPoint], *, title: str = "") -> bytes:
    """A PNG (1080 px wide) with two panels: score against cost, score against latency,
    each with its Pareto front marked (higher score and lower cost/latency is better)."""
    figure = Figure(figsize=(WIDTH_PX / DPI, HEIGHT_PX / DPI), dpi=DPI)
    FigureCanvasAgg(figure)
    cost_axes, latency_axes = figure.subplots(2, 1)
    _panel(cost_axes, points, "mean_cost", "mean cost per attempt (USD)", "no cost data yet")
    _panel(latency_axes, points, "mean_latency", "mean latency per attempt (s)",
           "no latency data yet")  # fmt: skip
    cost_axes.set_title(title or "Score against cost and latency", fontsize=_TITLE_FONT, pad=14)
    figure.tight_layout(pad=1.5)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def natory_points(rows: Sequence[NatoryRow]) -> list[ModelPoint]:
    """Natory model-board rows (``storage.analytics.natory_board`` over all targets) as
    chart points; a model in two modes is two points (``model · mode``)."""
    return [
        ModelPoint(
            model=f"{row.model} · {mode_label(row.mode)}",
            mean_score=row.mean,
            mean_cost=row.mean_cost,
            mean_latency=row.mean_latency,
            attempts=row.attempts,
        )
        for row in rows
    ]


def natory_comparison_chart(rows: Sequence[NatoryRow]) -> bytes:
    """The ``/compare natory`` PNG (also ``benchboard compare natory``)."""
    return score_cost_latency_chart(
        natory_points(rows), title="Natory: mean score against cost and latency"
    )

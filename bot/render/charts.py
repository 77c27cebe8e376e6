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
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import FuncFormatter, NullFormatter
from matplotlib.transforms import Bbox

from .bidi import figure
from .cards import drawable, register_fonts
from .format import mode_label
from .i18n import N_, t
from .scales import plain_number, robust_range

if TYPE_CHECKING:
    from storage.analytics import ChallengeRow

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


#: Label offsets from a point, in points (direction, horizontal and vertical
#: alignment), tried in order at growing distances; the first that overlaps no label,
#: no other point and stays inside the panel is taken.
_Across = Literal["left", "center", "right"]
_Up = Literal["bottom", "center", "top"]
_PLACES: tuple[tuple[tuple[float, float], _Across, _Up], ...] = (
    ((1, 1), "left", "bottom"),
    ((-1, 1), "right", "bottom"),
    ((1, -1), "left", "top"),
    ((-1, -1), "right", "top"),
    ((0, 1.4), "center", "bottom"),
    ((0, -1.4), "center", "top"),
    ((1.5, 0), "left", "center"),
    ((-1.5, 0), "right", "center"),
    ((0.4, 1.2), "left", "bottom"),
    ((-0.4, 1.2), "right", "bottom"),
    ((0.4, -1.2), "left", "top"),
    ((-0.4, -1.2), "right", "top"),
)
_DISTANCES = (9.0, 20.0, 34.0, 50.0, 70.0, 95.0)
#: The gid of a point's label (tests find the labels by it).
LABEL_GID = "point-label"
_MARKER_AREA = 140
_FRONT_AREA = 260


def _plain_axis(axis: Any, log_scale: bool, words: ChartWords) -> None:
    """Ticks as numbers are written (no ``1e6``, no offset), in the reader's digits; on
    a log axis too."""
    axis.set_major_formatter(FuncFormatter(lambda value, _pos: words.number(value)))
    if log_scale:
        axis.set_minor_formatter(NullFormatter())


@dataclass(frozen=True, slots=True)
class _Labels:
    """A panel's point labels, placed once the figure is laid out."""

    #: (point, x, y as drawn, label text)
    texts: list[tuple[ModelPoint, float, float, str]]
    on_front: set[int]
    notes: list[str]
    footer: Text
    words: ChartWords


@dataclass(frozen=True, slots=True)
class ChartWords:
    """The chart's words in the reader's language, its figures in the reader's digits,
    and the font family that draws them (the cards'; English: DejaVu Sans first)."""

    lang: str
    score: str
    cost: str
    latency: str
    no_cost: str
    no_latency: str
    dominated: str
    front: str
    family: list[str]

    def number(self, value: float) -> str:
        return figure(self.lang, plain_number(value))

    def attempts(self, n: int) -> str:
        return t(self.lang, "chart_attempts", n=n)

    def without_data(self, n: int) -> str:
        return t(self.lang, "chart_without_data", n=n)

    def not_labelled(self, names: str) -> str:
        return t(self.lang, "chart_not_labelled", names=names)


#: Ids built at run time (extraction finds them here).
_CHART_IDS = (
    N_("chart_mean_score"),
    N_("chart_cost_axis"),
    N_("chart_latency_axis"),
    N_("chart_no_cost"),
    N_("chart_no_latency"),
    N_("chart_dominated"),
    N_("chart_front"),
    N_("chart_attempts"),
    N_("chart_without_data"),
    N_("chart_not_labelled"),
    N_("chart_title"),
)


def chart_words(lang: str = "en") -> ChartWords:
    # the cards' fonts (an emoji in a model's name drawn, not a box); English keeps
    # matplotlib's own first
    family = list(register_fonts())
    if lang != "fa":
        family.remove("DejaVu Sans")
        family.insert(0, "DejaVu Sans")
    return ChartWords(
        lang, t(lang, "chart_mean_score"), t(lang, "chart_cost_axis"),
        t(lang, "chart_latency_axis"), t(lang, "chart_no_cost"), t(lang, "chart_no_latency"),
        t(lang, "chart_dominated"), t(lang, "chart_front"), family,
    )  # fmt: skip


def _panel(
    axes: Axes,
    points: Sequence[ModelPoint],
    x: Axis,
    label: str,
    missing: str,
    words: ChartWords,
) -> _Labels | None:
    shown = [p for p in points if _value(p, x) is not None]
    font: dict[str, Any] = {"family": words.family} if words.family else {}
    tick_font: dict[str, Any] = {"labelfontfamily": words.family[0]} if words.family else {}
    axes.tick_params(labelsize=_LABEL_FONT, **tick_font)
    axes.grid(True, alpha=0.3)
    axes.set_ylabel(words.score, fontsize=_FONT, **font)
    axes.set_xlabel(label, fontsize=_FONT, **font)
    if not shown:
        axes.text(0.5, 0.5, missing, ha="center", va="center", fontsize=_FONT,
                  transform=axes.transAxes, **font)  # fmt: skip
        axes.set_xticks([])
        axes.set_yticks([])
        return None
    front = pareto_front(shown, x=x)
    on_front = {id(p) for p in front}
    xs = [_value(p, x) or 0.0 for p in shown]
    # the score axis at the normal models' scale: an outlier (one wild attempt) is drawn
    # clipped to its edge, marked with a triangle, its value in its label
    scale = robust_range([p.mean_score for p in shown])
    # (equal scores: a range a tenth of their size either way, not a thousandth)
    span = max(scale.high - scale.low, 0.2 * max(abs(scale.high), abs(scale.low)), 1.0)
    band = span * 0.2
    ys = [scale.clip(p.mean_score, band) for p in shown]
    clipped = {id(p) for p in shown if scale.outlier(p.mean_score)}

    def draw(group: list[int], area: int, color: str, edge: str | None, name: str) -> None:
        plain = [i for i in group if id(shown[i]) not in clipped]
        if plain:
            axes.scatter([xs[i] for i in plain], [ys[i] for i in plain], s=area, color=color,
                         edgecolor=edge, linewidth=1.2, zorder=4, label=name)  # fmt: skip
        for marker, side in (("v", -1), ("^", 1)):
            out = [
                i for i in group if id(shown[i]) in clipped and (ys[i] > scale.high) == (side > 0)
            ]
            if out:
                axes.scatter([xs[i] for i in out], [ys[i] for i in out], s=area * 1.3,
                             marker=marker, color=color, edgecolor="black", linewidth=1.2,
                             zorder=4, label=None if plain else name)  # fmt: skip

    others = [i for i, p in enumerate(shown) if id(p) not in on_front]
    if others:
        draw(others, _MARKER_AREA, "#8c96a6", None, words.dominated)
    front_at = [i for i, p in enumerate(shown) if id(p) in on_front]
    front_at.sort(key=lambda i: (xs[i], -shown[i].mean_score))
    axes.step([xs[i] for i in front_at], [ys[i] for i in front_at], where="post",
              color="#d1495b", linewidth=3, zorder=2)  # fmt: skip
    draw(front_at, _FRONT_AREA, "#d1495b", "black", words.front)
    positive = [v for v in xs if v > 0]
    log_scale = len(positive) == len(xs) and max(xs) / min(positive) > 100
    if log_scale:
        axes.set_xscale("log")
    axes.margins(x=0.15)
    low = scale.low - (band * 1.6 if any(y < scale.low for y in ys) else span * 0.15)
    high = scale.high + (band * 1.6 if any(y > scale.high for y in ys) else span * 0.15)
    axes.set_ylim(low, high)
    if clipped:  # no tick where the axis is not to scale (the clipped band)
        ticks = axes.get_yticks()
        axes.set_yticks([v for v in ticks if scale.low - band / 2 <= v <= scale.high + band / 2])
        axes.set_ylim(low, high)
    # where the axis stops being to scale: a dashed line between the normal range and
    # the clipped outliers
    if any(y < scale.low for y in ys):
        axes.axhline(scale.low - band / 2, color="#555555", linewidth=1,
                     linestyle=(0, (4, 4)), zorder=1)  # fmt: skip
    if any(y > scale.high for y in ys):
        axes.axhline(scale.high + band / 2, color="#555555", linewidth=1,
                     linestyle=(0, (4, 4)), zorder=1)  # fmt: skip
    _plain_axis(axes.yaxis, False, words)
    _plain_axis(axes.xaxis, log_scale, words)
    axes.legend(fontsize=_LABEL_FONT, loc="lower right", prop=font or None)
    texts = []
    for point, vx, vy in zip(shown, xs, ys, strict=True):
        text = f"{_short(drawable(point.model))} ({words.attempts(point.attempts)})"
        if id(point) in clipped:
            text += f": {words.number(point.mean_score)}"
        texts.append((point, vx, vy, text))
    hidden = len(points) - len(shown)
    notes = [words.without_data(hidden)] if hidden else []
    # a line under the axis label for what the panel cannot show; laid out now (its
    # room is kept), written once the labels are placed
    footer = axes.annotate(
        "·", (0, 0), xycoords="axes fraction", xytext=(0, -56), textcoords="offset points",
        fontsize=_LABEL_FONT - 2, color="#555555", va="top", ha="left", **font,
    )  # fmt: skip
    return _Labels(texts, on_front, notes, footer, words)


def _place_labels(figure: Figure, axes: Axes, labels: _Labels) -> None:
    """Put each point's label where it overprints no other label and no point, in the
    panel (front points and outliers first); a label with no such place is left out and
    its model named in a line under the panel."""
    texts, on_front, notes = labels.texts, labels.on_front, labels.notes
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    axes.set_autoscale_on(False)  # the leader lines must not move the points
    inside = axes.get_window_extent(renderer).padded(-2)
    to_pixels = axes.transData
    radius = math.sqrt(_FRONT_AREA) / 2 * figure.dpi / 72
    taken = [
        Bbox.from_bounds(px - radius, py - radius, 2 * radius, 2 * radius)
        for _p, vx, vy, _t in texts
        for px, py in [to_pixels.transform((vx, vy))]
    ]
    legend = axes.get_legend()
    if legend is not None:
        taken.append(legend.get_window_extent(renderer))
    order = sorted(
        range(len(texts)),
        key=lambda i: (id(texts[i][0]) not in on_front, ":" not in texts[i][3], i),
    )
    left_out = []
    for i in order:
        point, vx, vy, text = texts[i]
        note = axes.annotate(
            text, (vx, vy), xytext=(0, 0), textcoords="offset points",
            fontsize=_LABEL_FONT, weight="bold" if id(point) in on_front else "normal",
            family=labels.words.family, zorder=5,
            bbox={"boxstyle": "square,pad=0.05", "facecolor": "white", "edgecolor": "none",
                  "alpha": 0.75},
        )  # fmt: skip
        note.set_gid(LABEL_GID)
        note.set_in_layout(False)  # long names must not squeeze the plot
        placed = False
        for distance in _DISTANCES:
            for (dx, dy), ha, va in _PLACES:
                note.xyann = (dx * distance, dy * distance)
                note.set_horizontalalignment(ha)
                note.set_verticalalignment(va)
                box = note.get_window_extent(renderer)
                if (
                    inside.contains(box.x0, box.y0)
                    and inside.contains(box.x1, box.y1)
                    # (its own point's mark aside: the nearest places are clear of it)
                    and not any(box.overlaps(other) for j, other in enumerate(taken) if j != i)
                ):
                    taken.append(box)
                    placed = True
                    if distance > _DISTANCES[0]:  # a far label: a line to its point
                        _leader(axes, (vx, vy), (dx * distance, dy * distance), figure.dpi)
                    break
            if placed:
                break
        if not placed:
            note.remove()
            left_out.append(text)
    if left_out:
        notes = [*notes, labels.words.not_labelled("; ".join(left_out))]
    # as much of the line as the panel's width holds (measured: 130 characters of
    # wide names ran off the image)
    line, right = "  ·  ".join(notes), axes.get_window_extent(renderer).x1
    for width in range(130, 10, -10):
        labels.footer.set_text(textwrap.shorten(line, width, placeholder=" …"))
        if labels.footer.get_window_extent(renderer).x1 <= right:
            break


def _leader(axes: Axes, xy: tuple[float, float], offset: tuple[float, float], dpi: float) -> None:
    """A thin line from a point towards its label, ``offset`` points away (stopping
    short of both)."""
    px, py = axes.transData.transform(xy)
    ox, oy = (v * dpi / 72 for v in offset)
    length = math.hypot(ox, oy)
    start, end = 10 * dpi / 72 / length, max(0.0, 1 - 3 * dpi / 72 / length)
    if end <= start:
        return
    back = axes.transData.inverted()
    a = back.transform((px + ox * start, py + oy * start))
    b = back.transform((px + ox * end, py + oy * end))
    axes.plot([a[0], b[0]], [a[1], b[1]], color="#777777", linewidth=0.8, zorder=3)


def score_cost_latency_figure(
    points: Sequence[ModelPoint], *, title: str = "", words: ChartWords | None = None
) -> Figure:
    """The figure of :func:`score_cost_latency_chart` (its labels placed)."""
    words = words or chart_words()
    figure = Figure(figsize=(WIDTH_PX / DPI, HEIGHT_PX / DPI), dpi=DPI)
    FigureCanvasAgg(figure)
    cost_axes, latency_axes = figure.subplots(2, 1)
    panels = [
        (cost_axes, _panel(cost_axes, points, "mean_cost", words.cost, words.no_cost, words)),
        (latency_axes, _panel(latency_axes, points, "mean_latency", words.latency,
                              words.no_latency, words)),
    ]  # fmt: skip
    font: dict[str, Any] = {"family": words.family} if words.family else {}
    cost_axes.set_title(
        title or "Score against cost and latency", fontsize=_TITLE_FONT, pad=14, **font
    )
    figure.tight_layout(pad=1.5)
    # after the layout: the labels are placed where the points are finally drawn
    for axes, labels in panels:
        if labels is not None:
            _place_labels(figure, axes, labels)
    return figure


def score_cost_latency_chart(
    points: Sequence[ModelPoint], *, title: str = "", words: ChartWords | None = None
) -> bytes:
    """A PNG (1080 px wide) with two panels: score against cost, score against latency,
    each with its Pareto front marked (higher score and lower cost/latency is better).
    The score axis keeps the normal models' scale (an outlier is drawn clipped to its
    edge, its value in its label) and no label overprints another."""
    figure = score_cost_latency_figure(points, title=title, words=words)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def challenge_points(rows: Sequence[ChallengeRow], lang: str = "en") -> list[ModelPoint]:
    """A challenge's model-board rows (``storage.analytics.challenge_board`` over all
    targets) as chart points; a model in two modes is two points (``model · mode``)."""
    return [
        ModelPoint(
            model=f"{row.model} · {mode_label(row.mode, lang)}",
            mean_score=row.mean,
            mean_cost=row.mean_cost,
            mean_latency=row.mean_latency,
            attempts=row.attempts,
        )
        for row in rows
    ]


def comparison_chart(title: str, rows: Sequence[ChallengeRow], lang: str = "en") -> bytes:
    """The ``/compare <benchmark>`` PNG of a challenge benchmark (also ``benchboard
    compare <benchmark>``) in the reader's language and digits; ``title``: the
    benchmark's."""
    return score_cost_latency_chart(
        challenge_points(rows, lang),
        title=t(lang, "chart_title", benchmark=title),
        words=chart_words(lang),
    )

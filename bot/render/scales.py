"""Chart scales that stay at the scale of the normal data (pure, no matplotlib).

One wild value (an attempt scored at -20,441 among means of 10 to 40) must not
squash every other point onto one line: :func:`robust_range` is the range of the values
that are not outliers by Tukey's far-out fences (three interquartile ranges beyond the
quartiles), and the charts draw the outliers clipped to the edge of the axis, marked,
with their value written beside them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

#: How many interquartile ranges beyond the quartiles a value is still normal (Tukey's
#: "far out" fence).
FENCE = 3.0
#: Fewer values than this: no quartiles to trust, every value is normal.
MIN_VALUES = 5


class Range(NamedTuple):
    """The normal values' range (``low`` to ``high``) and the fences beyond which a value
    is an outlier, drawn clipped to the axis."""

    low: float
    high: float
    fence_low: float
    fence_high: float

    def outlier(self, value: float) -> bool:
        return not self.fence_low <= value <= self.fence_high

    def clip(self, value: float, band: float) -> float:
        """Where a value is drawn: an outlier in the band beyond the normal range."""
        if value < self.fence_low:
            return self.low - band
        if value > self.fence_high:
            return self.high + band
        return value


def _quantile(ordered: Sequence[float], q: float) -> float:
    """The ``q`` quantile of sorted values (linear between the closest ranks)."""
    at = (len(ordered) - 1) * q
    below = math.floor(at)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (at - below)


def robust_range(values: Sequence[float], *, fence: float = FENCE) -> Range:
    """The range of the values that are not outliers (NaN and infinities ignored).

    The spread is the interquartile range, at least a tenth of the median's size and
    at least 1, so that equal values do not make every other value an outlier. With
    fewer than :data:`MIN_VALUES` values every value is normal."""
    ordered = sorted(v for v in values if math.isfinite(v))
    if not ordered:
        return Range(0.0, 1.0, -math.inf, math.inf)
    if len(ordered) < MIN_VALUES:
        return Range(ordered[0], ordered[-1], -math.inf, math.inf)
    q1, median, q3 = (_quantile(ordered, q) for q in (0.25, 0.5, 0.75))
    spread = max(q3 - q1, abs(median) / 10, 1.0)
    low, high = q1 - fence * spread, q3 + fence * spread
    inside = [v for v in ordered if low <= v <= high]
    return Range(inside[0], inside[-1], low, high)


def plain_number(value: float) -> str:
    """A tick or a value as people write it: ``-20,441``, ``0.0004``, ``1.5`` — never
    ``1e6`` or an offset."""
    if value == 0:
        return "0"
    if abs(value) >= 1000:
        return f"{value:,.0f}".replace("-", "−")
    digits = max(0, 3 - math.floor(math.log10(abs(value))))
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return text.replace("-", "−")

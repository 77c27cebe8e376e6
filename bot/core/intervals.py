"""95 % intervals of board scores. Pure functions: no I/O.

**One run: over its questions, analytically.** A result's score is a sum of points per
question (+1/−3/0 for a right, wrong or no answer) or their mean (a share, such as
pass@1); the benchmark
says which and gives the points (``Benchmark.question_points``). Treating the questions
as a sample of the questions the benchmark could have asked, the standard error of the
score is ``s·√n`` for a sum and ``s/√n`` for a mean (``s``: the sample standard deviation
of the n points), and the interval is ``score ± 1.96·SE``. We chose the analytic standard
error over a bootstrap because it is exact for this statistic (the bootstrap estimates the
same quantity by resampling), deterministic (the same board shows the same interval on
every load and every instance: no random seed), costs one pass over ~100 numbers, and is
one number per result: it is computed when a result is recorded and kept with it
(``submissions.score_se``), so a board page reads it by primary key with its rows instead
of re-reading every record. With ~100 questions the normal approximation is sound.

**Several runs: over runs.** A line's score is its best run's. With two or more runs
(distinct answer sets) of the same model and mode, the spread of their scores measures
directly how much one run's score moves when the model is run again (its sampling,
the order of questions, everything): the interval is ``score ± 1.96·s_runs`` (``s_runs``:
the sample standard deviation of the runs' scores). It is centred on the line's score
and does not shrink as runs are added (the figure shown is one run, not the mean of the
runs). When every run scored the same (``s_runs`` = 0) that says nothing of the
questions' sampling, so the best run's interval over its questions is used instead.

A line with nothing to measure (one attempt of a benchmark whose score is not made of
questions, a result the benchmark's authors reported) has no interval (None).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from scoring import Benchmark, Result
from scoring.base import QuestionPoints

#: The normal distribution's two-sided 95 % quantile.
Z95 = 1.959963984540054
#: ``submissions.score_se`` for a result that has no interval over questions.
NO_SE = -1.0

Interval = tuple[float, float]


def standard_error(points: QuestionPoints | None) -> float | None:
    """The standard error of a score made of ``points`` (None: fewer than two questions).
    Points given with their counts cost one step per distinct value."""
    if points is None:
        return None
    values = points.points
    counts = points.counts or (1,) * len(values)
    n = sum(counts)
    if n < 2:
        return None
    mean = math.fsum(v * c for v, c in zip(values, counts, strict=True)) / n
    squares = math.fsum(c * (v - mean) ** 2 for v, c in zip(values, counts, strict=True))
    sd = math.sqrt(max(squares / (n - 1), 0.0))
    return sd / math.sqrt(n) if points.mean else sd * math.sqrt(n)


def result_se(benchmark: Benchmark, result: Result) -> float:
    """What ``submissions.score_se`` keeps for a result: its standard error over its
    questions, or :data:`NO_SE` when it has none."""
    se = standard_error(benchmark.question_points(result))
    return NO_SE if se is None else se


def around(score: float, half: float) -> Interval:
    """``score ± half``, rounded for display and JSON (never excluding the score)."""
    return (round(score - half, 6), round(score + half, 6))


def run_spread(runs: int, total: float, squares: float) -> float | None:
    """The sample standard deviation of ``runs`` scores from their sum and the sum of
    their squares (None for fewer than two)."""
    if runs < 2:
        return None
    variance = (squares - total * total / runs) / (runs - 1)
    return math.sqrt(max(variance, 0.0))


def line_interval(
    score: float, se: float | None, runs: int, spread: float | None
) -> Interval | None:
    """A board line's 95 % interval: over its runs when it has several that differ,
    else over its best run's questions (``se``: that run's standard error; None or
    negative: unknown or none), else None."""
    if runs >= 2 and spread is not None and spread > 0:
        return around(score, Z95 * spread)
    if se is not None and se >= 0:
        return around(score, Z95 * se)
    return None


def overlaps(upper: Interval | None, lower: Interval | None) -> bool:
    """Whether two lines' intervals overlap (a line is tied with the one above it)."""
    if upper is None or lower is None:
        return False
    return lower[1] >= upper[0] and upper[1] >= lower[0]


def ties(intervals: Sequence[Interval | None], above: Interval | None = None) -> list[bool]:
    """For each line in rank order, whether its interval overlaps the line's above
    (``above``: the interval of the line before the first, from the previous page)."""
    out = []
    previous = above
    for interval in intervals:
        out.append(overlaps(previous, interval))
        previous = interval
    return out

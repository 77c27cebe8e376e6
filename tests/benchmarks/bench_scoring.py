"""PrimeBench scoring speed and memory. Not part of the test run.

    .venv/bin/python tests/benchmarks/bench_scoring.py [--quick]

Prints the median time to score a 104-line submission (bare, and with prose around it),
and the time, throughput and peak memory (tracemalloc, relative to the input size) for
20 MB submissions of several shapes: answer lines only (the worst case for the parser:
5 million lines), prose with answers, a hostile file of all-different lines, and one
20 MB line.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from scoring import primebench as pb
from tests.benchmarks.figures import figure

MB = 1_000_000
rng = random.Random(1)
KEY = pb.load_key("\n".join(f"{q}:{rng.randint(1, 4)}" for q in range(1, 105)).encode())


def typical() -> str:
    return "\n".join(f"{q}:{rng.choice(['1', '2', '3', '4', 'none'])}" for q in range(1, 105))


def typical_with_prose() -> str:
    """The same answers the way models often write them: some prose around, a space
    after the colon, None capitalised, one answer changed further down."""
    answers = [f"{q}: {rng.choice(['1', '2', '3', '4', 'None'])}" for q in range(1, 105)]
    return "\n".join(
        [
            "Let me work through the questions one by one before answering.",
            "",
            "Final answers:",
            *answers,
            "",
            "On reflection, question 17 deserves a different option:",
            "17: 2",
            "I hope this helps.",
        ]
    )


def fill(make_line: Callable[[int], str], size: int | None = None) -> str:
    size = SIZE if size is None else size
    lines, total, i = [], 0, 0
    while total < size:
        line = make_line(i)
        lines.append(line)
        total += len(line) + 1
        i += 1
    return "\n".join(lines)


#: The size of the large inputs (``--quick``: 5 MB).
SIZE = 5 * MB if "--quick" in sys.argv else 20 * MB


def shapes() -> dict[str, str]:
    answers = [f"{q}:{o}" for q in range(1, 105) for o in ("1", "2", "3", "4", "none")]
    prose = [
        "Let me think about question 12 carefully before choosing; option 3 looks right.",
        "Final answers:",
    ]
    return {
        "answer lines": fill(lambda i: answers[(i * 7919) % len(answers)]),
        "prose + answers": fill(lambda i: prose[i % 2] if i % 3 else answers[i % len(answers)]),
        "all-different lines": fill(lambda i: f"{i}:{i % 5} note {i}"),
        "one long line": " ".join(answers) * (SIZE // len(" ".join(answers)) + 1),
    }


def main() -> None:
    for name, text in (
        ("104-line submission", typical()),
        ("104 lines + prose", typical_with_prose()),
    ):
        runs = []
        for _ in range(500 if "--quick" in sys.argv else 2000):
            start = time.perf_counter()
            pb.score(text, KEY)
            runs.append(time.perf_counter() - start)
        figure(f"PrimeBench score, {name}", f"{statistics.median(runs) * 1e6:.0f} µs median")
        print(
            f"{name}: median {statistics.median(runs) * 1e6:.0f} µs "
            f"(p99 {sorted(runs)[int(len(runs) * 0.99)] * 1e6:.0f} µs, {len(runs)} runs)"
        )
    for name, body in shapes().items():
        size = len(body.encode())
        times = []
        for _ in range(3):
            start = time.perf_counter()
            result = pb.score(body, KEY)
            times.append(time.perf_counter() - start)
        tracemalloc.start()
        pb.score(body, KEY)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        best = min(times)
        figure(f"PrimeBench score, {size / MB:.0f} MB {name}", f"{size / MB / best:.0f} MB/s")
        figure(f"PrimeBench score, {size / MB:.0f} MB {name}: traced peak",
               f"{peak / size:.2f}x input", "<= 10x input", peak <= 10 * size)  # fmt: skip
        print(
            f"{name:26s} {size / MB:5.1f} MB  best {best:.3f} s  median "
            f"{statistics.median(times):.3f} s  {size / MB / best:6.1f} MB/s  peak memory "
            f"{peak / MB:6.1f} MB ({peak / size:.2f}x input)  invalid lines "
            f"{result.invalid_line_count}"
        )


if __name__ == "__main__":
    main()

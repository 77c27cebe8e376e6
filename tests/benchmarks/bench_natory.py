"""Natory scoring speed, and the slowest hostile input. Not part of the test run.

    .venv/bin/python tests/benchmarks/bench_natory.py [--quick]

Prints how many typical submissions ``score`` handles per second (target: over 2,000),
then every hostile input with its worst time over several runs (target: none over
100 ms), including p_n(1,000,000) in a fresh process (nothing cached), and the
slowest of a few thousand random hostile expressions.
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from scoring.natory import Challenge, score
from tests.benchmarks.figures import figure

ROOT = Path(__file__).resolve().parents[2]
LIMIT_MS = 100.0
#: Every digit allowed, so hostile inputs reach the evaluator (not the digit check).
ALL_DIGITS = 1234567890

TYPICAL: list[tuple[str, int]] = [
    (r"2 \times \operatorname{\mathrm{sopfr}}(6)^5 + 6", 6256),
    ("3^(1+1)+(3+1)", 13),
    ("p_n(3!)", 13),
    ("$3^{1+1} + \\left(3 + 1\\right)$", 13),
    ("Final answer: $$\\operatorname{\\mathrm{p_{n}}}(3!) \\times 1$$", 13),
    ("(6+6-4)^(4/4+4/4)", 64),
    ("6*10*10*10+11", 6011),
    ("sqrt(sopfr(sqrt(3^(3+3))))*3+1+3", 13),
    ("41 mod 14 + 1", 14),
    ("(2+2+1)!", 120),
    ("2*5^5+5", 6256),  # wrong value
    ("2*5^5+7", 6256),  # digit not allowed
    ("I think the answer is\n2 × sopfr(6)^5 + 6 = 6256\nHope that helps.", 6256),
    ("sopfr(3*11)-1", 13),
    ("3*3+1+1+1+1+1+1-1-1", 13),
    (r"\frac{6 \cdot 6 \cdot 6}{6} \cdot 2 - 5 \cdot 2 + 6^2 \div 6", 72 - 10 + 6),
]

HOSTILE: list[tuple[str, str]] = [
    ("9^9^9^9^9", "9^9^9^9^9"),
    ("99999!", "99999!"),
    ("p_n(10^9)", "p_n(10^9)"),
    ("sopfr(2^10000+1)", "sopfr(2^10000+1)"),
    ("sopfr(2^9000+1)", "sopfr(2^9000+1)"),
    ("sopfr(46-bit semiprime)", "sopfr(70368744177643*70368744177607)"),
    ("40 x sopfr(2^9000+1)", "+".join(["sopfr(2^9000+1)"] * 40)),
    ("60 x p_n(999999)", "+".join(["p_n(999999)"] * 60)[:1000].rsplit("+", 1)[0]),
    ("70 x 1000!", "+".join(["1000!"] * 166)[:1000].rsplit("+", 1)[0]),
    ("chained 1000!/999!", "*".join(["(1000!/999!)"] * 80)[:1000].rsplit("*", 1)[0]),
    ("2^9999 chains", "-".join(["2^9999"] * 140)[:1000].rsplit("-", 1)[0]),
    ("sqrt(2^9998) x many", "+".join(["sqrt(2^9998)"] * 80)[:1000].rsplit("+", 1)[0]),
    ("(2^9999)^(1/9999) x many", "+".join(["(2^9999)^(1/9999)"] * 60)[:1000].rsplit("+", 1)[0]),
    ("10,000 nested parentheses", "(" * 10_000 + "1" + ")" * 10_000),
    ("50 nested parentheses", "(" * 50 + "1" + ")" * 50),
    ("1 MB expression", "1+" * 500_000 + "1"),
    ("999-digit numeral", "9" * 999),
    ("20 MB of prose", "lorem ipsum dolor sit amet\n" * 800_000),
    ("20 MB single line", "x" * 20_000_000),
    ("latex wrappers", r"\operatorname{" * 60 + "p_n" + "}" * 60 + "(6)"),
    ("chain of 250", "+".join(["1"] * 250)),
]


def timed(text: str, challenge: Challenge) -> float:
    start = time.perf_counter()
    score(text, challenge)
    return (time.perf_counter() - start) * 1000


def bench_typical() -> None:
    cases = [(text, Challenge.for_target(target)) for text, target in TYPICAL]
    for text, challenge in cases:  # warm caches (rules, small prime table)
        score(text, challenge)
    rounds = 300
    start = time.perf_counter()
    for _ in range(rounds):
        for text, challenge in cases:
            score(text, challenge)
    elapsed = time.perf_counter() - start
    per_second = rounds * len(cases) / elapsed
    figure("Natory typical submissions", f"{per_second:,.0f}/s", "> 2,000/s", per_second > 2000)
    print(f"typical: {per_second:,.0f} submissions scored per second "
          f"({elapsed / (rounds * len(cases)) * 1e6:.0f} µs each; target > 2,000/s)")  # fmt: skip


def bench_hostile() -> float:
    challenge = Challenge.for_target(ALL_DIGITS)
    worst_overall = 0.0
    print(f"\n{'hostile input':32} {'median':>9} {'worst':>9}  result")
    for name, text in HOSTILE:
        times = [timed(text, challenge) for _ in range(7)]
        result = score(text, challenge)
        worst = max(times)
        worst_overall = max(worst_overall, worst)
        outcome = (result.error or "valid")[:60]
        print(f"{name:32} {statistics.median(times):7.2f}ms {worst:7.2f}ms  {outcome}")
    return worst_overall


def bench_cold_prime_table() -> float:
    code = (
        "import time; from scoring.natory import Challenge, score;"
        "c = Challenge.for_target(1234567890);"
        "t = time.perf_counter(); r = score('p_n(1000000)', c);"
        "print((time.perf_counter() - t) * 1000, r.value)"
    )
    runs = []
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, cwd=ROOT)  # fmt: skip
        ms, value = out.stdout.split()
        assert value == "15485863", value
        runs.append(float(ms))
    print(f"{'p_n(1,000,000), cold process':32} {statistics.median(runs):7.2f}ms "
          f"{max(runs):7.2f}ms  sieves one 131,072-number segment")  # fmt: skip
    return max(runs)


def bench_random_hostile(count: int = 3000) -> tuple[float, str]:
    rng = random.Random(6256)
    challenge = Challenge.for_target(ALL_DIGITS)
    atoms = ["9", "99", "999", "2^9999", "1000!", "p_n(999999)", "sopfr(2^9000+1)",
             "sopfr(2^64+1)", "(2^9999)^(1/99)", "sqrt(2^9998)", "7!", "10^999"]  # fmt: skip
    ops = ["+", "-", "*", "/", "^", " mod "]
    funcs = ["sqrt", "p_n", "sopfr", ""]
    worst, worst_text = 0.0, ""
    for _ in range(count):
        parts = [rng.choice(atoms)]
        while len("".join(parts)) < rng.randint(20, 990):
            atom = rng.choice(atoms)
            func = rng.choice(funcs)
            if func:
                atom = f"{func}({atom})"
            if rng.random() < 0.2:
                atom = f"({atom})!"
            parts.append(rng.choice(ops) + atom)
        text = "".join(parts)[:1000]
        ms = timed(text, challenge)
        if ms > worst:
            worst, worst_text = ms, text
    print(f"{'random hostile (' + str(count) + ')':32} {'':>9} {worst:7.2f}ms  slowest: "
          f"{worst_text[:50]}…")  # fmt: skip
    return worst, worst_text


def main() -> None:
    bench_typical()
    worst = bench_hostile()
    worst = max(worst, bench_cold_prime_table())
    random_worst, _ = bench_random_hostile(300 if "--quick" in sys.argv else 3000)
    worst = max(worst, random_worst)
    verdict = "OK" if worst < LIMIT_MS else "OVER THE LIMIT"
    print(f"\nslowest input: {worst:.2f} ms (limit {LIMIT_MS:.0f} ms): {verdict}")
    figure("Natory slowest hostile input", f"{worst:.1f} ms", "< 100 ms", worst < LIMIT_MS)


if __name__ == "__main__":
    main()

"""Every benchmark, briefly, and one table of their figures against their goals.

    .venv/bin/python tests/benchmarks/run_all.py [--only NAME ...] [--full]

Runs each ``bench_*.py`` here in its quick or small mode, one after another (they
measure CPU and time: running them side by side would skew them), and prints one table:
figure, value, goal, ok or not. A script hands over its figures as ``FIGURE`` lines
(:mod:`tests.benchmarks.figures`); one that prints none shows as run, or failed. The
whole takes a couple of minutes on a quiet machine; ``--full`` runs the full sizes
(many minutes). Exits 1 when a figure misses its goal or a script fails.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

#: Each script and the arguments of its quick run.
QUICK: dict[str, list[str]] = {
    "bench_cli.py": ["--quick"],
    "bench_scoring.py": ["--quick"],
    "bench_zerobench.py": ["--quick"],
    "bench_natory.py": ["--quick"],
    "bench_bot.py": ["--quick"],
    "bench_storage.py": ["--n", "20000", "--runs", "100"],
    "bench_publish_then.py": ["--n", "5000", "--rounds", "4", "--each", "50"],
    "bench_heavy.py": ["--mb", "2", "--lines", "20000", "--probes", "5"],
    "bench_reliability.py": [
        *("--submissions", "100", "--users", "10", "--presses", "10"),
        *("--fault-submissions", "50"),
    ],
    "bench_cards.py": ["--repeats", "5"],
    "bench_inline.py": ["--users", "5", "--rounds", "3"],
    "bench_web.py": ["--n", "50000", "--runs", "100", "--seconds", "3"],
    "bench_runs.py": ["--rounds", "2", "--replies", "100"],
}
#: Not run on their own: bench_storage.py runs bench_instances.py on its database.
HELPERS = {"bench_instances.py"}
#: Run a second time on PostgreSQL where BENCHBOARD_TEST_POSTGRES_URL names a server.
ON_POSTGRES = {"bench_storage.py": ["--engine", "postgresql", "--instances-count", "300"]}


def run(script: str, args: list[str]) -> tuple[list[list[str]], int, float, str]:
    """The script's FIGURE rows, its exit status, seconds, and the end of its output."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(HERE / script), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    seconds = time.perf_counter() - start
    rows = [
        line.split("\t")[1:5] for line in done.stdout.splitlines() if line.startswith("FIGURE\t")
    ]
    tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
    return rows, done.returncode, seconds, " / ".join(tail)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", help="these scripts (bench_cli.py, or cli)")
    parser.add_argument("--full", action="store_true", help="full sizes (slow)")
    options = parser.parse_args()
    scripts = sorted(p.name for p in HERE.glob("bench_*.py") if p.name not in HELPERS)
    if options.only:
        wanted = {n if n.startswith("bench_") else f"bench_{n}" for n in options.only}
        scripts = [s for s in scripts if s in wanted or s.removesuffix(".py") in wanted]
    table: list[list[str]] = []
    failed = False
    runs = [(script, [] if options.full else QUICK.get(script, [])) for script in scripts]
    if os.environ.get("BENCHBOARD_TEST_POSTGRES_URL"):
        runs += [(s, [*args, *ON_POSTGRES[s]]) for s, args in runs if s in ON_POSTGRES]
    else:
        table.append(["PostgreSQL figures", "set BENCHBOARD_TEST_POSTGRES_URL", "-", "-"])
    for script, args in runs:
        print(f"running {script} {' '.join(args)}", file=sys.stderr, flush=True)
        try:
            rows, status, seconds, tail = run(script, args)
        except subprocess.TimeoutExpired:
            rows, status, seconds, tail = [], -1, 1800.0, "timed out"
        table.extend(rows)
        if status != 0:
            failed = True
            table.append(
                [f"{script}", f"exit {status} after {seconds:.0f} s: {tail[:80]}", "runs", "not"]
            )
        elif not rows:
            table.append([f"{script}", f"ran in {seconds:.0f} s (no figures)", "runs", "ok"])
        else:
            table.append([f"{script}", f"ran in {seconds:.0f} s", "-", "-"])
    widths = [
        max(len(row[i]) for row in [["figure", "value", "goal", "ok"], *table]) for i in range(4)
    ]
    line = "  ".join(f"{{:<{w}}}" for w in widths)
    print(line.format("figure", "value", "goal", "ok"))
    print(line.format(*("-" * w for w in widths)))
    for row in table:
        print(line.format(*row))
    missed = [row for row in table if row[3] == "not"]
    print(
        f"\n{len(missed)} of {sum(row[3] in ('ok', 'not') for row in table)} judged figures "
        "missed their goal"
    )
    return 1 if missed or failed else 0


if __name__ == "__main__":
    sys.exit(main())

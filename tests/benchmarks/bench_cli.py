"""The ``benchboard score`` command as a whole process, against a plain scorer.

    .venv/bin/python tests/benchmarks/bench_cli.py [--quick] [--repeat N] [--mb MB]
        [--only CASE ...]

Times, in the same run and alternating, ``benchboard score FILE -b BENCHMARK --key KEY
--json`` (``python -m bot``) and a plain scorer run as its own script
(``plain_primebench.py``: line by line, the rules of the spec; ``plain_zerobench.py``:
``json.loads`` per line and the official check), on inputs generated here (a PrimeBench
key of 104 questions made by this script, never the real files):

- ``104 lines``: a 104-line submission: CPU of the whole process, start-up included
  (goal: at most 2x the plain scorer's);
- ``distinct``: about 20 MB of distinct answer lines ``i:(1 + i % 4)`` for i = 1, 2, ...
  (all but 104 unknown to the key): CPU (goal: no more than the plain scorer's) and
  peak memory (goal: under 10x the input);
- ``invalid``: about 20 MB of all-different invalid lines: CPU (goal as above);
- ``zerobench``: 100,000 ZeroBench responses (20,000 questions x 5 attempts, JSON
  Lines) against the plain loop doing the official check (goal: no slower).

CPU is user + system time of each process and peak memory its ``ru_maxrss`` (from
``os.wait4``). A ratio (project / plain) is taken per repeat, so both sides of a ratio
saw the same load; each figure prints the median ratio and its range over the repeats.
Both sides' answers are compared once per case (the headline numbers must agree), in a
process of its own: what this process holds counts in the peak memory of the processes
it starts (``ru_maxrss`` counts from the fork).
``--quick``: 10 MB files, 20,000 ZeroBench responses and fewer repeats (the memory goal
is then judged above the 104-line run's peak: at 10 MB the interpreter's own memory is
a large part).
``--instructions``: also counts the instructions each side runs, once, under valgrind
(``cachegrind``, no cache simulation; about 30 times slower): a figure a busy machine
does not move, beside the CPU times it does.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.bench_zerobench import make_data  # noqa: E402
from tests.benchmarks.figures import figure, span, spread  # noqa: E402

HERE = Path(__file__).resolve().parent
PLAIN_PRIME = HERE / "plain_primebench.py"
PLAIN_ZERO = HERE / "plain_zerobench.py"
MB = 1_000_000
CASES = ("104 lines", "distinct", "invalid", "zerobench")
#: ZeroBench: attempts per question (pass@k).
K = 5


def names(folder: Path) -> dict[str, Path]:
    return {
        "key": folder / "A.txt",
        "104 lines": folder / "104.txt",
        "distinct": folder / "distinct.txt",
        "invalid": folder / "invalid.txt",
        "zero key": folder / "zerobench-key.json",
        "zerobench": folder / "zerobench.jsonl",
    }


def distinct_lines(megabytes: float) -> str:
    """``i:(1 + i % 4)`` for i = 1, 2, ... up to about ``megabytes``."""
    lines, size, i = [], 0, 0
    while size < megabytes * MB:
        i += 1
        line = f"{i}:{1 + i % 4}\n"
        lines.append(line)
        size += len(line)
    return "".join(lines)


def write_inputs(folder: Path, megabytes: float, responses: int) -> None:
    """Run in a process of its own (``--write``): a process started from this one
    would otherwise report this one's memory as its peak (ru_maxrss counts from fork)."""
    rng = random.Random(3)
    files = names(folder)
    files["key"].write_text("".join(f"{q}:{rng.randint(1, 4)}\n" for q in range(1, 105)))
    options = ["1", "2", "3", "4", "none"]
    files["104 lines"].write_text("".join(f"{q}:{rng.choice(options)}\n" for q in range(1, 105)))
    files["distinct"].write_text(distinct_lines(megabytes))
    lines = int(megabytes * MB / 18)
    questions = rng.sample(range(10**14, 10**15), lines * 9 // 10)
    files["invalid"].write_text("".join(f"Q{q % 10**13:013d}: n{q % 4 + 1}\n" for q in questions))
    key, rows = make_data(responses // K, K, seed=5)
    files["zero key"].write_text(json.dumps(key))
    with files["zerobench"].open("w", encoding="utf-8") as out:
        out.writelines(json.dumps({"question_id": q, "response": r}) + "\n" for q, r in rows)


def _env(cache: Path) -> dict[str, str]:
    """Compiled modules kept (in ``cache``) as an installed package keeps them, even
    where the environment says not to write them."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BENCHBOARD_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    env["PYTHONPATH"] = str(ROOT)
    return env


def run(argv: list[str], cache: Path) -> tuple[float, float]:
    """CPU seconds (user + system) and peak resident MiB of one process."""
    with open(os.devnull, "wb") as devnull:
        proc = subprocess.Popen(argv, stdout=devnull, env=_env(cache))
        _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{argv} exited with {os.waitstatus_to_exitcode(status)}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def instructions(argv: list[str], cache: Path) -> int:
    """The instructions one process runs (valgrind's count, start-up included)."""
    tool = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    # (the output is not kept: what this process holds counts in the peak memory of
    # the processes it starts later)
    done = subprocess.run(
        [*tool, *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=_env(cache),
        check=True,
    )
    counted = re.search(rb"I\s+refs:\s+([\d,]+)", done.stderr)
    if counted is None:
        raise SystemExit(f"valgrind counted nothing: {done.stderr[-300:]!r}")
    return int(counted.group(1).replace(b",", b""))


def answer(argv: list[str], cache: Path) -> dict[str, object]:
    done = subprocess.run(argv, capture_output=True, env=_env(cache), check=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def same_answers(case: str, ours: dict[str, object], plain: dict[str, object]) -> None:
    """The headline numbers of both scorers agree (else the timing compares nothing)."""
    if case == "zerobench":
        official = ours["main"]  # the official figures (beside the lenient re-check's)
        pairs = [(official["pass_at_1"], plain["pass_at_1"])]  # type: ignore[index]
        pairs.append((official["pass_at_k"], plain["pass_at_k"]))  # type: ignore[index]
        agree = all(abs(float(a) - float(b)) < 1e-9 for a, b in pairs)  # type: ignore[arg-type]
    else:
        fields = ("correct", "wrong", "unanswered", "final_score")
        agree = all(ours[f] == plain[f] for f in fields)
        # the project lists the first unknown numbers and counts them all
        unknown = ours.get("unknown_question_count", len(ours["unknown_questions"]))  # type: ignore[arg-type]
        agree = agree and unknown == len(plain["unknown_questions"])  # type: ignore[arg-type]
    if not agree:
        raise SystemExit(f"{case}: the scorers disagree:\n{str(ours)[:500]}\n{str(plain)[:500]}")


def commands(case: str, files: dict[str, Path]) -> tuple[list[str], list[str]]:
    """(benchboard, plain scorer) command lines of a case."""
    path = str(files[case])
    if case == "zerobench":
        key = str(files["zero key"])
        ours = [sys.executable, "-m", "bot", "score", path, "-b", "zerobench", "--key", key]
        ours += ["--k", str(K), "--json"]
        return ours, [sys.executable, str(PLAIN_ZERO), path, key, str(K)]
    key = str(files["key"])
    ours = [sys.executable, "-m", "bot", "score", path, "-b", "primebench", "--key", key]
    return [*ours, "--json"], [sys.executable, str(PLAIN_PRIME), path, key]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="10 MB files, fewer repeats")
    parser.add_argument("--repeat", type=int, default=None)
    parser.add_argument("--mb", type=float, default=None)
    parser.add_argument("--responses", type=int, default=None, help="ZeroBench responses")
    parser.add_argument("--only", nargs="+", choices=CASES, default=list(CASES))
    parser.add_argument("--instructions", action="store_true", help="count them (valgrind)")
    parser.add_argument("--write", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--compare", nargs=2, metavar=("CASE", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.compare:
        # in a process of its own, like --write: the answers read here would otherwise
        # count in the peak memory of every process started later
        case, folder = args.compare
        ours, plain = commands(case, names(Path(folder)))
        cache = Path(folder) / "pycache"
        same_answers(case, answer(ours, cache), answer(plain, cache))
        return
    megabytes = args.mb or (10.0 if args.quick else 20.0)
    responses = args.responses or (20_000 if args.quick else 100_000)
    repeat = args.repeat or (3 if args.quick else 5)
    if args.write:
        write_inputs(args.write, megabytes, responses)
        return
    if args.instructions and shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        write = [sys.executable, __file__, "--write", tmp, "--mb", str(megabytes)]
        subprocess.run([*write, "--responses", str(responses)], check=True)
        files = names(Path(tmp))
        cache = Path(tmp) / "pycache"
        small = commands("104 lines", files)
        run(small[0], cache)  # compiles
        run(small[1], cache)
        floor = 0.0  # the 104-line run's peak
        for case in ("104 lines", *(c for c in args.only if c != "104 lines")):
            ours, plain = commands(case, files)
            subprocess.run([sys.executable, __file__, "--compare", case, tmp], check=True)
            times = repeat * 3 if case == "104 lines" else repeat
            cpu: dict[str, list[float]] = {"ours": [], "plain": []}
            peak: dict[str, list[float]] = {"ours": [], "plain": []}
            ratios: list[float] = []
            for _ in range(times):
                for name, argv in (("plain", plain), ("ours", ours)):
                    seconds, mib = run(argv, cache)
                    cpu[name].append(seconds)
                    peak[name].append(mib)
                ratios.append(cpu["ours"][-1] / cpu["plain"][-1])
            size = files[case].stat().st_size / MB
            label = {
                "104 lines": "104 lines",
                "zerobench": f"ZeroBench {responses:,} responses",
            }.get(case, f"{size:.0f} MB {case} lines")
            print(
                f"{label:30s} CPU s: benchboard {span(cpu['ours'], '.3f')}, "
                f"plain {span(cpu['plain'], '.3f')}; ratio {spread(ratios, unit='x')}"
            )
            goal = 2.0 if case == "104 lines" else 1.0
            figure(f"CLI score, {label}: CPU / plain scorer", spread(ratios, unit="x"),
                   f"<= {goal:g}x", statistics.median(ratios) <= goal)  # fmt: skip
            if args.instructions:
                counts = [instructions(argv, cache) for argv in (ours, plain)]
                print(f"{'':30s} instructions: benchboard {counts[0] / 1e6:,.0f}M, "
                      f"plain {counts[1] / 1e6:,.0f}M")  # fmt: skip
                figure(f"CLI score, {label}: instructions / plain scorer",
                       f"{counts[0] / counts[1]:.3f}x", f"<= {goal:g}x",
                       counts[0] <= goal * counts[1])  # fmt: skip
            if case == "104 lines":
                floor = max(peak["ours"])
                continue
            input_mib = files[case].stat().st_size / 2**20
            print(
                f"{'':30s} peak MiB: benchboard {span(peak['ours'], '.0f')} "
                f"({max(peak['ours']) / input_mib:.1f}x the input), "
                f"plain {span(peak['plain'], '.0f')}"
            )
            if case == "distinct":
                # --quick: small files, so the interpreter's own memory (the 104-line
                # run's peak) is taken off before comparing with the input
                over = max(peak["ours"]) - (floor if args.quick else 0.0)
                figure(f"CLI score, {label}: peak memory",
                       f"{span(peak['ours'], '.0f', ' MiB')} ({over / input_mib:.1f}x input"
                       + (", above the 104-line run's)" if args.quick else ")"),
                       "< 10x input", over / input_mib < 10)  # fmt: skip
            sys.stdout.flush()


if __name__ == "__main__":
    main()

"""The ``benchboard score`` command as a whole process, against a plain scorer.

    .venv/bin/python tests/benchmarks/bench_cli.py [--quick] [--repeat N]

Times, in the same run and alternating, ``benchboard score FILE -b primebench --key
KEY --json`` (``python -m bot``) and the plain line-by-line scorer
(``plain_primebench.py``, its own script) on:

- a 104-line submission: CPU of the whole process (start-up included);
- about 20 MB of all-different valid answer lines (about a million questions, none in
  the key) and 20 MB of all-different invalid lines: CPU and peak memory (ru_maxrss of
  each process, from ``os.wait4``).

Prints each figure's range over the repeats, and the ratio project / plain (a ratio
is computed per repeat, so both sides saw the same load). ``--quick`` uses 10 MB files
and fewer repeats.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.figures import figure, span, spread  # noqa: E402

PLAIN = Path(__file__).with_name("plain_primebench.py")
MB = 1_000_000


def names(folder: Path) -> dict[str, Path]:
    return {
        "key": folder / "A.txt",
        "104 lines": folder / "104.txt",
        "valid": folder / "valid.txt",
        "invalid": folder / "invalid.txt",
    }


def write_inputs(folder: Path, megabytes: float) -> None:
    """Run in a process of its own (``--write``): a process started from this one
    would otherwise report this one's memory as its peak (ru_maxrss counts from fork)."""
    rng = random.Random(3)
    files = names(folder)
    files["key"].write_text("".join(f"{q}:{rng.randint(1, 4)}\n" for q in range(1, 105)))
    options = ["1", "2", "3", "4", "none"]
    files["104 lines"].write_text("".join(f"{q}:{rng.choice(options)}\n" for q in range(1, 105)))
    lines = int(megabytes * MB / 18)
    questions = rng.sample(range(10**14, 10**15), lines)
    files["valid"].write_text("".join(f"{q}:{rng.randint(1, 4)}\n" for q in questions))
    files["invalid"].write_text(
        "".join(f"Q{q % 10**13:013d}: n{q % 4 + 1}\n" for q in questions[: lines * 9 // 10])
    )


def run(argv: list[str], cache: Path) -> tuple[float, float]:
    """CPU seconds (user + system) and peak resident MiB of one process. Compiled
    modules are kept (in ``cache``) as an installed package keeps them, even where the
    environment says not to write them."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BENCHBOARD_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    env["PYTHONPATH"] = str(ROOT)
    with open(os.devnull, "wb") as devnull:
        proc = subprocess.Popen(argv, stdout=devnull, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{argv} exited with {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="10 MB files, fewer repeats")
    parser.add_argument("--repeat", type=int, default=None)
    parser.add_argument("--mb", type=float, default=None)
    parser.add_argument("--write", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    megabytes = args.mb or (10.0 if args.quick else 20.0)
    repeat = args.repeat or (3 if args.quick else 5)
    if args.write:
        write_inputs(args.write, megabytes)
        return
    with tempfile.TemporaryDirectory() as tmp:
        write = [sys.executable, __file__, "--write", tmp, "--mb", str(megabytes)]
        subprocess.run(write, check=True)
        files = names(Path(tmp))
        key = str(files["key"])
        cache = Path(tmp) / "pycache"
        small = [str(files["104 lines"]), key]
        run([sys.executable, "-m", "bot", "score", small[0], "--key", key], cache)  # compiles
        run([sys.executable, str(PLAIN), *small], cache)
        for case in ("104 lines", "valid", "invalid"):
            path = str(files[case])
            ours = [sys.executable, "-m", "bot", "score", path, "-b", "primebench"]
            ours += ["--key", key, "--json"]
            plain = [sys.executable, str(PLAIN), path, key]
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
            size = Path(path).stat().st_size / MB
            label = case if case == "104 lines" else f"{size:.0f} MB {case}"
            print(
                f"{label:18s} CPU s: benchboard {span(cpu['ours'], '.3f')}, "
                f"plain {span(cpu['plain'], '.3f')}; ratio {span(ratios, '.2f')}"
            )
            if case == "104 lines":
                floor = max(peak["ours"])
                figure("CLI score, 104 lines: CPU / plain scorer", spread(ratios, unit="x"),
                       "<= 2x", statistics.median(ratios) <= 2)  # fmt: skip
            else:
                figure(f"CLI score, {label}: CPU / plain scorer", spread(ratios, unit="x"),
                       "<= 1x", statistics.median(ratios) <= 1)  # fmt: skip
                input_mib = Path(path).stat().st_size / 2**20
                # --quick: small files, so the interpreter's own memory (the 104-line
                # run's peak) is taken off before comparing with the input
                over = max(peak["ours"]) - (floor if args.quick else 0.0)
                figure(f"CLI score, {label}: peak memory",
                       f"{span(peak['ours'], '.0f', ' MiB')} ({over / input_mib:.1f}x input"
                       + (", above the 104-line run's)" if args.quick else ")"),
                       "<= 10x input", over / input_mib <= 10)  # fmt: skip
                print(
                    f"{'':18s} peak MiB: benchboard {span(peak['ours'], '.0f')} "
                    f"({max(peak['ours']) / (Path(path).stat().st_size / 2**20):.1f}x the input), "
                    f"plain {span(peak['plain'], '.0f')}"
                )
            sys.stdout.flush()


if __name__ == "__main__":
    main()

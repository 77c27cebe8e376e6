"""A plain PrimeBench scorer: the reference the project's scorer is measured against.

    python tests/benchmarks/plain_primebench.py FILE KEY

Straightforward Python, line by line, the rules of ``shared/specs/primebench.md``: decode,
split lines, split at ``,`` and ``;``, tighten colons, split tokens, match each token;
the last answer stands; options outside 1-4 are wrong. Prints the breakdown, the invalid
lines, duplicates and unknown question numbers as one JSON object. Imports only the
standard library (it is timed as its own process by bench_cli.py).
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter

TOKEN = re.compile(r"([0-9]+):([0-9]+|none)", re.IGNORECASE)
SEGMENTS = re.compile(r"[,;]")
COLON = re.compile(r"\s*:\s*")


def read_key(path: str) -> dict[int, int]:
    key = {}
    with open(path, encoding="utf-8-sig") as file:
        for line in file:
            if line.strip():
                question, option = line.strip().split(":")
                key[int(question)] = int(option)
    return key


def main(path: str, key_path: str) -> None:
    key = read_key(key_path)
    with open(path, "rb") as file:
        text = file.read().decode("utf-8-sig")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    final: dict[int, str] = {}
    seen: Counter[int] = Counter()
    invalid = []
    for number, line in enumerate(lines, 1):
        bad = False
        for segment in SEGMENTS.split(line):
            for token in COLON.sub(":", segment).split():
                match = TOKEN.fullmatch(token)
                if match is None:
                    bad = True
                    continue
                question = int(match[1])
                seen[question] += 1
                final[question] = match[2].lower()
        if bad:
            invalid.append({"line": number, "text": line})
    correct = wrong = 0
    unknown = []
    for question, option in final.items():
        if question not in key:
            unknown.append(question)
        elif option != "none":
            if int(option) == key[question]:
                correct += 1
            else:
                wrong += 1
    out = {
        "total_questions": len(key),
        "correct": correct,
        "wrong": wrong,
        "unanswered": len(key) - correct - wrong,
        "final_score": correct - 3 * wrong,
        "invalid_lines": invalid,
        "duplicates": sorted(q for q, n in seen.items() if n > 1),
        "unknown_questions": sorted(unknown),
    }
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

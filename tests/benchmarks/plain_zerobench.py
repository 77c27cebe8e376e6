"""A plain ZeroBench loop: the reference the project's scorer is measured against.

    python tests/benchmarks/plain_zerobench.py FILE KEY.json K


Straightforward Python: per JSON line, ``json.loads``; the official check of the
benchmark's README (the last ``{...}`` of the stripped, lower-cased response, compared
with the ground truth over its length, and the lengths equal); then pass@1 (the mean
over questions of correct / attempts, the first k attempts) and pass@k (a question with
a correct attempt among its first k). No DataFrame: the floor a scorer can be held to.
"""

from __future__ import annotations

import json
import re
import sys

PATTERN = re.compile(r"\{(.*?)\}")


def official_check(response: str, ground_truth: str) -> bool:
    formatted = response.strip().lower()
    matches = PATTERN.findall(formatted)
    parsed = matches[-1] if matches else ""
    return parsed[: len(ground_truth)].lower() == ground_truth.strip().lower() and len(
        parsed
    ) == len(ground_truth.strip())


def score(text: str, key: dict[str, str], k: int) -> dict[str, float]:
    """pass@1 and pass@k over the key's questions, from JSON Lines text."""
    attempts: dict[str, list[bool]] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        qid = str(row["question_id"])
        if qid not in key:
            continue
        tried = attempts.setdefault(qid, [])
        if len(tried) < k:
            tried.append(official_check(str(row["response"]), key[qid]))
    pass_at_1 = sum(sum(t) / len(t) for t in attempts.values()) / len(key)
    pass_at_k = sum(any(t) for t in attempts.values()) / len(key)
    return {"pass_at_1": pass_at_1, "pass_at_k": pass_at_k}


def main(path: str, key_path: str, k: int) -> None:
    """Score a JSON Lines file against a JSON key ``{question id: answer}`` and print
    pass@1 and pass@k (timed as its own process by bench_cli.py)."""
    with open(key_path, encoding="utf-8") as file:
        key = {str(q): str(a) for q, a in json.load(file).items()}
    with open(path, encoding="utf-8") as file:
        text = file.read()
    print(json.dumps(score(text, key, k)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))

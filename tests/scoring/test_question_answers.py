"""``question_answers`` reads each key question's answer as the scorer does: over many
generated texts (a generated key, never PrimeBench's), right / wrong / none per
question add up to the scorer's correct / wrong / unanswered."""

from __future__ import annotations

import random

import pytest

from scoring import registry
from scoring.choice import ChoiceBenchmark, read_definition

KEY = "\n".join(f"{q}:{q * 7 % 4 + 1}" for q in range(1, 41)).encode()


def _text(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(0, 80)):
        q = rng.randint(0, 45)
        kind = rng.random()
        if kind < 0.55:
            lines.append(f"{q}:{rng.randint(1, 4)}")
        elif kind < 0.65:
            lines.append(f"{q} : none")
        elif kind < 0.72:
            lines.append(f"{q}:{rng.choice(['0', '7', '004', '99999999999999'])}")
        elif kind < 0.8:
            lines.append(f"{q}:1, {q + 1}:2; {q + 2}:3")
        elif kind < 0.86:
            lines.append(f"Q{q}:2 and {q}:3 said")  # an invalid line's valid answer counts
        elif kind < 0.92:
            lines.append(f"۱:{q}")  # a near miss, not an answer
        else:
            lines.append("some prose")
    return "\r\n".join(lines) if rng.random() < 0.2 else "\n".join(lines)


@pytest.mark.parametrize("name", ["primebench", "choice"])
def test_the_answers_add_up_to_the_scorers_counts(name: str) -> None:
    if name == "choice":
        benchmark: object = ChoiceBenchmark(
            read_definition(
                'name = "tiny"\ntitle = "Tiny"\nkind = "choice"\noptions = 4\n'
                'points = { right = 2, wrong = -1, none = 0 }\nkey = """\n'
                + KEY.decode()
                + '\n"""\n'
            )
        )
    else:
        benchmark = registry.get("primebench")
    assert benchmark.has_questions  # type: ignore[attr-defined]
    key = benchmark.load_key(KEY)  # type: ignore[attr-defined]
    rng = random.Random(34)
    for _ in range(400):
        text = _text(rng)
        result = benchmark.score(text, key)  # type: ignore[attr-defined]
        answers = benchmark.question_answers(text, key)  # type: ignore[attr-defined]
        assert set(answers) == set(range(1, 41))
        right = sum(chosen == correct for chosen, correct in answers.values())
        none = sum(chosen is None for chosen, _ in answers.values())
        wrong = len(answers) - right - none
        assert (right, wrong, none) == (result.correct, result.wrong, result.unanswered), text


def test_benchmarks_without_questions_say_so() -> None:
    for name in ("zerobench", "natory"):
        benchmark = registry.get(name)
        assert not benchmark.has_questions
        assert benchmark.question_answers("1:2", None) is None

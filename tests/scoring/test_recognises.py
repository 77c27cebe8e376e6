"""Which benchmark can read a text without a tag (what the bot asks before scoring)."""

from __future__ import annotations

import json

import pytest

from scoring import registry


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("hi", None),
        ("how do I use this bot?", None),
        ("سلام، چطور از این ربات استفاده کنم؟", None),
        ("42", None),  # a bare number is no Natory attempt
        ("1:3\n2:none", "primebench"),
        ("1 : 3", "primebench"),
        ("۱:۳", "primebench"),  # a near miss that earns a hint
        ("Q1:2", "primebench"),
        ("3^(1+1)+(3+1)", "natory"),
        ("The answer is $2 \\times \\sqrt{9} + 1$.", "natory"),
        (json.dumps({"question_id": "1", "response": "so 1:3 gives {4}"}), "zerobench"),
        ('{"q1": "{4}", "q2": ["{5}", "{6}"]}', "zerobench"),
        ("question_id,response\n1,{4}", "zerobench"),
    ],
)
def test_recognising(text: str, name: str | None) -> None:
    found = registry.recognising(text)
    assert (found.name if found else None) == name


def test_a_large_zerobench_file_is_recognised_from_its_start() -> None:
    line = json.dumps({"question_id": "1", "response": "x" * 100 + " {4}"})
    assert registry.get("zerobench").recognises("\n".join([line] * 2000))


def test_prose_of_any_size_is_not_recognised() -> None:
    prose = "The model thinks about question seven and weighs option three.\n" * 20_000
    assert registry.recognising(prose) is None

"""What a result declares it shows (``Result.card()``): fields with kinds, the bar with
the points the scorer counts, the prose of a result that is not valid."""

from __future__ import annotations

from scoring import choice, registry
from scoring.base import COUNT, KINDS, Note, Reason, Shown

#: A multiple-choice benchmark defined by data, with points of its own.
TINY = """
name = "tinymcq"
title = "TinyMCQ"
kind = "choice"
options = 4
points = { right = 2, wrong = -1, none = 0 }
key = "1:1\\n2:2\\n3:3\\n4:4\\n5:1\\n6:2\\n7:3\\n8:4\\n9:1\\n10:2\\n"
"""


def test_a_multiple_choice_card_counts_with_its_own_points() -> None:
    """A benchmark like PrimeBench with right = 2, wrong = -1 declares its own figures:
    the renderer computes nothing."""
    bench = choice.ChoiceBenchmark(choice.read_definition(TINY))
    key = bench.load_key(bench.definition.key)
    answers = "".join(f"{q}:{(q - 1) % 4 + 1}\n" for q in range(1, 7)) + "7:1\n8:1\n"
    card = bench.score(answers, key).card()
    fields = {s.field.key: s.value for s in card.summary}
    assert fields["positive_points"] == 12 and fields["negative_points"] == 2
    assert fields["final_score"] == 10
    assert card.bar is not None
    assert [(p.field.key, p.value) for p in card.bar.points] == [
        ("positive_points", 12),
        ("negative_points", 2),
    ]
    assert [(s.field.key, s.size, s.tone) for s in card.bar.segments] == [
        ("correct", 6, "good"),
        ("wrong", 2, "bad"),
        ("unanswered", 2, "none"),
    ]
    coverage = card.summary[-1]
    assert coverage == Shown(coverage.field, 0.8, (8, 10))


def test_primebench_declares_its_minus_three() -> None:
    primebench = registry.get("primebench")
    key = primebench.load_key(b"1:1\n2:2\n3:3\n")
    card = primebench.score("1:1\n2:1\n", key).card()
    assert card.bar is not None
    assert [p.value for p in card.bar.points] == [1, 3]
    assert {s.field.key: s.value for s in card.summary}["final_score"] == -2


def test_every_field_has_a_known_kind() -> None:
    natory = registry.get("natory")
    key, options = natory.key_for({"target": 13}, None)
    for text in ("3^(1+1)+(3+1)", "1+1", "sqrt(-3)"):
        card = natory.score(text, key, options=options).card()
        assert card.target == 13
        shown = [line for line in card.prose if isinstance(line, Shown)]
        assert all(s.field.kind in KINDS for s in (*card.summary, *shown))
    invalid = natory.score("sqrt(-3)", key, options=options).card()
    reasons = [v for n in invalid.prose if isinstance(n, Note) for _, v in n.values]
    assert any(isinstance(r, Reason) and r.code in natory.reason_messages for r in reasons)
    assert all(s.field.kind == COUNT for s in invalid.summary if s.field.key == "target")

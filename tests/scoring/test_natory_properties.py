"""Property tests: no text and no expression tree makes Natory raise anything but the
project's own errors, and the canonical text of a tree reads back to the same tree."""

from __future__ import annotations

import contextlib
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import ScoringError
from scoring.natory import Challenge, evaluate, parse_expression, score, to_text

C = Challenge.for_target(6256)

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# the characters of the language, LaTeX included, and some that are not
ALPHABET = st.sampled_from(
    [
        *"0123456789+-*/^!()[]{}$.,=×·÷√−² xp_nsqrtmodf\\\n",
        r"\times",
        r"\cdot",
        r"\div",
        r"\sqrt",
        r"\left(",
        r"\right)",
        r"\frac",
        "sopfr",
        "p_n",
        " mod ",
        r"\operatorname{",
        r"\mathrm{",
        "}",
        "p_{n}",
        r"\bmod",
        "**",
        "\\,",
    ]
)


@SETTINGS
@given(st.text(max_size=300))
def test_arbitrary_text_never_raises(text: str) -> None:
    result = score(text, C)
    assert result.valid in (True, False)
    assert result.valid or result.final_score == 0
    with contextlib.suppress(ScoringError):
        evaluate(text)


@SETTINGS
@given(st.lists(ALPHABET, max_size=120).map("".join))
def test_language_shaped_text_never_raises(text: str) -> None:
    result = score(text, C)
    if not result.valid:
        assert result.error
    try:
        value = evaluate(text)
    except ScoringError:
        return
    assert isinstance(value, Fraction)


numerals = st.one_of(
    st.integers(min_value=0, max_value=99).map(str),
    st.sampled_from(["0", "1", "2", "1000", "999999", "10000000000000000000", "9" * 50]),
)


def _extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.tuples(children, st.sampled_from(["+", "-", "*", "/", "^", " mod "]), children)
    unary = st.tuples(st.sampled_from(["-", "sqrt", "p_n", "sopfr", r"\sqrt", "√"]), children)
    return st.one_of(
        binary.map(lambda t: f"({t[0]}){t[1]}({t[2]})"),
        binary.map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        unary.map(lambda t: f"{t[0]}({t[1]})"),
        children.map(lambda c: f"({c})!"),
        st.tuples(children, children).map(lambda t: rf"\frac{{{t[0]}}}{{{t[1]}}}"),
    )


expressions = st.recursive(numerals, _extend, max_leaves=25)


@SETTINGS
@given(expressions)
def test_generated_expression_trees_evaluate_or_refuse(text: str) -> None:
    try:
        value = evaluate(text)
    except ScoringError:
        value = None
    assert value is None or isinstance(value, Fraction)
    result = score(text, C)
    assert result.valid or result.final_score == 0


@SETTINGS
@given(expressions)
def test_canonical_text_reads_back_to_the_same_tree(text: str) -> None:
    try:
        tree = parse_expression(text)
    except ScoringError:
        return
    canonical = to_text(tree)
    assert to_text(parse_expression(canonical)) == canonical
    try:
        value = evaluate(text)
    except ScoringError:
        return
    assert evaluate(canonical) == value


@SETTINGS
@given(expressions)
def test_v2_simplification_keeps_the_value_and_never_raises(text: str) -> None:
    from scoring.natory import load_rules
    from scoring.natory.evaluator import evaluate_tree
    from scoring.natory.simplify import simplify_by_value

    try:
        tree = parse_expression(text)
        evaluation = evaluate_tree(tree, load_rules("natory-v2").limits)
    except ScoringError:
        return
    simplified, _ = simplify_by_value(tree, evaluation)
    # the simplified text reads back and equals the expression (synthetic numerals are
    # numerals in the text)
    assert evaluate(to_text(simplified)) == evaluation.value

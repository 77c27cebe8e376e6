"""natory-v2, the current version: one test (or more) per rule of scoring/natory/SPEC-v2.md.

natory-v1's own tests stay in test_natory.py (pinned to v1)."""

from __future__ import annotations

import pytest

from scoring import natory, registry
from scoring.natory import Challenge, load_rules, parse_expression, score, to_text
from scoring.natory.evaluator import evaluate_tree
from scoring.natory.scorer import _stats
from scoring.natory.simplify import simplify_by_value

V1 = load_rules("natory-v1")
V2 = load_rules("natory-v2")
C13 = Challenge.for_target(13)
C6840 = Challenge.for_target(6840)


def simplified(text: str) -> str:
    """The v2 simplified form of ``text`` (no digit check: any digits may be used)."""
    tree = parse_expression(text)
    result, _ = simplify_by_value(tree, evaluate_tree(tree, V2.limits))
    return to_text(result)


def elegance(text: str, rules: natory.Rules = V2) -> int:
    return _stats(parse_expression(text), rules).elegance


def fields(text: str, challenge: Challenge, *, rules: natory.Rules = V2) -> dict[str, object]:
    result = score(text, challenge, rules=rules)
    assert result.valid, result.error
    return result.to_json()


# --- the version --------------------------------------------------------------------------


def test_v2_is_what_new_submissions_are_scored_with() -> None:
    assert natory.DEFAULT_VERSION == natory.SCORER_VERSION == "natory-v2"
    assert registry.get("natory").scorer_version == "natory-v2"
    assert load_rules() == V2
    assert score("p_n(3!)", C13).scorer_version == "natory-v2"
    # v1 stays: a stored v1 result can be reproduced (and re-scored later)
    assert score("p_n(3!)", C13, rules=V1).scorer_version == "natory-v1"


def test_v2_file_differs_from_v1_only_in_its_new_rules() -> None:
    assert (V1.simplification, V1.elegance_nesting, V1.final_floor) == (
        "null-list",
        "innermost",
        None,
    )
    assert (V2.simplification, V2.elegance_nesting, V2.final_floor) == ("by-value", "chain", -100)
    assert V2.elegance == V1.elegance and V2.limits == V1.limits


# --- S: simplification by value -----------------------------------------------------------


@pytest.mark.parametrize(
    "padding", ["6840+0*4", "6840-4+4", "6840+(8-8)", "(6840+4)-4", "6840*8^0"]
)
def test_the_issues_paddings_score_0(padding: str) -> None:
    result = score(padding, C6840)
    assert result.valid and result.simplified == "6840" and result.trivial
    assert result.final_score == 0
    assert "natory_target_itself" in [h.code for h in result.hints]
    assert score(padding, C6840, rules=V1).final_score > 30  # what v1 paid


@pytest.mark.parametrize(
    "padding", ["-(-13)", "--13", "1-1-(-13)", "-(1-1-13)", "-(-13)^1", "(-1)*(-13)"]
)
def test_a_negated_target_scores_0(padding: str) -> None:
    result = score(padding, C13)
    assert result.valid and result.simplified == "13" and result.final_score == 0


def test_a_real_construction_keeps_its_score() -> None:
    result = score("(6+4)*684", C6840)
    assert result.simplified == "(6 + 4) * 684" and result.removed == ()
    assert result.final_score == score("(6+4)*684", C6840, rules=V1).final_score == 12


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # S1: a term worth 0, a factor worth 1 (whatever it is written as)
        ("p_n(6) + (4-4)*3", "p_n(6)"),
        ("p_n(6) * (sopfr(6)-4)", "p_n(6)"),
        ("p_n(6) / (3-2)", "p_n(6)"),
        # S2: one term is worth the whole chain
        ("p_n(6) + 3 - 1 - 1 - 1", "p_n(6)"),
        ("p_n(6) * 3 / 3", "p_n(6)"),
        ("6840 + 8 - 4 - 4", "6840"),
        ("13 * 3 / 3", "13"),
        ("p_n(6) + 0 * p_n(3)", "p_n(6)"),
        # S3: equal and opposite terms cancel (x-x, x/x), the rest stays
        ("3! + 3! + 1 - 3!", "3! + 1"),
        ("3! * 3 / 3! - 3 + 13", "13"),
        # S5: an operation worth one of its operands, or a constant
        ("p_n(6)^1", "p_n(6)"),
        ("13 mod 31", "13"),
        ("sopfr(13)", "13"),
        ("p_n(sopfr(4) + 3!)", "p_n(4 + 3!)"),
        ("2 * sopfr(6)^5 + 6", "2 * sopfr(6)^5 + 6"),  # nothing to remove: unchanged
        # S6: two negations cancel
        ("--p_n(6)", "p_n(6)"),
        ("-(-(p_n(6)))", "p_n(6)"),
        ("3! - (-p_n(6))", "3! + p_n(6)"),
        ("3! + (-p_n(3))", "3! - p_n(3)"),
        ("(-3!) * (-p_n(6))", "3! * p_n(6)"),
        ("(-3!) * (-p_n(6)) * (-7)", "3! * p_n(6) * -7"),
        ("-(3! - p_n(6))", "-(3! - p_n(6))"),  # one negation: kept
    ],
)
def test_null_operations_are_found_by_value(text: str, expected: str) -> None:
    assert simplified(text) == expected


def test_sqrt_of_one_is_removed() -> None:
    # sqrt(1) is 1 (S5), a written 1: the 1s then cancel in the sum (S3)
    assert simplified("sqrt(1) + 3! + 7 - 1") == "3! + 7"


def test_numerals_that_re_create_a_digit_are_folded() -> None:
    result = score("3^(1+1) + (3+1)", C13)
    assert result.simplified == "3^2 + 4"
    assert result.removed == ("1 + 1 → 2", "3 + 1 → 4")
    # the folded digits were not written: their digits do not count
    assert score("3^(1+1)+(3+1)", C13).trivial is False


def test_a_fold_is_only_of_plain_arithmetic_and_only_to_a_digit() -> None:
    # 3! is an operation the game rewards: p_n(3!) is not folded to p_n(6)
    assert score("p_n(3!)", C13).simplified == "p_n(3!)"
    # 6+4 makes 10, not a digit: kept (the construction of (6+4)*684)
    assert score("(6+4)*684", C6840).simplified == "(6 + 4) * 684"
    # 3*3 re-creates 9; 3 and 1 are still written, so nothing is lost
    three = score("3*3+3+1", C13)
    assert three.simplified == "9 + 3 + 1"
    assert three.breakdown.trivial_expression_penalty == 0


def test_simplifying_keeps_the_value() -> None:
    for text in ["3^(1+1) + (3+1)", "31-3-3-3-3-3-3+1-1", "(3+3)*(3-1)+1", "13*3/3"]:
        result = score(text, C13)
        assert result.valid
        assert natory.evaluate(result.simplified) == 13, text


def test_the_difference_is_the_trivial_penalty() -> None:
    # raw: elegance 6 (^) + diversity 4 (^ +) + all digits 20 = 30; 3^2 + 4: 6 + 4 = 10
    assert fields("3^(1+1) + (3+1)", C13)["trivialExpressionPenalty"] == -20


# --- the author's published breakdown --------------------------------------------------------


def test_the_authors_breakdown_for_13() -> None:
    data = fields("3^(1+1) + (3+1)", C13)
    author = {
        "baseScore": 10,
        "repetitionPenalty": -3,
        "operatorDiversityBonus": 4,
        "eleganceBonus": 12,
        "specialNumberBonus": 0,
        "allDigitsBonus": 20,
        "exactUsageBonus": 0,
        "trivialExpressionPenalty": -20,
        "uniqueResultBonus": 0,
        "complexityPenalty": 0,
        "finalScore": 23,
    }
    explained = {
        name: value for name, value in author.items() if name not in ("eleganceBonus", "finalScore")
    }
    assert {name: data[name] for name in explained} == explained
    # eleganceBonus: no rule in the author's description pays 12 for one power (see
    # SPEC-v2.md, "What does not match"); we pay 6, so the final score is 23 - 6 = 17
    assert data["eleganceBonus"] == 6
    assert data["finalScore"] == author["finalScore"] - 6 == 17
    v1 = fields("3^(1+1) + (3+1)", C13, rules=V1)
    assert (v1["eleganceBonus"], v1["trivialExpressionPenalty"], v1["finalScore"]) == (6, 0, 37)


# --- N: nesting beyond two strips the whole chain ---------------------------------------------


def test_nesting_beyond_two_pays_nothing_for_the_chain() -> None:
    text = "sopfr(sopfr(sopfr(61^6)))"
    challenge = Challenge.for_target(int(natory.evaluate(text)))
    assert challenge.target == 16
    assert fields(text, challenge)["eleganceBonus"] == 6  # the power only
    assert fields(text, challenge, rules=V1)["eleganceBonus"] == 24  # v1: the outer two + ^


def test_nesting_of_two_still_pays_and_other_kinds_are_apart() -> None:
    assert elegance("sopfr(sopfr(61^6))") == 9 + 9 + 6
    # a chain of three sopfr strips only sopfr: the sqrt around it still pays
    assert elegance("sqrt(sopfr(sopfr(sopfr(61^6))))") == 5 + 6
    # inside one another anywhere, not only directly: still one chain
    assert elegance("sopfr(2 + sopfr(3 * sopfr(61^6)))") == 6
    assert elegance("sopfr(2 + sopfr(3 * sopfr(61^6)))", V1) == 9 + 9 + 6


def test_a_sibling_outside_the_deep_chain_still_pays() -> None:
    # the three of the chain pay nothing; the p_n beside it is apart: 7; the power 6
    assert elegance("sopfr(sopfr(sopfr(61^6))) + p_n(6)") == 7 + 6
    # a sopfr beside the chain is not stripped, but it is the fourth use (no bonus past
    # the third, as in v1): stripped uses still count as uses
    assert elegance("sopfr(sopfr(sopfr(61^6))) + sopfr(6)") == 6
    assert elegance("sopfr(sopfr(61^6)) + sopfr(6)") == 9 + 9 + 9 + 6
    # a fourth level: every one of the chain stripped, v1 paid the outer two
    assert elegance("sopfr(sopfr(sopfr(sopfr(61^6))))") == 6
    assert elegance("sopfr(sopfr(sopfr(sopfr(61^6))))", V1) == 9 + 9 + 6


# --- F: the floor --------------------------------------------------------------------------------


def test_a_wild_attempt_is_bounded_at_minus_100() -> None:
    text = "13" + "+1-1" * 6  # 12 extra digits: -10 * 2^12 in the field
    result = score(text, C13)
    assert result.valid and result.extra_digits == 12
    assert result.breakdown.repetition_penalty == -10 * 2**12  # still applied, in the field
    assert result.final_score == 0  # ...but this one is also just 13: trivial
    wild = "3^(1+1)+(3+1)" + "+3-3" * 6
    result = score(wild, C13)
    assert result.valid and result.breakdown.repetition_penalty == -10 * 2**15
    assert result.final_score == -100
    assert score(wild, C13, rules=V1).final_score < -300_000


@pytest.mark.parametrize(
    "text", ["3^(1+1)+(3+1)", "3^(1+1)+(3+1)+3-3", "31-3*3-3*3", "p_n(3!)", "3*3+3+1"]
)
def test_the_final_score_is_the_sum_bounded_at_minus_100(text: str) -> None:
    result = score(text, C13)
    total = sum(
        value
        for name, value in result.breakdown.to_json().items()
        if name not in ("finalScore", "specialNumberKey")
    )
    assert result.final_score == max(total, -100)
    if total >= -100:  # above the floor v1 and v2 differ only by the rules above
        assert result.final_score == total

"""Natory (natory-v1): parsing, evaluation, each breakdown field, extraction, records.

natory-v2 is the current version (tests/scoring/test_natory_v2.py); this file pins v1,
which stays for the results stored with it until they are re-scored: ``score`` here is
v1's. Parsing, evaluation and extraction are the same in both versions."""

from __future__ import annotations

import functools
import json
from datetime import date
from fractions import Fraction

import pytest

from scoring import ExpressionError, KeyFormatError, natory, publishable, registry
from scoring.natory import (
    BENCHMARK,
    Challenge,
    daily_challenge,
    daily_target,
    evaluate,
    load_rules,
    parse_expression,
    parse_target,
    result_from_record,
    simplify,
    to_text,
)
from scoring.natory.evaluator import evaluate_tree
from scoring.natory.rules import parse_rules

V1 = load_rules("natory-v1")
score = functools.partial(natory.score, rules=V1)

C13 = Challenge.for_target(13)
C6256 = Challenge.for_target(6256)


# --- the spec's worked examples ------------------------------------------------------------


def test_spec_example_latex_6256() -> None:
    result = score(r"2 \times \operatorname{\mathrm{sopfr}}(6)^5 + 6", C6256)
    assert result.valid and result.value == 6256
    assert result.simplified == "2 * sopfr(6)^5 + 6"
    assert result.to_json() | {"hints": []} == {
        "benchmark": "natory",
        "scorer_version": "natory-v1",
        "target": 6256,
        "expression": r"2 \times \operatorname{\mathrm{sopfr}}(6)^5 + 6",
        "simplified": "2 * sopfr(6)^5 + 6",
        "value": 6256,
        "valid": True,
        "baseScore": 10,
        "eleganceBonus": 9 + 6,  # sopfr, power
        "operatorDiversityBonus": 2 * 4,  # * sopfr ^ +
        "allDigitsBonus": 20,
        "exactUsageBonus": 80,  # 2 6 5 6 is exactly the digits of 6256
        "repetitionPenalty": 0,
        "complexityPenalty": 0,
        "trivialExpressionPenalty": 0,
        "specialNumberBonus": 0,
        "uniqueResultBonus": 0,
        "finalScore": 133,
        "specialNumberKey": [],
        "hints": [],
    }
    assert result.primary == 133.0


def test_spec_example_13_digit_accounting() -> None:
    result = score("3^(1+1)+(3+1)", C13)
    assert result.valid and result.value == 13
    # written 3 1 1 3 1 against the multiset {1, 3}: two extra 1s and one extra 3
    assert result.extra_digits == 3
    data = result.to_json()
    assert data["allDigitsBonus"] == 20
    assert data["exactUsageBonus"] == 0
    assert data["repetitionPenalty"] == -3
    assert data["eleganceBonus"] == 6
    assert data["operatorDiversityBonus"] == 4
    assert result.tokens == 9  # 5 numerals + ^ and three +
    assert data["complexityPenalty"] == 0
    assert data["finalScore"] == 10 + 6 + 4 + 20 - 3 == 37


# --- parsing: plain and LaTeX ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("2*3+4", "2 * 3 + 4"),
        ("2×3·4÷6", "2 * 3 * 4 / 6"),
        (r"2 \times 3 \cdot 4 \div 6", "2 * 3 * 4 / 6"),
        (r"\sqrt{16} + √9", "sqrt(16) + sqrt(9)"),
        ("2^{3+1}", "2^(3 + 1)"),
        ("2**3", "2^3"),
        (r"\left( 1 + 2 \right) \times 3", "(1 + 2) * 3"),
        (r"\left[ 1 + 2 \right]", "1 + 2"),
        (r"\operatorname{\mathrm{p_{n}}}(6)", "p_n(6)"),
        (r"\operatorname{p_n}(6)", "p_n(6)"),
        (r"\mathrm{p}_{n}(6)", "p_n(6)"),
        ("p_n(6)", "p_n(6)"),
        (r"\operatorname{\mathrm{sopfr}}(12)", "sopfr(12)"),
        (r"7 \mathrm{mod} 3", "7 mod 3"),
        (r"7 \bmod 3", "7 mod 3"),
        ("7 mod 3", "7 mod 3"),
        ("$2+3$", "2 + 3"),
        (r"\frac{6}{2}", "6 / 2"),
        (r"\boxed{5!}", "5!"),
        ("3 − 1", "3 - 1"),
        ("-3^2", "-3^2"),
        ("2^3^2", "2^3^2"),
        ("(2^3)^2", "(2^3)^2"),
        ("sqrt(9)!", "sqrt(9)!"),
        ("3!!", "3!!"),
        ("(-3)!", "(-3)!"),
        ("2 - (3 - 4)", "2 - (3 - 4)"),
        ("2 / (3 * 4)", "2 / (3 * 4)"),
        (r"2\,\times\,3", "2 * 3"),
        ("007", "007"),
    ],
)
def test_parse_forms(text: str, canonical: str) -> None:
    tree = parse_expression(text)
    assert to_text(tree) == canonical
    assert to_text(parse_expression(canonical)) == canonical  # the canonical text reads back


def test_function_binds_tighter_than_power() -> None:
    # sopfr(6)^5 is (sopfr 6)^5 = 3125, as in the game's example
    assert evaluate("sopfr(6)^5") == 3125
    assert evaluate("-3^2") == -9
    assert evaluate("2^3^2") == 512


@pytest.mark.parametrize(
    ("text", "message", "position"),
    [
        ("2(3+4)", "missing an operator", 2),
        ("1+", "ends too early", 3),
        ("(1+2", "expected ')'", 5),
        ("1+2)", "without a matching '('", 4),
        ("x+1", "unknown name 'x'", 1),
        (r"\sqrt[3]{8}", "n-th roots", 1),
        (r"2 \foo 3", "unsupported LaTeX command \\foo", 3),
        ("2²", "superscript digits", 2),
        ("९+1", "only the digits 0-9", 1),  # Devanagari; Persian digits are read
        ("1 ? 2", "unexpected character '?'", 3),
        ("", "there is no expression", None),
    ],
)
def test_parse_errors_name_the_position(text: str, message: str, position: int | None) -> None:
    with pytest.raises(ExpressionError) as caught:
        parse_expression(text)
    assert message in str(caught.value)
    if position is not None:
        assert caught.value.position == position - 1
        assert f"(at position {position})" in str(caught.value)


# --- evaluation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("p_n(1)", 2),
        ("p_n(6)", 13),
        ("p_n(1000)", 7919),
        ("sopfr(12)", 7),
        ("sopfr(1)", 0),
        ("sopfr(600851475143)", 71 + 839 + 1471 + 6857),
        ("sopfr(1000003*1000033)", 1000003 + 1000033),  # needs Pollard rho
        ("sopfr(2^64)", 128),
        ("5!", 120),
        ("0!", 1),
        ("sqrt(16/9)", Fraction(4, 3)),
        ("8^(2/3)", 4),
        ("(4/9)^(-1/2)", Fraction(3, 2)),
        ("13/2", Fraction(13, 2)),
        ("2^-2", Fraction(1, 4)),
        ("7 mod 3", 1),
        ("-7 mod 3", 2),
        ("(-1)^1001", -1),
        ("0^5", 0),
        ("1000!/999!", 1000),
    ],
)
def test_evaluate_exact(text: str, value: Fraction | int) -> None:
    assert evaluate(text) == value


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1/0", "division by zero"),
        ("0^-1", "division by zero"),
        ("0^0", "0^0 is undefined"),
        ("7 mod 0", "mod by zero"),
        ("sqrt(8)", "sqrt(8) is not"),
        ("sqrt(-4)", "sqrt of a negative number"),
        ("(1/2)!", "needs a whole number"),
        ("(-3)!", "negative number"),
        ("p_n(0)", "positive index"),
        ("p_n(3/2)", "needs a whole number"),
        ("sopfr(0)", "positive whole number"),
        ("sopfr(-4)", "positive whole number"),
        ("7 mod (1/2)", "needs a whole number"),
        ("2^(1/2)", "not a rational number"),
        ("(-8)^(1/3)", "not a rational number"),
    ],
)
def test_evaluate_domain_errors(text: str, message: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        evaluate(text)
    assert message in str(caught.value)
    assert caught.value.position is not None


def test_digits_outside_the_target_are_refused_with_their_position() -> None:
    with pytest.raises(ExpressionError) as caught:
        evaluate("2*5^5+7", C6256)
    assert "the digit 7 is not allowed" in str(caught.value)
    assert "2, 5, 6" in str(caught.value)
    assert caught.value.position == 6
    result = score("2*5^5+7", C6256)
    assert not result.valid and result.final_score == 0
    assert result.error is not None and "digit 7" in result.error


def test_wrong_value_is_an_invalid_result_with_the_value() -> None:
    result = score("2*5^5+5", C6256)
    assert not result.valid
    assert result.value == 6255
    assert result.error == "the expression equals 6255, not the target 6256"
    data = result.to_json()
    assert data["valid"] is False and data["finalScore"] == 0 and data["value"] == 6255
    assert all(data[name] == 0 for name in ("baseScore", "eleganceBonus", "allDigitsBonus"))
    assert result.invalid_line_count == 1


def test_non_integer_value_in_json() -> None:
    data = score("13/2", Challenge.for_target(132)).to_json()
    assert data["value"] == "13/2" and data["valid"] is False


# --- each breakdown field ----------------------------------------------------------------------


def test_base_score_only_for_valid() -> None:
    assert score("3*3+1+3", C13).breakdown.base_score == 10
    assert score("3*3+1", C13).breakdown.base_score == 0


@pytest.mark.parametrize(
    ("text", "target", "elegance"),
    [
        ("sqrt(11-3+1)*3+1+3", 13, 5),
        ("41 mod 14 + 1", 14, 5),
        ("3^(1+1)+3+1", 13, 6),
        ("3!+3!+1", 13, 6 + 6),
        ("p_n(3+3)", 13, 7),
        ("sopfr(3*11)-1", 13, 9),
        # sopfr nested three deep: the innermost pays nothing (961 -> 62 -> 33 -> 14)
        ("sopfr(sopfr(sopfr(31*31)))-1", 13, 9 + 9),
        # four uses of sqrt: only three are paid (raw; simplification takes them back)
        ("sqrt(1)+sqrt(1)+sqrt(1)+sqrt(1)+3*3", 13, 5 * 3),
    ],
)
def test_elegance_bonus(text: str, target: int, elegance: int) -> None:
    result = score(text, Challenge.for_target(target))
    assert result.valid, result.error
    assert result.breakdown.elegance_bonus == elegance


def test_nesting_rule_is_about_the_same_operator_only() -> None:
    # sqrt(sopfr(sqrt(3^6))) = sqrt(sopfr(27)) = sqrt(9) = 3: the inner sqrt has one sqrt
    # around it (pays), the sopfr none
    result = score("sqrt(sopfr(sqrt(3^(3+3))))*3+1+3", C13)
    assert result.valid, result.error
    assert result.breakdown.elegance_bonus == 5 + 9 + 5 + 6


def test_operator_diversity_counts_kinds_with_unary_minus_as_minus() -> None:
    result = score("-(1-3)*3!+1", C13)  # kinds: - * ! +  (unary minus is "-")
    assert result.valid, result.error
    assert result.breakdown.operator_diversity_bonus == 2 * 4
    assert score("11+1+1", C13).breakdown.operator_diversity_bonus == 2
    assert score("3*3+3+1", C13).breakdown.operator_diversity_bonus == 4


@pytest.mark.parametrize(
    ("text", "target", "all_digits", "exact"),
    [
        ("p_n(3!)*1", 13, 20, 80),  # 3 1: exactly the digits of 13
        ("p_n(3+3)", 13, 0, 0),  # no 1
        ("3*3+3+1", 13, 20, 0),  # every digit, but 3 three times
        ("6*10*10*10+11", 6011, 20, 0),
        ("(2+2)!", 24, 0, 0),  # no 4
        ("(6+6-4)^(4/4+4/4)", 64, 20, 0),
    ],
)
def test_all_digits_and_exact_usage(text: str, target: int, all_digits: int, exact: int) -> None:
    result = score(text, Challenge.for_target(target))
    assert result.valid, result.error
    assert result.breakdown.all_digits_bonus == all_digits
    assert result.breakdown.exact_usage_bonus == exact


@pytest.mark.parametrize(
    ("extra", "penalty"),
    [(0, 0), (1, -1), (2, -2), (3, -3), (4, -10 * 2**4), (5, -10 * 2**5), (9, -10 * 2**9)],
)
def test_repetition_penalty(extra: int, penalty: int) -> None:
    # p_n(3!)*1 writes exactly 3 and 1; each further "*1" is one digit too many
    result = score("p_n(3!)" + "*1" * (extra + 1), C13)
    assert result.valid, result.error
    assert result.extra_digits == extra
    assert result.breakdown.repetition_penalty == penalty


def test_complexity_penalty() -> None:
    result = score("3*3+1+1+1+1+1+1-1-1", C13)  # 10 numerals + 9 operators
    assert result.valid, result.error
    assert result.tokens == 19
    assert result.breakdown.complexity_penalty == -((19 - 15) ** 2)
    small = score("3*3+3+1", C13)
    assert small.tokens == 7 and small.breakdown.complexity_penalty == 0
    at_limit = score("3*3+1+1+1+1+1-1", C13)  # 8 numerals + 7 operators = 15
    assert at_limit.tokens == 15 and at_limit.breakdown.complexity_penalty == 0
    # parentheses do not count; functions and factorials do
    assert score("((3*3))+((3+1))", C13).tokens == 7
    assert score("p_n(3!)", C13).tokens == 3


@pytest.mark.parametrize(
    ("text", "simplified", "rule"),
    [
        ("5+0", "5", "+0"),
        ("0+5", "5", "0+"),
        ("5-0", "5", "-0"),
        ("5*1", "5", "*1"),
        ("1*5", "5", "1*"),
        ("5/1", "5", "/1"),
        ("5^1", "5", "^1"),
        ("1^5", "1", "1^x"),
        ("(2+3)/(2 + 3)", "1", "x/x"),
        ("7 mod 1", "0", "mod 1"),
        ("sqrt(0)+5", "5", "sqrt(0)"),
        ("sqrt(1)*5", "5", "sqrt(1)"),
        ("0!*5", "5", "0!"),
        ("1!*5", "5", "1!"),
        ("2!+5", "2 + 5", "2!"),
        ("sopfr(13)", "13", "sopfr(p)"),
        ("sopfr(2+3)*2", "(2 + 3) * 2", "sopfr(p)"),
        ("((5*1)^1)+0", "5", "^1"),
    ],
)
def test_simplify_removes_null_operations(text: str, simplified: str, rule: str) -> None:
    tree = parse_expression(text)
    simple, removed = simplify(tree, evaluate_tree(tree, load_rules().limits))
    assert to_text(simple) == simplified
    assert rule in removed


@pytest.mark.parametrize("text", ["sopfr(12)", "sopfr(4)", "2*3", "5^2", "3!", "(2+3)/(3+2)"])
def test_simplify_keeps_real_operations(text: str) -> None:
    tree = parse_expression(text)
    simple, removed = simplify(tree, evaluate_tree(tree, load_rules().limits))
    assert removed == ()
    assert simple is tree


def test_trivial_expression_penalty_takes_back_what_the_null_operation_earned() -> None:
    honest = score("p_n(3!)", C13)  # 10 + 7 + 6 (elegance) + 4 (kinds) + 8 (prime gem)
    assert honest.final_score == 35
    # "*1" writes the missing 1 to earn allDigits (20) + exactUsage (80) + a kind (2), and
    # hides the prime gem (8): B(raw) = 119, B(simplified) = 25, penalty -94
    burned = score("p_n(3!)*1", C13)
    assert burned.simplified == "p_n(3!)"
    assert burned.breakdown.trivial_expression_penalty == -94
    assert burned.final_score == honest.final_score
    # "^1" also adds a power (6): penalty -100, the same final score again
    powered = score("p_n(3!)^1", C13)
    assert powered.breakdown.trivial_expression_penalty == -100
    assert powered.final_score == honest.final_score
    # 3!^1+3+1+3: the ^1 pays 6 for a power and 2 for a kind; both are taken back
    result = score("3!^1+3+1+3", C13)
    assert result.simplified == "3! + 3 + 1 + 3"
    assert result.breakdown.elegance_bonus == 12
    assert result.breakdown.trivial_expression_penalty == -(6 + 2)


def test_no_trivial_penalty_when_simplifying_gains() -> None:
    # removing a null operation can only cost the raw expression, never pay it
    result = score("p_n(1+1+1+1+1+1)*1", C13)
    assert result.valid, result.error
    assert result.breakdown.trivial_expression_penalty <= 0


@pytest.mark.parametrize("text", ["13", "(13)", "13*1", "13^1", "sopfr(13)", "$13$"])
def test_target_written_out_scores_zero(text: str) -> None:
    result = score(text, C13)
    assert result.valid, result.error
    assert result.simplified == "13"
    assert result.final_score == 0
    assert "natory_target_itself" in [h.code for h in result.hints]


@pytest.mark.parametrize(
    ("text", "target", "bonus", "key"),
    [
        ("(6/6+6/6+6/6)!", 6, 20, ["factorial"]),
        ("(2+2)!", 24, 20, ["factorial"]),
        ("(2+2+1)!", 120, 20, ["factorial"]),
        ("2^(3+2)", 32, 10, ["perfect_power"]),
        ("5^2", 25, 10, ["perfect_power"]),
        ("(6+6-4)^(4/4+4/4)", 64, 10, ["perfect_power"]),
        ("p_n(3!)", 13, 8, ["prime"]),
        ("p_n(3+3)", 13, 8, ["prime"]),
        ("3*3+3+1", 13, 0, []),  # prime, but the outermost operation is +
        ("p_n(3!)^1", 13, 0, []),  # outermost ^, but 13 is no perfect power
        ("2*2*(2+4)", 24, 0, []),  # a factorial, but the outermost operation is *
    ],
)
def test_special_number_bonus(text: str, target: int, bonus: int, key: list[str]) -> None:
    result = score(text, Challenge.for_target(target))
    assert result.valid, result.error
    assert result.breakdown.special_number_bonus == bonus
    assert result.to_json()["specialNumberKey"] == key


def test_unique_result_bonus() -> None:
    offline = score("3*3+3+1", C13)
    assert offline.breakdown.unique_result_bonus == 0
    first = score("3*3+3+1", C13, previous=[])
    assert first.breakdown.unique_result_bonus == 5
    assert first.final_score == offline.final_score + 5
    repeat = score("3 × 3 + 3 + 1", C13, previous=[first.simplified])
    assert repeat.breakdown.unique_result_bonus == 0
    # through the generic interface
    via = BENCHMARK.score("3*3+3+1", C13, options={"previous": ["p_n(3!)"]})
    assert via.breakdown.unique_result_bonus == 5


def test_final_score_is_the_sum_of_the_fields() -> None:
    for text in ("3^(1+1)+(3+1)", "p_n(3!)", "3*3+1+1+1+1+1+1-1-1", "p_n(3!)+1-1+1-1*1"):
        data = score(text, C13, previous=[]).to_json()
        parts = [
            data[name]
            for name in (
                "baseScore",
                "eleganceBonus",
                "operatorDiversityBonus",
                "allDigitsBonus",
                "exactUsageBonus",
                "repetitionPenalty",
                "complexityPenalty",
                "trivialExpressionPenalty",
                "specialNumberBonus",
                "uniqueResultBonus",
            )
        ]
        assert data["finalScore"] == sum(parts), text


# --- extraction from prose -------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "3^(1+1)+(3+1)",
        "  3^(1+1)+(3+1)  \n",
        "Let me think.\nThe answer is:\n$3^{1+1}+(3+1)$\nThat gives 13.",
        "Reasoning...\n\n$$3^{1+1} + \\left(3 + 1\\right) = 13$$",
        "**Answer:** 3^(1+1)+(3+1) = 13",
        "Final answer: `3^(1+1)+(3+1)`.",
        "13 = 3^(1+1)+(3+1)",
        "I tried 3*3+3 = 12 which is wrong.\n\\[ 3^{1+1}+(3+1) \\]",
        "Expression: 3^(1+1)+(3+1)\n",
    ],
)
def test_expression_is_found_in_prose(text: str) -> None:
    result = score(text, C13)
    assert result.valid, result.error
    assert result.simplified == "3^(1 + 1) + (3 + 1)"


def test_the_last_parsing_line_wins_and_its_line_is_reported() -> None:
    text = "first try: 3*3+3\nsecond thought\n3^(1+1)+(3+1)\nthanks!"
    result = score(text, C13)
    assert result.valid and result.line == 3
    assert "natory_extracted" in [h.code for h in result.hints]


def test_no_expression_is_an_invalid_result() -> None:
    result = score("I could not find one, sorry.", C13)
    assert not result.valid
    assert result.error is not None and "unknown name" in result.error
    assert score("", C13).error == "there is no expression"
    assert score("   \n\n", C13).error == "there is no expression"


# --- challenges, daily target, key ---------------------------------------------------------------


def test_challenge_digits() -> None:
    c = Challenge.for_target(6011)
    assert c.allowed_digits == frozenset("016")
    assert c.digits == ("0", "1", "1", "6")
    assert Challenge.for_target(13).allowed_text == "1, 3"


@pytest.mark.parametrize("bad", [b"", b"abc", b"-5", b"0", b"12.5", b"1e3", b"\xd9\xa1", b"9" * 30])
def test_load_key_refuses_bad_targets(bad: bytes) -> None:
    with pytest.raises(KeyFormatError):
        BENCHMARK.load_key(bad)


def test_load_key_reads_a_target() -> None:
    assert BENCHMARK.load_key(b"6256\n") == C6256
    assert parse_target(" 13 ") == C13
    assert registry.get("natory") is BENCHMARK


def test_daily_target_is_deterministic_and_in_range() -> None:
    day = date(2025, 3, 1)
    assert daily_target(day, "seed") == daily_target(day, "seed")
    targets = {
        daily_target(date(2025, 1, 1).fromordinal(day.toordinal() + i), "s") for i in range(400)
    }
    assert all(10 <= t <= 9999 for t in targets)
    assert len(targets) > 300  # not stuck
    assert daily_target(day, "a") != daily_target(day, "b") or daily_target(
        date(2025, 3, 2), "a"
    ) != daily_target(date(2025, 3, 2), "b")
    assert daily_challenge(day, "seed").target == daily_target(day, "seed")


# --- records and the rules file ------------------------------------------------------------------


@pytest.mark.parametrize("text", ["3^(1+1)+(3+1)", "13/2", "nope", "p_n(3!)^1", "x" * 2000])
def test_record_round_trip(text: str) -> None:
    result = score(text, C13, previous=["3"])
    record = json.loads(json.dumps(result.to_record()))
    assert result_from_record(record) == result
    assert BENCHMARK.result_from_record(record) == result


def test_result_interface() -> None:
    result = score("p_n(3!)", C13)
    assert result.benchmark == "natory" and result.scorer_version == "natory-v1"
    keys = [shown.field.key for shown in result.card().summary]
    assert keys[:4] == ["target", "expression", "value", "valid"]
    assert "finalScore" in keys and "specialNumberKey" in keys
    assert result.fingerprint == score("p_n( 3 ! )", C13).fingerprint
    assert result.fingerprint != score("p_n(3+3)", C13).fingerprint


def test_rules_file_holds_every_constant() -> None:
    rules = load_rules("natory-v1")
    assert rules.version == "natory-v1"
    assert rules.elegance == {"sqrt": 5, "mod": 5, "^": 6, "!": 6, "p_n": 7, "sopfr": 9}
    assert rules.limits.max_length == 1000 and rules.limits.max_bits == 10_000
    assert rules.limits.max_factorial == 1000 and rules.limits.max_prime_index == 1_000_000
    with pytest.raises(ValueError, match="max_length"):
        parse_rules({"version": "x", "limits": {}})  # limits checked first
    with pytest.raises(ValueError):
        load_rules("../etc")


def test_only_a_valid_result_is_publishable_and_the_target_itself_is_trivial() -> None:
    challenge = natory.Challenge.for_target(6256)
    wrong = natory.score("2*5^5+5", challenge)
    itself = natory.score("6256", challenge, previous=())
    real = natory.score("2*5^5+6", challenge, previous=())
    assert not wrong.publishable and not wrong.trivial
    assert itself.publishable and itself.trivial and itself.final_score == 0
    assert real.publishable and not real.trivial
    assert [publishable(r) for r in (wrong, itself, real)] == [False, True, True]

"""Every bound of the Natory rules, each with a hostile input that must be refused.

Each refusal is asserted (message and, where there is one, position); how long a
refusal takes is measured by tests/benchmarks/bench_natory.py, not asserted here.
"""

from __future__ import annotations

import pytest

from scoring import ExpressionError
from scoring.natory import Challenge, evaluate, load_rules, parse_expression, score
from scoring.natory.parser import parse

LIMITS = load_rules().limits


def refused(text: str) -> ExpressionError:
    with pytest.raises(ExpressionError) as caught:
        evaluate(text)
    return caught.value


def test_tower_of_powers_is_refused_by_its_estimated_size() -> None:
    error = refused("9^9^9^9^9")
    # 9^9^9^9^9 = 9^(9^(9^(9^9))): 9^9 is computed, 9^387420489 is estimated and refused
    assert "9^387420489 would have more than 10,000 bits" in str(error)
    assert error.position == 5


@pytest.mark.parametrize("text", ["2^10001", "3^6310", "(2/3)^-7000", "10^3011", "2^(2^64)"])
def test_large_powers_are_refused_before_computing(text: str) -> None:
    assert "would have more than 10,000 bits" in str(refused(text))


def test_powers_just_under_the_limit_are_computed() -> None:
    assert evaluate("2^9999") == 2**9999
    assert evaluate("(1/2)^9999") * 2**9999 == 1
    assert evaluate("1^(10^100)") == 1 and evaluate("(-1)^(10^100+1)") == -1


@pytest.mark.parametrize("text", ["2^9999*2^9999", "1000!*1000!", "2^9999+2^9999"])
def test_any_intermediate_value_over_the_bit_limit(text: str) -> None:
    assert "has more than 10,000 bits" in str(refused(text))


def test_factorial_limit() -> None:
    assert "limited to 1,000!" in str(refused("99999!"))
    assert "limited to 1,000!" in str(refused("1001!"))
    assert "limited to 1,000!" in str(refused("(10^100)!"))
    assert "limited to 1,000!" in str(refused("7!!"))  # 5040!
    assert evaluate("1000!/999!") == 1000


def test_prime_index_limit() -> None:
    error = refused("p_n(10^9)")
    assert "p_n is limited to p_n(1,000,000)" in str(error) and error.position == 0
    assert "limited" in str(refused("p_n(1000001)"))
    assert evaluate("p_n(1000000)") == 15_485_863  # the largest allowed: built on demand
    assert evaluate("p_n(999999)") == 15_485_857


def test_sopfr_of_an_unfactorable_number_is_refused() -> None:
    # 2^10000+1 is over the bit limit before sopfr is even tried
    assert "more than 10,000 bits" in str(refused("sopfr(2^10000+1)"))
    # 2^9000+1 fits, but its cofactor (after trial division) is far too large to factor
    error = refused("sopfr(2^9000+1)")
    assert "cannot be factored within the budget" in str(error)
    # a semiprime of two 46-bit primes: small enough to try, too hard for the budget
    error = refused("sopfr(70368744177643*70368744177607)")
    assert "cannot be factored within the budget" in str(error)


def test_sopfr_of_large_smooth_numbers_is_fine() -> None:
    assert evaluate("sopfr(2^9000)") == 18000
    assert evaluate("sopfr(3^5000*7^100)") == 15000 + 700
    assert evaluate("sopfr(1000!)") == 142707


def test_the_factoring_budget_is_shared_by_the_whole_expression() -> None:
    # each of these costs a little; together they must be refused, not run long
    one = "sopfr(2^9000+1)"
    text = "+".join([one] * 40)
    assert len(text) < LIMITS.max_length
    assert "cannot be factored" in str(refused(text))


def test_ten_thousand_nested_parentheses() -> None:
    text = "(" * 10_000 + "1" + ")" * 10_000
    error = refused(text)
    assert "20,001 characters long; the limit is 1,000" in str(error)
    # and with the length limit lifted, nesting is still refused (no RecursionError)
    with pytest.raises(ExpressionError) as caught:
        parse(text, max_length=10**6)
    assert "nested more than 50 levels deep" in str(caught.value)
    assert caught.value.position == 50


@pytest.mark.parametrize(
    "text",
    [
        "-" * 900 + "1",
        "sqrt(" * 100 + "1" + ")" * 100,
        "2^" * 400 + "2",
        "p_n " * 200 + "1",
    ],
)
def test_deep_nesting_of_every_kind_is_refused(text: str) -> None:
    assert "nested more than" in str(refused(text))


def test_long_chains_are_refused_without_recursion() -> None:
    text = "+".join(["1"] * 400)  # 799 characters, a tree 400 deep
    assert "nested or chained more than 250 levels deep" in str(refused(text))
    assert evaluate("+".join(["1"] * 200)) == 200


def test_one_megabyte_expression() -> None:
    text = "1+" * 500_000 + "1"
    assert "characters long; the limit is 1,000" in str(refused(text))
    result = score(text, Challenge.for_target(13))
    assert not result.valid
    assert result.error is not None and "the limit is 1,000" in result.error
    assert len(result.expression) <= 1001  # the result does not keep the megabyte


def test_a_huge_numeral_is_refused() -> None:
    text = "9" * 999
    assert evaluate(text) == int(text)  # 3,319 bits: fine
    with pytest.raises(ExpressionError):
        parse_expression("9" * 1001)


def test_twenty_megabytes_of_prose_score_quickly_and_invalid() -> None:
    text = "lorem ipsum dolor sit amet\n" * 800_000
    result = score(text, Challenge.for_target(13))
    assert not result.valid and result.error is not None

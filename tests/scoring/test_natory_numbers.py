"""The number theory under Natory: primes, the k-th prime's checkpoints, factoring, roots."""

from __future__ import annotations

import random

import pytest

from scoring.natory import numbers


@pytest.fixture(scope="module")
def sieve() -> bytearray:
    return numbers._odd_sieve(len(numbers._PI_AT_SEGMENT) * numbers._SEGMENT)


def test_segment_checkpoints_match_a_full_sieve(sieve: bytearray) -> None:
    size = numbers._SEGMENT
    for j, expected in enumerate(numbers._PI_AT_SEGMENT):
        below = 0 if j == 0 else 1 + sieve[: j * size // 2].count(1)
        assert below == expected, j


def test_nth_prime_against_the_sieve(sieve: bytearray) -> None:
    primes = [2, *(2 * i + 1 for i, flag in enumerate(sieve) if flag)]
    rng = random.Random(7)
    ks = [*range(1, 13_000), *rng.sample(range(1, 1_000_001), 2000), 1_000_000, 23_000, 23_001]
    for k in ks:
        assert numbers.nth_prime(k) == primes[k - 1], k
    assert numbers.nth_prime(1_000_000) == 15_485_863


def test_is_prime_and_factoring() -> None:
    assert [n for n in range(30) if numbers.is_prime(n)] == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
    assert numbers.is_prime(2**61 - 1) and not numbers.is_prime(3_215_031_751)  # a pseudoprime
    budget = numbers.Budget(30_000)
    primes = numbers.small_primes(4096)
    assert numbers.prime_factors(1, trial_primes=primes, max_bits=81, budget=budget) == {}
    n = 2**5 * 3**200 * 1_000_003 * 1_000_033
    assert numbers.prime_factors(n, trial_primes=primes, max_bits=81, budget=budget) == {
        2: 5, 3: 200, 1_000_003: 1, 1_000_033: 1
    }  # fmt: skip
    with pytest.raises(numbers.BudgetExceeded):
        numbers.prime_factors((2**61 - 1) * (2**31 - 1), trial_primes=primes, max_bits=81,
                              budget=numbers.Budget(30_000))  # fmt: skip


@pytest.mark.parametrize("k", [2, 3, 5, 7, 47, 48, 49, 100, 9999])
def test_iroot(k: int) -> None:
    rng = random.Random(k)
    for _ in range(50):
        n = rng.getrandbits(rng.randint(1, 10_000))
        r = numbers.iroot(n, k)
        assert r**k <= n < (r + 1) ** k
    assert numbers.exact_root(3**k, k) == 3 and numbers.exact_root(3**k + 1, k) is None


def test_perfect_powers_and_factorials() -> None:
    assert numbers.perfect_power(64) == (2, 6)
    assert numbers.perfect_power(6256) is None
    assert [n for n in range(1, 800) if numbers.is_factorial(n)] == [1, 2, 6, 24, 120, 720]

"""Bounded number theory: primality, the k-th prime, factoring, roots, perfect powers.

Everything here is deterministic and bounded. The callers (the evaluator) check sizes
first; these functions take a :class:`Budget` where the work is not obviously small and
raise :class:`BudgetExceeded` instead of running long.
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from math import gcd, isqrt, log, log2

#: Deterministic Miller-Rabin bases for every n < 3.3e24 (Sorenson & Webster, 2015).
_MR_BASES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
MR_DETERMINISTIC_BELOW = 3_317_044_064_679_887_385_961_981


class BudgetExceeded(Exception):
    """The work budget of one evaluation ran out (the evaluator turns it into a message)."""


@dataclass(slots=True)
class Budget:
    """Work units left for one evaluation (Pollard rho steps and big trial divisions)."""

    remaining: int

    def spend(self, units: int) -> None:
        self.remaining -= units
        if self.remaining < 0:
            raise BudgetExceeded


# --- small primes and the k-th prime ---------------------------------------------------


def _odd_sieve(limit: int) -> bytearray:
    """``flags[i] == 1`` iff ``2*i + 1`` is prime, for ``2*i + 1 <= limit``."""
    size = (limit + 1) // 2
    flags = bytearray(b"\x01") * size
    flags[0] = 0
    zeros = memoryview(bytes(size // 3 + 1))
    for i in range(1, (isqrt(limit) - 1) // 2 + 1):
        if flags[i]:
            p = 2 * i + 1
            start = p * p // 2
            flags[start::p] = zeros[: (size - start - 1) // p + 1]
    return flags


def small_primes(bound: int) -> tuple[int, ...]:
    """The primes below ``bound`` (for trial division; ``bound`` is small)."""
    if bound <= 2:
        return ()
    flags = _odd_sieve(bound - 1)
    return (2, *(2 * i + 1 for i, f in enumerate(flags) if f))


def nth_prime_upper_bound(k: int) -> int:
    """An upper bound for the k-th prime (Rosser; Dusart 2010 for k >= 688,383)."""
    if k < 6:
        return 13
    lk, llk = log(k), log(log(k))
    if k >= 688_383:
        return int(k * (lk + llk - 1 + (llk - 2) / lk)) + 1
    return int(k * (lk + llk)) + 1


_BLOCK = 1 << 12


def _ones(view: memoryview) -> int:
    """How many bytes of a 0/1 flag array are 1 (a popcount)."""
    return int.from_bytes(view).bit_count()


class _PrimeTable:
    """An odd-only sieve that grows on demand (doubling), with prime counts per block.

    Only used past the segment checkpoints below (a rules file allowing p_n beyond
    1,022,661). Shared across threads (guarded by a lock).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._limit = 0
        self._flags = bytearray()
        self._cumulative: list[int] = [0]  # primes (odd) before each block

    def nth(self, k: int, ceiling: int) -> int:
        if k == 1:
            return 2
        need = nth_prime_upper_bound(k)
        with self._lock:
            if self._limit < need:
                limit = min(max(need, 2 * self._limit, 1 << 17), max(need, ceiling))
                flags = _odd_sieve(limit)
                view = memoryview(flags)
                counts = (_ones(view[i : i + _BLOCK]) for i in range(0, len(flags), _BLOCK))
                cumulative = [0, *accumulate(counts)]
                self._flags, self._limit, self._cumulative = flags, limit, cumulative
            flags, cumulative = self._flags, self._cumulative
        wanted = k - 1  # the odd primes: 3 is the first
        low, high = 0, len(cumulative) - 1
        while high - low > 1:  # the last block whose start count is < wanted
            mid = (low + high) // 2
            if cumulative[mid] < wanted:
                low = mid
            else:
                high = mid
        # In the block: the smallest end with `missing` primes in [start, end).
        start, missing = low * _BLOCK, wanted - cumulative[low]
        lo, hi = start + 1, min(start + _BLOCK, len(flags))
        while lo < hi:
            mid = (lo + hi) // 2
            if _ones(memoryview(flags)[start:mid]) < missing:
                lo = mid + 1
            else:
                hi = mid
        return 2 * (lo - 1) + 1


_TABLE = _PrimeTable()
#: The primes below 2^16, for the common small indexes (no lock, no search).
_FIRST_PRIMES = small_primes(1 << 16)

#: pi(j * 2^17) for j = 0..121: how many primes lie below each segment start (checked
#: against a full sieve by tests/scoring/test_natory_numbers.py). With it, the k-th prime
#: is found by sieving one 131,072-number segment, not everything below it; it covers
#: k up to 1,022,661 (the rules allow 1,000,000).
_SEGMENT = 1 << 17
_PI_AT_SEGMENT = (
    0,
    12251,
    23000,
    33335,
    43390,
    53228,
    62946,
    72547,
    82025,
    91465,
    100786,
    110056,
    119268,
    128413,
    137524,
    146605,
    155611,
    164598,
    173514,
    182420,
    191308,
    200167,
    209014,
    217807,
    226549,
    235370,
    244069,
    252687,
    261378,
    270055,
    278737,
    287346,
    295947,
    304473,
    313085,
    321634,
    330177,
    338677,
    347259,
    355720,
    364195,
    372663,
    381113,
    389513,
    397906,
    406315,
    414771,
    423119,
    431502,
    439839,
    448182,
    456517,
    464881,
    473247,
    481615,
    489887,
    498177,
    506439,
    514705,
    522988,
    531252,
    539493,
    547712,
    555941,
    564163,
    572365,
    580619,
    588867,
    597016,
    605170,
    613334,
    621559,
    629686,
    637820,
    646005,
    654170,
    662226,
    670352,
    678426,
    686547,
    694716,
    702826,
    710976,
    719035,
    727128,
    735203,
    743287,
    751333,
    759401,
    767514,
    775549,
    783618,
    791652,
    799658,
    807738,
    815780,
    823749,
    831786,
    839845,
    847799,
    855732,
    863735,
    871735,
    879662,
    887642,
    895638,
    903648,
    911572,
    919552,
    927496,
    935512,
    943417,
    951351,
    959333,
    967230,
    975129,
    983029,
    990984,
    998840,
    1006840,
    1014733,
    1022661,
)
_SEGMENT_ZEROS = memoryview(bytes(_SEGMENT // 6 + 2))


@lru_cache(maxsize=32)
def _segment(j: int) -> tuple[bytearray, tuple[int, ...]]:
    """Odd-only flags for [j*S, (j+1)*S) (index i is j*S + 2i + 1), and prime counts
    before each 4,096-flag block."""
    low, size = j * _SEGMENT, _SEGMENT // 2
    high = low + _SEGMENT
    flags = bytearray(b"\x01") * size
    if j == 0:
        flags[0] = 0  # 1 is not prime
    for p in _FIRST_PRIMES[1:]:
        if p * p >= high:
            break
        start = max(p * p, (low + p - 1) // p * p)
        if start % 2 == 0:
            start += p
        first = (start - low - 1) // 2
        if first < size:
            flags[first::p] = _SEGMENT_ZEROS[: (size - 1 - first) // p + 1]
    view = memoryview(flags)
    counts = (_ones(view[i : i + _BLOCK]) for i in range(0, size, _BLOCK))
    return flags, (0, *accumulate(counts))


@lru_cache(maxsize=4096)
def _nth_by_segment(k: int) -> int:
    j = bisect_left(_PI_AT_SEGMENT, k) - 1  # the last segment starting with < k primes below
    flags, cumulative = _segment(j)
    wanted = k - _PI_AT_SEGMENT[j] - (1 if j == 0 else 0)  # 2 is not among the odd flags
    block = bisect_left(cumulative, wanted) - 1
    index = block * _BLOCK - 1
    for _ in range(wanted - cumulative[block]):
        index = flags.find(1, index + 1)
    return j * _SEGMENT + 2 * index + 1


def nth_prime(k: int, *, ceiling_index: int = 1_000_000) -> int:
    """The k-th prime (``nth_prime(1) == 2``); ``1 <= k <= ceiling_index`` is the caller's check.

    ``ceiling_index`` caps how far ahead the shared sieve grows when it doubles.
    """
    if k < 1:
        raise ValueError("k must be positive")
    if k <= len(_FIRST_PRIMES):
        return _FIRST_PRIMES[k - 1]
    if k <= _PI_AT_SEGMENT[-1]:
        return _nth_by_segment(k)
    return _TABLE.nth(k, nth_prime_upper_bound(ceiling_index))  # beyond the checkpoints


# --- primality and factoring -----------------------------------------------------------


def _strong_probable_prime(n: int, a: int) -> bool:
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    x = pow(a, d, n)
    if x in (1, n - 1):
        return True
    for _ in range(s - 1):
        x = x * x % n
        if x == n - 1:
            return True
    return False


def is_prime(n: int) -> bool:
    """Exact for n < 3.3e24; callers never pass larger numbers (a ValueError if they do)."""
    if n < 2:
        return False
    for p in _MR_BASES:
        if n % p == 0:
            return n == p
    if n >= MR_DETERMINISTIC_BELOW:
        raise ValueError("is_prime is only exact below 3.3e24")
    return all(_strong_probable_prime(n, a) for a in _MR_BASES)


def valuation(n: int, p: int) -> tuple[int, int]:
    """``(e, n // p**e)`` with p**e the largest power of p dividing n (n > 0), in O(log e)."""
    if n % p:
        return 0, n
    powers = [p]
    while n % (powers[-1] * powers[-1]) == 0:
        powers.append(powers[-1] * powers[-1])
    exponent = 0
    for i in range(len(powers) - 1, -1, -1):
        if n % powers[i] == 0:
            n //= powers[i]
            exponent += 1 << i
    return exponent, n


def _rho(n: int, budget: Budget) -> int:
    """A non-trivial factor of the odd composite n (Brent's variant of Pollard rho)."""
    for c in range(1, 50):
        y, m, g, r, q = 2, 64, 1, 1, 1
        x = ys = y
        while g == 1:
            x = y
            for _ in range(r):
                y = (y * y + c) % n
            k = 0
            while k < r and g == 1:
                ys = y
                steps = min(m, r - k)
                budget.spend(steps)
                for _ in range(steps):
                    y = (y * y + c) % n
                    q = q * abs(x - y) % n
                g = gcd(q, n)
                k += m
            r *= 2
        if g == n:
            g = 1
            while g == 1:
                budget.spend(1)
                ys = (ys * ys + c) % n
                g = gcd(abs(x - ys), n)
        if g != n:
            return g
    raise BudgetExceeded


def prime_factors(
    n: int, *, trial_primes: tuple[int, ...], max_bits: int, budget: Budget
) -> dict[int, int]:
    """``{prime: exponent}`` of n >= 1, or :class:`BudgetExceeded`.

    Trial division by ``trial_primes`` first (powers divided out in O(log e) steps);
    what is left must be 1, a prime below the square of the trial bound, or a number of
    at most ``max_bits`` bits that Miller-Rabin and Pollard rho finish within ``budget``.
    """
    factors: dict[int, int] = {}
    bound = trial_primes[-1] + 1 if trial_primes else 2
    for p in trial_primes:
        if p * p > n:
            break
        budget.spend(1 + n.bit_length() // 4096)
        exponent, n = valuation(n, p)
        if exponent:
            factors[p] = exponent
    if n == 1:
        return factors
    if n < bound * bound:
        factors[n] = factors.get(n, 0) + 1
        return factors
    if n.bit_length() > max_bits:
        raise BudgetExceeded
    stack = [n]
    while stack:
        m = stack.pop()
        if is_prime(m):
            factors[m] = factors.get(m, 0) + 1
            continue
        d = _rho(m, budget)
        stack.extend((d, m // d))
    return factors


# --- roots and powers -----------------------------------------------------------------


def iroot(n: int, k: int) -> int:
    """The integer k-th root of n >= 0 (the largest r with r**k <= n)."""
    if n < 2 or k == 1:
        return n
    if k == 2:
        return isqrt(n)
    if k >= n.bit_length():
        return 1
    estimate = log2(n) / k
    if estimate < 48:  # the root fits a float well: round, then correct by a step or two
        r = int(2.0**estimate)
        while r**k > n:
            r -= 1
        while (r + 1) ** k <= n:
            r += 1
        return r
    r = 1 << ((n.bit_length() + k - 1) // k)  # an overestimate
    while True:
        s = ((k - 1) * r + n // r ** (k - 1)) // k
        if s >= r:
            break
        r = s
    while r**k > n:
        r -= 1
    return r


def exact_root(n: int, k: int) -> int | None:
    """r with r**k == n (n >= 0), or None."""
    r = iroot(n, k)
    return r if r**k == n else None


def perfect_power(n: int) -> tuple[int, int] | None:
    """(a, b) with a**b == n, b >= 2 maximal, for n >= 1; None when there is none."""
    if n == 1:
        return (1, 2)
    for b in range(n.bit_length(), 1, -1):
        a = exact_root(n, b)
        if a is not None and a > 1:
            return (a, b)
    return None


def is_factorial(n: int) -> bool:
    """Whether n == m! for some m >= 0."""
    m, f = 1, 1
    while f < n:
        m += 1
        f *= m
    return f == n

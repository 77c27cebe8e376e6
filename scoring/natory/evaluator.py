"""Exact evaluation with every bound checked before the work is done.

Values are :class:`fractions.Fraction`. Before each operation the evaluator estimates
the size of its result and refuses anything over the bit limit; factorials, the k-th
prime and factoring have their own limits, and factoring and rho share one work
budget per evaluation. So no input can hang the process
(tests/benchmarks/bench_natory.py measures the slowest inputs). Errors are
:class:`~scoring.errors.ExpressionError` naming the position of the operator that failed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, lru_cache
from math import factorial, log2

from ..errors import ExpressionError
from . import numbers
from .parser import Node, Num, Op
from .rules import Limits

ONE = Fraction(1)


@lru_cache(maxsize=256)
def _factorial(n: int) -> int:
    """n! for n <= the limit (1000! is 8,530 bits; 256 of them cost about 1 MB)."""
    return factorial(n)


@cache
def _trial_primes(bound: int) -> tuple[int, ...]:
    return numbers.small_primes(bound)


def _power_text(base: Fraction, exponent: Fraction) -> str:
    left = short(base) if base.denominator == 1 and base >= 0 else f"({short(base)})"
    right = short(exponent) if exponent.denominator == 1 else f"({short(exponent)})"
    return f"{left}^{right}"


def short(value: Fraction | int, limit: int = 24) -> str:
    """A number for a message: in full when short, else its size."""
    if isinstance(value, Fraction) and value.denominator != 1:
        return f"{short(value.numerator, limit)}/{short(value.denominator, limit)}"
    number = int(value)
    bits = number.bit_length()
    if bits <= limit * 3:  # at most ~22 digits: print it
        return str(number)
    return f"a {bits:,}-bit number"


@dataclass(slots=True)
class Evaluation:
    """The value of every node (by ``id``), and the ``sopfr`` nodes whose argument is prime."""

    value: Fraction
    values: dict[int, Fraction] = field(default_factory=dict)
    prime_sopfr: set[int] = field(default_factory=set)


class _Evaluator:
    def __init__(self, limits: Limits):
        self.limits = limits
        self.budget = numbers.Budget(limits.rho_iterations)
        self.values: dict[int, Fraction] = {}
        self.prime_sopfr: set[int] = set()

    def fail(self, message: str, node: Node, code: str, **params: object) -> ExpressionError:
        return ExpressionError(
            message, position=node.pos, code=code, params={k: str(v) for k, v in params.items()}
        )

    def checked(self, value: Fraction, node: Node) -> Fraction:
        limit = self.limits.max_bits
        if value.numerator.bit_length() > limit or value.denominator.bit_length() > limit:
            raise self.fail(
                f"a value in the expression has more than {limit:,} bits",
                node,
                "too_many_bits",
                limit=f"{limit:,}",
            )
        return value

    def integer(self, value: Fraction, node: Op, what: str, op: str) -> int:
        if value.denominator != 1:
            raise self.fail(
                f"{what} needs a whole number, not {short(value)}",
                node,
                "not_whole",
                op=op,
                value=short(value),
            )
        return value.numerator

    def run(self, node: Node) -> Fraction:
        if type(node) is Num:
            if len(node.text) * 3.33 > self.limits.max_bits + 4:
                limit = f"{self.limits.max_bits:,}"
                raise self.fail(
                    f"a numeral has more than {limit} bits", node, "numeral_too_big", limit=limit
                )
            value = Fraction(node.value)
            if len(node.text) * 3.322 > self.limits.max_bits:  # else surely under the limit
                value = self.checked(value, node)
        else:
            assert isinstance(node, Op)
            args = [self.run(arg) for arg in node.args]
            value = self.checked(self.apply(node, args), node)
        self.values[id(node)] = value
        return value

    def apply(self, node: Op, args: list[Fraction]) -> Fraction:
        kind = node.kind
        if kind == "+":
            return args[0] + args[1]
        if kind == "-":
            return args[0] - args[1]
        if kind == "*":
            return args[0] * args[1]
        if kind == "neg":
            return -args[0]
        if kind == "/":
            if args[1] == 0:
                raise self.fail("division by zero", node, "division_by_zero")
            return args[0] / args[1]
        if kind == "^":
            return self.power(node, args[0], args[1])
        if kind == "mod":
            left = self.integer(args[0], node, "mod", "mod")
            right = self.integer(args[1], node, "mod", "mod")
            if right == 0:
                raise self.fail("mod by zero", node, "mod_by_zero")
            return Fraction(left % right)
        if kind == "!":
            n = self.integer(args[0], node, "the factorial", "!")
            if n < 0:
                raise self.fail(
                    f"the factorial of a negative number ({n}) is undefined",
                    node,
                    "factorial_negative",
                    n=n,
                )
            if n > self.limits.max_factorial:
                raise self.fail(
                    f"factorials are limited to {self.limits.max_factorial:,}! "
                    f"(this one is {short(n)}!)",
                    node,
                    "factorial_limit",
                    limit=f"{self.limits.max_factorial:,}",
                    n=short(n),
                )
            return Fraction(_factorial(n))
        if kind == "sqrt":
            return self.sqrt(node, args[0])
        if kind == "p_n":
            k = self.integer(args[0], node, "p_n", "p_n")
            if k < 1:
                raise self.fail(
                    f"p_n needs a positive index (p_n(1) = 2), not {short(k)}",
                    node,
                    "pn_positive",
                    k=short(k),
                )
            if k > self.limits.max_prime_index:
                raise self.fail(
                    f"p_n is limited to p_n({self.limits.max_prime_index:,}) "
                    f"(this one asks for p_n({short(k)}))",
                    node,
                    "pn_limit",
                    limit=f"{self.limits.max_prime_index:,}",
                    k=short(k),
                )
            return Fraction(numbers.nth_prime(k, ceiling_index=self.limits.max_prime_index))
        if kind == "sopfr":
            return self.sopfr(node, args[0])
        raise self.fail(f"unknown operator {kind!r}", node, "other")  # pragma: no cover

    def power(self, node: Op, base: Fraction, exponent: Fraction) -> Fraction:
        if exponent.denominator != 1:
            return self.root_power(node, base, exponent)
        e = exponent.numerator
        if base == 0:
            if e == 0:
                raise self.fail("0^0 is undefined", node, "zero_to_zero")
            if e < 0:
                raise self.fail(
                    "division by zero (0 to a negative power)", node, "zero_negative_power"
                )
            return Fraction(0)
        if base in (1, -1):
            return base if e % 2 else ONE
        biggest = max(abs(base.numerator), base.denominator)
        # biggest >= 2: the result has about |e| * log2(biggest) bits. Refuse before
        # computing when that is over the limit (with a bit of slack for rounding; the
        # exact check after computing catches the last bit). |e| is bounded first, so
        # the estimate is a float multiplication, never a huge number.
        if abs(e) > self.limits.max_bits or abs(e) * log2(biggest) > self.limits.max_bits + 1:
            raise self.fail(
                f"the power {_power_text(base, exponent)} would have more than "
                f"{self.limits.max_bits:,} bits",
                node,
                "power_too_big",
                power=_power_text(base, exponent),
                limit=f"{self.limits.max_bits:,}",
            )
        return base**e  # at most the limit + 2 bits: cheap, then checked exactly

    def root_power(self, node: Op, base: Fraction, exponent: Fraction) -> Fraction:
        p, q = exponent.numerator, exponent.denominator
        if base < 0:
            raise self.fail(
                f"a negative number to the power {short(exponent)} is not a rational number",
                node,
                "negative_root",
                exponent=short(exponent),
            )
        if base == 0:
            if p < 0:
                raise self.fail(
                    "division by zero (0 to a negative power)", node, "zero_negative_power"
                )
            return Fraction(0)
        biggest = max(base.numerator, base.denominator)
        if biggest.bit_length() < q and base != 1:
            raise self.fail(
                f"{_power_text(base, exponent)} is not a rational number",
                node,
                "irrational_power",
                power=_power_text(base, exponent),
            )
        top = numbers.exact_root(base.numerator, q)
        bottom = numbers.exact_root(base.denominator, q)
        if top is None or bottom is None:
            raise self.fail(
                f"{_power_text(base, exponent)} is not a rational number",
                node,
                "irrational_power",
                power=_power_text(base, exponent),
            )
        return self.power(node, Fraction(top, bottom), Fraction(p))

    def sqrt(self, node: Op, value: Fraction) -> Fraction:
        if value < 0:
            raise self.fail(
                f"sqrt of a negative number ({short(value)})",
                node,
                "sqrt_negative",
                value=short(value),
            )
        top = numbers.exact_root(value.numerator, 2)
        bottom = numbers.exact_root(value.denominator, 2)
        if top is None or bottom is None:
            raise self.fail(
                f"sqrt({short(value)}) is not a whole or rational number",
                node,
                "sqrt_irrational",
                value=short(value),
            )
        return Fraction(top, bottom)

    def sopfr(self, node: Op, value: Fraction) -> Fraction:
        n = self.integer(value, node, "sopfr", "sopfr")
        if n < 1:
            raise self.fail(
                f"sopfr needs a positive whole number, not {short(n)}",
                node,
                "sopfr_positive",
                n=short(n),
            )
        try:
            factors = numbers.prime_factors(
                n,
                trial_primes=_trial_primes(self.limits.trial_division_bound),
                max_bits=self.limits.factor_max_bits,
                budget=self.budget,
            )
        except numbers.BudgetExceeded:
            raise self.fail(
                f"sopfr({short(n)}): the number cannot be factored within the budget",
                node,
                "sopfr_budget",
                n=short(n),
            ) from None
        if len(factors) == 1 and n in factors:
            self.prime_sopfr.add(id(node))
        return Fraction(sum(p * e for p, e in factors.items()))


def evaluate_tree(tree: Node, limits: Limits) -> Evaluation:
    """Evaluate a parsed tree exactly; :class:`ExpressionError` on anything refused."""
    evaluator = _Evaluator(limits)
    value = evaluator.run(tree)
    return Evaluation(value, evaluator.values, evaluator.prime_sopfr)

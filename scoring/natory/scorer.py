"""The natory score (v1 and v2, by the rules' file): challenges, the daily target,
simplification and the fields (the result they make is :mod:`.result`).

``score(text, challenge)`` never raises on any text: an expression that cannot be read,
is refused by a bound, or does not equal the target is a result with ``valid`` false,
every field 0 and the error message (naming the position in the expression).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from functools import cache

from ..base import Hint, InvalidLine
from ..errors import ExpressionError, KeyFormatError
from . import numbers
from .evaluator import Evaluation, evaluate_tree, short
from .extract import Extracted, NotFound, extract
from .parser import Node, Num, Op, make, parse, to_text
from .result import (
    Breakdown,
    NatoryResult,
    fingerprint_of,
    plain,
    shown,
)
from .rules import Rules, load_rules
from .simplify import simplify_by_value

#: How much of an invalid expression a result keeps (a 1 MB paste is not stored twice).
_KEPT_CHARS = 1000


# --- the challenge ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Challenge:
    """A target N, its allowed digits (the distinct digits of N) and its digit multiset."""

    target: int
    allowed_digits: frozenset[str]
    digits: tuple[str, ...]  # the digits of N with repetition, sorted

    @classmethod
    def for_target(cls, target: int, *, rules: Rules | None = None) -> Challenge:
        """The challenge of ``target``; :class:`KeyFormatError` when it is out of range."""
        limit = (rules or load_rules()).limits.max_target_digits
        if isinstance(target, bool) or not isinstance(target, int) or target < 1:
            raise KeyFormatError(f"the target must be a positive whole number, not {target!r}")
        if target >= 10**limit:
            raise KeyFormatError(f"the target may have at most {limit} digits")
        text = str(target)
        return cls(target, frozenset(text), tuple(sorted(text)))

    @property
    def allowed_text(self) -> str:
        return ", ".join(sorted(self.allowed_digits))


def parse_target(text: str, *, rules: Rules | None = None) -> Challenge:
    """A challenge from text such as ``"6256"``; :class:`KeyFormatError` otherwise."""
    stripped = text.strip()
    if not stripped.isascii() or not stripped.isdigit():
        shown = stripped if len(stripped) <= 30 else stripped[:27] + "..."
        raise KeyFormatError(
            f"the target must be a positive whole number such as 6256, not {shown!r}"
        )
    limit = (rules or load_rules()).limits.max_target_digits
    if len(stripped.lstrip("0")) > limit:
        raise KeyFormatError(f"the target may have at most {limit} digits")
    return Challenge.for_target(int(stripped), rules=rules)


def daily_target(day: date, seed: str, *, rules: Rules | None = None) -> int:
    """The target of ``day``: the same for everyone with the same seed (10..9999 in v1)."""
    rules = rules or load_rules()
    digest = hashlib.sha256(f"natory-daily|{seed}|{day.isoformat()}".encode()).digest()
    span = rules.daily_max - rules.daily_min + 1
    return rules.daily_min + int.from_bytes(digest[:8], "big") % span


def daily_challenge(day: date, seed: str, *, rules: Rules | None = None) -> Challenge:
    return Challenge.for_target(daily_target(day, seed, rules=rules), rules=rules)


@dataclass(frozen=True, slots=True)
class _Properties:
    factorial: bool
    perfect_power: bool
    prime: bool


@cache
def _properties(target: int) -> _Properties:
    return _Properties(
        factorial=numbers.is_factorial(target),
        perfect_power=numbers.perfect_power(target) is not None,
        prime=numbers.is_prime(target),
    )


# --- parsing and evaluating (the functions the bot may call directly) -------------------


def parse_expression(expression: str, *, rules: Rules | None = None) -> Node:
    """Parse one expression with the rules' limits; :class:`ExpressionError` on failure."""
    limits = (rules or load_rules()).limits
    return parse(
        expression,
        max_length=limits.max_length,
        max_depth=limits.max_depth,
        max_nesting=limits.max_nesting,
    )


def _numerals(tree: Node) -> Iterator[Num]:
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Num):
            if not node.synthetic:
                yield node
        else:
            stack.extend(reversed(node.args))


def check_digits(tree: Node, challenge: Challenge) -> None:
    """Refuse the first digit (in reading order) that is not one of the target's."""
    bad: list[tuple[int, str]] = []
    allowed = challenge.allowed_digits
    for numeral in _numerals(tree):
        if allowed.issuperset(numeral.text):  # (one C-level pass: the common case)
            continue
        for offset, digit in enumerate(numeral.text):
            if digit not in allowed:
                bad.append((numeral.pos + offset, digit))
                break
    if bad:
        position, digit = min(bad)
        raise ExpressionError(
            f"the digit {digit} is not allowed: the digits of {challenge.target} are "
            f"{challenge.allowed_text}",
            position=position,
            code="digit_not_allowed",
            params={
                "digit": digit,
                "target": str(challenge.target),
                "allowed": challenge.allowed_text,
            },
        )


def evaluate(
    expression: str | Node, challenge: Challenge | None = None, *, rules: Rules | None = None
) -> Fraction:
    """The exact value of an expression (checking its digits when a challenge is given).

    Every bound of the rules is enforced before the work is done; anything refused is an
    :class:`ExpressionError` naming the position. The value is not compared to the target.
    """
    rules = rules or load_rules()
    tree = parse_expression(expression, rules=rules) if isinstance(expression, str) else expression
    if challenge is not None:
        check_digits(tree, challenge)
    return evaluate_tree(tree, rules.limits).value


# --- simplification -----------------------------------------------------------------------


def _is(node: Node, value: int) -> bool:
    return isinstance(node, Num) and node.value == value


def simplify(tree: Node, evaluation: Evaluation) -> tuple[Node, tuple[str, ...]]:
    """The tree with the spec's null operations removed, and the names of those removed.

    ``x+0``, ``0+x``, ``x-0``, ``-0``, ``x*1``, ``1*x``, ``x/1``, ``x^1`` → x; ``1^x`` → 1;
    ``x/x`` → 1; ``x mod 1`` → 0; ``sqrt(0)``, ``sqrt(1)``, ``1!``, ``2!`` → the numeral;
    ``0!`` → 1; ``sopfr(p)`` → p for a prime p. Bottom-up, so nested ones all go. The
    numerals made here (the 1 of ``x/x``) are marked synthetic: their digits do not count.
    """
    removed: list[str] = []

    def synthetic(text: str, pos: int) -> Num:
        return Num(text, pos, synthetic=True)

    def walk(node: Node) -> Node:
        if isinstance(node, Num):
            return node
        args = tuple(walk(arg) for arg in node.args)
        kind = node.kind
        rule: str | None = None
        result: Node | None = None
        if kind in ("+", "-") and _is(args[1], 0):
            rule, result = f"{kind}0", args[0]
        elif kind == "+" and _is(args[0], 0):
            rule, result = "0+", args[1]
        elif kind == "neg" and _is(args[0], 0):
            rule, result = "-0", args[0]
        elif kind == "*" and _is(args[1], 1):
            rule, result = "*1", args[0]
        elif kind == "*" and _is(args[0], 1):
            rule, result = "1*", args[1]
        elif kind == "/" and _is(args[1], 1):
            rule, result = "/1", args[0]
        elif kind == "/" and to_text(args[0]) == to_text(args[1]):
            rule, result = "x/x", synthetic("1", node.pos)
        elif kind == "^" and _is(args[1], 1):
            rule, result = "^1", args[0]
        elif kind == "^" and _is(args[0], 1):
            rule, result = "1^x", args[0]
        elif kind == "mod" and _is(args[1], 1):
            rule, result = "mod 1", synthetic("0", node.pos)
        elif kind == "sqrt" and (_is(args[0], 0) or _is(args[0], 1)):
            rule, result = f"sqrt({to_text(args[0])})", args[0]
        elif kind == "!" and _is(args[0], 0):
            rule, result = "0!", synthetic("1", node.pos)
        elif kind == "!" and (_is(args[0], 1) or _is(args[0], 2)):
            rule, result = f"{to_text(args[0])}!", args[0]
        elif kind == "sopfr" and id(node) in evaluation.prime_sopfr:
            rule, result = "sopfr(p)", args[0]
        if rule is not None and result is not None:
            removed.append(rule)
            return result
        if all(new is old for new, old in zip(args, node.args, strict=True)):
            return node
        return make(kind, args, node.pos)

    simplified = walk(tree)
    return simplified, tuple(removed)


# --- the breakdown ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Stats:
    """What the fields need from one tree, gathered in one walk."""

    digits: Counter[str]  # the digits written (synthetic numerals excluded)
    kinds: frozenset[str]  # operator kinds, unary minus counted as "-"
    tokens: int  # T: numerals + operators (parentheses are not in the tree)
    elegance: int


def _stats(tree: Node, rules: Rules) -> _Stats:
    """One walk of the tree. Elegance: advanced operators in reading order; each kind
    pays for its first ``max_uses`` occurrences, and never for one with more than
    ``max_same_ancestors`` of its kind around it (``sopfr(sopfr(sopfr(x)))``: v1 does
    not pay the innermost; v2, ``elegance_nesting: chain``, pays none of the three)."""
    written: list[str] = []
    kinds: set[str] = set()
    # (position, kind, same-kind ancestors, index of the nearest same-kind ancestor)
    occurrences: list[tuple[int, str, int, int]] = []
    around: dict[str, int] = {}
    nearest: dict[str, int] = {}
    elegant_kinds = rules.elegance
    tokens = 0
    # one iterative walk; ``None`` then an elegant node marks leaving that node
    stack: list[Node | None] = [tree]
    leaving: list[tuple[str, int, int]] = []  # (kind, depth before, outer) per elegant node
    while stack:
        node = stack.pop()
        if node is None:
            kind, depth, outer = leaving.pop()
            around[kind] = depth
            if outer < 0:
                del nearest[kind]
            else:
                nearest[kind] = outer
            continue
        tokens += 1
        if type(node) is Num:
            if not node.synthetic:
                written.append(node.text)
            continue
        assert isinstance(node, Op)
        kind = node.kind
        kinds.add("-" if kind == "neg" else kind)
        if kind in elegant_kinds:
            outer = nearest.get(kind, -1)
            nearest[kind] = len(occurrences)
            depth = around.get(kind, 0)
            occurrences.append((node.pos, kind, depth, outer))
            around[kind] = depth + 1
            leaving.append((kind, depth, outer))
            stack.append(None)
        stack.extend(reversed(node.args))

    elegance = 0
    if occurrences:
        limit = rules.elegance_max_same_ancestors
        stripped = [ancestors > limit for _, _, ancestors, _ in occurrences]
        if rules.elegance_nesting == "chain":
            for _, _, ancestors, outer in occurrences:
                if ancestors > limit:  # too deep: the whole chain around it pays nothing
                    while outer >= 0 and not stripped[outer]:
                        stripped[outer] = True
                        outer = occurrences[outer][3]
        order = sorted(range(len(occurrences)), key=lambda i: occurrences[i][0])
        uses: dict[str, int] = {}
        for index in order:
            kind = occurrences[index][1]
            count = uses[kind] = uses.get(kind, 0) + 1
            if count <= rules.elegance_max_uses and not stripped[index]:
                elegance += elegant_kinds[kind]
    return _Stats(Counter("".join(written)), frozenset(kinds), tokens, elegance)


@cache
def _multiset(digits: tuple[str, ...]) -> Counter[str]:
    """The target's digit multiset (a challenge's, computed once; not to be mutated)."""
    return Counter(digits)


def _special(tree: Node, target: int, rules: Rules) -> tuple[int, tuple[str, ...]]:
    if not isinstance(tree, Op):
        return 0, ()
    properties = _properties(target)
    for key, kind, holds in (
        ("factorial", "!", properties.factorial),
        ("perfect_power", "^", properties.perfect_power),
        ("prime", "p_n", properties.prime),
    ):
        if holds and tree.kind == kind:
            return rules.special[key], (key,)
    return 0, ()


@dataclass(frozen=True, slots=True)
class _Bonuses:
    elegance: int
    diversity: int
    all_digits: int
    exact_usage: int
    special: int
    special_key: tuple[str, ...]

    @property
    def total(self) -> int:
        return self.elegance + self.diversity + self.all_digits + self.exact_usage + self.special


def _bonuses(tree: Node, stats: _Stats, challenge: Challenge, rules: Rules) -> _Bonuses:
    special, key = _special(tree, challenge.target, rules)
    return _Bonuses(
        elegance=stats.elegance,
        diversity=rules.diversity_per_kind * len(stats.kinds),
        all_digits=rules.all_digits_bonus if challenge.allowed_digits <= stats.digits.keys() else 0,
        exact_usage=rules.exact_usage_bonus if stats.digits == _multiset(challenge.digits) else 0,
        special=special,
        special_key=key,
    )


def _repetition_penalty(extra: int, rules: Rules) -> int:
    if extra <= rules.repetition_mild_excess:
        return -rules.repetition_per_digit * extra
    steep: int = rules.repetition_steep_base**extra
    return -rules.repetition_steep_factor * steep


# --- scoring -----------------------------------------------------------------------------


def _invalid(
    challenge: Challenge,
    rules: Rules,
    expression: str,
    line: int | None,
    error: ExpressionError,
    *,
    value: Fraction | None = None,
    hints: tuple[Hint, ...] = (),
) -> NatoryResult:
    kept = expression[:_KEPT_CHARS] + ("…" if len(expression) > _KEPT_CHARS else "")
    invalid = (InvalidLine(line, shown(kept)),) if line is not None else ()
    return NatoryResult(
        target=challenge.target,
        expression=kept,
        simplified="",
        value=value,
        valid=False,
        error=str(error),
        error_code=error.code,
        error_params=tuple(error.params.items()),
        error_position=error.position,
        breakdown=Breakdown(),
        removed=(),
        tokens=0,
        extra_digits=0,
        line=line,
        invalid_lines=invalid,
        invalid_line_count=len(invalid),
        hints=hints,
        fingerprint=fingerprint_of("invalid", rules.version, challenge.target, plain(kept)),
        scorer_version=rules.version,
    )


def score(
    text: str,
    challenge: Challenge,
    *,
    previous: Iterable[str] | None = None,
    rules: Rules | None = None,
) -> NatoryResult:
    """Score a submission (an expression, possibly with prose around it) for a challenge.

    ``previous``: the simplified expressions already stored for this target (for
    ``uniqueResultBonus``); None offline, which pays no unique bonus. Never raises.
    """
    rules = rules or load_rules()
    found = extract(text, rules.limits)
    if isinstance(found, NotFound):
        return _invalid(challenge, rules, found.expression, found.line, found.error)
    hints: list[Hint] = []
    if plain(found.expression) != plain(text):
        hints.append(
            Hint(
                "natory_extracted",
                f"read the expression on line {found.line}: {shown(found.expression, 120)}",
                (found.line,),
            )
        )
    try:
        check_digits(found.tree, challenge)
        evaluation = evaluate_tree(found.tree, rules.limits)
    except ExpressionError as exc:
        return _invalid(challenge, rules, found.expression, found.line, exc, hints=tuple(hints))
    if evaluation.value != challenge.target:
        error = ExpressionError(
            f"the expression equals {short(evaluation.value)}, not the target {challenge.target}",
            code="not_target",
        )
        return _invalid(
            challenge,
            rules,
            found.expression,
            found.line,
            error,
            value=evaluation.value,
            hints=tuple(hints),
        )
    return _valid(found, challenge, evaluation, previous, rules, hints)


def _valid(
    found: Extracted,
    challenge: Challenge,
    evaluation: Evaluation,
    previous: Iterable[str] | None,
    rules: Rules,
    hints: list[Hint],
) -> NatoryResult:
    tree = found.tree
    if rules.simplification == "by-value":
        simplified_tree, removed = simplify_by_value(tree, evaluation)
    else:
        simplified_tree, removed = simplify(tree, evaluation)
    simplified = to_text(simplified_tree)
    stats = _stats(tree, rules)
    raw = _bonuses(tree, stats, challenge, rules)
    plain = raw
    if simplified_tree is not tree:
        plain = _bonuses(simplified_tree, _stats(simplified_tree, rules), challenge, rules)
    extra = sum((stats.digits - _multiset(challenge.digits)).values())
    tokens = stats.tokens
    over = tokens - rules.complexity_free_tokens
    unique = 0
    if previous is not None and simplified not in set(previous):
        unique = rules.unique_bonus
    fields = {
        "base_score": rules.base_score,
        "elegance_bonus": raw.elegance,
        "operator_diversity_bonus": raw.diversity,
        "all_digits_bonus": raw.all_digits,
        "exact_usage_bonus": raw.exact_usage,
        "repetition_penalty": _repetition_penalty(extra, rules),
        "complexity_penalty": -int(over**rules.complexity_exponent) if over > 0 else 0,
        "trivial_expression_penalty": -max(0, raw.total - plain.total),
        "special_number_bonus": raw.special,
        "unique_result_bonus": unique,
    }
    final = sum(fields.values())
    if removed:
        hints.append(
            Hint(
                "natory_trivial",
                "null operations removed before scoring: " + ", ".join(dict.fromkeys(removed)),
            )
        )
    if isinstance(simplified_tree, Num):
        final = 0
        hints.append(
            Hint(
                "natory_target_itself",
                f"the expression is just the target {challenge.target} written out: it scores 0",
            )
        )
    elif rules.final_floor is not None and final < rules.final_floor:
        final = rules.final_floor
    if extra:
        hints.append(
            Hint(
                "natory_extra_digits",
                f"{extra} digit(s) written beyond the target's digits "
                f"({' '.join(challenge.digits)})",
            )
        )
    breakdown = Breakdown(**fields, final_score=final, special_number_key=raw.special_key)
    return NatoryResult(
        target=challenge.target,
        expression=found.expression,
        simplified=simplified,
        value=evaluation.value,
        valid=True,
        error=None,
        error_position=None,
        breakdown=breakdown,
        removed=removed,
        tokens=tokens,
        extra_digits=extra,
        line=found.line,
        invalid_lines=(),
        invalid_line_count=0,
        hints=tuple(hints),
        fingerprint=fingerprint_of(rules.version, challenge.target, simplified),
        scorer_version=rules.version,
    )


# --- the registry object -------------------------------------------------------------------


def recognises(text: str, *, rules: Rules | None = None) -> bool:
    """Whether ``text`` holds an arithmetic expression (plain or LaTeX) with at least
    one operator: a bare number is not an attempt. Bounded like the extraction (the
    text's last 64 KiB, 40 candidates). Prose spans are not read here: a chat message
    that mentions "5-6 pm" is not a Natory attempt (a tag makes it one)."""
    rules = rules or load_rules()
    found = extract(text, rules.limits, prose=False)
    return isinstance(found, Extracted) and isinstance(found.tree, Op)

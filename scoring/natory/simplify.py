"""natory-v2's simplification: null operations found by value, numeral padding folded.

The game's author describes an engine that "symbolically simplifies" an expression to
find mathematical padding, then scores the simplified expression; the difference is the
``trivialExpressionPenalty``. natory-v1 removed a fixed list of written forms (``+0``,
``*1``, ``x/x`` …) and missed every padding that is not written that way (``6840+0*4``,
``6840-4+4``, ``(6840+4)-4``). natory-v2 works on values (``SPEC-v2.md``, rules S1-S6):

- sums (``+``, ``-``, unary minus) and products (``*``, ``/``) are read as chains of
  signed terms or factors, through parentheses (associativity);
- S1 a term worth 0 / a factor worth 1 is dropped;
- S2 when one term (factor) is worth the whole chain, the others add 0 (multiply by 1)
  and are dropped;
- S3 a term and an opposite term of equal value cancel (``x-x``, ``+4 … -4``); so do a
  factor and an equal divisor (``x/x``, ``*8 … /8``);
- S4 the terms (factors) made only of numerals and ``+ - * /`` are one sub-expression
  (commutativity); when it is worth a digit (a whole number 0-9) it re-creates a digit
  and is folded into that digit, which no one wrote (its digits do not count);
- S5 any other operation worth one of its operands is that operand (``x^1``, ``1^x``,
  ``x mod y`` with ``0 <= x < y``, ``sqrt(1)``, ``2!``, ``sopfr(p)``, ``sopfr(4)``);
  one worth a constant whatever its operand is that constant (``x^0`` → 1,
  ``x mod 1`` → 0, ``0!`` → 1).

Every rule keeps the value, so the simplified tree equals the target too. Each chain is
read once and each rule is a pass over it (S3 with a dictionary), so simplifying is
linear in the size of the tree.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from .evaluator import Evaluation
from .parser import Node, Num, Op, make, to_text

_SUM = ("+", "-", "neg")
_PRODUCT = ("*", "/")
_BASIC = frozenset(("+", "-", "*", "/", "neg"))
_FOLD_SHOWN = 40


@dataclass(slots=True)
class _Term:
    node: Node  # the original term
    sign: int  # +1 / -1 in a sum; +1 (factor) / -1 (divisor) in a product
    new: Node | None = None  # the simplified term (None: not yet walked)
    value: Fraction = Fraction(0)  # the simplified term's value (the original's)
    basic: bool = False  # made only of numerals and + - * / (after simplification)
    dropped: bool = False


def _synthetic(value: int, pos: int) -> Num:
    return Num(str(value), pos, synthetic=True)


def _is_digit(value: Fraction) -> bool:
    return value.denominator == 1 and 0 <= value.numerator <= 9


def _shown(text: str) -> str:
    return text if len(text) <= _FOLD_SHOWN else text[: _FOLD_SHOWN - 1] + "…"


class _Simplifier:
    def __init__(self, evaluation: Evaluation):
        self.values = evaluation.values
        self.prime_sopfr = evaluation.prime_sopfr
        self.removed: list[str] = []

    # -- one node ------------------------------------------------------------------------

    def walk(self, node: Node) -> tuple[Node, Fraction, bool]:
        """The simplified node, its value and whether it is made only of numerals and
        ``+ - * /``."""
        value = self.values[id(node)]
        if isinstance(node, Num):
            return node, value, True
        if node.kind in _SUM:
            return self.chain(node, value, _SUM)
        if node.kind in _PRODUCT:
            return self.chain(node, value, _PRODUCT)
        args = [self.walk(arg) for arg in node.args]
        new_args = tuple(a[0] for a in args)
        kind = node.kind
        # S5: an operation worth one of its operands, or a constant whatever they are
        if kind == "^":
            (base, base_value, _), (_, exponent_value, _) = args
            if value == base_value:
                self.removed.append("^1" if exponent_value == 1 else "1^x")
                return base, value, False
            if exponent_value == 0:
                self.removed.append("x^0")
                return _synthetic(1, node.pos), value, True
        elif kind == "mod":
            (left, left_value, _), (_, right_value, _) = args
            if right_value == 1:
                self.removed.append("mod 1")
                return _synthetic(0, node.pos), value, True
            if value == left_value:
                self.removed.append("x mod y = x")
                return left, value, False
        elif kind == "!" and self.values[id(node.args[0])] == 0:
            self.removed.append("0!")
            return _synthetic(1, node.pos), value, True
        elif kind in ("!", "sqrt", "sopfr") and value == args[0][1]:
            inner = args[0][0]
            self.removed.append(
                "sopfr(p)" if id(node) in self.prime_sopfr else f"{kind}: {to_text(inner)}"
            )
            return inner, value, args[0][2]
        if all(new is old for new, old in zip(new_args, node.args, strict=True)):
            return node, value, False
        return make(kind, new_args, node.pos), value, False

    # -- chains --------------------------------------------------------------------------

    def terms(self, node: Node, sign: int, kinds: tuple[str, ...]) -> Iterator[_Term]:
        """The chain's terms (factors) in reading order, with their signs."""
        stack = [(node, sign)]
        while stack:
            current, current_sign = stack.pop()
            if isinstance(current, Op) and current.kind in kinds:
                if current.kind == "neg":
                    stack.append((current.args[0], -current_sign))
                else:
                    left, right = current.args
                    flip = -1 if current.kind in ("-", "/") else 1
                    stack.append((right, current_sign * flip))
                    stack.append((left, current_sign))
            else:
                yield _Term(current, current_sign)

    def chain(
        self, node: Op, value: Fraction, kinds: tuple[str, ...]
    ) -> tuple[Node, Fraction, bool]:
        product = kinds is _PRODUCT
        unit = Fraction(1) if product else Fraction(0)
        terms = list(self.terms(node, 1, kinds))
        for term in terms:
            term.new, term.value, term.basic = self.walk(term.node)

        def worth(term: _Term) -> Fraction:
            if product:
                return term.value if term.sign > 0 else 1 / term.value
            return term.value * term.sign

        def drop(term: _Term, rule: str) -> None:
            term.dropped = True
            self.removed.append(rule)

        # S1: a term worth 0, a factor worth 1
        for term in terms:
            if term.value == unit:
                drop(term, ("/1" if term.sign < 0 else "*1") if product else "+0")
        live = [t for t in terms if not t.dropped]
        # S2: one term is worth the whole chain, the others add nothing
        if len(live) > 1:
            whole = next((t for t in live if worth(t) == value), None)
            if whole is not None:
                for term in live:
                    if term is not whole:
                        term.dropped = True
                if product:
                    self.removed.append("0*x" if value == 0 else "factors multiplying to 1")
                else:
                    self.removed.append("terms adding up to 0")
                live = [whole]
        # S3: opposite terms of equal value cancel
        if len(live) > 1:
            waiting: dict[tuple[int, Fraction], list[_Term]] = {}
            for term in live:
                opposite = waiting.get((-term.sign, term.value))
                if opposite:
                    drop(opposite.pop(), "x/x" if product else "x-x")
                    term.dropped = True
                else:
                    waiting.setdefault((term.sign, term.value), []).append(term)
            live = [t for t in live if not t.dropped]
        # S4: the numeral-only terms re-create a digit
        folded: Num | None = None
        group = [t for t in live if t.basic]
        if live and len(group) == len(live):  # the whole chain is made of numerals
            alone = len(live) == 1 and isinstance(live[0].new, Num)
            if _is_digit(value) and not alone:
                self.removed.append(f"{_shown(to_text(node))} → {value}")
                return _synthetic(int(value), node.pos), value, True
        elif len(group) > 1 or (group and not isinstance(group[0].new, Num)):
            part = unit
            for term in group:
                part = part * worth(term) if product else part + worth(term)
            if _is_digit(part):
                for term in group:
                    term.dropped = True
                if part == unit:
                    self.removed.append(
                        "factors multiplying to 1" if product else "terms adding up to 0"
                    )
                else:
                    self.removed.append(f"{_shown(self.joined(group, product))} → {part}")
                    folded = _synthetic(int(part), group[0].node.pos)
        changed = any(t.dropped or t.new is not t.node for t in terms)
        if not changed:
            return node, value, False
        by_node = {id(t.node): t for t in terms}
        rebuilt = self.rebuild(node, kinds, by_node)
        if folded is not None:
            joined = "*" if product else "+"
            rebuilt = folded if rebuilt is None else make(joined, (rebuilt, folded), node.pos)
        if rebuilt is None:
            rebuilt = _synthetic(int(unit), node.pos)
        basic = all(t.basic for t in terms if not t.dropped)
        return rebuilt, value, basic

    @staticmethod
    def joined(group: list[_Term], product: bool) -> str:
        """The text of a group of terms (factors), signs included: ``3 + 1``."""
        parts: list[str] = []
        for term in group:
            assert term.new is not None
            text = to_text(term.new)
            if not isinstance(term.new, Num):
                text = f"({text})"
            if product:
                sign = "/" if term.sign < 0 else "*"
                parts.append(f"1 / {text}" if not parts and term.sign < 0 else text)
            else:
                sign = "-" if term.sign < 0 else "+"
                parts.append(f"-{text}" if not parts and term.sign < 0 else text)
            if len(parts) > 1:
                parts[-1] = f"{sign} {parts[-1]}"
        return " ".join(parts)

    def rebuild(self, node: Node, kinds: tuple[str, ...], by_node: dict[int, _Term]) -> Node | None:
        """The chain's structure with each term simplified, the dropped ones left out."""
        term = by_node.get(id(node))
        if term is not None:
            return None if term.dropped else term.new
        assert isinstance(node, Op)
        if node.kind == "neg":
            inner = self.rebuild(node.args[0], kinds, by_node)
            if inner is None:
                return None
            return node if inner is node.args[0] else make("neg", (inner,), node.pos)
        left = self.rebuild(node.args[0], kinds, by_node)
        right = self.rebuild(node.args[1], kinds, by_node)
        if right is None:
            return left
        if left is None:
            if node.kind == "-":
                return make("neg", (right,), node.pos)
            if node.kind == "/":
                return make("/", (_synthetic(1, node.pos), right), node.pos)
            return right
        if left is node.args[0] and right is node.args[1]:
            return node
        return make(node.kind, (left, right), node.pos)


def simplify_by_value(tree: Node, evaluation: Evaluation) -> tuple[Node, tuple[str, ...]]:
    """natory-v2's simplified tree (the same value) and the names of what was removed."""
    simplifier = _Simplifier(evaluation)
    simplified, _, _ = simplifier.walk(tree)
    return simplified, tuple(simplifier.removed)

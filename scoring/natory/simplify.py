"""natory-v2's simplification: null operations found by value, numeral padding folded.

The game's author describes an engine that "symbolically simplifies" an expression to
find mathematical padding, then scores the simplified expression; the difference is the
``trivialExpressionPenalty``. natory-v1 removed a fixed list of written forms (``+0``,
``*1``, ``x/x`` …) and missed every padding that is not written that way (``6840+0*4``,
``6840-4+4``, ``(6840+4)-4``). natory-v2 works on values (``SPEC-v2.md``, rules S1-S5):

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
  ``x mod 1`` → 0, ``0!`` → 1);
- S6 two negations cancel: ``-(-x)`` is ``x``, ``a-(-b)`` is ``a+b`` and ``a+(-b)`` is
  ``a-b``; in a product, negated factors cancel in pairs (``(-3)*(-4)`` is ``3*4``).

Every rule keeps the value, so the simplified tree equals the target too. Each chain is
read once and each rule is a pass over it (S3 with a dictionary), so simplifying is
linear in the size of the tree. Whole values are handled as ints (a Fraction's
arithmetic is Python code, an int's is not), and a chain that no rule can touch is
left as it is after one cheap look: most expressions have no padding.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .evaluator import Evaluation
from .parser import Node, Num, Op, make, to_text

_SUM = ("+", "-", "neg")
_PRODUCT = ("*", "/")
_BASIC = frozenset((*_SUM, *_PRODUCT))
_FOLD_SHOWN = 40

#: A value: an int when whole (most are), else the Fraction.
Value = int | Fraction


@dataclass(slots=True)
class _Term:
    node: Node  # the original term
    sign: int  # +1 / -1 in a sum; +1 (factor) / -1 (divisor) in a product
    new: Node  # the simplified term
    value: Value  # its value (the original's)
    basic: bool  # made only of numerals and + - * / (after simplification)
    dropped: bool = False

    def worth(self, product: bool) -> Value:
        """What the term contributes: +v / -v in a sum, v / 1/v in a product."""
        if self.sign > 0:
            return self.value
        return Fraction(1) / self.value if product else -self.value


def _synthetic(value: int, pos: int) -> Num:
    return Num(str(value), pos, synthetic=True)


def _is_digit(value: Value) -> bool:
    return type(value) is int and 0 <= value <= 9


def _numerals_only(node: Node) -> bool:
    """Whether ``node`` is made only of numerals and ``+ - * /`` (as written)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is not Num:
            assert isinstance(current, Op)
            if current.kind not in _BASIC:
                return False
            stack.extend(current.args)
    return True


def _is_neg(node: Node) -> bool:
    return type(node) is Op and node.kind == "neg"


def _shown(text: str) -> str:
    return text if len(text) <= _FOLD_SHOWN else text[: _FOLD_SHOWN - 1] + "…"


def _whole(value: Fraction) -> Value:
    return value.numerator if value.denominator == 1 else value


class _Simplifier:
    def __init__(self, evaluation: Evaluation):
        self.values = evaluation.values
        self.prime_sopfr = evaluation.prime_sopfr
        self.removed: list[str] = []

    # -- one node ------------------------------------------------------------------------

    def walk(self, node: Node) -> tuple[Node, Value, bool]:
        """The simplified node, its value and whether it is made only of numerals and
        ``+ - * /``."""
        exact = self.values[id(node)]
        if type(node) is Num:
            return node, exact.numerator, True
        assert isinstance(node, Op)
        value: Value = exact.numerator if exact.denominator == 1 else exact
        kind = node.kind
        if kind in _SUM:
            return self.chain(node, value, False)
        if kind in _PRODUCT:
            return self.chain(node, value, True)
        args = [self.walk(arg) for arg in node.args]
        # S5: an operation worth one of its operands, or a constant whatever they are
        if kind == "^":
            (base, base_value, base_basic), (_, exponent_value, _) = args
            if value == base_value:
                self.removed.append("^1" if exponent_value == 1 else f"{_shown(to_text(base))}^x")
                return base, value, base_basic
            if exponent_value == 0:
                self.removed.append("x^0")
                return _synthetic(1, node.pos), value, True
        elif kind == "mod":
            (left, left_value, left_basic), (_, right_value, _) = args
            if right_value == 1:
                self.removed.append("mod 1")
                return _synthetic(0, node.pos), value, True
            if value == left_value:
                self.removed.append("x mod y → x")
                return left, value, left_basic
        elif kind == "!" and args[0][1] == 0:
            self.removed.append("0!")
            return _synthetic(1, node.pos), value, True
        elif kind != "p_n" and value == args[0][1]:  # ! sqrt sopfr worth their operand
            inner = args[0][0]
            text = _shown(to_text(inner))
            if id(node) in self.prime_sopfr:
                self.removed.append("sopfr(p)")
            else:
                self.removed.append(f"{text}!" if kind == "!" else f"{kind}({text})")
            return inner, value, args[0][2]
        if len(args) == 1:
            if args[0][0] is node.args[0]:
                return node, value, False
            return make(kind, (args[0][0],), node.pos), value, False
        left, right = args[0][0], args[1][0]
        if left is node.args[0] and right is node.args[1]:
            return node, value, False
        return make(kind, (left, right), node.pos), value, False

    # -- chains --------------------------------------------------------------------------

    def chain(self, node: Op, value: Value, product: bool) -> tuple[Node, Value, bool]:
        if _is_digit(value) and _numerals_only(node):
            # S4 for the whole chain: numerals re-creating a digit, whatever is inside
            self.removed.append(f"{_shown(to_text(node))} → {value}")
            return _synthetic(int(value), node.pos), value, True
        kinds = _PRODUCT if product else _SUM
        unit = 1 if product else 0
        # the terms in reading order, each simplified
        nodes: list[Node] = []
        signs: list[int] = []
        results: list[tuple[Node, Value, bool]] = []
        walk = self.walk
        negated = False  # a unary minus in the chain (S6 may cancel it)
        stack: list[tuple[Node, int]] = [(node, 1)]
        while stack:
            current, sign = stack.pop()
            if type(current) is Op and current.kind in kinds:
                kind = current.kind
                if kind == "neg":
                    negated = True
                    stack.append((current.args[0], -sign))
                else:
                    left, right = current.args
                    stack.append((right, -sign if kind == "-" or kind == "/" else sign))
                    stack.append((left, sign))
            else:
                nodes.append(current)
                signs.append(sign)
                results.append(walk(current))
        # one cheap look: can any rule touch this chain?
        changed = False
        plain = True  # every term a whole number >= 1, none the unit (S1, S2 impossible)
        basic_terms = 0
        compound_basic = False
        for original, (new, term_value, basic) in zip(nodes, results, strict=True):
            if new is not original:
                changed = True
            if type(term_value) is not int or term_value <= unit or term_value < 1:
                plain = False
            if basic:
                basic_terms += 1
                compound_basic = compound_basic or type(new) is not Num
            negated = negated or (product and _is_neg(new))
        negative = -1 in signs
        everything = basic_terms == len(nodes)
        if everything and _is_digit(value) and not (len(nodes) == 1 and type(nodes[0]) is Num):
            # (the same once simplified: 3^0 + 1 is 1 + 1, then 2)
            self.removed.append(f"{_shown(to_text(node))} → {value}")
            return _synthetic(int(value), node.pos), value, True
        fold = not everything and (basic_terms > 1 or compound_basic)
        if not (changed or fold or negative or negated or not plain):
            return node, value, everything
        terms = [
            _Term(original, sign, new, term_value, basic)
            for original, sign, (new, term_value, basic) in zip(nodes, signs, results, strict=True)
        ]
        return self.rules(node, value, product, terms, negated)

    def rules(
        self, node: Op, value: Value, product: bool, terms: list[_Term], negated: bool
    ) -> tuple[Node, Value, bool]:
        """S1-S4 on a chain's terms, then the chain rebuilt without the dropped ones."""
        unit = 1 if product else 0
        removed = self.removed
        if product and negated:  # S6: negated factors cancel in pairs
            signed = [t for t in terms if _is_neg(t.new)]
            for term in signed[: len(signed) // 2 * 2]:
                assert isinstance(term.new, Op)
                term.new, term.value = term.new.args[0], -term.value
            if len(signed) > 1:
                removed.append("(-x)*(-y)")
        # S1: a term worth 0, a factor worth 1
        for term in terms:
            if term.value == unit:
                term.dropped = True
                removed.append(("/1" if term.sign < 0 else "*1") if product else "+0")
        live = [t for t in terms if not t.dropped]
        # S2: one term is worth the whole chain, the others add nothing
        if len(live) > 1:
            whole = next((t for t in live if t.worth(product) == value), None)
            if whole is not None:
                rest = [t for t in live if t is not whole]
                for term in rest:
                    term.dropped = True
                shown = _shown(self.joined(rest, product))
                if product and value == 0:
                    removed.append(f"0 * {shown}" if len(rest) == 1 else f"0 * ({shown})")
                else:
                    removed.append(f"{shown} → {unit}")
                live = [whole]
        # S3: opposite terms of equal value cancel
        if len(live) > 1:
            waiting: dict[tuple[int, Value], list[_Term]] = {}
            for term in live:
                opposite = waiting.get((-term.sign, term.value))
                if opposite:
                    opposite.pop().dropped = True
                    term.dropped = True
                    removed.append("x/x" if product else "x-x")
                else:
                    waiting.setdefault((term.sign, term.value), []).append(term)
            live = [t for t in live if not t.dropped]
        # S4: the numeral-only terms re-create a digit
        folded: Num | None = None
        group = [t for t in live if t.basic]
        if live and len(group) == len(live):  # the whole chain is made of numerals
            alone = len(live) == 1 and type(live[0].new) is Num
            if not alone and _is_digit(value):
                removed.append(f"{_shown(to_text(node))} → {value}")
                return _synthetic(int(value), node.pos), value, True
        elif len(group) > 1 or (group and type(group[0].new) is not Num):
            part: Value = unit
            for term in group:
                part = part * term.worth(product) if product else part + term.worth(product)
            part = _whole(Fraction(part))
            if _is_digit(part):
                for term in group:
                    term.dropped = True
                shown = _shown(self.joined(group, product))
                removed.append(f"{shown} → {part}")
                if part != unit:
                    folded = _synthetic(int(part), group[0].node.pos)
        basic = all(t.basic for t in terms if not t.dropped)
        if not negated and all(not t.dropped and t.new is t.node for t in terms):
            return node, value, basic  # nothing removed, nothing below changed
        by_node = {id(t.node): t for t in terms}
        kinds = _PRODUCT if product else _SUM
        rebuilt = self.rebuild(node, kinds, by_node)
        if folded is not None:
            joined = "*" if product else "+"
            rebuilt = folded if rebuilt is None else make(joined, (rebuilt, folded), node.pos)
        if rebuilt is None:
            rebuilt = _synthetic(unit, node.pos)
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
            return None if inner is None else self.negated(inner, node)
        left = self.rebuild(node.args[0], kinds, by_node)
        right = self.rebuild(node.args[1], kinds, by_node)
        if right is None:
            return left
        if left is None:
            if node.kind == "-":
                return self.negated(right, node)
            if node.kind == "/":
                return make("/", (_synthetic(1, node.pos), right), node.pos)
            return right
        if node.kind in ("+", "-") and _is_neg(right):  # S6: a-(-b) is a+b, a+(-b) a-b
            assert isinstance(right, Op)
            self.removed.append(f"{node.kind}(-x)")
            return make("+" if node.kind == "-" else "-", (left, right.args[0]), node.pos)
        if left is node.args[0] and right is node.args[1]:
            return node
        return make(node.kind, (left, right), node.pos)

    def negated(self, inner: Node, node: Op) -> Node:
        """``-inner`` (``node`` when that is what it wrote); S6: ``-(-x)`` is ``x``."""
        if _is_neg(inner):
            assert isinstance(inner, Op)
            self.removed.append("-(-x)")
            return inner.args[0]
        if node.kind == "neg" and inner is node.args[0]:
            return node
        return make("neg", (inner,), node.pos)


def simplify_by_value(tree: Node, evaluation: Evaluation) -> tuple[Node, tuple[str, ...]]:
    """natory-v2's simplified tree (the same value) and the names of what was removed."""
    simplifier = _Simplifier(evaluation)
    simplified, _, _ = simplifier.walk(tree)
    return simplified, tuple(simplifier.removed)

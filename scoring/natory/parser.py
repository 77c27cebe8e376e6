"""Reading a Natory expression: plain text and the LaTeX forms models emit.

Two steps. :func:`normalise` rewrites LaTeX and Unicode spellings into the plain
language (``\\times`` → ``*``, ``\\sqrt{x}`` → ``sqrt(x)``, ``\\operatorname{\\mathrm{p_{n}}}``
→ ``p_n``, braces → parentheses …) while keeping, for every character it produces,
the position in the original text it came from. :func:`parse` then reads the plain
language with a precedence-climbing parser, so every error names a position in the
text the user wrote.

The plain language (precedence from loose to tight):

    expr    := term (("+" | "-") term)*
    term    := unary (("*" | "/" | "mod") unary)*
    unary   := "-" unary | power
    power   := postfix ("^" unary)?            right-associative: 2^3^2 = 2^(3^2)
    postfix := atom "!"*
    atom    := NUMERAL | "(" expr ")" | FUNC atom | "frac" atom atom
    FUNC    := "sqrt" | "p_n" | "sopfr"

A function applies to the atom that follows it, so ``sopfr(6)^5`` is ``(sopfr 6)^5`` and
``sqrt(9)!`` is ``(sqrt 9)!``; ``-3^2`` is ``-(3^2)``. There is no implicit
multiplication: ``2(3+4)`` is refused with a message saying so.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..errors import ExpressionError

# --- the tree --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Num:
    """A numeral as written (``text`` keeps leading zeros: every digit counts)."""

    text: str
    pos: int
    #: made by simplification (``x mod 1`` → 0), not written: its digits do not count
    synthetic: bool = False
    depth: int = 1

    @property
    def value(self) -> int:
        return int(self.text)


@dataclass(frozen=True, slots=True)
class Op:
    """An operator application. ``kind`` is one of :data:`KINDS`; ``pos`` is the
    operator's position (the function name's, for functions)."""

    kind: str
    args: tuple[Node, ...]
    pos: int
    depth: int = 1


Node = Num | Op

BINARY = ("+", "-", "*", "/", "^", "mod")
UNARY = ("neg", "!", "sqrt", "p_n", "sopfr")
KINDS = BINARY + UNARY
FUNCTIONS = ("sqrt", "p_n", "sopfr")


def make(kind: str, args: tuple[Node, ...], pos: int) -> Op:
    return Op(kind, args, pos, 1 + max(a.depth for a in args))


# --- normalisation (LaTeX and Unicode → the plain language, positions kept) -------------

_Mapped = tuple[str, list[int]]

#: ``\command`` → plain text (``None``: dropped). Longest names first in the regex.
_COMMANDS: dict[str, str | None] = {
    "times": "*",
    "cdot": "*",
    "ast": "*",
    "div": "/",
    "bmod": " mod ",
    "mod": " mod ",
    "sqrt": " sqrt",
    "frac": " frac",
    "dfrac": " frac",
    "tfrac": " frac",
    "left": None,
    "right": None,
    "bigl": None,
    "bigr": None,
    "Bigl": None,
    "Bigr": None,
    "big": None,
    "Big": None,
    "displaystyle": None,
    "textstyle": None,
    "quad": " ",
    "qquad": " ",
}
#: Wrappers whose braces are dropped: ``\operatorname{sopfr}`` → ``sopfr``.
_WRAPPERS = (
    "operatorname*",
    "operatorname",
    "mathrm",
    "text",
    "textrm",
    "textnormal",
    "mathit",
    "mathbf",
    "boldsymbol",
    "boxed",
    "rm",
)
_WRAPPER_RE = re.compile(r"\\(?:" + "|".join(re.escape(w) for w in _WRAPPERS) + r")\s*\{([^{}]*)\}")
_PN_RE = re.compile(r"\b[pP]\s*_\s*(?:\{\s*[nN]\s*\}|[nN])")
_COMMAND_RE = re.compile(r"\\([A-Za-z]+)")
_ESCAPED_RE = re.compile(r"\\[,;:! {}()\[\]]|~")
#: ``\(`` ``\)`` ``\[`` ``\]`` are math delimiters left in a line: spaces.
_ESCAPED = {",": " ", ";": " ", ":": " ", "!": " ", " ": " ", "{": "(", "}": ")", "~": " "}
_ESCAPED.update({"(": " ", ")": " ", "[": " ", "]": " "})
_NTH_ROOT_RE = re.compile(r"\\sqrt\s*\[")
_CHARS = {
    "×": "*",
    "·": "*",
    "⋅": "*",
    "∗": "*",
    "÷": "/",
    "∕": "/",
    "−": "-",
    "–": "-",
    "√": " sqrt",
    "[": "(",
    "]": ")",
    "{": "(",
    "}": ")",
    "\u00a0": " ",
    "$": " ",
    # Persian (U+06F0-U+06F9) and Arabic-Indic (U+0660-U+0669) digits are read as 0-9
    **{chr(0x06F0 + d): str(d) for d in range(10)},
    **{chr(0x0660 + d): str(d) for d in range(10)},
}


_CHAR_KEYS = frozenset(_CHARS)


def _sub(
    pattern: re.Pattern[str], mapped: _Mapped, replace: Callable[[re.Match[str]], _Mapped]
) -> _Mapped:
    """``re.sub`` that carries the position map along."""
    text, where = mapped
    out: list[str] = []
    out_where: list[int] = []
    last = 0
    for match in pattern.finditer(text):
        out.append(text[last : match.start()])
        out_where.extend(where[last : match.start()])
        piece, piece_where = replace(match)
        out.append(piece)
        out_where.extend(piece_where)
        last = match.end()
    if not out:
        return mapped
    out.append(text[last:])
    out_where.extend(where[last:])
    return "".join(out), out_where


def normalise(expression: str) -> _Mapped:
    """The plain-language text and, per character, its position in ``expression``."""
    mapped: _Mapped = (expression, list(range(len(expression))))

    def literal(value: str) -> Callable[[re.Match[str]], _Mapped]:
        def replace(match: re.Match[str]) -> _Mapped:
            return value, [mapped_where(match.start())] * len(value)

        return replace

    def mapped_where(index: int) -> int:
        return current[1][index]

    def escaped(match: re.Match[str]) -> _Mapped:
        value = _ESCAPED[match[0][-1]]
        return value, [mapped_where(match.start())] * len(value)

    def keep_group(match: re.Match[str]) -> _Mapped:
        start, end = match.span(1)
        return current[0][start:end], current[1][start:end]

    def unwrap_braces_after_pn(match: re.Match[str]) -> _Mapped:
        return "p_n", [mapped_where(match.start())] * 3

    current = mapped
    # every LaTeX form has a backslash, p_{n} an underscore: plain text skips the passes
    latex = "\\" in expression
    if latex or "~" in expression:
        current = _sub(_ESCAPED_RE, current, escaped)
    nth_root = _NTH_ROOT_RE.search(current[0]) if latex else None
    if nth_root is not None:
        raise ExpressionError(
            "n-th roots (\\sqrt[n]{...}) are not supported",
            position=current[1][nth_root.start()],
            code="nth_root",
        )
    # Unwrap \operatorname{\mathrm{p_{n}}} from the inside out (bounded: text <= limit).
    while latex or "_" in current[0]:
        before = current[0]
        current = _sub(_PN_RE, current, unwrap_braces_after_pn)
        current = _sub(_WRAPPER_RE, current, keep_group)
        if current[0] == before:
            break

    def command(match: re.Match[str]) -> _Mapped:
        name = match[1]
        if name not in _COMMANDS:
            raise ExpressionError(
                f"unsupported LaTeX command \\{name}",
                position=mapped_where(match.start()),
                code="latex_command",
                params={"name": "\\" + name},
            )
        value = _COMMANDS[name] or ""
        return value, [mapped_where(match.start())] * len(value)

    if latex:
        current = _sub(_COMMAND_RE, current, command)
    if not _CHAR_KEYS.isdisjoint(current[0]) or "\\" in current[0]:
        text, where = current
        chars: list[str] = []
        chars_where: list[int] = []
        for c, w in zip(text, where, strict=True):
            if c == "\\":
                raise ExpressionError("unexpected backslash", position=w, code="backslash")
            value = _CHARS.get(c, c)
            chars.append(value)
            chars_where.extend([w] * len(value))
        current = ("".join(chars), chars_where)
    return current


# --- tokens ------------------------------------------------------------------------------

_TOKEN_RE = re.compile(r"\s*(?:(?P<num>[0-9]+)|(?P<name>[A-Za-z_]+)|(?P<op>\*\*|[-+*/^!()%]))")
_NAMES = {
    "sqrt": "sqrt",
    "p_n": "p_n",
    "sopfr": "sopfr",
    "mod": "mod",
    "frac": "frac",
}


class _Token(NamedTuple):
    kind: str  # "num", "name" (value: canonical name), "op" (value: the operator), "end"
    value: str
    pos: int


def _unreadable(text: str, where: list[int], index: int) -> ExpressionError:
    """The refusal of the first character at or after ``index`` (spaces skipped) that
    starts no token."""
    while text[index].isspace():
        index += 1
    char = text[index]
    if char in "⁰¹²³⁴⁵⁶⁷⁸⁹":
        message, code = (
            "superscript digits are not read: write ^ for a power",
            "superscript",
        )
    elif char.isdigit():
        message, code = (
            f"only the digits 0-9 (or Persian or Arabic-Indic digits) are read, not {char!r}",
            "not_ascii",
        )
    elif char in "=,.":
        message, code = f"unexpected {char!r}: write one expression only", "one_only"
    else:
        message, code = f"unexpected character {char!r}", "unexpected_char"
    return ExpressionError(message, position=where[index], code=code, params={"char": repr(char)})


def _tokens(text: str, where: list[int], end_pos: int) -> list[_Token]:
    tokens: list[_Token] = []
    append = tokens.append
    index = 0
    for match in _TOKEN_RE.finditer(text):
        if match.start() != index:  # something between two tokens that is no token
            raise _unreadable(text, where, index)
        group = match.lastgroup
        assert group is not None
        start = match.start(group)
        value = match[group]
        if group == "name":
            canonical = _NAMES.get(value.lower())
            if canonical is None:
                raise ExpressionError(
                    f"unknown name {value!r}",
                    position=where[start],
                    code="unknown_name",
                    params={"name": repr(value)},
                )
            value = canonical
        elif group == "op":
            value = {"**": "^", "%": "mod"}.get(value, value)
            if value == "mod":
                group = "name"
        append(_Token(group, value, where[start]))
        index = match.end()
    if index < len(text) and not text[index:].isspace():
        raise _unreadable(text, where, index)
    append(_Token("end", "", end_pos))
    return tokens


def _describe(token: _Token) -> str:
    if token.kind == "end":
        return "the end of the expression"
    return repr(token.value)


def _found(code: str, token: _Token, **params: str) -> dict[str, Any]:
    """An error's code and values for what was found: the end, or a token."""
    if token.kind == "end":
        return {"code": code + "_end", "params": params}
    return {"code": code, "params": {**params, "found": repr(token.value)}}


# --- the parser ----------------------------------------------------------------------------


class _Parser:
    def __init__(self, tokens: list[_Token], max_depth: int, max_nesting: int):
        self.tokens = tokens
        self.index = 0
        self.max_depth = max_depth
        self.max_nesting = max_nesting
        self.level = 0

    def peek(self) -> _Token:
        return self.tokens[self.index]

    def take(self) -> _Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def enter(self, token: _Token) -> None:
        self.level += 1
        if self.level > self.max_nesting:
            raise ExpressionError(
                f"the expression is nested more than {self.max_nesting} levels deep "
                "(parentheses, functions, powers or signs inside one another)",
                position=token.pos,
                code="too_nested",
                params={"limit": str(self.max_nesting)},
            )

    def node(self, kind: str, args: tuple[Node, ...], pos: int) -> Op:
        op = make(kind, args, pos)
        if op.depth > self.max_depth:
            raise ExpressionError(
                f"the expression is nested or chained more than {self.max_depth} levels deep",
                position=pos,
                code="too_deep",
                params={"limit": str(self.max_depth)},
            )
        return op

    def expression(self) -> Node:
        left = self.term()
        while (token := self.peek()).kind == "op" and token.value in "+-":
            self.take()
            left = self.node(token.value, (left, self.term()), token.pos)
        return left

    def term(self) -> Node:
        left = self.unary()
        while True:
            token = self.peek()
            if token.kind == "op" and token.value in ("*", "/"):
                kind = token.value
            elif token.kind == "name" and token.value == "mod":
                kind = "mod"
            else:
                return left
            self.take()
            left = self.node(kind, (left, self.unary()), token.pos)

    def unary(self) -> Node:
        token = self.peek()
        if token.kind == "op" and token.value == "-":
            self.take()
            self.enter(token)
            operand = self.unary()
            self.level -= 1
            return self.node("neg", (operand,), token.pos)
        return self.power()

    def power(self) -> Node:
        base = self.postfix()
        token = self.peek()
        if token.kind == "op" and token.value == "^":
            self.take()
            self.enter(token)
            exponent = self.unary()
            self.level -= 1
            return self.node("^", (base, exponent), token.pos)
        return base

    def postfix(self) -> Node:
        node = self.atom()
        while (token := self.peek()).kind == "op" and token.value == "!":
            self.take()
            node = self.node("!", (node,), token.pos)
        return node

    def atom(self) -> Node:
        token = self.take()
        if token.kind == "num":
            return Num(token.value, token.pos)
        if token.kind == "op" and token.value == "(":
            self.enter(token)
            inner = self.expression()
            self.level -= 1
            closing = self.take()
            if not (closing.kind == "op" and closing.value == ")"):
                raise ExpressionError(
                    f"expected ')' to close the '(' at position {token.pos + 1}, "
                    f"found {_describe(closing)}",
                    position=closing.pos,
                    **_found("unclosed", closing, open=str(token.pos + 1)),
                )
            return inner
        if token.kind == "name" and token.value in FUNCTIONS:
            self.enter(token)
            argument = self.atom()
            self.level -= 1
            return self.node(token.value, (argument,), token.pos)
        if token.kind == "name" and token.value == "frac":
            self.enter(token)
            numerator = self.atom()
            denominator = self.atom()
            self.level -= 1
            return self.node("/", (numerator, denominator), token.pos)
        if token.kind == "end":
            raise ExpressionError(
                "the expression ends too early", position=token.pos, code="ends_early"
            )
        raise ExpressionError(
            f"unexpected {_describe(token)}", position=token.pos, **_found("unexpected", token)
        )


def parse(
    expression: str, *, max_length: int = 1000, max_depth: int = 250, max_nesting: int = 50
) -> Node:
    """The tree of one expression, or :class:`ExpressionError` naming the position.

    The length is checked before anything else, and nesting is counted as it is read,
    so no input can exhaust the stack: parentheses, functions, powers and signs may nest
    ``max_nesting`` levels (each costs a few Python frames while reading), and the tree
    may be ``max_depth`` deep (chains such as 1+1+…+1 are read without recursion).
    """
    if len(expression) > max_length:
        raise ExpressionError(
            f"the expression is {len(expression):,} characters long; the limit is {max_length:,}",
            code="too_long",
            params={"length": f"{len(expression):,}", "limit": f"{max_length:,}"},
        )
    text, where = normalise(expression)
    tokens = _tokens(text, where, len(expression))
    if len(tokens) == 1:
        raise ExpressionError(
            "there is no expression", position=0 if expression else None, code="empty"
        )
    parser = _Parser(tokens, max_depth, max_nesting)
    tree = parser.expression()
    token = parser.peek()
    if token.kind != "end":
        if token.kind == "op" and token.value == ")":
            raise ExpressionError(
                "a ')' without a matching '('", position=token.pos, code="unmatched_close"
            )
        if token.kind in ("num", "name") or (token.kind == "op" and token.value == "("):
            raise ExpressionError(
                f"missing an operator before {_describe(token)} (write * to multiply)",
                position=token.pos,
                code="missing_operator",
                params={"found": _describe(token)},
            )
        raise ExpressionError(
            f"unexpected {_describe(token)}", position=token.pos, **_found("unexpected", token)
        )
    return tree


# --- printing ---------------------------------------------------------------------------

_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "mod": 2, "neg": 3, "^": 4, "!": 5}
_ATOM = 6


def _precedence(node: Node) -> int:
    if isinstance(node, Num):
        return _ATOM
    return _PRECEDENCE.get(node.kind, _ATOM)


def to_text(node: Node) -> str:
    """The canonical plain text of a tree: minimal parentheses, ``parse`` reads it back
    to the same tree. Used for the simplified expression and the fingerprint."""
    if isinstance(node, Num):
        return node.text
    kind, args = node.kind, node.args
    if kind in FUNCTIONS:
        return f"{kind}({to_text(args[0])})"
    if kind == "neg":
        inner = to_text(args[0])
        return "-" + (f"({inner})" if _precedence(args[0]) < 3 else inner)
    if kind == "!":
        inner = to_text(args[0])
        return (f"({inner})" if _precedence(args[0]) < 5 else inner) + "!"
    left, right = args
    mine = _PRECEDENCE[kind]
    if kind == "^":
        left_text = to_text(left)
        if _precedence(left) <= mine:
            left_text = f"({left_text})"
        right_text = to_text(right)
        if _precedence(right) < 3:
            right_text = f"({right_text})"
        return f"{left_text}^{right_text}"
    left_text = to_text(left)
    if _precedence(left) < mine:
        left_text = f"({left_text})"
    right_text = to_text(right)
    if _precedence(right) <= mine:
        right_text = f"({right_text})"
    return f"{left_text} {kind} {right_text}"

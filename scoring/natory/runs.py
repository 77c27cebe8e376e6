"""Natory run against a model: the target with its digits and rules, in a fixed,
versioned instruction; the answer read back as a pasted attempt at that target."""

from __future__ import annotations

from ..runs import TARGET_MISSING, Call, Message, RunMaterials, RunPlan, RunRefused
from .scorer import Challenge

#: The version of :data:`INSTRUCTION`: a stored run names the text it was sent.
RUN_VERSION = "natory-run-1"

#: What a run sends, with ``{target}``, ``{allowed}`` and ``{digits}`` filled in. The
#: rules are the game's as this project scores them (the spec's natory-v2): change the
#: text only together with RUN_VERSION.
INSTRUCTION = """\
Natory: write one arithmetic expression whose value is exactly {target}.

Rules:
- Numerals may use only the digits of the target: {allowed}. Digits may be joined into \
numerals (for 126: 21*6). The target's digits, with repetition, are {digits}; using each \
exactly that many times earns the most.
- Operators: + - * / ^ (power), sqrt(x), x mod y, x! (factorial), p_n(k) (the k-th prime: \
p_n(1) = 2), sopfr(n) (the sum of the prime factors of n with repetition), and parentheses.
- The score rewards elegance: advanced operators, many kinds of operator, every allowed \
digit used, the exact digits of the target. Operations that change nothing (+0, *1, ^1, \
x/x, x-x) are removed before scoring; an expression that is the target itself scores 0; \
long expressions (more than 15 numerals and operators) are penalised.

Answer with the expression alone on the last line."""


def run_plan(materials: RunMaterials) -> RunPlan:
    """One call: the instruction for the challenge in ``materials.key``."""
    challenge = materials.key
    if not isinstance(challenge, Challenge):
        raise RunRefused("a Natory run needs a target", code=TARGET_MISSING)
    text = INSTRUCTION.format(
        target=challenge.target,
        allowed=", ".join(sorted(challenge.allowed_digits)),
        digits=" ".join(challenge.digits),
    )
    return RunPlan(RUN_VERSION, (Call((Message("user", (text,)),)),), {"target": challenge.target})

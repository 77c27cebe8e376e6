"""Why a Natory expression is not valid, in Persian: every reason the scorer can give
has a Persian text that uses exactly the values the scorer gives with it."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from bot.render.fields import reason_text
from bot.render.i18n import catalogue, translated
from scoring import Result, registry
from scoring.base import Note, Reason


def natory_reason(lang: str, result: Result) -> str:
    """Why the result is not valid, as its card says it."""
    (reason,) = [
        value
        for line in result.card().prose
        if isinstance(line, Note)
        for _, value in line.values
        if isinstance(value, Reason)
    ]
    return reason_text(lang, registry.get("natory"), reason)


NUMBER = re.compile(r"-?[0-9][0-9,]*")
NATORY = Path(__file__).resolve().parents[3] / "scoring" / "natory"

#: An expression that gives each reason, for the target 8987 (digits 7, 8, 9).
CASES = {
    "nth_root": r"\sqrt[3]{8}",
    "latex_command": r"\foo{9}",
    "superscript": "9⁸",
    "not_ascii": "९+8",  # Devanagari (Persian and Arabic-Indic digits are read)
    "one_only": "9,8",
    "unexpected_char": "9 @ 8",
    "unknown_name": "foo(9)",
    "too_nested": "(" * 60 + "9" + ")" * 60,
    "too_deep": "+".join(["9"] * 300),
    "unclosed": "(9+8 9",
    "unclosed_end": "(9+8",
    "ends_early": "9+",
    "unexpected": "9+*8",
    "too_long": "9+" * 600 + "9",
    "unmatched_close": "9+8)",
    "missing_operator": "9 8",
    "not_whole": "(9/8)!",
    "division_by_zero": "9/(8-8)",
    "mod_by_zero": "9 mod (8-8)",
    "factorial_negative": "(7-8)!",
    "factorial_limit": "9999!",
    "pn_positive": "p_n(8-8)",
    "pn_limit": "p_n(99999999)",
    "zero_to_zero": "(8-8)^(8-8)",
    "zero_negative_power": "(8-8)^(7-8)",
    "power_too_big": "9^99999",
    "negative_root": "(7-8)^(7/8)",
    "irrational_power": "8^(7/9)",
    "sqrt_negative": "sqrt(7-8)",
    "sqrt_irrational": "sqrt(7)",
    "sopfr_positive": "sopfr(8-8)",
    "sopfr_budget": "sopfr(9^99+8)",
    "digit_not_allowed": "1+2",
}
#: Reasons that need another target's digits: (expression, target).
OTHER_TARGETS = {"too_many_bits": ("(9^3000)*(9^3000)", b"9300")}


def _codes_in_the_scorer() -> set[str]:
    """Every reason code written in the scorer's source: ``code="…"`` arguments and
    ``message, code = "…", "…"``,
    ``self.fail(message, node, "…")`` and ``_found("…", token)`` (which adds ``_end``)."""
    codes: set[str] = set()
    for path in NATORY.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple):
                # message, code = "…", "…"
                for target in node.targets:
                    names = [getattr(e, "id", None) for e in getattr(target, "elts", ())]
                    if "code" in names:
                        codes.add(node.value.elts[names.index("code")].value)  # type: ignore[attr-defined]
            if not isinstance(node, ast.Call):
                continue
            if getattr(node.func, "id", None) == "RunRefused":
                continue  # why a run cannot start: not a reason an expression is invalid
            for kw in node.keywords:
                if kw.arg == "code" and isinstance(kw.value, ast.Constant):
                    codes.add(kw.value.value)
            name = getattr(node.func, "attr", getattr(node.func, "id", None))
            if name == "fail" and len(node.args) >= 3 and isinstance(node.args[2], ast.Constant):
                codes.add(node.args[2].value)
            if name == "_found" and isinstance(node.args[0], ast.Constant):
                codes |= {node.args[0].value, node.args[0].value + "_end"}
            if name == "ExpressionError" and isinstance(node.func, ast.Name):
                kws = {kw.arg for kw in node.keywords}
                assert "code" in kws or None in kws, f"{path.name}:{node.lineno} has no code"
    return codes - {"other"}


def test_every_reason_in_the_scorer_has_a_persian_text() -> None:
    codes = _codes_in_the_scorer()
    assert len(codes) > 30  # the scan found them at all
    declared = registry.get("natory").reason_messages
    assert not sorted(codes - declared.keys()), "reasons the benchmark does not declare"
    missing = sorted(c for c in codes if not translated("fa", declared[c]))
    assert not missing, f"reasons without a Persian text (bot/render/locale/fa): {missing}"


@pytest.mark.parametrize("code", sorted([*CASES, *OTHER_TARGETS]))
def test_each_reason_reads_in_persian_with_the_scorers_values(code: str) -> None:
    natory = registry.get("natory")
    expression, target = OTHER_TARGETS.get(code, (CASES.get(code, ""), b"8987"))
    result = natory.score(expression, natory.load_key(target))
    assert result.error_code == code
    text = natory_reason("fa", result)
    assert text != result.error  # not the English fallback
    template = catalogue("fa").gettext(f"natory_error_{code}")
    fields: set[str] = set()
    if result.error_params:
        fields = {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}
        assert fields <= dict(result.error_params).keys()
    else:
        assert text.startswith(template)  # no values: the text as written, braces and all
    for name, value in result.error_params:
        if name in fields and not NUMBER.fullmatch(value) and "-bit" not in value:
            if name == "allowed":  # the target's digits: a list of numbers in prose
                continue
            assert value in text  # quoted input stays as typed
    if result.error_position is not None:
        assert "در جایگاه" in text  # where it is, in Persian
    assert natory_reason("en", result) == result.error


def test_numbers_in_the_reason_are_written_in_persian() -> None:
    natory = registry.get("natory")
    result = natory.score("9+" * 600 + "9", natory.load_key(b"8987"))
    assert natory_reason("fa", result) == "عبارت ۱٬۲۰۱ نویسه است؛ حداکثر ۱٬۰۰۰"
    result = natory.score("sopfr(9^99+8)", natory.load_key(b"8987"))
    assert "عددی ۳۱۴ بیتی" in natory_reason("fa", result)


def test_the_corpus_covers_every_reason() -> None:
    # not_target is shown with the value it equals (natory_not_target), "empty" never
    # reaches the card (such a message is not a submission); a numeral over the bit
    # limit is longer than the length limit, and the other two are caught first
    assert {*CASES, *OTHER_TARGETS} == _codes_in_the_scorer() - {
        "numeral_too_big",
        "not_target",
        "empty",
        "backslash",
        "unexpected_end",
    }

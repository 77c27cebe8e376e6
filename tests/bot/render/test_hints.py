"""Hints in Persian: every hint a scorer can give has a Persian text, which uses only
the values the scorer gives with it; two benchmarks' same code keeps its own advice."""

from __future__ import annotations

import ast
import json
import string
from pathlib import Path

from bot.render.format import hint_text, render_result
from bot.render.i18n import catalogue, translated
from scoring import registry
from scoring import zerobench as zb
from scoring.primebench.hints import _HINT_PATTERNS
from scoring.zerobench.hints import _HINT_ORDER

SCORING = Path(__file__).resolve().parents[3] / "scoring"


def _literal_codes(package: str) -> set[str]:
    """Codes written as the first argument of ``Hint("…", …)`` in a scoring package."""
    codes: set[str] = set()
    for path in (SCORING / package).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "Hint"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                codes.add(node.args[0].value)
    return codes


def _hint_makers() -> set[str]:
    """The modules that make hints from a code held in a variable (not a literal)."""
    found = set()
    for path in SCORING.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "Hint"
                and node.args
                and not isinstance(node.args[0], ast.Constant)
            ):
                found.add(str(path.relative_to(SCORING)))
    return found


def test_every_hint_code_has_a_persian_text() -> None:
    # hints are made from literal codes, or from these tables (and rebuilt from records)
    assert _hint_makers() == {
        "primebench/hints.py",
        "zerobench/hints.py",
        "primebench/result.py",
        "natory/result.py",
        "zerobench/result.py",
    }
    codes = {
        "primebench": {code for code, _, _ in _HINT_PATTERNS} | _literal_codes("primebench"),
        "zerobench": set(_HINT_ORDER) | _literal_codes("zerobench"),
        "natory": _literal_codes("natory"),
    }
    assert all(codes.values())
    missing = [
        f"{bench}: {code}"
        for bench, found in codes.items()
        for code in sorted(found)
        if not (translated("fa", f"hint_{bench}_{code}") or translated("fa", f"hint_{code}"))
    ]
    assert not missing, f"hints without a Persian text (bot/render/locale/fa): {missing}"


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}


def test_zerobench_hints_in_persian_use_the_scorers_values() -> None:
    key = zb.load_key(
        json.dumps(
            {zb.MAIN_SPLIT: {"a": "42", "b": "7", "c": "11.90", "d": "5"}, zb.SUB_SPLIT: {}}
        ).encode()
    )
    records = [
        {"question_id": "a", "response": "so {42.}"},  # trailing period
        {"question_id": "a", "response": "{42}"},
        {"question_id": "b", "response": "7"},  # no braces
        {"question_id": "b", "response": "{ 7 }"},  # spaces
        {"question_id": "c", "response": "{11.9}"},  # number format
        {"question_id": "c", "response": "{11.90}"},
        {"question_id": "d", "response": "{5}"},  # one attempt of two
    ]
    text = "".join(json.dumps(r) + "\n" for r in records)
    result = zb.score(text, key, k=2)
    codes = {h.code for h in result.hints}
    assert {"trailing_period", "no_braces", "spaces_in_braces", "fewer_than_k"} <= codes
    benchmark = registry.get("zerobench")
    for hint in result.hints:
        persian = hint_text("fa", hint, benchmark=benchmark)
        assert persian != hint.message, hint.code
        template = catalogue("fa").gettext(f"hint_zerobench_{hint.code}")
        assert _fields(template) <= {"lines", *dict(hint.params)}, hint.code
    by_code = {h.code: h for h in result.hints}
    # ZeroBench's trailing period is its own advice, not PrimeBench's "write 1:3"
    trailing = hint_text("fa", by_code["trailing_period"], benchmark=zb.BENCHMARK)
    assert "1:3" not in trailing and "42." in trailing and "خط ۱" in trailing
    assert "۱ سؤال با کمتر از ۲ تلاش (d)" in hint_text(
        "fa", by_code["fewer_than_k"], benchmark=zb.BENCHMARK
    )
    # the record keeps what the Persian text needs
    again = benchmark.result_from_record(result.to_record())
    assert [hint_text("fa", h, benchmark=zb.BENCHMARK) for h in again.hints] == [
        hint_text("fa", h, benchmark=zb.BENCHMARK) for h in result.hints
    ]
    card = render_result(again, benchmark, lang="fa", html_mode=True)
    assert trailing.replace("<", "&lt;") in card or trailing in card
    assert hint_text("en", by_code["trailing_period"], benchmark=zb.BENCHMARK) == (
        by_code["trailing_period"].message
    )

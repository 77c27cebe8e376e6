"""Reading what models write (every version): an expression in prose, in bold or LaTeX,
in Persian or Arabic-Indic digits; and every refusal names the place."""

from __future__ import annotations

import pytest

from scoring import registry
from scoring.natory import Challenge, parse_expression, score, to_text
from scoring.natory.extract import last_span, math_blocks

C6840 = Challenge.for_target(6840)
C13 = Challenge.for_target(13)


@pytest.mark.parametrize(
    "text",
    [
        "After some thought, the answer is (6+4)*684 = 6840.",
        "(6+4)*684",
        "**(6+4)*684**",
        "The answer is **(6+4) × 684 = 6840**.",
        "**Answer:** 6840 = (6+4)*684",
        "So $(6+4) \\times 684$ works.",
        "I get \\((6+4) \\cdot 684\\).",
        "Therefore\n$$\n(6+4) \\times 684 = 6840\n$$\nDone.",
        "(I checked it twice: (6+4)*684 = 6840).",
        "Hence `(6+4)*684`, which is 6840, I think.",
        "(۶+۴)×۶۸۴",
        "(۶+۴)×۶۸۴ = ۶۸۴۰",
        "(٦+٤)×٦٨٤",
        "پاسخ: (۶+۴)×۶۸۴",
        "الجواب هو (٦+٤)÷١×٦٨٤",
    ],
)
def test_the_expression_is_read_from_what_models_write(text: str) -> None:
    result = score(text, C6840)
    if "١" in text:  # the digit 1 is not one of 6840's: read, then refused by digit
        assert result.error_code == "digit_not_allowed"
        return
    assert result.valid, result.error
    assert result.simplified == "(6 + 4) * 684"


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("(۶+۴)×۶۸۴", "(6 + 4) * 684"),
        ("(٦+٤)÷٦٨٤", "(6 + 4) / 684"),
        ("۲^{۱+۱}", "2^(1 + 1)"),
        (r"3^{1+1} \div 3", "3^(1 + 1) / 3"),
        (r"\(3 \cdot 4\)", "3 * 4"),
    ],
)
def test_persian_and_arabic_indic_digits_and_latex_parse(text: str, canonical: str) -> None:
    assert to_text(parse_expression(text)) == canonical


def test_the_last_expression_like_span_of_a_line_is_read() -> None:
    assert last_span("After some thought, the answer is (6+4)*684 = 6840.") == "(6+4)*684 = 6840"
    # a bare number is not expression-like: the span before it is read
    assert last_span("so 3^(1+1)+(3+1) gives 13.") == "3^(1+1)+(3+1)"
    assert last_span("no expression here, only 13.") is None
    # unmatched parentheses at its ends are left out
    assert last_span("(we check: 10*684 = 6840).") == "10*684 = 6840"


def test_the_last_line_with_an_expression_wins() -> None:
    text = "First I tried 3*3+3 = 12.\nThen the answer is 3^(1+1)+(3+1).\nThat gives 13."
    result = score(text, C13)
    assert result.valid and result.line == 2
    assert result.expression == "3^(1+1)+(3+1)"


def test_math_blocks_are_found_in_order() -> None:
    text = "a $1+1$ b $$2+2$$ c \\(3+3\\) d \\[4+4\\] e $5\n+5$"
    assert [inner for _, inner in math_blocks(text)] == ["1+1", "2+2", "3+3", "4+4"]


@pytest.mark.parametrize(
    ("text", "code", "place"),
    [
        ("After some thought, I give up.", "unknown_name", 0),
        ("the answer is 2(6+4)*684", "missing_operator", 1),
        ("the answer is (6+4)*684 + 7", "digit_not_allowed", 12),
        ("९+८", "not_ascii", 0),
        ("the answer is (6+4)*684*", "ends_early", 10),
        # no prose around it: the expression as written, its parenthesis left open
        ("(6+4*684", "unclosed_end", 8),
    ],
)
def test_every_refusal_names_the_place(text: str, code: str, place: int) -> None:
    result = score(text, C6840)
    assert not result.valid and result.error_code == code
    assert result.error_position == place
    assert f"(at position {place + 1})" in (result.error or "")


def test_prose_is_not_taken_for_an_attempt_without_a_tag() -> None:
    # recognising (no tag) reads whole candidates only: a time in a chat message is no
    # Natory attempt, while a tagged message with the same prose is read
    assert registry.recognising("See you at 5-6 tomorrow, ok?") is None
    assert registry.get("natory").recognises("(6+4)*684")

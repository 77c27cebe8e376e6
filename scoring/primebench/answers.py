"""Each key question's answer in a text of answer lines, read by PrimeBench's rules
(the same tokens the scorer counts: the last answer to a question stands, valid answers
on an invalid line count, questions the key lacks are ignored). For the questions page
and the key-error check: which option each result chose, never a score."""

from __future__ import annotations

from .key import PrimeKey
from .parse import ANSWER, pieces, tighten_colons

#: An option too long to be one of the key's (the scorer counts it wrong, as here).
_LONG = 9


def question_answers(text: str, key: PrimeKey) -> dict[int, tuple[int | None, int]]:
    """Per key question: (the option chosen, None for ``none`` or no answer; the key's
    option). An option of no significant digits is 0, one too long to matter -1: both
    differ from every key option, so both count wrong."""
    final: dict[str, tuple[str, str]] = {}
    questions = key.by_text
    for piece in pieces(text):
        for question, option, none in ANSWER.findall(tighten_colons(piece)):
            if question in questions:
                final[question] = (option, none)
    out: dict[int, tuple[int | None, int]] = {}
    for question, correct in key.answers.items():
        given = final.get(str(question))
        if given is None or given[1]:
            out[question] = (None, correct)
        else:
            digits = given[0]
            out[question] = (int(digits or "0") if len(digits) <= _LONG else -1, correct)
    return out

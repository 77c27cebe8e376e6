"""Hints: gathered while reading and scoring, then written out in a fixed order.

A hint never changes the score; it explains why the official check counted an attempt
wrong, or what in the file could not be read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..base import Hint
from .result import SplitResult

#: How many line numbers or ids a hint keeps.
HINT_ITEMS = 1000


class Notes:
    """Hints gathered while reading and scoring: code → lines (or ids), count, example."""

    __slots__ = ("counts", "examples", "items")

    def __init__(self) -> None:
        self.items: dict[str, list[Any]] = {}
        self.counts: dict[str, int] = {}
        self.examples: dict[str, tuple[str, ...]] = {}

    def add(self, code: str, item: Any, example: tuple[str, ...] = ()) -> None:
        kept = self.items.setdefault(code, [])
        if len(kept) < HINT_ITEMS:
            kept.append(item)
        self.counts[code] = self.counts.get(code, 0) + 1
        if example and code not in self.examples:
            self.examples[code] = example

    def extend(self, code: str, items: list[Any]) -> None:
        """:meth:`add` for each of ``items``, in order (without examples)."""
        kept = self.items.setdefault(code, [])
        kept += items[: max(HINT_ITEMS - len(kept), 0)]
        self.counts[code] = self.counts.get(code, 0) + len(items)


def short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _list_phrase(items: Sequence[Any], total: int, limit: int = 8) -> str:
    shown = ", ".join(str(i) for i in items[:limit])
    return shown + (f" and {total - min(limit, len(items))} more" if total > limit else "")


def _where(lines: Sequence[int], total: int) -> str:
    return ("line " if total == 1 else "lines ") + _list_phrase(lines, total)


_ATTEMPT_HINTS: dict[str, str] = {
    "no_braces": "no {{…}} answer in {n} ({where}): the official check needs the final "
    "answer in curly braces on one line, so these count as wrong",
    "braces_across_lines": "the braces span a line break in {n} ({where}): the official "
    "check reads {{…}} only within one line, so these count as wrong",
    "spaces_in_braces": "spaces inside the braces in {n} ({where}; e.g. question {ex0}: "
    "{ex1}): the official check does not trim them, so these count as wrong",
    "trailing_period": "a period after the answer in {n} ({where}; e.g. question {ex0}: "
    "{ex1}): the official check counts these wrong",
    "number_format": "the right number written differently in {n} ({where}; e.g. question "
    "{ex0}: {ex1} for {ex2}): the official check compares text (11.9 is not 11.90), so "
    "these count as wrong",
    "nested_braces": "nested braces in {n} ({where}; e.g. question {ex0}: {ex1} is read as "
    '"{ex2}"): the official check takes the last innermost {{…}}, so these count as wrong',
    "earlier_braces": "the right answer in an earlier {{…}} in {n} ({where}): the official "
    "check reads only the last {{…}} of a response",
}

_HINT_ORDER = (
    "unknown_format",
    "invalid_json",
    "too_deeply_nested",
    "response_not_text",
    "duplicate_ids",
    *_ATTEMPT_HINTS,
    "correct_column_differs",
    "no_main_attempts",
    "fewer_than_k",
    "more_than_k",
)


def build_hints(notes: Notes, k: int, main: SplitResult) -> tuple[Hint, ...]:
    hints: list[Hint] = []
    for code in _HINT_ORDER:
        items = notes.items.get(code)
        if not items:
            continue
        n = notes.counts[code]
        example = notes.examples.get(code, ())
        lines: tuple[int, ...] = ()
        params: dict[str, str] = {"n": str(n)}
        if code in _ATTEMPT_HINTS:
            ex = dict(zip(("ex0", "ex1", "ex2"), example, strict=False))
            message = _ATTEMPT_HINTS[code].format(
                n=_plural(n, "attempt"), where=_where(items, n), **ex
            )
            lines = tuple(items)
            params.update(ex)
        elif code in ("fewer_than_k", "more_than_k"):
            fewer = code == "fewer_than_k"
            params["k"] = str(k)
            params["ids"] = ", ".join(str(i) for i in items[:8]) + (" …" if n > 8 else "")
            message = (
                f"{_plural(n, 'question')} with {'fewer' if fewer else 'more'} than "
                f"{k} attempts ({_list_phrase(items, n)}): "
                + (
                    f"their pass@1 and pass@{k} use the attempts given (not padded), and "
                    f"they cannot count for {k}/{k} reliability; if you ran fewer attempts "
                    "per question, score with k set to that number"
                    if fewer
                    else f"only the first {k} of each, in file order, are scored"
                )
            )
        elif code == "no_main_attempts":
            params["questions"] = str(main.questions)
            message = (
                f"no attempt at any of the {main.questions} main questions: the ranking "
                "figure is pass@1 over the main questions, so it is 0"
            )
        else:
            lines = tuple(items)
            where = _where(items, n)
            if example:
                params["example"] = ", ".join(example)
            message = {
                "unknown_format": "could not tell the file's format: send JSON Lines "
                '({"question_id": ..., "response": ...} per line), a JSON object '
                "{question_id: response}, or CSV with a header question_id,response",
                "invalid_json": f"the file is not valid JSON ({', '.join(example)}); "
                "nothing in it was scored",
                "too_deeply_nested": f"JSON nested too deeply to read on {where}",
                "response_not_text": f"a response that is not text on {where}: "
                "responses must be strings (or lists of strings)",
                "duplicate_ids": f"a question id repeated in the JSON object on {where}: "
                "each repeat is read as a further attempt, in file order",
                "correct_column_differs": f"the file's own Correct? column disagrees with "
                f"this check on {where}: the file was perhaps made with another key",
            }[code]
        hints.append(Hint(code, message, lines, tuple(params.items())))
    return tuple(hints)

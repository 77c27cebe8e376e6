"""Every regular expression that runs on what a user sends is linear: each reader of user
text (the pattern as the code applies it, or the public function that applies it) gets a
megabyte of its worst case and must finish within a time budget.

A pattern that backtracks quadratically takes minutes on a megabyte (the old PrimeBench
full-width-colon hint ``[0-9…]+\\s*：`` took 35 s on 80,000 ``9``), a linear one from
hundredths to a few tenths of a second, so the budget is generous for a noisy machine and
still tells them apart (:func:`test_the_budget_tells_a_quadratic_pattern` shows it on the old hint).
Each case runs in a forked child that is killed at the budget, so a quadratic reader
fails in seconds instead of holding the run.

The table is meant to grow: a new reader of user text is one :class:`Case` in
:data:`CASES` (its worst inputs from :data:`SHAPES`, or a shape of its own). A case
known to fail still belongs here, with ``known`` saying why; it is then expected to fail
(an ``xfail``) until its reader is fixed and the note is removed.
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import re
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from multiprocessing.connection import Connection
from typing import Any

import pytest

from bot.core import classify, tags
from bot.render import format as render_format
from scoring import ScoringError, modes, options, registry
from scoring import text as scoring_text
from scoring.base import InvalidLine
from scoring.primebench import hints as pb_hints
from scoring.primebench import parse as pb_parse
from scoring.zerobench import check as zb_check
from scoring.zerobench import reading as zb_reading

#: The size of each worst case, in characters.
SIZE = 1_000_000
#: CPU seconds each case may take. A linear reader takes hundredths to a few tenths on a
#: megabyte; a quadratic one takes minutes. CPU time, not wall-clock time: on a shared
#: machine with two cores a reader of 0.3 s was seen taking 2 s of wall-clock time.
BUDGET = 2.0
#: A child still running this long (wall-clock) is killed: past any CPU budget met on a
#: busy machine, far short of a quadratic reader's minutes.
GRACE = 4 * BUDGET

PRIME = registry.get("primebench")
ZERO = registry.get("zerobench")
NATORY = registry.get("natory")
PRIME_KEY = PRIME.load_key("".join(f"{q}:{q % 4 + 1}\n" for q in range(1, 105)).encode())
ZERO_KEY = ZERO.load_key(
    json.dumps({"zerobench": {str(q): str(q * 7) for q in range(1, 11)}}).encode()
)
NATORY_KEY = NATORY.key_for({"target": "8987"}, None)[0]


def _run(n: int, unit: str, head: str = "", tail: str = "") -> str:
    """``head``, then ``unit`` repeated to about :data:`SIZE` characters, then ``tail``."""
    return head + unit * (n // len(unit)) + tail


N = SIZE
#: Worst inputs by name: runs of what the patterns repeat (digits, blanks, colons,
#: braces, field names…) and alternations of what they match in turn. A run ends in
#: "x" where a pattern would otherwise find its match at the end and stop early.
SHAPES: dict[str, Callable[[], str]] = {
    "digits": lambda: _run(N, "9"),
    "digits, x": lambda: _run(N, "9", tail="x"),
    "Persian digits": lambda: _run(N, "\u06f1", tail="x"),
    "digits, mixed scripts": lambda: _run(N, "9\u06f1\u0661", tail="x"),
    "digit, then blanks": lambda: _run(N, " ", head="9", tail="x"),
    "blanks, non-ASCII": lambda: _run(N, " ", head="é", tail="x"),
    "blanks, ASCII": lambda: _run(N, " ", head="1", tail="x"),
    "tabs": lambda: _run(N, "\t", head="9", tail="x"),
    "blanks around a colon": lambda: _run(N // 2, " ", head="é") + ":" + _run(N // 2, " "),
    "colons": lambda: _run(N, ":"),
    "full-width colons": lambda: _run(N, "："),
    "digit, colon": lambda: _run(N, "9:"),
    "digit, blank": lambda: _run(N, "9 "),
    "digit, blank, colon": lambda: _run(N, "9 :"),
    "digit, full-width colon": lambda: _run(N, "9 ："),
    "answers on a line": lambda: _run(N, "1:1 "),
    "answer lines": lambda: _run(N, "1:1\n"),
    "different answer lines": lambda: "".join(f"{q}:{q % 5}\n" for q in range(N // 9)),
    "answer, long option": lambda: _run(N, "9", head="1:", tail="x"),
    "answer, period": lambda: _run(N, "1:1. "),
    "Q, digits": lambda: _run(N, "9", head="Q", tail="x"),
    "Q digit runs": lambda: _run(N, "Q9 "),
    "bold, digits": lambda: _run(N, "9", head="**", tail="x"),
    "bold runs": lambda: _run(N, "**1:"),
    "underscores": lambda: _run(N, "_"),
    "bullet answer lines": lambda: _run(N, "- 1: 1\n"),
    "bullet, digits": lambda: _run(N, "9", head="- ", tail="x"),
    "bullets, blanks": lambda: _run(N, " ", head="- 1", tail="x"),
    "numbered, digits": lambda: _run(N, "9", head="1. ", tail="x"),
    "table rows": lambda: _run(N, "| 1 | 2 |\n"),
    "pipes": lambda: _run(N, "|"),
    "pipe, digits": lambda: _run(N, "9", head="| ", tail="x"),
    "pipe, blanks": lambda: _run(N, " ", head="| 1", tail="x"),
    "bold answers, open": lambda: _run(N, "**1:** "),
    "answers in prose lines": lambda: "".join(
        f"so {q % 104 + 1}: 2 it is\n" for q in range(N // 16)
    ),
    "open braces": lambda: _run(N, "{"),
    "brace, digit": lambda: _run(N, "{9"),
    "braces": lambda: _run(N, "{}"),
    "hashes": lambda: _run(N, "#"),
    "hashtags": lambda: _run(N, "#think "),
    "field, digits": lambda: _run(N, "9", head="model: ", tail="x"),
    "field names": lambda: _run(N, "model "),
    "fields": lambda: _run(N, "model: "),
    "k fields": lambda: _run(N, "k:"),
    "field, blanks": lambda: _run(N, " ", head="model", tail="x"),
    "Persian field names": lambda: _run(N, "مدل "),
    "bold fields": lambda: _run(N, "**model:** "),
    "bold field names": lambda: _run(N, "**model** "),
    "emphasis marks": lambda: _run(N, "*_", head="model: ", tail="x"),
    "fields after commas": lambda: _run(N, "model: x, ", tail="mode"),
    "field, dashes": lambda: _run(N, " -", head="model", tail="x"),
    "model dashes": lambda: _run(N, "model - "),
    "bullets": lambda: _run(N, "- "),
    "field, punctuation": lambda: _run(N, ".,", head="model: x", tail="x"),
    "dollars": lambda: _run(N, "$"),
    "math parens": lambda: _run(N, "\\("),
    "math brackets": lambda: _run(N, "\\["),
    "LaTeX commands": lambda: _run(N, "\\text{"),
    "newlines": lambda: _run(N, "\n"),
    "carriage returns": lambda: _run(N, "\r"),
    "blank lines": lambda: _run(N, " \n"),
    "JSON record, braces": lambda: json.dumps(
        {"question_id": "1", "response": _run(N, "{", tail="x")}
    ),
    "JSON record, long id": lambda: json.dumps({"question_id": _run(N, "9"), "response": "{1}"}),
    "JSON object, long name": lambda: json.dumps({_run(N, "9", head="q"): "{1}"}),
    "CSV, braces": lambda: "question_id,response\n1," + _run(N, "{"),
    "CSV, quotes": lambda: "question_id,response\n1," + _run(N, '"'),
    "CSV, bare CRs": lambda: _run(N, "\r", head="question_id,response\n1,", tail="x\n"),
    "CSV, CR in each row": lambda: _run(N, "1,a\rb\n", head="question_id,response\n"),
    "CSV, CR runs ending lines": lambda: _run(N, "\r\r\r\n", head="question_id,response\n"),
}

#: Every shape: what the readers of whole submissions are fed.
EVERY = tuple(SHAPES)
DIGITS = (
    "digits",
    "digits, x",
    "Persian digits",
    "digits, mixed scripts",
    "digit, then blanks",
    "tabs",
    "digit, colon",
    "digit, blank",
    "digit, blank, colon",
    "digit, full-width colon",
    "answer, long option",
)
BLANKS = (
    "digit, then blanks",
    "blanks, non-ASCII",
    "blanks, ASCII",
    "tabs",
    "blanks around a colon",
    "field, blanks",
    "blank lines",
)
COLONS = ("colons", "full-width colons", "digit, colon", "digit, full-width colon", "k fields")
ANSWERS = ("answers on a line", "answer, long option", "answer, period", "digit, blank, colon")
MARKDOWN = (
    "Q, digits",
    "Q digit runs",
    "bold, digits",
    "bold runs",
    "underscores",
    "bullet answer lines",
    "bullet, digits",
    "bullets, blanks",
    "numbered, digits",
    "table rows",
    "pipes",
    "pipe, digits",
    "pipe, blanks",
    "bold answers, open",
    "answers in prose lines",
)
BRACES = ("open braces", "brace, digit", "braces", "CSV, braces")
CSV = (
    "CSV, braces",
    "CSV, quotes",
    "CSV, bare CRs",
    "CSV, CR in each row",
    "CSV, CR runs ending lines",
)
TAGS = (
    "hashes",
    "hashtags",
    "field, digits",
    "field names",
    "fields",
    "k fields",
    "field, blanks",
    "Persian field names",
    "bold fields",
    "bold field names",
    "emphasis marks",
    "fields after commas",
    "field, dashes",
    "model dashes",
    "bullets",
    "field, punctuation",
)
MATH = ("dollars", "math parens", "math brackets", "LaTeX commands")
LINES = ("newlines", "carriage returns", "blank lines", "answer lines", "different answer lines")
JSON_SHAPES = ("JSON record, braces", "JSON record, long id", "JSON object, long name")
#: What a pattern searched over one line is fed.
ONE_LINE = DIGITS + BLANKS + COLONS + ANSWERS + MARKDOWN + BRACES + TAGS[:3]


@dataclass(frozen=True)
class Case:
    """A reader of user text: its name, how it is applied to one text, its worst inputs
    (names in :data:`SHAPES`), and (``known``) why it is known to fail on some."""

    name: str
    run: Callable[[str], object]
    shapes: tuple[str, ...]
    known: dict[str, str] = field(default_factory=dict)


def _hint(code: str) -> Callable[[str], object]:
    pattern = next(p for c, p, _ in pb_hints._patterns() if c == code)
    return pattern.search


def _refused(read: Callable[..., object], *args: Any) -> object:
    """``read(*args)``, a refusal of bad input (the scoring errors, a tag error)
    counting as an answer: only the time matters here."""
    try:
        return read(*args)
    except (ScoringError, ValueError) as exc:
        return exc


CASES: tuple[Case, ...] = (
    # whole submissions: what the bot does with any text it is sent (its tags, then
    # which benchmark reads it: every benchmark's recogniser), and each scorer
    Case("bot.core.classify.read", classify.read, EVERY),
    Case("bot.core.tags.split_tags", tags.split_tags, EVERY),
    Case("PrimeBench.score", lambda text: PRIME.score(text, PRIME_KEY), EVERY),
    Case("ZeroBench.score", lambda text: ZERO.score(text, ZERO_KEY), EVERY),
    Case("Natory.score", lambda text: NATORY.score(text, NATORY_KEY), EVERY),
    Case("scoring.text.decode", lambda text: scoring_text.decode(text.encode()), LINES),
    Case("scoring.text.normalise_newlines", scoring_text.normalise_newlines, LINES),
    # PrimeBench's readers one by one
    Case("PrimeBench.recognises", PRIME.recognises, DIGITS + BLANKS + ANSWERS + MARKDOWN),
    Case("primebench.parse.tighten_colons", pb_parse.tighten_colons, BLANKS + COLONS + ANSWERS),
    Case("primebench.parse.parse_line", pb_parse.parse_line, DIGITS + BLANKS + ANSWERS),
    Case("primebench.parse.ANSWER.findall", pb_parse.ANSWER.findall, DIGITS + ANSWERS),
    Case(
        "primebench.parse.INVALID_LINE.finditer",
        lambda text: list(pb_parse.INVALID_LINE.finditer(text)),
        DIGITS + BLANKS + ANSWERS + LINES,
    ),
    Case(
        "primebench.hints.hints_for",
        lambda text: pb_hints.hints_for([InvalidLine(1, text)]),
        DIGITS + BLANKS + ANSWERS + MARKDOWN,
    ),
    Case("hint persian_digits", _hint("persian_digits"), ONE_LINE),
    Case("hint fullwidth_colon", _hint("fullwidth_colon"), ONE_LINE),
    Case("hint q_prefix", _hint("q_prefix"), ONE_LINE),
    Case("hint trailing_period", _hint("trailing_period"), ONE_LINE),
    Case("hint markdown_bold", _hint("markdown_bold"), ONE_LINE),
    Case("hint bullets", _hint("bullets"), ONE_LINE + LINES),
    Case("hint markdown_table", _hint("markdown_table"), ONE_LINE + LINES),
    Case(
        "primebench.hints.hints_for, repeated questions",
        lambda text: pb_hints.hints_for(
            [InvalidLine(n, line) for n, line in enumerate(text.split("\n")[:10_000], 1)],
            frozenset(range(1, 105)),
        ),
        DIGITS + BLANKS + ANSWERS + MARKDOWN + LINES,
    ),
    Case(
        "PrimeBench key (A.txt)",
        lambda text: _refused(PRIME.load_key, text.encode()),
        DIGITS + BLANKS + ANSWERS + LINES,
    ),
    # ZeroBench's readers one by one
    Case("ZeroBench.recognises", ZERO.recognises, EVERY),
    Case("zerobench.check.official_parse", zb_check.official_parse, BRACES + BLANKS),
    Case("zerobench.check.lenient_check", lambda t: zb_check.lenient_check(t, "12"), BRACES),
    Case("zerobench.check.nested_group", zb_check.nested_group, BRACES),
    Case(
        "ZeroBench key",
        lambda text: _refused(ZERO.load_key, text.encode()),
        JSON_SHAPES + BRACES + BLANKS + CSV,
    ),
    Case(
        "zerobench.reading.csv_reader",
        lambda t: list(zb_reading.csv_reader(t, skip_space=True)),
        CSV + LINES,
    ),
    # Natory's
    Case("Natory.recognises", NATORY.recognises, MATH + DIGITS + BLANKS),
    # the tags around a submission (a caption, the words after /score), tag values
    Case(
        "bot.core.tags.read_args",
        lambda text: _refused(tags.split_tags, "1:1", text),
        TAGS + BLANKS + DIGITS,
    ),
    Case("bot.core.tags.looks_like_answers", tags.looks_like_answers, TAGS + DIGITS + COLONS),
    Case("bot.core.tags.clean_model", tags.clean_model, BLANKS),
    Case("scoring.options.parse_cost", lambda t: _refused(options.parse_cost, t), DIGITS + BLANKS),
    Case(
        "scoring.options.parse_latency",
        lambda t: _refused(options.parse_latency, t),
        DIGITS + BLANKS,
    ),
    Case("scoring.modes.parse_mode", lambda t: _refused(modes.parse_mode, t), BLANKS + TAGS),
    # a card's order of invalid lines (near misses first)
    Case("bot.render.format._ANSWER_LIKE", render_format._ANSWER_LIKE.search, DIGITS + BLANKS),
)


@cache
def shape(name: str) -> str:
    return SHAPES[name]()


def _child(run: Callable[[str], object], names: list[str], conn: Connection) -> None:
    """Run ``run`` on each shape in turn, sending (name, seconds or an error's text).

    The heap inherited from the test process (large, late in a whole suite) is frozen
    out of the child's garbage collections: a collection would otherwise walk, and copy
    page by page, every object of the parent, a cost of the fork and not of the reader."""
    gc.freeze()
    for name in names:
        text = shape(name)
        start = time.process_time()  # this child's CPU time: what the reader itself costs
        try:
            run(text)
        except BaseException as exc:  # sent back: the case fails with it
            conn.send((name, f"{type(exc).__name__}: {exc}"[:500]))
            continue
        conn.send((name, time.process_time() - start))


def timings(run: Callable[[str], object], names: tuple[str, ...]) -> dict[str, float | str]:
    """Seconds ``run`` took on each named shape, in forked children: ``inf`` for one
    still running :data:`GRACE` seconds past the budget (its child killed, the next
    shapes given to a new one), an error's text for one that raised."""
    context = multiprocessing.get_context("fork")
    took: dict[str, float | str] = {}
    names = tuple(dict.fromkeys(names))  # each once
    for name in names:
        shape(name)  # made here once, shared with the children
    while len(took) < len(names):
        left = [name for name in names if name not in took]
        ours, theirs = context.Pipe(duplex=False)
        with warnings.catch_warnings():  # fork() in a process with threads (Python 3.12+)
            warnings.simplefilter("ignore", DeprecationWarning)
            child = context.Process(target=_child, args=(run, left, theirs), daemon=True)
            child.start()
        theirs.close()
        try:
            for name in left:
                if not ours.poll(BUDGET + GRACE):
                    took[name] = float("inf")
                    break
                try:
                    took[name] = ours.recv()[1]
                except EOFError:
                    child.join(5)
                    took[name] = f"the child died (exit code {child.exitcode})"
                    break
        finally:
            child.kill()
            child.join(5)
            ours.close()
    return took


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_megabyte_of_the_worst_case_is_read_in_linear_time(case: Case) -> None:
    took = timings(case.run, case.shapes)
    failed = {
        name: value for name, value in took.items() if isinstance(value, str) or value >= BUDGET
    }
    unexpected = {name: value for name, value in failed.items() if name not in case.known}
    assert not unexpected, f"{case.name} over {BUDGET} s (inf: killed) or raised: {unexpected}"
    if failed:
        reasons = sorted({case.known[name] for name in failed})
        pytest.xfail(f"known: {sorted(failed)}: {'; '.join(reasons)}")


#: The PrimeBench full-width-colon hint as it was (issue 29): quadratic over digits.
OLD_FULLWIDTH_HINT = re.compile(r"[0-9\u06f0-\u06f9\u0660-\u0669]+\s*：")


def test_the_budget_tells_a_quadratic_pattern() -> None:
    """The old hint pattern fails this test: killed at the budget on a megabyte of
    digits (it took 0.6 s on 10 KB, 35 s on 80 KB), where the pattern now used takes
    hundredths of a second."""
    assert timings(OLD_FULLWIDTH_HINT.search, ("digits",)) == {"digits": float("inf")}
    now = timings(_hint("fullwidth_colon"), ("digits",))["digits"]
    assert isinstance(now, float) and now < BUDGET / 10, now


def test_every_hint_pattern_is_in_the_table() -> None:
    """A hint pattern added later gets its own row (it is searched over whole lines)."""
    codes = {code for code, _, _ in pb_hints._patterns()}
    assert codes == {case.name.removeprefix("hint ") for case in CASES if case.name[:5] == "hint "}


#: The hint patterns as they were before they were made linear (issue 29).
OLD_HINTS = {
    "persian_digits": r"[\u06f0-\u06f9\u0660-\u0669]+\s*[:：]\s*"
    r"(?:[\u06f0-\u06f9\u0660-\u0669]|[0-9])+",
    "fullwidth_colon": OLD_FULLWIDTH_HINT.pattern,
    "q_prefix": r"(?<![^\s,;])[Qq]\s*[0-9]+\s*[:：.)]",
    "trailing_period": r"(?<![^\s,;])[0-9]+\s*:\s*(?:[0-9]+|[nN][oO][nN][eE])\.(?!\S)",
    "markdown_bold": r"(?:\*\*|__)\s*[0-9]+\s*:\s*(?:[0-9]+|[nN][oO][nN][eE])\s*(?:\*\*|__)",
}
#: The same for the other patterns made linear, by name, as (old, new).
OLD_AND_NEW = {
    "loose answer": (
        r"(?<![^\s,;])[0-9]+[^\S\n]*:[^\S\n]*(?:[0-9]+|[nN][oO][nN][eE])(?![^\s,;])",
        pb_parse._LOOSE_ANSWER,
    ),
    "answerish": (r"[0-9۰-۹٠-٩]\s*[:：]", tags._ANSWERISH.pattern),
}


def _samples(alphabet: str, count: int = 4000, longest: int = 14) -> list[str]:
    import random

    rng = random.Random(29)
    return [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(0, longest))) for _ in range(count)
    ]


_ALPHABET = "9 1 ۱٢ : ： Q q . ) * * _ _ n o N e E x \t , ; \n".replace(" ", "") + "  "


def test_the_linear_hints_match_where_the_old_ones_did() -> None:
    """Each hint matches exactly the lines it matched before (only whether it matches
    is used), on thousands of short lines of the characters the patterns are about."""
    new = {code: pattern for code, pattern, _ in pb_hints._patterns()}
    for text in _samples(_ALPHABET):
        for code, old in OLD_HINTS.items():
            assert (re.search(old, text) is None) == (new[code].search(text) is None), (code, text)


def test_the_other_linear_patterns_match_where_the_old_ones_did() -> None:
    for text in _samples(_ALPHABET):
        for name, (old, new) in OLD_AND_NEW.items():
            assert (re.search(old, text) is None) == (re.search(new, text) is None), (name, text)


def test_blanks_around_colons_are_removed_as_before() -> None:
    old = re.compile(r"[^\S\n]+:[^\S\n]*|:[^\S\n]+")
    for text in _samples("9: \t\n\u3000é,x", longest=16):
        assert pb_parse._WS_AROUND_COLON.sub(":", text) == old.sub(":", text), text
        assert pb_parse.tighten_colons(text) == old.sub(":", text), text

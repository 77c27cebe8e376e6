"""Reading the metadata a person writes around a submission. Pure functions.

A *tag line* is a line made only of tags: hashtags (``#think``, a benchmark's ``#NAME``) and
fields — ``model: NAME`` (also ``مدل: NAME``), ``mode:``, ``benchmark:``, the tag
fields a benchmark takes (``target:``, ``cost:``, ``latency:``, ``k:``) and the
provenance fields (``provider:``, ``temperature:``, ``seed:``, ``reasoning:``, ``run
date:``, ``log:``; :mod:`bot.core.provenance` checks them). Several tags
may share a line (``model: gpt x #think``, ``#NAME target: 8987``). Tag lines are
metadata wherever they stand, prose before them or not: they are blanked out of the
scored text (so line numbers stay those the user sees) and never reported as invalid
lines. A line of hashtags naming something unknown (``#thnk``) is an error when it is
the first or the last line of the text, and an ordinary line anywhere else.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from scoring import Mode, UnknownMode, parse_mode, registry
from scoring.text import MAX_MODEL_NAME, folded_name, normalise_line_ends

_NAMES = (
    r"model|مدل|target|هدف|cost|هزینه|latency|تاخیر|تأخیر|mode|حالت|benchmark|k"
    r"|provider|temperature|seed|reasoning|run[ _]date|log"
)
_HASHTAG = re.compile(r"#[^\s#]+")
#: Markdown emphasis around a field's name or value (``**Model:**``, ``*model*:``).
_MARK = r"(?:[*_]{1,3}+)?"
#: A list bullet before a tag (``- model: x``): the marker and a blank.
_BULLET = r"(?:[-*+•][^\S\n]++)?"
#: A field's name and colon (in emphasis or not), at the start of a line or after a
#: blank, a comma or a semicolon (``model: X, mode: Y``): where a field's value ends.
_FIELD_START = re.compile(
    rf"(?:^|(?<=[\s,;،؛|])){_MARK}(?:{_NAMES}){_MARK}\s*+[:：]", re.IGNORECASE
)
#: The names that may also be followed by a dash between blanks (``Model - X``): only
#: the model's, so that prose such as "Cost - benefit" is no tag.
_DASH_NAMES = r"model|مدل"
#: A field at the start of a tag: a bullet, emphasis, the name, then a colon (or, for
#: the model, a dash between blanks), and emphasis closing after it (``**Model:** X``).
_FIELD_AT = re.compile(
    rf"{_BULLET}{_MARK}(?:({_NAMES}){_MARK}\s*+[:：]|({_DASH_NAMES}){_MARK}\s++[-–—](?=\s))"
    rf"{_MARK}",
    re.IGNORECASE,
)
#: The characters a tag line starts with (after blanks): ``#``, a bullet or emphasis,
#: and the first letters of the field names (matched ignoring case, as the names are).
_FIRST = "#*_+•\\-" + "".join(sorted({name[0] for name in _NAMES.split("|")}))
#: Lines that may be tag lines: they start (after blanks) with ``#`` or a field (as
#: :data:`_FIELD_AT` reads one). The look-ahead at the first character turns most
#: lines (answers start with a digit) away before the names are tried.
_CANDIDATE = re.compile(
    rf"^[^\S\n]*+(?=[{_FIRST}])(?:#|{_BULLET}{_MARK}(?:(?:{_NAMES}){_MARK}[^\S\n]*+[:：]"
    rf"|(?:{_DASH_NAMES}){_MARK}[^\S\n]++[-–—](?=\s)))[^\n]*+",
    re.IGNORECASE | re.MULTILINE,
)
#: What ends a value as models write it and is not part of it: emphasis and code marks
#: around it, and punctuation after it (``**GPT-5.5**.``, ``o5-high,``).
_VALUE_MARKS = "*_`"
_VALUE_END = ".,;:!?،؛。"
_NON_SPACE = re.compile(r"\S")
_ANSWERISH = re.compile(r"[0-9۰-۹٠-٩]\s*+[:：]")
_FIELD_NAMES = {
    "model": "model",
    "مدل": "model",
    "target": "target",
    "هدف": "target",
    "cost": "cost",
    "هزینه": "cost",
    "latency": "latency",
    "تاخیر": "latency",
    "تأخیر": "latency",
    "mode": "mode",
    "حالت": "mode",
    "benchmark": "benchmark",
    "k": "k",
    # provenance (bot.core.provenance): kept with the submission, never scored
    "provider": "provider",
    "temperature": "temperature",
    "seed": "seed",
    "reasoning": "reasoning",
    "run date": "run_date",
    "run_date": "run_date",
    "log": "log",
}


class TagError(ValueError):
    """A tag that names nothing known (the message lists what is valid): ``tag`` as
    written, and the valid ``modes`` and ``benchmarks`` as hashtags."""

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.modes = "#default, #think, #tools, #think_tools"
        self.benchmarks = ", ".join("#" + n for n in registry.names())
        super().__init__(
            f"unknown tag {tag}: modes are {self.modes}; benchmarks are {self.benchmarks}"
        )


@dataclass(frozen=True)
class Tags:
    benchmark: str | None = None
    mode: Mode | None = None
    model: str | None = None
    fields: dict[str, str] = field(default_factory=dict)  # target, cost, latency as typed


#: One tag of a line: ("#", word) or (field name, value as typed).
_Item = tuple[str, str]


def _hashtag(word: str) -> tuple[str, str | Mode] | None:
    """What a hashtag's word names: ("benchmark", its name) or ("mode", the mode); None
    for nothing known. Remembered: the same few tags come with every submission (and
    forgotten when a benchmark is defined: the registry's generation)."""
    return _named(word, registry.generation())


@lru_cache(maxsize=1024)
def _named(word: str, generation: int) -> tuple[str, str | Mode] | None:
    benchmark = registry.find(word)
    if benchmark is not None:
        return "benchmark", benchmark.name
    try:
        return "mode", parse_mode(word)
    except UnknownMode:
        return None


def _known_hashtag(word: str) -> bool:
    return _hashtag(word.lstrip("#")) is not None


def _apply_hashtag(tag: str, found: dict[str, object]) -> None:
    """A hashtag, or a bare word after ``/score``: a benchmark or a mode."""
    named = _hashtag(tag.lstrip("#"))
    if named is None:
        raise TagError(tag)
    found[named[0]] = named[1]


def _apply_field(name: str, value: str, found: dict[str, object]) -> None:
    if name == "model":
        if model := clean_model(value):
            found["model"] = model
    elif name == "mode":
        found["mode"] = parse_mode(value)
    elif name == "benchmark":
        found["benchmark"] = registry.get(value).name
    else:
        fields = found.setdefault("fields", {})
        assert isinstance(fields, dict)
        fields[name] = value


def _items(line: str) -> tuple[list[_Item], bool] | None:
    """The tags of a line that holds only tags, and whether a hashtag among them names
    nothing known; None when the line holds anything else."""
    items: list[_Item] = []
    unknown = False
    pos, size = 0, len(line)
    while True:
        while pos < size and line[pos].isspace():
            pos += 1
        if pos >= size:
            break
        if line[pos] == "#":
            match = _HASHTAG.match(line, pos)
            if match is None:  # a bare "#" (a Markdown heading's "# Answers"): not a tag
                return None
            items.append(("#", match[0]))
            unknown = unknown or not _known_hashtag(match[0])
            pos = match.end()
            continue
        match = _FIELD_AT.match(line, pos)
        if match is None:
            return None
        name = _FIELD_NAMES[(match[1] or match[2]).lower()]
        following = _FIELD_START.search(line, match.end())
        end = size if following is None else following.start()
        # known hashtags among the value's words are tags of their own (model: gpt x #think)
        words: list[str] = []
        hashtags: list[str] = []
        for word in line[match.end() : end].split():
            (hashtags if word.startswith("#") and _known_hashtag(word) else words).append(word)
        items.append((name, _value(" ".join(words))))
        items.extend(("#", tag) for tag in hashtags)
        pos = end
    return (items, unknown) if items else None


def _value(typed: str) -> str:
    """A field's value without what models put around it: emphasis or code marks
    (``**GPT-5.5**``) and punctuation after it (``o5-high,``, ``think.``)."""
    if not typed or (typed[0] not in _VALUE_MARKS and typed[-1] not in _VALUE_MARKS + _VALUE_END):
        return typed
    value = typed.rstrip(_VALUE_END).strip(_VALUE_MARKS).rstrip(_VALUE_END).strip()
    return value


def _apply(items: list[_Item], found: dict[str, object]) -> None:
    for name, value in items:
        if name == "#":
            _apply_hashtag(value, found)
        else:
            _apply_field(name, value, found)


def _tag_line(line: str, found: dict[str, object], *, at_end: bool = True) -> bool:
    """Apply a tag line's metadata; False when the line is not a tag line. A line of
    hashtags naming something unknown raises at an end of the text (``at_end``) and is
    no tag line elsewhere."""
    parsed = _items(line)
    if parsed is None:
        return False
    items, unknown = parsed
    if unknown and not at_end:
        return False
    _apply(items, found)
    return True


def looks_like_answers(words: str) -> bool:
    """True when the rest of a ``/score`` line holds answers (``/score 1:3 2:4``), not tags."""
    return _ANSWERISH.search(words) is not None and _FIELD_START.search(words) is None


def split_score_line(words: str) -> tuple[str, str]:
    """The rest of a ``/score`` line as (its tags, the output after them):
    ``#NAME 3^(1+1)+(3+1)`` is the tag ``#NAME`` and an expression to score. Leading
    benchmark and mode words are tags; a line with a field (``model: NAME``) is all tags,
    as before."""
    if _FIELD_START.search(words) is not None:
        return words, ""
    parts = words.split()
    n = 0
    while n < len(parts) and _known_hashtag(parts[n]):
        n += 1
    return " ".join(parts[:n]), " ".join(parts[n:])


def clean_model(name: str) -> str:
    """A model name as typed, with whitespace folded, control characters dropped (they could
    make it read as another) and length capped; "" for one nothing of which shows (only
    zero-width characters)."""
    model = folded_name(name)[:MAX_MODEL_NAME]
    if model.isascii() or any(unicodedata.category(c)[0] not in "CZ" for c in model):
        return model
    return ""


def read_args(command_args: str, found: dict[str, object]) -> None:
    """The rest of a ``/score`` command's own line (``NAME #think``) or a
    document's caption (tag lines, ``model: NAME`` among them): bare words are
    benchmarks or modes."""
    for line in command_args.replace("\r", "\n").split("\n"):
        # A caption may hold several tag lines; a line may end with ``model: NAME``.
        start = _FIELD_START.search(line)
        words, rest = (line[: start.start()], line[start.start() :]) if start else (line, "")
        for word in words.split():
            _apply_hashtag(word, found)
        if rest:
            parsed = _items(rest)
            if parsed is not None:
                _apply(parsed[0], found)


#: Where tag lines stand in a text: (start, end) character offsets, in order.
Spans = tuple[tuple[int, int], ...]


def find_tags(text: str, command_args: str = "") -> tuple[Spans, Tags]:
    """The tag lines of ``text`` (its line breaks already ``\n``) and the tags they and
    ``command_args`` hold; :func:`blank` makes the body. Raises as :func:`split_tags`."""
    found: dict[str, object] = {}
    read_args(command_args, found)
    spans = _tag_spans(text, found)
    fields = found.get("fields", {})
    assert isinstance(fields, dict)
    tags = Tags(
        benchmark=found.get("benchmark"),  # type: ignore[arg-type]
        mode=found.get("mode"),  # type: ignore[arg-type]
        model=found.get("model"),  # type: ignore[arg-type]
        fields=fields,
    )
    return spans, tags


def blank(text: str, spans: Spans) -> str:
    """``text`` with the lines at ``spans`` made empty (the same number of lines); the
    text itself when there are none."""
    if not spans:
        return text
    kept, pos = [], 0
    for start, end in spans:
        kept.append(text[pos:start])
        pos = end
    kept.append(text[pos:])
    return "".join(kept)


def split_tags(text: str, command_args: str = "") -> tuple[str, Tags]:
    """Separate metadata from the body.

    Returns the body with tag lines blanked (same number of lines) and the tags.
    ``command_args`` is the rest of a ``/score`` command's own line (``NAME
    #think``) or a document's caption (tag lines, ``model: NAME`` among them).
    Raises :class:`TagError`, :class:`scoring.UnknownMode` or
    :class:`scoring.UnknownBenchmark` for a tag that names nothing known.
    """
    text = normalise_line_ends(text)
    spans, tags = find_tags(text, command_args)
    return blank(text, spans), tags


def _tag_spans(text: str, found: dict[str, object]) -> Spans:
    """Where the tag lines of ``text`` stand (the tags applied to ``found``, in order).

    Only lines that start with ``#`` or a field name are looked at, found by one regular
    expression."""
    first = _NON_SPACE.search(text)
    if first is None:
        return ()
    last = len(text.rstrip()) - 1
    spans = []
    for match in _CANDIDATE.finditer(text):
        at_end = match.start() <= first.start() or match.end() > last
        if _tag_line(match[0], found, at_end=at_end):
            spans.append(match.span())
    return tuple(spans)

"""Reading the metadata a person writes around a submission. Pure functions.

Tag lines at the start or the end of the text — hashtags (``#think``, ``#primebench``),
``model: NAME`` (also ``مدل: NAME``), and for Natory ``target:``, ``cost:``,
``latency:`` — are metadata: they are blanked out of the scored text (so line numbers
stay those the user sees) and never reported as invalid lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from scoring import Mode, UnknownBenchmark, UnknownMode, parse_mode, registry
from scoring.text import normalise_newlines
from storage import MAX_MODEL_NAME

_HASHTAG = re.compile(r"#[^\s#]+")
_TAG_ONLY_LINE = re.compile(r"\s*(?:#[^\s#]+\s*)+")
_FIELD_LINE = re.compile(
    r"\s*(model|مدل|target|هدف|cost|هزینه|latency|تاخیر|تأخیر|mode|حالت|benchmark)\s*[:：]\s*(.*?)\s*",
    re.IGNORECASE,
)
_FIELD_START = re.compile(
    r"(?:^|(?<=\s))(?:model|مدل|target|هدف|cost|هزینه|latency|تاخیر|تأخیر|mode|حالت|benchmark)"
    r"\s*[:：]",
    re.IGNORECASE,
)
_ANSWERISH = re.compile(r"[0-9۰-۹٠-٩]\s*[:：]")
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
}


class TagError(ValueError):
    """A tag that names nothing known (the message lists what is valid)."""


@dataclass(frozen=True)
class Tags:
    benchmark: str | None = None
    mode: Mode | None = None
    model: str | None = None
    fields: dict[str, str] = field(default_factory=dict)  # target, cost, latency as typed


def _apply_hashtag(tag: str, found: dict[str, object]) -> None:
    """A hashtag, or a bare word after ``/score``: a benchmark or a mode."""
    word = tag.lstrip("#")
    try:
        found["benchmark"] = registry.get(word).name
        return
    except UnknownBenchmark:
        pass
    try:
        found["mode"] = parse_mode(word)
    except UnknownMode:
        raise TagError(
            f"unknown tag {tag}: modes are #default, #think, #tools, #think_tools; "
            f"benchmarks are {', '.join('#' + n for n in registry.names())}"
        ) from None


def _apply_field(name: str, value: str, found: dict[str, object]) -> None:
    if name == "model":
        if value:
            found["model"] = clean_model(value)
    elif name == "mode":
        found["mode"] = parse_mode(value)
    elif name == "benchmark":
        found["benchmark"] = registry.get(value).name
    else:
        fields = found.setdefault("fields", {})
        assert isinstance(fields, dict)
        fields[name] = value


def _tag_line(line: str, found: dict[str, object]) -> bool:
    """Apply a tag line's metadata; False when the line is not a tag line."""
    if _TAG_ONLY_LINE.fullmatch(line):
        for tag in _HASHTAG.findall(line):
            _apply_hashtag(tag, found)
        return True
    match = _FIELD_LINE.fullmatch(line)
    if match:
        _apply_field(_FIELD_NAMES[match[1].lower()], match[2], found)
        return True
    return False


def looks_like_answers(words: str) -> bool:
    """True when the rest of a ``/score`` line holds answers (``/score 1:3 2:4``), not tags."""
    return _ANSWERISH.search(words) is not None and _FIELD_START.search(words) is None


def clean_model(name: str) -> str:
    """A model name as typed, with whitespace folded and length capped."""
    return " ".join(name.split())[:MAX_MODEL_NAME]


def split_tags(text: str, command_args: str = "") -> tuple[str, Tags]:
    """Separate metadata from the body.

    Returns the body with tag lines blanked (same number of lines) and the tags.
    ``command_args`` is the rest of a ``/score`` command's own line (``primebench
    #think``) or a document's caption (tag lines, ``model: NAME`` among them).
    Raises :class:`TagError`, :class:`scoring.UnknownMode` or
    :class:`scoring.UnknownBenchmark` for a tag that names nothing known.
    """
    found: dict[str, object] = {}
    for line in command_args.replace("\r", "\n").split("\n"):
        # A caption may hold several tag lines; a line may end with ``model: NAME``.
        field = _FIELD_START.search(line)
        words, rest = (line[: field.start()], line[field.start() :]) if field else (line, "")
        for word in words.split():
            _apply_hashtag(word, found)
        if rest:
            _tag_line(rest, found)
    body = _blank_tag_lines(normalise_newlines(text), found)
    fields = found.get("fields", {})
    assert isinstance(fields, dict)
    tags = Tags(
        benchmark=found.get("benchmark"),  # type: ignore[arg-type]
        mode=found.get("mode"),  # type: ignore[arg-type]
        model=found.get("model"),  # type: ignore[arg-type]
        fields=fields,
    )
    return body, tags


def _blank_tag_lines(text: str, found: dict[str, object]) -> str:
    """``text`` with its leading and trailing blank and tag lines made empty (the tags
    applied to ``found``). Only those lines are looked at, so a large text costs one
    copy at most (none when nothing is blanked)."""
    start, pos = 0, 0  # lines blanked at the start; where the next line begins
    while True:
        newline = text.find("\n", pos)
        line = text[pos:] if newline < 0 else text[pos:newline]
        if line.strip() and not _tag_line(line, found):
            break
        start += 1
        if newline < 0:  # every line was blank or a tag line
            return "\n" * (start - 1)
        pos = newline + 1
    end, stop = 0, len(text)  # lines blanked at the end; where the kept text ends
    while True:
        newline = text.rfind("\n", pos, stop)
        if newline < 0:  # back at the first kept line (not a tag line)
            break
        line = text[newline + 1 : stop]
        if line.strip() and not _tag_line(line, found):
            break
        end += 1
        stop = newline
    if start == 0 and end == 0:
        return text
    return "\n" * start + text[pos:stop] + "\n" * end

"""The four run modes and the many ways people spell them."""

from __future__ import annotations

import re
from enum import StrEnum

from .errors import UnknownMode


class Mode(StrEnum):
    """How the model was run. The value is the stored form and the hashtag."""

    DEFAULT = "default"
    THINK = "think"
    TOOLS = "tools"
    THINK_TOOLS = "think_tools"

    @property
    def label(self) -> str:
        """The display form: ``default``, ``think``, ``tools``, ``think & tools``."""
        return "think & tools" if self is Mode.THINK_TOOLS else self.value


#: Words that mean one ingredient of a mode.
_WORDS: dict[str, str] = {}
for _word in (
    "default", "normal", "standard", "plain", "instant", "nothink", "nothinking",
    "noreasoning", "nonthinking", "nonreasoning", "notools", "پیشفرض", "پیش‌فرض", "عادی",
    "معمولی", "استاندارد",
):  # fmt: skip
    _WORDS[_word] = "default"
for _word in (
    "think", "thinking", "reasoning", "reason", "reasoner", "thought", "cot",
    "extendedthinking", "deepthink", "deepthinking", "تفکر", "فکر", "استدلال", "تفکری",
    "فکری", "thinker",
):  # fmt: skip
    _WORDS[_word] = "think"
for _word in (
    "tools", "tool", "tooluse", "tool-use", "tooling", "toolcalling", "functioncalling",
    "search", "websearch", "agent", "agentic", "codeinterpreter", "ابزار", "ابزارها",
    "باابزار", "ابزاری",
):  # fmt: skip
    _WORDS[_word] = "tools"

#: Whole spellings that are not a combination of the words above.
_COMPACT: dict[str, Mode] = {
    "tt": Mode.THINK_TOOLS,
    "thinktools": Mode.THINK_TOOLS,
    "thinkingtools": Mode.THINK_TOOLS,
    "reasoningtools": Mode.THINK_TOOLS,
    "thinktool": Mode.THINK_TOOLS,
    "thinkandtools": Mode.THINK_TOOLS,
    "thinkingandtools": Mode.THINK_TOOLS,
}

#: Words that only join or frame the ingredients: ``thinking mode``, ``think w/ tools``,
#: ``tool use``, ``tools on``, ``extended thinking + tools``, ``حالت تفکر`` (the mode
#: "think"), ``تفکر با ابزار``. Alone they are no mode.
_FILLERS = frozenset(
    (
        "mode", "w", "with", "use", "using", "calling", "on", "enabled", "extended",
        "deep", "حالت", "با", "فعال",
    )
)  # fmt: skip
#: Words that take the next ingredient away: ``no tools``, ``non-thinking``, ``think
#: without tools``, ``بدون تفکر``; ``off`` (and ``disabled``) take the one before it.
_NOT_NEXT = frozenset(("no", "non", "without", "wo", "بدون", "بی"))
_NOT_BEFORE = frozenset(("off", "disabled"))

#: compiled on first use (re's cache): most runs never parse a mode
_SPLIT = r"[\s_+&/,|\-.\u200c()\[\]:]+|\band\b|\bو\b"


def _squash(text: str) -> str:
    return re.sub(r"[\s_+&/,|\-.\u200c()\[\]:]+", "", text.casefold())


def parse_mode(text: str) -> Mode:
    """Map a typed mode (``#thinking``, ``think+tools``, ``t&t``, ``تفکر و ابزار``) to a Mode.

    Raises :class:`UnknownMode` listing the accepted values.
    """
    raw = text.strip().lstrip("#").strip()
    folded = raw.casefold()
    try:
        return Mode(folded)
    except ValueError:
        pass
    if folded == "think & tools":
        return Mode.THINK_TOOLS
    squashed = _squash(folded)
    if squashed in _COMPACT:
        return _COMPACT[squashed]
    if squashed in _WORDS:
        return _from_parts({_WORDS[squashed]}, text)
    parts = [p for p in re.split(_SPLIT, folded.replace("w/o", " without ")) if p]
    kinds: list[str] = []
    negate = False
    for part in parts:
        if part in _FILLERS:
            continue
        if part in _NOT_NEXT:
            negate = True
            continue
        if part in _NOT_BEFORE and kinds and not negate:
            kinds[-1] = "default"
            continue
        kind = _WORDS.get(part) or _WORDS.get(_squash(part))
        if kind is None:
            raise UnknownMode(text, valid_modes())
        kinds.append("default" if negate else kind)
        negate = False
    if negate:  # "no" with nothing after it
        raise UnknownMode(text, valid_modes())
    return _from_parts(set(kinds), text)


def _from_parts(kinds: set[str], text: str) -> Mode:
    """The mode of its ingredients; "default" beside another one adds nothing (``think,
    no tools`` is think)."""
    if kinds == {"default"}:
        return Mode.DEFAULT
    kinds.discard("default")
    if kinds == {"think"}:
        return Mode.THINK
    if kinds == {"tools"}:
        return Mode.TOOLS
    if kinds == {"think", "tools"}:
        return Mode.THINK_TOOLS
    raise UnknownMode(text, valid_modes())


def valid_modes() -> tuple[str, ...]:
    return tuple(m.label for m in Mode)

"""The mode vocabulary: four modes, many spellings, clear refusals."""

from __future__ import annotations

import pytest

from scoring import Mode, UnknownMode, parse_mode, valid_modes


@pytest.mark.parametrize(
    ("text", "mode"),
    [
        ("default", Mode.DEFAULT),
        ("#default", Mode.DEFAULT),
        ("Standard", Mode.DEFAULT),
        ("پیش‌فرض", Mode.DEFAULT),
        ("think", Mode.THINK),
        ("#thinking", Mode.THINK),
        ("Reasoning", Mode.THINK),
        ("تفکر", Mode.THINK),
        ("tools", Mode.TOOLS),
        ("tool-use", Mode.TOOLS),
        ("ابزار", Mode.TOOLS),
        ("think & tools", Mode.THINK_TOOLS),
        ("think_tools", Mode.THINK_TOOLS),
        ("#think_tools", Mode.THINK_TOOLS),
        ("think+tools", Mode.THINK_TOOLS),
        ("t&t", Mode.THINK_TOOLS),
        ("#thinktools", Mode.THINK_TOOLS),
        ("thinking and tools", Mode.THINK_TOOLS),
        ("reasoning + tools", Mode.THINK_TOOLS),
        ("تفکر و ابزار", Mode.THINK_TOOLS),
        ("  THINK  ", Mode.THINK),
    ],
)
def test_spellings_map_onto_the_four_modes(text: str, mode: Mode) -> None:
    assert parse_mode(text) is mode


@pytest.mark.parametrize("text", ["", "banana", "fast", "think fast", "#", "default tools x"])
def test_unknown_modes_list_the_accepted_values(text: str) -> None:
    with pytest.raises(UnknownMode) as caught:
        parse_mode(text)
    for label in ("default", "think", "tools", "think & tools"):
        assert label in str(caught.value)


def test_labels() -> None:
    assert valid_modes() == ("default", "think", "tools", "think & tools")
    assert Mode.THINK_TOOLS.label == "think & tools"


@pytest.mark.parametrize(
    ("text", "mode"),
    [
        # what people type after "mode:" or in a model's name line, as vendors name them
        ("Thinking & Tool Use", Mode.THINK_TOOLS),
        ("thinking + tool use", Mode.THINK_TOOLS),
        ("think w/ tools", Mode.THINK_TOOLS),
        ("think (with tools)", Mode.THINK_TOOLS),
        ("extended thinking + tools", Mode.THINK_TOOLS),
        ("think & tools mode", Mode.THINK_TOOLS),
        ("function calling", Mode.TOOLS),
        ("tools on", Mode.TOOLS),
        ("thinking mode", Mode.THINK),
        ("DeepThink", Mode.THINK),
        ("deep thinking", Mode.THINK),
        ("think, no tools", Mode.THINK),
        ("think w/o tools", Mode.THINK),
        ("default mode", Mode.DEFAULT),
        ("Default (no tools)", Mode.DEFAULT),
        ("non-thinking", Mode.DEFAULT),
        ("non-reasoning", Mode.DEFAULT),
        ("no tools", Mode.DEFAULT),
        ("thinking off", Mode.DEFAULT),
        ("حالت تفکر", Mode.THINK),
        ("تفکر با ابزار", Mode.THINK_TOOLS),
        ("بدون تفکر", Mode.DEFAULT),
    ],
)
def test_the_ways_people_frame_a_mode(text: str, mode: Mode) -> None:
    assert parse_mode(text) is mode


@pytest.mark.parametrize("text", ["mode", "no", "with", "off", "no mode", "think no"])
def test_framing_words_alone_are_no_mode(text: str) -> None:
    with pytest.raises(UnknownMode):
        parse_mode(text)

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

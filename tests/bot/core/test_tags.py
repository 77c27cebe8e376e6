"""Reading tag lines around a submission: the fast reader matches the line-by-line one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.tags import Tags, clean_model, split_tags
from scoring import Mode, ScoringError
from scoring.text import normalise_line_ends


def reference_split(text: str) -> tuple[str, Tags]:
    """The straightforward reading: split every line, blank every tag line (a line of
    unknown hashtags raises at either end of the text, and is kept elsewhere)."""
    from bot.core import tags as t

    found: dict[str, object] = {}
    lines = normalise_line_ends(text).split("\n")
    filled = [i for i, line in enumerate(lines) if line.strip()]
    for i, line in enumerate(lines):
        if line.strip() and t._tag_line(line, found, at_end=i in (filled[0], filled[-1])):
            lines[i] = ""
    fields = found.get("fields", {})
    assert isinstance(fields, dict)
    return "\n".join(lines), Tags(
        benchmark=found.get("benchmark"),  # type: ignore[arg-type]
        mode=found.get("mode"),  # type: ignore[arg-type]
        model=found.get("model"),  # type: ignore[arg-type]
        fields=fields,
    )


LINES = st.sampled_from(
    ["", "  ", "#think", "#zerobench #tools", "model: m1", "model: m2", "target: 12",
     "1:2", "2:none", "prose here", "\r", "cost: 1", "#natory", "#thnk",
     "model: gpt x #think", "#natory target: 8987", "Here are my answers:",
     # every field name, in other cases and scripts (the reader turns lines away by
     # their first character: each of these must still reach it)
     "MODEL: M3", "Mode: think", "BENCHMARK: natory", "K: 3", "\u212a: 2", "k : 4",
     "Latency: 2s", "COST: 0.5", "Target: 13", "مدل: m4", "حالت: think", "هدف: 13",
     "هزینه: 1", "تاخیر: 2", "تأخیر: 3", "  \t#tools", "kappa: 1", "Modes are many",
     # as models write them: emphasis, bullets, dashes, several fields, punctuation
     "**Model:** GPT-5.5", "*model*: **m5**.", "- **Mode:** think", "* model: m6",
     "Model: o5-high, mode: think & tools", "Model - m7", "Model — m8 #tools",
     "Cost - benefit", "- 1: 2", "* 1: 2", "1. 1:2", "**1:2**", "__Model__: m9,",
     "model:m1,mode:tools", "**Model: m10**", "- ", "**", "Model -", "Model -x"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(LINES, max_size=12), st.sampled_from(["\n", "\r\n", "\r"]))
def test_split_tags_matches_the_line_by_line_reading(lines: list[str], sep: str) -> None:
    text = sep.join(lines)
    try:
        expected = reference_split(text)
    except (ScoringError, ValueError) as exc:
        try:
            split_tags(text)
        except type(exc):
            return
        raise AssertionError("the reference raised, the fast reader did not") from exc
    assert split_tags(text) == expected


def test_a_text_without_tag_lines_is_not_copied() -> None:
    text = "1:2\n" * 50_000 + "2:3"
    body, _ = split_tags(text)
    assert body is text


def test_tags_at_both_ends_of_a_large_text_are_read() -> None:
    text = "#think\nmodel: big\n" + "1:2\n" * 100_000 + "#primebench\n"
    body, tags = split_tags(text)
    assert tags.model == "big" and tags.mode is not None and tags.benchmark == "primebench"
    assert body.count("\n") == text.count("\n") and body.startswith("\n\n1:2")


def test_tag_lines_after_prose_are_metadata() -> None:
    body, tags = split_tags("Here are my answers:\nmodel: gemini 3\n#think\n1:3")
    assert body == "Here are my answers:\n\n\n1:3"
    assert tags.model == "gemini 3" and tags.mode is not None and tags.mode.value == "think"


def test_persian_tag_lines_after_prose() -> None:
    body, tags = split_tags("پاسخ‌ها:\nمدل: gemini 3\n#فکر\n1:3")
    assert body == "پاسخ‌ها:\n\n\n1:3"
    assert tags.model == "gemini 3" and tags.mode is not None and tags.mode.value == "think"


def test_several_tags_share_a_line() -> None:
    _, tags = split_tags("model: gpt x #think\n1:3")
    assert tags.model == "gpt x" and tags.mode is not None and tags.mode.value == "think"
    _, tags = split_tags("#natory target: 8987\n8*9+87")
    assert tags.benchmark == "natory" and tags.fields == {"target": "8987"}
    _, tags = split_tags("#tools model: C# coder cost: 0.1\n1:1")
    assert tags.model == "C# coder" and tags.fields == {"cost": "0.1"}


def test_an_unknown_hashtag_in_the_middle_is_an_ordinary_line() -> None:
    body, tags = split_tags("1:2\n#thnk\n2:3")
    assert body == "1:2\n#thnk\n2:3" and tags == Tags()
    try:
        split_tags("1:2\n#thnk")
    except ValueError:
        pass
    else:
        raise AssertionError("an unknown hashtag at the end is an error")


def test_a_bare_hash_is_no_tag() -> None:
    """A Markdown heading (``# Answers``) or a lone ``#`` is an ordinary line wherever it
    stands, and the tags beside it are still read."""
    for text in ["# Answers\n1:3", "1:3\n#", "##\n1:3", "1:3\n## x", "#think\n# Final\n1:3"]:
        body, tags = split_tags(text)
        assert "#" in body and body.count("\n") == text.count("\n"), text
    _, tags = split_tags("#think\n# Final\n1:3")
    assert tags.mode is not None and tags.mode.value == "think"


@pytest.mark.parametrize(
    ("text", "model", "mode"),
    [
        ("**Model:** GPT-5.5", "GPT-5.5", None),
        ("**Model**: GPT-5.5", "GPT-5.5", None),
        ("*Model:* GPT-5.5", "GPT-5.5", None),
        ("__Model:__ GPT-5.5", "GPT-5.5", None),
        ("Model: **GPT-5.5**", "GPT-5.5", None),
        ("**Model: GPT-5.5**", "GPT-5.5", None),
        ("Model: `GPT-5.5`", "GPT-5.5", None),
        ("- **Model:** GPT-5.5", "GPT-5.5", None),
        ("* model: GPT-5.5", "GPT-5.5", None),
        ("Model: o5-high, mode: think & tools", "o5-high", Mode.THINK_TOOLS),
        ("model: o5-high,mode: tools", "o5-high", Mode.TOOLS),
        ("model: o5-high; mode: think", "o5-high", Mode.THINK),
        ("**Model:** o5 **Mode:** think", "o5", Mode.THINK),
        ("Model: o5-high,", "o5-high", None),
        ("Model: GPT-5.5.", "GPT-5.5", None),
        ("Model: **GPT-5.5**.", "GPT-5.5", None),
        ("mode: think.", None, Mode.THINK),
        ("Model - GPT-5.5", "GPT-5.5", None),
        ("Model – GPT-5.5", "GPT-5.5", None),
        ("Model — GPT-5.5 #think", "GPT-5.5", Mode.THINK),
        ("**Model** - GPT-5.5", "GPT-5.5", None),
        ("مدل: جی‌پی‌تی، حالت: think", "جی\u200cپی\u200cتی", Mode.THINK),
        # what stays as typed: inner punctuation and underscores, a comma without a field
        ("model: llama_3_70b", "llama_3_70b", None),
        ("model: Claude 3.5 Sonnet, v2", "Claude 3.5 Sonnet, v2", None),
        ("model: a,b", "a,b", None),
    ],
)
def test_tags_as_models_write_them(text: str, model: str | None, mode: Mode | None) -> None:
    body, tags = split_tags(text + "\n1:2\n")
    assert (tags.model, tags.mode) == (model, mode)
    assert body == "\n1:2\n"  # the tag line is metadata, blanked


@pytest.mark.parametrize(
    "line",
    [
        "Cost - benefit is clear",
        "Mode - any",
        "K - means",
        "- 1: 2",
        "* 1: 2",
        "**1:2**",
        "Model -x",
    ],
)
def test_lines_that_stay_text(line: str) -> None:
    text = f"1:2\n{line}\n2:3\n"
    body, tags = split_tags(text)
    assert body == text and tags == Tags()


def test_a_caption_in_markdown_sets_the_model() -> None:
    _, tags = split_tags("1:2\n", "**Model:** GPT-5.5, mode: think & tools")
    assert (tags.model, tags.mode) == ("GPT-5.5", Mode.THINK_TOOLS)


@pytest.mark.parametrize("name", ["\u200b\u200b", "\u200c", "\ufeff \u2060"])
def test_a_model_name_nothing_of_which_shows_is_no_name(name: str) -> None:
    _, tags = split_tags(f"model: {name}\n1:1")
    assert tags.model is None
    assert clean_model(name) == "" and clean_model(f"GPT{name}5") == f"GPT{name}5"

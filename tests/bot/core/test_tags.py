"""Reading tag lines around a submission: the fast reader matches the line-by-line one."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.tags import Tags, split_tags
from scoring import ScoringError


def reference_split(text: str) -> tuple[str, Tags]:
    """The straightforward reading: split every line, blank tag lines at both ends."""
    from bot.core import tags as t

    found: dict[str, object] = {}
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    start = 0
    while start < len(lines) and (not lines[start].strip() or t._tag_line(lines[start], found)):
        lines[start] = ""
        start += 1
    end = len(lines) - 1
    while end >= start and (not lines[end].strip() or t._tag_line(lines[end], found)):
        lines[end] = ""
        end -= 1
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
     "1:2", "2:none", "prose here", "\r", "cost: 1", "#natory"]
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

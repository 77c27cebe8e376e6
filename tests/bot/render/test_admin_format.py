"""The admins' replies, rendered without Telegram: ``/benchmark add`` says what changed."""

from __future__ import annotations

import pytest

from bot.render.admin_format import BENCHMARK_ADDED, render_benchmark_added


def _added(change: str, *, pending: int = 0, lang: str = "en", version: int = 1) -> str:
    return render_benchmark_added(
        lang,
        change=change,
        title="Tiny <MCQ>",
        name="tinymcq",
        version=version,
        key_version=2,
        pending=pending,
    )


def test_a_changed_key_is_said_with_its_rescore() -> None:
    """The same definition with another key said "unchanged: definition version 1, key
    version 2" while the stored results were being re-scored."""
    said = _added("key", pending=3)
    assert said.splitlines() == [
        "The key of <b>Tiny &lt;MCQ&gt;</b> changed: key version 2 is in use now "
        "(definition version 1 unchanged, #tinymcq).",
        "Re-scoring 3 stored submissions in the background; I will report here.",
    ]
    assert "unchanged:" not in said


@pytest.mark.parametrize(
    ("change", "first"),
    [
        ("new", "<b>Tiny &lt;MCQ&gt;</b> is a benchmark now: definition version 2, key "),
        ("definition", "The definition of <b>Tiny &lt;MCQ&gt;</b> changed: definition versi"),
        ("both", "The definition and the key of <b>Tiny &lt;MCQ&gt;</b> changed: definitio"),
        ("none", "<b>Tiny &lt;MCQ&gt;</b> is unchanged: definition version 2, key version 2"),
    ],
)
def test_each_change_says_what_changed(change: str, first: str) -> None:
    said = _added(change, version=2).splitlines()
    assert said[0].startswith(first)
    assert "version 2" in said[0] and "#tinymcq" in said[0]
    # a change with no stored result to re-score says so; a new or unchanged one does not
    rest = ["No stored submission needs re-scoring."] if change in ("definition", "both") else []
    assert said[1:] == rest


def test_every_change_has_its_persian_answer() -> None:
    for change in BENCHMARK_ADDED:
        persian = _added(change, pending=1, lang="fa")
        english = _added(change, pending=1)
        assert persian != english and "#tinymcq" in persian
        assert "&lt;MCQ&gt;" in persian
    assert "کلید" in _added("key", lang="fa")

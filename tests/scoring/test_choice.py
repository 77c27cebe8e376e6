"""Multiple-choice benchmarks defined by data (scoring.choice): each refused file, and
scoring with a definition's own options and points. Keys are made up here."""

from __future__ import annotations

import json

import pytest

from scoring import choice, primebench, registry
from scoring.errors import DefinitionError

GOOD = '''
name = "tinymcq"
title = "TinyMCQ"
kind = "choice"
options = 5
points = { right = 2, wrong = -1, none = 0 }
prompt = """Answer as Q:O.
"""
credit = "TinyMCQ by Example Lab"
license = "CC BY 4.0"
key = """
1:3
2:1
3:5
4:2
"""
'''


def _with(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new)


@pytest.mark.parametrize(
    ("text", "field", "said"),
    [
        (_with('kind = "choice"', 'kind = "essay"'), "kind", "unknown kind 'essay'"),
        (_with("options = 5", "options = 1"), "options", "must be 2 to 99"),
        (_with("options = 5", 'options = "5"'), "options", "whole number"),
        (_with("3:5", "3:6"), "key", "line 3: the option must be 1 to 5: '3:6'"),
        (_with("3:5", "3:x"), "key", "line 3: expected question:option"),
        (_with('name = "tinymcq"', 'name = "primebench"'), "name", "taken by a built-in"),
        (_with('name = "tinymcq"', 'name = "think"'), "name", "a mode's tag"),
        (_with('name = "tinymcq"', 'name = "Tiny-MCQ"'), "name", "not a name"),
        (_with('name = "tinymcq"', 'name = "b"'), "name", "not a name"),
        (_with('title = "TinyMCQ"\n', ""), "title", "missing (required)"),
        (_with("wrong = -1", "wrong = -1.5"), "points.wrong", "whole number"),
        (_with("wrong = -1", "wrong = true"), "points.wrong", "whole number"),
        (_with("none = 0 ", "nil = 0 "), "points.nil", "unknown"),
        (_with(", none = 0", ""), "points.none", "missing (required)"),
        (_with("credit =", "creditt ="), "creditt", "unknown field; did you mean credit?"),
        (_with("options = 5", "opions = 5"), "opions", "unknown field; did you mean options?"),
        (_with("right = 2", "rigth = 2"), "points.rigth", "unknown; did you mean right?"),
        (_with("key = ", "key_file = 'k.txt'\nkey = "), "key_file", "not both"),
        (GOOD[: GOOD.index("key =")], "key", "missing"),
        ("name = [", "TOML", ""),
        ("", "file", "empty: no fields (required: name, title, kind, options, points, key)"),
        ("# only a comment\n\n", "file", "empty: no fields"),
    ],
)
def test_a_bad_file_is_refused_naming_the_field(text: str, field: str, said: str) -> None:
    before = registry.names()
    with pytest.raises(DefinitionError) as caught:
        definition = choice.read_definition(text)
        registry.check(choice.ChoiceBenchmark(definition))  # the clash is the registry's
    assert caught.value.field == field
    assert str(caught.value).startswith(f"{field}: ") and said in str(caught.value)
    assert "\n" not in str(caught.value)
    assert registry.names() == before  # nothing registered


#: Files made to break the reader rather than to define anything: each is one short line
#: naming what is wrong, never an exception of Python's (RecursionError, ValueError).
HOSTILE = [
    ("a = " + "[" * 3000 + "]" * 3000, "TOML: arrays or inline tables nested too deeply"),
    ("a = " + "{b = " * 3000 + "1" + "}" * 3000, "TOML: arrays or inline tables nested too deeply"),
    (_with("options = 5", "options = " + "[" * 900 + "]" * 900), "TOML: arrays or inline"),
    ("a = " + "9" * 5000, "TOML: a number longer than 4,300 digits"),
    (_with("options = 5", "options." + ".".join("a" * 3000) + " = 1"), "options: must be a who"),
    (_with("options = 5", "options = [" + "1, " * 100_000 + "]"), "options: must be a whole"),
    (_with("options = 5", "options = 1979-05-27"), "options: must be a whole number, not date"),
    (_with('title = "TinyMCQ"', "title = [" + "'x', " * 100_000 + "]"), "title: must be text"),
    (GOOD + '"a\\nb" = 1\n', "'a\\nb': unknown field"),
    (GOOD + '"' + "z" * 100_000 + '" = 1\n', "'zzzzzzz"),
    (_with("none = 0", 'none = 0, "x\\ny" = 1'), "points.'x\\ny': unknown"),
]


@pytest.mark.parametrize(("text", "said"), HOSTILE, ids=range(len(HOSTILE)))
def test_a_hostile_file_is_one_short_line(text: str, said: str) -> None:
    with pytest.raises(DefinitionError) as caught:
        choice.read_definition(text)
    message = str(caught.value)
    assert message.startswith(said)
    assert "\n" not in message and len(message) < 200
    assert message.startswith(f"{caught.value.field}: ")


def test_bytes_are_read_as_utf8_and_refused_naming_the_file() -> None:
    assert choice.read_definition(GOOD.encode()) == choice.read_definition(GOOD)
    with pytest.raises(DefinitionError, match=r"^file: the file is not valid UTF-8"):
        choice.read_definition(b"name = '\xff'")


def test_an_upload_cannot_name_files_and_a_folder_reads_them() -> None:
    text = _with(GOOD[GOOD.index("key =") :], 'key_file = "k.txt"\n')
    with pytest.raises(DefinitionError, match=r"^key_file: not read from an upload"):
        choice.read_definition(text)
    read: list[tuple[str, str]] = []

    def files(field: str, path: str) -> bytes:
        read.append((field, path))
        return b"1:5\n2:4\n"

    definition = choice.read_definition(text, files=files)
    assert read == [("key_file", "k.txt")] and definition.key == b"1:5\n2:4\n"


def test_scores_with_its_own_points_and_options() -> None:
    bench = choice.ChoiceBenchmark(choice.read_definition(GOOD))
    key = bench.load_key(bench.definition.key)
    # 1 right (+2), 2 wrong (-1), 3 right with option 5 (+2), 4 none (0)
    result = bench.score("1:3\n2:4\n3:5\n4:none\n", key)
    assert (result.correct, result.wrong, result.unanswered) == (2, 1, 1)
    assert (result.positive_points, result.negative_points, result.final_score) == (4, 1, 3)
    assert result.primary == 3.0 and result.benchmark == "tinymcq"
    assert bench.format_score(result.primary) == "+3"
    card = result.card()  # PrimeBench's card with this benchmark's own points
    assert {s.field.key: s.value for s in card.summary}["final_score"] == 3
    assert card.bar is not None and [p.value for p in card.bar.points] == [4, 1]
    assert result.to_json()["points"] == {"right": 2, "wrong": -1, "none": 0}
    again = bench.result_from_record(result.to_record())
    assert again == result
    # an unanswered question costs what "none" says; an option past 5 is wrong
    bench2 = choice.ChoiceBenchmark(
        choice.read_definition(
            _with("none = 0", "none = -2")
            .replace("options = 5", "options = 4")
            .replace("3:5", "3:4")
        )
    )
    scored = bench2.score("1:3\n3:9\n", bench2.load_key(bench2.definition.key))
    assert (scored.correct, scored.wrong, scored.unanswered) == (1, 1, 2)
    assert scored.final_score == 2 - 1 - 4 and scored.negative_points == 5
    assert bench.scorer_version != bench2.scorer_version  # points and options are in it


def test_primebench_is_untouched_and_keeps_text_without_a_tag() -> None:
    bench = choice.ChoiceBenchmark(choice.read_definition(GOOD))
    registry.register(bench)
    try:
        assert registry.get("#tinymcq") is bench and registry.find("TinyMCQ") is bench
        assert "tinymcq" in registry.names() and bench in registry.all_benchmarks()
        found = registry.recognising("1:3\n2:1\n")
        assert found is not None and found.name == "primebench"
        with pytest.raises(Exception, match="option must be 1, 2, 3 or 4"):
            primebench.load_key(b"1:5\n")
    finally:
        registry.unregister("tinymcq")
    assert registry.find("tinymcq") is None and "tinymcq" not in registry.names()


def test_a_stored_definition_rebuilds_the_benchmark() -> None:
    definition = choice.read_definition(GOOD)
    bench = choice.from_stored(definition.dumps(), definition.key)
    assert bench.definition == definition
    assert (
        bench.prompt == "Answer as Q:O.\n" and bench.credit == "TinyMCQ by Example Lab · CC BY 4.0"
    )


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        # a line break in the credit made a line of its own under every card and a row
        # of the board's CSV (below the rows, where the credit is its comment line)
        (
            'credit = "TinyMCQ by Example Lab"',
            'credit = "Lab\\n1,Fake,think,verified,x,abc,2026,2026,999"',
            "credit: must be one line, without line breaks or control characters (U+000A at 4)",
        ),
        # U+202E turned "#1 · TITLE · model · +3" backwards after the title in /me
        (
            'title = "TinyMCQ"',
            'title = "Tiny\\u202eMCQ"',
            "title: must be one line, without line breaks or control characters (U+202E at 5)",
        ),
        (
            'license = "CC BY 4.0"',
            'license = "CC\\r\\nBY"',
            "license: must be one line, without line breaks or control characters (U+000D at 3)",
        ),
        ('title = "TinyMCQ"', 'title = "Tiny\\u2067MCQ"', "title: must be one line"),
        ('title = "TinyMCQ"', 'title = "Tiny\\u001b[31mMCQ"', "title: must be one line"),
        # a title of zero-width characters: a benchmark with no name on its pages
        (
            'title = "TinyMCQ"',
            'title = "\\u200b\\u200c\\u2060"',
            "title: empty (nothing in it shows)",
        ),
        ('title = "TinyMCQ"', 'title = "   "', "title: empty"),
    ],
)
def test_a_one_line_field_with_a_control_character_is_refused(
    old: str, new: str, said: str
) -> None:
    with pytest.raises(DefinitionError) as caught:
        choice.read_definition(_with(old, new))
    assert str(caught.value).startswith(said)


def test_a_right_to_left_title_and_a_persian_credit_are_kept() -> None:
    text = _with('title = "TinyMCQ"', 'title = "آزمون کوچک"')
    text = text.replace('credit = "TinyMCQ by Example Lab"', 'credit = "می‌آزماید"')  # ZWNJ
    definition = choice.read_definition(text)
    assert (definition.title, definition.credit) == ("آزمون کوچک", "می\u200cآزماید")


def test_a_stored_definition_with_a_control_character_still_loads() -> None:
    """One stored before they were refused is read as it can be, not left out."""
    definition = choice.read_definition(GOOD)
    table = definition.to_json()
    table["title"], table["credit"] = "Tiny\u202eMCQ", "Lab\nline"
    bench = choice.from_stored(json.dumps(table), definition.key)
    assert (bench.title, bench.definition.credit) == ("TinyMCQ", "Lab line")

"""ZeroBench: the official check, the lenient re-check, formats, metrics, keys, hostile input."""

from __future__ import annotations

import json
import re
import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import DecodeError, KeyFormatError, ScoringError, decode, publishable, registry
from scoring import zerobench as zb
from scoring.zerobench.submission import read_submission


def official_reference(response: str, gt: str) -> bool:
    """The official README's check, literally."""
    formatted_response = response.strip().lower()
    try:
        pattern = r"\{(.*?)\}"
        parsed_answer = re.findall(pattern, formatted_response)[-1]
    except IndexError:
        parsed_answer = ""
    return parsed_answer[: len(gt)].lower() == gt.strip().lower() and len(parsed_answer) == len(
        gt.strip()
    )


def make_key(main: dict[str, str], sub: dict[str, str] | None = None) -> zb.ZeroKey:
    data = {zb.MAIN_SPLIT: main, zb.SUB_SPLIT: sub or {}}
    return zb.load_key(json.dumps(data).encode())


def jsonl(*records: object) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


# --- the official rule, table-driven -------------------------------------------------

OFFICIAL_CASES = [
    # (response, ground truth, official verdict, why)
    ("{42}", "42", True, "plain"),
    ("The answer is {42}", "42", True, "text before"),
    ("  {42}  \n", "42", True, "response stripped"),
    ("{ 42 }", "42", False, "no trimming inside braces"),
    ("{42 }", "42", False, "trailing space inside braces"),
    ("{11.9}", "11.90", False, "11.9 is not 11.90"),
    ("{11.90}", "11.90", True, "exact decimal"),
    ("{\\frac{1}{2}}", "1/2", False, "nested braces parse as 2"),
    ("{\\frac{1}{2}}", "2", True, "nested braces parse as 2 (so 2 is right)"),
    ("42", "42", False, "no braces"),
    ("", "42", False, "empty response"),
    ("{41} then {42}", "42", True, "last match wins"),
    ("{42} then {41}", "42", False, "last match wins (wrong)"),
    ("{PARIS}", "paris", True, "case-insensitive"),
    ("{paris}", "Paris", True, "ground truth lowercased"),
    ("{4\n2}", "42", False, "a match never spans a line break"),
    ("{42}\n{", "42", True, "dangling brace after"),
    ("{{42}", "42", False, "greedy-from-left: {{42} reads '{42'"),
    ("{42.}", "42", False, "trailing period"),
    ("{42}", " 42 ", True, "ground truth stripped"),
    ("{4}", "42", False, "prefix only"),
    ("{420}", "42", False, "longer"),
    ("{}", "42", False, "empty braces"),
    ("{a{b}c}", "b", False, "first { opens: reads 'a{b'"),
    ("{a{b}c}", "a{b", True, "first { opens: reads 'a{b'"),
    ("x}{42}", "42", True, "stray closing brace first"),
    ("{İ}", "i̇", True, "unicode lowercasing follows str.lower"),
]


@pytest.mark.parametrize(("response", "gt", "expected", "why"), OFFICIAL_CASES)
def test_official_check(response: str, gt: str, expected: bool, why: str) -> None:
    assert official_reference(response, gt) is expected, why  # the table itself is right
    assert zb.official_check(response, gt) is expected, why
    key = make_key({"q": gt})
    result = zb.score(jsonl({"question_id": "q", "response": response}), key, k=1)
    assert result.main.official.correct_attempts == int(expected), why


@given(st.text(alphabet="{}\n ab.1İ", max_size=40), st.text(alphabet="ab1. ", max_size=5))
@settings(max_examples=500, deadline=None)
def test_official_parse_matches_the_regex(response: str, gt: str) -> None:
    formatted = response.strip().lower()
    matches = re.findall(r"\{(.*?)\}", formatted)
    assert zb.official_parse(response) == (matches[-1] if matches else "")
    assert zb.official_check(response, gt) is official_reference(response, gt)


def test_lowering_twice_changes_nothing() -> None:
    """The scorer lowers the text it reads once, where the official rule lowers it
    again before comparing: the same, for every code point."""
    lowered = "".join(map(chr, range(sys.maxunicode + 1))).lower()
    assert lowered.lower() == lowered


LENIENT_CASES = [
    # (response, gt, lenient verdict, hint code or None)
    ("{ 42 }", "42", True, "spaces_in_braces"),
    ("{42.}", "42", True, "trailing_period"),
    ("{11.9}", "11.90", True, "number_format"),
    ("{ 11.9. }", "11.90", True, "number_format"),
    ("{1e1}", "10", True, "number_format"),
    ("{43}", "42", False, None),
    ("42", "42", False, "no_braces"),
    ("{4\n2}", "42", False, "braces_across_lines"),
    ("{\\frac{1}{2}}", "1/2", False, "nested_braces"),
    ("{42} so finally {41}", "42", False, "earlier_braces"),
    ("{.}", "42", False, None),
]


@pytest.mark.parametrize(("response", "gt", "lenient", "code"), LENIENT_CASES)
def test_lenient_and_hints(response: str, gt: str, lenient: bool, code: str | None) -> None:
    assert zb.lenient_check(response, gt) is lenient
    key = make_key({"q": gt})
    result = zb.score(jsonl({"question_id": "q", "response": response}), key, k=1)
    assert result.main.official.correct_attempts == 0  # hints never change the score
    assert result.main.lenient.correct_attempts == int(lenient)
    codes = {h.code for h in result.hints}
    if code is None:
        assert not codes
    else:
        assert code in codes
        hint = next(h for h in result.hints if h.code == code)
        assert hint.lines == (1,)
    assert result.primary == 0.0


def test_nested_hint_says_what_was_read() -> None:
    key = make_key({"q": "1/2"})
    result = zb.score(jsonl({"question_id": "q", "response": "so {\\frac{1}{2}}"}), key)
    (hint,) = [h for h in result.hints if h.code == "nested_braces"]
    assert '"2"' in hint.message and "\\frac{1}{2}" in hint.message


def test_no_hint_for_correct_answers() -> None:
    key = make_key({"q": "2"})
    result = zb.score(jsonl({"question_id": "q", "response": "{\\frac{1}{2}}"}), key, k=1)
    assert result.main.official.correct_attempts == 1
    assert result.hints == ()


# --- metrics -------------------------------------------------------------------------


def test_pass_at_k_metrics_with_counts() -> None:
    key = make_key({"a": "1", "b": "2", "c": "3", "d": "4"}, {"s1": "x"})
    text = jsonl(
        *[{"question_id": "a", "response": "{1}"} for _ in range(3)],  # 3/3 right
        {"question_id": "b", "response": "{0}"},
        {"question_id": "b", "response": "{2}"},
        {"question_id": "b", "response": "{0}"},  # 1/3 right
        *[{"question_id": "c", "response": "{0}"} for _ in range(3)],  # 0/3
        {"question_id": "s1", "responses": ["{x}", "{y}", "{x}"]},  # 2/3
    )
    result = zb.score(text, key, k=3)
    main = result.main
    assert main.questions == 4
    assert main.unattempted == ("d",)  # counts as failed
    assert main.official.pass_at_1_count == pytest.approx(1 + 1 / 3)
    assert main.official.pass_at_1 == pytest.approx((1 + 1 / 3) / 4)
    assert (main.official.pass_at_k_count, main.official.pass_at_k) == (2, 0.5)
    assert (main.official.reliability_count, main.official.reliability) == (1, 0.25)
    assert result.sub.official.pass_at_1 == pytest.approx(2 / 3)
    assert result.sub.official.pass_at_k_count == 1
    assert result.sub.official.reliability_count == 0
    assert result.primary == main.official.pass_at_1
    assert result.primary_split == zb.MAIN_SPLIT
    fields = {s.field.key: (s.value, s.of) for s in result.card().summary}
    assert fields["main_pass_at_k"] == (0.5, (2, 4))
    assert fields["main_reliability"] == (0.25, (1, 4))
    assert fields["main_pass_at_1"] == (pytest.approx(1 / 3), (pytest.approx(4 / 3), 4))
    assert fields["main_unattempted"] == (1, None)
    assert fields["sub_pass_at_k"] == (1.0, (1, 1))


def test_first_k_attempts_only_and_fewer_than_k_reported() -> None:
    key = make_key({"a": "1", "b": "2"})
    text = jsonl(
        *[{"question_id": "a", "response": "{0}"} for _ in range(2)],
        {"question_id": "a", "response": "{1}"},  # the third attempt: beyond k=2
        {"question_id": "b", "response": "{2}"},  # one attempt of two
    )
    result = zb.score(text, key, k=2)
    assert result.main.attempts == 4
    assert result.main.attempts_scored == 3
    assert result.main.official.correct_attempts == 1
    assert result.main.official.pass_at_k_count == 1  # a's right answer came too late
    assert result.main.fewer_than_k == ("b",)
    assert result.main.official.pass_at_1_count == 1.0  # b: 1/1, not padded to 1/2
    assert result.main.official.reliability_count == 0  # b cannot be 2/2
    codes = [h.code for h in result.hints]
    assert "fewer_than_k" in codes and "more_than_k" in codes


def test_pass_at_1_with_one_attempt_is_accuracy() -> None:
    key = make_key({str(i): str(i) for i in range(10)})
    text = jsonl(
        *[{"question_id": str(i), "response": f"{{{i if i < 3 else 'x'}}}"} for i in range(10)]
    )
    result = zb.score(text, key, k=1)
    assert result.main.official.pass_at_1 == pytest.approx(0.3)
    assert result.main.official.pass_at_k == pytest.approx(0.3)
    assert result.main.official.reliability == pytest.approx(0.3)
    assert result.main.fewer_than_k == ()


@pytest.mark.parametrize(
    "bad", [0, -1, True, 1.5, "x", "0", 10_001, "9" * 5000, "\u00b2", "\u0669"]
)
def test_k_is_validated(bad: object) -> None:
    key = make_key({"a": "1"})
    with pytest.raises(ScoringError, match="k must be a whole number from 1 to 10000"):
        zb.BENCHMARK.score("", key, options={"k": bad})


def test_a_k_tag_of_thousands_of_digits_is_refused_briefly() -> None:
    with pytest.raises(ScoringError) as caught:
        zb.BENCHMARK.options_from_tags({"k": "9" * 5000})
    assert len(str(caught.value)) < 120


def test_k_default_and_option() -> None:
    key = make_key({"a": "1"})
    assert zb.BENCHMARK.score("", key).k == 5
    assert zb.BENCHMARK.score("", key, options={"k": 3}).k == 3
    assert zb.BENCHMARK.score("", key, options={"k": "2"}).k == 2


def test_primary_falls_back_to_subquestions_only_without_main_questions_in_key() -> None:
    sub_only = make_key({}, {"s": "1"})
    result = zb.score(jsonl({"question_id": "s", "response": "{1}"}), sub_only)
    assert result.primary_split == zb.SUB_SPLIT
    assert result.primary == 1.0
    full = make_key({"m": "1"}, {"s": "1"})
    result = zb.score(jsonl({"question_id": "s", "response": "{1}"}), full)
    assert result.primary_split == zb.MAIN_SPLIT
    assert result.primary == 0.0
    assert "no_main_attempts" in {h.code for h in result.hints}
    assert result.sub.official.pass_at_1 == 1.0


def test_unknown_ids_listed_and_ignored() -> None:
    key = make_key({"a": "1"})
    result = zb.score(
        jsonl({"question_id": "zz", "response": "{1}"}, {"question_id": 7, "response": "{1}"}), key
    )
    assert result.unknown_ids == ("7", "zz")
    assert result.unknown_questions == ("7", "zz")
    assert result.main.official.correct_attempts == 0


def test_empty_key_split_has_no_fractions() -> None:
    key = make_key({"a": "1"})
    data = zb.score("", key).to_json()
    assert data["subquestions"]["questions"] == 0
    assert data["subquestions"]["pass_at_1"] is None


# --- submission formats --------------------------------------------------------------

KEY = {"1": "42", "2": "7", "3": "x"}


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        (
            jsonl({"question_id": "1", "response": "{42}"}, {"question_id": 2, "response": "{7}"}),
            "jsonl",
        ),
        (
            jsonl(
                {"question_id": "1", "responses": ["{42}"]},
                {"question_id": "2", "responses": ["{7}"]},
            ),
            "jsonl",
        ),
        (json.dumps({"1": "{42}", "2": ["{7}"]}), "json"),
        (json.dumps({"1": "{42}", "2": "{7}"}, indent=2), "json"),
        ('question_id,response\n1,{42}\n2,"the answer\nis {7}"\n', "csv"),
        (
            "Question_ID, Ground_Truth, Model_Output, Correct?\n"
            '1, 42, "Let\'s see, {42}", True\n2, 7, "{7}", True\n',
            "official_csv",
        ),
        (
            ",Question_ID,Ground_Truth,Model_Output,Correct?\n0,1,42,{42},True\n1,2,7,{7},True\n",
            "official_csv",
        ),
        ("\ufeffquestion_id,response\r\n1,{42}\r\n2,{7}\r\n", "csv"),
    ],
)
def test_formats(text: str, fmt: str) -> None:
    result = zb.score(text, make_key(KEY), k=1)
    assert result.submission_format == fmt
    assert result.invalid_line_count == 0, result.invalid_lines
    assert result.main.official.correct_attempts == 2
    assert result.main.unattempted == ("3",)


@pytest.mark.parametrize(
    "text",
    [
        '[{"question_id":"1","response":"{42}"},{"question_id":2,"response":"{7}"}]',
        json.dumps(
            [{"question_id": "1", "responses": ["{42}"]}, {"response": "{7}", "question_id": "2"}],
            indent=2,
        ),
    ],
)
def test_a_json_array_of_records(text: str) -> None:
    """``json.dump`` of a list of records, pandas' ``to_json(orient="records")``: read as
    its records (it was "could not tell the file's format", scored 0 % and publishable)."""
    assert registry.recognising(text) is registry.get("zerobench")
    result = zb.score(text, make_key(KEY), k=1)
    assert result.submission_format == "json"
    assert result.invalid_line_count == 0, result.invalid_lines
    assert result.main.official.correct_attempts == 2


def test_a_json_array_reports_what_is_no_record_by_line() -> None:
    text = '[\n  {"question_id": "1", "response": "{42}"},\n  "x", 3,\n  {"question_id": "2"}\n]'
    result = zb.score(text, make_key(KEY), k=1)
    assert [bad.line for bad in result.invalid_lines] == [3, 4]
    assert result.main.official.correct_attempts == 1
    found = registry.recognising("[1, 2, 3]")  # an array of no records is none of its
    assert found is None or found.name != "zerobench"


def test_one_record_spread_over_lines() -> None:
    text = '{\n  "question_id": "1",\n  "responses": ["{0}", "{42}"]\n}\n'
    result = zb.score(text, make_key(KEY), k=2)
    assert result.submission_format == "jsonl"
    assert (result.main.attempts, result.main.official.correct_attempts) == (2, 1)


def test_jsonl_several_lines_are_attempts_in_file_order() -> None:
    key = make_key({"1": "42"})
    text = jsonl(*[{"question_id": "1", "response": r} for r in ("{0}", "{42}", "{42}")])
    assert zb.score(text, key, k=1).main.official.correct_attempts == 0
    assert zb.score(text, key, k=2).main.official.correct_attempts == 1


def test_jsonl_invalid_lines_reported_with_numbers() -> None:
    text = (
        '{"question_id": "1", "response": "{42}"}\n'
        "not json\n"
        "\n"
        '{"question_id": "2"}\n'
        '{"response": "{7}"}\n'
        '{"question_id": "2", "response": 7}\n'
        '{"question_id": "2", "responses": ["{7}", 7]}\n'
        '{"question_id": "2", "response": "{7}", "responses": ["{7}"]}\n'
        "[1, 2]\n"
        '{"question_id": true, "response": "{7}"}\n'
        '{"question_id": "3", "response": "{x}"}\n'
    )
    result = zb.score(text, make_key(KEY))
    assert [il.line for il in result.invalid_lines] == [2, 4, 5, 6, 7, 8, 9, 10]
    assert result.invalid_lines[0].text == "not json"
    assert result.invalid_line_count == 8
    assert result.main.official.correct_attempts == 2


def test_json_object_bad_entries_reported() -> None:
    text = '{\n  "1": "{42}",\n  "2": 7,\n  "3": ["{x}", null],\n  "1": "{0}"\n}\n'
    result = zb.score(text, make_key(KEY))
    assert [(il.line, il.text) for il in result.invalid_lines] == [
        (3, '"2": 7'),
        (4, '"3": ["{x}", null]'),
    ]
    assert result.main.attempts == 2  # the repeated "1" is a second attempt
    assert "duplicate_ids" in {h.code for h in result.hints}


def test_csv_bad_rows_reported() -> None:
    text = "question_id,response\n1,{42}\n2\n,{7}\n3,{x},extra\n3,{x}\n"
    result = zb.score(text, make_key(KEY))
    assert [il.line for il in result.invalid_lines] == [3, 4, 5]
    assert result.main.official.correct_attempts == 2


def test_official_csv_correct_column_disagreement_is_a_hint() -> None:
    text = "Question_ID,Ground_Truth,Model_Output,Correct?\n1,41,{41},True\n"
    result = zb.score(text, make_key(KEY))
    assert result.main.official.correct_attempts == 0
    assert "correct_column_differs" in {h.code for h in result.hints}


@pytest.mark.parametrize("text", ["hello\nworld\n", "1:3\n", "[1, 2, 3]", '"just a string"'])
def test_unknown_format_reports_every_line(text: str) -> None:
    result = zb.score(text, make_key(KEY))
    assert result.submission_format == "unknown"
    assert result.invalid_line_count == len([x for x in text.split("\n") if x.strip()])
    assert "unknown_format" in {h.code for h in result.hints}


def test_broken_json_document_reports_the_error_line() -> None:
    text = '{\n  "1": "{42}",\n  "2": "{7}"\n  "3": "{x}"\n}\n'
    result = zb.score(text, make_key(KEY))
    assert [il.line for il in result.invalid_lines] == [4]
    assert "invalid_json" in {h.code for h in result.hints}


def test_empty_and_blank_submissions() -> None:
    for text in ("", "\n\n  \n", "{}"):
        result = zb.score(text, make_key(KEY))
        assert result.invalid_line_count == 0
        assert result.main.attempted == 0
        assert result.primary == 0.0


# --- hostile input -------------------------------------------------------------------


def test_a_20_megabyte_jsonl_line() -> None:
    response = "x" * (20 * 1024 * 1024) + "{42}"
    result = zb.score(jsonl({"question_id": "1", "response": response}), make_key(KEY))
    assert result.main.official.correct_attempts == 1


def test_a_20_megabyte_line_of_opening_braces_is_linear() -> None:
    # re.findall(r"\{(.*?)\}") is quadratic here; the scorer must not be.
    response = "{" * (20 * 1024 * 1024)
    result = zb.score(jsonl({"question_id": "1", "response": response}), make_key(KEY))
    assert result.main.official.correct_attempts == 0
    assert "no_braces" in {h.code for h in result.hints}


def test_a_20_megabyte_line_that_is_not_json() -> None:
    text = "{" + "a" * (20 * 1024 * 1024)
    result = zb.score(text, make_key(KEY))
    assert result.invalid_line_count == 1
    assert len(result.invalid_lines[0].text) < 2000  # kept short in the report


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"1": ' + "[" * 100_000 + "]" * 100_000 + "}",
        '{"question_id": "1", "response": "{42}"}\n' + '{"a": ' + "[" * 100_000 + "\n",
    ],
)
def test_deeply_nested_json_does_not_crash(text: str) -> None:
    result = zb.score(text, make_key(KEY))
    assert result.invalid_line_count >= 1


def test_deep_nesting_in_jsonl_line_is_reported() -> None:
    text = (
        jsonl({"question_id": "1", "response": "{42}"}) + '{"question_id": ' + "[" * 100_000 + "\n"
    )
    result = zb.score(text, make_key(KEY))
    assert result.main.official.correct_attempts == 1
    assert [il.line for il in result.invalid_lines] == [2]
    assert "too_deeply_nested" in {h.code for h in result.hints}


def test_csv_with_a_10_megabyte_cell() -> None:
    cell = "y" * (10 * 1024 * 1024) + " {42}"
    result = zb.score(f'question_id,response\n1,"{cell}"\n2,{{7}}\n', make_key(KEY))
    assert result.invalid_line_count == 0
    assert result.main.official.correct_attempts == 2


def test_invalid_utf8_and_binary_are_refused_by_decode() -> None:
    with pytest.raises(DecodeError, match="not valid UTF-8"):
        decode(b'{"question_id": "1", "response": "\xff"}')
    with pytest.raises(DecodeError, match="binary"):
        decode(b"\x89PNG\r\n\x1a\n\x00\x00")


def test_lone_surrogates_from_json_escapes_stay_printable() -> None:
    text = (
        '{"question_id": "1", "response": "{\\ud800}"}\n'
        '{"question_id": "\\udfff", "response": "{1}"}\n'
    )
    result = zb.score(text, make_key(KEY))
    json.dumps(result.to_json(), ensure_ascii=False).encode("utf-8")
    for hint in result.hints:
        hint.message.encode("utf-8")
    assert [il.line for il in result.invalid_lines] == [2]


@given(st.text(max_size=300))
@settings(max_examples=300, deadline=None)
def test_scoring_never_raises(text: str) -> None:
    result = zb.score(text, make_key(KEY))
    assert 0.0 <= result.primary <= 1.0
    json.dumps(result.to_record())


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["1", "2", "3", "9"]), st.text(alphabet="{}\n 4279x.", max_size=12)
        ),
        max_size=12,
    ),
    st.integers(min_value=1, max_value=4),
)
@settings(max_examples=200, deadline=None)
def test_metrics_agree_with_a_direct_computation(attempts: list[tuple[str, str]], k: int) -> None:
    key = make_key(KEY)
    text = jsonl(*[{"question_id": q, "response": r} for q, r in attempts])
    result = zb.score(text, key, k=k)
    per: dict[str, list[bool]] = {}
    for qid, response in attempts:
        if qid in KEY:
            per.setdefault(qid, []).append(official_reference(response, KEY[qid]))
    firsts = {q: v[:k] for q, v in per.items()}
    pass1 = sum((Fraction(sum(v), len(v)) for v in firsts.values()), Fraction(0)) / len(KEY)
    assert result.main.official.pass_at_1 == float(pass1)  # the exact ratio, rounded once
    assert result.main.official.pass_at_k_count == sum(any(v) for v in firsts.values())
    assert result.main.official.reliability_count == sum(
        len(v) == k and all(v) for v in firsts.values()
    )
    assert result.main.fewer_than_k == tuple(sorted(q for q, v in firsts.items() if len(v) < k))


# --- result round trip ---------------------------------------------------------------


def test_record_round_trip_and_fingerprint() -> None:
    key = make_key(KEY, {"s": "1"})
    text = jsonl(
        {"question_id": "1", "response": "{ 42 }"}, {"question_id": "zz", "response": "x"}, "bad"
    )
    result = zb.score(text, key)
    again = zb.BENCHMARK.result_from_record(json.loads(json.dumps(result.to_record())))
    assert again == result
    same_answers = jsonl({"question_id": "1", "response": "other reasoning... { 42 }"})
    assert zb.score(same_answers, key).fingerprint == result.fingerprint
    assert (
        zb.score(jsonl({"question_id": "1", "response": "{43}"}), key).fingerprint
        != result.fingerprint
    )


def test_json_shape() -> None:
    data = zb.score(jsonl({"question_id": "1", "response": "{42}"}), make_key(KEY)).to_json()
    for split in ("main", "subquestions"):
        part = data[split]
        for name in (
            "questions", "attempts", "pass_at_1", "pass_at_1_count", "pass_at_k",
            "pass_at_k_count", "reliability_k_of_k", "reliability_k_of_k_count",
            "fewer_than_k", "unattempted_ids", "lenient",
        ):  # fmt: skip
            assert name in part
        assert "not the official rule" in part["lenient"]["note"]
    assert data["k"] == 5 and data["primary_split"] == "zerobench"
    assert {"invalid_lines", "unknown_ids", "hints"} <= set(data)


def test_registry_knows_zerobench() -> None:
    assert registry.get("ZeroBench") is zb.BENCHMARK
    assert registry.get("#zero-bench") is zb.BENCHMARK


# --- the key -------------------------------------------------------------------------


def test_key_flat_json_is_main() -> None:
    key = zb.load_key(b'{"1": "42", "2": " 11.90 ", "3": 7}')
    assert dict(key.main) == {"1": "42", "2": " 11.90 ", "3": "7"}  # kept exactly
    assert dict(key.sub) == {}


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["1", " 1", "2 ", " ", "zerobench", "q"]),
            st.one_of(st.sampled_from(["42", " 7 ", "", "  "]), st.integers(0, 9)),
        ),
        max_size=5,
    )
)
@settings(max_examples=300, deadline=None)
def test_a_flat_key_reads_as_its_entries_say(entries: list[tuple[str, str | int]]) -> None:
    """However its entries are written, a flat key keeps each stripped id with its
    answer as written, or names the first entry that is wrong (a key of the usual shape
    is kept as read, any other is checked entry by entry: both read the same)."""
    data = "{" + ", ".join(f"{json.dumps(q)}: {json.dumps(a)}" for q, a in entries) + "}"
    expected: dict[str, str] = {}
    error = None
    for qid, answer in entries:
        if not qid.strip():
            error = "empty question id"
        elif not str(answer).strip():
            error = "is empty"
        elif qid.strip() in expected:
            error = "appears twice"
        else:
            expected[qid.strip()] = str(answer)
            continue
        break
    if error is None and not expected:
        error = "holds no answers"
    if error is not None:
        with pytest.raises(KeyFormatError, match=error):
            zb.load_key(data.encode())
    else:
        key = zb.load_key(data.encode())
        assert (dict(key.main), dict(key.sub)) == (expected, {})


def test_key_two_splits_and_dump_round_trip() -> None:
    data = {zb.MAIN_SPLIT: {"1": "42"}, zb.SUB_SPLIT: {"1_1": "a", "1_2": "b"}}
    key = zb.load_key(json.dumps(data).encode())
    assert (len(key.main), len(key.sub)) == (1, 2)
    again = zb.load_key(zb.dump_key(key))
    assert (again.main, again.sub) == (key.main, key.sub)


def test_key_csv_with_and_without_split() -> None:
    key = zb.load_key(b'question_id,question_answer\n1,42\n2,"a, b"\n')
    assert dict(key.main) == {"1": "42", "2": "a, b"}
    key = zb.load_key(
        b"question_id,question_answer,split\n1,42,zerobench\n1_1,7,zerobench_subquestions\n"
    )
    assert (dict(key.main), dict(key.sub)) == ({"1": "42"}, {"1_1": "7"})


@pytest.mark.parametrize(
    ("data", "message", "line"),
    [
        (b"", "empty", None),
        (b"{}", "holds no answers", None),
        (b'{"1": "42",\n "1": "43"}', "appears twice", 2),
        (b'{"1": "42",\n "2": 11.9}', "must be text", 2),
        (b'{"1": "42",\n "2": ""}', "is empty", 2),
        (b'{"1": "42",\n "2": null}', "must be text", 2),
        (b'{"1": "42"\n "2": "1"}', "not valid JSON", 2),
        (b'{"zerobench": {"1": "4"}, "other": {"2": "5"}}', "unexpected entry", 1),
        (b'{"zerobench": {"1": "4"}, "zerobench_subquestions": {"1": "5"}}', "appears twice", 1),
        (b"[1, 2]", "must be a JSON object", None),
        (b"[" * 100_000, "nested too deeply", None),
        (b"id,answer\n1,2\n", "needs a header", 1),
        (b"question_id,question_answer\n1,42\n2\n", "expected 2 fields", 3),
        (b"question_id,question_answer,split\n1,42,main\n", "split must be", 2),
        (b"question_id,question_answer\n1,42\n1,43\n", "appears twice", 3),
        (b"\xff\xfe", "UTF-8", None),
    ],
)
def test_key_errors_are_strict(data: bytes, message: str, line: int | None) -> None:
    with pytest.raises((KeyFormatError, DecodeError), match=message) as info:
        zb.load_key(data)
    if line is not None:
        assert isinstance(info.value, KeyFormatError) and info.value.line == line


def test_question_ids_of_any_length_sort_naturally() -> None:
    """Ids sort as numbers where they hold digits (q2 before q10), however many digits:
    an id of 5,000 digits, or a superscript digit, does not make scoring raise."""
    key = make_key({"q10": "1", "q2": "1", "q" + "9" * 5000: "1", "q²": "1", "q02x": "1"})
    result = zb.score(jsonl({"question_id": "8" * 5000, "response": "{1}"}), key, k=1)
    long_id = "q" + "9" * 5000
    assert result.main.unattempted == ("q2", "q02x", "q10", long_id, "q²")


# --- CSV as tools write it: a bare CR inside a field is data ---------------------------


def pandas_official_csv(rows: list[tuple[str, str, str, bool]]) -> str:
    """The official snippet's DataFrame as ``df.to_csv(path)`` writes it with pandas'
    defaults (index column, ``\\n`` line ends, minimal quoting): a field holding a bare
    ``\\r`` is not quoted, since ``\\r`` is not in the line terminator. Written by hand
    here (the bytes pandas 2.x produces) so the test needs no pandas."""
    out = [",Question_ID,Ground_Truth,Model_Output,Correct?\n"]
    for index, (qid, gt, output, correct) in enumerate(rows):
        quoted = any(c in output for c in ',"\n')
        cell = '"' + output.replace('"', '""') + '"' if quoted else output
        out.append(f"{index},{qid},{gt},{cell},{correct}\n")
    return "".join(out)


def test_pandas_csv_with_a_bare_cr_in_model_output_counts_every_row() -> None:
    text = pandas_official_csv(
        [("1", "42", "Let me think\rso the answer is {42}", True), ("2", "7", "{7}", True)]
    )
    assert "think\rso" in text  # unquoted, as pandas leaves it
    result = zb.score(text, make_key(KEY), k=1)
    assert result.submission_format == "official_csv"
    assert result.invalid_line_count == 0, result.invalid_lines
    assert result.main.attempts == 2
    assert result.main.official.correct_attempts == 2
    assert not {h.code for h in result.hints} & {"correct_column_differs"}


def test_bare_cr_keeps_the_response_and_line_numbers_of_newline_lines() -> None:
    text = "question_id,response\n1,first\rsecond {42}\n2\n3,{x}\r\n"
    sub = read_submission(text)
    assert sub.attempts == [("1", "first\rsecond {42}", 2), ("3", "{x}", 4)]
    assert [(il.line, il.text) for il in sub.invalid] == [(3, "2")]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("question_id,response\r\n1,a\rb {42}\r\n2,{7}\r\n", "CRLF file, a bare CR inside"),
        ("question_id,response\n1,a\r\rb {42}\n2,{7}\r\r\n", "runs of CRs, CRCRLF line end"),
        ('question_id,response\n1,"a\rb\nc {42}"\n2,{7}\n', "a CR inside a quoted field"),
        ("question_id,response\r1,{42}\r2,{7}\r", "no \\n at all: CR is the line break"),
        ("question_id,response\n1,{42}\n2,{7}\r", "a CR at the very end"),
    ],
)
def test_carriage_returns_as_tools_write_them(text: str, why: str) -> None:
    result = zb.score(text, make_key(KEY), k=1)
    assert result.invalid_line_count == 0, (why, result.invalid_lines)
    assert result.main.official.correct_attempts == 2, why


def test_bare_cr_with_private_use_characters_in_the_text() -> None:
    used = "".join(chr(p) for p in range(0xE000, 0xE100))
    text = f"question_id,response\n1,{used}\r{{42}}\n2,{{7}}\n"
    sub = read_submission(text)
    assert sub.attempts[0] == ("1", used + "\r{42}", 2)


def test_key_csv_with_a_bare_cr_in_an_answer_reads() -> None:
    key = zb.load_key(b"question_id,question_answer\n1,4\r2\n2,7\n")
    assert dict(key.main) == {"1": "4\r2", "2": "7"}


def test_a_file_with_no_attempt_read_cannot_be_published() -> None:
    """An unreadable file, or one of only ids the key lacks, is no 0 % result."""
    key = make_key(KEY)
    assert publishable(zb.score('{"question_id": "1", "response": "{0}"}', key, k=1))
    for text in ("1: {42}\n2: {7}", '{"question_id": "99", "response": "{42}"}', "[]"):
        result = zb.score(text, key, k=1)
        assert result.main.official.pass_at_1 == 0
        assert not publishable(result), text

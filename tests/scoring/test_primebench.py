"""PrimeBench rules, one table row per rule of shared/specs/primebench.md."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import MAX_REPORTED_INVALID_LINES, KeyFormatError, decode, registry
from scoring import primebench as pb
from scoring.base import Hint
from scoring.errors import DecodeError

# A generated key: question n's answer is (n % 4) + 1, so 1:2, 2:3, 3:4, 4:1, 5:2 ...
KEY5 = pb.load_key(b"1:2\n2:3\n3:4\n4:1\n5:2\n")


def generated_key(n: int, seed: int = 7) -> pb.PrimeKey:
    rng = random.Random(seed)
    return pb.load_key("\n".join(f"{q}:{rng.randint(1, 4)}" for q in range(1, n + 1)).encode())


@pytest.mark.parametrize(
    ("text", "correct", "wrong", "unanswered"),
    [
        ("1:2", 1, 0, 4),
        ("1:3", 0, 1, 4),
        ("1:none", 0, 0, 5),
        ("1:NONE\n2:None", 0, 0, 5),
        ("", 0, 0, 5),
        # separators: commas, semicolons, whitespace, several per line
        ("1:2, 2:3; 3:4 4:1\t5:2", 5, 0, 0),
        ("1:2,2:3;;3:4", 3, 0, 2),
        # whitespace around the colon is removed
        ("1 : 2\n2 :3\n3: 4", 3, 0, 2),
        # last answer stands
        ("1:3\n1:2", 1, 0, 4),
        ("1:2\n1:3", 0, 1, 4),
        ("1:2\n1:none", 0, 0, 5),
        ("1:2 1:3", 0, 1, 4),
        # options outside 1-4 are parseable but wrong
        ("1:7", 0, 1, 4),
        ("2:0", 0, 1, 4),
        # leading zeros are folded
        ("4:01", 1, 0, 4),
        ("04:1", 1, 0, 4),
        ("5:0002", 1, 0, 4),
        # CRLF and CR line breaks
        ("1:2\r\n2:3\r3:4", 3, 0, 2),
    ],
)
def test_counting_rules(text: str, correct: int, wrong: int, unanswered: int) -> None:
    result = pb.score(text, KEY5)
    assert (result.correct, result.wrong, result.unanswered) == (correct, wrong, unanswered)
    assert result.final_score == correct - 3 * wrong
    assert result.positive_points == correct
    assert result.negative_points == 3 * wrong


@pytest.mark.parametrize(
    "line",
    [
        "Q1:2",
        "1-3",
        "1:3.",
        "۱:۳",
        "١:٣",
        "1：3",
        "prose about the answer",
        "1:2:3",
        "1:",
        ":3",
        "1:two",
        "1:nonee",
        "a 1:2",
        "1 : 3 :",
    ],
)
def test_invalid_tokens_make_invalid_lines(line: str) -> None:
    result = pb.score(f"2:3\n{line}\n3:4", KEY5)
    assert [(il.line, il.text) for il in result.invalid_lines] == [(2, line)]
    assert result.invalid_line_count == 1


@pytest.mark.parametrize("digits", [1001, 5000, 100_000])
def test_an_option_of_any_length_counts_wrong(digits: int) -> None:
    """NUMBER is any run of ASCII digits, and an option outside 1-4 counts wrong (the
    spec): a long one is no invalid line worth nothing, but -3 like 1:7."""
    line = "2:" + "9" * digits
    result = pb.score(f"1:2\n{line}\n3:{'0' * digits}4", KEY5)
    assert (result.correct, result.wrong, result.final_score) == (2, 1, -1)
    assert result.invalid_line_count == 0 and result.hints == ()
    assert pb.score(line + " " + line + "\n", KEY5).duplicates == (2,)


def test_valid_answers_on_an_invalid_line_still_count() -> None:
    result = pb.score("1:2 junk 2:3", KEY5)
    assert result.correct == 2
    assert [il.line for il in result.invalid_lines] == [1]


def test_invalid_line_text_is_shown_as_written() -> None:
    result = pb.score("1 : 2 and more\n", KEY5)
    assert result.invalid_lines[0].text == "1 : 2 and more"


def test_blank_and_whitespace_lines_are_not_invalid() -> None:
    result = pb.score("\n   \n\t\n1:2\n,\n;;\n", KEY5)
    assert result.invalid_line_count == 0
    assert result.correct == 1


def test_unknown_questions_are_listed_ascending_and_ignored() -> None:
    result = pb.score("9:1\n6:2\n1:2\n0:1\n6:3", KEY5)
    assert result.unknown_questions == (0, 6, 9)
    assert (result.correct, result.wrong) == (1, 0)
    assert result.duplicates == (6,)


def test_duplicates_are_listed_ascending() -> None:
    result = pb.score("3:1\n1:1\n3:4\n1:2\n2:3\n1:2", KEY5)
    assert result.duplicates == (1, 3)
    assert result.correct == 3  # 1:2, 2:3, 3:4 stand


def test_duplicate_written_with_leading_zeros_is_the_same_question() -> None:
    result = pb.score("1:3\n01:2", KEY5)
    assert result.duplicates == (1,)
    assert result.correct == 1


def test_key_with_fewer_entries_scores_over_its_entries() -> None:
    key = pb.load_key(b"1:1\n2:2\n")
    result = pb.score("1:1\n2:3\n3:1", key)
    assert result.total_questions == 2
    assert (result.correct, result.wrong, result.unanswered) == (1, 1, 0)
    assert result.unknown_questions == (3,)


def test_full_key_random_guessing_expectation_shape() -> None:
    key = generated_key(104)
    text = "\n".join(f"{q}:{a}" for q, a in key.answers.items())
    result = pb.score(text, key)
    assert result.final_score == 104
    assert result.accuracy == 1.0
    assert result.coverage == 1.0


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("۱:۳", "persian_digits"),
        ("٢:٤", "persian_digits"),
        ("1：3", "fullwidth_colon"),
        ("Q1:3", "q_prefix"),
        ("q12: 3", "q_prefix"),
        ("1:3.", "trailing_period"),
        ("**1:3**", "markdown_bold"),
        ("__2: none__", "markdown_bold"),
        ("**1:** 3", "markdown_bold"),
        ("**1**: 3", "markdown_bold"),
        # the answers on these lines count: question 9 is not in the key
        ("- 9: 3", "bullets"),
        ("* 9: 3", "bullets"),
        ("+ 9:3", "bullets"),
        ("• 9:3", "bullets"),
        ("1. 9:3", "bullets"),
        ("  2) 9: none", "bullets"),
        ("| 1 | 3 |", "markdown_table"),
        ("| **1** | none |", "markdown_table"),
        ("|1|3|", "markdown_table"),
        ("| Q1 | 3 |", "markdown_table"),
        ("| 9:3 |", "markdown_table"),
    ],
)
def test_hints_name_the_near_miss_and_never_change_the_score(text: str, code: str) -> None:
    plain = pb.score("1:2", KEY5)
    result = pb.score(f"1:2\n{text}", KEY5)
    assert code in [h.code for h in result.hints]
    hint = next(h for h in result.hints if h.code == code)
    assert hint.lines == (2,)
    assert "line 2" in hint.message
    assert result.final_score == plain.final_score


def test_no_hints_for_clean_input() -> None:
    assert pb.score("1:2\n2:3", KEY5).hints == ()


def test_json_has_exactly_the_documented_keys() -> None:
    data = pb.score("1:2\nQ2:1\n1:2\n9:1", KEY5).to_json()
    assert list(data) == [
        "total_questions",
        "correct",
        "wrong",
        "unanswered",
        "positive_points",
        "negative_points",
        "final_score",
        "invalid_lines",
        "invalid_line_count",
        "duplicates",
        "duplicate_count",
        "unknown_questions",
        "unknown_question_count",
        "hints",
    ]
    assert data["invalid_lines"] == [{"line": 2, "text": "Q2:1"}]
    assert data["duplicates"] == [1]
    assert data["unknown_questions"] == [9]
    assert all(isinstance(h, str) for h in data["hints"])
    json.dumps(data)


def test_record_round_trip() -> None:
    result = pb.score("1:2\nQ2:1\n1:2\n9:1\n۱:۲", KEY5)
    assert pb.BENCHMARK.result_from_record(json.loads(json.dumps(result.to_record()))) == result


def test_fingerprint_follows_the_standing_answers_only() -> None:
    a = pb.score("1:2\n2:3", KEY5)
    b = pb.score("junk\n2:3\n1:4\n1:02", KEY5)
    c = pb.score("1:2\n2:4", KEY5)
    assert a.fingerprint == b.fingerprint
    assert a.fingerprint != c.fingerprint


def test_invalid_lines_beyond_the_cap_are_counted() -> None:
    text = "\n".join(["junk"] * (MAX_REPORTED_INVALID_LINES + 5))
    result = pb.score(text, KEY5)
    assert result.invalid_line_count == MAX_REPORTED_INVALID_LINES + 5
    assert len(result.invalid_lines) == MAX_REPORTED_INVALID_LINES
    assert result.invalid_lines[-1].line == MAX_REPORTED_INVALID_LINES


def test_line_numbers_stay_right_across_chunks() -> None:
    filler = "1:2\n" * 400_000  # 1.6 MB: more than one internal chunk
    result = pb.score(filler + "bad one\n" + filler + "bad two\n2:3", KEY5)
    assert [(il.line, il.text) for il in result.invalid_lines] == [
        (400_001, "bad one"),
        (800_002, "bad two"),
    ]
    assert result.duplicates == (1,)
    assert result.correct == 2


def test_last_answer_stands_across_chunks() -> None:
    text = "1:2\n" * 400_000 + "1:3\n" + "2:3\n" * 400_000
    assert pb.score(text, KEY5).wrong == 1


# --- decoding ----------------------------------------------------------------------


def test_decode_drops_bom_and_refuses_bad_bytes() -> None:
    assert decode("\ufeff1:2".encode()) == "1:2"
    with pytest.raises(DecodeError, match="not valid UTF-8"):
        decode(b"1:2\n\xff\xfe")
    with pytest.raises(DecodeError, match="binary"):
        decode(b"\x89PNG\r\n\x1a\n\x00\x00")


# --- the key and question files ----------------------------------------------------


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (b"1:1\n2:5\n", 2),
        (b"1:1\n2:0\n", 2),
        (b"1:1\nfoo\n", 2),
        (b"1:1\n1:2\n", 2),
        (b"1:1\n2:2\n3 3\n", 3),
        (b"0:1\n", 1),
        (b"1:none\n", 1),
    ],
)
def test_key_loader_names_the_first_bad_line(data: bytes, line: int) -> None:
    with pytest.raises(KeyFormatError) as caught:
        pb.load_key(data)
    assert caught.value.line == line
    assert f"line {line}" in str(caught.value)


def test_key_loader_accepts_blank_lines_crlf_and_bom() -> None:
    key = pb.load_key("\ufeff1:1\r\n\r\n2 : 4\r\n".encode())
    assert dict(key.answers) == {1: 1, 2: 4}
    assert len(key.sha256) == 64


def test_empty_key_is_refused() -> None:
    with pytest.raises(KeyFormatError, match="no answers"):
        pb.load_key(b"\n\n")


def _questions(n: int) -> bytes:
    body = {
        f"Question_{i}": {
            "question": f"q{i}\u200c ؟",
            **{f"option_{o}": f"o{o}" for o in range(1, 5)},
        }
        for i in range(1, n + 1)
    }
    return json.dumps(body, ensure_ascii=False).encode()


def test_questions_are_checked_against_the_key() -> None:
    key = pb.load_key(b"1:1\n2:2\n")
    pb.check_pair(key, pb.load_questions(_questions(2)))
    with pytest.raises(KeyFormatError, match="disagree"):
        pb.check_pair(key, pb.load_questions(_questions(3)))


@pytest.mark.parametrize(
    "data",
    [
        b"[]",
        b"{not json",
        b'{"Question_1": {"question": "x"}}',
        b'{"Q1": {"question": "x"}}',
        b'{"Question_1": {"question": "q", "option_1": "a", "option_2": "b", "option_3": 3, '
        b'"option_4": "d"}}',
    ],
)
def test_bad_question_files_are_refused(data: bytes) -> None:
    with pytest.raises(KeyFormatError):
        pb.load_questions(data)


def test_prompt_is_verbatim() -> None:
    assert pb.PROMPT.startswith("Based on the questions, choose the correct option.\n\n")
    assert "Your output must only and exclusively be in this format Q:O\n" in pb.PROMPT
    assert pb.PROMPT.endswith("Provide the final answer.\n")
    assert pb.PROMPT.count("\n") == 15


def test_registry_finds_primebench_in_any_spelling() -> None:
    assert registry.get("PrimeBench") is pb.BENCHMARK
    assert registry.get("#primebench") is pb.BENCHMARK


# --- properties ----------------------------------------------------------------------

answer_tokens = st.builds(
    lambda q, o: f"{q}:{o}",
    st.integers(0, 120),
    st.one_of(st.integers(0, 9), st.sampled_from(["none", "NONE", "None"])),
)
noise = st.text(max_size=12)
lines = st.lists(
    st.lists(st.one_of(answer_tokens, noise), max_size=4).map(
        lambda parts: random.Random(len(parts)).choice([" ", ", ", ";", "\t"]).join(parts)
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(text=st.text())
def test_score_never_raises_on_arbitrary_text(text: str) -> None:
    result = pb.score(text, KEY5)
    assert result.final_score == result.correct - 3 * result.wrong
    assert result.correct + result.wrong + result.unanswered == result.total_questions


KEY104 = generated_key(104)


@settings(max_examples=300, deadline=None)
@given(body=lines)
def test_invariants_on_answer_like_text(body: list[str]) -> None:
    key = KEY104
    text = "\n".join(body)
    result = pb.score(text, key)
    assert result.final_score == result.correct - 3 * result.wrong
    assert result.correct + result.wrong + result.unanswered == result.total_questions
    assert list(result.duplicates) == sorted(set(result.duplicates))
    line_count = len(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    assert all(1 <= il.line <= line_count for il in result.invalid_lines)
    # the naive reading of the rule agrees with the fast one
    assert (result.correct, result.wrong) == _naive(text, key)


def _naive(text: str, key: pb.PrimeKey) -> tuple[int, int]:
    import re

    final: dict[int, str] = {}
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        for segment in re.split("[,;]", line):
            for token in re.sub(r"\s*:\s*", ":", segment).split():
                m = re.fullmatch(r"([0-9]+):([0-9]+|(?i:none))", token)
                if m:
                    final[int(m[1])] = m[2].lower()
    correct = sum(
        1 for q, o in final.items() if q in key.answers and o != "none" and int(o) == key.answers[q]
    )
    wrong = sum(
        1 for q, o in final.items() if q in key.answers and o != "none" and int(o) != key.answers[q]
    )
    return correct, wrong


def test_a_line_longer_than_a_chunk_is_read_token_by_token() -> None:
    body = "1:3 2:3, " * 150_000 + "junk 1:2;" + " 2:4" * 150_000  # about 2.1 MB on one line
    result = pb.score("5:2\n" + body + "\n3:4", KEY5)
    assert (result.correct, result.wrong) == (3, 1)  # 1:2 and 2:4 stand
    assert result.duplicates == (1, 2)
    assert [il.line for il in result.invalid_lines] == [2]
    assert result.invalid_lines[0].text == body
    clean = pb.score(body.replace("junk ", ""), KEY5)
    assert clean.invalid_line_count == 0


def test_record_keeps_long_invalid_lines_short() -> None:
    line = "x" * 5000
    result = pb.score(f"1:2\n{line}", KEY5)
    assert result.invalid_lines[0].text == line  # the result itself keeps the whole line
    stored = pb.BENCHMARK.result_from_record(result.to_record())
    assert len(stored.invalid_lines[0].text) == pb.RECORD_LINE_TEXT
    assert stored.invalid_lines[0].text.endswith("…")
    assert stored.final_score == result.final_score


def test_questions_the_key_lacks_are_counted_and_the_first_listed() -> None:
    from scoring import MAX_REPORTED_QUESTIONS

    extra = MAX_REPORTED_QUESTIONS + 500
    made_up = [10_000 + 7 * n for n in range(extra, 0, -1)]  # descending, all unknown
    text = (
        "\n".join(f"{q}:1" for q in made_up) + "\n1:2\n" + "\n".join(f"{q}:2" for q in made_up[:3])
    )
    result = pb.score(text, KEY5)
    assert result.unknown_question_count == extra
    assert len(result.unknown_questions) == MAX_REPORTED_QUESTIONS
    # the first ones met, in numeric order
    assert result.unknown_questions == tuple(sorted(made_up[:MAX_REPORTED_QUESTIONS]))
    assert result.duplicate_count == 3
    assert result.duplicates == tuple(sorted(made_up[:3]))
    assert result.correct == 1  # the key's question still counts
    record = result.to_record()
    assert pb.result_from_record(record) == result
    assert record["unknown_question_count"] == extra


def test_unknown_questions_repeated_across_chunks_are_duplicates() -> None:
    """Several megabytes: a question the key lacks met again chunks later is a repeat."""
    first = [f"{10**9 + q}:{q % 4 + 1}" for q in range(300_000)]
    text = "\n".join([*first, "2:3", "77777:1", first[5], first[-1], "2:3"])
    result = pb.score(text, KEY5)
    assert result.unknown_question_count == 300_001
    assert result.duplicate_count == 3  # 2, and the two made-up ones met again
    assert result.duplicates == (2, 10**9 + 5, 10**9 + 299_999)
    assert (result.correct, result.wrong, result.invalid_line_count) == (1, 0, 0)


def test_many_different_questions_the_key_lacks_are_kept_once_each() -> None:
    """Megabytes of different questions the key lacks (each number below the text's
    length is kept as a byte in a map, the others in a set): met again chunks later,
    a large number among them, question 0; counted, listed and repeated once each."""
    from scoring import MAX_REPORTED_QUESTIONS

    many = [f"{q}:{1 + q % 4}" for q in range(200, 250_000)]
    large = f"{10**12}:1"
    text = "\n".join(["1:2", "0:3", *many[:1000], large, *many, many[7], large, "2:3", many[-1]])
    assert len(text) > 2 * 2**20  # several chunks
    result = pb.score(text, KEY5)
    assert result.unknown_question_count == len(many) + 2
    assert result.unknown_questions == (0, *range(200, 200 + MAX_REPORTED_QUESTIONS - 1))
    # the first thousand twice, the large one twice, the last one twice
    assert result.duplicate_count == 1000 + 2
    assert result.duplicates == tuple(range(200, 200 + MAX_REPORTED_QUESTIONS))
    assert (result.correct, result.wrong, result.unanswered) == (2, 0, 3)


def test_many_repeated_unknown_questions_are_counted() -> None:
    from scoring import MAX_REPORTED_QUESTIONS

    many = MAX_REPORTED_QUESTIONS * 3
    lines = [f"{1000 + q}:1" for q in range(many)]
    result = pb.score("\n".join(lines + lines[::-1]), KEY5)
    assert result.duplicate_count == many
    assert len(result.duplicates) == MAX_REPORTED_QUESTIONS
    assert result.unknown_question_count == many
    assert result.final_score == 0


def test_an_old_record_without_counts_still_reads() -> None:
    record = pb.score("1:2\n1:2\n77:1", KEY5).to_record()
    for name in ("duplicate_count", "unknown_question_count", "invalid_line_count"):
        del record[name]
    result = pb.result_from_record(record)
    assert (result.duplicate_count, result.unknown_question_count) == (1, 1)


def test_a_key_line_with_a_huge_number_is_refused_with_its_line() -> None:
    for data, message in [
        (b"1:1\n" + b"9" * 5000 + b":1\n", "too large"),
        (b"1:1\n2:" + b"0" * 5000 + b"3" + b"9" * 5000 + b"\n", "the option must be"),
    ]:
        with pytest.raises(KeyFormatError, match=message) as caught:
            pb.load_key(data)
        assert caught.value.line == 2
    assert pb.load_key(b"0001:0004\n").answers == {1: 4}


def _hint(result: pb.PrimeBenchResult, code: str) -> Hint:
    return next(h for h in result.hints if h.code == code)


def test_bullets_say_the_answers_still_counted_and_how_to_send_them() -> None:
    text = "Here are my answers:\n" + "\n".join(f"- {q}: {q % 4 + 1}" for q in range(1, 6))
    result = pb.score(text, KEY5)
    plain = pb.score("\n".join(f"{q}:{q % 4 + 1}" for q in range(1, 6)), KEY5)
    assert result.final_score == plain.final_score  # the answers count: the rule reads them
    assert result.invalid_line_count == 6
    hint = _hint(result, "bullets")
    assert hint.lines == (2, 3, 4, 5, 6)
    assert "5 answers on them still counted" in hint.message
    assert "one answer per line as 1:2, without the bullet" in hint.message
    assert dict(hint.params) == {"counted": "5"}


def test_numbered_and_starred_lists_too() -> None:
    text = "1. 1:2\n2. 2:3\n* 3: 4\n"
    hint = _hint(pb.score(text, KEY5), "bullets")
    assert hint.lines == (1, 2, 3) and "3 answers on them still counted" in hint.message


def test_a_markdown_table_says_no_answer_was_read() -> None:
    text = "| Question | Answer |\n|---|---|\n" + "\n".join(
        f"| {q} | {q % 4 + 1} |" for q in range(1, 6)
    )
    result = pb.score(text, KEY5)
    assert (result.correct, result.wrong, result.final_score) == (0, 0, 0)
    hint = _hint(result, "markdown_table")
    assert hint.lines == (3, 4, 5, 6, 7)  # the rows with answers, not the header
    assert "read no answer from them" in hint.message
    assert "write one answer per line as 1:2, not a table" in hint.message
    assert dict(hint.params) == {"counted": "0"}


def test_bold_says_how_many_were_read() -> None:
    hint = _hint(pb.score("**1:2**\n**2: 3**\n", KEY5), "markdown_bold")
    assert "read no answer from them" in hint.message and hint.lines == (1, 2)


def test_answers_inside_reasoning_are_listed_with_their_lines() -> None:
    final = "\n".join(f"{q}:{q % 4 + 1}" for q in range(1, 6))
    text = (
        "Let me think. For question 2: 4 options look plausible.\n"
        "Question 5: 1 is a trap, and question 3 needs care.\n" + final + "\n"
    )
    result = pb.score(text, KEY5)
    assert result.final_score == pb.score(final, KEY5).final_score  # the last ones stand
    assert result.duplicates == (2, 5)
    hint = _hint(result, "answers_in_prose")
    assert hint.lines == (1, 2)
    assert "answered more than once (2, 5)" in hint.message
    assert "the last answer to each question stands" in hint.message
    assert dict(hint.params) == {"ids": "2, 5"}


def test_reasoning_after_the_final_answers_is_listed_too() -> None:
    text = "1:2\n2:3\nOn second thought, 2: 4 is better.\n"
    result = pb.score(text, KEY5)
    assert _hint(result, "answers_in_prose").lines == (3,)


def test_no_reasoning_hint_without_repeats_nor_for_list_lines() -> None:
    assert "answers_in_prose" not in {h.code for h in pb.score("I think 1: 2\n2:3\n", KEY5).hints}
    codes = {h.code for h in pb.score("- 1: 2\n- 1: 3\n", KEY5).hints}
    assert codes == {"bullets"}  # a list repeated is the bullets hint, not reasoning


@pytest.mark.parametrize(
    "text",
    [
        "- 1: 2\n- 2: 3",
        "| 1 | 2 |\n| 2 | 3 |",
        "**1:2**",
        "question 2: 4 options\n1:2\n2:3",
    ],
)
def test_new_hints_survive_the_record(text: str) -> None:
    result = pb.score(text, KEY5)
    assert result.hints
    assert pb.result_from_record(result.to_record()) == result

"""What the bot asks a benchmark instead of its name: key files, scores, columns, tags."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest

from scoring import KeyFormatError, OptionError, UnknownBenchmark, natory, registry
from scoring import primebench as pb
from scoring import zerobench as zb
from scoring.base import KeyCheck
from scoring.options import parse_cost, parse_latency

PB, ZB, NA = pb.BENCHMARK, zb.BENCHMARK, natory.BENCHMARK


# --- the registry ----------------------------------------------------------------------


def test_registry_lists_the_three_in_order_primebench_first() -> None:
    assert registry.names() == ("primebench", "zerobench", "natory")
    assert registry.DEFAULT == "primebench"
    assert registry.all_benchmarks() == (PB, ZB, NA)


@pytest.mark.parametrize("word", ["zerobench", "#ZeroBench", " zero_bench ", "#zero-bench"])
def test_a_tag_selects_its_benchmark(word: str) -> None:
    assert registry.get(word) is ZB


def test_tags_start_with_the_name_and_name_one_benchmark() -> None:
    seen: set[str] = set()
    for benchmark in registry.all_benchmarks():
        assert benchmark.tags[0] == benchmark.name
        assert not seen & set(benchmark.tags)
        seen |= set(benchmark.tags)


def test_an_unknown_tag_lists_the_names() -> None:
    with pytest.raises(UnknownBenchmark, match="primebench, zerobench, natory"):
        registry.get("#mmlu")


# --- keys ------------------------------------------------------------------------------


def test_key_files_say_which_benchmarks_keep_a_key() -> None:
    assert PB.key_file == "primebench/A.txt"
    assert PB.questions_file == "primebench/Q.json"
    assert ZB.key_file == "zerobench/key.json"
    assert ZB.questions_file is None
    assert NA.key_file is None and NA.questions_file is None
    assert [b.name for b in registry.all_benchmarks() if b.essential] == ["primebench"]
    assert [b.name for b in registry.all_benchmarks() if b.daily] == ["natory"]


def test_sources_say_where_the_official_files_are() -> None:
    assert PB.source is not None and PB.source.kind == "files"
    assert set(PB.source.files) == {"A.txt", "Q.json"}  # the key file's and questions' names
    assert ZB.source is not None and ZB.source.kind == "dataset_rows"
    assert ZB.source.dataset == "jonathan-roberts1/zerobench"
    assert ZB.source.splits == ("zerobench", "zerobench_subquestions")
    assert NA.source is None


def _pb_key(questions: int) -> bytes:
    return "".join(f"{q}:{q % 4 + 1}\n" for q in range(1, questions + 1)).encode()


def test_primebench_check_key_keeps_the_bytes_and_notes_an_unofficial_count() -> None:
    data = _pb_key(3)
    assert PB.check_key(data) == KeyCheck(
        data, 3, "note: this key has 3 questions; the official PrimeBench has 104"
    )
    assert PB.check_key(_pb_key(104)).note == ""


def test_primebench_check_key_checks_the_question_file_against_the_key() -> None:
    body = {"question": "?", **{f"option_{o}": str(o) for o in (1, 2, 3, 4)}}
    questions = json.dumps({f"Question_{q}": body for q in (1, 2)}).encode()
    assert PB.check_key(_pb_key(2), questions=questions).questions == 2
    with pytest.raises(KeyFormatError, match="disagree"):
        PB.check_key(_pb_key(3), questions=questions)
    with pytest.raises(KeyFormatError, match="line 1"):
        PB.check_key(b"1:9\n")


def test_zerobench_check_key_stores_the_canonical_two_split_form() -> None:
    data = b"question_id,question_answer,split\n1,42,zerobench\n1_1,7,zerobench_subquestions\n"
    checked = ZB.check_key(data)
    assert checked.data == zb.dump_key(zb.load_key(data))
    assert json.loads(checked.data) == {
        "zerobench": {"1": "42"},
        "zerobench_subquestions": {"1_1": "7"},
    }
    assert checked.questions == 2
    assert (
        checked.note == "1 main questions, 1 subquestions (the official ZeroBench has 100 and 334)"
    )


def test_zerobench_check_key_has_no_note_beyond_the_counts_for_the_official_size() -> None:
    key = {
        zb.MAIN_SPLIT: {str(i): "1" for i in range(100)},
        zb.SUB_SPLIT: {f"s{i}": "1" for i in range(334)},
    }
    assert ZB.check_key(json.dumps(key).encode()).note == "100 main questions, 334 subquestions"


def test_zerobench_check_key_refuses_a_question_file_and_a_bad_key() -> None:
    with pytest.raises(KeyFormatError, match="no question file"):
        ZB.check_key(b'{"1": "42"}', questions=b"{}")
    with pytest.raises(KeyFormatError):
        ZB.check_key(b'{"1": 4.5}')


def test_natory_takes_no_key_file() -> None:
    with pytest.raises(KeyFormatError, match="no key file"):
        NA.check_key(b"6256")


# --- scores and board columns ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value", "mean", "shown"),
    [
        ("primebench", 18.0, False, "+18"),
        ("primebench", -71.0, False, "-71"),
        ("primebench", 0.0, False, "+0"),
        ("primebench", 45.0, True, "+45"),
        ("primebench", 12.3456, True, "12.3"),
        ("zerobench", 0.119, False, "11.9%"),
        ("zerobench", 0.0, False, "0.0%"),
        ("zerobench", 1.0, False, "100.0%"),
        ("zerobench", 2 / 3, True, "66.7%"),
        ("natory", 133.0, False, "133"),
        ("natory", 0.0, False, "0"),
        ("natory", 66.5, True, "66.5"),
        ("natory", 66.0, True, "66"),
        ("natory", 66.5, False, "66"),
    ],
)
def test_format_score(name: str, value: float, mean: bool, shown: str) -> None:
    assert registry.get(name).format_score(value, mean=mean) == shown


def test_zerobench_board_cells_from_a_record() -> None:
    record: dict[str, Any] = {
        "k": 5,
        "primary_split": "zerobench",
        "main": {"pass_at_k": 0.2, "reliability_k_of_k": 0.05},
        "subquestions": {"pass_at_k": 0.5, "reliability_k_of_k": 0.25},
    }
    assert ZB.board_columns == ("pass_at_k", "reliability_k_of_k")
    assert ZB.board_cells(record) == (("pass@5", "20.0%"), ("5/5", "5.0%"))
    sub_only = {**record, "primary_split": "zerobench_subquestions"}
    assert ZB.board_cells(sub_only) == (("pass@5", "50.0%"), ("5/5", "25.0%"))
    assert ZB.board_cells({}) == ()


def test_zerobench_board_cells_from_a_real_result() -> None:
    key = zb.load_key(json.dumps({zb.MAIN_SPLIT: {"1": "42", "2": "7"}}).encode())
    text = "".join(
        json.dumps({"question_id": "1", "response": answer}) + "\n" for answer in ("{42}", "{1}")
    )
    result = ZB.score(text, key, options=ZB.options_from_tags({"k": "2"}))
    assert ZB.board_cells(result.to_record()) == (("pass@2", "50.0%"), ("2/2", "0.0%"))


def test_the_others_have_no_board_columns() -> None:
    for benchmark in (PB, NA):
        assert benchmark.board_columns == ()
        assert benchmark.board_cells({"k": 5, "main": {"pass_at_k": 1.0}}) == ()


# --- options from tags -----------------------------------------------------------------


def test_tag_fields() -> None:
    assert PB.tag_fields == ()
    assert ZB.tag_fields == ("k",)
    assert NA.tag_fields == ("target", "cost", "latency")


def test_natory_options_from_tags() -> None:
    fields = {"target": "6256", "cost": "$0.012", "latency": "3200ms", "model": "M"}
    assert NA.options_from_tags(fields) == {"target": 6256, "cost": 0.012, "latency": 3.2}
    assert NA.options_from_tags({}) == {}


@pytest.mark.parametrize(
    ("name", "typed"),
    [("target", "0"), ("target", "abc"), ("target", "1000000000000"), ("target", "-5"),
     ("cost", "-1"), ("cost", "cheap"), ("latency", "fast"), ("latency", "3h")],
)  # fmt: skip
def test_natory_refuses_a_bad_option_naming_the_field(name: str, typed: str) -> None:
    with pytest.raises(OptionError) as caught:
        NA.options_from_tags({name: typed})
    assert (caught.value.name, caught.value.value) == (name, typed)


def test_zerobench_reads_k_and_refuses_a_bad_one() -> None:
    assert ZB.options_from_tags({"k": "3", "target": "5"}) == {"k": 3}
    assert ZB.options_from_tags({}) == {}
    for typed in ("0", "three", "-1"):
        with pytest.raises(OptionError) as caught:
            ZB.options_from_tags({"k": typed})
        assert (caught.value.name, caught.value.value) == ("k", typed)


def test_primebench_takes_no_options() -> None:
    assert PB.options_from_tags({"k": "3", "target": "5", "cost": "1"}) == {}


# --- the key to score against ----------------------------------------------------------


def test_natory_key_for_the_named_target_or_the_days() -> None:
    today = natory.daily_challenge(date(2026, 1, 1), "seed")
    key, options = NA.key_for({"cost": 0.5}, today)
    assert key is today
    assert options == {"target": today.target, "cost": 0.5}
    assert list(options) == ["target", "cost"]
    key, options = NA.key_for({"target": 6256, "cost": 0.5}, today)
    assert key == natory.Challenge.for_target(6256)
    assert options == {"target": 6256, "cost": 0.5}


def test_natory_key_for_refuses_a_target_out_of_range() -> None:
    with pytest.raises(KeyFormatError):
        NA.key_for({"target": 10**30}, natory.Challenge.for_target(12))


def test_the_stored_key_passes_through_for_the_others() -> None:
    stored = object()
    assert PB.key_for({}, stored) == (stored, {})
    assert ZB.key_for({"k": 3}, stored) == (stored, {"k": 3})


# --- cost and latency --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "usd"),
    [("0.012", 0.012), ("$0.012", 0.012), ("0.5 USD", 0.5), ("0", 0.0), (".25", 0.25),
     ("۰٫۵", 0.5)],
)  # fmt: skip
def test_parse_cost(text: str, usd: float) -> None:
    assert parse_cost(text) == pytest.approx(usd)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("3.2s", 3.2), ("3200ms", 3.2), ("3.2", 3.2), ("12 sec", 12.0), ("0", 0.0),
     ("450 ms", 0.45), ("2 seconds", 2.0)],
)  # fmt: skip
def test_parse_latency(text: str, seconds: float) -> None:
    assert parse_latency(text) == pytest.approx(seconds)


@pytest.mark.parametrize(
    "text", ["-1", "abc", "1e3", "nan", "inf", "", "1.2.3", "$-3", "10^9", "2000000"]
)
def test_bad_cost_is_refused(text: str) -> None:
    with pytest.raises(OptionError, match="cost"):
        parse_cost(text)


@pytest.mark.parametrize("text", ["-3s", "fast", "3h", "3.2 s s", "", "1e3ms", "99999999"])
def test_bad_latency_is_refused(text: str) -> None:
    with pytest.raises(OptionError, match="latency"):
        parse_latency(text)


@pytest.mark.parametrize("typed", ["9" * 5000, "1" + "0" * 4400, "\u00b2", "\u0669\u0669"])
def test_natory_refuses_a_target_beyond_int_or_ascii_briefly(typed: str) -> None:
    """Thousands of digits (past int()'s limit) or digits int() cannot read: refused
    with a short message, never an internal error."""
    with pytest.raises(OptionError) as caught:
        NA.options_from_tags({"target": typed})
    assert caught.value.name == "target" and len(str(caught.value)) < 120


# --- the web board's columns -----------------------------------------------------------


def test_web_columns_hold_the_score_and_read_record_paths() -> None:
    for benchmark in registry.all_benchmarks():
        # every column of the board, in order; the ranking score among them
        assert "score" in {c.key for c in benchmark.web_columns}
        assert len({c.key for c in benchmark.web_columns}) == len(benchmark.web_columns)
        assert all(path.startswith("$.") for path in benchmark.web_paths)


def test_primebench_web_cells_give_the_breakdown_and_coverage() -> None:
    fields = {"$.correct": 60, "$.wrong": 4, "$.unanswered": 40, "$.total_questions": 104}
    text, values = PB.web_cells(48.0, fields)
    assert values == {"correct": 60, "wrong": 4, "unanswered": 40, "coverage": round(64 / 104, 6)}
    assert text == {"correct": "60", "wrong": "4", "unanswered": "40", "coverage": "61.5%"}
    text, values = PB.web_cells(0.0, {})  # a record without them
    assert values["correct"] is None and text["coverage"] == "—"


def test_zerobench_web_cells_give_pass1_with_its_interval_of_the_ranking_split() -> None:
    fields = {
        "$.k": 5,
        "$.primary_split": "sub",
        "$.subquestions.questions": 10,
        "$.subquestions.pass_at_k": 0.9,
        "$.subquestions.reliability_k_of_k": 0.5,
        "$.main.questions": 100,
    }
    text, values = ZB.web_cells(0.7, fields)
    low, high = zb.wilson(0.7, 10) or (0.0, 0.0)
    assert (values["n"], values["k"]) == (10, 5)
    assert (values["ci_low"], values["ci_high"]) == (round(low, 6), round(high, 6))
    assert 0 < low < 0.7 < high < 1
    assert text["score"] == f"70.0% [{low:.1%}–{high:.1%}]"
    assert (values["pass_k"], values["k_of_k"]) == (0.9, 0.5)
    assert (text["pass_k"], text["k_of_k"]) == ("90.0%", "50.0%")
    assert ZB.web_cells(0.1, {})[0] == {"pass_k": "—", "k_of_k": "—"}  # no interval


# --- what a web board says about a benchmark, and its headline chart -------------------


def test_each_benchmark_says_what_it_measures_and_names_its_chart() -> None:
    from scoring.base import CHART_FRONT, CHART_INTERVALS, About

    assert [b.web_chart for b in registry.all_benchmarks()] == [
        CHART_INTERVALS, CHART_INTERVALS, CHART_FRONT,
    ]  # fmt: skip
    for benchmark in registry.all_benchmarks():
        about = benchmark.about()
        assert isinstance(about, About)
        assert about.measures.message.startswith("about_")
        assert about.rule.message.startswith("about_")
        assert all(url.startswith("https://") for _, url in about.links)
        assert benchmark.author, benchmark.name  # every page credits its own authors
    assert dict(PB.about().rule.values) == {"right": 1, "wrong": -3, "none": 0, "options": 4}
    assert ZB.author.startswith("Jonathan Roberts") and "JibayAI" not in ZB.credit + NA.credit

"""How each benchmark is run against a model: what a run sends, byte-exact, and how
the answers come back as the raw output a paste would be."""

from __future__ import annotations

import json

import pytest

from scoring import natory, registry
from scoring import primebench as pb
from scoring import zerobench as zb
from scoring.runs import Image, Message, RunMaterials, RunRefused

PB, ZB, NA = pb.BENCHMARK, zb.BENCHMARK, natory.BENCHMARK

#: a made-up question file (never PrimeBench's): odd bytes that must travel untouched
QUESTIONS = '{"1": {"question": "Which?  \\u00e9", "option_1": "a"}}\r\n  \t'
KEY = b"1:3\n2:1\n3:4\n"
PNG = b"\x89PNG\r\n\x1a\nfake image bytes"


def test_every_benchmark_says_how_it_is_run() -> None:
    for benchmark in registry.all_benchmarks():
        assert benchmark.run_version.startswith(benchmark.name)


def test_primebench_sends_its_questions_then_the_official_prompt_byte_exact() -> None:
    plan = PB.run_plan(RunMaterials(PB.load_key(KEY), QUESTIONS.encode()))
    assert plan.version == PB.run_version and plan.options == {}
    (call,) = plan.calls
    assert call.messages == (Message("user", (QUESTIONS, pb.PROMPT)),)
    assert not call.needs_images
    assert call.to_openai() == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": QUESTIONS},
                {"type": "text", "text": pb.PROMPT},
            ],
        }
    ]


def test_primebench_answer_is_scored_as_the_same_paste() -> None:
    key = PB.load_key(KEY)
    plan = PB.run_plan(RunMaterials(key, QUESTIONS.encode()))
    answer = "Thinking aloud.\n1:3\n2:2\n3:none\n"
    raw = PB.run_output(plan, [answer])
    assert raw == answer
    assert PB.score(raw, key).to_json() == PB.score(answer, key).to_json()


def test_a_run_without_questions_is_refused_with_how_to_load_them() -> None:
    with pytest.raises(RunRefused, match="not loaded: benchboard data fetch primebench") as e:
        PB.run_plan(RunMaterials(PB.load_key(KEY), None))
    assert e.value.code == "questions_missing"
    with pytest.raises(RunRefused, match=r"questions\.jsonl"):
        ZB.run_plan(RunMaterials(None, None))


def test_a_question_file_that_is_not_utf8_is_refused() -> None:
    with pytest.raises(RunRefused) as e:
        PB.run_plan(RunMaterials(PB.load_key(KEY), b"\xff\xfe"))
    assert e.value.code == "bad_questions"


def _zerobench_questions() -> bytes:
    url = Image("image/png", PNG).data_url()
    rows = [
        {"question_id": "1", "question_text": "How many dots?", "images": [url]},
        {"question_id": 2, "question_text": "No image here."},
    ]
    return "\n".join(json.dumps(r) for r in rows).encode()


def test_zerobench_sends_each_question_with_the_suffix_and_its_images() -> None:
    plan = ZB.run_plan(RunMaterials(None, _zerobench_questions()), attempts=2)
    assert plan.options == {"k": 2}
    assert [c.item for c in plan.calls] == ["1", "1", "2", "2"]
    first = plan.calls[0]
    assert first.needs_images and not plan.calls[2].needs_images
    (message,) = first.messages
    assert message.parts == ("How many dots?" + zb.PROMPT_SUFFIX, Image("image/png", PNG))
    content = first.to_openai()[0]["content"]
    assert content[1]["type"] == "image_url"
    assert Image.from_data_url(content[1]["image_url"]["url"]) == Image("image/png", PNG)


def test_zerobench_answers_are_scored_like_the_uploaded_responses() -> None:
    key = ZB.load_key(json.dumps({"1": "7", "2": "blue"}).encode(), filename="key.json")
    plan = ZB.run_plan(RunMaterials(key, _zerobench_questions()), attempts=2)
    answers = ["so {7}", "{8}", "{blue}", "no braces"]
    raw = ZB.run_output(plan, answers)
    upload = "".join(
        json.dumps({"question_id": q, "response": a}) + "\n"
        for q, a in zip(["1", "1", "2", "2"], answers, strict=True)
    )
    assert ZB.score(raw, key, options=plan.options).to_json() == (
        ZB.score(upload, key, options={"k": 2}).to_json()
    )
    assert ZB.score(raw, key, options=plan.options).primary == pytest.approx(0.5)


@pytest.mark.parametrize(
    "line",
    ['{"question_id": "1"}', "not json", '{"question_text": "x"}',
     '{"question_id": "1", "question_text": "x", "images": ["http://example.com/a.png"]}'],
)  # fmt: skip
def test_a_damaged_zerobench_question_file_is_refused_naming_the_line(line: str) -> None:
    with pytest.raises(RunRefused) as e:
        ZB.run_plan(RunMaterials(None, line.encode()))
    assert e.value.code in {"bad_questions", "bad_image"}


def test_natory_sends_the_target_its_digits_and_the_rules() -> None:
    challenge = natory.Challenge.for_target(6011)
    plan = NA.run_plan(RunMaterials(challenge))
    assert plan.options == {"target": 6011} and plan.version == natory.BENCHMARK.run_version
    (call,) = plan.calls
    text = call.messages[0].parts[0]
    assert isinstance(text, str)
    assert "exactly 6011" in text and "0, 1, 6" in text and "0 1 1 6" in text
    with pytest.raises(RunRefused):
        NA.run_plan(RunMaterials(None))


def test_natory_answer_is_scored_as_an_attempt_at_the_plans_target() -> None:
    challenge = natory.Challenge.for_target(13)
    plan = NA.run_plan(RunMaterials(challenge))
    raw = NA.run_output(plan, ["I'll use a power.\n\n3^(1+1) + (3+1)"])
    key, options = NA.key_for(plan.options, natory.Challenge.for_target(99))
    result = NA.score(raw, key, options=options)
    alone = NA.score("3^(1+1) + (3+1)", challenge).to_json()
    found = result.to_json()
    assert found["target"] == 13 and found.pop("hints")[0].startswith("read the expression")
    assert found == {name: value for name, value in alone.items() if name != "hints"}
    assert result.primary > 0


def test_a_one_call_plan_takes_one_answer() -> None:
    plan = NA.run_plan(RunMaterials(natory.Challenge.for_target(13)))
    with pytest.raises(ValueError):
        NA.run_output(plan, ["a", "b"])


def test_a_data_defined_choice_benchmark_sends_its_questions_then_its_prompt() -> None:
    from scoring.choice import ChoiceBenchmark, Definition, Points

    questions = "1. Which is odd? (1) two (2) three\n"
    tiny = ChoiceBenchmark(
        Definition("tinyrun", "TinyRun", 2, Points(2, -1, 0), prompt="Answer Q:O.", key=b"1:2\n",
                   questions=questions)
    )  # fmt: skip
    plan = tiny.run_plan(RunMaterials(tiny.load_key(b"1:2\n")))
    (call,) = plan.calls
    assert call.messages == (Message("user", (questions, "Answer Q:O.")),)
    raw = tiny.run_output(plan, ["1:2"])
    assert tiny.score(raw, tiny.load_key(b"1:2\n")).primary == 2
    bare = ChoiceBenchmark(Definition("bare", "Bare", 2, Points(1, -1, 0), key=b"1:1\n"))
    with pytest.raises(RunRefused, match="no questions_file"):
        bare.run_plan(RunMaterials(bare.load_key(b"1:1\n")))

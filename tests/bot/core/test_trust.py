"""The copy check's pure parts: the key rule, the comparison with another user's answer
set (shared wrong answers weighted by rarity), the band hashes the lookup uses; and the
check against a store, its candidates read a few at a time."""

from __future__ import annotations

import random

from bot.core import trust
from bot.core.services import Services
from scoring import AnswerSet, registry
from storage import AnswerIndex

RIGHT = tuple(str(random.Random(1).randint(1, 4)) for _ in range(104))


def answer_set(answers: list[str]) -> AnswerSet:
    agree = sum(a == r for a, r in zip(answers, RIGHT, strict=True))
    return AnswerSet(tuple(answers), RIGHT, agree, len(RIGHT), comparable=True)


def model_run(rng: random.Random, skill: float, none: float = 0.05) -> list[str]:
    out = []
    for right in RIGHT:
        roll = rng.random()
        if roll < none:
            out.append("none")
        elif roll < none + skill:
            out.append(right)
        else:
            out.append(rng.choice([o for o in "1234" if o != right]))
    return out


def test_the_key_rule_holds_at_97_percent_of_the_key() -> None:
    key = list(RIGHT)
    assert trust.key_verdict(answer_set(key)) == trust.Verdict("key", 104, 104)
    near = list(RIGHT)
    near[0], near[1], near[2] = "none", "", str(int(RIGHT[2]) % 4 + 1)  # 101/104
    assert trust.key_verdict(answer_set(near)) == trust.Verdict("key", 101, 104)
    near[3] = "none"  # 100/104 = 96.2 %
    assert trust.key_verdict(answer_set(near)) is None


def test_a_prepared_set_compares_as_the_plain_rule_does() -> None:
    """The fast comparison (on stored text, or on answers) gives what the plain loop of
    :func:`trust.compare` gives, with blanks, declined answers and answers of several
    characters on either side, and None for another number of questions."""
    rng = random.Random(7)
    answers = ["1", "2", "3", "4", "none", "", "10"]
    for trial in range(400):
        pool = answers if trial % 3 else answers[:-1]  # one character each, two in three
        mine = [rng.choice(pool) for _ in RIGHT]
        other = [a if rng.random() < 0.7 else rng.choice(answers) for a in mine]
        found = answer_set(mine)
        prepared = trust.Prepared(found)
        plain = trust.compare(found.answers, other, RIGHT)
        assert prepared.compare(other) == plain
        assert prepared.compare(trust.joined(other)) == plain
        assert trust.split(prepared.stored) == found.answers
        assert prepared.compare(other[:-1]) is None
        assert prepared.compare(trust.joined(other[:-1])) is None


def test_a_copy_with_three_changes_is_held_and_independent_sets_never() -> None:
    rng = random.Random(7)
    original = model_run(rng, 0.6)
    copy = list(original)
    for i in (3, 40, 80):
        copy[i] = str(int(copy[i]) % 4 + 1) if copy[i] != "none" else "1"
    verdict = trust.copy_verdict(answer_set(copy), [(12, original)])
    assert verdict is not None and verdict.reason == "copy" and verdict.match == 12
    assert verdict.agree == 101 and verdict.of == 104 and verdict.wrong >= 6
    # random and independent real-looking answer sets: never
    for seed in range(200):
        r = random.Random(seed)
        pool = [(i, model_run(r, r.random())) for i in range(5)]
        mine = answer_set(model_run(r, r.random()))
        assert trust.copy_verdict(mine, pool) is None


def test_two_runs_of_one_strong_model_are_not_a_copy() -> None:
    rng = random.Random(3)
    first = model_run(rng, 0.95, none=0.0)  # a handful of wrong answers
    second = list(first)
    assert (
        trust.copy_verdict(answer_set(second), [(1, first)]) is None
        or sum(a != r and a != "none" for a, r in zip(first, RIGHT, strict=True))
        >= trust.MIN_EVIDENCE
    )


def test_common_wrong_answers_weigh_less() -> None:
    trap = list(RIGHT)
    wrong_at = range(8)
    for i in wrong_at:
        trap[i] = str(int(RIGHT[i]) % 4 + 1)
    sample = [tuple(trap)] * 50  # everyone falls into these traps
    rarity = trust.Rarity(sample)
    assert rarity.weight(0, trap[0]) == trust.RARE_SHARE
    assert trust.copy_verdict(answer_set(trap), [(1, trap)], rarity) is None
    assert trust.copy_verdict(answer_set(trap), [(1, trap)], trust.Rarity(())) is not None


def test_bands_hash_only_bands_with_a_wrong_answer_and_survive_three_changes() -> None:
    assert trust.band_count(104) == 4
    assert trust.bands(list(RIGHT), RIGHT) == ()
    rng = random.Random(9)
    original = model_run(rng, 0.6)
    copy = list(original)
    for i in (0, 1, 2):
        copy[i] = "none"
    shared = set(trust.bands(original, RIGHT)) & set(trust.bands(copy, RIGHT))
    assert len(shared) >= 1
    for answers in (original, copy, ["12", "", "none", "3"], ["1", "", "none"]):
        assert trust.split(trust.joined(answers)) == tuple(answers)
    assert trust.joined(["1", "", "none"]) == "=1.-"


def test_every_choice_benchmark_gives_its_answer_set() -> None:
    prime = registry.get("primebench")
    key = prime.load_key(b"1:3\n2:1\n3:4\n4:2\n")
    found = prime.answer_set("1:3\n2:2\n3:none\nprose\n", key)
    assert found == AnswerSet(("3", "2", "none", ""), ("3", "1", "4", "2"), 1, 4, True)
    assert trust.Verdict.from_json(trust.Verdict("copy", 1, 2, 3, 4).to_json()) == (
        trust.Verdict("copy", 1, 2, 3, 4)
    )
    assert trust.Verdict.from_json({"reason": "x"}) is None


def test_zerobench_answers_equal_to_the_key_are_counted() -> None:
    zero = registry.get("zerobench")
    key = zero.load_key(b'{"q1": "42", "q2": "7", "q3": "blue"}', filename="key.json")
    pasted = '{"question_id": "q1", "response": "42"}\n{"question_id": "q2", "response": "{7}"}\n'
    pasted += '{"question_id": "q3", "response": "blue"}\n'
    found = zero.answer_set(pasted, key)
    assert (found.agree, found.questions, found.comparable) == (3, 3, False)
    assert trust.key_verdict(found) == trust.Verdict("key", 3, 3)
    honest = '{"question_id": "q1", "response": "The answer is {42}"}\n'
    assert trust.key_verdict(zero.answer_set(honest, key)) is None


def test_a_benchmark_defined_by_data_gives_its_answer_set() -> None:
    from scoring.choice import ChoiceBenchmark, Definition, Points

    tiny = ChoiceBenchmark(Definition("tinymcq", "TinyMCQ", 5, Points(2, -1, 0)))
    key = tiny.load_key(b"1:5\n2:1\n")
    found = tiny.answer_set("1:5\n2:1\n", key)
    assert found == AnswerSet(("5", "1"), ("5", "1"), 2, 2, True)
    assert trust.key_verdict(found) == trust.Verdict("key", 2, 2)


def test_one_reading_gives_the_score_and_the_answer_set_of_two() -> None:
    from scoring.choice import ChoiceBenchmark, Definition, Points

    prime = registry.get("primebench")
    tiny = ChoiceBenchmark(Definition("tinymcq", "TinyMCQ", 5, Points(2, -1, 0)))
    zero = registry.get("zerobench")
    cases = [
        (prime, prime.load_key(b"1:3\n2:1\n3:4\n4:2\n"), "1:3\n2:2\n3:none\n1:4\nprose\n"),
        (tiny, tiny.load_key(b"1:5\n2:1\n"), "1:5\n2:3\n"),
        (
            zero,
            zero.load_key(b'{"q1": "42", "q2": "7"}', filename="key.json"),
            '{"question_id": "q1", "response": "42"}\n',
        ),
    ]
    for bench, key, text in cases:
        result, found = bench.score_with_answers(text, key)
        assert result.to_record() == bench.score(text, key).to_record()
        assert found == bench.answer_set(text, key)
    natory = registry.get("natory")
    assert natory.answer_set("1", None) is None


async def test_a_copy_behind_closer_lookalikes_is_still_found(services: Services) -> None:
    """The candidates are read a few at a time (each answer set a page to read): a copy
    that shares fewer bands than several answer sets that are no copies is found in a
    later batch, never missed."""
    rng = random.Random(11)
    original = model_run(rng, 0.4)
    count = trust.band_count(len(original))
    copy = list(original)
    for i in (0, 1, 2):  # three changes, in bands 0, 1 and 2: the copy shares band 3 only
        copy[i] = str(int(copy[i]) % 4 + 1) if copy[i] != "none" else "1"

    def rotated(answers: list[str], bands: tuple[int, ...], by: int) -> list[str]:
        return [
            str((int(a) - 1 + by) % 4 + 1) if i % count in bands and a != "none" else a
            for i, a in enumerate(answers)
        ]

    # alike to the copy on bands 0 and 3 (two shared hashes), unlike it elsewhere
    lookalikes = [rotated(copy, (1, 2), 1 + k % 3) for k in range(trust.FIRST_READ + 1)]
    rows = [(k + 1, k + 1, "primebench", index(answers)) for k, answers in enumerate(lookalikes)]
    rows.append((100, 100, "primebench", index(original)))
    assert await services.store.index_many(rows) == len(rows)
    mine = answer_set(copy)
    hashes = trust.bands(mine.answers, mine.right)
    first = await services.store.candidates(
        "primebench", hashes, user_id=999, limit=trust.FIRST_READ
    )
    assert 100 not in [c.submission_id for c in first]  # behind the lookalikes
    assert all(trust.alike(mine, trust.split(c.answers)) is None for c in first)
    kept = await trust.check(services, registry.get("primebench"), mine, user_id=999)
    assert kept is not None and kept["flag"]["reason"] == "copy"
    assert kept["flag"]["match"] == 100


def index(answers: list[str]) -> AnswerIndex:
    found = answer_set(answers)
    return AnswerIndex(trust.joined(found.answers), trust.bands(found.answers, found.right))

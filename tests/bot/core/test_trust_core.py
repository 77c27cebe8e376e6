"""Intervals, provenance and the signing key in the use cases (issue 31): a result's
standard error over its questions as each benchmark gives its points, the provenance
tags read, checked and kept, the board read with intervals (chat board too), and one
signing key per deployment, out of every backup. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import math
import statistics
from datetime import date
from pathlib import Path

import pytest

from bot.core import backups, boards, intervals, provenance, signing, submissions, webboards
from bot.core.errors import UserError
from bot.core.services import Services
from bot.core.tags import split_tags
from bot.render.webviews import WebQuery
from scoring import registry
from scoring.base import QuestionPoints
from scoring.choice import ChoiceBenchmark, Definition, Points

from .conftest import BOTH, engine_free
from .usecases import Submitter, answer_text

ENGINES = BOTH
PRIME = registry.get("primebench")


# --- pure: the standard error and the intervals -------------------------------------------


def test_the_standard_error_of_a_sum_and_of_a_mean() -> None:
    points = (1.0, 1.0, -3.0, 0.0, 1.0, 1.0, 0.0, -3.0)
    s = statistics.stdev(points)
    total = intervals.standard_error(QuestionPoints(points))
    assert total == pytest.approx(s * math.sqrt(len(points)))
    mean = intervals.standard_error(QuestionPoints(points, mean=True))
    assert mean == pytest.approx(s / math.sqrt(len(points)))
    assert intervals.standard_error(QuestionPoints((1.0,))) is None
    assert intervals.standard_error(None) is None
    assert intervals.standard_error(QuestionPoints((2.0,) * 50)) == 0.0
    # points given with their counts: the same figure
    counted = QuestionPoints((1.0, -3.0, 0.0), counts=(4, 2, 2))
    assert intervals.standard_error(counted) == pytest.approx(total)


def approx(*values: float) -> object:
    return pytest.approx(values, abs=1e-3)


def test_a_line_interval_over_questions_or_over_runs() -> None:
    assert intervals.line_interval(10, 2.0, 1, None) == approx(10 - 3.92, 10 + 3.92)
    # several runs that differ: their spread
    spread = intervals.run_spread(3, 18 + 14 + 10, 18**2 + 14**2 + 10**2)
    assert spread == pytest.approx(4.0)
    assert intervals.line_interval(18, 2.0, 3, spread) == approx(18 - 7.84, 18 + 7.84)
    # runs that all agree say nothing of the questions: the best run's interval
    assert intervals.run_spread(2, 20, 200) == 0.0
    assert intervals.line_interval(10, 2.0, 2, 0.0) == approx(10 - 3.92, 10 + 3.92)
    # nothing to measure
    assert intervals.line_interval(10, None, 1, None) is None
    assert intervals.line_interval(10, intervals.NO_SE, 1, None) is None


def test_ties_are_overlaps_with_the_line_above() -> None:
    lines = [(10.0, 20.0), (15.0, 25.0), (1.0, 9.0), None, (0.0, 5.0)]
    assert intervals.ties(lines) == [False, True, False, False, False]
    assert intervals.ties([(3.0, 4.0)], above=(3.5, 9.0)) == [True]


def test_each_benchmark_gives_the_points_its_score_is_made_of() -> None:
    key = PRIME.load_key(("\n".join(f"{i}:{i % 4 + 1}" for i in range(1, 31))).encode())
    result = PRIME.score("1:2\n2:3\n3:1\n4:4\n5:2\n", key)  # 3 right, 2 wrong
    points = PRIME.question_points(result)
    assert points is not None and not points.mean
    assert points.questions == 30
    assert sum(p * n for p, n in zip(points.points, points.counts, strict=True)) == 3 - 6
    assert result.primary == 3 - 6
    choice = ChoiceBenchmark(Definition("tinymcq", "TinyMCQ", 5, Points(2, -1, 0)))
    ckey = choice.load_key(b"1:1\n2:2\n3:3\n4:4")
    cres = choice.score("1:1\n2:5\n3:3", ckey)
    cpoints = choice.question_points(cres)
    assert cpoints is not None and cres.primary == 2 - 1 + 2
    assert sum(p * n for p, n in zip(cpoints.points, cpoints.counts, strict=True)) == 3
    zero = registry.get("zerobench")
    zdata = json.dumps({f"q{i}": str(i) for i in range(1, 9)}).encode()
    zkey = zero.load_key(zdata, filename="k.json")
    lines = [{"question_id": f"q{i}", "responses": [f"{{{i}}}", f"{{{i if i < 3 else 0}}}"]}
             for i in range(1, 6)]  # fmt: skip
    zres = zero.score("\n".join(json.dumps(x) for x in lines), zkey, options={"k": 2})
    zpoints = zero.question_points(zres)
    assert zpoints is not None and zpoints.mean and zpoints.questions == 8
    total = sum(p * n for p, n in zip(zpoints.points, zpoints.counts, strict=True))
    assert total / 8 == pytest.approx(zres.primary)
    natory = registry.get("natory")
    assert natory.question_points(natory.result_from_record(
        natory.score("1+1", natory.load_key(b"2")).to_record())) is None  # fmt: skip


# --- pure: provenance -----------------------------------------------------------------


def test_provenance_is_checked_with_short_true_messages() -> None:
    today = date(2026, 12, 2)
    kept = provenance.check(
        {"provider": "  Open  Router ", "temperature": "0.7", "seed": "-42",
         "reasoning": "High", "run_date": "2026-11-30", "log": "https://x.org/a?b=1",
         "other": "ignored"}, today=today,
    )  # fmt: skip
    assert kept == {"provider": "Open Router", "temperature": 0.7, "seed": -42,
                    "reasoning": "high", "run_date": "2026-11-30",
                    "log": "https://x.org/a?b=1"}  # fmt: skip
    assert provenance.check({"provider": "Open\x1b[0m\x07AI"}, today=today) == {
        "provider": "Open[0mAI"}  # fmt: skip
    assert provenance.check({"temperature": 1, "seed": 7}, today=today) == {
        "temperature": 1.0, "seed": 7}  # fmt: skip
    refused = {
        "provider": ("x" * 65, "1 to 64 characters"),
        "temperature": ("hot", "a number from 0 to 2"),
        "seed": ("4.5", "a whole number"),
        "reasoning": ("max", "low, medium or high"),
        "run_date": ("30/11/2026", "YYYY-MM-DD"),
        "log": ("javascript:alert(1)", "http(s) address"),
    }
    for name, (value, says) in refused.items():
        with pytest.raises(provenance.BadProvenance) as caught:
            provenance.check({name: value}, today=today)
        assert caught.value.field == name and says in str(caught.value)
    with pytest.raises(provenance.BadProvenance, match="to today"):
        provenance.check({"run_date": "2027-01-05"}, today=today)
    with pytest.raises(provenance.BadProvenance):
        provenance.check({"temperature": float("nan")}, today=today)
    with pytest.raises(provenance.BadProvenance):
        provenance.check({"seed": True}, today=today)
    with pytest.raises(provenance.BadProvenance, match="1 to 64"):
        provenance.check({"provider": "\x07\u202e"}, today=today)


def test_the_provenance_tags_are_read_wherever_tags_are() -> None:
    body, tags = split_tags(
        "Here are my answers:\n**Provider:** Together, model: gpt x #think\n1:3\n"
        "temperature: 0.2 seed: 7\n- reasoning: medium\nRun date: 2026-11-01\n"
        "log: https://example.com/logs/run.eval.\n2:1"
    )
    assert tags.model == "gpt x" and tags.mode is not None
    assert tags.fields == {"provider": "Together", "temperature": "0.2", "seed": "7",
                           "reasoning": "medium", "run_date": "2026-11-01",
                           "log": "https://example.com/logs/run.eval"}  # fmt: skip
    assert body.splitlines()[2] == "1:3" and body.splitlines()[-1] == "2:1"
    # prose that only starts like one is no tag line
    _, plain = split_tags("seed the model with care\n1:3")
    assert plain.fields == {}


# --- the use cases, on both engines -------------------------------------------------------


async def test_provenance_tags_are_kept_with_the_submission(services: Services) -> None:
    post = Submitter(services)
    text = answer_text(20, 2, model="Routed", mode="think")
    sub = await post.submit("provider: OpenRouter\ntemperature: 0.5\nreasoning: low\n" + text)
    assert provenance.of(sub.extra) == {"provider": "OpenRouter", "temperature": 0.5,
                                        "reasoning": "low"}  # fmt: skip
    await submissions.publish(services, sub)
    other = await post.published(30, model="Direct", mode="think", user_id=2)
    assert other.extra.get("provenance") is None
    page = await webboards.board(services, WebQuery("primebench", provider="openrouter"))
    assert [r.model for r in page.rows] == ["Routed"]
    everyone = await webboards.board(services, WebQuery("primebench"))
    assert [r.model for r in everyone.rows] == ["Direct", "Routed"]


@engine_free
async def test_a_bad_provenance_tag_is_refused_and_nothing_is_stored(services: Services) -> None:
    post = Submitter(services)
    refused = (("temperature: warm", "bad_temperature"), ("log: ftp://x/y", "bad_log"),
               ("reasoning: extreme", "bad_reasoning"), ("seed: 1e3", "bad_seed"))  # fmt: skip
    for tag, key in refused:
        with pytest.raises(UserError) as caught:
            await post.submit(tag + "\n" + answer_text(10))
        assert caught.value.key == key
    assert await services.store.count_history(1) == 0


async def test_boards_carry_intervals_computed_where_they_are_read(services: Services) -> None:
    post = Submitter(services)
    await post.published(60, 4, model="Alpha", mode="think", user_id=1)
    await post.published(55, 2, model="Alpha", mode="think", user_id=2)  # a second run
    await post.published(40, model="Beta", mode="think", user_id=3)
    page = await webboards.board(services, WebQuery("primebench"))
    alpha, beta = page.rows
    assert alpha.values["runs"] == 2 and alpha.ci95 is not None and beta.ci95 is not None
    half = 1.96 * statistics.stdev([60 - 12, 55 - 6])
    assert alpha.values["score"] == 49  # the best run: 55 right, 2 wrong
    assert alpha.ci95 == pytest.approx((49 - half, 49 + half), abs=1e-3)
    assert beta.ci95[0] < 40 < beta.ci95[1]
    assert alpha.cells["ci95"].startswith("[")
    # the chat's board (its image) reads the same intervals
    shown = await boards.page(services, boards.BoardQuery("primebench", "g", None, 0, 0),
                              chat_id=-100, user_id=1)  # fmt: skip
    by_id = {r.submission_id: shown.intervals.get(r.submission_id or 0) for r in shown.board.rows}
    assert list(by_id.values()) == [alpha.ci95, beta.ci95]
    # the runs as each board counts them: a group's, the last days', the verified
    group = await boards.page(services, boards.BoardQuery("primebench", "c", None, 0, 0),
                              chat_id=-100, user_id=1)  # fmt: skip
    assert [group.intervals.get(r.submission_id or 0) for r in group.board.rows] == [
        alpha.ci95, beta.ci95]  # fmt: skip
    week = await webboards.board(services, WebQuery("primebench", days=7))
    assert [r.ci95 for r in week.rows] == [alpha.ci95, beta.ci95]
    mine = await boards.page(services, boards.BoardQuery("primebench", "u", None, 0, 0),
                             chat_id=-100, user_id=2)  # fmt: skip
    (only,) = mine.board.rows  # user 2's one run: over its questions
    assert mine.intervals[only.submission_id or 0] != alpha.ci95


async def test_one_run_of_a_share_has_its_wilson_interval_on_every_board(
    services: Services,
) -> None:
    """A single ZeroBench run scoring 0 of 20: over its questions the analytic interval
    would be the point [0, 0]; its Wilson interval is the one every board shows — the
    web's row (once, in the score's cell) and the chat's board image alike."""
    from bot.core import keys
    from scoring.zerobench import wilson

    answers = {str(q): str(q * 7) for q in range(1, 21)}
    await keys.load_key(services, "zerobench", json.dumps(answers).encode(), "test")
    lines = [json.dumps({"question_id": q, "response": "the answer is {0}"}) for q in answers]
    post = Submitter(services)
    sub = await post.submit("model: Zed\n#default\n#zerobench\n" + "\n".join(lines))
    published = (await submissions.publish(services, sub)).submission
    expected = wilson(0.0, 20)
    assert expected is not None and expected[1] > 0.1
    (row,) = (await webboards.board(services, WebQuery("zerobench"))).rows
    assert row.ci95 == pytest.approx(expected, abs=1e-6)
    assert "ci95" not in row.cells  # the score's cell writes it already
    shown = await boards.page(services, boards.BoardQuery("zerobench", "g", None, 0, 0),
                              chat_id=-100, user_id=1)  # fmt: skip
    assert shown.intervals[published.id] == pytest.approx(expected, abs=1e-6)


async def test_a_row_recorded_before_the_interval_was_kept_gets_it_when_shown(
    services: Services,
) -> None:
    post = Submitter(services)
    sub = await post.published(50, 3, model="Old", mode="default")
    # as a row recorded before migration 19 (or re-scored since): no standard error
    async with services.store.db.write() as s:
        await s.execute("UPDATE submissions SET score_se = NULL WHERE id = ?", (sub.id,))
    page = await webboards.board(services, WebQuery("primebench"))
    assert page.rows[0].ci95 is not None
    async with services.store.db.single() as s:
        kept = await s.one("SELECT score_se FROM submissions WHERE id = ?", (sub.id,))
    assert kept is not None and kept[0] == pytest.approx(
        intervals.result_se(PRIME, PRIME.result_from_record(sub.record))
    )


@engine_free
async def test_a_record_that_cannot_be_read_back_has_no_interval(services: Services) -> None:
    post = Submitter(services)
    sub = await post.published(30, model="Odd", mode="default")
    async with services.store.db.write() as s:
        await s.execute(
            "UPDATE submissions SET score_se = NULL, result = '{}' WHERE id = ?", (sub.id,)
        )
    page = await webboards.board(services, WebQuery("primebench"))
    assert page.rows[0].model == "Odd" and page.rows[0].ci95 is None


async def test_one_signing_key_for_every_instance_and_none_in_a_backup(
    services: Services, tmp_path: Path
) -> None:
    # instances starting together: every one gets the same key
    keys = await asyncio.gather(*(signing.load(services) for _ in range(4)))
    assert len({signing.public_bytes(k) for k in keys}) == 1
    again = await signing.load(services)
    assert signing.public_bytes(again) == signing.public_bytes(keys[0])
    secret = signing._pem(keys[0]).splitlines()[1].encode()
    if services.store.shared:  # PostgreSQL: in the database, never copied out of it
        assert not (tmp_path / signing.KEY_FILE).exists()
    else:
        assert (tmp_path / signing.KEY_FILE).read_bytes().splitlines()[1] == secret
    snapshot = await backups.backup_now(services)
    assert secret not in snapshot.read_bytes()

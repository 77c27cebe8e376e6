"""ZeroBench and Natory in the real bot: a ZeroBench JSONL upload and its board, /natory
and replies to it, #natory with target/cost/latency, the per-target and per-model boards,
/compare sending a PNG."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
import pytest_asyncio

from scoring.natory import daily_target

from .botkit import Bot, bot_session, private_user, submission_id, text_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

SEED = "e2e-natory-seed"
PNG = b"\x89PNG\r\n\x1a\n"
#: ZeroBench key, both splits: ten main questions, four subquestions.
MAIN = {str(q): f"{q * 7}" for q in range(1, 11)}
SUB = {f"{q}_1": f"s{q}" for q in range(1, 5)}


def zerobench_run() -> bytes:
    """Five attempts per question: main 1 always right, main 2 right 3 of 5, the rest wrong
    (pass@1 16%, pass@5 20%, 5/5 10%); subquestions 1-2 always right (50%)."""
    lines = []
    for qid, answer in MAIN.items():
        for attempt in range(5):
            right = qid == "1" or (qid == "2" and attempt < 3)
            shown = answer if right else "0"
            lines.append({"question_id": qid, "response": f"So the answer is {{{shown}}}"})
    for qid, answer in SUB.items():
        for _ in range(5):
            shown = answer if qid in ("1_1", "2_1") else "no"
            lines.append({"question_id": qid, "response": f"{{{shown}}}"})
    return "\n".join(json.dumps(line) for line in lines).encode()


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Bot]:
    tmp = tmp_path_factory.mktemp("bench")
    key = tmp / "data" / "zerobench" / "key.json"
    key.parent.mkdir(parents=True)
    key.write_text(json.dumps({"zerobench": MAIN, "zerobench_subquestions": SUB}))
    async with bot_session(tmp, env={"BENCHBOARD_NATORY_SEED": SEED}) as b:
        yield b


async def _publish(bot: Bot, chat: dict, user: dict, reply: dict[str, Any]) -> int:
    sid = submission_id(text_of(reply))
    answer = await bot.press(chat, user, reply, f"pub:{sid}")
    assert f"Published #{sid}" in answer["text"], answer
    return sid


# --- ZeroBench -----------------------------------------------------------------------------


async def test_zerobench_upload_scores_both_splits_and_ranks_by_pass_at_1(bot: Bot) -> None:
    user, chat = private_user(bot, 8101)
    mark = bot.api.mark()
    msg = await bot.api.send_document(
        chat, user, zerobench_run(), "run.jsonl", caption="#zerobench #think\nmodel: Zed"
    )
    reply = await bot.api.reply_to(msg, timeout=20)
    plain = text_of(reply)
    assert "ZeroBench" in plain.splitlines()[0]
    for line in (
        "Attempts per question (k): 5",
        "Main questions — pass@1: 16.0% (1.6/10)",
        "Main questions — pass@k: 20.0% (2/10)",
        "Main questions — k/k reliability: 10.0% (1/10)",
        "Subquestions — pass@1: 50.0% (2/4)",
        "Subquestions — pass@k: 50.0% (2/4)",
        "Subquestions — k/k reliability: 50.0% (2/4)",
    ):
        assert line in plain, plain
    sid = await _publish(bot, chat, user, reply)
    board = text_of(await bot.say(chat, user, "/leaderboard zerobench"))
    assert "1. Zed · think · 16.0% (1 run, mean 16.0%) · pass@5 20.0% · 5/5 10.0%" in board
    me = text_of(await bot.say(chat, user, "/me"))
    assert f"#{sid} · ZeroBench · Zed · think · 16.0% · published" in me
    bot.check_clean(mark)


# --- Natory --------------------------------------------------------------------------------


def today() -> int:
    return daily_target(datetime.now(UTC).date(), SEED)


async def test_natory_shows_todays_target_and_a_reply_is_scored_against_it(bot: Bot) -> None:
    user, chat = private_user(bot, 8201)
    mark = bot.api.mark()
    natory = await bot.say(chat, user, "/natory")
    plain = text_of(natory)
    target = today()
    assert f"Target: {target}" in plain
    assert "Allowed digits: " + ", ".join(sorted(set(str(target)))) in plain
    assert "Reply to this message" in plain
    assert plain.rstrip().endswith(f"#natory target: {target}")
    # the line, one tap to copy
    (copy,) = [b for row in natory["params"]["reply_markup"]["inline_keyboard"] for b in row]
    assert copy["copy_text"] == {"text": f"#natory target: {target}"}
    # a reply: the expression with tag lines; not a PrimeBench submission
    text = f"model: Replier\n#think\ncost: 0.01\nlatency: 2500ms\n{target}"
    msg = await bot.api.send_text(chat, user, text, reply_to=natory["result"])
    reply = await bot.api.reply_to(msg, timeout=20)
    scored = text_of(reply)
    assert scored.splitlines()[0] == "Natory" and "PrimeBench" not in scored
    assert f"Target: {target}" in scored and f"Expression: {target}" in scored
    assert "triviality rule makes the final score 0" in scored
    assert "Model: Replier" in scored and "Mode: think" in scored
    await _publish(bot, chat, user, reply)
    board = text_of(await bot.say(chat, user, "/leaderboard natory"))
    assert f"target {target}" in board.splitlines()[0]
    assert "1. Replier · think · best 0 (trivial) · mean 0 · 1 attempt · $0.01 · 2.5s" in board
    bot.check_clean(mark)


async def test_natory_hashtag_with_target_cost_latency_and_unique_bonus(bot: Bot) -> None:
    user, chat = private_user(bot, 8202)
    mark = bot.api.mark()
    text = "#natory #default\ntarget: 6256\nmodel: Alpha\ncost: $0.02\nlatency: 4s\n2*sopfr(6)^5+6"
    reply = await bot.say(chat, user, text)
    plain = text_of(reply)
    assert "Target: 6256" in plain and "  First with this expression: +5" in plain
    assert "Final score: 138" in plain
    await _publish(bot, chat, user, reply)
    # the same simplified expression again: no unique bonus the second time
    other, other_chat = private_user(bot, 8203)
    again = await bot.say(
        other_chat,
        other,
        "#natory #think\ntarget: 6256\nmodel: Beta\ncost: 0.001\n(2*sopfr(6)^5+6)",
    )
    assert "First with this expression" not in text_of(again)  # only what paid or cost
    assert "Final score: 133" in text_of(again)
    await _publish(bot, other_chat, other, again)
    slow = await bot.say(
        other_chat, other, "#natory #think\ntarget: 6256\nmodel: Beta\nlatency: 3200ms\n2*5^5+6"
    )
    assert "Final score: 46" in text_of(slow)
    await _publish(bot, other_chat, other, slow)
    board = text_of(await bot.say(chat, user, "/leaderboard natory 6256"))
    lines = board.splitlines()
    assert "target 6256" in lines[0]
    assert "1. Alpha · default · best 138 · mean 138 · 1 attempt · $0.02 · 4s" in lines
    assert "2. Beta · think · best 133 · mean 89.5 · 2 attempts · $0.001 · 3.2s" in lines
    assert "   2 * sopfr(6)^5 + 6" in lines
    bot.check_clean(mark)


async def test_bad_cost_or_latency_is_a_clear_message_and_nothing_is_saved(bot: Bot) -> None:
    user, chat = private_user(bot, 8204)
    mark = bot.api.mark()
    bad = text_of(await bot.say(chat, user, "#natory\ntarget: 6256\ncost: -1\n2*5^5+6"))
    assert "cost must be a non-negative number" in bad and "-1" in bad
    assert "Submission #" not in bad and "Nothing was saved" in bad
    slow = text_of(await bot.say(chat, user, "#natory\ntarget: 6256\nlatency: soon\n2*5^5+6"))
    assert "latency must be a non-negative time" in slow and "3200ms" in slow
    fa, fa_chat = private_user(bot, 8205, "fa")
    persian = text_of(await bot.say(fa_chat, fa, "#natory\ntarget: 6256\ncost: <b>\n2*5^5+6"))
    assert "هزینه" in persian and "<b>" in persian  # escaped, shown as typed
    me = text_of(await bot.say(chat, user, "/me"))
    assert "no submissions yet" in me
    bot.check_clean(mark)


async def test_models_board_and_compare_photo(bot: Bot) -> None:
    # runs after the tests above (module order): Alpha, Beta and Replier are published
    user, chat = private_user(bot, 8206)
    mark = bot.api.mark()
    models = text_of(await bot.say(chat, user, "/natory models"))
    lines = models.splitlines()
    assert "all targets" in lines[0]
    assert "1. Alpha · default · mean 138 · best 138 · 1 attempt on 1 target · $0.02 · 4s" in lines
    assert any(line.startswith("2. Beta · think · mean 89.5") for line in lines)
    # only trivial attempts: shown at 0, ranked last
    assert lines[4].startswith("3. Replier · think · mean 0 · best 0 (trivial)")
    assert text_of(await bot.say(chat, user, "/leaderboard natory models")) == models
    msg = await bot.api.send_text(chat, user, "/compare natory")
    call = await bot.api.reply_to(msg, timeout=60)
    assert call["method"] == "sendPhoto", call
    photo = call["params"]["photo"]
    assert photo.content.startswith(PNG) and len(photo.content) > 10_000
    assert "Pareto front" in call["params"]["caption"]
    usage = text_of(await bot.say(chat, user, "/compare primebench"))
    assert "/compare natory" in usage
    bad = text_of(await bot.say(chat, user, "/leaderboard natory <x>"))
    assert "<x>" in bad and "/leaderboard natory 6256" in bad
    bot.check_clean(mark)


async def test_reply_to_natory_in_a_group(bot: Bot) -> None:
    user = bot.api.user(8207, "G", language_code="en")
    group = bot.api.group_chat(-100820, "Lab")
    natory = await bot.say(group, user, "/natory")
    target = today()
    msg = await bot.api.send_text(
        group, user, f"model: Grouper\n{target}", reply_to=natory["result"]
    )
    reply = await bot.api.reply_to(msg, timeout=20)
    assert f"Target: {target}" in text_of(reply) and "Final score: 0" in text_of(reply)

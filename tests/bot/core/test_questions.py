"""Questions of a choice benchmark through the use cases, on SQLite and PostgreSQL: the
shares of the latest published results per question (hidden and banned results left
out), and ``/keyinfo``'s possible key errors when most of the strongest results
contradict a corrected-by-mistake key. The key is the tests' generated one."""

from __future__ import annotations

from bot.core import admin, questions, submissions
from bot.core.services import Services
from bot.render.admin_format import render_keyinfo
from scoring import registry
from storage import Store
from tests.e2e.harness import key_text

from .conftest import BOT_ADMIN, BOTH, KEY
from .test_admin import actor
from .usecases import Submitter

ENGINES = BOTH


async def test_the_shares_count_published_results_on_the_boards(
    services: Services, store: Store
) -> None:
    post = Submitter(services)
    first = sorted(KEY)[0]
    for i, (correct, wrong) in enumerate([(10, 0), (0, 1), (5, 0)]):
        await post.published(correct, wrong, model=f"M{i}", user_id=10 + i)
    none = await post.submit(f"model: M3\n#default\n{first}:none", user_id=13)
    await submissions.publish(services, none)
    hidden = await post.published(10, 0, model="Hidden", user_id=20)
    await store.hide(hidden.id)
    banned = await post.published(0, 3, model="Banned", user_id=21)
    await store.ban(banned.user_id, by=BOT_ADMIN)
    await post.submit("1:1\n2:2", user_id=22)  # private: not counted
    cache = questions.QuestionCache()
    stats = await questions.question_stats(services, "primebench", cache)
    assert stats.counted == 4 and len(stats.questions) == len(KEY)
    q1 = stats.questions[0]
    assert (q1.question, q1.right, q1.wrong, q1.none) == (first, 2, 1, 1)
    assert q1.share("right") == 0.5
    last = stats.questions[-1]
    assert (last.right, last.wrong, last.none) == (0, 0, 4)
    # kept: a new result shows after TTL, not at once
    await post.published(10, 0, model="Later", user_id=30)
    assert await questions.question_stats(services, "primebench", cache) is stats
    fresh = await questions.question_stats(services, "primebench", questions.QuestionCache())
    assert fresh.counted == 5


async def test_keyinfo_names_questions_the_strong_results_contradict(
    services: Services, store: Store
) -> None:
    post = Submitter(services)
    for i in range(12):  # 12 board lines: the 5 best are read
        await post.published(20 + i, 0, model=f"Strong {i}", user_id=100 + i)
    bot_admin = await actor(services, BOT_ADMIN, 1, in_group=False)
    (info,) = [i for i in await admin.key_info(services, bot_admin) if i.benchmark.has_questions]
    assert info.strong == 5 and info.doubts == ()
    assert "5 strongest results agree" in render_keyinfo("en", [info])
    # a mistaken key: question 1's option changed; every strong result chose the old one
    first = sorted(KEY)[0]
    wrong_key = dict(KEY)
    wrong_key[first] = KEY[first] % 4 + 1
    benchmark = registry.get("primebench")
    await admin.install_key(
        services, bot_admin, benchmark, key_text(wrong_key).encode(), source="test"
    )
    (info,) = [i for i in await admin.key_info(services, bot_admin) if i.benchmark.has_questions]
    (doubt,) = info.doubts
    assert (doubt.question, doubt.key_option, doubt.chosen) == (first, wrong_key[first], KEY[first])
    assert (doubt.agree, doubt.strong) == (5, 5)
    text = render_keyinfo("en", [info])
    assert f"question {first}: the key says {wrong_key[first]}; 5 of 5 chose {KEY[first]}" in text
    assert "/setkey primebench" in text
    fa = render_keyinfo("fa", [info])
    assert "/setkey primebench" in fa and "⚠️" in fa
    # never in a group: the doubts name the key's options
    (group,) = [
        i
        for i in await admin.key_info(services, bot_admin, private=False)
        if i.benchmark.has_questions
    ]
    assert group.strong == 0 and group.doubts == ()

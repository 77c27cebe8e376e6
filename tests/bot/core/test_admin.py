"""Admins' use cases, straight through ``bot.core.admin`` on a real store: who may act
where, a group admin's verification (that group's board only) against a bot admin's
(every board), hiding, bans that take a user's results off every board, a corrected
key that re-scores what is stored, and exports."""

from __future__ import annotations

import asyncio
import csv
import io
from pathlib import Path
from typing import Any

import pytest

from bot.core import (
    admin,
    boards,
    keys,
    leases,
    links,
    notices,
    sharing,
    submissions,
    webboards,
)
from bot.core.errors import UserError
from bot.core.services import Services
from bot.render.admin_format import render_rescore_done
from bot.render.csvboards import board_csv
from bot.render.trust_format import render_notice
from bot.render.webviews import WebQuery
from scoring import registry
from storage import Store, Visibility
from tests.e2e.harness import key_text

from .conftest import BOT_ADMIN, BOTH, KEY, engine_free
from .usecases import Submitter, answer_text, points

ENGINES = BOTH
GROUP, OTHER_GROUP = -100, -200
#: Administers GROUP in Telegram (and nothing else).
GROUP_ADMIN = 50


class Telegram:
    """Who administers which group, as Telegram would answer (and how often it was
    asked)."""

    def __init__(self, admins: set[tuple[int, int]]) -> None:
        self.admins = admins
        self.asked = 0

    async def __call__(self, chat_id: int, user_id: int) -> bool:
        self.asked += 1
        return (chat_id, user_id) in self.admins


TELEGRAM = Telegram({(GROUP, GROUP_ADMIN)})


async def actor(
    services: Services, user_id: int, chat_id: int = GROUP, *, in_group: bool = True
) -> admin.Actor:
    return await admin.identify(
        services, admin.AdminCache(), TELEGRAM, user_id=user_id, chat_id=chat_id, in_group=in_group
    )


def query(scope: str) -> boards.BoardQuery:
    return boards.BoardQuery("primebench", scope, None, 0, 0)


async def verified_on(services: Services, submission_id: int, scope: str, chat_id: int) -> bool:
    page = await boards.page(services, query(scope), chat_id=chat_id, user_id=1)
    (row,) = [r for r in page.board.rows if r.submission_id == submission_id]
    return row.verified


@engine_free
async def test_who_is_an_admin_where(services: Services) -> None:
    bot_admin = await actor(services, BOT_ADMIN)
    assert bot_admin.bot_admin and not bot_admin.group_admin
    group_admin = await actor(services, GROUP_ADMIN)
    assert group_admin.group_admin and not group_admin.bot_admin
    assert not (await actor(services, GROUP_ADMIN, OTHER_GROUP)).admin
    assert not (await actor(services, GROUP_ADMIN, GROUP, in_group=False)).admin
    assert not (await actor(services, 1)).admin


@engine_free
async def test_telegram_is_asked_once_within_the_cache_time(services: Services) -> None:
    now = [0.0]
    cache = admin.AdminCache(ttl=60, clock=lambda: now[0])
    telegram = Telegram({(GROUP, GROUP_ADMIN)})
    for _ in range(3):
        found = await admin.identify(services, cache, telegram, user_id=GROUP_ADMIN,
                                     chat_id=GROUP, in_group=True)  # fmt: skip
        assert found.group_admin
    assert telegram.asked == 1
    telegram.admins.clear()  # demoted in Telegram: believed until the answer expires
    now[0] = 61.0
    found = await admin.identify(services, cache, telegram, user_id=GROUP_ADMIN, chat_id=GROUP,
                                 in_group=True)  # fmt: skip
    assert not found.admin and telegram.asked == 2
    await admin.identify(services, cache, telegram, user_id=BOT_ADMIN, chat_id=GROUP, in_group=True)
    assert telegram.asked == 2  # a bot admin is known without asking


async def test_a_group_admins_verify_is_for_their_group_only(
    services: Services, store: Store
) -> None:
    post = Submitter(services)
    sub = await post.published(30, model="Mine", chat_id=GROUP)
    group_admin = await actor(services, GROUP_ADMIN)
    done = await admin.moderate(services, group_admin, "verify", [str(sub.id), "checked", "it"])
    assert not done.verified  # not the global mark
    assert await verified_on(services, sub.id, "c", GROUP)
    assert not await verified_on(services, sub.id, "g", GROUP)
    assert not await verified_on(services, sub.id, "u", GROUP)
    assert not (await sharing.card_view(services, done, lang="en")).verified
    (entry,) = await admin.audit(services, group_admin)
    assert (entry.actor_id, entry.action, entry.target, entry.chat_id, entry.reason) == (
        GROUP_ADMIN, "verify", str(sub.id), GROUP, "checked it"
    )  # fmt: skip
    # a bot admin's mark is on every board
    done = await admin.moderate(
        services, await actor(services, BOT_ADMIN), "verify", [f"#{sub.id}"]
    )
    assert done.verified
    assert await verified_on(services, sub.id, "g", GROUP)
    assert await verified_on(services, sub.id, "c", GROUP)
    assert (await sharing.card_view(services, done, lang="en")).verified


@engine_free
async def test_a_group_admin_acts_only_on_their_groups_results(services: Services) -> None:
    post = Submitter(services)
    elsewhere = await post.published(30, model="Other", chat_id=OTHER_GROUP)
    group_admin = await actor(services, GROUP_ADMIN)
    for action in admin.MODERATION:
        with pytest.raises(UserError) as refused:
            await admin.moderate(services, group_admin, action, [str(elsewhere.id)])
        assert refused.value.key == "not_this_group"
    found = await services.store.get_submission(elsewhere.id)
    assert found is not None and not found.verified and found.visibility is Visibility.PUBLISHED
    # a bot admin may, from anywhere
    bot_admin = await actor(services, BOT_ADMIN, GROUP)
    hidden = await admin.moderate(services, bot_admin, "hide", [str(elsewhere.id)])
    assert hidden.visibility is Visibility.HIDDEN


@engine_free
@pytest.mark.parametrize(
    ("user_id", "action", "args", "key"),
    [
        (1, "verify", ["1"], "not_admin"),
        (GROUP_ADMIN, "verify", [], "usage_verify"),
        (GROUP_ADMIN, "hide", ["abc"], "usage_hide"),
        (GROUP_ADMIN, "unhide", ["99999999999999999999999"], "usage_unhide"),
        (GROUP_ADMIN, "verify", ["12345"], "not_found"),
        (GROUP_ADMIN, "unhide", ["1"], "cannot_unhide"),
    ],
)
async def test_moderation_refusals(
    services: Services, user_id: int, action: str, args: list[str], key: str
) -> None:
    await Submitter(services).published(10, chat_id=GROUP)  # submission 1
    with pytest.raises(UserError) as refused:
        await admin.moderate(services, await actor(services, user_id), action, args)
    assert refused.value.key == key
    if key == "cannot_unhide":
        assert refused.value.values == {"id": 1, "state": "published"}


async def test_hidden_results_leave_the_boards_until_unhidden(services: Services) -> None:
    post = Submitter(services)
    sub = await post.published(30, model="Hid", chat_id=GROUP)
    await post.published(20, model="Stays", chat_id=GROUP, user_id=2)
    group_admin = await actor(services, GROUP_ADMIN)
    token = await links.result_token(services, sub)
    await admin.moderate(services, group_admin, "hide", [str(sub.id), "spam"])
    for scope in ("g", "c"):
        rows = (await boards.page(services, query(scope), chat_id=GROUP, user_id=1)).board.rows
        assert [r.model for r in rows] == ["Stays"]
    assert await links.open_result(services, token) is None
    with pytest.raises(UserError) as twice:
        await admin.moderate(services, group_admin, "hide", [str(sub.id)])
    assert twice.value.key == "cannot_hide"
    back = await admin.moderate(services, group_admin, "unhide", [str(sub.id)])
    assert back.visibility is Visibility.PUBLISHED and back.published_at == sub.published_at
    rows = (await boards.page(services, query("g"), chat_id=GROUP, user_id=1)).board.rows
    assert [r.model for r in rows] == ["Hid", "Stays"]
    assert await links.open_result(services, token) is not None
    assert [e.action for e in await admin.audit(services, group_admin)] == ["unhide", "hide"]


async def test_a_ban_takes_a_users_results_off_every_board(
    services: Services, store: Store
) -> None:
    post = Submitter(services)
    banned = await post.published(40, model="Cheat", user_id=7, chat_id=GROUP)
    await post.published(20, model="Fair", user_id=8, chat_id=GROUP)
    waiting = await post.submit(answer_text(41, model="Cheat 2"), user_id=7)
    token = await links.result_token(services, banned)
    bot_admin = await actor(services, BOT_ADMIN, 1, in_group=False)
    ban = await admin.ban(services, bot_admin, ["7", "copied", "answers"])
    assert (ban.user_id, ban.reason, ban.banned_by) == (7, "copied answers", BOT_ADMIN)
    for scope in ("g", "c"):
        rows = (await boards.page(services, query(scope), chat_id=GROUP, user_id=8)).board.rows
        assert [r.model for r in rows] == ["Fair"]
    assert (await store.leaderboard("primebench", days=7)).total == 1
    assert await links.open_result(services, token) is None
    assert await sharing.inline_results(services, 7, "") == []
    with pytest.raises(UserError) as refused:
        await sharing.to_share(services, banned.id, 7)
    assert refused.value.key == "share_unavailable"
    with pytest.raises(UserError) as refused:
        await submissions.publish(services, waiting)
    assert refused.value.key == "banned_publish"
    # they still score privately
    scored = await post.submit(answer_text(5, model="Private"), user_id=7)
    assert scored.score == points(5)
    assert await admin.unban(services, bot_admin, ["7"]) == (7, True)
    assert await admin.unban(services, bot_admin, ["7"]) == (7, False)
    rows = (await boards.page(services, query("g"), chat_id=GROUP, user_id=8)).board.rows
    assert [r.model for r in rows] == ["Cheat", "Fair"]
    assert await links.open_result(services, token) is not None


@engine_free
async def test_bans_are_for_bot_admins(services: Services, store: Store) -> None:
    for who, args, key in (
        (await actor(services, GROUP_ADMIN), ["7"], "bot_admin_only"),
        (await actor(services, 1), ["7"], "not_admin"),
        (await actor(services, BOT_ADMIN), [str(BOT_ADMIN)], "cannot_ban_admin"),
        (await actor(services, BOT_ADMIN), ["seven"], "usage_ban"),
    ):
        with pytest.raises(UserError) as refused:
            await admin.ban(services, who, args)
        assert refused.value.key == key
    assert await store.bans() == []


async def test_a_corrected_key_rescores_what_is_stored(services: Services, store: Store) -> None:
    post = Submitter(services)
    subs = [await post.published(10 * i, model=f"M{i}", user_id=i) for i in range(1, 5)]
    bot_admin = await actor(services, BOT_ADMIN, 1, in_group=False)
    corrected = dict(KEY)
    for q in range(1, 21):  # the first 20 answers were wrong in the first key
        corrected[q] = KEY[q] % 4 + 1
    change = await admin.install_key(
        services, bot_admin, admin.keyed_benchmark(["primebench"]),
        key_text(corrected).encode(), source="telegram",
    )  # fmt: skip
    assert change.loaded.version.version == 2 and change.pending == len(subs)
    assert [r.best for r in change.before] == [40.0, 30.0, 20.0, 10.0]
    assert services.keys["primebench"].version.id == change.loaded.version.id
    report, after, _ = await admin.rescore(services, change)
    assert report.rescored == len(subs) and report.key_version == 2
    # each answered 10*i from question 1: the first 20 now cost 3 points each
    want = {10: -30.0, 20: -60.0, 30: -50.0, 40: -40.0}
    for sub in subs:
        stored = await store.get_submission(sub.id)
        assert stored is not None and stored.key_version_id == change.loaded.version.id
        assert stored.score == want[int(sub.score)]
        assert submissions.result_of(stored).primary == want[int(sub.score)]
    assert [(r.model, r.best) for r in after] == [
        ("M1", -30.0), ("M4", -40.0), ("M3", -50.0), ("M2", -60.0)
    ]  # fmt: skip
    assert await store.pending_rescore("primebench") == 0
    # a new submission scores against the corrected key at once
    new = await post.submit(answer_text(20, model="New"), user_id=9)
    assert new.score == -60.0 and new.key_version_id == change.loaded.version.id
    (info,) = [
        i for i in await admin.key_info(services, bot_admin) if i.benchmark.name == "primebench"
    ]
    assert info.version is not None and info.version.version == 2 and info.versions == 2
    (entry,) = [e for e in await admin.audit(services, bot_admin) if e.action == "setkey"]
    assert entry.target == "primebench v2"


@engine_free
async def test_a_bad_key_changes_nothing(services: Services, store: Store) -> None:
    await Submitter(services).published(10)
    bot_admin = await actor(services, BOT_ADMIN, 1, in_group=False)
    benchmark = admin.keyed_benchmark(["primebench"])
    with pytest.raises(UserError) as refused:
        await admin.install_key(services, bot_admin, benchmark, b"1:1\n2:x\n", source="t")
    assert refused.value.key == "bad_key" and "line 2" in str(refused.value.values["reason"])
    with pytest.raises(UserError) as refused:
        await admin.install_key(services, await actor(services, GROUP_ADMIN), benchmark,
                                key_text(KEY).encode(), source="t")  # fmt: skip
    assert refused.value.key == "bot_admin_only"
    assert [v.version for v in await store.key_versions("primebench")] == [1]
    assert await store.pending_rescore("primebench") == 0
    for words in ([], ["natory"], ["nothing"]):
        with pytest.raises(UserError) as usage:
            admin.keyed_benchmark(words)
        assert usage.value.key == "usage_setkey"


async def test_an_export_is_the_web_boards_csv_of_every_page(services: Services) -> None:
    post = Submitter(services)
    await post.published(30, model="In Group", user_id=3, chat_id=GROUP)
    await post.published(20, model="Elsewhere", user_id=4, chat_id=OTHER_GROUP)

    def table(data: bytes) -> list[dict[str, str]]:
        rows = csv.DictReader(io.StringIO(data.decode()))
        return [r for r in rows if not (r["rank"] or "").startswith("#")]  # the credit line

    _, name, data = await admin.export_board(services, await actor(services, 1, GROUP), [])
    rows = table(data)
    assert name == f"primebench-chat{GROUP}.csv" and [r["model"] for r in rows] == ["In Group"]
    assert "user_id" not in rows[0] and rows[0]["score"] == "30"
    private = await actor(services, BOT_ADMIN, BOT_ADMIN, in_group=False)
    _, name, data = await admin.export_board(services, private, ["primebench"])
    rows = table(data)
    assert name == "primebench-global.csv"
    assert [(r["rank"], r["model"]) for r in rows] == [("1", "In Group"), ("2", "Elsewhere")]
    # the same columns as the web board's CSV download
    web = await webboards.board(services, WebQuery("primebench"))
    assert data.decode().splitlines()[0] == board_csv(web).splitlines()[0]
    with pytest.raises(UserError) as refused:
        await admin.export_board(services, private, ["nope"])
    assert refused.value.key == "usage_export"


@engine_free
async def test_two_admins_deciding_a_held_result_at_once_decide_it_once(
    services: Services, store: Store
) -> None:
    """Two admins press release and reject on one held result at the same moment (or
    one admin presses twice): one decision wins, the other is told it is no longer held;
    the result is where the winning decision put it (never released and then hidden)."""
    post = Submitter(services)
    key_copy = answer_text(104, model="copy-model")
    bot_admin = await actor(services, BOT_ADMIN, 1, in_group=False)
    for first, second in ((True, True), (True, False), (False, True), (False, False)):
        sub = await post.submit(key_copy, user_id=7)
        published = await submissions.publish(services, sub)
        assert published.held is not None
        outcomes = await asyncio.gather(
            admin.decide(services, bot_admin, sub.id, release=first, reason=None),
            admin.decide(services, bot_admin, sub.id, release=second, reason=None),
            return_exceptions=True,
        )
        decided = [o for o in outcomes if isinstance(o, admin.Decision)]
        refused = [o for o in outcomes if isinstance(o, UserError)]
        assert len(decided) == 1 and len(refused) == 1, outcomes
        assert refused[0].key == "not_held"
        stored = await store.get_submission(sub.id)
        assert stored is not None
        want = Visibility.PUBLISHED if decided[0].released else Visibility.HIDDEN
        assert stored.visibility is want
        flag = await store.flag_of(sub.id)
        state = "released" if decided[0].released else "rejected"
        assert flag is not None and flag.state == state


class Crashing:
    """PrimeBench's scorer that crashes after ``left`` results (a re-score interrupted)."""

    def __init__(self, left: int) -> None:
        self.real = registry.get("primebench")
        self.left = left

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def score(self, text: str, key: Any, *, options: Any = None) -> Any:
        self.left -= 1
        if self.left < 0:
            raise RuntimeError("the process died")
        return self.real.score(text, key, options=options)


#: The key with its first 20 answers corrected.
CORRECTED = {q: (o % 4 + 1 if q <= 20 else o) for q, o in KEY.items()}


async def _corrected_key(services: Services) -> admin.KeyChange:
    """A bot admin installs :data:`CORRECTED` (its re-score left to the test)."""
    bot_admin = await actor(services, BOT_ADMIN, 1, in_group=False)
    return await admin.install_key(
        services, bot_admin, admin.keyed_benchmark(["primebench"]),
        key_text(CORRECTED).encode(), source="telegram",
    )  # fmt: skip


async def _rescore_dying_half_way(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> admin.KeyChange:
    """:func:`_corrected_key`, whose re-score dies after two of the four results (its
    process killed); the change, to run again."""
    change = await _corrected_key(services)
    real = admin.rescore_all

    async def crashing(store: Store, name: str) -> Any:
        return await real(store, name, batch_size=1, benchmarks=lambda _: Crashing(2))

    monkeypatch.setattr(admin, "rescore_all", crashing)
    with pytest.raises(RuntimeError, match="died"):
        await admin.rescore(services, change)
    monkeypatch.setattr(admin, "rescore_all", real)
    assert await services.store.pending_rescore("primebench") == 2  # two re-scored, two to go
    return change


async def test_an_interrupted_rescore_run_again_tells_everyone_it_changed(
    services: Services, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A corrected key's re-score dies after its first batches; run again, it tells every
    user whose result it changed, the first batches' too, from their first scores."""
    post = Submitter(services)
    subs = [await post.published(10 * i, model=f"M{i}", user_id=i) for i in range(1, 5)]
    change = await _rescore_dying_half_way(services, monkeypatch)
    _, _, batch = await admin.rescore(services, change)
    told = {n.user_id: n.changes for n in batch.notices}
    assert sorted(told) == [1, 2, 3, 4]
    want = {10: "-30", 20: "-60", 30: "-50", 40: "-40"}
    for sub in subs:
        (shown,) = told[sub.user_id]
        assert (shown.before, shown.after) == (f"+{sub.score:g}", want[int(sub.score)])
    # told once: a later re-score with nothing left to change tells no one
    _, _, batch = await admin.rescore(services, change)
    assert batch.notices == ()


@engine_free
async def test_two_rescores_at_once_tell_each_user_once(services: Services, store: Store) -> None:
    """``/rescore`` sent twice (or ``/setkey`` then ``/rescore``) while the first runs:
    the second waits for the first and finds nothing left; each user is told once."""
    post = Submitter(services)
    for i in range(1, 5):
        await post.published(10 * i, model=f"M{i}", user_id=i)
    change = await _corrected_key(services)
    runs = await asyncio.gather(admin.rescore(services, change), admin.rescore(services, change))
    told = [n.user_id for _, _, batch in runs for n in batch.notices]
    assert sorted(told) == [1, 2, 3, 4]
    assert sum(report.rescored for report, _, _ in runs) == 4


@engine_free
async def test_a_notice_of_many_changed_results_counts_them_all(
    services: Services, store: Store
) -> None:
    """A user with more changed results than a notice lists is told how many changed
    (not the listed count) and that more are not listed."""
    post = Submitter(services)
    for i in range(notices.MAX_LISTED + 3):
        sub = await post.submit(answer_text(30 + i, model=f"M{i}"), user_id=5)
        await store.publish(sub.id)  # (past the daily limit: the store's own step)
    change = await _corrected_key(services)
    _, _, batch = await admin.rescore(services, change)
    (notice,) = batch.notices
    assert len(notice.changes) == notices.MAX_LISTED and notice.total == notices.MAX_LISTED + 3
    text = render_notice("en", notice.changes, notice.total)
    assert f"re-scored your {notices.MAX_LISTED + 3} published results" in text
    assert "…and 3 more" in text
    assert "…و ۳ نتیجهٔ دیگر" in render_notice("fa", notice.changes, notice.total)


async def _other_instance(services: Services, db_path: Any, clock: Any) -> Services:
    """Services of another instance (its own store) on the test's database."""
    other = Services(settings=services.settings, store=await Store.open(db_path, clock=clock))
    other.bot_username = services.bot_username
    await keys.load_keys(other)
    return other


async def test_two_instances_rescoring_at_once_tell_each_user_once(
    services: Services, store: Store, db_path: Any, clock: Any
) -> None:
    """``/setkey`` on one instance and ``/rescore`` on another (or a second admin's)
    while the first re-scores: the second waits for the first, whichever process it is
    in, and finds nothing left; each user is told once."""
    post = Submitter(services)
    for i in range(1, 5):
        await post.published(10 * i, model=f"M{i}", user_id=i)
    change = await _corrected_key(services)
    other = await _other_instance(services, db_path, clock)
    try:
        runs = await asyncio.gather(admin.rescore(services, change), admin.rescore(other, change))
    finally:
        await other.store.close()
    told = [n.user_id for _, _, batch in runs for n in batch.notices]
    assert sorted(told) == [1, 2, 3, 4]
    assert sum(report.rescored for report, _, _ in runs) == 4


async def test_notices_a_dead_instance_left_are_sent_by_another_once(
    services: Services, store: Store, db_path: Any, clock: Any
) -> None:
    """An instance re-scores, sends one notice and dies: once its lease lapsed, another
    instance sends the rest (at its start, or its next look), none twice."""
    post = Submitter(services)
    for i in range(1, 5):
        await post.published(10 * i, model=f"M{i}", user_id=i)
    change = await _corrected_key(services)
    _, _, batch = await admin.rescore(services, change)
    assert sorted(n.user_id for n in batch.notices) == [1, 2, 3, 4]
    first = await store.take_notice(batch.id, 1)  # sent; then the instance died
    assert first is not None
    sent: list[notices.Notice] = []

    async def send(notice: notices.Notice) -> bool:
        sent.append(notice)
        return True

    other = await _other_instance(services, db_path, clock)
    try:
        assert await notices.send_left(other, send) == 0  # its sender still holds them
        clock.advance(seconds=leases.LEASE_MS / 1000 + 1)
        assert await notices.send_left(other, send) == 3
        assert await notices.send_left(other, send) == 0
    finally:
        await other.store.close()
    assert sorted(n.user_id for n in sent) == [2, 3, 4]
    kept = {n.user_id: n for n in batch.notices}
    assert all(n == kept[n.user_id] for n in sent)  # as made
    assert await store.notice_batches() == []


async def test_a_rescore_stopped_part_way_is_finished_at_the_next_start(
    services: Services, store: Store, db_path: Any, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A corrected key's re-score dies part way (its process killed): the boards show
    half the results on each key until it is finished. The next start of an instance
    finishes it (unless it still runs elsewhere) and tells every user it changed, from
    their first scores; nothing is left for a later start."""
    post = Submitter(services)
    subs = [await post.published(10 * i, model=f"M{i}", user_id=i) for i in range(1, 5)]
    await _rescore_dying_half_way(services, monkeypatch)
    other = await _other_instance(services, db_path, clock)
    try:
        # still running in a live process (its lease renewed): left to it
        assert await store.take_lease("rescore.primebench", "alive", ttl_ms=60_000)
        assert await admin.resume_rescores(other) == []
        clock.advance(seconds=61)  # that process died too
        (done,) = await admin.resume_rescores(other)
        assert await admin.resume_rescores(other) == []
    finally:
        await other.store.close()
    assert done.benchmark.name == "primebench" and await store.pending_rescore("primebench") == 0
    told = {n.user_id: n.changes for n in done.notices.notices}
    want = {10: "-30", 20: "-60", 30: "-50", 40: "-40"}
    for sub in subs:
        (shown,) = told[sub.user_id]
        assert (shown.before, shown.after) == (f"+{sub.score:g}", want[int(sub.score)])
    assert not (await store.leaderboard("primebench")).rescoring
    text = render_rescore_done("en", "PrimeBench", done.report, None, done.after)
    assert "Top before" not in text and "Top after" in text


async def test_a_notice_telegram_did_not_take_waits_for_the_next_look(
    services: Services, store: Store
) -> None:
    """Telegram does not answer (down past the sender's retries) while notices go out:
    the notice is kept, with those after it, for the next look; each is sent once, and
    not to one who sent /notices off meanwhile."""
    post = Submitter(services)
    for i in range(1, 5):
        await post.published(10 * i, model=f"M{i}", user_id=i)
    change = await _corrected_key(services)
    _, _, batch = await admin.rescore(services, change)
    sent: list[int] = []
    down = True

    async def send(notice: notices.Notice) -> bool | None:
        if down and notice.user_id == 2:
            return None
        sent.append(notice.user_id)
        return True

    assert await notices.deliver(services, batch.id, batch.owner, send) == 1
    assert sent == [1] and await store.queued_notices(batch.id) == [2, 3, 4]
    assert await notices.send_left(services, send) == 0  # still down
    down = False
    await store.set_notices(3, False)  # /notices off meanwhile: not told after all
    assert await notices.send_left(services, send) == 2
    assert sent == [1, 2, 4] and await store.notice_batches() == []


@engine_free
async def test_the_report_counts_those_told_before_the_database_went_away(
    services: Services, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database goes away while a re-score's notices go out: the admin's report
    counts the users told before it did; the rest wait, kept, for the next look."""
    from bot.telegram.admin_handlers import send_notices
    from storage import StoreUnavailable

    post = Submitter(services)
    for i in range(1, 5):
        await post.published(10 * i, model=f"M{i}", user_id=i)
    change = await _corrected_key(services)
    _, _, batch = await admin.rescore(services, change)
    sent: list[int] = []

    class Bot:
        async def send_message(self, chat_id: int, text: str) -> None:
            sent.append(chat_id)

    real, taken = store.take_notice, 0

    async def take_notice(batch: str, user_id: int) -> str | None:
        nonlocal taken
        taken += 1
        if taken == 3:
            raise StoreUnavailable("the database does not answer")
        return await real(batch, user_id)

    monkeypatch.setattr(store, "take_notice", take_notice)
    assert await send_notices(Bot(), services, batch) == 2  # type: ignore[arg-type]
    assert sent == [1, 2] and await store.queued_notices(batch.id) == [3, 4]


async def test_a_stopped_rescore_that_fails_again_leaves_the_others_resumed(
    services: Services, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two re-scores stopped part way, one of which fails again at the start (its
    scorer): the other is finished all the same, and the failing one waits, kept."""
    post = Submitter(services)
    for i in range(1, 3):
        await post.published(10 * i, model=f"M{i}", user_id=i)
    await store.keep_scores_before(
        "natory", notices._dumps(await notices.snapshot(services, "natory"))
    )
    await notices.before(services, "primebench")
    await keys.load_key(services, "primebench", key_text(CORRECTED).encode(), "test")
    real = admin.rescore_all

    async def natory_fails(store: Store, name: str) -> Any:
        if name == "natory":
            raise RuntimeError("the scorer broke")
        return await real(store, name)

    monkeypatch.setattr(admin, "rescore_all", natory_fails)
    (done,) = await admin.resume_rescores(services)
    assert done.benchmark.name == "primebench" and len(done.notices.notices) == 2
    assert await store.scores_kept_before() == ["natory"]


@engine_free
async def test_a_held_result_its_owner_withdrew_stays_withdrawn(
    services: Services, store: Store
) -> None:
    """The owner withdraws a result held for review; a stale (or forged) ✅ release
    button, /verify or a reject then leave it withdrawn, and the admin is told why. It is
    no longer listed by /flags; published again by its owner, it waits for review again
    (listed, and released by an admin)."""
    post = Submitter(services)
    sub = await post.submit(answer_text(104, model="copy-model"), user_id=7)
    assert (await submissions.publish(services, sub)).held is not None
    bot_admin = await actor(services, BOT_ADMIN, BOT_ADMIN, in_group=False)
    assert (await admin.flags(services, bot_admin))[1] == 1
    await submissions.withdraw(services, sub.id, 7)
    for release in (True, False):
        with pytest.raises(UserError) as refused:
            await admin.decide(services, bot_admin, sub.id, release=release, reason=None)
        assert refused.value.key == "held_withdrawn"
    with pytest.raises(UserError) as refused:
        await admin.verify(services, bot_admin, [str(sub.id)])
    assert refused.value.key == "held_withdrawn"
    stored = await store.get_submission(sub.id)
    assert stored is not None and stored.visibility is Visibility.WITHDRAWN
    assert not stored.verified
    flag = await store.flag_of(sub.id)
    assert flag is not None and flag.state == "held"
    assert await admin.flags(services, bot_admin) == ([], 0)
    # asked to publish again: held again, and an admin may release it then
    again = await submissions.publish(services, stored)
    assert again.held is not None and again.submission.visibility is Visibility.PRIVATE
    flags, total = await admin.flags(services, bot_admin)
    assert total == 1 and [f.submission.id for f in flags] == [sub.id]
    done = await admin.decide(services, bot_admin, sub.id, release=True, reason=None)
    assert done.released and done.submission.visibility is Visibility.PUBLISHED


@engine_free
async def test_a_withdrawn_held_result_is_the_owners_to_ask_again(services: Services) -> None:
    """Its card no longer says an admin will decide (none will: it waits for no one); it
    says it would be held if published, and offers Publish again; its model may change."""
    post = Submitter(services)
    sub = await post.submit(answer_text(104, model="copy-model"), user_id=7)
    await submissions.publish(services, sub)
    withdrawn = await submissions.withdraw(services, sub.id, 7)
    card = await submissions.card(services, withdrawn)
    assert card.flag is not None and card.flag_state is None and card.editable
    renamed = await submissions.set_model(services, sub.id, "renamed-model")
    assert renamed.model == "renamed-model"
    page = await boards.history(services, 7)
    assert not page.held


@engine_free
async def test_a_withdrawal_and_a_release_at_once_leave_one_of_them(
    services: Services, store: Store
) -> None:
    """The owner withdraws while an admin releases: either the release came first (on
    the boards, released) or the withdrawal did (withdrawn, still held, and the admin
    told so): never withdrawn with a release recorded, never published after it."""
    post = Submitter(services)
    bot_admin = await actor(services, BOT_ADMIN, BOT_ADMIN, in_group=False)
    for _ in range(6):
        sub = await post.submit(answer_text(104, model="copy-model"), user_id=7)
        assert (await submissions.publish(services, sub)).held is not None
        outcomes = await asyncio.gather(
            submissions.withdraw(services, sub.id, 7),
            admin.decide(services, bot_admin, sub.id, release=True, reason=None),
            return_exceptions=True,
        )
        stored = await store.get_submission(sub.id)
        flag = await store.flag_of(sub.id)
        assert stored is not None and flag is not None
        if isinstance(outcomes[1], admin.Decision):
            assert flag.state == "released", outcomes
        else:
            assert isinstance(outcomes[1], UserError), outcomes
            assert outcomes[1].key == "held_withdrawn"
            assert stored.visibility is Visibility.WITHDRAWN and flag.state == "held"
        if flag.state == "released":
            # the withdrawal came after: the owner's to make, and made
            assert stored.visibility in (Visibility.PUBLISHED, Visibility.WITHDRAWN)


@engine_free
async def test_a_refused_hide_names_the_results_state_in_the_readers_words(
    services: Services,
) -> None:
    """/hide of a held result says it is held for review (not "private"), and a Persian
    reader reads the state in Persian, not the store's English word."""
    from bot.telegram.handlers import error_text

    post = Submitter(services)
    sub = await post.submit(answer_text(104, model="copy-model"), user_id=7)
    await submissions.publish(services, sub)
    bot_admin = await actor(services, BOT_ADMIN, BOT_ADMIN, in_group=False)
    with pytest.raises(UserError) as refused:
        await admin.moderate(services, bot_admin, "hide", [str(sub.id)])
    assert refused.value.values["state"] == "held"
    said = error_text("en", refused.value)
    assert said == f"#{sub.id} is held for review: only published results can be hidden."
    persian = error_text("fa", refused.value)
    assert "held" not in persian and "نگه‌داشته برای بررسی" in persian
    with pytest.raises(UserError) as refused:
        await admin.moderate(services, bot_admin, "unhide", [str(sub.id)])
    assert "held" not in error_text("fa", refused.value)


@engine_free
async def test_a_rescore_waits_out_a_locked_database(services: Services, db_path: Path) -> None:
    """Another process holds the SQLite file (``BEGIN EXCLUSIVE``) past the busy
    timeout while a re-score starts: the re-score waits (a transient fault, never
    "re-score failed") and completes once the file is free."""
    import sqlite3

    post = Submitter(services)
    subs = [await post.published(10 * i, model=f"M{i}", user_id=i) for i in range(1, 4)]
    change = await _corrected_key(services)
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        running = asyncio.ensure_future(admin.rescore(services, change))
        await asyncio.sleep(7)  # past the store's busy timeout (5 s)
        assert not running.done(), running.exception()
    finally:
        holder.execute("COMMIT")
        holder.close()
    report, _, told = await asyncio.wait_for(running, 60)
    assert report.rescored == len(subs)
    assert sorted(n.user_id for n in told.notices) == [1, 2, 3]

"""Users, chats, keys and the life of a submission, on a real temp-file database."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta

import pytest

from storage import (
    InvalidData,
    LimitReached,
    MissingModeOrModel,
    NewSubmission,
    NotAllowed,
    NotFound,
    Store,
    Submission,
    Visibility,
    normalise_model,
)
from tests.storage.helpers import PRIME, FakeClock, Maker, answers, key_bytes
from tests.storage.pg import query_one


async def test_users_and_chats_are_updated_on_sight(store: Store, clock: FakeClock) -> None:
    chosen = await store.upsert_user(
        7, first_name="Ali", last_name=None, username="ali", language_code="fa"
    )
    assert chosen is None  # no /lang choice yet: the write reads back none
    first = await store.get_user(7)
    clock.advance(hours=1)
    await store.set_user_language(7, "en")
    chosen = await store.upsert_user(
        7, first_name="Ali R", last_name="Rezaei", username=None, language_code="en"
    )
    assert chosen == "en"  # an update from Telegram keeps the choice, and returns it
    user = await store.get_user(7)
    assert first is not None and user is not None
    assert (user.first_name, user.last_name, user.username, user.language_code) == (
        "Ali R",
        "Rezaei",
        None,
        "en",
    )
    assert user.first_seen == first.first_seen and user.last_seen == clock.now
    await store.upsert_chat(-5, type="group", title="Evals")
    await store.upsert_chat(-5, type="supergroup", title="Evals 2")
    chat = await store.get_chat(-5)
    assert chat is not None and (chat.type, chat.title) == ("supergroup", "Evals 2")
    assert await store.get_user(8) is None and await store.get_chat(9) is None


async def test_chosen_language_is_separate_from_telegram_language(store: Store) -> None:
    assert await store.user_language(1) is None
    await store.set_user_language(1, "fa")  # before the user row exists
    await store.upsert_user(1, first_name="A", last_name=None, username=None, language_code="en")
    assert await store.user_language(1) == "fa"
    user = await store.get_user(1)
    assert user is not None and user.language_code == "en" and user.chosen_language == "fa"
    await store.set_user_language(1, None)
    assert await store.user_language(1) is None


async def test_keys_are_versioned_by_sha256(store: Store) -> None:
    assert await store.current_key("primebench") is None
    v1 = await store.save_key("primebench", key_bytes(1), source="a")
    same = await store.save_key("PrimeBench", key_bytes(1), source="again")
    v2 = await store.save_key("primebench", key_bytes(2), source="b")
    assert (v1.version, v1.created) == (1, True)
    assert (same.id, same.version, same.created, same.source) == (v1.id, 1, False, "a")
    assert (v2.version, v2.created) == (2, True)
    current = await store.current_key("primebench")
    assert current is not None and current.id == v2.id
    assert await store.key_data(v1.id) == key_bytes(1)  # the old one is kept
    assert [k.version for k in await store.key_versions("primebench")] == [1, 2]
    # loading an old key again makes it current again, without a new version
    back = await store.save_key("primebench", key_bytes(1), source="revert")
    current = await store.current_key("primebench")
    assert back.created is False and current is not None and current.version == 1
    with pytest.raises(NotFound):
        await store.key_data(999)


async def test_record_keeps_everything(store: Store, make: Maker, clock: FakeClock) -> None:
    raw = answers(1, 2, 3, "none") + "\r\nprose ۱:۳ \u200c\U0001f600\n"
    sub = await store.record_submission(
        make(raw, model="  GPT-6   Luna ", mode="think_tools", extra={"note": "x"})
    )
    assert sub.created and sub.visibility is Visibility.PRIVATE and not sub.verified
    assert (sub.model, sub.model_norm, sub.mode) == ("GPT-6 Luna", "gpt-6 luna", "think_tools")
    result = PRIME.score(raw, make.key)
    assert sub.score == result.primary and sub.fingerprint == result.fingerprint
    assert PRIME.result_from_record(sub.record) == result
    assert sub.extra == {"note": "x"} and sub.key_version_id == make.key_id
    assert sub.scorer_version == PRIME.scorer_version and sub.created_at == clock.now
    assert await store.raw_text(sub.id) == raw
    again = await store.get_submission(sub.id)
    assert again is not None and again.created is False and again.record == sub.record
    assert await store.find_submission(sub.chat_id, sub.message_id) == again
    assert await store.get_submission(12345) is None


async def test_raw_text_is_lossless_and_compressed(store: Store, make: Maker, db_path) -> None:
    big = "\n".join(f"{q % 20 + 1}:{q % 4 + 1}" for q in range(400_000)) + "\nend\ud800"
    sub = await store.record_submission(make(big))
    assert await store.raw_text(sub.id) == big  # even a lone surrogate survives
    (stored,) = query_one(db_path, "SELECT length(raw) FROM submissions")
    assert stored < len(big) / 10


async def test_short_inputs_recorded_together_are_stored_compressed(
    store: Store, make: Maker, db_path
) -> None:
    """Submissions recorded at once share one INSERT, whose trip compresses their raw
    inputs: each reads back exactly and is stored compressed."""
    await store.record_submission(make("1:1"))  # the user and the chat now have rows
    texts = [f"model: m\n#think\n{n}:2\n" + "3:4\n" * 300 + "\ud800" for n in range(12)]
    subs = await asyncio.gather(*(store.record_submission(make(t)) for t in texts))
    assert [s.raw_chars for s in subs] == [len(t) for t in texts]
    for sub, text in zip(subs, texts, strict=True):
        assert await store.raw_text(sub.id) == text
    count, largest = query_one(db_path, "SELECT COUNT(*), MAX(length(raw)) FROM submissions")
    assert count == 13 and isinstance(largest, int) and largest < len(texts[0]) / 10


def test_short_and_long_inputs_compress_and_read_back() -> None:
    """Short inputs use a small window (cheaper to set up), long ones zlib's default:
    each reads back exactly, lone surrogates included, and compresses."""
    from storage.values import compress, decompress

    for size in (0, 1, 600, 4095, 4096, 4097, 40_000):
        text = ("12:3\n7:none\nsome prose \u06f1\ud800 " * (size // 20 + 1))[:size]
        packed = compress(text)
        assert decompress(packed) == text
        if size >= 600:
            assert len(packed) < len(text.encode("utf-8", "surrogatepass")) / 5


async def test_same_update_twice_stores_one_submission(store: Store, make: Maker) -> None:
    new = make(answers(1, 1, 1), message_id=42)
    first = await store.record_submission(new)
    second = await store.record_submission(new)
    other_chat = await store.record_submission(make(answers(1), message_id=42, chat_id=-7))
    assert first.created and not second.created and second.id == first.id
    assert other_chat.created and other_chat.id != first.id
    assert len(await store.history(1)) == 2


async def test_submission_without_key_version_works(store: Store, make: Maker) -> None:
    """Natory-style: no key version, the 'key' travels in extra."""
    new = make(answers(1), benchmark="natory", mode=None, model=None, extra={"target": 24})
    sub = await store.record_submission(
        NewSubmission(**{**{f: getattr(new, f) for f in new.__slots__}, "key_version_id": None})
    )
    assert sub.benchmark == "natory" and sub.key_version_id is None
    assert sub.extra == {"target": 24}
    with pytest.raises(MissingModeOrModel) as caught:
        await store.publish(sub.id)
    assert caught.value.missing == ("mode", "model name")
    await store.set_mode(sub.id, "think")
    with pytest.raises(MissingModeOrModel, match="model"):
        await store.publish(sub.id)
    await store.set_model(sub.id, "Qwen")
    assert (await store.publish(sub.id)).visibility is Visibility.PUBLISHED
    board = await store.leaderboard("natory")
    assert [r.submission_id for r in board.rows] == [sub.id] and board.key_version is None


async def test_bad_input_is_refused_and_nothing_is_written(store: Store, make: Maker) -> None:
    with pytest.raises(InvalidData, match="unknown mode"):
        await store.record_submission(make(answers(1), mode="thinking"))
    with pytest.raises(InvalidData, match="empty"):
        await store.record_submission(make(answers(1), model="   "))
    with pytest.raises(InvalidData, match="JSON"):
        await store.record_submission(make(answers(1), extra={"x": object()}))
    assert await store.history(1) == []
    sub = await store.record_submission(make(answers(1)))
    with pytest.raises(InvalidData):
        await store.set_mode(sub.id, "fast")
    with pytest.raises(NotFound):
        await store.set_mode(999, "think")


async def test_visibility_life_cycle(store: Store, make: Maker, clock: FakeClock) -> None:
    sub = await store.record_submission(make(answers(1, 1), user_id=5))
    clock.advance(minutes=3)
    published = await store.publish(sub.id)
    assert published.visibility is Visibility.PUBLISHED and published.published_at == clock.now
    assert (await store.publish(sub.id)).published_at == published.published_at  # idempotent
    with pytest.raises(NotAllowed):
        await store.set_model(sub.id, "renamed after publishing")
    with pytest.raises(NotAllowed, match="another user"):
        await store.withdraw(sub.id, user_id=6)
    hidden = await store.hide(sub.id)
    assert hidden.visibility is Visibility.HIDDEN
    with pytest.raises(NotAllowed):
        await store.publish(sub.id)  # the owner cannot undo an admin's hide
    with pytest.raises(NotAllowed):
        await store.withdraw(sub.id, user_id=5)
    assert (await store.unhide(sub.id)).visibility is Visibility.PUBLISHED
    assert (await store.withdraw(sub.id, user_id=5)).visibility is Visibility.WITHDRAWN
    with pytest.raises(NotAllowed):
        await store.hide(sub.id)
    assert (await store.set_mode(sub.id, "tools")).mode == "tools"  # editable again
    assert (await store.publish(sub.id)).visibility is Visibility.PUBLISHED  # owner's choice
    assert (await store.verify(sub.id)).verified is True
    assert (await store.verify(sub.id, verified=False)).verified is False
    with pytest.raises(NotFound):
        await store.publish(404)


async def test_history_is_newest_first_with_paging(
    store: Store, make: Maker, clock: FakeClock
) -> None:
    ids = []
    for i in range(7):
        bench = "primebench" if i % 2 == 0 else "zerobench"
        ids.append((await store.record_submission(make(answers(i % 4 + 1), benchmark=bench))).id)
        clock.advance(seconds=1)
    await store.record_submission(make(answers(1), user_id=2))  # someone else's
    assert [s.id for s in await store.history(1)] == ids[::-1]
    assert [s.id for s in await store.history(1, limit=3, offset=2)] == ids[::-1][2:5]
    assert [s.id for s in await store.history(1, benchmark="zerobench")] == ids[1::2][::-1]
    with pytest.raises(InvalidData):
        await store.history(1, limit=0)


async def test_today_counts_follow_the_clock(store: Store, make: Maker, clock: FakeClock) -> None:
    clock.now = clock.now.replace(hour=23, minute=0)
    a = await store.record_submission(make(answers(1)))
    b = await store.record_submission(make(answers(2)))
    await store.publish(a.id)
    assert await store.submitted_today(1) == 2 and await store.published_today(1) == 1
    clock.advance(hours=2)  # past midnight UTC
    assert await store.submitted_today(1) == 0 and await store.published_today(1) == 0
    await store.publish(b.id)  # submitted yesterday, published today
    assert await store.published_today(1) == 1
    # in a time zone where both moments fall on the same day
    from datetime import timezone

    tehran = timezone(timedelta(hours=-5))
    assert await store.submitted_today(1, tz=tehran) == 2
    assert await store.published_today(2) == 0


def test_normalise_model_folds_case_and_whitespace() -> None:
    assert normalise_model("  Claude\tSonnet  5.5 ") == "claude sonnet 5.5"
    assert normalise_model("GPT-6") == normalise_model("gpt-6")


async def test_known_user_and_chat_take_the_one_statement_path(store: Store, make: Maker) -> None:
    """Once the user, chat and benchmark rows exist, a submission is one INSERT; what it
    returns (built from its own values) equals what a read gives; a repeat finds the first."""
    await store.upsert_user(77, first_name="Ann", last_name=None, username=None, language_code="en")
    await store.upsert_chat(-77, type="private", title=None)
    first = await store.record_submission(make(answers(1, 2), user_id=77, chat_id=-77))
    second = await store.record_submission(make(answers(3, 4), user_id=77, chat_id=-77))
    again = await store.record_submission(
        make(answers(4, 4), user_id=77, chat_id=-77, message_id=second.message_id)
    )
    assert first.created and second.created and not again.created
    assert again.id == second.id and again.score == second.score
    for sub in (first, second):
        stored = await store.get_submission(sub.id)
        assert stored is not None
        assert replace(sub, created=False) == stored
        assert stored.benchmark == "primebench"


async def test_submissions_recorded_at_once_share_one_insert_and_each_is_exact(
    store: Store, make: Maker
) -> None:
    """Group commit: concurrent recordings go in multi-row INSERTs; each caller gets its
    own row, and two deliveries of one message in the same group store it once."""
    await store.record_submission(make(answers(1)))  # the user, chat and benchmark rows
    subs = [make(answers(q % 4 + 1, (q * 7) % 4 + 1), model=f"M{q}") for q in range(300)]
    repeat = replace(subs[10], result=subs[11].result)  # Telegram delivering #10 again
    before = store.db.trips
    recorded = await asyncio.gather(*(store.record_submission(s) for s in [*subs, repeat]))
    # 301 submissions: groups of at most 256, not one trip each (and one read of #10)
    assert store.db.trips - before <= 4
    assert [r.created for r in recorded] == [True] * 300 + [False]
    assert recorded[-1].id == recorded[10].id and recorded[-1].score == recorded[10].score
    assert len({r.id for r in recorded[:300]}) == 300
    for sub, rec in zip(subs, recorded, strict=False):
        stored = await store.get_submission(rec.id)
        assert stored is not None and replace(rec, created=False) == stored
        assert (stored.message_id, stored.model) == (sub.message_id, sub.model)


async def test_one_bad_submission_does_not_fail_the_others_in_its_group(
    store: Store, make: Maker
) -> None:
    await store.record_submission(make(answers(1)))
    good = [make(answers(2)) for _ in range(5)]
    bad = make(answers(3))
    object.__setattr__(bad, "key_version_id", 999)  # no such key: the row is refused
    outcomes = await asyncio.gather(
        *(store.record_submission(s) for s in [*good[:2], bad, *good[2:]]),
        return_exceptions=True,
    )
    assert isinstance(outcomes[2], InvalidData)
    stored = [o for i, o in enumerate(outcomes) if i != 2]
    assert all(not isinstance(o, BaseException) and o.created for o in stored)
    assert len(await store.history(1, limit=50)) == 6


async def test_published_today_follows_every_publication_and_the_day(
    store: Store, make: Maker, clock: FakeClock
) -> None:
    subs = [await store.record_submission(make(answers(q))) for q in (1, 2, 3)]
    assert await store.published_today(1) == 0
    for n, sub in enumerate(subs, start=1):
        await store.publish(sub.id)
        assert await store.published_today(1) == n
    await store.withdraw(subs[0].id, 1)
    await store.publish(subs[0].id)  # published again the same day: counted once
    assert await store.published_today(1) == 3
    clock.advance(days=1)
    assert await store.published_today(1) == 0


async def test_publish_within_uses_the_allowance_atomically(
    store: Store, make: Maker, clock: FakeClock
) -> None:
    subs = [await store.record_submission(make(answers(q))) for q in range(1, 11)]
    # ten presses at once, limit three: exactly three are published, each with its count
    outcomes = await asyncio.gather(
        *(store.publish_within(sub.id, daily_limit=3) for sub in subs), return_exceptions=True
    )
    done = [o for o in outcomes if not isinstance(o, BaseException)]
    refused = [o for o in outcomes if isinstance(o, BaseException)]
    assert sorted(used for _, used in done) == [1, 2, 3]
    assert all(isinstance(o, LimitReached) and o.used == 3 and o.limit == 3 for o in refused)
    assert await store.published_today(1) == 3
    # publishing one of them again changes nothing and uses nothing
    again, used = await store.publish_within(done[0][0].id, daily_limit=3)
    assert again.visibility is Visibility.PUBLISHED and used == 3
    # a withdrawn result published again the same day counts once; the next day, anew
    await store.withdraw(done[0][0].id, 1)
    _, used = await store.publish_within(done[0][0].id, daily_limit=3)
    assert used == 3
    clock.advance(days=1)
    _, used = await store.publish_within(refused_sub(subs, done).id, daily_limit=3)
    assert used == 1


def refused_sub(subs: list[Submission], done: list[tuple[Submission, int]]) -> Submission:
    published = {sub.id for sub, _ in done}
    return next(sub for sub in subs if sub.id not in published)


async def test_unhide_keeps_the_publication_day(
    store: Store, make: Maker, clock: FakeClock
) -> None:
    sub = await store.record_submission(make(answers(1)))
    await store.publish(sub.id)
    clock.advance(days=1)
    await store.hide(sub.id)
    await store.unhide(sub.id)
    assert await store.published_today(1) == 0


async def test_packed_raw_is_stored_as_given(store: Store, make: Maker) -> None:
    """A worker packs a large input while scoring it: the store keeps its bytes and
    length, and gives the text back as it was."""
    from dataclasses import replace

    from storage import pack_raw

    raw = answers(1, 2, 3) + "\nprose \u06f1\n" * 1000
    packed = pack_raw(raw)
    assert packed.chars == len(raw) and "blob" not in repr(packed)
    sub = await store.record_submission(replace(make(raw), raw=packed))
    assert await store.raw_text(sub.id) == raw and sub.raw_chars == len(raw)


async def test_the_known_users_and_chats_are_bounded(store: Store, make: Maker) -> None:
    from storage.base import KnownIds

    store._known_users = KnownIds(3)
    store._known_chats = KnownIds(3)
    for n in range(10):
        await store.upsert_user(
            1000 + n, first_name="U", last_name=None, username=None, language_code=None
        )
        await store.upsert_chat(1000 + n, type="private", title=None)
    assert len(store._known_users) == 3 and len(store._known_chats) == 3
    assert 1009 in store._known_users and 1000 not in store._known_users
    # a user forgotten there still records (through the slower path)
    sub = await store.record_submission(make(answers(1), user_id=1000, chat_id=1000))
    assert sub.created and sub.user_id == 1000

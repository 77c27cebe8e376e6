"""Sharing in the store: the card theme, uploaded card file ids, a user's published
results for inline mode (newest first, searchable), and a result's global rank."""

from __future__ import annotations

import pytest

from storage import InvalidData, Store
from tests.storage.helpers import FakeClock, Maker, answers


async def test_the_card_theme_is_light_until_chosen(store: Store) -> None:
    assert await store.card_theme(5) == "light"
    await store.set_card_theme(5, "dark")
    assert await store.card_theme(5) == "dark"
    await store.set_card_theme(5, "light")
    assert await store.card_theme(5) == "light"
    with pytest.raises(InvalidData):
        await store.set_card_theme(5, "neon")


async def test_card_file_ids_are_kept_by_key(store: Store) -> None:
    assert await store.card_file("k1") is None
    await store.save_card_file("k1", "AgAC-file-1")
    assert await store.card_file("k1") == "AgAC-file-1"
    await store.save_card_file("k1", "AgAC-file-2")  # a new upload of the same card
    assert await store.card_file("k1") == "AgAC-file-2"
    with pytest.raises(InvalidData):
        await store.save_card_file("", "x")
    with pytest.raises(InvalidData):
        await store.save_card_file("k" * 200, "x")


async def test_published_by_lists_newest_first_and_filters(
    store: Store, make: Maker, clock: FakeClock
) -> None:
    ids = {}
    for model in ("GPT-6 Luna", "Claude 5", "gpt-6 mini"):
        sub = await store.record_submission(make(answers(1, 2), user_id=3, model=model))
        clock.advance(minutes=1)
        ids[model] = (await store.publish(sub.id)).id
    private = await store.record_submission(make(answers(1), user_id=3, model="GPT-6 hidden"))
    other = await store.record_submission(make(answers(1), user_id=4, model="GPT-6 Luna"))
    await store.publish(other.id)
    found = await store.published_by(3)
    assert [s.id for s in found] == [ids["gpt-6 mini"], ids["Claude 5"], ids["GPT-6 Luna"]]
    assert private.id not in [s.id for s in found]
    assert [s.model for s in await store.published_by(3, search="gpt")] == [
        "gpt-6 mini",
        "GPT-6 Luna",
    ]
    assert [s.model for s in await store.published_by(3, search="luna gpt")] == ["GPT-6 Luna"]
    assert len(await store.published_by(3, search="primebench")) == 3  # benchmark name
    assert await store.published_by(3, search="100%_") == []  # LIKE wildcards are literal
    assert await store.published_by(3, search="gpt\ud800\x00") == []  # no text, no error
    assert [s.id for s in await store.published_by(3, limit=1, offset=1)] == [ids["Claude 5"]]
    await store.withdraw(ids["Claude 5"], 3)
    assert len(await store.published_by(3)) == 2


async def test_global_rank_counts_better_board_lines(store: Store, make: Maker) -> None:
    right = [make.key.answers[q] for q in sorted(make.key.answers)]
    subs = {}
    for model, n in (("A", 1), ("B", 3), ("C", 2)):
        sub = await store.record_submission(make(answers(*right[:n]), user_id=9, model=model))
        subs[model] = await store.publish(sub.id)
    assert [await store.global_rank(subs[m]) for m in "BCA"] == [1, 2, 3]
    # a weaker run of a model already on the board ranks after every better line
    weaker = await store.record_submission(make(answers(*right[:1]), user_id=9, model="B"))
    assert await store.global_rank(await store.publish(weaker.id)) == 3
    unpublished = await store.record_submission(make(answers(1), model="D"))
    assert await store.global_rank(unpublished) is None


async def test_key_sha256_of_a_version(store: Store, make: Maker) -> None:
    assert make.key_id is not None
    sha = await store.key_sha256(make.key_id)
    assert sha is not None and len(sha) == 64
    assert await store.key_sha256(None) is None
    assert await store.key_sha256(10_000) is None

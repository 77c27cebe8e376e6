"""Opaque links: one live random token per target, resolved and revoked."""

from __future__ import annotations

import re

from storage import Store
from storage.links import well_formed
from tests.storage.helpers import Maker, answers


async def test_a_result_has_one_live_token_that_reveals_nothing(store: Store, make: Maker) -> None:
    sub = await store.record_submission(make(answers(1, 2, 3)))
    token = await store.link("result", sub.id, created_by=1)
    assert re.fullmatch(r"[A-Za-z0-9_-]{16}", token)
    assert await store.link("result", sub.id) == token  # the same until revoked
    link = await store.resolve_link(token)
    assert link is not None
    assert (link.kind, link.submission_id, link.chat_id, link.created_by) == (
        "result",
        sub.id,
        None,
        1,
    )
    # a challenge of the same result is another token
    challenge = await store.link("challenge", sub.id)
    assert challenge != token


async def test_tokens_of_different_results_are_unrelated(store: Store, make: Maker) -> None:
    subs = [await store.record_submission(make(answers(1))) for _ in range(20)]
    tokens = [await store.link("result", s.id) for s in subs]
    assert len(set(tokens)) == 20
    # random, not a counter or an encoding of the id: no shared prefix across them
    assert len({t[:4] for t in tokens}) > 10


async def test_revoked_unknown_and_malformed_tokens_resolve_to_nothing(
    store: Store, make: Maker
) -> None:
    await store.upsert_chat(-100, type="supergroup", title="G")
    web = await store.link("web", -100, created_by=7)
    assert (await store.resolve_link(web)) is not None
    assert await store.revoke_links("web", -100) == 1
    assert await store.resolve_link(web) is None
    fresh = await store.link("web", -100)
    assert fresh != web and (await store.resolve_link(fresh)) is not None
    assert await store.resolve_link("A" * 16) is None
    for bad in ("", "x" * 33, "a b", "a'; DROP TABLE links; --", "ок"):
        assert not well_formed(bad)
        assert await store.resolve_link(bad) is None


async def test_the_public_choice_is_off_until_set(store: Store) -> None:
    await store.upsert_user(5, first_name="A", last_name=None, username=None, language_code=None)
    user = await store.get_user(5)
    assert user is not None and user.public is False
    await store.set_user_public(5, True)
    user = await store.get_user(5)
    assert user is not None and user.public is True
    await store.set_user_public(6, True)  # a user not seen before gets a row
    user = await store.get_user(6)
    assert user is not None and user.public is True

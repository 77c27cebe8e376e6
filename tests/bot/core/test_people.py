"""Recording who wrote and where: only what changed, a new user's two rows in one round
trip, and their /lang choice read back by the write."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.core import people
from bot.core.services import Services
from bot.settings import Settings
from storage import Store


@pytest.fixture
def services(store: Store, tmp_path: Path) -> Services:
    return Services(settings=Settings(data_dir=tmp_path, fetch_on_start=False), store=store)


def spy(
    store: Store, name: str, events: list[str], *, fail: bool = False
) -> Callable[..., Awaitable[Any]]:
    """Wrap a store method to note when each call starts and ends (the real call runs)."""
    real = getattr(store, name)

    async def wrapped(*args: Any, **kwargs: Any) -> Any:
        events.append(f"{name} start")
        if fail:
            raise OSError("disk full")
        result = await real(*args, **kwargs)
        events.append(f"{name} end")
        return result

    setattr(store, name, wrapped)
    return wrapped


ADA = people.Person(7, "Ada", None, "ada", "en")
PRIVATE = people.Place(7, "private", None)


async def test_a_new_user_in_a_new_chat_is_written_in_one_go(
    services: Services, store: Store
) -> None:
    events: list[str] = []
    spy(store, "upsert_user", events)
    spy(store, "upsert_chat", events)
    assert await people.track(services, ADA, PRIVATE) == people.Written(chosen_language=None)
    # the chat's write went out before the user's came back: both were in flight at once
    assert events.index("upsert_chat start") < events.index("upsert_user end")
    user, chat = await store.get_user(7), await store.get_chat(7)
    assert user is not None and user.first_name == "Ada" and user.username == "ada"
    assert chat is not None and chat.type == "private"


async def test_only_what_changed_is_written_again(services: Services, store: Store) -> None:
    await people.track(services, ADA, PRIVATE)
    events: list[str] = []
    spy(store, "upsert_user", events)
    spy(store, "upsert_chat", events)
    assert await people.track(services, ADA, PRIVATE) is None  # nothing written
    assert events == []
    await store.set_user_language(7, "fa")
    renamed = people.Person(7, "Ada L.", None, "ada", "en")
    # the write reads back their /lang choice (the bot then need not read it)
    assert await people.track(services, renamed, PRIVATE) == people.Written("fa")
    assert events == ["upsert_user start", "upsert_user end"]
    user = await store.get_user(7)
    assert user is not None and user.first_name == "Ada L."


async def test_a_failed_write_is_tried_again_next_time(services: Services, store: Store) -> None:
    events: list[str] = []
    spy(store, "upsert_user", events, fail=True)
    with pytest.raises(OSError):
        await people.track(services, ADA, PRIVATE)
    # nothing is taken as seen: the next update from them writes again
    del store.upsert_user  # the store's own method again, watched
    spy(store, "upsert_user", events)
    await people.track(services, ADA, PRIVATE)
    assert (await store.get_user(7)) is not None
    assert events.count("upsert_user start") == 2

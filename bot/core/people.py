"""Users and chats as Telegram reports them, and each user's language choice."""

from __future__ import annotations

from dataclasses import dataclass

from .services import Services


@dataclass(frozen=True, slots=True)
class Person:
    id: int
    first_name: str
    last_name: str | None
    username: str | None
    language_code: str | None


@dataclass(frozen=True, slots=True)
class Place:
    id: int
    type: str
    title: str | None


async def track(services: Services, person: Person | None, place: Place | None) -> None:
    """Record who and where, only when something changed since last seen."""
    store, seen = services.store, services.seen
    if person is not None and seen.get(("u", person.id)) != person:
        await store.upsert_user(
            person.id,
            first_name=person.first_name,
            last_name=person.last_name,
            username=person.username,
            language_code=person.language_code,
        )
        seen[("u", person.id)] = person
    if place is not None and seen.get(("c", place.id)) != place:
        await store.upsert_chat(place.id, type=place.type, title=place.title)
        seen[("c", place.id)] = place


async def chosen_language(services: Services, user_id: int) -> str | None:
    """The language the user chose with /lang, if any."""
    return await services.store.user_language(user_id)


async def choose_language(services: Services, user_id: int, lang: str) -> None:
    await services.store.set_user_language(user_id, lang)
    await services.announce(f"lang:{user_id}")


async def set_public(services: Services, user_id: int, public: bool) -> None:
    """``/public on|off``: whether the user's name shows on the web boards."""
    await services.store.set_user_public(user_id, public)


async def is_public(services: Services, user_id: int) -> bool:
    user = await services.store.get_user(user_id)
    return bool(user and user.public)


async def has_private_chat(services: Services, user_id: int) -> bool:
    """Whether the user has talked to the bot in private (a private chat's id is the
    user's): only then can the bot write to them there."""
    return await services.store.get_chat(user_id) is not None

"""Users and chats as Telegram reports them, and each user's language choice."""

from __future__ import annotations

import asyncio
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


@dataclass(frozen=True, slots=True)
class Written:
    """What writing a user read back: their /lang choice (None: they made none)."""

    chosen_language: str | None


async def track(services: Services, person: Person | None, place: Place | None) -> Written | None:
    """Record who and where, only when something changed since last seen; when the user
    was written, what that read back (else None). A new user in a new chat is both at
    once: the two writes go to the database together, one round trip, not two."""
    store, seen = services.store, services.seen
    user = chat = None
    if person is not None and seen.get(("u", person.id)) != person:
        user = store.upsert_user(
            person.id,
            first_name=person.first_name,
            last_name=person.last_name,
            username=person.username,
            language_code=person.language_code,
        )
    if place is not None and seen.get(("c", place.id)) != place:
        chat = store.upsert_chat(place.id, type=place.type, title=place.title)
    written = None
    if user is not None and chat is not None:
        chosen, _ = await asyncio.gather(user, chat)
        written = Written(chosen)
    elif user is not None:
        written = Written(await user)
    elif chat is not None:
        await chat
    if person is not None:
        seen[("u", person.id)] = person
    if place is not None:
        seen[("c", place.id)] = place
    return written


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

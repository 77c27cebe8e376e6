"""Replies the bot waits for (the model name after the Model button), kept in the
database: with several instances the reply may reach another one than the press."""

from __future__ import annotations

import json
from dataclasses import dataclass

from .services import Services

#: How long the bot waits for a model name after the Model button.
MODEL_TTL_MS = 24 * 3600 * 1000


@dataclass(frozen=True, slots=True)
class AwaitedModel:
    """The submission whose model name is asked for, where its card is, and the id of
    the bot's question (in a group, only a reply to it counts)."""

    submission_id: int
    chat_id: int
    card_id: int
    prompt_id: int

    def dumps(self) -> str:
        return json.dumps(
            [self.submission_id, self.chat_id, self.card_id, self.prompt_id], separators=(",", ":")
        )


async def expect_model(services: Services, user_id: int, awaited: AwaitedModel) -> None:
    await services.store.expect_input("model", str(user_id), awaited.dumps(), ttl_ms=MODEL_TTL_MS)


async def awaited_model(services: Services, user_id: int) -> AwaitedModel | None:
    value = await services.store.awaited_input("model", str(user_id))
    if value is None:
        return None
    try:
        sub_id, chat_id, card_id, prompt_id = (int(v) for v in json.loads(value))
    except (ValueError, TypeError):
        return None
    return AwaitedModel(sub_id, chat_id, card_id, prompt_id)


async def take_model(services: Services, user_id: int, awaited: AwaitedModel) -> bool:
    """Stop waiting; False when the wait was already over (taken, or replaced)."""
    return await services.store.take_input("model", str(user_id), awaited.dumps())


async def remember_naming(
    services: Services, chat_id: int, message_id: int, awaited: AwaitedModel
) -> None:
    """The message that gave a submission's model name, and where its card is: an edit
    of it (a typo fixed) names the model again."""
    key = f"{chat_id}:{message_id}"
    await services.store.expect_input("named", key, awaited.dumps(), ttl_ms=MODEL_TTL_MS)


async def naming(services: Services, chat_id: int, message_id: int) -> AwaitedModel | None:
    """What :func:`remember_naming` kept for that message, or None."""
    value = await services.store.awaited_input("named", f"{chat_id}:{message_id}")
    if value is None:
        return None
    try:
        sub_id, card_chat, card_id, prompt_id = (int(v) for v in json.loads(value))
    except (ValueError, TypeError):
        return None
    return AwaitedModel(sub_id, card_chat, card_id, prompt_id)

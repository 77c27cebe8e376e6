"""Opaque links for the web: a published result's token (the ``/r/<token>`` page and
the bot's ``r_<token>`` deep link), what a token stands for, a group's revocable web
board link (``/weblink``), and the ``/public`` choice.

A token stands for a result only while the result is visible: published, and its
submitter not banned. Hidden and withdrawn results resolve to nothing.
"""

from __future__ import annotations

from storage import Submission, Visibility

from .errors import UserError
from .services import Services

#: The bot's deep-link payload prefix of a result (``/start r_<token>``).
RESULT_PAYLOAD = "r_"


async def visible(services: Services, sub: Submission | None) -> bool:
    """Whether a submission shows on the boards (published, submitter not banned)."""
    if sub is None or sub.visibility != Visibility.PUBLISHED:
        return False
    return await services.store.is_banned(sub.user_id) is None


async def result_token(services: Services, submission_id: int) -> str:
    """The token of a published result (made on first request); refuses one that is not
    on the boards."""
    sub = await services.store.get_submission(submission_id)
    if not await visible(services, sub):
        raise UserError("gone")
    return await services.store.link("result", submission_id)


async def published_result(services: Services, token: str) -> Submission | None:
    """The visible published result a token stands for, else None (malformed, unknown,
    revoked, or the result hidden, withdrawn or its submitter banned)."""
    link = await services.store.resolve_link(token)
    if link is None or link.kind != "result" or link.submission_id is None:
        return None
    sub = await services.store.get_submission(link.submission_id)
    return sub if await visible(services, sub) else None


async def web_board_token(services: Services, chat_id: int, *, by: int, renew: bool = False) -> str:
    """A group's web board token (the caller checked that ``by`` administers it);
    ``renew`` revokes the live one first, so its old address stops working."""
    if renew:
        await services.store.revoke_links("web", chat_id)
    return await services.store.link("web", chat_id, created_by=by)


async def web_board_chat(services: Services, token: str) -> int | None:
    """The group whose web board a token opens, else None (unknown or revoked)."""
    link = await services.store.resolve_link(token)
    if link is None or link.kind != "web":
        return None
    return link.chat_id


def bot_link(bot_username: str | None, token: str) -> str | None:
    """The address that opens a result in the bot, or None without a username."""
    if not bot_username:
        return None
    return f"https://t.me/{bot_username}?start={RESULT_PAYLOAD}{token}"


async def set_public(services: Services, user_id: int, public: bool) -> None:
    """``/public on|off``: whether the user's name shows on the web boards."""
    await services.store.set_user_public(user_id, public)


async def is_public(services: Services, user_id: int) -> bool:
    user = await services.store.get_user(user_id)
    return bool(user and user.public)

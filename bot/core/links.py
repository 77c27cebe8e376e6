"""Links to results, challenges and group boards: opaque tokens (``storage.links``) as
deep-link payloads, and what a payload opens.

The same result token serves the bot (``https://t.me/<bot>?start=r_<token>``) and the
web boards (``/r/<token>``). Payloads are ``r_`` (a result), ``c_`` (a challenge to beat
a result) and ``g_`` (a group's board) followed by the token: at most 18 characters of
``A-Z a-z 0-9 _ -``, well within Telegram's 64. A token says nothing of the submission
or chat it stands for, so links cannot be enumerated.

Only a published result may be linked; a link to a result hidden or withdrawn since,
or whose submitter was banned (or an unknown, revoked or malformed token) opens nothing
(None), and the caller says "not available". A group's web board (``/weblink``) has a
token of its own kind, which its admins can renew (the old address stops working).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote

from storage import Submission, Visibility

from .errors import UserError
from .services import Services

PayloadKind = Literal["result", "challenge", "group"]
PREFIXES: dict[str, PayloadKind] = {"r_": "result", "c_": "challenge", "g_": "group"}
_PREFIX_OF = {kind: prefix for prefix, kind in PREFIXES.items()}


def payload(kind: PayloadKind, token: str) -> str:
    """The ``start`` payload of a token (``r_<token>``)."""
    return _PREFIX_OF[kind] + token


def parse_payload(text: str) -> tuple[PayloadKind, str] | None:
    """``(kind, token)`` of a ``start`` payload this module made; None for anything else
    (the token itself is checked when it is resolved)."""
    kind = PREFIXES.get(text[:2])
    if kind is None or len(text) <= 2:
        return None
    return kind, text[2:]


def start_link(bot_username: str, start: str) -> str:
    """``https://t.me/<bot>?start=<payload>``: opens the bot's private chat."""
    return f"https://t.me/{bot_username}?start={start}"


def startgroup_link(bot_username: str, start: str = "board") -> str:
    """``https://t.me/<bot>?startgroup=<payload>``: adds the bot to a group the user
    picks, where it shows that group's board."""
    return f"https://t.me/{bot_username}?startgroup={start}"


def share_url(link: str, text: str = "") -> str:
    """Telegram's share dialog for a link (and a line of text)."""
    url = f"https://t.me/share/url?url={quote(link, safe='')}"
    return url + (f"&text={quote(text, safe='')}" if text else "")


def shareable(sub: Submission) -> bool:
    """Only a published result can be linked, shared or challenged."""
    return sub.visibility is Visibility.PUBLISHED


async def result_token(
    services: Services, sub: Submission, *, created_by: int | None = None
) -> str:
    """The token of a published result (the same one until revoked). Raises
    :class:`UserError` ``not_shareable`` for a result that is not published."""
    if not shareable(sub):
        raise UserError("not_shareable", id=sub.id)
    return await services.store.link("result", sub.id, created_by=created_by)


async def visible(services: Services, sub: Submission | None) -> bool:
    """Whether a submission shows on the boards: published, its submitter not banned."""
    if sub is None or not shareable(sub):
        return False
    return await services.store.is_banned(sub.user_id) is None


async def open_result(services: Services, token: str) -> Submission | None:
    """The published result a token stands for; None when it is unknown, revoked, or
    its result is not (or no longer) on the boards."""
    link = await services.store.resolve_link(token)
    if link is None or link.kind != "result" or link.submission_id is None:
        return None
    sub = await services.store.get_submission(link.submission_id)
    return sub if await visible(services, sub) else None


async def challenge_token(services: Services, sub: Submission, *, created_by: int | None) -> str:
    """The token of a challenge to beat a published result."""
    if not shareable(sub):
        raise UserError("not_shareable", id=sub.id)
    return await services.store.link("challenge", sub.id, created_by=created_by)


async def open_challenge(services: Services, token: str) -> Submission | None:
    """The published result a challenge token asks to beat (None: not available)."""
    link = await services.store.resolve_link(token)
    if link is None or link.kind != "challenge" or link.submission_id is None:
        return None
    sub = await services.store.get_submission(link.submission_id)
    return sub if await visible(services, sub) else None


async def group_token(services: Services, chat_id: int, *, created_by: int | None = None) -> str:
    """The token of a group's board in the bot."""
    return await services.store.link("group", chat_id, created_by=created_by)


async def open_group(services: Services, token: str) -> int | None:
    """The chat id of the group whose board a token stands for (None: not available)."""
    link = await services.store.resolve_link(token)
    if link is None or link.kind != "group" or link.chat_id is None:
        return None
    return link.chat_id


async def web_board_token(services: Services, chat_id: int, *, by: int, renew: bool = False) -> str:
    """A group's web board token (the caller checked that ``by`` administers it);
    ``renew`` revokes the live one first, so its old address stops working (the
    group's audit log keeps who did)."""
    if renew:
        await services.store.revoke_links("web", chat_id)
        await services.store.log_action(by, "weblink_new", str(chat_id), chat_id=chat_id)
    return await services.store.link("web", chat_id, created_by=by)


async def web_board_chat(services: Services, token: str) -> int | None:
    """The group whose web board a token opens, else None (unknown or revoked)."""
    link = await services.store.resolve_link(token)
    if link is None or link.kind != "web":
        return None
    return link.chat_id


@dataclass(frozen=True, slots=True)
class Opened:
    """What a ``start`` payload opened: a result, a challenge (the result to beat), or a
    group's board (its chat id). ``None`` fields: that kind is not what it opened."""

    kind: PayloadKind
    submission: Submission | None = None
    chat_id: int | None = None


async def open_payload(services: Services, text: str) -> Opened | None:
    """What a ``start`` payload of this module opens; None when it is one of ours but
    not available (unknown, revoked, hidden, withdrawn). Raises :class:`ValueError`
    for a payload that is not one of ours."""
    parsed = parse_payload(text)
    if parsed is None:
        raise ValueError(f"not a link payload: {text[:20]!r}")
    kind, token = parsed
    if kind == "result":
        sub = await open_result(services, token)
        return None if sub is None else Opened(kind, submission=sub)
    if kind == "challenge":
        sub = await open_challenge(services, token)
        return None if sub is None else Opened(kind, submission=sub)
    chat_id = await open_group(services, token)
    return None if chat_id is None else Opened(kind, chat_id=chat_id)

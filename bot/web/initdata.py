"""The Mini App's sign-in: Telegram's ``initData``, checked as Telegram documents it.

    secret_key = HMAC_SHA256(key="WebAppData", message=bot_token)
    hash       = hex(HMAC_SHA256(key=secret_key, message=data_check_string))

where ``data_check_string`` is every received field but ``hash``, as ``key=value``
lines sorted by key and joined by ``\\n``. The data is refused unless the hash matches
(compared in constant time), ``auth_date`` is at most :data:`MAX_AGE` seconds old (and
not from the future), and ``user`` is a JSON object with a whole-number ``id``. Standard
library only.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from urllib.parse import parse_qsl

#: How old a sign-in may be (seconds): one day.
MAX_AGE = 86_400
#: Clock skew tolerated for an ``auth_date`` in the future (seconds).
SKEW = 300
#: The longest initData taken (Telegram's are well under 1 KB).
MAX_LENGTH = 4096
#: The largest user id taken: Telegram's have at most 52 significant bits and fit a
#: double exactly (a signed initData with a larger one is not from a real account; the
#: database could not even hold 10**30).
MAX_USER_ID = (1 << 53) - 1


class InvalidInitData(Exception):
    """The data is not a valid, fresh sign-in by this bot's Mini App."""


@dataclass(frozen=True, slots=True)
class WebAppUser:
    id: int
    first_name: str
    language_code: str | None
    auth_date: int


def secret_key(bot_token: str) -> bytes:
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def data_check_string(fields: dict[str, str]) -> str:
    return "\n".join(f"{k}={fields[k]}" for k in sorted(fields) if k != "hash")


def check(init_data: str, bot_token: str, *, now: float | None = None) -> WebAppUser:
    """The signed-in user of ``init_data``; raises :class:`InvalidInitData` otherwise."""
    if not bot_token or not init_data or len(init_data) > MAX_LENGTH:
        raise InvalidInitData("no sign-in data")
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InvalidInitData("malformed") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise InvalidInitData("a field given twice")
    given = fields.get("hash", "")
    if len(given) != 64:
        raise InvalidInitData("no hash")
    expected = hmac.new(
        secret_key(bot_token), data_check_string(fields).encode(), hashlib.sha256
    ).hexdigest()
    if not hmac.compare_digest(expected, given.lower()):
        raise InvalidInitData("bad hash")
    auth = fields.get("auth_date", "")
    if not auth.isascii() or not auth.isdigit() or len(auth) > 12:
        raise InvalidInitData("no auth_date")
    auth_date = int(auth)
    moment = time.time() if now is None else now
    if moment - auth_date > MAX_AGE or auth_date - moment > SKEW:
        raise InvalidInitData("expired")
    try:
        user = json.loads(fields.get("user", ""))
    except ValueError:
        raise InvalidInitData("no user") from None
    if not isinstance(user, dict):
        raise InvalidInitData("no user")
    user_id = user.get("id")
    if not isinstance(user_id, int) or isinstance(user_id, bool) or user_id <= 0:
        raise InvalidInitData("no user id")
    if user_id > MAX_USER_ID:
        raise InvalidInitData("a user id larger than Telegram's")
    name = user.get("first_name")
    code = user.get("language_code")
    return WebAppUser(
        id=user_id,
        first_name=name if isinstance(name, str) else "",
        language_code=code if isinstance(code, str) else None,
        auth_date=auth_date,
    )

"""Submitting from scripts and CI: personal API tokens and the API's use cases.

A token is ``bb_`` and 43 characters of ``secrets.token_urlsafe`` (256 random bits); the
store keeps only its SHA-256. A token acts as its owner: a submission through the API is
scored and recorded by the chat's own use cases (:mod:`bot.core.submit`,
:mod:`bot.core.submissions`), so the same daily publish limit, bans and moderation
apply; it is recorded in the owner's private chat under message ``-n`` (``n``: its API
request), with ``extra["source"] = "api"``. A repeated ``Idempotency-Key`` finds the
request (and so the submission) the first one made. Each user has a rate, whatever
number of tokens they made (:class:`Rate`), counted in the database: every instance
shares it.

Nothing here speaks HTTP: :class:`Refused` names what went wrong (``kind``), and
``bot.web.api`` turns it into a status code.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from scoring import Mode, Result, UnknownMode, parse_mode, registry
from scoring.text import MAX_MODEL_NAME
from storage import ApiToken, InvalidData, Submission

from . import benchmarks, keys, links, provenance, trust
from .errors import UserError
from .services import Services
from .submissions import is_published, publish, result_of
from .submit import record, score_submission
from .tags import clean_model

#: What a token starts with (so that a leaked one is recognisable, e.g. by scanners).
TOKEN_PREFIX = "bb_"
#: ``GET /api/v1/me``: how many recent submissions.
RECENT = 20
#: ``extra["source"]`` of a submission made through the API.
SOURCE = "api"
#: ``extra``'s SHA-256 of the request that made the submission (``publish`` aside): the
#: same Idempotency-Key with another request is refused, not taken for a repeat.
FINGERPRINT = "api_request"
#: Seconds between checks that the keys in use are still the current ones (the web
#: server loads them itself; the bot may load a new one meanwhile).
KEY_RECHECK = 5.0
#: Optional number-like fields, passed to the scorer as the chat's tag fields are.
OPTION_FIELDS = ("target", "cost", "latency", "k")
#: The provenance fields: kept with the submission; those the chat's tags take too
#: (``bot.core.provenance.FIELDS``) are checked, the others kept as given.
PROVENANCE_FIELDS = (*provenance.FIELDS, "run_id", "harness", "notes")
_OPTION_CHARS = frozenset("0123456789.+-eE$")

RefusalKind = Literal[
    "bad_request",  # not a request this API reads
    "invalid",  # a field's value is refused (``field`` names it)
    "not_found",
    "forbidden",  # the owner is banned from publishing
    "daily_limit",  # the day's publications are used up (``retry_after``)
    "rate_limited",  # the owner's rate, all their tokens (``retry_after``)
    "key_reused",  # an Idempotency-Key sent before with another request
]


class Refused(Exception):
    """What the API refuses, and why (``message``: English, for a script's log)."""

    def __init__(
        self,
        kind: RefusalKind,
        code: str,
        message: str,
        *,
        field: str | None = None,
        retry_after: float | None = None,
        submission_id: int | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.code = code
        self.message = message
        self.field = field
        self.retry_after = retry_after
        self.submission_id = submission_id


class NotPublished(Exception):
    """A submission scored and stored (private), whose publication was refused
    (``error``: the day's publications used up, a banned owner, ...): the refusal names
    it, so that a script can find it and publish it later."""

    def __init__(self, error: UserError, submission_id: int) -> None:
        super().__init__(error.key)
        self.error = error
        self.submission_id = submission_id


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


# --- tokens (the bot's /token) -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Made:
    """A token made for a ``/token`` message, and whether it replaced the one made for
    that message before (its answer lost: the message handled again)."""

    token: str
    replaced: bool


async def make_token(services: Services, user_id: int) -> str:
    """A new token for ``user_id``: returned once, kept only as its hash."""
    token = new_token()
    await services.store.add_api_token(user_id, token_hash(token))
    return token


async def token_for(services: Services, user_id: int, *, chat_id: int, message_id: int) -> Made:
    """:func:`make_token` for the ``/token`` message ``message_id`` in ``chat_id``: one
    live token per message. Handled again (its answer lost), the message gets a new
    token that revokes the one it made before, whose answer may never have arrived
    (only its hash is kept: it cannot be shown again)."""
    token = new_token()
    _, replaced = await services.store.replace_api_token(
        user_id, token_hash(token), dedupe=f"chat:{chat_id}:{message_id}"
    )
    return Made(token, replaced)


async def tokens(services: Services, user_id: int) -> list[ApiToken]:
    """The user's live tokens (when made, when last used), oldest first."""
    return await services.store.api_tokens(user_id)


async def revoke(services: Services, user_id: int) -> int:
    """Revoke every token of the user; how many there were."""
    return await services.store.revoke_api_tokens(user_id)


async def owner(services: Services, token: str) -> ApiToken | None:
    """The live token a request presents, or None (unknown, revoked, malformed)."""
    if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    return await services.store.api_token_owner(token_hash(token))


# --- the rate --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rate:
    """Requests per minute per user (every token of theirs together: one more token is
    no more rate), and how many may come at once."""

    per_minute: float
    burst: int

    @property
    def interval_ms(self) -> int:
        return max(1, round(60_000 / self.per_minute))


async def check_rate(services: Services, token: ApiToken, rate: Rate) -> None:
    """Count one request of ``token``'s owner; :class:`Refused` ``rate_limited`` past
    their rate."""
    if rate.per_minute <= 0:
        return
    wait_ms = await services.store.take_rate(
        f"user:{token.user_id}", interval_ms=rate.interval_ms, burst=rate.burst
    )
    if wait_ms:
        raise Refused(
            "rate_limited",
            "rate_limited",
            # what was passed: a burst is refused long before a minute's count is
            f"over your rate ({rate.per_minute:g} requests a minute, at most {rate.burst} in "
            f"a row, all your tokens together): try again in "
            f"{max(1, math.ceil(wait_ms / 1000))} s",
            retry_after=wait_ms / 1000,
        )


# --- submitting ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Request:
    """A submission as a script sends it (already checked for shape by the web layer)."""

    benchmark: str
    output: str
    model: str | None = None
    mode: str | None = None
    publish: bool = False
    #: target, cost, latency, k as given (numbers, or their text)
    options: Mapping[str, object] = field(default_factory=dict)
    provenance: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Submitted:
    """A submission as the API shows it; ``created``: made by this request."""

    submission: Submission
    result: Result
    url: str | None
    created: bool
    #: held for review by the copy check (``bot.core.trust``): on no board yet
    held: bool = False

    @property
    def published(self) -> bool:
        return is_published(self.submission)


@dataclass
class KeyWatch:
    """When the keys in use were last compared with the current ones, and the reading
    under way (every request meanwhile waits for it: none scores without a key that is
    being read)."""

    checked: float = float("-inf")
    reading: asyncio.Task[None] | None = None


def _invalid(name: str, message: str) -> Refused:
    return Refused("invalid", "invalid_field", f"{name}: {message}", field=name)


def check_request(request: Request) -> tuple[str, Mode | None, str | None, str]:
    """The benchmark's name, the mode, the model and the scorer's tag fields (as the
    chat's ``/score`` arguments) of a request; :class:`Refused` ``invalid`` naming the
    first bad field."""
    benchmark = registry.find(request.benchmark)
    if benchmark is None:
        names = ", ".join(registry.names())
        raise _invalid("benchmark", f"unknown benchmark {request.benchmark!r} (one of {names})")
    mode: Mode | None = None
    if request.mode is not None:
        try:
            mode = parse_mode(request.mode)
        except UnknownMode as exc:
            raise _invalid("mode", str(exc)) from None
    model = request.model.strip() if request.model is not None else None
    if model is not None and not 0 < len(model) <= MAX_MODEL_NAME:
        raise _invalid("model", f"1 to {MAX_MODEL_NAME} characters")
    if model and not clean_model(model):
        raise _invalid("model", "only characters that do not show")
    if request.publish:
        if mode is None:
            raise _invalid("mode", "required to publish")
        if not model:
            raise _invalid("model", "required to publish")
    args = []
    for name in OPTION_FIELDS:
        value = request.options.get(name)
        if value is None:
            continue
        typed = str(value)
        if isinstance(value, bool) or not typed or not set(typed) <= _OPTION_CHARS:
            raise _invalid(name, f"a number, not {typed[:40]!r}")
        args.append(f"{name}: {typed}")
    return benchmark.name, mode, model or None, " ".join(args)


def checked_provenance(given: Mapping[str, object]) -> dict[str, Any]:
    """A request's provenance fields, those the tags take checked (:class:`Refused`
    ``invalid`` naming the first bad one), the others kept as given."""
    try:
        checked = provenance.check(given)
    except provenance.BadProvenance as exc:
        raise Refused("invalid", "invalid_field", str(exc), field=exc.field) from None
    rest = {
        k: v
        for k, v in given.items()
        if k in PROVENANCE_FIELDS and k not in provenance.FIELDS and v is not None
    }
    return {**rest, **checked}


async def submit(
    services: Services,
    token: ApiToken,
    request: Request,
    *,
    idempotency_key: str | None,
    web_base: str,
    watch: KeyWatch,
) -> Submitted:
    """Score and record a submission for the token's owner (publish it when asked), or
    the one an earlier request with the same idempotency key made."""
    user_id = token.user_id
    if registry.find(request.benchmark) is None:  # defined by another process just now?
        await benchmarks.defined_since(services)
    name, mode, model, args = check_request(request)
    given = checked_provenance(request.provenance)
    fingerprint = _fingerprint(name, mode, model, args, given, request.output)
    try:
        api_request = await services.store.api_request(user_id, idempotency_key)
    except InvalidData as exc:
        raise Refused("bad_request", "bad_idempotency_key", str(exc)) from None
    if not api_request.created:
        earlier = await services.store.find_submission(user_id, api_request.message_id)
        if earlier is not None:
            _same_request(earlier, fingerprint)
            return await _shown(services, earlier, request, web_base, created=False)
    await _fresh_keys(services, watch)
    scored = await score_submission(
        services, request.output, command_args=args, benchmark_hint=name, owner=user_id
    )
    if scored.benchmark.name != name:
        raise _invalid("output", f"its tags name another benchmark ({scored.benchmark.name})")
    tags = replace(scored.tags, model=model or scored.tags.model, mode=mode or scored.tags.mode)
    extra: dict[str, Any] = {"source": SOURCE, FINGERPRINT: fingerprint}
    told = {**provenance.of(scored.options), **given}
    if told:
        extra[provenance.KEY] = told
    scored = replace(scored, tags=tags, options={**scored.options, **extra})
    sub = await record(
        services, scored, user_id=user_id, chat_id=user_id, message_id=api_request.message_id
    )
    if not sub.created:  # a request with the same key recorded it meanwhile
        _same_request(sub, fingerprint)
    return await _shown(services, sub, request, web_base, created=sub.created)


def _fingerprint(
    benchmark: str,
    mode: Mode | None,
    model: str | None,
    args: str,
    given: Mapping[str, object],
    output: str,
) -> str:
    """The SHA-256 of what a request asks to be scored and kept (``publish`` aside: a
    repeat may publish what the first request kept private)."""
    told = sorted((k, str(v)) for k, v in given.items())
    text = json.dumps(
        [benchmark, None if mode is None else mode.value, model, args, told, output],
        ensure_ascii=False,
    )
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _same_request(sub: Submission, fingerprint: str) -> None:
    """:class:`Refused` ``key_reused`` when ``sub`` was made by another request than the
    one whose ``fingerprint`` is given (one kept before fingerprints passes)."""
    kept = sub.extra.get(FINGERPRINT)
    if isinstance(kept, str) and kept != fingerprint:
        raise Refused(
            "key_reused",
            "idempotency_key_reused",
            f"this Idempotency-Key was sent before with another request (submission "
            f"{sub.id}): a new submission needs a new key",
            submission_id=sub.id,
        )


async def _shown(
    services: Services, sub: Submission, request: Request, web_base: str, *, created: bool
) -> Submitted:
    """The submission published when asked (a repeated request publishes what the first
    could not), with its result and its page's address when published."""
    held = False
    if request.publish and not is_published(sub):
        try:
            done = await publish(services, sub)
        except UserError as exc:
            if exc.key == "gone":  # hidden by an admin: not the owner's to publish
                raise
            raise NotPublished(exc, sub.id) from None  # stored all the same: say which
        sub, held = done.submission, done.held is not None
    url = None
    if is_published(sub):
        url = f"{web_base}/r/{await links.result_token(services, sub)}"
    else:
        held = held or await trust.is_held(services, sub)
    return Submitted(sub, result_of(sub), url, created, held)


async def _fresh_keys(services: Services, watch: KeyWatch) -> None:
    """Use the current keys (checked at most every :data:`KEY_RECHECK` seconds)."""
    now = time.monotonic()
    if watch.reading is None and now - watch.checked >= KEY_RECHECK:
        watch.checked = now
        watch.reading = asyncio.create_task(keys.reload_keys(services))
        # its failure is each waiter's to answer (503); none left waiting: not logged
        watch.reading.add_done_callback(lambda t: t.cancelled() or t.exception())
    reading = watch.reading
    if reading is None:
        return
    try:
        await asyncio.shield(reading)
    finally:
        if reading.done() and watch.reading is reading:
            watch.reading = None


async def shown(services: Services, user_id: int, submission_id: int, web_base: str) -> Submitted:
    """An owner's submission; :class:`Refused` ``not_found`` for anyone else's."""
    sub = await services.store.get_submission(submission_id)
    if sub is None or sub.user_id != user_id:
        raise Refused("not_found", "not_found", f"no submission {submission_id} of yours")
    url = None
    if is_published(sub):
        url = f"{web_base}/r/{await links.result_token(services, sub)}"
    held = url is None and await trust.is_held(services, sub)
    return Submitted(sub, result_of(sub), url, created=False, held=held)


async def recent(services: Services, user_id: int, *, limit: int = RECENT) -> list[Submission]:
    """The owner's most recent submissions, newest first."""
    return await services.store.history(user_id, limit=limit)

"""Calls to a provider's chat-completions API through the official ``openai`` package
(``AsyncOpenAI`` with the provider's ``base_url``): at most ``concurrency`` calls at once
per provider, each with the provider's timeout, tried again with backoff after a 429
(waiting what ``Retry-After`` says), a 408, 409 or 5xx, a timeout, a lost connection or
an answer that cannot be read (its JSON cut short or not UTF-8, or a gateway's 200
carrying an error and no choices: a fault on the way, never scored as the model's empty
answer). A call that has not answered whole within the provider's timeout (a server
trickling its answer) is a timeout too. A 401/403, an
unknown model (404) or a refused request (400) is not tried again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .providers import ModelSpec, Provider, ProviderError, Providers

if TYPE_CHECKING:
    import openai

log = logging.getLogger("benchboard.runs")

#: The first pause before a try again (doubled each time, with jitter), and the longest
#: pause, ``Retry-After`` included.
BACKOFF_FIRST = 0.5
BACKOFF_MAX = 30.0


@dataclass(frozen=True, slots=True)
class Answer:
    """A model's answer to one call: its text, tokens, how long the call took (the tries
    that failed and the pauses between them included; not the time it waited for one of
    the provider's slots behind other calls), how many tries it took, and the
    request and response as sent and received (the transcript's)."""

    text: str
    input_tokens: int
    output_tokens: int
    latency_s: float
    tries: int
    request: dict[str, Any]
    response: dict[str, Any]
    #: whether the provider said what the call's tokens were (False: the counts are 0,
    #: and the cost is not known)
    usage_known: bool = True


#: Statuses below 500 besides 429 that are tried again, as the SDK's own retries do:
#: 408 Request Timeout, 409 Conflict (a lock held a moment).
TRANSIENT_STATUSES = frozenset({408, 409})
#: Why a call is tried again when its answer could not be read.
UNREADABLE = "an answer that could not be read"


def _readable(response: Any) -> bool:
    """Whether a 200's body is a chat completion with a choice that has a message (not
    text that is not JSON, nor an error object in place of the choices)."""
    choices = getattr(response, "choices", None)
    return (
        isinstance(choices, list)
        and bool(choices)
        and getattr(choices[0], "message", None) is not None
    )


def _text(content: Any) -> str | None:
    """A message's content as text: a string, or the text of its parts (some
    OpenAI-compatible servers answer with a list of parts); None when it is neither (an
    answer that cannot be read)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            text = part if isinstance(part, str) else None
            if isinstance(part, dict):
                text = part.get("text") if part.get("type", "text") == "text" else ""
            if not isinstance(text, str):
                return None
            parts.append(text)
        return "".join(parts)
    return None


def _tokens(value: Any) -> int:
    """A token count as the usage gives it (a count that is not a whole number of zero
    or more, as a broken server may send, counts none)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    return value if isinstance(value, int) and value >= 0 else 0


def _retry_after(exc: openai.APIStatusError) -> float | None:
    value = exc.response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


class FairSlots:
    """At most ``size`` holders at once, the waiters served in turns by owner (an
    attempt): one attempt that sends a call per question does not hold another run's
    call behind all of its own, only behind the calls already out."""

    def __init__(self, size: int) -> None:
        self._free = size
        #: the waiters by owner, in turn order (an owner goes to the back when served)
        self._waiting: OrderedDict[object, deque[asyncio.Future[None]]] = OrderedDict()

    @asynccontextmanager
    async def hold(self, owner: object) -> AsyncIterator[None]:
        if self._free > 0 and not self._waiting:
            self._free -= 1
        else:
            turn = asyncio.get_running_loop().create_future()
            self._waiting.setdefault(owner, deque()).append(turn)
            try:
                await turn
            except asyncio.CancelledError:
                if turn.done() and not turn.cancelled():
                    self._release()  # given the slot as it was cancelled: passed on
                else:
                    queue = self._waiting.get(owner)
                    if queue is not None and turn in queue:
                        queue.remove(turn)
                        if not queue:
                            del self._waiting[owner]
                raise
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        while self._waiting:
            owner, queue = self._waiting.popitem(last=False)
            turn = queue.popleft()
            if queue:
                self._waiting[owner] = queue  # its next call waits for the others' turns
            if not turn.done():
                turn.set_result(None)
                return
        self._free += 1


class ProviderClient:
    """One provider's client and its concurrency bound."""

    def __init__(self, provider: Provider, *, backoff_first: float = BACKOFF_FIRST) -> None:
        self.provider = provider
        self._backoff_first = backoff_first
        self._slots = FairSlots(provider.concurrency)
        self._client: openai.AsyncOpenAI | None = None

    def _open(self) -> openai.AsyncOpenAI:
        if self._client is None:
            # the SDK is imported with the first call: it is most of the bot's start-up
            # time, and a bot that never runs a model never needs it
            import openai

            # retries are ours (Retry-After honoured, bounded concurrency released while
            # waiting); the SDK's own are off
            self._client = openai.AsyncOpenAI(
                api_key=self.provider.api_key(),
                base_url=self.provider.base_url,
                timeout=self.provider.timeout,
                max_retries=0,
            )
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    def _fail(self, message: str, code: str) -> ProviderError:
        return ProviderError(
            f"provider {self.provider.name}: {message}", code=code, provider=self.provider.name
        )

    async def complete(
        self, model: ModelSpec, messages: Sequence[dict[str, Any]], options: dict[str, Any],
        *, owner: object = None,
    ) -> Answer:  # fmt: skip
        """One call, tried again as the module says; ProviderError when it cannot be made.
        The calls of one ``owner`` (an attempt) take turns for the provider's slots with
        other owners' (None: the call is its own owner)."""
        import openai  # (imported by _open)

        client = self._open()
        request: dict[str, Any] = {"model": model.name, "messages": list(messages), **options}
        owner = object() if owner is None else owner
        started = time.monotonic()
        queued = 0.0  # the time spent waiting for a slot: Benchboard's, not the model's
        pause = self._backoff_first
        tries = 0
        while True:
            tries += 1
            wait: float | None = None
            slow = False
            asked = time.monotonic()
            try:
                async with self._slots.hold(owner):
                    queued += time.monotonic() - asked
                    # the whole call within the timeout (the SDK's bounds each read: a
                    # server that sends its answer a byte at a time would hold it forever)
                    async with asyncio.timeout(self.provider.timeout):
                        response = await client.chat.completions.create(**request)
                if _readable(response):
                    text = _text(response.choices[0].message.content)
                    if text is not None:
                        break
                why = UNREADABLE
            except (json.JSONDecodeError, UnicodeDecodeError):
                why = UNREADABLE
            except TimeoutError:
                why = f"no answer within {self.provider.timeout:g} s"
                slow = True
            except openai.AuthenticationError:
                raise self._fail(
                    f"the API key in {self.provider.api_key_env} was refused (401)", "auth"
                ) from None
            except openai.PermissionDeniedError:
                raise self._fail(
                    f"the API key in {self.provider.api_key_env} may not call {model.name} (403)",
                    "auth",
                ) from None
            except openai.NotFoundError:
                raise self._fail(f"no model {model.name!r} there (404)", "unknown_model") from None
            except openai.RateLimitError as exc:
                wait = _retry_after(exc)
                why = "429"
            except openai.InternalServerError as exc:
                wait = _retry_after(exc)
                why = str(exc.status_code)
            except openai.APITimeoutError:
                why = f"no answer within {self.provider.timeout:g} s"
                slow = True
            except openai.APIConnectionError:
                why = "unreachable"
            except openai.APIStatusError as exc:
                if exc.status_code not in TRANSIENT_STATUSES:
                    raise self._fail(
                        f"the request was refused ({exc.status_code})", "refused"
                    ) from None
                wait = _retry_after(exc)
                why = str(exc.status_code)
            if tries > self.provider.retries:  # "slow": the model may just take longer
                raise self._fail(f"failed {tries} times (last: {why})", "slow" if slow else "dead")
            if wait is None:
                wait = pause * (1 + random.random() / 4)
                pause = min(pause * 2, BACKOFF_MAX)
            log.info(
                "provider call tried again",
                extra={"provider": self.provider.name, "why": why, "wait": round(wait, 2)},
            )
            await asyncio.sleep(min(wait, BACKOFF_MAX))
        latency = time.monotonic() - started - queued
        usage = response.usage
        return Answer(
            text=text,
            input_tokens=_tokens(getattr(usage, "prompt_tokens", 0)),
            output_tokens=_tokens(getattr(usage, "completion_tokens", 0)),
            usage_known=usage is not None,
            latency_s=latency,
            tries=tries,
            request=request,
            response=response.model_dump(mode="json", exclude_none=True, warnings=False),
        )


class Clients:
    """A :class:`ProviderClient` for each provider of the file, opened on first use."""

    def __init__(self, providers: Providers, *, backoff_first: float = BACKOFF_FIRST) -> None:
        self.providers = providers
        self._backoff_first = backoff_first
        self._clients: dict[str, ProviderClient] = {}

    def for_model(self, model: ModelSpec) -> ProviderClient:
        found = self._clients.get(model.provider)
        if found is None:
            found = ProviderClient(
                self.providers.provider(model.provider), backoff_first=self._backoff_first
            )
            self._clients[model.provider] = found
        return found

    async def close(self) -> None:
        for client in self._clients.values():
            await client.close()
        self._clients.clear()

"""A local server that speaks the OpenAI chat-completions API over real HTTP (as
tests/e2e/botapi.py does for Telegram), for tests and benchmark scripts: no test calls a
real provider.

``POST /v1/chat/completions`` checks the bearer key (401), the model (404), applies the
next queued fault (``"429"`` with a ``Retry-After``, ``"500"``, ``"408"``, ``"timeout"``: no answer
for ``hang`` seconds; ``"garbled"``: a 200 whose JSON ends halfway, ``"error_200"``: a
200 carrying an error object and no choices, as a gateway answers when the model behind
it failed; ``"not_utf8"``: a 200 whose body is not UTF-8; ``"trickle"``: a 200 whose
body comes a byte at a time, too slowly to end in time; ``"parts"``: the answer as a list
of text parts; ``"bad_usage"``: token counts a broken server sends; ``"no_usage"``: no
usage at all) and then answers after ``delay`` seconds (the slow mode) with what
``answer(request)`` returns, counting tokens as a provider would (about four characters
a token). Every request body is kept (``requests``) for the tests to read.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

Answerer = Callable[[dict[str, Any]], str]


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _constant(text: str) -> Answerer:
    def answer(request: dict[str, Any]) -> str:
        return text

    return answer


def _text_of(request: dict[str, Any]) -> str:
    parts: list[str] = []
    for message in request.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(p.get("text", "") for p in content if p.get("type") == "text")
    return "".join(parts)


class FakeAI:
    def __init__(
        self,
        *,
        key: str = "sk-test",
        models: tuple[str, ...] = ("m1",),
        answer: Answerer | str = "",
        delay: float = 0.0,
        retry_after: str = "0",
    ) -> None:
        self.key = key
        self.models = set(models)
        self.answer: Answerer = _constant(answer) if isinstance(answer, str) else answer
        self.delay = delay
        self.retry_after = retry_after
        self.hang = 5.0
        self.faults: list[str] = []
        self.requests: list[dict[str, Any]] = []
        self.statuses: list[int] = []
        self.in_flight = 0
        self.most_in_flight = 0
        self.port = 0
        self._runner: web.AppRunner | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def answered(self) -> int:
        return sum(1 for s in self.statuses if s == 200)

    async def start(self) -> FakeAI:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._complete)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port)
        await site.start()
        self.port = int(self._runner.addresses[0][1])  # the bound port of port 0
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeAI:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _status(self, status: int, body: dict[str, Any], **headers: str) -> web.Response:
        self.statuses.append(status)
        return web.json_response(body, status=status, headers=headers)

    async def _complete(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        if request.headers.get("Authorization") != f"Bearer {self.key}":
            return self._status(401, {"error": {"message": "Incorrect API key provided"}})
        if body.get("model") not in self.models:
            return self._status(404, {"error": {"message": "model not found"}})
        fault = self.faults.pop(0) if self.faults else ""
        if fault == "429":
            return self._status(
                429, {"error": {"message": "rate limited"}}, **{"Retry-After": self.retry_after}
            )
        if fault == "500":
            return self._status(500, {"error": {"message": "internal error"}})
        if fault == "408":
            return self._status(408, {"error": {"message": "request timeout"}})
        # (neither counts as answered)
        if fault == "garbled":
            return web.Response(text='{"id": "chatcmpl-x", "choi', content_type="application/json")
        if fault == "error_200":
            return web.json_response({"error": {"message": "upstream overloaded", "code": 502}})
        if fault == "not_utf8":
            return web.Response(
                body=b'{"id": "x", "choices": [{"message": {"content": "\xff\xfe"}}]}',
                content_type="application/json",
            )
        if fault == "trickle":  # a 200 whose body comes a few bytes a second, never whole in time
            return await self._trickle(request)
        if fault == "timeout":
            await asyncio.sleep(self.hang)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            if self.delay:
                await asyncio.sleep(self.delay)
        finally:
            self.in_flight -= 1
        text = self.answer(body)
        prompt, completion = _tokens(_text_of(body)), _tokens(text)
        content: Any = text
        if fault == "parts":  # the content as a list of text parts
            content = [{"type": "text", "text": text[: len(text) // 2]},
                       {"type": "text", "text": text[len(text) // 2 :]}]  # fmt: skip
        usage: Any = {
            "prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }  # fmt: skip
        if fault == "bad_usage":  # counts a broken server sends
            usage = {"prompt_tokens": -3, "completion_tokens": str(completion)}
        if fault == "no_usage":  # a server that does not say what the call used
            usage = None
        return self._status(
            200,
            {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": usage,
            },
        )

    async def _trickle(self, request: web.Request) -> web.StreamResponse:
        self.statuses.append(0)  # (not answered)
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        await response.prepare(request)
        try:
            for byte in b'{"id": "chatcmpl-slow", "choices": [':
                await response.write(bytes([byte]))
                await asyncio.sleep(0.2)
        except ConnectionError:  # the client gave up
            pass
        return response


class ThreadedFakeAI:
    """A :class:`FakeAI` served from its own thread and event loop (for a test whose
    loop is busy, or a synchronous test running the CLI)."""

    def __init__(self, fake: FakeAI) -> None:
        self.fake = fake
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> FakeAI:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.fake.start(), self._loop).result(10)
        return self.fake

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.fake.stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()


def providers_toml(
    base_url: str,
    *,
    provider: str = "local",
    key_env: str = "LOCAL_AI_KEY",
    models: tuple[str, ...] = ("m1",),
    concurrency: int = 4,
    timeout: float = 2.0,
    retries: int = 3,
    extra: str = "",
) -> str:
    """A providers file naming the fake server (prices: $1 in, $2 out per Mtok)."""
    lines = [
        f"[providers.{provider}]",
        f'base_url = "{base_url}"',
        f'api_key_env = "{key_env}"',
        f"concurrency = {concurrency}",
        f"timeout = {timeout}",
        f"retries = {retries}",
    ]
    for model in models:
        lines += [
            f'[providers.{provider}.models."{model}"]',
            "input_usd_per_mtok = 1.0",
            "output_usd_per_mtok = 2.0",
            'modes = ["default", "think"]',
            "images = true",
        ]
    return "\n".join(lines) + "\n" + extra


def dumps(value: Any) -> str:
    return json.dumps(value)

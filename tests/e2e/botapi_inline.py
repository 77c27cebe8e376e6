"""Inline mode for :class:`tests.e2e.botapi.FakeBotAPI`: the user types ``@bot query``,
the bot answers with ``answerInlineQuery``, the user picks a result.

The user side::

    query = await api.inline_query(user, "gpt", chat_type="group")  # -> InlineQuery dict
    result_kind(result)            # "cached_photo" for a photo result with photo_file_id
    answer = await api.inline_answer(query)      # the bot's answerInlineQuery call
    msg = await api.choose_inline_result(chat, user, query, "r:12")
    # -> the message posted in ``chat`` (from the user, ``via_bot``: the bot), and, while
    #    ``api.inline_feedback`` is True (/setinlinefeedback), a chosen_inline_result update

Telegram's rules kept (so tests catch real bugs): an inline query is answered once, by
its id; at most 50 results with unique ids of 1–64 bytes; known result types with their
required fields; ``photo_file_id`` must name a file Telegram has; captions ≤ 1024 and
message texts 1–4096 characters after parsing their ``parse_mode``; inline keyboards as
for messages (an inline result may carry only URL, callback, switch-inline and similar
buttons); ``next_offset`` ≤ 64 bytes; ``button``: a text and a ``start_parameter`` of
1–64 characters ``A-Z a-z 0-9 _ -`` (or a web app). A chosen result's message carries
``via_bot``; when its result had a keyboard, the chosen_inline_result update carries an
``inline_message_id``. Not simulated: the 10-second expiry of an unanswered query (its
answer's time is recorded in the call, for tests to check), the client's caching.
"""

from __future__ import annotations

import itertools
import re
import time
from typing import Any

JSONDict = dict[str, Any]

MAX_INLINE_RESULTS = 50
_START_PARAMETER = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: result type -> the fields it must have (besides type and id). A cached photo or
#: document has the same type as one sent by URL, with a file id instead of the URL.
_REQUIRED = {
    "article": ("title", "input_message_content"),
    "photo": ("photo_url", "thumbnail_url"),
    "cached_photo": ("photo_file_id",),
    "document": ("title", "document_url", "mime_type"),
    "cached_document": ("title", "document_file_id"),
}
_CACHED = {"photo": "photo_file_id", "document": "document_file_id"}


def result_kind(result: JSONDict) -> str:
    """``article``, ``photo``, ``cached_photo``, ...: the type, told apart by its file id."""
    kind = str(result.get("type"))
    cached = _CACHED.get(kind)
    return f"cached_{kind}" if cached is not None and cached in result else kind


class InlineMode:
    """Mixed into FakeBotAPI: inline queries, their answers and chosen results."""

    inline_feedback: bool = True

    def _inline_init(self) -> None:
        self._inline_queries: dict[str, JSONDict] = {}
        self._inline_counter = itertools.count(1)
        self._inline_message_counter = itertools.count(1)
        #: savePreparedInlineMessage: prepared id -> the user, the result, the chat types
        self.prepared: dict[str, JSONDict] = {}
        self.me["supports_inline_queries"] = True  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ the user side

    async def inline_query(
        self, user: JSONDict, query: str = "", *, offset: str = "", chat_type: str = "sender"
    ) -> JSONDict:
        """The user types ``@bot query`` (in a chat of ``chat_type``); returns the
        InlineQuery the bot receives."""
        self._users.setdefault(int(user["id"]), user)  # type: ignore[attr-defined]
        query_id = f"{next(self._inline_counter)}{int(user['id']) % 100_000:05d}"
        payload: JSONDict = {
            "id": query_id,
            "from": user,
            "query": query,
            "offset": offset,
            "chat_type": chat_type,
        }
        self._inline_queries[query_id] = {"query": payload, "answer": None, "at": time.monotonic()}
        update = self._new_update("inline_query", payload)  # type: ignore[attr-defined]
        await self._dispatch(update)  # type: ignore[attr-defined]
        return payload

    async def inline_answer(self, query: JSONDict, timeout: float = 20.0) -> JSONDict:  # noqa: ASYNC109
        """The bot's answerInlineQuery call for ``query`` (its params are decoded)."""
        call: JSONDict = await self.wait_for(  # type: ignore[attr-defined]
            lambda c: (
                c["method"] == "answerInlineQuery"
                and str(c["params"].get("inline_query_id")) == query["id"]
            ),
            timeout,
        )
        return call

    def inline_seconds(self, query: JSONDict) -> float | None:
        """How long the bot took to answer ``query`` (None: not answered)."""
        entry = self._inline_queries.get(query["id"])
        if entry is None or entry["answer"] is None:
            return None
        return float(entry["answered_at"] - entry["at"])

    async def choose_inline_result(
        self, chat: JSONDict, user: JSONDict, query: JSONDict, result_id: str
    ) -> JSONDict:
        """The user picks ``result_id`` from the bot's answer to ``query`` in ``chat``: the
        message appears there (sent by the user via the bot), then the bot gets the
        chosen_inline_result update (with inline feedback on)."""
        entry = self._inline_queries.get(query["id"])
        if entry is None or entry["answer"] is None:
            raise ValueError(f"inline query {query['id']} has no answer to choose from")
        result = next((r for r in entry["answer"]["results"] if r["id"] == result_id), None)
        if result is None:
            ids = [r["id"] for r in entry["answer"]["results"]]
            raise ValueError(f"no result {result_id!r} in the answer; results: {ids}")
        message = self._new_user_message(chat, user, None)  # type: ignore[attr-defined]
        message["via_bot"] = self.me  # type: ignore[attr-defined]
        kind = result_kind(result)
        if kind == "cached_photo":
            stored = self._files[result["photo_file_id"]]  # type: ignore[attr-defined]
            message["photo"] = [self._photo_size(stored, 800, 600)]  # type: ignore[attr-defined]
            caption, entities = self._result_text(result, "caption", 1024)
            if caption:
                message["caption"] = caption
                if entities:
                    message["caption_entities"] = entities
        elif kind == "article":
            content = result["input_message_content"]
            text, entities = self._result_text(content, "message_text", 4096)
            message["text"] = text
            if entities:
                message["entities"] = entities
        else:
            message["document" if "document" in kind else "photo"] = {"type": kind}
        if result.get("reply_markup"):
            message["reply_markup"] = result["reply_markup"]
        chosen: JSONDict = {"result_id": result_id, "from": user, "query": query["query"]}
        if result.get("reply_markup"):
            chosen["inline_message_id"] = f"inline-{next(self._inline_message_counter)}"
        if self.inline_feedback:
            update = self._new_update("chosen_inline_result", chosen)  # type: ignore[attr-defined]
            await self._dispatch(update)  # type: ignore[attr-defined]
        return dict(message)

    # ------------------------------------------------------------------ the method

    def _result_text(self, holder: JSONDict, key: str, limit: int) -> tuple[str, list[JSONDict]]:
        entities_key = "caption_entities" if key == "caption" else "entities"
        what = "message caption" if key == "caption" else "message"
        return self._formatted(holder, key, entities_key, limit, what)  # type: ignore[attr-defined,no-any-return]

    def _m_answer_inline_query(self, p: JSONDict) -> bool:
        from .botapi import _bad_request  # the module that mixes this in

        entry = self._inline_queries.get(str(p.get("inline_query_id")))
        if entry is None or entry["answer"] is not None:
            raise _bad_request(
                "query is too old and response timeout expired or query ID is invalid"
            )
        results = p.get("results")
        if not isinstance(results, list):
            raise _bad_request("can't parse inline query results JSON object")
        if len(results) > MAX_INLINE_RESULTS:
            raise _bad_request("RESULTS_TOO_MUCH")
        seen: set[str] = set()
        for result in results:
            self._check_result(result, seen)
        offset = p.get("next_offset")
        if offset is not None and len(str(offset).encode()) > 64:
            raise _bad_request("NEXT_OFFSET_INVALID")
        button = p.get("button")
        if button is not None:
            if not isinstance(button, dict) or not button.get("text"):
                raise _bad_request("BUTTON_TEXT_INVALID")
            start = button.get("start_parameter")
            if "web_app" not in button and not _START_PARAMETER.match(str(start or "")):
                raise _bad_request("START_PARAM_INVALID")
        cache_time = p.get("cache_time", 300)
        if not isinstance(cache_time, int) or cache_time < 0:
            raise _bad_request("can't parse cache_time")
        entry["answer"] = {**p, "results": results}
        entry["answered_at"] = time.monotonic()
        return True

    def _m_save_prepared_inline_message(self, p: JSONDict) -> JSONDict:
        """``savePreparedInlineMessage`` (Bot API 8.0): the result checked as an inline
        answer's, for a user the bot knows, with at least one chat type allowed; kept in
        :attr:`prepared` by its id. Answers a ``PreparedInlineMessage``."""
        from .botapi import _bad_request

        user_id = p.get("user_id")
        if not isinstance(user_id, int) or user_id <= 0:
            raise _bad_request("invalid user_id specified")
        result = p.get("result")
        self._check_result(result, set())
        kinds = ("allow_user_chats", "allow_bot_chats", "allow_group_chats", "allow_channel_chats")
        if not any(p.get(kind) is True for kind in kinds):
            raise _bad_request("at least one chat type must be allowed")
        prepared_id = f"prep-{next(self._inline_message_counter)}"
        self.prepared[prepared_id] = {"user_id": user_id, "result": result,
                                      **{kind: bool(p.get(kind)) for kind in kinds}}  # fmt: skip
        return {"id": prepared_id, "expiration_date": int(time.time()) + 86_400}

    def _check_result(self, result: Any, seen: set[str]) -> None:
        from .botapi import _bad_request

        if not isinstance(result, dict):
            raise _bad_request("can't parse inline query result JSON object")
        kind, rid = result_kind(result), str(result.get("id", ""))
        if result.get("type") not in _CACHED and kind not in _REQUIRED:
            raise _bad_request(f"RESULT_TYPE_INVALID: {kind}")
        if not 1 <= len(rid.encode()) <= 64:
            raise _bad_request("RESULT_ID_INVALID")
        if rid in seen:
            raise _bad_request("RESULT_ID_DUPLICATE")
        seen.add(rid)
        for name in _REQUIRED[kind]:
            if not result.get(name):
                raise _bad_request(f"field {name!r} of the {kind} result must be non-empty")
        if kind == "cached_photo" and result["photo_file_id"] not in self._files:  # type: ignore[attr-defined]
            raise _bad_request("wrong file identifier/HTTP URL specified")
        if "caption" in result:
            self._result_text(result, "caption", 1024)
        content = result.get("input_message_content")
        if content is not None:
            if not isinstance(content, dict) or "message_text" not in content:
                raise _bad_request("MESSAGE_EMPTY")
            text, _ = self._result_text(content, "message_text", 4096)
            if not text.strip():
                raise _bad_request("MESSAGE_EMPTY")
        markup = result.get("reply_markup")
        if markup is not None:
            self._check_markup(markup)  # type: ignore[attr-defined]
            for row in markup.get("inline_keyboard", []):
                for button in row:
                    if "url" in button and not str(button["url"]).startswith(
                        ("http://", "https://", "tg://")
                    ):
                        raise _bad_request("BUTTON_URL_INVALID")

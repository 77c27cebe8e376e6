"""The aiohttp transport's request bodies (bot/http.py)."""

from __future__ import annotations

import json

import aiohttp
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, InputFile
from telegram.request import RequestData
from telegram.request._requestparameter import RequestParameter  # how PTB builds a call

from bot.telegram.http import _body


def _request(**values: object) -> RequestData:
    return RequestData([RequestParameter.from_input(k, v) for k, v in values.items()])


def test_calls_without_files_send_one_json_body_with_native_values() -> None:
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Publish", callback_data="pub:7")]])
    body = _body(_request(chat_id=42, text="<b>Final Score:</b> 9 مدل", reply_markup=markup))
    assert body["headers"] == {"Content-Type": "application/json"}
    assert json.loads(body["data"]) == {
        "chat_id": 42,
        "text": "<b>Final Score:</b> 9 مدل",
        "reply_markup": {"inline_keyboard": [[{"text": "Publish", "callback_data": "pub:7"}]]},
    }


def test_calls_without_parameters_send_no_body() -> None:
    assert _body(None) == {}
    assert _body(_request()) == {}


def test_uploads_are_multipart_with_the_other_fields_json_encoded() -> None:
    document = InputFile(b"1:3\n", filename="answers.txt")
    body = _body(_request(chat_id=42, document=document, caption="details"))
    assert isinstance(body["data"], aiohttp.FormData) and "headers" not in body
    assert body["data"].is_multipart

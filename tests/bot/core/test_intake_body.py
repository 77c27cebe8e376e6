"""How the durable intake keeps an update's JSON: compact, read back exactly, whatever
the JSON carried."""

from __future__ import annotations

import json
import math

from bot.core.intake import body, keepable


def test_an_update_is_kept_compact_and_in_utf8() -> None:
    update = {"update_id": 5, "message": {"text": "مدل: gpt x\n1:3", "date": 0}}
    kept = body(update)
    assert json.loads(kept) == update
    assert "مدل" in kept and ", " not in kept and ": " not in kept.replace("مدل: ", "")


def test_what_text_in_the_database_cannot_hold_is_kept_escaped() -> None:
    update = {"update_id": 6, "message": {"text": "1:3\ud800 and \udfff"}}
    kept = body(update)
    kept.encode("utf-8")  # the store can take it
    assert json.loads(kept) == update


def test_nan_is_kept() -> None:
    kept = json.loads(body({"update_id": 7, "x": math.nan, "y": math.inf}))
    assert math.isnan(kept["x"]) and kept["y"] == math.inf


def test_only_objects_with_an_id_the_store_holds_are_kept() -> None:
    assert keepable({"update_id": 1}) and keepable({"update_id": 2**63 - 1})
    for data in ({"update_id": 2**63}, {"update_id": -(2**63) - 1}, {"update_id": "1"},
                 {"update_id": True}, {"update_id": 1.0}, {}, [1], None, "x"):  # fmt: skip
        assert not keepable(data), data

"""A small database for the web tests: every benchmark, public and anonymous
submitters, a hostile model name, verified, hidden and withdrawn results, a group, a
reported reference result. Built with the real scorers and store."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from scoring import natory, registry
from storage import NewSubmission, Store, analytics
from tests.storage.test_analytics import FIELDS, NAME

#: Ids that must never show on a page, in a CSV or in the JSON.
PUBLIC_USER, SECRET_USER = 424242001, 777000111
GROUP = -1009876543210
HOSTILE = '<script>alert("x")</script> & "quotes"'
PRIME_KEY = b"\n".join(b"%d:%d" % (i, i % 4 + 1) for i in range(1, 21))
ZERO_KEY = json.dumps({f"q{i}": str(i * 7) for i in range(1, 11)}).encode()


@dataclass
class Filled:
    path: Path
    ids: dict[str, int] = field(default_factory=dict)


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC) - timedelta(days=60)

    def __call__(self) -> datetime:
        return self.now


def prime_text(correct: int, wrong: int, extra: str = "") -> str:
    lines = [f"{i}:{i % 4 + 1}" for i in range(1, correct + 1)]
    lines += [f"{i}:{(i % 4 + 1) % 4 + 1}" for i in range(correct + 1, correct + wrong + 1)]
    return "\n".join(lines) + extra


async def fill(path: Path) -> Filled:
    clock = Clock()
    store = await Store.open(path, clock=clock)
    out = Filled(path)
    message = iter(range(1, 100_000))
    try:
        await store.upsert_user(PUBLIC_USER, first_name="Ada", last_name="L", username="ada",
                                language_code="en")  # fmt: skip
        await store.set_user_public(PUBLIC_USER, True)
        await store.upsert_user(SECRET_USER, first_name="Secret Sam", last_name=None,
                                username="secretsam", language_code="fa")  # fmt: skip
        await store.upsert_chat(PUBLIC_USER, type="private", title=None)
        await store.upsert_chat(SECRET_USER, type="private", title=None)
        await store.upsert_chat(GROUP, type="supergroup", title="Test <Group>")
        prime = registry.get("primebench")
        version = await store.save_key("primebench", PRIME_KEY, source="tests")
        pkey = prime.load_key(PRIME_KEY)

        async def put(
            benchmark: str, raw: str, result: Any, model: str, mode: str, user: int,
            chat: int, *, key_id: int | None = None, extra: dict[str, Any] | None = None,
            publish: bool = True,
        ) -> int:  # fmt: skip
            sub = await store.record_submission(
                NewSubmission(
                    user_id=user, chat_id=chat, message_id=next(message), benchmark=benchmark,
                    raw=raw, result=result, scorer_version=registry.get(benchmark).scorer_version,
                    key_version_id=key_id, model=model, mode=mode, extra=extra,
                )
            )  # fmt: skip
            if publish:
                await store.publish(sub.id)
            clock.now += timedelta(hours=5)
            return sub.id

        rows = [
            ("best", 18, 0, "Alpha Large", "think", PUBLIC_USER, PUBLIC_USER),
            ("second", 15, 1, "Beta", "default", SECRET_USER, SECRET_USER),
            ("hostile", 12, 2, HOSTILE, "tools", SECRET_USER, GROUP),
            ("group", 10, 0, "Gamma Group", "default", PUBLIC_USER, GROUP),
            ("hidden", 20, 0, "Hidden Model", "think", SECRET_USER, SECRET_USER),
            ("withdrawn", 19, 0, "Withdrawn Model", "think", SECRET_USER, SECRET_USER),
        ]
        for name, right, wrong, model, mode, user, chat in rows:
            raw = prime_text(
                right, wrong, "\nQ19:4\nI think that is all." if name == "best" else ""
            )
            out.ids[name] = await put(
                "primebench", raw, prime.score(raw, pkey), model, mode, user, chat,
                key_id=version.id,
            )  # fmt: skip
        for i in range(30):  # a second page
            raw = prime_text(i % 9, 1)
            out.ids[f"filler{i}"] = await put(
                "primebench", raw, prime.score(raw, pkey), f"Filler {i:02d}", "default",
                SECRET_USER, SECRET_USER, key_id=version.id,
            )  # fmt: skip
        await store.verify(out.ids["second"])
        await store.hide(out.ids["hidden"])
        await store.withdraw(out.ids["withdrawn"], SECRET_USER)
        await store.add_reference("primebench", model="Alpha Large", mode="think", score=17,
                                  source="the authors' paper")  # fmt: skip
        await store.add_reference("primebench", model="Omega", mode="default", score=9,
                                  source="the authors' paper")  # fmt: skip

        zero = registry.get("zerobench")
        zversion = await store.save_key("zerobench", ZERO_KEY, source="tests")
        zkey = zero.load_key(ZERO_KEY, filename="key.json")
        for model, right in (("Zed One", 7), ("Zed Two", 3)):
            raw = "\n".join(
                json.dumps(
                    {"question_id": f"q{i}", "response": f"{{{i * 7 if i <= right else 0}}}"}
                )
                for i in range(1, 11)
            )
            out.ids[model] = await put(
                "zerobench", raw, zero.score(raw, zkey), model, "default", PUBLIC_USER,
                PUBLIC_USER, key_id=zversion.id,
            )  # fmt: skip

        await store.declare_challenges({NAME: FIELDS})  # as the bot does at start
        for expression, model, cost, latency in (
            ("2*5^5+6", "Nat Cheap", 0.002, 1.5),
            ("6256", "Nat Trivial", 0.001, 0.5),
            ("(2+5)*(5+6)*80+96", "Nat Dear", 0.05, 9.0),
            ("2^5*5^2*6+2^5*5+56", "Nat Mid", 0.01, 3.0),
        ):
            previous = await analytics.challenge_previous(store, NAME, FIELDS, 6256)
            result = natory.score(expression, natory.Challenge.for_target(6256), previous=previous)
            out.ids[model] = await put(
                "natory", expression, result, model, "default", PUBLIC_USER, PUBLIC_USER,
                extra={"target": 6256, "cost": cost, "latency": latency},
                publish=result.publishable,
            )  # fmt: skip
        clock.now = datetime.now(UTC)
        out.ids["best_token"] = 0
        tokens = {}
        for name in ("best", "second", "hidden", "withdrawn"):
            tokens[name] = await store.link("result", out.ids[name])
        web = await store.link("web", GROUP, created_by=PUBLIC_USER)
        (path.parent / "tokens.json").write_text(json.dumps({**tokens, "web": web}))
    finally:
        await store.close()
    return out


def tokens(path: Path) -> dict[str, str]:
    data: dict[str, str] = json.loads((path.parent / "tokens.json").read_text())
    return data

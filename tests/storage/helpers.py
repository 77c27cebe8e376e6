"""Helpers for the storage tests: a fake clock, keys, and real PrimeBench results."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from scoring import registry
from storage import NewSubmission

PRIME = registry.get("primebench")
START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


class FakeClock:
    """A clock tests move by hand (no sleeping)."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def key_bytes(seed: int, questions: int = 20) -> bytes:
    rng = random.Random(seed)
    return "\n".join(f"{q}:{rng.randint(1, 4)}" for q in range(1, questions + 1)).encode()


def answers(*options: int | str) -> str:
    """A PrimeBench submission answering question i with options[i-1]."""
    return "\n".join(f"{q}:{o}" for q, o in enumerate(options, start=1))


@dataclass
class Maker:
    """Builds scored NewSubmissions with fresh message ids."""

    key: Any
    key_id: int | None
    next_message: int = 1
    defaults: dict[str, Any] = field(default_factory=dict)

    def __call__(
        self,
        raw: str,
        *,
        user_id: int = 1,
        chat_id: int = -100,
        model: str | None = "Model A",
        mode: str | None = "default",
        message_id: int | None = None,
        benchmark: str = "primebench",
        **kw: Any,
    ) -> NewSubmission:
        if message_id is None:
            message_id = self.next_message
            self.next_message += 1
        return NewSubmission(
            user_id=user_id,
            chat_id=chat_id,
            message_id=message_id,
            benchmark=benchmark,
            key_version_id=self.key_id,
            model=model,
            mode=mode,
            raw=raw,
            result=PRIME.score(raw, self.key),
            scorer_version=PRIME.scorer_version,
            **kw,
        )

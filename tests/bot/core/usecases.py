"""Helpers for the use-case tests: answer texts against the tests' key, and results
submitted (and published) through the use cases themselves."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from bot.core import submissions, submit
from bot.core.services import Services
from storage import Submission

from .conftest import KEY


def answer_text(correct: int, wrong: int = 0, *, model: str | None = None,
                mode: str | None = "default") -> str:  # fmt: skip
    """A PrimeBench output: ``correct`` right answers, then ``wrong`` wrong ones (each
    costs 3 points), under tag lines naming the model and mode."""
    qs = iter(sorted(KEY))
    lines = [f"{q}:{KEY[q]}" for q in itertools.islice(qs, correct)]
    lines += [f"{q}:{KEY[q] % 4 + 1}" for q in itertools.islice(qs, wrong)]
    tags = [f"model: {model}"] if model is not None else []
    tags += [f"#{mode}"] if mode is not None else []
    return "\n".join([*tags, *lines])


def points(correct: int, wrong: int = 0) -> float:
    """PrimeBench's score of :func:`answer_text`: +1 a right answer, -3 a wrong one."""
    return float(correct - 3 * wrong)


@dataclass
class Submitter:
    """Submits through ``bot.core.submit`` with a fresh message id each time."""

    services: Services
    messages: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    async def submit(self, text: str, *, user_id: int = 1, chat_id: int = -100) -> Submission:
        sub, _ = await submit.submit(
            self.services, text=text, user_id=user_id, chat_id=chat_id,
            message_id=next(self.messages),
        )  # fmt: skip
        return sub

    async def published(
        self, correct: int, wrong: int = 0, *, model: str = "Model A", mode: str = "default",
        user_id: int = 1, chat_id: int = -100,
    ) -> Submission:  # fmt: skip
        """A result submitted and published (within the daily limit of its user)."""
        sub = await self.submit(
            answer_text(correct, wrong, model=model, mode=mode), user_id=user_id, chat_id=chat_id
        )
        return (await submissions.publish(self.services, sub)).submission

"""ZeroBench run against a model: each question with its images and the official
suffix, one call per attempt, the answers read back as JSON Lines responses.

The question set is not part of the key (the key holds only ids and answers); a run
needs it as JSON Lines in the data folder (:data:`QUESTIONS_FILE`), one object a line:
``{"question_id": "1", "question_text": "...", "images": ["data:image/png;base64,..."]}``
(``question_images`` is read too, for rows exported from the dataset with their images
as data URLs). Without it, a run is refused with a line saying so.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..runs import (
    BAD_ATTEMPTS,
    Call,
    Image,
    Message,
    RunMaterials,
    RunPlan,
    RunRefused,
    questions_text,
)
from .dataset import PROMPT_SUFFIX, QUESTIONS_FILE, RUN_VERSION, TITLE


class Question:
    __slots__ = ("id", "images", "text")

    def __init__(self, id: str, text: str, images: tuple[Image, ...]) -> None:
        self.id, self.text, self.images = id, text, images


def read_questions(text: str) -> tuple[Question, ...]:
    """The question set from its JSON Lines; :class:`RunRefused` naming the first bad line."""
    found: list[Question] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise RunRefused(
                f"{TITLE} questions, line {number}: not JSON", code="bad_questions"
            ) from None
        if not isinstance(row, dict) or not isinstance(row.get("question_text"), str):
            raise RunRefused(
                f"{TITLE} questions, line {number}: needs question_id and question_text",
                code="bad_questions",
            )
        qid = row.get("question_id")
        if not isinstance(qid, str | int) or isinstance(qid, bool) or str(qid) == "":
            raise RunRefused(
                f"{TITLE} questions, line {number}: needs question_id", code="bad_questions"
            )
        urls = row.get("images", row.get("question_images", []))
        if not isinstance(urls, list) or not all(isinstance(u, str) for u in urls):
            raise RunRefused(
                f"{TITLE} questions, line {number}: images must be a list of data URLs",
                code="bad_questions",
            )
        images = tuple(Image.from_data_url(url) for url in urls)
        found.append(Question(str(qid), row["question_text"], images))
    if not found:
        raise RunRefused(f"{TITLE}'s question file holds no question", code="bad_questions")
    return tuple(found)


def run_plan(materials: RunMaterials, attempts: int) -> RunPlan:
    """One call per question and attempt, in question order; scored with k = attempts."""
    if attempts < 1:
        raise RunRefused("a run makes at least one attempt per question", code=BAD_ATTEMPTS)
    questions = read_questions(
        questions_text(
            materials, TITLE, f"place the question set as JSON Lines at {QUESTIONS_FILE}"
        )
    )
    calls = tuple(
        Call((Message("user", (q.text + PROMPT_SUFFIX, *q.images)),), item=q.id)
        for q in questions
        for _ in range(attempts)
    )
    return RunPlan(RUN_VERSION, calls, {"k": attempts})


def run_output(plan: RunPlan, answers: Sequence[str]) -> str:
    """The answers as the JSON Lines a person would upload: one response per attempt."""
    if len(answers) != len(plan.calls):
        raise ValueError(f"the plan has {len(plan.calls)} calls, not {len(answers)} answers")
    return "".join(
        json.dumps({"question_id": call.item, "response": answer}, ensure_ascii=False) + "\n"
        for call, answer in zip(plan.calls, answers, strict=True)
    )

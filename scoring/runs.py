"""How a benchmark is run against a model: the calls to send, and the answers read back.

A benchmark says what a run sends (:meth:`scoring.base.Benchmark.run_plan`): a
:class:`RunPlan` of :class:`Call` s, each a short conversation in the roles of a
chat-completions API, with text and images; and how the model's answers become the raw
text that is scored exactly as if a person had pasted it
(:meth:`~scoring.base.Benchmark.run_output`). Pure, like the rest of ``scoring``: no
client, no network. Whoever runs the plan (the bot's runner) sends each call, collects
the answers in the plan's order, and hands them back.

The instruction a benchmark sends is fixed and versioned (:attr:`RunPlan.version`): a
stored run names the exact text it sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from .errors import ScoringError

#: :attr:`RunRefused.code` of a run asked for more attempts than the benchmark makes.
BAD_ATTEMPTS = "bad_attempts"
#: :attr:`RunRefused.code` of a challenge's run without a target.
TARGET_MISSING = "target_missing"


class RunRefused(ScoringError):
    """A benchmark that cannot be run as asked: its questions are not loaded, a file is
    damaged. ``code`` is stable (the bot says it in the reader's language)."""

    def __init__(self, message: str, *, code: str = "other") -> None:
        self.code = code
        super().__init__(message)


class Image(NamedTuple):
    """An image sent with a question: its media type (``image/png``) and bytes."""

    media_type: str
    data: bytes

    # base64 is imported by the methods that read or write an image: scoring a file
    # needs none
    def data_url(self) -> str:
        import base64

        return f"data:{self.media_type};base64,{base64.b64encode(self.data).decode('ascii')}"

    @classmethod
    def from_data_url(cls, url: str) -> Image:
        """An image from a ``data:`` URL (``data:image/png;base64,...``)."""
        import base64

        head, sep, payload = url.partition(",")
        if not (sep and head.startswith("data:image/") and head.endswith(";base64")):
            raise RunRefused("an image must be a data:image/...;base64 URL", code="bad_image")
        try:
            data = base64.b64decode(payload, validate=True)
        except ValueError:  # binascii.Error is a ValueError
            raise RunRefused("an image is not valid base64", code="bad_image") from None
        return cls(head[len("data:") : -len(";base64")], data)


#: One part of a message: text (sent byte-exact) or an image.
Part = str | Image


class Message(NamedTuple):
    """One message of a call: ``role`` as chat-completions APIs name it (``system``,
    ``user``) and its parts, in order."""

    role: str
    parts: tuple[Part, ...]

    def to_openai(self) -> dict[str, Any]:
        """The message as an OpenAI-compatible chat-completions request carries it: a
        plain string for one text part, else a list of text and ``image_url`` parts."""
        if len(self.parts) == 1 and isinstance(self.parts[0], str):
            return {"role": self.role, "content": self.parts[0]}
        content: list[dict[str, Any]] = []
        for part in self.parts:
            if isinstance(part, str):
                content.append({"type": "text", "text": part})
            else:
                content.append({"type": "image_url", "image_url": {"url": part.data_url()}})
        return {"role": self.role, "content": content}


class Call(NamedTuple):
    """One request to a model. ``item`` names what its answer answers (a question id)
    when a benchmark asks one question a call; "" when one call answers everything."""

    messages: tuple[Message, ...]
    item: str = ""

    @property
    def needs_images(self) -> bool:
        """Whether the call carries an image (only a model that reads images can take it)."""
        return any(isinstance(p, Image) for m in self.messages for p in m.parts)

    def to_openai(self) -> list[dict[str, Any]]:
        return [message.to_openai() for message in self.messages]


class RunMaterials(NamedTuple):
    """What a plan is made from: the key to score against (a stored key, or a daily
    benchmark's challenge) and the question file as stored (None when not loaded)."""

    key: Any = None
    questions: bytes | None = None


class RunPlan(NamedTuple):
    """The calls of one run, in order; ``version`` names the instruction they send;
    ``options`` are the scorer options the answers are scored with (a challenge's
    target, ZeroBench's k), kept with the submission like a paste's tags."""

    version: str
    calls: tuple[Call, ...]
    options: dict[str, Any]


def questions_text(materials: RunMaterials, title: str, fetch_hint: str) -> str:
    """The question file as text, byte-exact; :class:`RunRefused` when it is not loaded
    or is not UTF-8 (``fetch_hint`` says how to load it)."""
    if materials.questions is None:
        raise RunRefused(
            f"{title}'s questions are not loaded: {fetch_hint}", code="questions_missing"
        )
    try:
        return materials.questions.decode("utf-8")
    except UnicodeDecodeError:
        raise RunRefused(f"{title}'s question file is not UTF-8", code="bad_questions") from None


def questions_and_prompt(version: str, questions: str, prompt: str) -> RunPlan:
    """The plan of a benchmark answered in one call: one user message holding the
    question file and then the official prompt, each as its own text part, byte-exact."""
    return RunPlan(version, (Call((Message("user", (questions, prompt)),)),), {})


def single_answer(plan: RunPlan, answers: Sequence[str]) -> str:
    """The raw output of a one-call plan: the model's answer as it wrote it."""
    if len(answers) != len(plan.calls) or len(plan.calls) != 1:
        raise ValueError(f"a one-call plan takes one answer, not {len(answers)}")
    return answers[0]

"""Multiple-choice benchmarks defined by data: a TOML file, no code.

A definition names the benchmark, its options count, its points and its key; its answers
are ``Q:O`` lines read by PrimeBench's rules (:mod:`scoring.primebench`: the parser,
the hints, the key's format), scored with the definition's points::

    name = "tinymcq"            # lower-case letters and digits: /b/tinymcq, #tinymcq
    title = "TinyMCQ"
    kind = "choice"
    options = 5                 # options 1..5
    points = { right = 2, wrong = -1, none = 0 }
    prompt = \"\"\"...\"\"\"          # optional: sent byte-exact by /prompt tinymcq
    credit = "TinyMCQ by Example Lab"   # optional
    license = "CC BY 4.0"               # optional
    key = \"\"\"
    1:3
    2:1
    \"\"\"                          # or key_file = "key.txt"; questions_file optional

``right`` counts for each correct answer, ``wrong`` for each other option given (an
option outside 1..options too), ``none`` for each question of the key answered ``none``
or not at all. Pure: the files a definition names are read by the caller's ``files``.
"""

import difflib
import json
import re
import reprlib
import sys
import tomllib
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from .base import (
    BEST,
    CHART_INTERVALS,
    N_,
    About,
    AnswerSet,
    Benchmark,
    Card,
    ChallengeSpec,
    Hint,
    InvalidLine,
    KeyCheck,
    Note,
    QuestionPoints,
    Result,
    Source,
    WebCells,
    WebColumn,
    counted_points,
)
from .errors import DecodeError, DefinitionError, KeyFormatError
from .primebench.answers import question_answers
from .primebench.benchmark import HINT_MESSAGES
from .primebench.key import PrimeKey, load_key
from .primebench.parse import recognises
from .primebench.result import (
    WEB_COLUMNS,
    WEB_PATHS,
    answers_card,
    counts_json,
    counts_record,
    format_score,
    record_counts,
    web_cells,
)
from .primebench.scorer import answer_set as answers_of
from .primebench.scorer import score as score_lines
from .primebench.scorer import score_with_answers as lines_with_answers
from .runs import (
    BAD_ATTEMPTS,
    RunMaterials,
    RunPlan,
    RunRefused,
    questions_and_prompt,
    questions_text,
    single_answer,
)
from .text import decode, folded_name, normalise_newlines

#: How a refusal quotes what the file gave: briefly, however large or deeply nested it
#: is (a refusal is one short line; ``repr`` of a value nested thousands deep raises).
_QUOTE = reprlib.Repr()
_QUOTE.maxlevel = 2
_QUOTE.maxlist = _QUOTE.maxtuple = _QUOTE.maxdict = _QUOTE.maxset = 4
_QUOTE.maxstring = _QUOTE.maxother = _QUOTE.maxlong = 40
#: A field's name shown as written (else quoted, as :data:`_QUOTE` quotes it): a TOML key
#: may be quoted, and then hold anything (a line break, a megabyte).
_PLAIN_FIELD = re.compile(r"[A-Za-z0-9_-]{1,40}")

#: The one kind so far.
KIND = "choice"
#: A name is used in URLs (/b/NAME), hashtags (#NAME) and commands (/leaderboard NAME).
NAME = re.compile(r"[a-z][a-z0-9]{1,31}")
#: The options count a definition may have.
MIN_OPTIONS, MAX_OPTIONS = 2, 99
#: The largest number of points (either sign) an answer may earn.
MAX_POINTS = 1_000_000
#: The longest text fields (characters); a prompt may be long.
MAX_TITLE, MAX_TEXT, MAX_PROMPT = 64, 300, 100_000
#: The fields of a file: required, then optional.
REQUIRED = ("name", "title", "kind", "options", "points")
OPTIONAL = ("prompt", "credit", "license", "key", "key_file", "questions_file")
POINTS = ("right", "wrong", "none")

#: Reads a file a definition names (``key_file``, ``questions_file``): (field, path as
#: written) -> its bytes; raises DefinitionError naming the field.
Files = Callable[[str, str], bytes]


class Points(NamedTuple):
    right: int
    wrong: int
    none: int


class Definition(NamedTuple):
    """A validated definition. ``key`` is the key's text as bytes (stored apart, as the
    benchmark's key, versioned); ``questions`` the question file's text, or ""."""

    name: str
    title: str
    options: int
    points: Points
    prompt: str = ""
    credit: str = ""
    license: str = ""
    key: bytes = b""
    questions: str = ""
    kind: str = KIND

    def to_json(self) -> dict[str, Any]:
        """What storage keeps of the definition (the key apart): plain JSON."""
        return {
            "name": self.name,
            "title": self.title,
            "kind": self.kind,
            "options": self.options,
            "points": self.points._asdict(),
            "prompt": self.prompt,
            "credit": self.credit,
            "license": self.license,
            "questions": self.questions,
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False, sort_keys=True)


def read_definition(text: str | bytes, *, files: Files | None = None) -> Definition:
    """Parse and validate a TOML definition (its text, or its bytes: UTF-8). ``files``
    reads the files it names; None (an upload: no folder beside it) refuses
    ``key_file`` and ``questions_file``. Raises :class:`DefinitionError` (one line
    naming the field; ``TOML`` for a file TOML cannot read, however it is hostile)."""
    return read_checked(text, files=files)[0]


def read_checked(text: str | bytes, *, files: Files | None = None) -> tuple[Definition, PrimeKey]:
    """:func:`read_definition`, with the key that checking it loaded (the benchmark's
    :meth:`ChoiceBenchmark.load_key` of it): a key of many thousand lines is seconds of
    Python, not to be spent twice."""
    if isinstance(text, bytes):
        try:
            text = decode(text)
        except DecodeError as exc:
            raise DefinitionError("file", str(exc)) from None
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DefinitionError("TOML", str(exc)) from None
    except RecursionError:  # tomllib reads nested arrays and inline tables recursively
        raise DefinitionError("TOML", "arrays or inline tables nested too deeply") from None
    except ValueError:  # the one other: int() refuses a decimal number this long
        digits = sys.get_int_max_str_digits()
        raise DefinitionError("TOML", f"a number longer than {digits:,} digits") from None
    if not table:  # an empty file (or only comments): not "name: missing"
        raise DefinitionError("file", f"empty: no fields (required: {', '.join(REQUIRED)}, key)")
    return _checked(table, files)


def _meant(field: str, known: Sequence[str]) -> str:
    """``; did you mean NAME?`` for a field mistyped (``opions``), else ""."""
    close = difflib.get_close_matches(field.casefold()[:40], known, n=1, cutoff=0.75)
    return f"; did you mean {close[0]}?" if close else ""


def _quoted(value: object) -> str:
    """A value the file gave, quoted for a refusal (short, one line)."""
    return _QUOTE.repr(value)


def _field_name(name: str) -> str:
    return name if _PLAIN_FIELD.fullmatch(name) else _quoted(name)


def definition_from(
    table: Mapping[str, Any], *, files: Files | None = None, stored: bool = False
) -> Definition:
    """Validate a definition's fields (a parsed TOML table, or stored JSON with the key
    given as ``key``; ``stored``: one stored before a rule refused what it holds, read
    as it can be rather than refused)."""
    return _checked(table, files, stored=stored)[0]


def _checked(
    table: Mapping[str, Any], files: Files | None, *, stored: bool = False
) -> tuple[Definition, PrimeKey]:
    unknown = [f for f in table if f not in REQUIRED and f not in OPTIONAL and f != "questions"]
    if unknown:
        raise DefinitionError(
            _field_name(unknown[0]),
            f"unknown field{_meant(unknown[0], REQUIRED + OPTIONAL)} "
            f"(the fields are {', '.join(REQUIRED + OPTIONAL)})",
        )
    for field in REQUIRED:
        if field not in table:
            raise DefinitionError(field, "missing (required)")
    kind = _text(table, "kind", limit=MAX_TITLE)
    if kind != KIND:
        raise DefinitionError("kind", f"unknown kind {kind!r} (the one kind is {KIND!r})")
    name = _text(table, "name", limit=MAX_TITLE)
    if NAME.fullmatch(name) is None:
        raise DefinitionError(
            "name",
            f"{name!r} is not a name: 2 to 32 lower-case letters and digits, starting with a "
            "letter (it is used in /b/NAME, #NAME and commands)",
        )
    title = _line(table, "title", stored)
    if not any(unicodedata.category(c)[0] not in "CZ" for c in title):
        # nothing that shows: "" or only zero-width characters (U+200B), a benchmark
        # with no name on its cards, boards and pages
        raise DefinitionError("title", "empty (nothing in it shows)" if title else "empty")
    options = table["options"]
    if not _integer(options):
        raise DefinitionError("options", f"must be a whole number, not {_quoted(options)}")
    if not MIN_OPTIONS <= options <= MAX_OPTIONS:
        raise DefinitionError("options", f"must be {MIN_OPTIONS} to {MAX_OPTIONS}, not {options}")
    points = _points(table["points"])
    key = _key(table, files)
    questions = _questions(table, files)
    definition = Definition(
        name=name,
        title=title,
        options=options,
        points=points,
        prompt=_text(table, "prompt", limit=MAX_PROMPT, strip=False),
        credit=_line(table, "credit", stored),
        license=_line(table, "license", stored),
        key=key,
        questions=questions,
    )
    try:
        loaded = load_key(key, filename="key", options=range(1, options + 1))
    except (KeyFormatError, DecodeError) as exc:
        raise DefinitionError("key", str(exc)) from None
    return definition, loaded


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(table: Mapping[str, Any], field: str, *, limit: int, strip: bool = True) -> str:
    value = table.get(field, "")
    if not isinstance(value, str):
        raise DefinitionError(field, f"must be text, not {_quoted(value)}")
    if len(value) > limit:
        raise DefinitionError(field, f"longer than {limit:,} characters")
    return value.strip() if strip else value


#: What a one-line field (title, credit, license) never holds: a line break or another
#: control character (a credit's line break made a line of its own under a card and a
#: row of the board's CSV), and the bidirectional controls, which reorder what follows
#: the title wherever it is shown ("#1 · TITLE · model · +3" read backwards after a
#: U+202E). The characters :func:`scoring.text.folded_name` drops from a model's name.
_NOT_IN_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


def _line(table: Mapping[str, Any], field: str, stored: bool) -> str:
    """A one-line text field, stripped; refused with a control character in it (a stored
    one, read again, loses them instead)."""
    limit = MAX_TITLE if field == "title" else MAX_TEXT
    value = _text(table, field, limit=limit)
    found = _NOT_IN_LINE.search(value)
    if found is None:
        return value
    if stored:
        return folded_name(value)
    char, at = f"U+{ord(found[0]):04X}", found.start() + 1
    raise DefinitionError(
        field, f"must be one line, without line breaks or control characters ({char} at {at})"
    )


def _points(value: object) -> Points:
    if not isinstance(value, Mapping):
        raise DefinitionError(
            "points", "must be a table such as { right = 1, wrong = -3, none = 0 }"
        )
    for field in value:
        if field not in POINTS:
            raise DefinitionError(
                f"points.{_field_name(field)}",
                f"unknown{_meant(field, POINTS)} (the points are right, wrong, none)",
            )
    found = []
    for field in POINTS:
        if field not in value:
            raise DefinitionError(f"points.{field}", "missing (required)")
        points = value[field]
        if not _integer(points):
            raise DefinitionError(
                f"points.{field}", f"must be a whole number, not {_quoted(points)}"
            )
        if abs(points) > MAX_POINTS:
            raise DefinitionError(f"points.{field}", f"must be within ±{MAX_POINTS:,}")
        found.append(points)
    return Points(*found)


def _key(table: Mapping[str, Any], files: Files | None) -> bytes:
    if "key" in table and "key_file" in table:
        raise DefinitionError("key_file", "give the key or key_file, not both")
    if "key_file" in table:
        path = _text(table, "key_file", limit=MAX_TEXT)
        if files is None:
            raise DefinitionError(
                "key_file", "not read from an upload: put the key in the file as key"
            )
        return files("key_file", path)
    if "key" not in table:
        raise DefinitionError("key", "missing (required: key, or key_file)")
    return _text(table, "key", limit=MAX_PROMPT * 100, strip=False).encode()


def _questions(table: Mapping[str, Any], files: Files | None) -> str:
    if "questions" in table:  # stored JSON carries them inline
        return _text(table, "questions", limit=MAX_PROMPT * 100, strip=False)
    if "questions_file" not in table:
        return ""
    path = _text(table, "questions_file", limit=MAX_TEXT)
    if files is None:
        raise DefinitionError("questions_file", "not read from an upload: leave it out")
    try:
        return normalise_newlines(decode(files("questions_file", path)))
    except DecodeError as exc:
        raise DefinitionError("questions_file", str(exc)) from None


class ChoiceResult(NamedTuple):
    """A choice benchmark's result: PrimeBench's counts (the same attributes, so what
    shows a PrimeBench result shows it) with the definition's points."""

    total_questions: int
    correct: int
    wrong: int
    unanswered: int
    invalid_lines: tuple[InvalidLine, ...]
    invalid_line_count: int
    duplicates: tuple[int, ...]
    unknown_questions: tuple[int, ...]
    hints: tuple[Hint, ...]
    fingerprint: str
    duplicate_count: int
    unknown_question_count: int
    benchmark: str
    points: Points

    def _terms(self) -> tuple[int, int, int]:
        right, wrong, none = self.points
        return self.correct * right, self.wrong * wrong, self.unanswered * none

    @property
    def positive_points(self) -> int:
        return sum(term for term in self._terms() if term > 0)

    @property
    def negative_points(self) -> int:
        return -sum(term for term in self._terms() if term < 0)

    @property
    def final_score(self) -> int:
        return sum(self._terms())

    @property
    def primary(self) -> float:
        return float(self.final_score)

    @property
    def answered(self) -> int:
        return self.correct + self.wrong

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.answered if self.answered else None

    @property
    def coverage(self) -> float:
        return self.answered / self.total_questions if self.total_questions else 0.0

    def card(self) -> Card:
        """PrimeBench's card, with the points this benchmark's own values make."""
        return answers_card(self)

    def to_json(self) -> dict[str, Any]:
        data = counts_json(self)
        data["points"] = self.points._asdict()
        return data

    def to_record(self) -> dict[str, Any]:
        data = counts_record(self)
        data["points"] = self.points._asdict()
        return data


#: The scorer's version: the points and options are part of it, so a definition that
#: changes them leaves every stored result to re-score (``/rescore``'s pending rows).
SCORER_VERSION = "choice-1"


class ChoiceBenchmark:
    """The registry object of a data-defined multiple-choice benchmark (see
    :class:`scoring.base.Benchmark`)."""

    essential = False
    daily = False
    challenge: ChallengeSpec | None = None
    source: Source | None = None
    questions_file: str | None = None
    tag_fields: tuple[str, ...] = ()
    board_columns: tuple[str, ...] = ()
    #: after PrimeBench's (1): a text both read without a tag is PrimeBench's
    recognise_order = 3
    web_columns: tuple[WebColumn, ...] = WEB_COLUMNS
    web_paths: tuple[str, ...] = WEB_PATHS
    board_aggregate = BEST
    license_url = ""
    author = ""
    author_url = ""
    web_chart = CHART_INTERVALS
    #: PrimeBench's hints: its answers are read by PrimeBench's rules
    hint_messages: Mapping[str, str] = HINT_MESSAGES
    reason_messages: Mapping[str, str] = {}
    has_questions = True

    def __init__(self, definition: Definition) -> None:
        self.definition = definition
        self.name = definition.name
        self.title = definition.title
        self.prompt = definition.prompt
        self.credit = " · ".join(filter(None, (definition.credit, definition.license)))
        self.license = definition.license
        self.options = definition.options
        self.points = definition.points
        self.tags: tuple[str, ...] = (definition.name,)
        #: where a key placed in the data folder would be imported from (``keys.keyed``)
        self.key_file: str | None = f"{definition.name}/key.txt"
        right, wrong, none = definition.points
        self.scorer_version = f"{SCORER_VERSION}:o{definition.options}:{right},{wrong},{none}"
        self._options = range(1, definition.options + 1)
        #: its questions (the definition's ``questions_file``), then its prompt
        self.run_version = f"{definition.name}-run-1"

    def __repr__(self) -> str:
        return f"ChoiceBenchmark({self.name!r})"

    def __reduce__(self) -> tuple[Any, ...]:  # to worker processes, as its definition
        return (ChoiceBenchmark, (self.definition,))

    def about(self) -> About:
        right, wrong, none = self.points
        values = (("right", right), ("wrong", wrong), ("none", none), ("options", self.options))
        return About(
            Note(N_("about_choice_measures"), (("options", self.options),)),
            Note(N_("about_rule_points"), values),
        )

    def recognises(self, text: str) -> bool:
        return recognises(normalise_newlines(text))

    def question_answers(self, text: str, key: Any) -> Mapping[int, tuple[int | None, int]]:
        return question_answers(normalise_newlines(text), key)

    def load_key(self, data: bytes, *, filename: str = "key") -> PrimeKey:
        return load_key(data, filename=filename or "key", options=self._options)

    def check_key(
        self, data: bytes, *, filename: str = "", questions: bytes | None = None
    ) -> KeyCheck:
        key = self.load_key(data, filename=filename)
        return KeyCheck(data=data, questions=len(key))

    def score(
        self, text: str, key: PrimeKey, *, options: Mapping[str, Any] | None = None
    ) -> ChoiceResult:
        counts = score_lines(text, key)
        return ChoiceResult._make((*counts[:12], self.name, self.points))

    def answer_set(
        self, text: str, key: PrimeKey, *, options: Mapping[str, Any] | None = None
    ) -> AnswerSet:
        return answers_of(text, key)

    def score_with_answers(
        self, text: str, key: PrimeKey, *, options: Mapping[str, Any] | None = None
    ) -> tuple[ChoiceResult, AnswerSet]:
        counts, found = lines_with_answers(text, key)
        return ChoiceResult._make((*counts[:12], self.name, self.points)), found

    def result_from_record(self, data: Mapping[str, Any]) -> ChoiceResult:
        stored = data.get("points")
        points = Points(**stored) if isinstance(stored, Mapping) else self.points
        return ChoiceResult._make((*record_counts(data), self.name, points))

    def format_score(self, value: float, *, mean: bool = False) -> str:
        return format_score(value, mean=mean)

    def board_cells(self, record: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
        return ()

    def web_cells(self, best: float, fields: Mapping[str, Any]) -> WebCells:
        return web_cells(best, fields)

    def question_points(self, result: Result) -> QuestionPoints | None:
        """Each question's points by this benchmark's values (right, wrong, none): the
        final score is their sum."""
        if not isinstance(result, ChoiceResult):
            return None
        right, wrong, none = result.points
        counts = ((result.correct, right), (result.wrong, wrong), (result.unanswered, none))
        return counted_points(counts)

    def options_from_tags(self, fields: Mapping[str, str]) -> dict[str, Any]:
        return {}

    def key_for(self, options: Mapping[str, Any], default: Any) -> tuple[Any, dict[str, Any]]:
        return default, dict(options)

    #: the question file travels in the definition, not in the data folder
    run_questions_file: str | None = None

    def run_plan(self, materials: RunMaterials, *, attempts: int = 1) -> RunPlan:
        if attempts != 1:
            raise RunRefused(f"a {self.title} run makes one attempt", code=BAD_ATTEMPTS)
        questions = self.definition.questions
        if not questions:
            hint = "its definition has no questions_file"
            questions = questions_text(materials, self.title, hint)
        return questions_and_prompt(self.run_version, questions, self.prompt)

    def run_output(self, plan: RunPlan, answers: Sequence[str]) -> str:
        return single_answer(plan, answers)


def from_stored(definition: str, key: bytes = b"") -> ChoiceBenchmark:
    """A benchmark from a stored definition (:meth:`Definition.dumps`); the key is
    checked only when given. Raises DefinitionError."""
    try:
        table = json.loads(definition)
    except json.JSONDecodeError as exc:
        raise DefinitionError("definition", f"not JSON: {exc.msg}") from None
    if not isinstance(table, dict):
        raise DefinitionError("definition", "not a table")
    table["key"] = key.decode() if key else "1:1"
    return ChoiceBenchmark(definition_from(table, stored=True)._replace(key=key))


if TYPE_CHECKING:  # the registry object satisfies the interface
    _CHECKED: Benchmark = ChoiceBenchmark(Definition("x", "X", 2, Points(1, 0, 0)))

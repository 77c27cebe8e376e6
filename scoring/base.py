"""The small interface every benchmark module implements, and the shared result parts.

A benchmark module exposes one object satisfying :class:`Benchmark`. Scoring is pure:
``score(text, key)`` takes already-decoded text and an already-loaded key and returns a
frozen result. Loading bytes (keys, submissions) is separate from scoring, and no
function here touches the network, a database or Telegram.
"""

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

if TYPE_CHECKING:
    from datetime import date

    from .runs import RunMaterials, RunPlan

# The value types here and in a scorer's path are NamedTuples, not dataclasses: frozen
# and as small, and importing ``dataclasses`` (and the ``inspect`` it loads) would be a
# good part of the start-up of ``benchboard score``. For the same reason this module (and
# each result module) evaluates its annotations, without ``from __future__ import
# annotations``: NamedTuple compiles each annotation given as text, one by one.

#: How many invalid lines a result keeps with their text. The total is always counted
#: (``invalid_line_count``); a hostile 20 MB file of prose must not cost gigabytes.
MAX_REPORTED_INVALID_LINES = 10_000
#: How many question numbers a result lists of those a key lacks, and of those answered
#: more than once; both are counted in full (a file of a million made-up question
#: numbers is answered with a thousand of them and the count).
MAX_REPORTED_QUESTIONS = 1_000


class InvalidLine(NamedTuple):
    """A line (or row) of a submission that could not be read. ``line`` counts from 1."""

    line: int
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "text": self.text}


class Hint(NamedTuple):
    """Advice that never changes the score.

    ``code`` is stable (the bot translates it), ``lines`` are the line numbers it is
    about, ``message`` is the English text (what the CLI prints), ``params`` the other
    values the message quotes (counts, examples), for writing it in another language.
    """

    code: str
    message: str
    lines: tuple[int, ...] = ()
    params: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        return self.message


@runtime_checkable
class Result(Protocol):
    """What every benchmark's ``score`` returns (a frozen dataclass)."""

    @property
    def benchmark(self) -> str: ...

    @property
    def primary(self) -> float:
        """The figure a leaderboard ranks by (higher is better)."""
        ...

    @property
    def invalid_lines(self) -> tuple[InvalidLine, ...]: ...

    @property
    def invalid_line_count(self) -> int: ...

    @property
    def hints(self) -> tuple[Hint, ...]: ...

    @property
    def fingerprint(self) -> str:
        """A digest of the normalised answers: equal answers give equal fingerprints."""
        ...

    def card(self) -> "Card":
        """What the result shows on a card, in a reply and on the command line."""
        ...

    def to_json(self) -> dict[str, Any]:
        """The machine-readable breakdown (what ``benchboard score --json`` prints)."""
        ...

    def to_record(self) -> dict[str, Any]:
        """JSON-able data that ``Benchmark.result_from_record`` turns back into the result."""
        ...


#: An :class:`AnswerSet` answer that declines to answer (``12:none``): compared like an
#: answer, never a wrong one.
NO_ANSWER = "none"


class AnswerSet(NamedTuple):
    """What a submission answered to each question of the key, for the copy check
    (:meth:`Benchmark.answer_set`): the bot compares it with the key and with other
    people's answer sets without knowing the benchmark.

    ``answers`` and ``right`` hold one entry per key question, in the key's order: the
    answer given (``""``: no answer; :data:`NO_ANSWER`: answered as declining) and the
    key's. ``agree`` counts the questions answered
    exactly as the key answers them, of ``questions``. ``comparable``: the answers are
    few-option choices that two people's answer sets may be compared on, question by
    question (a free-text benchmark gives ``()`` for both tuples and False).
    """

    answers: tuple[str, ...]
    right: tuple[str, ...]
    agree: int
    questions: int
    comparable: bool = False


class KeyCheck(NamedTuple):
    """An answer key that passed :meth:`Benchmark.check_key`.

    ``data`` is what the data folder keeps (the canonical form where the benchmark has
    one), ``questions`` how many questions the key answers, ``note`` a line for the
    person who loaded it ("" when there is nothing to say).
    """

    data: bytes
    questions: int
    note: str = ""


class Source(NamedTuple):
    """Where a benchmark's official files are published: pure data, read by whoever
    downloads them (the bot's ``data fetch``), never fetched here.

    ``kind`` says how they are read:

    - ``"files"``: each of ``files`` is ``url`` + ``/`` + its name; the one named like
      :attr:`Benchmark.key_file` is the key, the one named like
      :attr:`Benchmark.questions_file` the question file;
    - ``"dataset_rows"``: a Hugging Face dataset viewer at ``url`` pages through the
      rows of ``dataset``, each of ``splits``, keeping the two ``columns`` (question id,
      answer); the key is ``{split: {id: answer}}`` as JSON.
    """

    kind: str
    url: str
    files: tuple[str, ...] = ()
    dataset: str = ""
    splits: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()


class WebColumn(NamedTuple):
    """A column of a web board row after the model and mode: its key (the sort key and
    the CSV/JSON field), the message id of its heading, and the kind of its values (how
    a cell is written when the benchmark gives no text of its own; see ``KINDS``)."""

    key: str
    label: str
    kind: str


#: A web board row's cells by column key: as shown, and as the CSV/JSON value.
WebCells = tuple[dict[str, str], dict[str, float | int | str | None]]


def record_number(value: object) -> float | None:
    """A number read from a stored record (None for anything else, booleans too)."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def worked_out(owner: object, slot: str, kind: type[Any]) -> Any:
    """What ``owner``'s read-only ``slot`` holds: given as a value of ``kind``, or as a
    function working it out, called when first read (the slot then keeps what it gave).
    For what a scorer's values may never be asked for (hints, fingerprints, checksums)."""
    value = getattr(owner, slot)
    if not isinstance(value, kind):
        value = value()
        object.__setattr__(owner, slot, value)
    return value


def percent_text(value: float | None) -> str:
    """A share as a web board cell shows it (``—`` when unknown)."""
    return "—" if value is None else f"{value:.1%}"


# --- challenges: a daily target with its own board and chat command ----------------------


class ChallengeKey(Protocol):
    """What a challenge's key (the day's, or one a submission names) tells a reader: its
    target and what an answer may use (``allowed_digits``, as ``allowed_text``; ``digits``:
    the pieces an exact answer uses)."""

    @property
    def target(self) -> int: ...

    @property
    def allowed_digits(self) -> frozenset[str]: ...

    @property
    def allowed_text(self) -> str: ...

    @property
    def digits(self) -> tuple[str, ...]: ...


class ChallengeSpec(NamedTuple):
    """A benchmark's challenge (:attr:`Benchmark.challenge`): a target for each day, its
    own chat command, boards and comparison chart. The bot and the store ask this; they
    never name the benchmark.

    The day's key is :attr:`today` of the date, the bot's seed and the target an admin
    chose for that day (None: none). The challenge board reads a stored result's record
    fields :attr:`target_field`, :attr:`shown_field` (the answer shown beside the best
    score) and :attr:`valid_field` (only valid attempts count), and the submission's
    optional tag fields (:attr:`cost_option`, :attr:`latency_option`) for its model board.
    """

    #: the chat command and CLI word (``/natory``, ``benchboard natory today``,
    #: ``/leaderboard natory``, ``/compare natory``)
    command: str
    #: the day's key: ``today(day, seed, chosen)``
    today: "Callable[[date, str, int | None], ChallengeKey]"
    #: a typed target as a key; raises :class:`scoring.errors.KeyFormatError`
    parse: Callable[[str], ChallengeKey]
    #: the tag field a submission names its target in (the day's when it names none)
    target_option: str
    #: the optional tag fields an attempt may carry, kept with it and averaged on the
    #: model board: its cost in USD and its latency in seconds
    cost_option: str
    latency_option: str
    #: the result record's fields the board reads
    target_field: str
    shown_field: str
    valid_field: str
    #: when an attempt is trivial (ranked below every other, scored 0): ``"digits"``, its
    #: shown answer is digits only (the target written out); ``""``: never
    trivial: str
    #: the scorer option given the shown answers already stored for the target, oldest
    #: first ("" when the scorer takes none)
    previous_option: str


# --- what a result shows: fields with kinds, cards, board lines, web columns ------------
#
# A benchmark declares what its results show; the bot writes each value by its kind and
# never asks which benchmark it is. Labels and messages are message ids of the bot's
# catalogues, marked with :func:`N_` where they are declared so that extraction finds them.

#: A whole number (questions, attempts, points counted): as is (``18``, ``-2``, never in
#: e-notation), in the reader's digits.
COUNT = "count"
#: Points a part of a score adds or takes: signed (``+10``, ``−5``, ``0``).
POINTS = "points"
#: A share in [0, 1]: ``75.0%``, with the part and whole it is the share of when given
#: (``75.0% (3/4)``); ``—`` when unknown.
PERCENT = "percent"
#: US dollars: ``$0.0123`` (four significant digits, never in e-notation).
MONEY = "money"
#: A duration in seconds: ``3.2 s``.
SECONDS = "seconds"
#: Text as written (an expression, ``yes``), escaped where it is shown.
TEXT = "text"
#: A list of names, each a message id (``gem_prime``), joined in prose.
NAMES = "names"
#: A score as its benchmark writes it (``Benchmark.format_score``: ``+18``, ``11.9%``).
SCORE = "score"
#: A mean of scores as its benchmark writes it (``format_score(value, mean=True)``).
MEAN = "mean"
#: Every field kind.
KINDS = (COUNT, POINTS, PERCENT, MONEY, SECONDS, SCORE, MEAN, TEXT, NAMES)

#: The headline chart of a web board (``Benchmark.web_chart``): each model line's
#: ranking score with its interval, where the board gives one (a row's ``ci95``, or its
#: ``ci_low``/``ci_high`` values), or the score against cost with its Pareto front.
CHART_INTERVALS = "intervals"
CHART_FRONT = "front"

#: How a board line aggregates (``Benchmark.board_aggregate``): a model's best submission
#: with its runs and mean, or its attempts at challenges.
BEST = "best"
ATTEMPTS = "attempts"


def N_(message_id: str) -> str:
    """Mark a message id of the bot's catalogues where a benchmark declares it (a field's
    label, a hint's or a reason's text), for extraction; returns it unchanged."""
    return message_id


class Field(NamedTuple):
    """A figure a benchmark shows: ``key`` (stable: the JSON and CSV name, the sort
    key), ``kind`` (one of :data:`KINDS`: how it is written) and ``label`` (the message
    id of its label, ``field_correct``)."""

    key: str
    kind: str
    label: str


#: A declared value: a number, text, the message ids of :data:`NAMES`, or None (unknown).
Value = int | float | str | tuple[str, ...] | None


class Shown(NamedTuple):
    """A field with its value. ``of``: for a :data:`PERCENT`, the part and the whole it
    is the share of; ``term``: one term of a sum (a card indents it)."""

    field: Field
    value: Value
    of: tuple[float, float] | None = None
    term: bool = False


class Reason(NamedTuple):
    """Why an attempt is not valid: its declared ``code`` (see
    :attr:`Benchmark.reason_messages`), the scorer's English ``message``, the values the
    message quotes and the position in the input (from 0) it is about, if any."""

    code: str | None
    message: str
    params: tuple[tuple[str, str], ...] = ()
    position: int | None = None


class Note(NamedTuple):
    """A line of prose: a message id and the values it quotes (numbers are written in
    the reader's digits, text as given and escaped, a :class:`Reason` in the reader's
    language)."""

    message: str
    values: tuple[tuple[str, int | str | Reason], ...] = ()


class About(NamedTuple):
    """What a board's "about this benchmark" block says: what it measures and its
    scoring rule, each a line of prose (:class:`Note`: a message id and the values it
    quotes), and where it comes from (``links``: the message id of each link's label
    and its address; the official prompt, credit and license are the benchmark's own
    members)."""

    measures: Note
    rule: Note
    links: tuple[tuple[str, str], ...] = ()


class Sum(NamedTuple):
    """The terms of a sum and its total, written out (``10 + 20 − 5 = 25``)."""

    terms: tuple[int, ...]
    total: int


#: A line of a result in prose.
Line = Shown | Note | Sum


class Segment(NamedTuple):
    """A part of a stacked bar: how many it counts and its tone (``good``, ``bad``,
    ``none``)."""

    field: Field
    size: int
    tone: str


class Bar(NamedTuple):
    """A stacked bar (PrimeBench's correct / wrong / unanswered) and the points they
    make, as the scorer counts them with its own point values."""

    segments: tuple[Segment, ...]
    points: tuple[Shown, ...] = ()


class Card(NamedTuple):
    """What a result shows, as its benchmark declares it.

    - ``summary``: every figure in order (the command line, the web result page, and the
      reply unless ``prose`` is given);
    - ``prose``: the reply's and the card image's lines instead (Natory: the expression,
      the fields that paid, why it is not valid); () for none;
    - ``figures``: the card image's rows when there is neither a bar nor prose;
    - ``bar``: the card image's stacked bar, or None;
    - ``target``: the challenge target whose attempts it ranks among, or None;
    - ``duplicates``/``unknown``: questions answered more than once and ids the key
      lacks, each with its full count;
    - ``hint_values``: what a hint about no line quotes (the result's own figures).
    """

    summary: tuple[Shown, ...]
    prose: tuple[Line, ...] = ()
    figures: tuple[Shown, ...] = ()
    bar: Bar | None = None
    target: int | None = None
    duplicates: tuple[int | str, ...] = ()
    duplicate_count: int = 0
    unknown: tuple[int | str, ...] = ()
    unknown_count: int = 0
    hint_values: tuple[tuple[str, int | str | tuple[str, ...]], ...] = ()


class QuestionPoints(NamedTuple):
    """A result's points question by question, in the units of its ranking score
    (``Result.primary``), and how that score is made of them: their sum (``mean`` False:
    PrimeBench's +1/−3/0 over the key's questions) or their mean (ZeroBench's pass@1,
    a share per question). ``counts``: how many questions made each of ``points`` (a
    result that counts its questions by outcome gives each outcome once, with its count;
    (): one question each). What a board's 95 % interval over questions is computed
    from (``bot.core.intervals``); the bot never asks which benchmark it is."""

    points: tuple[float, ...]
    mean: bool = False
    counts: tuple[int, ...] = ()

    @property
    def questions(self) -> int:
        return sum(self.counts) if self.counts else len(self.points)


def counted_points(counts: Sequence[tuple[int, float]], *, mean: bool = False) -> QuestionPoints:
    """:class:`QuestionPoints` of a result that only counts its questions by outcome:
    ``counts`` are (how many questions, the points each made)."""
    kept = [(max(0, n), float(p)) for n, p in counts if n > 0]
    return QuestionPoints(tuple(p for _, p in kept), mean, tuple(n for n, _ in kept))


def percent_of(field: Field, part: float, whole: float) -> Shown:
    """A :data:`PERCENT` field showing ``part`` of ``whole`` (unknown when ``whole`` is 0)."""
    return Shown(field, part / whole if whole else None, (part, whole))


class Benchmark(Protocol):
    """One benchmark: its name, its key, its scorer, and what the bot asks of it.

    The bot never compares a benchmark's name: it asks these members instead.
    """

    #: registry name, lower case (``primebench``)
    name: str
    #: display name (``PrimeBench``)
    title: str
    #: recorded with every stored result, bumped when scoring changes
    scorer_version: str
    #: a line crediting the benchmark's authors, or ""
    credit: str
    #: the official prompt, verbatim, or "" when the benchmark has none to hand out
    prompt: str
    #: the words that select it as a hashtag or a command argument, without ``#``
    #: (matched ignoring case, ``-`` and ``_``); the name first
    tags: tuple[str, ...]
    #: where its answer key lives, relative to the data folder (``primebench/A.txt``),
    #: or None when it takes no stored key
    key_file: str | None
    #: its question file beside the key (relative to the data folder), or None
    questions_file: str | None
    #: where its official files are published (what ``data fetch`` downloads), or None
    source: Source | None
    #: True when the bot cannot serve without its key: health requires it, and the bot
    #: fetches it at start when it is missing
    essential: bool
    #: True when its key is a challenge (the day's, or one a submission names) rather
    #: than a stored file; see :meth:`key_for`
    daily: bool
    #: the tag fields (``target``, ``cost``, ``k``) a submission of it may carry; what
    #: :meth:`options_from_tags` reads
    tag_fields: tuple[str, ...]
    #: the columns a board row shows beside best, runs and mean, read from the best
    #: submission's record (:meth:`board_cells`); () when there are none
    board_columns: tuple[str, ...]
    #: when a text without a benchmark tag is recognised by several benchmarks, the one
    #: with the lowest order takes it (structured formats before loose lines)
    recognise_order: int
    #: the columns of a web board row before runs and mean, the ranking score (``score``)
    #: first, and the record fields (JSON paths, ``$.main.pass_at_k``) their cells read
    web_columns: tuple[WebColumn, ...]
    web_paths: tuple[str, ...]
    #: its challenge (a daily target with its own board and command), or None
    challenge: ChallengeSpec | None
    #: how a board line aggregates: :data:`BEST` (a model's best submission, with its
    #: runs and mean) or :data:`ATTEMPTS` (a model's attempts at challenges: mean and
    #: best score, attempts, mean cost and latency)
    board_aggregate: str
    #: its web board's headline chart: :data:`CHART_INTERVALS` or :data:`CHART_FRONT`
    web_chart: str
    #: the license its questions and key are published under ("" when none is stated),
    #: and where its authors and that license are (for a page's credits; "" for none)
    license: str
    license_url: str
    author: str
    author_url: str
    #: the message id of each of its hint codes (:attr:`Hint.code`) and reason codes
    #: (:attr:`Reason.code`), marked with ``N_``: the bot shows the message in the
    #: reader's language, the scorer's English text where the catalogue has none
    hint_messages: Mapping[str, str]
    reason_messages: Mapping[str, str]
    #: True when its answers are one choice per key question (PrimeBench, a benchmark
    #: defined by data): it has a questions page, and :meth:`question_answers` reads them
    has_questions: bool

    def about(self) -> About:
        """What its web board's "about this benchmark" block says (what it measures, its
        scoring rule, links to its source)."""
        ...

    def check_key(
        self, data: bytes, *, filename: str = "", questions: bytes | None = None
    ) -> KeyCheck:
        """Validate a key upload (and its question file, when given) before it is stored;
        raise :class:`scoring.errors.KeyFormatError`."""
        ...

    def format_score(self, value: float, *, mean: bool = False) -> str:
        """A board or history score (``Result.primary``) as the benchmark writes it;
        ``mean``: the value is an average over runs."""
        ...

    def board_cells(self, record: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
        """The :attr:`board_columns` of one board row as (label, value text), from the
        best submission's ``to_record()``; () when the record lacks them."""
        ...

    def web_cells(self, best: float, fields: Mapping[str, Any]) -> WebCells:
        """The cells of :attr:`web_columns` a web board row of ranking score ``best``
        shows besides score, runs and mean as every board writes them (``score`` given
        here replaces that), from the best submission's record ``fields`` (by their
        paths in :attr:`web_paths`; missing ones are absent)."""
        ...

    def question_points(self, result: Result) -> QuestionPoints | None:
        """The result's points question by question (what a 95 % interval over its
        questions is computed from); None when its score is not made of questions (one
        expression, say)."""
        ...

    def options_from_tags(self, fields: Mapping[str, str]) -> dict[str, Any]:
        """Scorer options from a submission's tag fields as typed (those in
        :attr:`tag_fields`; others are ignored); raise
        :class:`scoring.errors.OptionError` for a refused value."""
        ...

    def key_for(self, options: Mapping[str, Any], default: Any) -> tuple[Any, dict[str, Any]]:
        """The key to score against, and the options completed with what it implies.

        A :attr:`daily` benchmark scores against the challenge its options name, else
        ``default`` (the day's), and puts the challenge into the options (kept with the
        submission). The others score against ``default`` (the stored key) as is.
        """
        ...

    def question_answers(self, text: str, key: Any) -> Mapping[int, tuple[int | None, int]] | None:
        """Per key question, the option ``text`` chose (None: ``none`` or no answer) and
        the key's option, as the scorer reads them; None when it has no questions
        (:attr:`has_questions` is False)."""
        ...

    def load_key(self, data: bytes, *, filename: str = "") -> Any:
        """Parse an answer key from bytes; raise :class:`scoring.errors.KeyFormatError`."""
        ...

    def recognises(self, text: str) -> bool:
        """Whether ``text`` (tag lines already blanked) holds at least one line this
        benchmark can read, or nearly read (a near miss that earns a hint). Cheap and
        key-free: a bounded part of the text, or one scan with a regular expression."""
        ...

    def score(self, text: str, key: Any, *, options: Mapping[str, Any] | None = None) -> Result:
        """Score decoded submission text against a loaded key. Never raises on any text."""
        ...

    def result_from_record(self, data: Mapping[str, Any]) -> Result:
        """Rebuild a result from ``to_record()`` output (what storage keeps)."""
        ...

    def answer_set(
        self, text: str, key: Any, *, options: Mapping[str, Any] | None = None
    ) -> AnswerSet | None:
        """What ``text`` answers to each question of ``key`` (read as :meth:`score`
        reads it), for the copy check; None for a benchmark without an answer key to
        copy (a challenge). Pure, never raises on any text."""
        ...

    def score_with_answers(
        self, text: str, key: Any, *, options: Mapping[str, Any] | None = None
    ) -> tuple[Result, AnswerSet | None]:
        """:meth:`score` and :meth:`answer_set` together, reading the text once where
        the benchmark can (what the submission path calls: the copy check then costs
        no second reading)."""
        ...

    # --- how it is run against a model (scoring.runs) ---------------------------------

    #: the version of the instruction a run sends, recorded with the run
    run_version: str
    #: the file a run sends as its questions, relative to the data folder (None: the
    #: run sends none, or the benchmark's :attr:`questions_file`)
    run_questions_file: str | None

    def run_plan(self, materials: "RunMaterials", *, attempts: int = 1) -> "RunPlan":
        """The calls a run sends to a model, from the key (or challenge) and the question
        file; ``attempts``: attempts per question where the benchmark scores several
        (ZeroBench's k; the others make one). Raise :class:`scoring.runs.RunRefused` when
        it cannot be run (its questions are not loaded)."""
        ...

    def run_output(self, plan: "RunPlan", answers: Sequence[str]) -> str:
        """The raw output a run's answers make (one per call, in the plan's order): the
        text scored exactly as if it had been pasted, with the plan's options."""
        ...


def publishable(result: Result) -> bool:
    """Whether a result may go on a board. A result says so with a ``publishable``
    property (Natory: only an expression equal to the target); without one, it may."""
    return bool(getattr(result, "publishable", True))

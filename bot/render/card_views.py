"""What a result card and a board image say: plain data in, localised strings out.

``bot.core.sharing`` fills :class:`ResultCardView` and :class:`BoardImageView`;
:func:`result_card_text` and :func:`board_image_text` turn them into the strings the
images show (:mod:`bot.render.cards` draws them). Pure: no matplotlib, no Telegram,
no storage; user and model text is kept as typed (an image needs no escaping).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from scoring import Benchmark, Result
from scoring.base import ATTEMPTS

from .bidi import figure_text
from .fields import label, prose, shown_value
from .format import mode_label
from .i18n import N_, digits, field_label, t, tn

THEMES = ("light", "dark")
DEFAULT_THEME = "light"
#: A run by Benchboard's mark on a board image (the card fonts have no 🤖; the chat and
#: web boards show 🤖): a gear, named in the image's footer.
BENCHBOARD_GLYPH = "⚙"


@dataclass(frozen=True, slots=True)
class ResultCardView:
    """One published result as its card shows it. ``rank``: on the global board when
    rendered (a challenge's result: among the attempts at its target); ``key_sha``: the
    SHA-256 of the key it was scored against; ``challenge``: the challenge it answered
    (``score`` as written, ``model``), from the submission's extra."""

    benchmark: Benchmark
    result: Result
    model: str
    mode: str | None
    rank: int | None
    verified: bool
    key_sha: str | None
    date: datetime
    lang: str = "en"
    theme: str = DEFAULT_THEME
    challenge: Mapping[str, Any] | None = None
    bot_username: str = ""
    #: run by Benchboard itself (the strongest mark; it is verified too)
    benchboard: bool = False


@dataclass(frozen=True, slots=True)
class TableRow:
    """One line of a board image."""

    rank: int
    model: str
    mode: str | None
    score: str
    runs: int
    verified: bool = False
    #: the score's 95 % interval as its half-width (``±14.6``), or ""
    ci95: str = ""
    #: run by Benchboard itself (drawn with its own mark: :data:`BENCHBOARD_GLYPH`)
    benchboard: bool = False


@dataclass(frozen=True, slots=True)
class BoardImageView:
    """A board page as an image: its benchmark, scope (``g`` global, ``c`` a group, ``u``
    the user's; ``chat_title`` names the group), filters and rows. ``target``: a
    challenge target's board."""

    benchmark: Benchmark
    scope: str
    rows: tuple[TableRow, ...]
    date: datetime
    mode: str | None = None
    days: int = 0
    page: int = 0
    pages: int = 1
    chat_title: str | None = None
    target: int | None = None
    key_version: int | None = None
    lang: str = "en"
    theme: str = DEFAULT_THEME
    bot_username: str = ""


@dataclass(frozen=True, slots=True)
class Bar:
    """A stacked bar (a benchmark's ``Card.bar``: correct / wrong / unanswered): each
    part's count, tone (``good``, ``bad``, ``none``) and label, and the points they make
    ("Positive Points: 59 · Negative Points: 30")."""

    counts: tuple[int, ...]
    tones: tuple[str, ...]
    labels: tuple[str, ...]
    points: str = ""


@dataclass(frozen=True, slots=True)
class CardText:
    """Every string a result card shows, in its place."""

    rtl: bool
    benchmark: str
    mark: str
    model: str
    mode: str
    score_label: str
    score: str
    rank: str
    bar: Bar | None
    breakdown: tuple[tuple[str, str], ...]
    lines: tuple[str, ...]
    challenge: str
    footer: str
    credit: str
    handle: str = ""


@dataclass(frozen=True, slots=True)
class BoardText:
    """Every string a board image shows: title, header lines, column labels, cells."""

    rtl: bool
    title: str
    subtitle: str
    columns: tuple[str, ...]
    cells: tuple[tuple[str, ...], ...]
    verified: tuple[bool, ...]
    empty: str
    footer: str
    credit: str
    #: rows run by Benchboard (their mark: :data:`BENCHBOARD_GLYPH`, named in the footer)
    benchboard: tuple[bool, ...] = ()
    handle: str = field(default="")
    #: each row's interval text, drawn small under its score ("" for none)
    intervals: tuple[str, ...] = ()


#: Unicode directional isolates: a left-to-right run (an expression, a score, a hash)
#: or a run of its own first strong direction (a name as typed) inside Persian text
#: keeps its order (matplotlib's layout follows the Unicode bidirectional algorithm).
LRI, FSI, PDI = "\u2066", "\u2068", "\u2069"


def ltr(lang: str, value: str) -> str:
    """``value`` kept left to right inside right-to-left (Persian) text."""
    return f"{LRI}{value}{PDI}" if lang == "fa" and value else value


def isolated(lang: str, value: str) -> str:
    """``value`` (a name as typed, in any script) kept whole inside Persian text."""
    return f"{FSI}{value}{PDI}" if lang == "fa" and value else value


def plain(value: str) -> str:
    """A string without the directional isolates (what a reader sees)."""
    return value.translate({ord(c): None for c in (LRI, FSI, PDI)})


def _persian_letters(value: str) -> bool:
    return any(c.isalpha() and "\u0600" <= c <= "\u06ff" for c in value)


def _prose_line(lang: str, line: str) -> str:
    """A line of a result in prose for the card: in Persian, arithmetic and the value
    after a label kept left to right (``3^(1+1)+(3+1)``, ``+۱۰``, ``۱۰ + ۶ = ۱۶``)."""
    if lang != "fa":
        return line
    if not _persian_letters(line):
        return ltr(lang, line)
    label, sep, value = line.partition(": ")
    if sep and not _persian_letters(value):
        return label + sep + ltr(lang, value)
    return line


def short_hash(sha: str | None) -> str:
    return (sha or "")[:8]


def _date(lang: str, when: datetime) -> str:
    return digits(lang, when.strftime("%Y-%m-%d"))


def result_card_text(view: ResultCardView) -> CardText:
    lang, result, benchmark = view.lang, view.result, view.benchmark
    card = result.card()
    bar: Bar | None = None
    breakdown: tuple[tuple[str, str], ...] = ()
    lines: tuple[str, ...] = ()
    if card.prose:
        shown = prose(lang, benchmark, card.prose)
        lines = tuple(_prose_line(lang, line.strip()) for line in shown)
    elif card.bar is not None:
        parts = card.bar.segments
        points = " · ".join(
            f"{label(lang, p.field)}: {figure_text(lang, shown_value(lang, p, benchmark))}"
            for p in card.bar.points
        )
        bar = Bar(
            counts=tuple(p.size for p in parts),
            tones=tuple(p.tone for p in parts),
            labels=tuple(label(lang, p.field) for p in parts),
            points=points,
        )
    else:
        # figures in the reader's digits, each a left-to-right run (bot.render.bidi)
        breakdown = tuple(
            (label(lang, f.field), figure_text(lang, shown_value("en", f, benchmark)))
            for f in card.figures
        )
    if view.rank is None:
        rank = ""
    elif card.target is not None:
        rank = t(lang, "card_rank_target", rank=view.rank, target=card.target)
    else:
        rank = t(lang, "card_rank", rank=view.rank)
    challenge = ""
    if view.challenge:
        challenge = t(
            lang,
            "card_challenge",
            score=ltr(lang, str(view.challenge.get("score", ""))),
            model=isolated(lang, str(view.challenge.get("model", ""))),
        )
    footer = [ltr(lang, _date(lang, view.date))]
    if view.key_sha:
        footer.insert(0, t(lang, "card_key", hash=ltr(lang, short_hash(view.key_sha))))
    return CardText(
        rtl=lang == "fa",
        benchmark=benchmark.title,
        mark=t(
            lang,
            N_("card_benchboard")
            if view.benchboard
            else N_("card_verified")
            if view.verified
            else N_("card_self_reported"),
        ),
        model=view.model,
        mode=mode_label(view.mode, lang) or "",
        score_label=t(lang, "card_score"),
        score=figure_text(lang, benchmark.format_score(result.primary)),
        rank=rank,
        bar=bar,
        breakdown=breakdown,
        lines=lines,
        challenge=challenge,
        footer=" · ".join(footer),
        credit=benchmark.credit,
        handle=f"@{view.bot_username}" if view.bot_username else "",
    )


#: A board's scope in words (``BoardQuery.scope``).
SCOPES = {"g": N_("scope_global"), "c": N_("scope_chat"), "u": N_("scope_user")}


#: A board image's column labels, in order.
COLUMNS = (
    N_("img_col_rank"),
    N_("img_col_model"),
    N_("img_col_mode"),
    N_("img_col_score"),
    N_("img_col_runs"),
)
#: The last column of a board of attempts (``scoring.base.ATTEMPTS``): what it counts.
ATTEMPTS_COLUMN = N_("img_col_attempts")


def board_image_text(view: BoardImageView) -> BoardText:
    lang = view.lang
    scope = (
        view.chat_title if view.scope == "c" and view.chat_title else t(lang, SCOPES[view.scope])
    )
    title = t(lang, "img_board_title", benchmark=view.benchmark.title, scope=isolated(lang, scope))
    window = tn(lang, "window_days", view.days) if view.days else t(lang, "window_all")
    parts = [
        t(lang, "img_board_mode", mode=mode_label(view.mode, lang) or t(lang, "btn_all_modes")),
        window,
    ]
    if view.target is not None:
        parts.insert(0, f"{field_label(lang, 'target')}: {digits(lang, view.target)}")
    if view.pages > 1:
        parts.append(t(lang, "img_board_page", page=view.page + 1, pages=view.pages))
    parts.append(ltr(lang, _date(lang, view.date)))
    counted = ATTEMPTS_COLUMN if view.benchmark.board_aggregate == ATTEMPTS else COLUMNS[-1]
    columns = tuple(t(lang, key) for key in (*COLUMNS[:-1], counted))
    cells = tuple(
        (
            digits(lang, row.rank),
            row.model,
            mode_label(row.mode, lang) or "",
            figure_text(lang, row.score),
            digits(lang, row.runs),
        )
        for row in view.rows
    )
    footer = t(lang, "board_key_plain", version=view.key_version) if view.key_version else ""
    if any(row.benchboard for row in view.rows):
        legend = t(lang, "board_benchboard_legend", mark=BENCHBOARD_GLYPH)
        footer = f"{footer} · {legend}" if footer else legend
    return BoardText(
        rtl=lang == "fa",
        title=title,
        subtitle=" · ".join(parts),
        columns=columns,
        cells=cells,
        verified=tuple(row.verified for row in view.rows),
        benchboard=tuple(row.benchboard for row in view.rows),
        empty=t(lang, "board_empty"),
        footer=footer,
        credit=view.benchmark.credit,
        handle=f"@{view.bot_username}" if view.bot_username else "",
        intervals=tuple(ltr(lang, row.ci95) if row.ci95 else "" for row in view.rows),
    )


def challenge_line(lang: str, extra: Mapping[str, Any]) -> str | None:
    """The score card's line (HTML) for a result submitted through a challenge (its
    ``extra["challenge"]``), or None."""
    found = extra.get("challenge")
    if not isinstance(found, Mapping):
        return None
    return t(
        lang,
        "card_challenge",
        # a left-to-right run in Persian (``+24`` is not ``24+``), the name kept whole
        score=figure_text(lang, html.escape(str(found.get("score", "")))),
        model=isolated(lang, html.escape(str(found.get("model", "")))),
    )


def card_strings(text: CardText | BoardText) -> Sequence[str]:
    """Every non-empty string of a card or board text (for tests and alt texts)."""
    if isinstance(text, BoardText):
        found = [text.title, text.subtitle, *text.columns, text.footer, text.credit]
        found += [shown for shown in text.intervals if shown]
        found += [cell for row in text.cells for cell in row]
        return [s for s in found if s]
    found = [text.benchmark, text.mark, text.model, text.mode, text.score, text.rank]
    found += [text.challenge, text.footer, text.credit, *text.lines]
    found += [x for pair in text.breakdown for x in pair]
    return [s for s in found if s]

"""Pure rendering: leaderboard pages, a user's history and the challenge boards to text
(Telegram HTML, everything from a user or a model escaped). No Telegram objects, no I/O.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from scoring import Benchmark

from .bidi import figure_text
from .format import MESSAGE_LIMIT, fits, mode_label, shorten
from .i18n import N_, digits, join_list, t, tn
from .views import BoardPage, History

if TYPE_CHECKING:
    from storage.analytics import ChallengeBoard


def _figure(value: float) -> str:
    """A reported figure: a signed whole number (never in e-notation), or three digits."""
    return f"{int(value):+d}" if value == int(value) else f"{value:.3g}"


#: How long a model name may be in a board or history row, tried in turn until it fits.
_NAME_WIDTHS = (100, 48, 24, 12)


def _fitted(build: Callable[[int], list[str]]) -> str:
    """Render with ever shorter model names until the text fits in one message.

    Never cuts the HTML itself (a cut could split a tag or an entity, and would lose the
    footer with the credit line).
    """
    for width in _NAME_WIDTHS:
        text = "\n".join(build(width))
        if fits(text):
            return text
    return text[:MESSAGE_LIMIT]  # unreachable for pages of ten rows


def _name(model: str, width: int) -> str:
    return html.escape(shorten(model, width))


#: A board's scope (``bot.core.boards.BoardQuery.scope``) in words.
_SCOPES = {"g": N_("scope_global"), "c": N_("scope_chat"), "u": N_("scope_user")}


def render_board(page: BoardPage, *, lang: str) -> str:
    """A board page: the ranked rows (each with the result its authors reported for the
    same model and mode, if any, and the columns its benchmark adds after the score),
    then the reported results no row has, the key version and the credit."""
    board, benchmark, query = page.board, page.benchmark, page.query
    scope = t(lang, _SCOPES[query.scope])
    days = query.days or None

    def build(width: int) -> list[str]:
        out = [t(lang, "board_title", benchmark=html.escape(benchmark.title), scope=scope)]
        window = tn(lang, "window_days", days) if days else t(lang, "window_all")
        mode = mode_label(query.mode, lang) or t(lang, "btn_all_modes")
        out.append(t(lang, "board_filters", mode=mode, window=window))
        out.append("")
        if not board.rows:
            out.append(t(lang, "board_empty"))
        for position, row in enumerate(board.rows):
            out.append(
                tn(
                    lang,
                    "board_row",
                    row.runs,
                    rank=row.rank,
                    model=_name(row.model, width),
                    mode=mode_label(row.mode, lang),
                    best=figure_text(lang, benchmark.format_score(row.best)),
                    mean=figure_text(lang, benchmark.format_score(row.mean, mean=True)),
                    verified=" 🤖" if row.benchboard else " ✅" if row.verified else "",
                )
            )
            reported = page.reported.get(position)
            if reported is not None:
                beside = figure_text(lang, _figure(reported.best))
                out[-1] += t(lang, "board_reported_beside", best=beside)
            record = page.records.get(row.submission_id) if row.submission_id is not None else None
            if record is not None:
                out[-1] += board_cells_text(benchmark, record)
        if page.pages > 1:
            out.append(t(lang, "board_page", page=query.page + 1, pages=page.pages))
        if page.apart and query.page == 0:  # once, on the first page
            out.append("")
            out.append(t(lang, "board_references"))
            for ref in page.apart:
                out.append(
                    t(
                        lang,
                        "board_reference_row",
                        model=_name(ref.model, width),
                        mode=mode_label(ref.mode, lang),
                        best=figure_text(lang, benchmark.format_score(ref.best)),
                    )
                )
        if board.key_version is not None:
            out.append("")
            out.append(t(lang, "board_key", version=board.key_version))
            if board.rescoring:
                out.append(t(lang, "board_rescoring", version=board.key_version))
        if benchmark.credit:
            out.append(html.escape(benchmark.credit))
        return out

    return _fitted(build)


def render_history(
    history: History,
    *,
    lang: str,
    benchmarks: Mapping[str, Benchmark],
) -> str:
    """``/me``: a page of the user's submissions with their count, then (page 1) the
    user's bests on each benchmark's board; scores as each benchmark writes
    them (``format_score``), in the reader's digits like the card. ``benchmarks``: the
    benchmarks by name (a stored name not among them is shown as stored)."""
    if not history.submissions:
        return t(lang, "me_empty")

    def build(width: int) -> list[str]:
        out = [tn(lang, "me_title_count", history.total)]
        for sub in history.submissions:
            out.append(
                t(
                    lang,
                    "me_row",
                    id=sub.id,
                    benchmark=html.escape(_title(benchmarks, sub.benchmark)),
                    model=_name(sub.model or "—", width),
                    mode=mode_label(sub.mode, lang) or "—",
                    score=figure_text(lang, _score(benchmarks.get(sub.benchmark), sub.score)),
                    state=t(lang, "state_held")
                    if sub.id in history.held
                    else t(lang, f"state_{sub.visibility.value}"),
                    date=digits(lang, sub.created_at.strftime("%Y-%m-%d")),
                )
            )
        if history.pages > 1:
            out.append(t(lang, "board_page", page=history.page + 1, pages=history.pages))
        if history.bests:
            out += ["", t(lang, "me_bests")]
            out += [
                f"{html.escape(_title(benchmarks, name))} {digits(lang, row.rank)}. "
                f"{_name(row.model, width)} · {mode_label(row.mode, lang)} · "
                f"{figure_text(lang, _score(benchmarks.get(name), row.best))}"
                for name, row in history.bests
            ]
        return out

    return _fitted(build)


def _title(benchmarks: Mapping[str, Benchmark], name: str) -> str:
    found = benchmarks.get(name)
    return name if found is None else found.title


def _score(benchmark: Benchmark | None, value: float) -> str:
    """A score as its benchmark writes it; as a plain figure when it is unknown."""
    return _figure(value) if benchmark is None else benchmark.format_score(value)


# --- board columns, challenge boards ------------------------------------------------------


def board_cells_text(benchmark: Benchmark, record: Mapping[str, object]) -> str:
    """What a board row adds after its score: the benchmark's board columns
    (``Benchmark.board_cells``), from the best submission's record; empty when there are
    none."""
    return "".join(f" · {label} {value}" for label, value in benchmark.board_cells(record))


def format_cost(usd: float | None) -> str:
    """Mean cost per attempt: ``$0.012`` (three significant digits), ``—`` when unknown."""
    return "—" if usd is None else f"${usd:.3g}"


def format_latency(seconds: float | None) -> str:
    """Mean latency per attempt, always in seconds (``3.2s``, ``0.4s``, ``0.045s``), so
    the figures of one board compare at a glance; ``—`` when unknown."""
    if seconds is None:
        return "—"
    return f"{seconds:.2g}s" if seconds < 1 else f"{seconds:.3g}s"


def target_line(command: str, target: int) -> str:
    """The last line of a challenge's message: what a reply to it is scored against."""
    return f"#{command} target: {target}"


def render_challenge(
    lang: str, *, command: str, title: str, target: int, allowed: str, digits: str, day: str
) -> str:
    """``/<command>``: the day's target, what an answer may use and how to answer. The
    last line (:func:`target_line`) is what a reply to this message is scored against."""
    named = {"title": html.escape(title), "command": command}
    return "\n".join(
        [
            t(lang, "daily_title", day=day, **named),
            "",
            t(lang, "daily_target", target=target),
            t(lang, "daily_allowed", allowed=html.escape(allowed), digits=html.escape(digits)),
            "",
            t(lang, "daily_how", **named),
            "",
            f"<code>{target_line(command, target)}</code>",
        ]
    )


#: How a board line shows its mark (self-reported: nothing).
MARKS = {"benchboard": " 🤖", "verified": " ✅"}


def render_challenge_board(
    benchmark: Benchmark,
    command: str,
    board: ChallengeBoard,
    *,
    lang: str,
    targets: Sequence[tuple[int, int]] = (),
    marks: Mapping[int, str] | None = None,
    sponsors: Sequence[tuple[str, str | None]] = (),
) -> str:
    """A challenge board: one target's, ranked by best score, or every target's per
    model, ranked by mean score, with mean cost and latency per attempt. ``marks``: the
    mark of a row's best attempt by its id (🤖 run by Benchboard, ✅ verified);
    ``sponsors``: who sponsored the target's runs (name, link or None)."""
    named = {"title": html.escape(benchmark.title), "command": command}

    def build(width: int) -> list[str]:
        if board.target is not None:
            out = [t(lang, "daily_board_title", target=board.target, **named)]
        else:
            out = [t(lang, "daily_models_title", **named)]
        out.append("")
        if not board.rows:
            out.append(t(lang, "board_empty"))
        for row in board.rows:
            values = {
                "rank": row.rank,
                "model": _name(row.model, width),
                "mode": mode_label(row.mode, lang),
                "best": figure_text(lang, benchmark.format_score(row.best))
                + (t(lang, "daily_trivial_mark") if row.trivial else ""),
                "mean": figure_text(lang, benchmark.format_score(row.mean, mean=True)),
                "attempts": tn(lang, "daily_attempts", row.attempts),
                "targets": tn(lang, "daily_targets", row.targets),
                "cost": figure_text(lang, format_cost(row.mean_cost)),
                "latency": figure_text(lang, format_latency(row.mean_latency)),
            }
            key = N_("daily_board_row") if board.target is not None else N_("daily_models_row")
            out.append(t(lang, key, **values) + MARKS.get((marks or {}).get(row.best_id, ""), ""))
            if board.target is not None and row.best_expression:
                out.append(f"   <code>{html.escape(shorten(row.best_expression, 80))}</code>")
        if board.target is None and targets:
            out += ["", t(lang, "daily_recent_targets", targets=join_list(lang, (
                f"{target} ({digits(lang, count)})" for target, count in targets)))]  # fmt: skip
        if sponsors:
            names = join_list(lang, (
                f'<a href="{html.escape(link)}">{html.escape(name)}</a>' if link
                else html.escape(name)
                for name, link in sponsors
            ))  # fmt: skip
            out += ["", t(lang, "sponsored_by", names=names)]
        out += ["", t(lang, "daily_board_footer", **named)]
        return out

    return _fitted(build)

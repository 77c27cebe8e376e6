"""Requests in, pages out: strict parsing of the query string, the language, and the
templates (Jinja2, autoescaped) with the gettext catalogues; the CSV and JSON forms of a
board (their OpenAPI description: :mod:`bot.web.openapi`). Pure: no I/O here."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jinja2
import jinja2.runtime
from markupsafe import Markup

from scoring import Benchmark, Mode, registry
from scoring.base import CHART_FRONT

from ..core import webboards
from ..core.questions import SORTS, QuestionStats
from ..render.bidi import FSI, PDI, figure, figure_html, figure_text
from ..render.csvboards import board_csv as board_csv
from ..render.csvboards import row_json
from ..render.fields import label, note_text, shown_value
from ..render.format import hint_text, mode_label
from ..render.i18n import LANGUAGES, N_, digits, t
from ..render.svgchart import render_intervals, render_svg
from ..render.webviews import WebBoard, WebQuery, WebResult

TEMPLATES = Path(__file__).with_name("templates")
STATIC = Path(__file__).with_name("static")


@functools.cache
def asset(name: str) -> str:
    """A stylesheet's or script's address with its content's digest (``?v=``, read once
    per process): a browser may keep it for good, and takes the new one after a deploy
    without waiting for its copy to go stale."""
    digest = hashlib.blake2b((STATIC / name).read_bytes(), digest_size=6).hexdigest()
    return f"/static/{name}?v={digest}"


WINDOW_PARAMS = {"all": 0, "7d": 7, "30d": 30}
#: Rows per page of a web board.
PER_PAGE = 25
#: Query parameters a board takes.
BOARD_PARAMS = frozenset(
    {"mode", "window", "verified", "mark", "page", "sort", "order", "per", "lang", "q", "provider"}
)
#: The longest search (``?q=``) taken, in characters.
SEARCH_MAX = 100
#: The marks a board may be narrowed to (``?mark=``): runs by Benchboard are verified too.
MARK_FILTERS = ("verified", "benchboard")
#: The longest ``?provider=`` a board takes (as ``provider:`` tags are kept).
MAX_PROVIDER = 64


class BadRequest(Exception):
    """A query the pages refuse (answered 400)."""


#: Ids the templates use (listed for extraction: templates are not scanned).
TEMPLATE_IDS = (
    N_("web_title"),
    N_("web_tagline"),
    N_("web_benchmarks"),
    N_("web_open_board"),
    N_("web_no_rows"),
    N_("web_rows_total"),
    N_("web_filters"),
    N_("web_mode"),
    N_("web_all_modes"),
    N_("web_window"),
    N_("web_window_all"),
    N_("web_window_7"),
    N_("web_window_30"),
    N_("web_verified_only"),
    N_("web_apply"),
    N_("web_col_rank"),
    N_("web_col_model"),
    N_("web_col_mode"),
    N_("web_col_mark"),
    N_("web_col_by"),
    N_("web_col_key"),
    N_("web_col_first"),
    N_("web_col_last"),
    N_("web_mark_verified"),
    N_("web_mark_benchboard"),
    N_("web_benchboard_only"),
    N_("web_mark_self"),
    N_("web_mark_reported"),
    N_("web_anonymous"),
    N_("web_prev"),
    N_("web_next"),
    N_("web_page_of"),
    N_("web_download"),
    N_("web_reported_title"),
    N_("web_chart_title"),
    N_("web_chart_cost"),
    N_("web_chart_score"),
    N_("web_chart_front"),
    N_("web_sorted_span"),
    N_("web_rescoring"),
    N_("web_key"),
    N_("web_result_title"),
    N_("web_breakdown"),
    N_("web_invalid_lines"),
    N_("web_invalid_more"),
    N_("web_hints"),
    N_("web_scorer"),
    N_("web_submitted"),
    N_("web_published"),
    N_("web_from_group"),
    N_("web_from_private"),
    N_("web_open_in_bot"),
    N_("web_by"),
    N_("web_group_board"),
    N_("web_language"),
    N_("web_credit"),
    N_("web_license"),
    N_("web_api"),
    N_("web_error_title"),
    N_("web_unavailable"),
    N_("web_home"),
    N_("web_app_title"),
    N_("web_my_results"),
    N_("web_my_none"),
    N_("web_signin_refused"),
    N_("web_state"),
    N_("web_bad_request"),
    N_("web_about"),
    N_("web_about_measures"),
    N_("web_about_rule"),
    N_("web_about_prompt"),
    N_("web_about_credit"),
    N_("web_about_source"),
    N_("web_search"),
    N_("web_search_placeholder"),
    N_("web_search_none"),
    N_("web_search_span"),
    N_("web_search_clear"),
    N_("web_chart_scores"),
    N_("web_chart_interval"),
    N_("web_chart_cost_log"),
    N_("web_what"),
    N_("web_how"),
    N_("web_open_bot"),
    N_("web_footer"),
    N_("web_og_board"),
    N_("web_og_result"),
    N_("web_leaders"),
    N_("web_questions"),
    N_("web_questions_title"),
    N_("web_questions_intro"),
    N_("web_questions_sample"),
    N_("web_questions_none_yet"),
    N_("web_questions_no_key"),
    N_("web_q_question"),
    N_("web_q_right"),
    N_("web_q_wrong"),
    N_("web_q_none"),
    N_("web_q_bar"),
    N_("web_tg_open"),
    N_("web_tg_share"),
    N_("web_tg_share_failed"),
    N_("web_provider"),
    N_("web_tied"),
    N_("web_tied_title"),
    N_("web_ci_title"),
    N_("web_provenance"),
    N_("web_provenance_note"),
    N_("web_prov_provider"),
    N_("web_prov_temperature"),
    N_("web_prov_seed"),
    N_("web_prov_reasoning"),
    N_("web_prov_run_date"),
    N_("web_prov_log"),
    N_("web_signed_json"),
    N_("web_signing_key"),
)


def language(query: Mapping[str, str], accept: str | None) -> tuple[str, bool]:
    """The page's language and whether the address chose it: ``?lang=`` (en or fa),
    else the first of ``Accept-Language`` we speak (by its q value), else English."""
    chosen = query.get("lang")
    if chosen is not None:
        if chosen not in LANGUAGES:
            raise BadRequest("lang")
        return chosen, True
    best, best_q = "en", -1.0
    for i, part in enumerate((accept or "")[:500].split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        code = tag.split("-")[0].strip().lower()
        if code in LANGUAGES and q - i * 1e-6 > best_q:
            best, best_q = code, q - i * 1e-6
    return best, False


def _count(text: str, top: int) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 6 or int(text) > top:
        raise BadRequest("number")
    return int(text)


def board_query(benchmark: str, query: Mapping[str, str]) -> WebQuery:
    """A board view from the query string; anything unknown or out of range is refused."""
    unknown = set(query) - BOARD_PARAMS
    if unknown:
        raise BadRequest("unknown parameter")
    mode = query.get("mode", "") or None
    if mode == "all":
        mode = None
    if mode is not None and mode not in {m.value for m in Mode}:
        raise BadRequest("mode")
    window = query.get("window", "all") or "all"
    if window not in WINDOW_PARAMS:
        raise BadRequest("window")
    verified = query.get("verified", "")
    if verified not in ("", "0", "1", "on"):
        raise BadRequest("verified")
    mark = query.get("mark", "") or ""
    if mark and mark not in MARK_FILTERS:
        raise BadRequest("mark")
    if mark == "verified":
        verified, mark = "1", ""
    page = _count(query.get("page", "1") or "1", webboards.MAX_PAGE + 1)
    if page < 1:
        raise BadRequest("page")
    per = _count(query.get("per", str(PER_PAGE)) or str(PER_PAGE), webboards.MAX_PER)
    if per < 1:
        raise BadRequest("per")
    order = query.get("order", "") or ""
    if order not in ("", "asc", "desc"):
        raise BadRequest("order")
    sort = query.get("sort", "rank") or "rank"
    search = " ".join(query.get("q", "").split())
    if len(search) > SEARCH_MAX or not search.isprintable():
        raise BadRequest("q")
    provider = " ".join(query.get("provider", "").split()) or None
    if provider is not None and (len(provider) > MAX_PROVIDER or not provider.isprintable()):
        raise BadRequest("provider")
    return WebQuery(
        benchmark=benchmark,
        mode=mode,
        days=WINDOW_PARAMS[window],
        verified=verified in ("1", "on"),
        mark=mark,
        page=page - 1,
        sort=sort,
        descending=order == "desc" or (order == "" and sort not in ("rank", "model", "mode")),
        per=per,
        search=search,
        provider=provider,
    )


def board_params(q: WebQuery, lang: str | None, /, **changes: Any) -> str:
    """The query string of a board view (only what differs from the defaults)."""
    values: dict[str, Any] = {
        "mode": q.mode,
        "window": next(k for k, v in WINDOW_PARAMS.items() if v == q.days),
        "verified": "1" if q.verified else None,
        "mark": q.mark or None,
        "sort": q.sort,
        "order": "desc" if q.descending else "asc",
        "page": q.page + 1,
        "per": q.per,
        "q": q.search or None,
        "lang": lang,
        "provider": q.provider,
    }
    values.update(changes)
    defaults = {"window": "all", "sort": "rank", "page": 1, "per": PER_PAGE}
    if values["sort"] == "rank":
        values["order"] = None
    shown = {k: v for k, v in values.items() if v is not None and defaults.get(k) != v}
    return ("?" + urlencode(shown)) if shown else ""


@jinja2.pass_context
def _num(context: jinja2.runtime.Context, value: object) -> Markup:
    """``{{ value | num }}``: a figure (a rank, a count, a score, ``+25``, a percentage,
    an interval) as a left-to-right isolate in the page's digits (``bot.render.bidi``)."""
    return Markup(figure_html(context["lang"], value))


@jinja2.pass_context
def _date(context: jinja2.runtime.Context, value: datetime | None) -> Markup | str:
    """``{{ when | date }}``: the day, a figure like any other."""
    return "" if value is None else _num(context, value.strftime("%Y-%m-%d"))


@jinja2.pass_context
def _moment(context: jinja2.runtime.Context, value: datetime | None) -> Markup | str:
    """``{{ when | moment }}``: the day and the minute (UTC)."""
    return "" if value is None else _num(context, value.strftime("%Y-%m-%d %H:%M"))


@functools.cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["date"] = _date
    env.filters["moment"] = _moment
    env.filters["num"] = _num
    return env


def render(name: str, lang: str, lang_chosen: bool, **values: Any) -> str:
    """A template in ``lang``; links keep ``?lang=`` when the address chose it."""

    def tr(key: str, **fields: Any) -> str:
        return t(lang, key, **fields)

    def with_lang(path: str) -> str:
        if not lang_chosen:
            return path
        return path + ("&" if "?" in path else "?") + "lang=" + lang

    def switch(code: str) -> str:
        here = str(values.get("here", "/"))
        base = here.split("?")[0]
        rest = [p for p in here.partition("?")[2].split("&") if p and not p.startswith("lang=")]
        return base + "?" + "&".join([*rest, f"lang={code}"])

    values.setdefault("meta", None)
    values.setdefault("bot_home", None)
    page: str = (
        environment()
        .get_template(name)
        .render(
            _=tr,
            lang=lang,
            lang_chosen=lang_chosen,
            dir="rtl" if lang == "fa" else "ltr",
            link=with_lang,
            switch=switch,
            digits=lambda v: digits(lang, v),
            mode_label=lambda v: mode_label(v, lang) or v,
            # what someone typed, put into a sentence: kept in its own direction
            isolate=lambda v: f"{FSI}{v}{PDI}",
            asset=asset,
            benchmarks=registry.all_benchmarks(),
            **values,
        )
    )
    return page


#: The columns every board has, by the end of their heading's message id.
_COMMON_LABELS = ("rank", "model", "mode", "mark", "by", "key", "first", "last")


@dataclass(frozen=True, slots=True)
class Meta:
    """A page's link preview (OpenGraph and Twitter card): its title, description,
    address and image (absolute URLs) and the image's size."""

    title: str
    description: str
    url: str
    image: str
    width: int
    height: int
    card: str = "summary_large_image"


#: The size of ``static/og.png``, the preview of the pages without an image of their own.
OG_IMAGE_SIZE = (1200, 630)


@dataclass(frozen=True, slots=True)
class AboutBlock:
    """A board's "about this benchmark" block, in the reader's language."""

    measures: str
    rule: str
    prompt: str
    author: str
    author_url: str
    license: str
    license_url: str
    credit: str
    links: tuple[tuple[str, str], ...]


def about(benchmark: Benchmark, lang: str) -> AboutBlock:
    """What a board says about its benchmark, from the Benchmark interface."""
    found = benchmark.about()
    credit = benchmark.credit
    if benchmark.author and benchmark.author in credit:
        credit = ""  # the credit line says no more than the author and license shown
    license_ = benchmark.license if benchmark.license not in credit else ""
    return AboutBlock(
        measures=note_text(lang, benchmark, found.measures, str),
        rule=note_text(lang, benchmark, found.rule, str),
        prompt=benchmark.prompt,
        author=benchmark.author,
        author_url=benchmark.author_url,
        license=license_,
        license_url=benchmark.license_url,
        credit=credit,
        links=tuple((t(lang, key), url) for key, url in found.links),
    )


def board_meta(
    board: WebBoard, lang: str, *, url: str, image: str, size: tuple[int, int] = (1080, 0)
) -> Meta:
    """A board's preview: its title, its leaders in the description (and the benchmark's
    credit with them), its image (a board's image is 1080 px wide, its height that of its
    lines: 0, not said)."""
    leaders = "; ".join(
        f"{figure_text(lang, r.rank or '—')}. {r.model} ({mode_label(r.mode, lang) or r.mode}) "
        f"{figure_text(lang, r.cells.get(board.columns[0].key, '—')) if board.columns else ''}"
        for r in board.rows[:3]
    )
    description = t(lang, "web_og_board", benchmark=board.title, n=board.total)
    if leaders:
        # scores quoted in a preview carry the benchmark's credit, as on the page
        description += " " + leaders + (f" · {board.credit}" if board.credit else "")
    return Meta(f"{board.title} · {t(lang, 'web_title')}", description, url, image, *size)


def result_meta(found: WebResult, lang: str, *, url: str, image: str) -> Meta:
    """A result's preview: model, mode, score and benchmark (and its credit); its card
    as the image."""
    description = t(
        lang,
        "web_og_result",
        model=found.model,
        mode=mode_label(found.mode, lang) or found.mode,
        score=figure_text(lang, found.score),
        benchmark=found.title,
    )
    if found.credit:  # the score quoted with its benchmark's credit, as on the page
        description += f" {found.credit}"
    title = f"{found.model} · {found.title} {figure_text(lang, found.score)}"
    return Meta(title, description, url, image, 1080, 1350)


def board_page(
    board: WebBoard,
    lang: str,
    lang_chosen: bool,
    *,
    here: str,
    base: str,
    csv_ok: bool = True,
    meta: Meta | None = None,
    bot_home: str | None = None,
) -> str:
    q = board.query

    def view(**changes: Any) -> str:
        return base + board_params(q, lang if lang_chosen else None, **changes)

    def sort_link(key: str) -> str:
        if q.sort == key:
            return view(sort=key, order="asc" if q.descending else "desc", page=1)
        numeric = key not in ("model", "mode", "rank")
        return view(sort=key, order="desc" if numeric else "asc", page=1)

    benchmark = registry.get(q.benchmark)
    chart = ""

    def named(label: str, mode: str) -> str:  # a model line: its name and its mode's
        return f"{label} · {mode_label(mode, lang) or mode}" if mode else label

    if board.chart_kind == CHART_FRONT and board.chart:
        chart = render_svg(
            [replace(p, label=named(p.label, p.mode)) for p in board.chart],
            cost_label=t(lang, "web_chart_cost"),
            score_label=t(lang, "web_chart_score"),
            log_cost_label=t(lang, "web_chart_cost_log"),
            lang=lang,
        )
    elif board.chart_kind != CHART_FRONT and board.intervals:
        chart = render_intervals(
            [
                replace(p, label=named(p.label, p.mode), text=figure(lang, p.text))
                for p in board.intervals
            ],
            fmt=lambda value: figure(lang, benchmark.format_score(value)),
            label=t(lang, "web_chart_scores", benchmark=board.title),
        )
    # each cell's label (a phone shows it beside the value), looked up once per page
    labels = {key: t(lang, f"web_col_{key}") for key in _COMMON_LABELS}
    labels.update((c.key, t(lang, c.label)) for c in board.columns)
    return render(
        "board.html",
        lang,
        lang_chosen,
        labels=labels,
        about=about(benchmark, lang),
        meta=meta,
        bot_home=bot_home,
        board=board,
        q=q,
        here=here,
        base=base,
        view=view,
        sort_link=sort_link,
        chart=chart,
        modes=[m.value for m in Mode],
        csv_ok=csv_ok,
        exports=board_params(q, None),
        questions_link=f"{base}/questions" if csv_ok and board.has_questions else None,
    )


#: Query parameters the questions page takes.
QUESTIONS_PARAMS = frozenset({"sort", "order", "page", "lang"})
#: Questions a page of them shows: a benchmark defined by data may have 100,000, whose
#: one page was 65 MB of HTML and held every other page of the process for seconds.
QUESTIONS_PER_PAGE = 500


def questions_query(query: Mapping[str, str]) -> tuple[str, bool, int]:
    """The questions page's sort column and direction, and its page (from 0); anything
    else is refused."""
    if set(query) - QUESTIONS_PARAMS:
        raise BadRequest("unknown parameter")
    sort = query.get("sort", "question") or "question"
    if sort not in SORTS:
        raise BadRequest("sort")
    order = query.get("order", "") or ""
    if order not in ("", "asc", "desc"):
        raise BadRequest("order")
    page = _count(query.get("page", "1") or "1", 999_999)
    if page < 1:
        raise BadRequest("page")
    # the first click on a share shows the most first; questions in their order
    return sort, order == "desc" or (order == "" and sort != "question"), page - 1


def questions_page(
    stats: QuestionStats,
    lang: str,
    lang_chosen: bool,
    *,
    here: str,
    sort: str,
    descending: bool,
    page: int = 0,
) -> str:
    """A page of the questions (:data:`QUESTIONS_PER_PAGE`); one past the last is
    refused (BadRequest)."""
    base = f"/b/{stats.benchmark}/questions"
    pages = max(1, -(-len(stats.questions) // QUESTIONS_PER_PAGE))
    if page >= pages:
        raise BadRequest("page")

    def sort_link(key: str) -> str:
        params: dict[str, str] = {}
        if key == sort:
            params = {"sort": key, "order": "asc" if descending else "desc"}
        elif key != "question":
            params = {"sort": key}
        if lang_chosen:
            params["lang"] = lang
        return base + ("?" + urlencode(params) if params else "")

    def page_link(number: int) -> str:
        params = {"sort": sort, "order": "desc" if descending else "asc", "page": str(number)}
        if lang_chosen:
            params["lang"] = lang
        return base + "?" + urlencode(params)

    def percent(share: float) -> str:
        return f"{share:.1%}"

    start = page * QUESTIONS_PER_PAGE
    return render(
        "questions.html",
        lang,
        lang_chosen,
        stats=stats,
        rows=stats.sorted(sort, descending)[start : start + QUESTIONS_PER_PAGE],
        sort=sort,
        descending=descending,
        sort_link=sort_link,
        page=page,
        pages=pages,
        page_link=page_link,
        percent=percent,
        here=here,
    )


def result_page(
    found: WebResult,
    lang: str,
    lang_chosen: bool,
    *,
    here: str,
    meta: Meta | None = None,
    bot_home: str | None = None,
) -> str:
    # values as written in every language (the page shows them left to right)
    fields = [(label(lang, s.field), shown_value("en", s, found.declared)) for s in found.fields]
    hints = [hint_text(lang, h, benchmark=found.declared) for h in found.hints]
    return render(
        "result.html",
        lang,
        lang_chosen,
        r=found,
        fields=fields,
        hints=hints,
        here=here,
        meta=meta,
        bot_home=bot_home,
        card=f"/r/{found.token}/card.png" + (f"?lang={lang}" if lang != "en" else ""),
    )


# --- CSV and JSON ---------------------------------------------------------------------


def board_json(board: WebBoard) -> str:
    q = board.query
    data = {
        "benchmark": q.benchmark,
        "title": board.title,
        "credit": board.credit,
        "filters": {
            "mode": q.mode,
            "window": next(k for k, v in WINDOW_PARAMS.items() if v == q.days),
            "verified": q.verified,
            "mark": q.mark or None,
            "sort": q.sort,
            "order": "desc" if q.descending else "asc",
            "q": q.search or None,
            "provider": q.provider,
        },
        "page": q.page + 1,
        "per": q.per,
        "pages": board.pages,
        "total": board.total,
        "key_version": board.key_version,
        "key": board.key_hash,
        "rows": [row_json(r, "en") for r in board.rows],
        "reported": [row_json(r, "en") for r in board.reported],
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

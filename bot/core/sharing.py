"""Sharing use cases: a published result's card, board images, the card theme, the
file ids of uploaded images, inline results and challenges.

Images are drawn in the render thread (:class:`bot.core.render_pool.RenderPool`),
never on the event loop. An uploaded image is cached by a digest of what it shows
(:func:`card_key`): the same card is uploaded once and then sent by its ``file_id``;
a card whose rank, score, mark, theme or language changed is a new image.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from scoring import Benchmark, UnknownBenchmark, registry
from storage import Submission, Visibility

from ..render.card_views import BoardImageView, ResultCardView, TableRow
from ..render.views import BoardPage
from . import challenges, links
from .errors import UserError
from .links import shareable
from .services import Services

#: ``Submission.extra``'s entry naming the challenge a result answered.
CHALLENGE = "challenge"
#: Results listed per inline answer (Telegram takes at most 50).
INLINE_PAGE = 10
#: Rows of the inline "top" board image.
TOP_ROWS = 5
#: The inline query's first word that asks for that image (``@bot top [benchmark]``):
#: no benchmark may be named so (``bot.core.benchmarks.INLINE_WORDS`` holds it).
TOP_WORD = "top"


# --- theme ------------------------------------------------------------------------------


async def theme(services: Services, user_id: int) -> str:
    return await services.store.card_theme(user_id)


async def set_theme(services: Services, user_id: int, value: str) -> str:
    value = value.strip().lower()
    if value not in ("light", "dark"):
        raise UserError("theme_usage")
    await services.store.set_card_theme(user_id, value)
    return value


# --- result cards -----------------------------------------------------------------------


async def card_view(
    services: Services, sub: Submission, *, lang: str, theme_: str | None = None
) -> ResultCardView:
    """What the card of a published result shows, now (its rank at this moment)."""
    if not shareable(sub):
        raise UserError("not_shareable", id=sub.id)
    store = services.store
    benchmark = registry.get(sub.benchmark)
    challenge = sub.extra.get(CHALLENGE)
    return ResultCardView(
        benchmark=benchmark,
        result=benchmark.result_from_record(sub.record),
        model=sub.model or "",
        mode=sub.mode,
        rank=await store.global_rank(
            sub, challenges.fields(benchmark) if benchmark.challenge else None
        ),
        verified=sub.verified,
        benchboard=sub.origin == "benchboard",
        key_sha=await store.key_sha256(sub.key_version_id),
        date=sub.published_at or sub.created_at,
        lang=lang,
        theme=theme_ or await store.card_theme(sub.user_id),
        challenge=challenge if isinstance(challenge, Mapping) else None,
        bot_username=services.bot_username,
    )


def card_key(view: ResultCardView, submission_id: int) -> str:
    """The cache key of a card image: a digest of everything it shows."""
    shown = [
        "card",
        submission_id,
        view.result.fingerprint,
        view.result.primary,
        view.model,
        view.mode,
        view.rank,
        view.verified,
        view.benchboard,
        view.key_sha,
        view.date.date().isoformat(),
        view.lang,
        view.theme,
        dict(view.challenge or {}),
        view.bot_username,
    ]
    return hashlib.sha256(json.dumps(shown, default=str).encode()).hexdigest()[:40]


def _draw_card(view: ResultCardView) -> bytes:
    from ..render.cards import render_result_card  # matplotlib: in the render thread

    return render_result_card(view)


def _draw_board(view: BoardImageView) -> bytes:
    from ..render.cards import render_board_image

    return render_board_image(view)


async def card_png(services: Services, view: ResultCardView) -> bytes:
    """The card as PNG bytes, drawn in the render thread."""
    return await services.render.run(_draw_card, view)


async def board_png(services: Services, view: BoardImageView) -> bytes:
    return await services.render.run(_draw_board, view)


@dataclass(frozen=True, slots=True)
class Image:
    """An image to send: its cache key, and the ``file_id`` of its upload when it was
    uploaded before (else None: draw it with :func:`draw` and upload it)."""

    key: str
    file_id: str | None
    view: ResultCardView | BoardImageView


async def result_card(
    services: Services, sub: Submission, *, lang: str, theme_: str | None = None
) -> Image:
    view = await card_view(services, sub, lang=lang, theme_=theme_)
    key = card_key(view, sub.id)
    return Image(key, await services.store.card_file(key), view)


async def draw(services: Services, image: Image) -> bytes:
    if isinstance(image.view, ResultCardView):
        return await card_png(services, image.view)
    return await board_png(services, image.view)


async def uploaded(services: Services, image: Image, file_id: str) -> None:
    """Remember the ``file_id`` Telegram gave an uploaded image."""
    await services.store.save_card_file(image.key, file_id)


async def refused(services: Services, image: Image) -> Image:
    """Telegram refused the image's cached ``file_id`` (the database moved to another
    bot, the file expired): it is forgotten, and the image is to be drawn and uploaded."""
    if image.file_id is not None:
        await services.store.forget_card_file(image.key, image.file_id)
    return Image(image.key, None, image.view)


# --- board images -----------------------------------------------------------------------


def interval_half(benchmark: Benchmark, ci95: tuple[float, float] | None) -> str:
    """A 95 % interval as a board image writes it: ``±`` its half-width in the
    benchmark's way of writing a score (``±14.6``, ``±3.2%``); "" for none."""
    if ci95 is None:
        return ""
    return "±" + benchmark.format_score((ci95[1] - ci95[0]) / 2, mean=True)


def board_view(
    page: BoardPage,
    *,
    lang: str,
    theme_: str,
    chat_title: str | None = None,
    bot_username: str = "",
    now: datetime | None = None,
) -> BoardImageView:
    """A board page (``bot.core.boards.page``) as an image's view."""
    benchmark, query = page.benchmark, page.query
    rows = tuple(
        TableRow(
            rank=row.rank,
            model=row.model,
            mode=row.mode,
            score=benchmark.format_score(row.best),
            runs=row.runs,
            verified=row.verified,
            ci95=interval_half(benchmark, page.intervals.get(row.submission_id or 0)),
            benchboard=row.benchboard,
        )
        for row in page.board.rows
    )
    return BoardImageView(
        benchmark=benchmark,
        scope=query.scope,
        rows=rows,
        date=now or datetime.now(UTC),
        mode=query.mode,
        days=query.days,
        page=query.page,
        pages=page.pages,
        chat_title=chat_title,
        key_version=page.board.key_version,
        lang=lang,
        theme=theme_,
        bot_username=bot_username,
    )


def board_key(view: BoardImageView) -> str:
    shown = [
        "board",
        view.benchmark.name,
        view.scope,
        view.chat_title,
        view.mode,
        view.days,
        view.page,
        view.pages,
        view.target,
        view.key_version,
        [(r.rank, r.model, r.mode, r.score, r.runs, r.verified, r.ci95) for r in view.rows],
        view.date.date().isoformat(),
        view.lang,
        view.theme,
        view.bot_username,
    ]
    return hashlib.sha256(json.dumps(shown, default=str).encode()).hexdigest()[:40]


async def board_image(services: Services, view: BoardImageView) -> Image:
    key = board_key(view)
    return Image(key, await services.store.card_file(key), view)


async def top_view(
    services: Services, words: Sequence[str], *, lang: str, theme_: str
) -> BoardImageView:
    """``@bot top [benchmark]``: the global board's top five (a daily benchmark: today's
    target's) as an image's view."""
    name = registry.DEFAULT
    for word in words:
        try:
            name = registry.get(word).name
        except UnknownBenchmark:
            continue
    benchmark = registry.get(name)
    now = datetime.now(UTC)
    if benchmark.challenge is not None:
        target = challenges.today(services.settings, benchmark).target
        board, _ = await challenges.board(services, benchmark, target, limit=TOP_ROWS)
        marks = await challenges.marks(services, board)  # its best attempt's, as the board's
        rows = tuple(
            TableRow(
                row.rank,
                row.model,
                row.mode,
                benchmark.format_score(row.best),
                row.attempts,
                verified=marks.get(row.best_id) in ("verified", "benchboard"),
                benchboard=marks.get(row.best_id) == "benchboard",
            )
            for row in board.rows
        )
        return BoardImageView(benchmark, "g", rows, now, target=target, lang=lang, theme=theme_,
                              bot_username=services.bot_username)  # fmt: skip
    found = await services.store.leaderboard(name, limit=TOP_ROWS)
    rows = tuple(
        TableRow(
            r.rank,
            r.model,
            r.mode,
            benchmark.format_score(r.best),
            r.runs,
            r.verified,
            benchboard=r.benchboard,
        )
        for r in found.rows
    )
    return BoardImageView(benchmark, "g", rows, now, key_version=found.key_version, lang=lang,
                          theme=theme_, bot_username=services.bot_username)  # fmt: skip


async def to_share(services: Services, submission_id: int, user_id: int) -> Submission:
    """The result a Share button names, for ``user_id``: its owner's, published, on the
    boards (its submitter not banned). Raises :class:`UserError`: ``publish_first``
    (unknown, or not published), ``share_unavailable`` (its submitter is banned),
    ``not_yours`` (someone else's: a result's link goes to its owner only)."""
    sub = await services.store.get_submission(submission_id)
    if sub is None or not shareable(sub):
        raise _unshared(sub, user_id)
    if sub.user_id != user_id:
        raise UserError("not_yours")
    if not await links.visible(services, sub):
        raise UserError("share_unavailable", id=sub.id)
    return sub


async def to_challenge(services: Services, submission_id: int, user_id: int) -> Submission:
    """The result a Challenge button names, pressed by ``user_id`` (anyone may be
    challenged to beat a result on the boards; the caller checks who pressed where).
    Raises :class:`UserError` ``publish_first`` or ``share_unavailable`` as
    :func:`to_share`."""
    sub = await services.store.get_submission(submission_id)
    if sub is None or not shareable(sub):
        raise _unshared(sub, user_id)
    if not await links.visible(services, sub):
        raise UserError("share_unavailable", id=sub.id)
    return sub


def _unshared(sub: Submission | None, user_id: int) -> UserError:
    """Why a result that is not published is not shared: its owner may publish it
    first — unless an admin hid it; to anyone else (a card shared before it was
    withdrawn or hidden) it is on no board now."""
    if sub is None or (sub.user_id == user_id and sub.visibility is not Visibility.HIDDEN):
        return UserError("publish_first")
    return UserError("share_unavailable", id=sub.id)


async def group_title(services: Services, chat_id: int) -> str | None:
    """A group's title as last seen (a group board opened by its link)."""
    chat = await services.store.get_chat(chat_id)
    return chat.title if chat is not None else None


# --- inline results -------------------------------------------------------------------


async def inline_results(
    services: Services, user_id: int, search: str, *, offset: int = 0
) -> list[Submission]:
    """The user's published results for inline mode, newest first, filtered by model
    or benchmark (``search``), one page from ``offset``; none for a banned user (their
    results are on no board, and shared by nobody)."""
    if await services.store.is_banned(user_id) is not None:
        return []
    return await services.store.published_by(
        user_id, search=search, limit=INLINE_PAGE, offset=offset
    )


# --- challenges -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Challenge:
    """A challenge someone opened: beat ``score`` (as written) by ``model`` on
    ``benchmark`` (the result it stands for is ``submission_id``)."""

    submission_id: int
    benchmark: str
    score: str
    model: str
    mode: str | None
    #: a daily benchmark's result was for this target: the challenge is the same one
    target: int | None = None

    def extra(self) -> dict[str, Any]:
        """What a result submitted through it keeps in its ``extra``."""
        found: dict[str, Any] = {
            "submission_id": self.submission_id,
            "score": self.score,
            "model": self.model,
            "mode": self.mode,
        }
        if self.target is not None:
            found["target"] = self.target
        return found


def challenge_of(sub: Submission) -> Challenge:
    benchmark = registry.get(sub.benchmark)
    spec = benchmark.challenge
    target = None if spec is None else sub.record.get(spec.target_field)
    return Challenge(
        sub.id,
        sub.benchmark,
        benchmark.format_score(sub.score),
        sub.model or "",
        sub.mode,
        target if isinstance(target, int) and not isinstance(target, bool) else None,
    )


#: How long an opened challenge waits for the result that answers it.
CHALLENGE_TTL_MS = 30 * 24 * 3600 * 1000
#: The kind of ``shared_state`` entry an opened challenge is (by user id).
_OPENED = "challenge"


def _stored(challenge: Challenge) -> str:
    """A challenge as stored (the same challenge: the same text)."""
    fields = (challenge.submission_id, challenge.benchmark, challenge.score, challenge.model,
              challenge.mode, challenge.target)  # fmt: skip
    return json.dumps(fields, ensure_ascii=False, separators=(",", ":"))


def _loaded(text: str | None) -> Challenge | None:
    if text is None:
        return None
    try:
        sub_id, benchmark, score, model, mode, target = json.loads(text)
        found = Challenge(int(sub_id), str(benchmark), str(score), str(model),
                          None if mode is None else str(mode),
                          None if target is None else int(target))  # fmt: skip
    except (ValueError, TypeError):
        return None  # not a challenge this version wrote: none
    return found if registry.find(found.benchmark) is not None else None


async def accept(services: Services, user_id: int, challenge: Challenge) -> None:
    """The user opened a challenge: their next result on its benchmark answers it. It
    is stored (``shared_state``), so it survives a restart and any instance honours it."""
    await services.store.expect_input(
        _OPENED, str(user_id), _stored(challenge), ttl_ms=CHALLENGE_TTL_MS
    )


async def pending(services: Services, user_id: int) -> Challenge | None:
    """The challenge the user opened and has not answered yet (None: none, or lapsed)."""
    return _loaded(await services.store.awaited_input(_OPENED, str(user_id)))


async def answered(services: Services, user_id: int, sub: Submission, challenge: Challenge) -> bool:
    """After a submission made while ``challenge`` was pending: True (and the challenge
    closed) when the submission answered it. A challenge opened since stays open."""
    if CHALLENGE not in sub.extra:
        return False
    await services.store.take_input(_OPENED, str(user_id), _stored(challenge))
    return True

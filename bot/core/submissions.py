"""What happens to a stored submission: mode and model, publishing (with its rules),
details, withdrawal, and who may see it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from scoring import Benchmark, Mode, Result, publishable, registry
from storage import LimitReached, MissingModeOrModel, NotAllowed, Visibility
from storage import Submission as Submission

from . import trust
from .errors import DailyLimit, UserError
from .services import Services
from .trust import Verdict

#: ``Submission.extra``'s entry naming who asked for the scoring, when it was someone
#: other than the author (``/score`` in reply to someone's message in a group).
ASKED_BY = "asked_by"
#: ``Submission.extra``'s mark of a benchmark chosen from the content (no tag named it):
#: the card then says which benchmark read it and how to choose another.
DETECTED = "detected"


@dataclass(frozen=True, slots=True)
class Card:
    """What a score reply shows: the submission, its benchmark and result, and (for its
    owner) how many more results they may publish today out of how many.
    ``author`` and ``asked_by`` name the output's author and who asked for the scoring,
    when someone scored another person's output (else None)."""

    submission: Submission
    benchmark: Benchmark
    result: Result
    left_today: tuple[int, int] | None
    author: str | None = None
    asked_by: str | None = None
    #: the copy check flagged it: why, and where its review stands (None: not asked
    #: to publish yet; ``held``, ``released``, ``rejected``)
    flag: Verdict | None = None
    flag_state: str | None = None

    @property
    def published(self) -> bool:
        return is_published(self.submission)

    @property
    def withdrawn(self) -> bool:
        return self.submission.visibility is Visibility.WITHDRAWN

    @property
    def publishable(self) -> bool:
        """Whether the result itself may go on a board (mode and model aside)."""
        return publishable(self.result)

    @property
    def editable(self) -> bool:
        return editable(self.submission) and self.flag_state != trust.HELD


def is_published(sub: Submission) -> bool:
    return sub.visibility is Visibility.PUBLISHED


def editable(sub: Submission) -> bool:
    """Mode and model can change until the result is published (or hidden)."""
    return sub.visibility in (Visibility.PRIVATE, Visibility.WITHDRAWN)


def result_of(sub: Submission) -> Result:
    """The result object of a stored submission, rebuilt from its record."""
    return registry.get(sub.benchmark).result_from_record(sub.record)


async def card(
    services: Services, sub: Submission, *, owner: bool = True, result: Result | None = None
) -> Card:
    """The score reply's content; for someone else (a shared link) without the owner's
    allowance. ``result`` saves rebuilding it when the caller has just scored it."""
    left = await allowance(services, sub.user_id) if owner else None
    benchmark = registry.get(sub.benchmark)
    author = asked_by = None
    asker = asked_by_id(sub)
    if asker is not None:
        author = await display_name(services, sub.user_id)
        asked_by = await display_name(services, asker)
    result = result or benchmark.result_from_record(sub.record)
    flag, state = None, None
    if owner:
        flagged = await trust.held_state(services, sub)
        if flagged is not None:
            flag, state = flagged[0], (None if flagged[1] is None else flagged[1].state)
            if state == trust.HELD and sub.visibility is Visibility.WITHDRAWN:
                state = None  # withdrawn: held again (and waiting) only once asked again
    return Card(sub, benchmark, result, left, author, asked_by, flag, state)


def asked_by_id(sub: Submission) -> int | None:
    """Who asked for the scoring of someone else's output, or None."""
    value = sub.extra.get(ASKED_BY)
    return value if isinstance(value, int) and value != sub.user_id else None


async def display_name(services: Services, user_id: int) -> str:
    """A user as people know them: their name (and @username); the id when unknown."""
    user = await services.store.get_user(user_id)
    if user is None:
        return str(user_id)
    name = " ".join(p for p in (user.first_name, user.last_name) if p) or str(user_id)
    return f"{name} (@{user.username})" if user.username else name


async def owned(services: Services, submission_id: int, user_id: int) -> Submission:
    """The submission, when it exists and belongs to ``user_id``."""
    sub = await services.store.get_submission(submission_id)
    if sub is None:
        raise UserError("not_found", id=submission_id)
    if sub.user_id != user_id:
        raise UserError("not_yours")
    return sub


async def shared(services: Services, submission_id: int, viewer_id: int) -> Submission:
    """A submission opened from a shared link: published ones, and the viewer's own."""
    sub = await services.store.get_submission(submission_id)
    if sub is None or (sub.visibility is not Visibility.PUBLISHED and sub.user_id != viewer_id):
        raise UserError("not_found", id=submission_id)
    return sub


async def set_mode(services: Services, sub: Submission, value: str) -> tuple[Submission, Mode]:
    """Choose or change the mode, until the result is published."""
    try:
        mode = Mode(value)
    except ValueError:
        raise UserError("gone") from None
    if await trust.is_held(services, sub):
        raise UserError("held_fixed", id=sub.id)
    try:
        return await services.store.set_mode(sub.id, mode.value), mode
    except NotAllowed:
        raise UserError("fixed_once_published", id=sub.id) from None


async def set_model(services: Services, submission_id: int, model: str) -> Submission:
    """Set or change the model name, until the result is published (or held)."""
    sub = await services.store.get_submission(submission_id)
    if sub is not None and await trust.is_held(services, sub):
        raise UserError("held_fixed", id=submission_id)
    try:
        return await services.store.set_model(submission_id, model)
    except NotAllowed:
        raise UserError("fixed_once_published", id=submission_id) from None


async def withdraw(services: Services, submission_id: int, user_id: int) -> Submission:
    """The owner takes a result off the boards; once (a second time says so)."""
    sub = await owned(services, submission_id, user_id)
    if sub.visibility is Visibility.WITHDRAWN:
        raise UserError("already_withdrawn", id=submission_id)
    try:
        return await services.store.withdraw(submission_id, user_id)
    except NotAllowed:
        raise UserError("cannot_withdraw", id=submission_id) from None


# --- publishing ------------------------------------------------------------------------


async def allowance(services: Services, user_id: int) -> tuple[int, int]:
    """How many more results the user may publish today, and the daily limit."""
    return await _left_today(services, user_id), services.settings.daily_limit


def _next_reset() -> datetime:
    """When the day's count starts again (midnight UTC)."""
    now = datetime.now(UTC)
    return (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)


async def publish_allowance(services: Services, user_id: int) -> tuple[int, datetime]:
    """How many more results the user may publish today, and when the count resets."""
    return await _left_today(services, user_id), _next_reset()


async def _left_today(services: Services, user_id: int) -> int:
    today = datetime.now(UTC).toordinal()
    day, used = services.published.get(user_id, (0, 0))
    # with other instances on the database the user may have published through them:
    # this one's count would be behind, so the shared one is read
    if day != today or services.store.shared:
        used = await services.store.published_today(user_id)
        services.published[user_id] = (today, used)
    return max(0, services.settings.daily_limit - used)


async def check_can_publish(services: Services, user_id: int) -> None:
    """Banned users score privately but publish nothing."""
    if await services.store.is_banned(user_id) is not None:
        raise UserError("banned_publish")


@dataclass(frozen=True, slots=True)
class Published:
    """A publication: the submission as it now stands, how many more the user may
    publish today out of ``limit``, and an earlier submission with the same answers
    (one run on the boards), if any. ``already``: it was published before."""

    submission: Submission
    left: int
    limit: int
    twin: int | None = None
    already: bool = False
    #: held for review instead (the copy check's verdict): on no board until an admin
    #: releases it
    held: Verdict | None = None


async def publish(services: Services, sub: Submission) -> Published:
    """Put a result on the boards (again, after a withdrawal): not for banned users, nor
    a result its benchmark refuses (an answer that misses a challenge's target), within
    the daily limit (checked and used in the publication's own transaction; one
    withdrawn and published again the same day counts once), with its mode and model
    set; not one an admin hid (``gone``)."""
    limit = services.settings.daily_limit
    if sub.visibility is Visibility.PUBLISHED:
        return Published(sub, 0, limit, already=True)
    if not publishable(result_of(sub)):
        raise UserError("not_publishable", id=sub.id)
    await check_can_publish(services, sub.user_id)
    flagged = await trust.held_state(services, sub)
    if flagged is not None and (flagged[1] is None or flagged[1].state == trust.HELD):
        # the copy check flagged it: held for an admin, not published
        if sub.mode is None or sub.model is None:
            raise UserError("need_mode_model")
        if sub.visibility is Visibility.HIDDEN:
            raise UserError("gone")
        already = flagged[1] is not None
        if not already:
            await trust.hold(services, sub, flagged[0])
        elif sub.visibility is Visibility.WITHDRAWN:
            # withdrawn while held, asked for again: it waits for an admin again
            try:
                sub = await services.store.reopen(sub.id)
            except NotAllowed:  # hidden by an admin meanwhile
                raise UserError("gone") from None
        left = await _left_today(services, sub.user_id)
        return Published(sub, left, limit, already=already, held=flagged[0])
    today = datetime.now(UTC).date().toordinal()
    try:
        sub, used = await services.store.publish_within(sub.id, daily_limit=limit)
    except LimitReached as exc:
        services.published[sub.user_id] = (today, exc.used)
        raise DailyLimit(limit, _next_reset().strftime("%H:%M")) from None
    except MissingModeOrModel:
        raise UserError("need_mode_model") from None
    except NotAllowed:  # hidden by an admin since the card was sent: not the owner's to undo
        raise UserError("gone") from None
    services.published[sub.user_id] = (today, used)
    # Equal answer sets for the same model and mode are one run on the boards.
    twin = await services.store.same_answers_as(sub.id)
    return Published(sub, max(0, limit - used), limit, twin)

"""What happens to a stored submission: mode and model, publishing (with its rules),
details, withdrawal, and who may see it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from scoring import Benchmark, Mode, Result, registry
from storage import LimitReached, MissingModeOrModel, NotAllowed, Visibility
from storage import Submission as Submission

from .errors import DailyLimit, UserError
from .services import Services


@dataclass(frozen=True, slots=True)
class Card:
    """What a score reply shows: the submission, its benchmark and result, and (for its
    owner) how many more results they may publish today out of how many."""

    submission: Submission
    benchmark: Benchmark
    result: Result
    left_today: tuple[int, int] | None

    @property
    def published(self) -> bool:
        return is_published(self.submission)


def is_published(sub: Submission) -> bool:
    return sub.visibility is Visibility.PUBLISHED


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
    return Card(sub, benchmark, result or benchmark.result_from_record(sub.record), left)


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
    try:
        mode = Mode(value)
    except ValueError:
        raise UserError("gone") from None
    return await services.store.set_mode(sub.id, mode.value), mode


async def set_model(services: Services, submission_id: int, model: str) -> Submission:
    return await services.store.set_model(submission_id, model)


async def withdraw(services: Services, submission_id: int, user_id: int) -> None:
    try:
        await services.store.withdraw(submission_id, user_id)
    except NotAllowed:
        raise UserError("not_yours") from None


# --- publishing ------------------------------------------------------------------------


async def allowance(services: Services, user_id: int) -> tuple[int, int]:
    """How many more results the user may publish today, and the daily limit."""
    left, _ = await publish_allowance(services, user_id)
    return left, services.settings.daily_limit


def _next_reset() -> datetime:
    """When the day's count starts again (midnight UTC)."""
    now = datetime.now(UTC)
    return (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)


async def publish_allowance(services: Services, user_id: int) -> tuple[int, datetime]:
    """How many more results the user may publish today, and when the count resets."""
    used = await services.store.published_today(user_id)
    return max(0, services.settings.daily_limit - used), _next_reset()


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


async def publish(services: Services, sub: Submission) -> Published:
    """Put a result on the boards: not for banned users, within the daily limit (checked
    and used in the publication's own transaction), with its mode and model set."""
    limit = services.settings.daily_limit
    if sub.visibility is Visibility.PUBLISHED:
        return Published(sub, 0, limit, already=True)
    await check_can_publish(services, sub.user_id)
    try:
        sub, used = await services.store.publish_within(sub.id, daily_limit=limit)
    except LimitReached:
        raise DailyLimit(limit, _next_reset().strftime("%H:%M")) from None
    except MissingModeOrModel:
        raise UserError("need_mode_model") from None
    # Equal answer sets for the same model and mode are one run on the boards.
    twin = await services.store.same_answers_as(sub.id)
    return Published(sub, max(0, limit - used), limit, twin)

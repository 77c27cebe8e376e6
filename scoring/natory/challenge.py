"""Natory's challenge (:class:`scoring.base.ChallengeSpec`): the day's target, its own
boards and the ``/natory`` command."""

from __future__ import annotations

from datetime import date

from ..base import ChallengeSpec
from .result import NAME
from .scorer import Challenge, daily_challenge, parse_target


def today(day: date, seed: str, chosen: int | None) -> Challenge:
    """The challenge of ``day``: the target an admin chose for it, else the seeded one."""
    return daily_challenge(day, seed) if chosen is None else Challenge.for_target(chosen)


CHALLENGE = ChallengeSpec(
    command=NAME,
    today=today,
    parse=parse_target,
    target_option="target",
    cost_option="cost",
    latency_option="latency",
    target_field="target",
    shown_field="simplified",
    valid_field="valid",
    trivial="digits",
    previous_option="previous",
)

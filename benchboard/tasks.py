"""Benchboard's Inspect AI tasks by the names the README gives them:
``benchboard/primebench``, ``benchboard/zerobench``, ``benchboard/natory`` and
``benchboard/benchmark -T name=NAME`` (:mod:`bot.evals.tasks` makes them).

Inspect prefixes a task's name with the top-level package of the module that defines
it, when that package is installed (from a wheel, or editable): defined in ``bot``,
they were ``bot/primebench`` (or unprefixed), and ``inspect eval
benchboard/primebench`` found nothing. Made here, as this module's, they are
``benchboard/NAME``, and ``inspect eval benchboard/NAME`` loads this module through
the ``benchboard`` entry point (``[project.entry-points.inspect_ai]``).
"""

from __future__ import annotations

from bot.evals.tasks import define

globals().update(define(__name__))

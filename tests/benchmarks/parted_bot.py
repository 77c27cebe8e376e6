"""Benchboard's bot with named parts of a submission's handling left out, for
``bench_bot_parts.py``: what each part costs the bot's throughput. A measuring tool,
never a way to run the bot (a part left out is a feature gone).

    python tests/benchmarks/parted_bot.py PARTS run

``PARTS``: comma-separated, any of

- ``log``: the log line of each update (``benchboard.updates`` at WARNING);
- ``pending``: the read of a challenge the user opened (none is, in the benchmark);
- ``check``: the copy check (its answer set, bands and candidates' read);
- ``record``: storing the submission (each reply after the first shows the first one's);
- ``usecase``: everything between the update and the reply: after the first
  submission, each is answered with the first one's card, buttons included.

Each is left out by replacing, before the bot starts, the module attribute its caller
looks up at each call, so the rest runs as ``benchboard run`` runs it.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bot import cli
from bot.core import sharing, submit, trust
from bot.telegram import handlers

PARTS = ("log", "pending", "check", "record", "usecase")


def leave_out(parts: set[str]) -> None:
    unknown = parts.difference(PARTS)
    if unknown:
        raise SystemExit(f"unknown parts {sorted(unknown)}; known: {', '.join(PARTS)}")
    if "log" in parts:
        logging.getLogger("benchboard.updates").setLevel(logging.WARNING)
    if "pending" in parts:

        async def no_pending(services: Any, user_id: int) -> None:
            return None

        sharing.pending = no_pending  # type: ignore[assignment]
    if "check" in parts:

        async def no_check(*args: Any, **kwargs: Any) -> None:
            return None

        trust.check = no_check  # type: ignore[assignment]
    if "record" in parts:
        real_record, first = submit.record, []

        async def record_once(*args: Any, **kwargs: Any) -> Any:
            if not first:
                first.append(await real_record(*args, **kwargs))
            return first[0]

        submit.record = record_once  # type: ignore[assignment]
    if "usecase" in parts:
        real_score, real_send = handlers.score, handlers.send_reply
        card: list[Any] = []

        async def send_kept(bot: Any, to: Any, text: str, markup: Any) -> None:
            if not card:
                card.extend((text, markup))
            await real_send(bot, to, text, markup)

        async def score_once(update: Any, context: Any, source: Any, **kwargs: Any) -> None:
            if card:
                await real_send(context.bot, source, *card)
            else:
                await real_score(update, context, source, **kwargs)

        handlers.send_reply = send_kept  # type: ignore[assignment]
        handlers.score = score_once  # type: ignore[assignment]


if __name__ == "__main__":
    leave_out({p for p in sys.argv[1].split(",") if p})
    sys.exit(cli.main(sys.argv[2:]))

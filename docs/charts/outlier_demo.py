"""Build the database of docs/charts: ten normal Natory models and one whose only
attempt natory-v1 scored -20,441 (stored before natory-v2, not re-scored).

    .venv/bin/python docs/charts/outlier_demo.py /tmp/demo/data/benchboard.sqlite3
    BENCHBOARD_DATA_DIR=/tmp/demo/data .venv/bin/benchboard compare natory \\
        --out docs/charts/compare-natory-outlier.png
    BENCHBOARD_DATA_DIR=/tmp/demo/data .venv/bin/benchboard web --port 8765
    # then a screenshot of http://127.0.0.1:8765/b/natory (docs/charts/web-natory-outlier.png)
    .venv/bin/python docs/charts/outlier_demo.py /tmp/demo/data/benchboard.sqlite3 \
        --board-image docs/charts/board-natory-outlier.png   # the board as an image
"""

from __future__ import annotations

import asyncio
import random
import sys
from pathlib import Path

from bot.core import challenges
from scoring import registry
from scoring.natory.rules import load_rules
from scoring.natory.scorer import Challenge, score
from storage import NewSubmission, Store, analytics

NATORY = registry.get("natory")

#: (model, mode, attempts, mean cost USD, mean latency s); expressions for 6840
MODELS = (
    ("gpt-5.5", "think", 6, 0.031, 14.2),
    ("claude-opus-5", "think", 5, 0.045, 11.0),
    ("gemini-3-pro", "default", 7, 0.012, 6.3),
    ("o5-high", "think_tools", 4, 0.060, 22.5),
    ("deepseek-v4", "default", 8, 0.004, 9.1),
    ("qwen-4-max", "default", 5, 0.006, 7.4),
    ("llama-5-405b", "default", 4, 0.009, 8.8),
    ("mistral-large-3", "default", 4, 0.008, 5.2),
    ("grok-5", "think", 3, 0.030, 13.0),
    ("kimi-k3", "default", 5, 0.005, 10.5),
)
EXPRESSIONS = ("(6+4)*684", "(8-4)*(6+4)*171", "8*(6+4)*(84+4)-200", "6840", "(4+6)*(8*86-4)")
WILD = "(6+4)*684+0*444444444"  # 11 digits beyond 6840's: -20,441 under natory-v1


async def build(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    store = await Store.open(path)
    await challenges.declare(store)  # as the bot does at start
    rng = random.Random(35)
    challenge = Challenge.for_target(6840)
    message = 0
    try:

        async def put(expression: str, model: str, mode: str, cost: float, latency: float,
                      version: str) -> None:  # fmt: skip
            nonlocal message
            message += 1
            rules = load_rules(version)
            previous = await challenges.previous(store, NATORY, 6840)
            result = score(expression, challenge, previous=previous, rules=rules)
            sub = await store.record_submission(
                NewSubmission(
                    user_id=1000 + message % 7, chat_id=1000 + message % 7, message_id=message,
                    benchmark="natory", key_version_id=None, model=model, mode=mode,
                    raw=expression, result=result, scorer_version=rules.version,
                    extra={"target": 6840, "cost": cost, "latency": latency},
                )
            )  # fmt: skip
            if result.publishable:
                await store.publish(sub.id)

        for model, mode, attempts, cost, latency in MODELS:
            for _ in range(attempts):
                expression = rng.choice(EXPRESSIONS)
                await put(expression, model, mode, cost * rng.uniform(0.8, 1.2),
                          latency * rng.uniform(0.8, 1.2), "natory-v2")  # fmt: skip
        await put(WILD, "wild-model", "default", 0.015, 9.8, "natory-v1")
    finally:
        await store.close()


async def board_image(path: Path, out: Path) -> None:
    """The Natory board of 6840 as the bot's "as image" button draws it."""
    from datetime import UTC, datetime

    from bot.render.card_views import BoardImageView, TableRow
    from bot.render.cards import render_board_image
    from scoring import registry

    natory = registry.get("natory")
    store = await Store.open(path)
    try:
        board = await analytics.challenge_board(
            store, natory.name, challenges.fields(natory), target=6840
        )
    finally:
        await store.close()
    rows = tuple(
        TableRow(r.rank, r.model, r.mode, natory.format_score(r.best), r.attempts)
        for r in board.rows
    )
    view = BoardImageView(natory, "g", rows, datetime.now(UTC), target=6840)
    out.write_bytes(render_board_image(view))


if __name__ == "__main__":
    if "--board-image" in sys.argv:
        asyncio.run(
            board_image(Path(sys.argv[1]), Path(sys.argv[sys.argv.index("--board-image") + 1]))
        )
    else:
        asyncio.run(build(Path(sys.argv[1])))

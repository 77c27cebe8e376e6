"""Result card and board image render times, and the event loop while they render. Not
part of the test run.

    .venv/bin/python tests/benchmarks/bench_cards.py [--repeats 30]

Prints, for each kind of image (a card per benchmark, English and Persian, light and
dark, a 300-character name, a name with emoji; a ten-row board page, one of its names
with emoji, and the inline top five), the time to render it to PNG bytes on one core:
min / median / p90 / max over the repeats, after one warm-up render (which pays for
loading matplotlib and the fonts, printed apart). Goals:
a card under 150 ms, a board image under 300 ms.

Then the bot's way of rendering: many cards through the render thread
(``bot.core.render_pool.RenderPool``) while a ticker on the event loop measures how late
its 10 ms sleeps wake up; the loop never draws, so its lag stays small.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime

from bot.core.render_pool import RenderPool
from bot.render.card_views import BoardImageView, ResultCardView, TableRow
from scoring import Result, registry
from scoring import zerobench as zb

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
LONG = "gpt-" + "x" * 296
#: a name with emoji: drawn by the system's emoji font when there is one, else U+FFFD
EMOJI = "Llama 🦙 rocket 🚀 👨‍💻 ⭐ 👍🏽"
NAMES = {3: LONG, 5: EMOJI}  # a board's odd rows


def result_of(name: str) -> Result:
    benchmark = registry.get(name)
    if name == "primebench":
        key = benchmark.load_key("".join(f"{q}:{q % 4 + 1}\n" for q in range(1, 105)).encode())
        text = "\n".join(f"{q}:{q % 4 + 1 if q % 3 else 1}" for q in range(1, 90))
        return benchmark.score(text, key)
    if name == "zerobench":
        key = zb.load_key(
            json.dumps({zb.MAIN_SPLIT: {str(i): str(i) for i in range(100)}}).encode()
        )
        text = "".join(
            json.dumps({"question_id": str(i), "responses": [f"{{{i}}}", "{x}", f"{{{i}}}"]}) + "\n"
            for i in range(100)
        )
        return benchmark.score(text, key, options=benchmark.options_from_tags({"k": "3"}))
    key, options = benchmark.key_for({"target": 6256}, None)
    return benchmark.score(r"2 \times \operatorname{\mathrm{sopfr}}(6)^5 + 6", key, options=options)


def card(name: str, lang: str, theme: str, model: str = "gpt-6 luna") -> ResultCardView:
    return ResultCardView(
        registry.get(name), result_of(name), model, "think_tools", 4, True, "ab" * 32, NOW,
        lang, theme, {"score": "+38", "model": "claude"}, "benchboard_bot",
    )  # fmt: skip


def board(rows: int, lang: str, theme: str) -> BoardImageView:
    table = tuple(
        TableRow(i + 1, NAMES.get(i, f"model {i}"), "think", f"+{50 - i}", i + 1, i % 2 == 0)
        for i in range(rows)
    )
    return BoardImageView(
        registry.get("primebench"), "g", table, NOW, "think", 30, 0, 4, key_version=3,
        lang=lang, theme=theme, bot_username="benchboard_bot",
    )  # fmt: skip


def timed(fn: Callable[[], bytes], repeats: int) -> list[float]:
    fn()  # warm-up (caches of the font and the text layout)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return sorted(times)


def line(label: str, times: list[float], goal: float) -> str:
    p90 = times[min(len(times) - 1, int(len(times) * 0.9))]
    verdict = "ok" if p90 < goal else "OVER"
    return (
        f"{label:<38} min {times[0]:6.1f}  median {statistics.median(times):6.1f}  "
        f"p90 {p90:6.1f}  max {times[-1]:6.1f} ms   (goal < {goal:.0f}: {verdict})"
    )


async def loop_lag(count: int) -> tuple[float, float, float]:
    """Render ``count`` cards through the render thread while the event loop ticks every
    10 ms: the wall time, and the median and worst lateness of the ticks (ms)."""
    from bot.render.cards import render_result_card

    pool = RenderPool()
    views = [card(name, lang, "light") for name in ("primebench", "zerobench", "natory")
             for lang in ("en", "fa")]  # fmt: skip
    late: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        while not done.is_set():
            start = time.perf_counter()
            await asyncio.sleep(0.01)
            late.append((time.perf_counter() - start - 0.01) * 1000)

    tick = asyncio.create_task(ticker())
    start = time.perf_counter()
    for i in range(count):
        await pool.run(render_result_card, views[i % len(views)])
    wall = time.perf_counter() - start
    done.set()
    await tick
    pool.close()
    late.sort()
    return wall, statistics.median(late), late[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    start = time.perf_counter()
    from bot.render.cards import render_board_image, render_result_card

    first = card("primebench", "en", "light")
    render_result_card(first)
    print(f"first render (imports matplotlib, loads the fonts): "
          f"{(time.perf_counter() - start) * 1000:.0f} ms")  # fmt: skip
    print(f"repeats per line: {args.repeats}\n")
    for name in ("primebench", "zerobench", "natory"):
        for lang in ("en", "fa"):
            for theme in ("light", "dark"):
                view = card(name, lang, theme)
                times = timed(lambda v=view: render_result_card(v), args.repeats)  # type: ignore[misc]
                print(line(f"card {name} {lang} {theme}", times, 150))
    for lang in ("en", "fa"):
        view = card("primebench", lang, "light", LONG)
        times = timed(lambda v=view: render_result_card(v), args.repeats)  # type: ignore[misc]
        print(line(f"card, 300-character name, {lang}", times, 150))
    for lang in ("en", "fa"):
        view = card("primebench", lang, "light", EMOJI)
        times = timed(lambda v=view: render_result_card(v), args.repeats)  # type: ignore[misc]
        print(line(f"card, a name with emoji, {lang}", times, 150))
    print()
    for rows, label in ((10, "board page, 10 rows"), (5, "inline top five")):
        for lang in ("en", "fa"):
            for theme in ("light", "dark"):
                view_b = board(rows, lang, theme)
                times = timed(lambda v=view_b: render_board_image(v), args.repeats)  # type: ignore[misc]
                print(line(f"{label} {lang} {theme}", times, 300))
    print()
    wall, median_lag, worst_lag = asyncio.run(loop_lag(60))
    print(f"60 cards through the render thread: {wall:.2f} s "
          f"({wall / 60 * 1000:.0f} ms each); event loop lateness while rendering: "
          f"median {median_lag:.1f} ms, worst {worst_lag:.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()

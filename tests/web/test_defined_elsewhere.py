"""A benchmark another process defined (``benchboard benchmark add``, or the bot's
``/benchmark add``, beside ``benchboard web`` on one database), asked for before this
process read the definitions again (every minute): its board, its image and a result
of it were a 404, a 404 and a 500 ("Something went wrong") until then; the first users
of a new benchmark open exactly these links. They are read again when a name is not
known. The key is made up here."""

from __future__ import annotations

from pathlib import Path

from bot.core import benchmarks, links, submissions, submit
from scoring import choice, registry

from .apikit import serve
from .conftest import Site

TINY = """name = "elsewhere"
title = "Elsewhere"
kind = "choice"
options = 4
points = { right = 2, wrong = -1, none = 0 }
key = "1:1\\n2:2\\n3:3\\n"
"""


async def test_a_benchmark_defined_by_another_process_is_served_at_once(site: Site) -> None:
    services = site.state.services
    try:
        await benchmarks.add(services, choice.read_definition(TINY), source="file t.toml")
        sub, _ = await submit.submit(
            services, text="#elsewhere #think\nmodel: First\n1:1\n2:2\n3:1", user_id=801,
            chat_id=801, message_id=1,
        )  # fmt: skip
        published = await submissions.publish(services, sub)
        token = await links.result_token(services, published.submission)
        # as the web process beside it, which has not read the definitions since
        stamp = services.definitions_stamp = await services.store.definitions_stamp() - 1
        registry.unregister("elsewhere")
        services.keys.pop("elsewhere")
        for path in (f"/r/{token}", f"/r/{token}.json", "/b/elsewhere", "/b/elsewhere.json",
                     "/b/elsewhere/questions"):  # fmt: skip
            registry.unregister("elsewhere")
            services.definitions_stamp = stamp
            status, page, _ = await site.get(path)
            assert status == 200, (path, page[page.find("<main") :][:600])
            assert "First" in page or path.endswith("/questions"), path
        status, _, _ = await site.get("/b/nowhere")  # a name nobody defined: still a 404
        assert status == 404
    finally:
        registry.unregister("elsewhere")


async def test_the_api_scores_a_benchmark_defined_by_another_process_at_once(
    tmp_path: Path,
) -> None:
    """``benchboard submit --benchmark NAME`` just after the benchmark was added beside
    the server: "unknown benchmark" until the server read the definitions again."""
    async for web in serve(tmp_path):
        services = web.services
        try:
            await benchmarks.add(services, choice.read_definition(TINY), source="file t.toml")
            registry.unregister("elsewhere")  # as the server, which has not read it since
            services.keys.pop("elsewhere")
            services.definitions_stamp = await services.store.definitions_stamp() - 1
            status, data, _ = await web.post(
                {"benchmark": "elsewhere", "output": "1:1\n2:2\n3:1", "model": "m",
                 "mode": "think"}
            )  # fmt: skip
            assert status == 201, data
            assert data["benchmark"] == "elsewhere" and data["final_score"] == 2 + 2 - 1
        finally:
            registry.unregister("elsewhere")

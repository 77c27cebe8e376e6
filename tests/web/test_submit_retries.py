"""``benchboard submit`` (a real process) through transient faults: the owner's rate
(the real API's 429 and ``Retry-After``), a proxy's 502 in front of the server, a server
that cannot be reached. Each is tried again with the same ``Idempotency-Key`` until
answered or ``--wait`` runs out; nothing is stored twice."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

from aiohttp import web as aioweb

from .apikit import OWNER, output, serve, submit
from .conftest import free_port


async def test_past_the_rate_the_cli_waits_and_submits_once(tmp_path: Path) -> None:
    run = tmp_path / "run.txt"
    run.write_text(output(18))
    async for web in serve(tmp_path, api_rate=6, api_burst=1):  # one per 10 s
        assert (await web.get("/api/v1/me"))[0] == 200  # the token's one request now
        code, out, err = await submit(
            str(run), "--server", web.base, "--benchmark", "primebench", token=web.token
        )
        assert code == 0, err
        assert "429" in err and "trying again" in err
        [line] = out.strip().splitlines()
        assert line.startswith("run.txt: primebench #") and "sent before" not in line
        assert len(await web.services.store.history(OWNER)) == 1


async def flaky_front(answers: list[tuple[int, str]]) -> AsyncIterator[tuple[str, list[str]]]:
    """A server answering each POST with the next of ``answers`` (status, body), as a
    proxy in front of Benchboard might; the idempotency keys it was sent."""
    keys: list[str] = []

    async def post(request: aioweb.Request) -> aioweb.Response:
        keys.append(request.headers.get("Idempotency-Key", ""))
        await request.read()
        status, body = answers[min(len(keys), len(answers)) - 1]
        kind = "application/json" if body.startswith("{") else "text/html"
        return aioweb.Response(status=status, text=body, content_type=kind)

    app = aioweb.Application()
    app.router.add_post("/api/v1/submissions", post)
    runner = aioweb.AppRunner(app)
    await runner.setup()
    port = free_port()
    await aioweb.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}", keys
    finally:
        await runner.cleanup()


async def test_a_bad_gateway_is_tried_again_with_the_same_key(tmp_path: Path) -> None:
    run = tmp_path / "run.txt"
    run.write_text(output(18))
    made = {"id": 7, "benchmark": "primebench", "final_score": 15, "url": None}
    # the first try reached the server but its answer was lost: the next is answered
    # with that submission (200), which is no earlier run's
    answers = [(502, "<html>502 Bad Gateway</html>"), (200, json.dumps(made))]
    async for base, keys in flaky_front(answers):
        code, out, err = await submit(
            str(run), "--server", base, "--benchmark", "primebench", token="bb_x"
        )
        assert code == 0, err
        assert "502" in err and "trying again" in err
        assert out.strip() == "run.txt: primebench #7: score 15 — not published"
        assert len(keys) == 2 and keys[0] == keys[1] and keys[0].startswith("cli-")


async def test_a_refusal_is_not_tried_again(tmp_path: Path) -> None:
    run = tmp_path / "run.txt"
    run.write_text(output(18))
    refused = {"error": {"code": "invalid", "message": "publishing needs a mode", "field": "mode"}}
    async for base, keys in flaky_front([(422, json.dumps(refused))]):
        code, out, err = await submit(
            str(run), "--server", base, "--benchmark", "primebench", token="bb_x"
        )
        assert code == 1 and out == ""
        assert err.strip() == "benchboard: run.txt: 422 publishing needs a mode"
        assert len(keys) == 1


async def test_an_unreachable_server_is_tried_until_wait_runs_out(tmp_path: Path) -> None:
    run = tmp_path / "run.txt"
    run.write_text(output(18))
    dead = f"http://127.0.0.1:{free_port()}"
    args = [str(run), "--server", dead, "--benchmark", "primebench"]
    code, out, err = await submit(*args, "--wait", "2", token="bb_x")
    lines = err.strip().splitlines()
    assert code == 1 and out == ""
    assert len(lines) >= 2 and all("trying again" in line for line in lines[:-1])
    assert "cannot reach" in lines[-1] and "trying again" not in lines[-1]
    code, _, err = await submit(*args, "--wait", "0", token="bb_x")  # once
    assert code == 1 and len(err.strip().splitlines()) == 1 and "cannot reach" in err


async def test_a_stored_result_refused_publication_can_be_sent_again(tmp_path: Path) -> None:
    """Past the day's publications the CLI's own key is said, so that the same run can
    be sent again with it (and publishes the stored result, not a second one)."""
    run = tmp_path / "run.txt"
    run.write_text(output(18))
    args = (str(run), "--server", "", "--benchmark", "primebench", "--model", "m")
    async for web in serve(tmp_path, daily_limit=0, api_rate=0):
        given = [a if a else web.base for a in args]
        code, out, err = await submit(*given, "--mode", "think", "--publish", token=web.token)
        assert code == 1 and out == "", err
        assert "stored as #1, private" in err
        key = err.split("--idempotency-key ")[1].split()[0].rstrip(")")
        assert key.startswith("cli-")
        web.services.settings.daily_limit = 1  # the next day
        web.services.published.clear()
        code, out, err = await submit(
            *given, "--mode", "think", "--publish", "--idempotency-key", key, token=web.token
        )
        assert code == 0, err
        assert "#1" in out and "sent before" in out and "/r/" in out
        assert len(await web.services.store.history(OWNER)) == 1

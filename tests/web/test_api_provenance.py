"""Provenance through the API and ``benchboard submit`` (issue 31): the fields the chat's
tags take are checked (422 naming the field), kept with the submission and shown in
its signed record; ``benchboard submit`` sends them as options (checked there first)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from .apikit import OWNER, Api, output, serve, submit


@pytest.fixture
async def web(tmp_path: Path) -> AsyncIterator[Api]:
    async for one in serve(tmp_path):
        yield one


def submission(**fields: Any) -> dict[str, Any]:
    return {"benchmark": "primebench", "output": output(15), "model": "api-model",
            "mode": "think", "publish": True, **fields}  # fmt: skip


async def test_provenance_fields_are_checked_kept_and_signed(web: Api) -> None:
    told = {"provider": "Together", "temperature": 0.2, "seed": 7, "reasoning": "medium",
            "run_date": "2026-11-01", "log": "https://example.com/run.eval"}  # fmt: skip
    status, data, _ = await web.post(submission(**told, harness="inspect", run_id="r-1"))
    assert status == 201, data
    sub = await web.services.store.get_submission(data["id"])
    assert sub is not None
    assert sub.extra["provenance"] == {**told, "harness": "inspect", "run_id": "r-1"}
    async with web.session.get(data["url"] + ".json") as r:
        record = await r.json()
    assert record["provenance"] == told and record["signature"]
    async with web.session.get(web.base + "/b/primebench.json?provider=TOGETHER") as r:
        board = await r.json()
    assert [row["model"] for row in board["rows"]] == ["api-model"]
    for name, value in (("temperature", 3), ("reasoning", "max"), ("seed", "x"),
                        ("run_date", "yesterday"), ("log", "file:///etc/passwd"),
                        ("provider", "")):  # fmt: skip
        status, err, _ = await web.post(submission(**{name: value}))
        assert status == 422, (name, err)
        assert err["error"]["field"] == name and err["error"]["code"] == "invalid_field"
    # the tags in the output count too; the request's fields win
    status, data, _ = await web.post(
        submission(output="provider: Groq\nseed: 3\n" + output(10), seed=4)
    )
    assert status == 201, data
    sub = await web.services.store.get_submission(data["id"])
    assert sub is not None and sub.extra["provenance"] == {"provider": "Groq", "seed": 4}


async def test_benchboard_submit_sends_provenance(web: Api, tmp_path: Path) -> None:
    run = tmp_path / "run.txt"
    run.write_text(output(12))
    base = ["--server", web.base, "--benchmark", "primebench", "--model", "cli-model",
            "--mode", "default", "--publish"]  # fmt: skip
    code, out, err = await submit(
        str(run), *base, "--provider", "DeepInfra", "--temperature", "0", "--reasoning",
        "low", "--run-date", "2026-10-31", "--log", "https://example.com/l", token=web.token,
    )  # fmt: skip
    assert code == 0, err
    assert "primebench #" in out
    (sub,) = await web.services.store.history(OWNER)
    assert sub.extra["provenance"] == {
        "provider": "DeepInfra", "temperature": 0.0, "reasoning": "low",
        "run_date": "2026-10-31", "log": "https://example.com/l",
    }  # fmt: skip
    code, _, err = await submit(str(run), *base, "--temperature", "9", token=web.token)
    assert code == 2 and err.strip() == "benchboard: temperature: a number from 0 to 2"
    assert len(await web.services.store.history(OWNER)) == 1

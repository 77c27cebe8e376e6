"""The HTTP API (``/api/v1``) served by the real web server over HTTP: tokens, scoring
and publishing, idempotency, every error as JSON, the rate, and ``/openapi.json``."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.core import api

from .apikit import OWNER, Api, output, serve
from .openapi_check import SpecCheck


@pytest.fixture
async def web(tmp_path: Path) -> AsyncIterator[Api]:
    async for one in serve(tmp_path):
        yield one


def submission(**fields: Any) -> dict[str, Any]:
    return {
        "benchmark": "primebench",
        "output": output(15),
        "model": "api-model",
        "mode": "think",
        **fields,
    }


async def test_a_submission_is_scored_published_and_shown_to_its_owner(web: Api) -> None:
    status, data, _ = await web.post(submission(publish=True))
    assert status == 201, data
    assert data["benchmark"] == "primebench" and data["published"] is True
    assert data["correct"] == 15 and data["wrong"] == 5
    assert data["final_score"] == 15 - 3 * 5 and data["held"] is False
    assert data["url"].startswith(web.base + "/r/")
    # the result's page is served, and the board lists the model
    async with web.session.get(data["url"]) as r:
        assert r.status == 200 and "api-model" in await r.text()
    async with web.session.get(web.base + "/b/primebench.json") as r:
        board = await r.json()
    assert [row["model"] for row in board["rows"]] == ["api-model"]
    # it is a submission of the owner's, marked as made through the API
    sub = await web.services.store.get_submission(data["id"])
    assert sub is not None and sub.user_id == OWNER and sub.extra["source"] == "api"

    status, shown, _ = await web.get(f"/api/v1/submissions/{data['id']}")
    assert status == 200 and shown["final_score"] == 0 and shown["url"] == data["url"]
    status, err, _ = await web.get(f"/api/v1/submissions/{data['id']}", token=web.other)
    assert status == 404 and err["error"]["code"] == "not_found"
    assert (await web.get("/api/v1/submissions/999999"))[0] == 404
    status, me, _ = await web.get("/api/v1/me")
    assert status == 200 and me["user_id"] == OWNER
    assert [s["id"] for s in me["submissions"]] == [data["id"]]
    assert me["submissions"][0]["source"] == "api"


async def test_a_private_submission_and_the_fields(web: Api) -> None:
    status, data, _ = await web.post({"benchmark": "primebench", "output": output(20)})
    assert status == 201 and data["published"] is False and data["url"] is None
    assert data["final_score"] == 20 and data["model"] is None
    # a PrimeBench score comes with JibayAI's credit, as everywhere it is shown
    credit = "PrimeBench by JibayAI (jibay.ir), CC BY-ND 4.0"
    assert data["credit"] == credit
    status, again, _ = await web.get(f"/api/v1/submissions/{data['id']}")
    assert status == 200 and again["credit"] == credit
    status, me, _ = await web.get("/api/v1/me")
    assert status == 200 and me["submissions"][0]["credit"] == credit


async def test_the_same_idempotency_key_gives_the_same_submission(web: Api) -> None:
    key = {"Idempotency-Key": "ci-run-42"}
    first = await web.post(submission(publish=True), headers=key)
    again = await web.post(submission(publish=True), headers=key)
    assert (first[0], again[0]) == (201, 200)
    assert again[1]["id"] == first[1]["id"] and again[1]["url"] == first[1]["url"]
    # another key, and no key: new submissions; the stranger's same key is theirs
    other = await web.post(submission(), headers={"Idempotency-Key": "ci-run-43"})
    plain = await web.post(submission())
    theirs = await web.post(submission(), token=web.other, headers=key)
    ids = {first[1]["id"], other[1]["id"], plain[1]["id"], theirs[1]["id"]}
    assert len(ids) == 4
    assert (await web.post(submission(), headers={"Idempotency-Key": "x" * 201}))[0] == 400


async def test_an_idempotency_key_reused_for_another_request_422(web: Api) -> None:
    """The same key with another body is a client's mistake (a key reused for a new
    run), not a repeat: refused, naming the key's submission, nothing stored; the same
    body again (publish aside: a repeat may publish what the first kept) is the repeat."""
    key = {"Idempotency-Key": "ci-run-7"}
    status, first, _ = await web.post(submission(), headers=key)
    assert status == 201
    for changed in (
        {"output": output(3)},
        {"model": "another-model"},
        {"mode": "tools"},
        {"provider": "openrouter"},
        {"cost": 0.5},
    ):
        status, err, _ = await web.post(submission(**changed), headers=key)
        assert status == 422, (changed, err)
        assert err["error"]["code"] == "idempotency_key_reused"
        assert err["error"]["submission_id"] == first["id"]
    status, again, _ = await web.post(submission(publish=True), headers=key)
    assert status == 200 and again["id"] == first["id"] and again["published"] is True
    assert [s["id"] for s in (await web.get("/api/v1/me"))[1]["submissions"]] == [first["id"]]


async def test_concurrent_requests_with_one_key_make_one_submission(web: Api) -> None:
    key = {"Idempotency-Key": "ci-race"}
    answers = await asyncio.gather(
        *(web.post(submission(publish=True), headers=key) for _ in range(6))
    )
    statuses = sorted(status for status, _, _ in answers)
    assert statuses == [200] * 5 + [201], [d for _, d, _ in answers]
    assert len({data["id"] for _, data, _ in answers}) == 1
    assert len((await web.get("/api/v1/me"))[1]["submissions"]) == 1


@pytest.mark.parametrize(
    ("token", "code", "challenge"),
    [
        (None, "unauthorized", 'Bearer realm="benchboard"'),
        ("bb_" + "made-up" * 7, "invalid_token", 'error="invalid_token"'),
        ("not even a token", "invalid_token", 'error="invalid_token"'),
    ],
)
async def test_without_a_valid_token_401(
    web: Api, token: str | None, code: str, challenge: str
) -> None:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    async with web.session.post(
        web.base + "/api/v1/submissions", json=submission(), headers=headers
    ) as r:
        assert r.status == 401
        assert (await r.json())["error"]["code"] == code
        assert challenge in r.headers["WWW-Authenticate"]
    async with web.session.get(web.base + "/api/v1/me", headers=headers) as r:
        assert r.status == 401 and (await r.json())["error"]["code"] == code


async def test_another_scheme_is_asked_for_a_bearer_token(web: Api) -> None:
    headers = {"Authorization": "Basic dXNlcjpwYXNz"}
    async with web.session.get(web.base + "/api/v1/me", headers=headers) as r:
        assert r.status == 401 and (await r.json())["error"]["code"] == "unauthorized"
        assert r.headers["WWW-Authenticate"] == 'Bearer realm="benchboard"'


async def test_a_revoked_token_401(web: Api) -> None:
    assert (await web.get("/api/v1/me"))[0] == 200
    assert await api.revoke(web.services, OWNER) == 1
    status, err, _ = await web.post(submission())
    assert status == 401 and err["error"]["code"] == "invalid_token"
    fresh = await api.make_token(web.services, OWNER)
    assert (await web.get("/api/v1/me", token=fresh))[0] == 200


async def test_bad_bodies_400_and_bad_fields_422(web: Api) -> None:
    status, err, _ = await web.post(b"benchmark=primebench&output=1:2")
    assert status == 400 and err["error"]["code"] == "not_json"
    assert (await web.post([1, 2]))[0] == 400
    status, err, _ = await web.post({"benchmark": "primebench", "model": "m"})
    assert status == 400 and err["error"]["code"] == "missing_output"

    status, err, _ = await web.post(submission(mode=None, publish=True))
    assert status == 422 and err["error"]["field"] == "mode"
    assert "mode" in err["error"]["message"]
    status, err, _ = await web.post(submission(model=None, publish=True))
    assert status == 422 and err["error"]["field"] == "model"
    status, err, _ = await web.post(submission(benchmark="nosuchbench"))
    assert status == 422 and err["error"]["field"] == "benchmark"
    assert "primebench" in err["error"]["message"]
    status, err, _ = await web.post(submission(mode="sideways"))
    assert status == 422 and err["error"]["field"] == "mode"
    status, err, _ = await web.post(submission(publish="yes"))
    assert status == 422 and err["error"]["field"] == "publish"
    status, err, _ = await web.post(submission(output="  \n"))
    assert status == 422 and err["error"]["code"] == "empty"
    assert "<" not in err["error"]["message"]  # plain text, not the chat's HTML
    # nothing was stored by any of these
    assert (await web.get("/api/v1/me"))[1]["submissions"] == []


async def test_bodies_no_text_holds_are_refused_and_nothing_is_stored(web: Api) -> None:
    # JSON's "\\ud800" escapes a lone surrogate, which no UTF-8 text (and no store) holds
    raw = json.dumps(submission(publish=True)).encode()
    status, err, _ = await web.post(raw.replace(b'"1:', b'"\\ud800\\n1:', 1))
    assert status == 422 and err["error"]["field"] == "output"
    status, err, _ = await web.post(submission(provider="\ud800x", publish=True))
    assert status == 422 and err["error"]["field"] == "provider"
    notes: Any = "deep"
    for _ in range(40):
        notes = {"n": notes}
    status, err, _ = await web.post(submission(notes=notes))
    assert status == 422 and err["error"]["field"] == "notes"
    status, err, _ = await web.post(b"[" * 200_000 + b"]" * 200_000)
    assert status == 400 and err["error"]["code"] == "not_json"
    # JSON all the same, with a number Python will not read: said as it is
    huge = json.dumps(submission()).encode()[:-1] + b', "seed": ' + b"9" * 5000 + b"}"
    status, err, _ = await web.post(huge)
    assert status == 400 and err["error"]["code"] == "not_json"
    assert "a number of more than 4300 digits" in err["error"]["message"]
    for content_type, body in [
        ("multipart/form-data", b"garbage"),
        ("multipart/form-data; boundary=zz", b"garbage"),
        ("multipart/form-data; boundary=zz", b"--zz\r\nX: y\r\n\r\n1:2\r\n--zz--\r\n"),
    ]:
        status, err, _ = await web.post(body, headers={"Content-Type": content_type})
        assert status == 400 and err["error"]["code"] == "not_form", body
    assert (await web.get("/api/v1/me"))[1]["submissions"] == []


async def test_a_model_name_nothing_of_which_shows_422(web: Api) -> None:
    status, err, _ = await web.post(submission(model="\u200b\u200b", publish=True))
    assert status == 422 and err["error"]["field"] == "model"
    assert (await web.get("/api/v1/me"))[1]["submissions"] == []


async def http_exchange(web: Api, head: str, body: bytes) -> tuple[int, dict[str, Any]]:
    """One request written by hand (a header aiohttp would not send): its status and
    JSON answer."""
    host, port = web.base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(f"POST /api/v1/submissions HTTP/1.1\r\nHost: {host}\r\n".encode())
        writer.write(f"Authorization: Bearer {web.token}\r\n{head}\r\n".encode() + body)
        await writer.drain()
        status_line = await reader.readline()
        length = 0
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            length = int(value) if name.lower() == "content-length" else length
        return int(status_line.split()[1]), json.loads(await reader.readexactly(length))
    finally:
        writer.close()


async def test_a_content_length_that_is_no_number_400(web: Api) -> None:
    for given in ("abc", "-5", "1 2", "٣"):
        status, err = await http_exchange(web, f"Content-Length: {given}\r\n", b"{}")
        assert status == 400 and err["error"]["code"] == "bad_length", given


async def test_a_chunked_body_over_20_mb_413(web: Api) -> None:
    piece = b"1" * (1 << 20)
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for _ in range(21)) + b"0\r\n\r\n"
    status, err = await http_exchange(web, "Transfer-Encoding: chunked\r\n", chunked)
    assert status == 413 and err["error"]["code"] == "too_big"
    assert (await web.get("/api/v1/me"))[1]["submissions"] == []


async def test_over_20_mb_413_before_the_body_is_read(web: Api) -> None:
    body = b'{"benchmark": "primebench", "output": "' + b"1" * (21 << 20) + b'"}'
    headers = {**web.auth(), "Content-Type": "application/json"}
    async with web.session.post(
        web.base + "/api/v1/submissions", data=io.BytesIO(body), headers=headers, expect100=True
    ) as r:
        assert r.status == 413
        assert (await r.json())["error"]["code"] == "too_big"


async def test_a_file_upload_as_multipart(web: Api) -> None:
    form = aiohttp.FormData()
    form.add_field("benchmark", "primebench")
    form.add_field("model", "form-model")
    form.add_field("mode", "default")
    form.add_field("publish", "true")
    form.add_field("output", output(18).encode(), filename="out.txt", content_type="text/plain")
    async with web.session.post(
        web.base + "/api/v1/submissions", data=form, headers=web.auth()
    ) as r:
        data = await r.json()
        assert r.status == 201, data
    assert data["correct"] == 18 and data["published"] is True and data["model"] == "form-model"


async def test_a_form_says_what_it_means_or_is_refused(web: Api) -> None:
    """A form's publish is a yes or a no (a typo is refused, not taken for "no"); its
    output may be a file or a text field (curl -F output="..." sends a field)."""

    def form(publish: str, *, as_file: bool = True) -> aiohttp.FormData:
        data = aiohttp.FormData(default_to_multipart=True)  # as curl -F sends it
        for name, value in (("benchmark", "primebench"), ("model", "f"), ("mode", "think")):
            data.add_field(name, value)
        data.add_field("publish", publish)
        if as_file:
            data.add_field("output", output(12).encode(), filename="o.txt")
        else:
            data.add_field("output", output(12))
        return data

    for typo in ("ture", "maybe", "2"):
        async with web.session.post(
            web.base + "/api/v1/submissions", data=form(typo), headers=web.auth()
        ) as r:
            err = (await r.json())["error"]
            assert r.status == 422 and err["field"] == "publish", typo
    assert (await web.get("/api/v1/me"))[1]["submissions"] == []
    for word, published in (("false", False), ("no", False), ("", False), ("true", True)):
        async with web.session.post(
            web.base + "/api/v1/submissions", data=form(word, as_file=False), headers=web.auth()
        ) as r:
            data = await r.json()
            assert r.status == 201, data
            assert data["published"] is published and data["correct"] == 12
    # JSON: an output that is no text is a refused field, not a missing one
    status, err, _ = await web.post(submission(output=["1:2"]))
    assert status == 422 and err["error"]["field"] == "output"


async def test_the_daily_publish_limit_applies(tmp_path: Path) -> None:
    async for web in serve(tmp_path, daily_limit=1):
        assert (await web.post(submission(publish=True)))[0] == 201
        key = {"Idempotency-Key": "ci-over-limit"}
        status, err, response = await web.post(submission(publish=True), headers=key)
        assert status == 429 and err["error"]["code"] == "daily_limit"
        assert int(response.headers["Retry-After"]) > 0
        # the result is stored (private): the refusal names it and says what to do
        stored = err["error"]["submission_id"]
        assert isinstance(stored, int)
        assert f"stored as #{stored}, private" in err["error"]["message"]
        assert "same Idempotency-Key" in err["error"]["message"]
        status, shown, _ = await web.get(f"/api/v1/submissions/{stored}")
        assert status == 200 and shown["published"] is False and shown["final_score"] == 0
        # the same request again (the same key) is the same submission, still refused
        status, again, _ = await web.post(submission(publish=True), headers=key)
        assert status == 429 and again["error"]["submission_id"] == stored
        assert len((await web.get("/api/v1/me"))[1]["submissions"]) == 2
        # the next day (the count starts again), the same request publishes it
        web.services.settings.daily_limit = 2
        web.services.published.clear()
        status, done, _ = await web.post(submission(publish=True), headers=key)
        assert status == 200 and done["id"] == stored and done["published"] is True


async def test_a_banned_owner_is_refused_publishing(web: Api) -> None:
    await web.services.store.ban(OWNER, by=1, reason="spam")
    status, err, _ = await web.post(submission(publish=True))
    assert status == 403 and err["error"]["code"] == "banned_publish"


async def test_past_the_rate_429_with_retry_after(tmp_path: Path) -> None:
    async for web in serve(tmp_path, api_rate=6, api_burst=2):  # one per 10 s, 2 at once
        assert (await web.get("/api/v1/me"))[0] == 200
        assert (await web.post(submission()))[0] == 201
        status, err, response = await web.post(submission())
        assert status == 429 and err["error"]["code"] == "rate_limited"
        assert 1 <= int(response.headers["Retry-After"]) <= 10
        # true of three requests in a row: not "more than 6 a minute"
        wait = response.headers["Retry-After"]
        assert err["error"]["message"] == (
            f"over your rate (6 requests a minute, at most 2 in a row, all your tokens "
            f"together): try again in {wait} s"
        )
        # the rate is the owner's: a token made anew is no way round it ...
        fresh = await api.make_token(web.services, OWNER)
        status, err, _ = await web.get("/api/v1/me", token=fresh)
        assert status == 429 and err["error"]["code"] == "rate_limited"
        # ... and another owner's token is not held back
        assert (await web.get("/api/v1/me", token=web.other))[0] == 200


async def test_a_benchmark_without_its_key_503_telling_no_tale(web: Api) -> None:
    # the API tells no admin: its answer does not say the admins were told
    body = {"benchmark": "zerobench", "output": '{"question_id": "1", "response": "{7}"}'}
    status, err, _ = await web.post(body)
    assert status == 503 and err["error"]["code"] == "no_key"
    assert err["error"]["message"] == (
        "The ZeroBench answer key is not loaded yet, so I cannot score this: send it again "
        "in a while (/benchmarks says when the key is loaded)."
    )


async def test_openapi_describes_the_api_with_the_bearer_scheme(web: Api) -> None:
    async with web.session.get(web.base + "/openapi.json") as r:
        spec = json.loads(await r.text())
    assert spec["openapi"].startswith("3.")
    assert {"/api/v1/submissions", "/api/v1/submissions/{id}", "/api/v1/me"} <= set(spec["paths"])
    assert "/b/{benchmark}.json" in spec["paths"]  # the boards' downloads stay
    answers = spec["paths"]["/b/{benchmark}.json"]["get"]["responses"]
    assert answers["404"]["description"] == "no such benchmark, or a page past the last"
    assert answers["400"]["description"] == "a bad filter"
    assert spec["components"]["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": spec["components"]["securitySchemes"]["bearer"]["description"],
    }
    post = spec["paths"]["/api/v1/submissions"]["post"]
    assert post["security"] == [{"bearer": []}]
    assert {"201", "200", "400", "401", "413", "422", "429"} <= set(post["responses"])
    assert "Retry-After" in post["responses"]["429"]["headers"]
    # every reference resolves
    text = json.dumps(spec)
    for name in spec["components"]["schemas"]:
        assert f"#/components/schemas/{name}" in text or name in ("Board", "Row")
    refs = {ref.split("/")[-1] for ref in _refs(spec)}
    assert refs <= set(spec["components"]["schemas"])
    held = spec["components"]["schemas"]["Submission"]["properties"]["held"]
    assert "held for review" in held["description"] and held["type"] == "boolean"


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if "$ref" in node else []
        return found + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


async def test_unknown_api_paths_and_methods_are_json(web: Api) -> None:
    status, err, _ = await web.get("/api/v1/nothing")
    assert status == 404 and err["error"]["code"] == "not_found"
    async with web.session.get(web.base + "/api/v1/submissions", headers=web.auth()) as r:
        assert r.status == 405 and r.headers["Allow"] == "POST"
        assert "error" in await r.json()
    # a path that does not exist is not found, whatever the method
    for method in ("PUT", "PATCH", "DELETE", "POST"):
        async with web.session.request(method, web.base + "/api/v2/x", headers=web.auth()) as r:
            assert r.status == 404, method
            assert (await r.json())["error"]["code"] == "not_found", method


async def test_head_is_answered_where_get_is(web: Api) -> None:
    """A monitor's HEAD gets GET's status and headers, no body (as the boards answer it);
    a POST-only path says which methods it takes."""
    for path in ("/api/v1/me", "/api/v1/submissions/1"):
        async with web.session.head(web.base + path, headers=web.auth()) as r:
            assert r.status == (200 if path.endswith("me") else 404), path
            assert r.headers["Content-Type"].startswith("application/json")
            assert await r.read() == b""
        async with web.session.head(web.base + path) as r:
            assert r.status == 401 and "WWW-Authenticate" in r.headers
    async with web.session.post(web.base + "/api/v1/me", headers=web.auth()) as r:
        assert r.status == 405 and r.headers["Allow"] == "GET, HEAD"
    async with web.session.head(web.base + "/api/v1/submissions", headers=web.auth()) as r:
        assert r.status == 405 and r.headers["Allow"] == "POST"


async def test_a_token_in_the_address_is_refused_and_never_logged(
    web: Api, caplog: pytest.LogCaptureFixture
) -> None:
    """A token belongs in the Authorization header: one in the query string is refused
    (401, saying where it goes), and the access log does not keep it."""
    caplog.set_level(logging.INFO)
    for query in (f"access_token={web.token}", f"token={web.token}&x=1"):
        async with web.session.get(f"{web.base}/api/v1/me?{query}") as r:
            assert r.status == 401
            err = (await r.json())["error"]
        assert err["code"] == "unauthorized"
        assert "never in the address" in err["message"]
    async with web.session.get(f"{web.base}/b/primebench?q={web.other}") as r:
        assert r.status == 200
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "/api/v1/me?" in logged and "/b/primebench?" in logged
    assert web.token not in logged and web.other not in logged


class _Checked:
    """Requests whose answers are checked against the spec (and noted in ``seen``)."""

    def __init__(self, web: Api, spec: SpecCheck, seen: set[tuple[str, int]]) -> None:
        self.web, self.spec, self.seen = web, spec, seen

    async def call(self, method: str, path: str, spec_path: str, **kw: Any) -> int:
        async with self.web.session.request(method, self.web.base + path, **kw) as r:
            body = await r.read()
            self.spec.check(spec_path, method, r.status, r.headers.get("Content-Type"), body)
            self.seen.add((spec_path, r.status))
            return r.status


async def test_every_answer_is_as_openapi_describes_it(tmp_path: Path) -> None:
    """Each status the API answers (scored, repeated, every error) is one /openapi.json
    declares for its path and method, with a body valid against the declared schema."""
    async for web in serve(tmp_path, daily_limit=1, api_rate=0):
        async with web.session.get(web.base + "/openapi.json") as r:
            spec = SpecCheck(await r.json())
        seen: set[tuple[str, int]] = set()

        call = _Checked(web, spec, seen).call
        subs, one = "/api/v1/submissions", "/api/v1/submissions/{id}"
        auth = web.auth()
        key = {**auth, "Idempotency-Key": "spec-1"}
        assert await call("POST", subs, subs, json=submission(publish=True), headers=key) == 201
        assert await call("POST", subs, subs, json=submission(publish=True), headers=key) == 200
        assert await call("POST", subs, subs, json=submission(publish=True), headers=auth) == 429
        assert await call("POST", subs, subs, json=submission(model="x"), headers=key) == 422
        assert await call("POST", subs, subs, data=b"{", headers=auth) == 400
        assert await call("POST", subs, subs, json=submission(benchmark="no"), headers=auth) == 422
        assert await call("POST", subs, subs, json=submission()) == 401
        big = {**auth, "Content-Length": str(30 << 20), "Content-Type": "application/json"}
        assert await call("POST", subs, subs, data=b"{}", headers=big) in (413, 400)
        zero = {"benchmark": "zerobench", "output": '{"question_id": "1", "response": "{7}"}'}
        assert await call("POST", subs, subs, json=zero, headers=auth) == 503
        assert await call("GET", "/api/v1/submissions/1", one, headers=auth) == 200
        assert await call("GET", "/api/v1/submissions/1", one, headers=web.auth(web.other)) == 404
        assert await call("GET", "/api/v1/submissions/1", one) == 401
        assert await call("GET", "/api/v1/me", "/api/v1/me", headers=auth) == 200
        assert await call("GET", "/api/v1/me", "/api/v1/me") == 401
        # the wrong method is answered as the spec says too
        assert await call("GET", subs, subs, headers=auth) == 405
        assert await call("POST", "/api/v1/me", "/api/v1/me", headers=auth) == 405
        await web.services.store.ban(OWNER, by=1, reason="spam")
        assert await call("POST", subs, subs, json=submission(publish=True), headers=auth) == 403
        # the database gone: a transient fault, as described
        await web.services.store.close()
        assert await call("GET", "/api/v1/me", "/api/v1/me", headers=auth) == 503
        assert await call("GET", "/api/v1/submissions/1", one, headers=auth) == 503
        assert {status for path, status in seen if path == subs} == {
            200, 201, 400, 401, 403, 405, 413, 422, 429, 503,
        }  # fmt: skip

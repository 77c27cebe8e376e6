"""What makes a board trustworthy on the web (issue 31): every row's 95 % interval
(``ci95`` beside ``score`` in the JSON, two columns in the CSV, ``[low, high]`` on the
page, tied rows marked), results signed with the server's Ed25519 key (checked here with
the ``cryptography`` library directly, and by ``benchboard verify``), provenance shown
and filterable. Against a real store served by the real handlers."""

from __future__ import annotations

import asyncio
import base64
import csv
import io
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from bot.cli import main
from bot.core import signing
from scoring import registry
from storage import NewSubmission

from . import fixtures
from .conftest import Site


async def board(site: Site, path: str) -> dict[str, Any]:
    status, text, _ = await site.get(path)
    assert status == 200, text
    data: dict[str, Any] = json.loads(text)
    return data


def brackets(row: dict[str, Any]) -> bool:
    low, high = row["ci95"]
    return bool(low <= row["score"] <= high and low < high)


async def test_every_board_rows_json_has_ci95_bracketing_its_score(site: Site) -> None:
    prime = await board(site, "/b/primebench.json?per=100")
    assert len(prime["rows"]) == 34
    for row in prime["rows"]:
        assert list(row)[list(row).index("score") + 1] == "ci95"  # beside the score
        assert brackets(row), row
    zero = await board(site, "/b/zerobench.json")
    assert zero["rows"] and all(brackets(row) for row in zero["rows"])
    # a benchmark's authors' reported row has no answers to measure: null
    assert all(row["ci95"] is None for row in prime["reported"])
    # one Natory attempt is one expression, not a set of questions: no interval either
    natory = await board(site, "/b/natory.json")
    assert natory["rows"] and all(row["ci95"] is None for row in natory["rows"])


async def test_the_interval_is_over_questions_for_one_run_and_over_runs_for_several(
    site: Site,
) -> None:
    prime = registry.get("primebench")
    key = prime.load_key(fixtures.PRIME_KEY)
    first = await board(site, "/b/primebench.json?per=100")
    alpha = next(r for r in first["rows"] if r["model"] == "Alpha Large")
    # 18 right, 2 unanswered of 20: points 18 x (+1), 2 x 0 -> s = 0.308, SE = s * sqrt(20)
    assert alpha["ci95"] == pytest.approx([18 - 1.96 * 1.3784, 18 + 1.96 * 1.3784], abs=0.01)
    # two more runs of the same model and mode: the interval is their spread's
    store = site.state.services.store
    for n, right in enumerate((14, 10)):
        raw = fixtures.prime_text(right, 0)
        sub = await store.record_submission(
            NewSubmission(
                user_id=fixtures.PUBLIC_USER, chat_id=fixtures.PUBLIC_USER,
                message_id=90_000 + n, benchmark="primebench", raw=raw,
                result=prime.score(raw, key), scorer_version=prime.scorer_version,
                model="Alpha Large", mode="think",
            )
        )  # fmt: skip
        await store.publish(sub.id)
    site.state.forget()
    again = await board(site, "/b/primebench.json?per=100")
    alpha = next(r for r in again["rows"] if r["model"] == "Alpha Large")
    assert alpha["runs"] == 3 and alpha["score"] == 18
    # runs 18, 14, 10: s = 4, half-width 1.96 x 4
    assert alpha["ci95"] == pytest.approx([18 - 7.84, 18 + 7.84], abs=0.01)


async def test_the_csv_has_the_interval_beside_the_score(site: Site) -> None:
    status, text, _ = await site.get("/b/primebench.csv?per=100")
    assert status == 200
    rows = list(csv.DictReader(io.StringIO(text)))
    head = next(csv.reader(io.StringIO(text)))
    at = head.index("score")
    assert head[at + 1 : at + 3] == ["ci95_low", "ci95_high"]
    scored = [r for r in rows if r["mark"] != "reported" and r["model"]]
    assert scored and all(
        float(r["ci95_low"]) <= float(r["score"]) <= float(r["ci95_high"]) for r in scored
    )


async def test_rows_whose_interval_overlaps_the_row_above_are_marked_tied(site: Site) -> None:
    data = await board(site, "/b/primebench.json?per=10")
    status, page, _ = await site.get("/b/primebench?per=10")
    assert status == 200
    body = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    cells = [row.split("</td>", 1)[0] for row in body.split("<tr")[1:]]
    expected = [False] + [
        below["ci95"][1] >= above["ci95"][0] and above["ci95"][1] >= below["ci95"][0]
        for above, below in zip(data["rows"], data["rows"][1:], strict=False)
    ]
    assert [('class="tied"' in cell) for cell in cells] == expected
    assert any(expected)  # the fixture's close scores overlap
    assert 'class="ci"' in body and "[" in body


async def test_signing_key_and_signed_result_verify_with_a_standard_library(
    site: Site, tmp_path: Path
) -> None:
    status, text, response = await site.get("/signing-key")
    assert status == 200 and response.headers["Content-Type"].startswith("application/json")
    key = json.loads(text)
    assert key["alg"] == "Ed25519"
    raw = base64.b64decode(key["public_key"])
    assert len(raw) == 32
    public = Ed25519PublicKey.from_public_bytes(raw)

    token = site.tokens["best"]
    status, text, _ = await site.get(f"/r/{token}.json")
    assert status == 200
    record = json.loads(text)
    for name in ("benchmark", "model", "mode", "score", "scores", "breakdown", "key_sha256",
                 "scorer_version", "published_at", "marks", "signature"):  # fmt: skip
        assert name in record, name
    assert record["benchmark"] == "primebench" and record["model"] == "Alpha Large"
    assert record["marks"] == ["self"] and len(record["key_sha256"]) == 64
    assert record["url"] == f"{site.base}/r/{token}.json"
    assert record["credit"] == "PrimeBench by JibayAI (jibay.ir), CC BY-ND 4.0"

    def check(data: dict[str, Any]) -> None:
        rest = {k: v for k, v in data.items() if k != "signature"}
        signed = json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        public.verify(base64.b64decode(data["signature"]), signed.encode("utf-8"))

    check(record)
    for name, value in (("score", record["score"] + 1), ("model", "Another"),
                        ("marks", ["verified"])):  # fmt: skip
        with pytest.raises(InvalidSignature):
            check({**record, name: value})
    # a verified result says so
    status, text, _ = await site.get(f"/r/{site.tokens['second']}.json")
    assert json.loads(text)["marks"] == ["verified"]
    # a run by Benchboard carries that mark first (it is verified too), signed
    store = site.state.services.store
    await store.mark_benchboard(site.filled.ids["group"])
    token = await store.link("result", site.filled.ids["group"])
    status, text, _ = await site.get(f"/r/{token}.json")
    ran = json.loads(text)
    assert status == 200 and ran["marks"] == ["benchboard", "verified"]
    check(ran)
    # hidden and withdrawn results are not served
    for gone in ("hidden", "withdrawn"):
        status, _, _ = await site.get(f"/r/{site.tokens[gone]}.json")
        assert status == 404

    # benchboard verify agrees: offline with the key's file, by its URL, by the record's
    good, bad, key_file = tmp_path / "good.json", tmp_path / "bad.json", tmp_path / "key.json"
    good.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    bad.write_text(json.dumps({**record, "score": 99}), encoding="utf-8")
    key_file.write_text(json.dumps(key))
    assert main(["verify", str(good), "--key", str(key_file)]) == 0
    assert main(["verify", str(bad), "--key", str(key_file)]) == 1
    assert await asyncio.to_thread(main, ["verify", str(good)]) == 0
    url = f"{site.base}/signing-key"
    assert await asyncio.to_thread(main, ["verify", str(bad), "--key", url]) == 1


async def test_verify_says_one_plain_line(site: Site, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    _, text, _ = await site.get(f"/r/{site.tokens['best']}.json")
    record = json.loads(text)
    _, key, _ = await site.get("/signing-key")
    (tmp_path / "key.json").write_text(key)
    (tmp_path / "r.json").write_text(text)
    assert main(["verify", str(tmp_path / "r.json"), "--key", str(tmp_path / "key.json")]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("valid: ") and out.out.count("\n") == 1
    (tmp_path / "r.json").write_text(json.dumps({**record, "mode": "tools"}))
    assert main(["verify", str(tmp_path / "r.json"), "--key", str(tmp_path / "key.json")]) == 1
    out = capsys.readouterr()
    assert out.err.startswith("NOT VALID: ") and out.err.count("\n") == 1
    assert "Traceback" not in out.err
    # a signature cut short says so, rather than blaming the record or the key
    for cut in (record["signature"][:40], record["signature"][:-4]):
        (tmp_path / "r.json").write_text(json.dumps({**record, "signature": cut}))
        assert main(["verify", str(tmp_path / "r.json"), "--key", str(tmp_path / "key.json")]) == 1
        err = capsys.readouterr().err
        assert err.startswith("NOT VALID: ") and "not 64: it was cut short or changed" in err
    # a record that names no server needs --key; a missing file is bad input
    (tmp_path / "r.json").write_text(json.dumps({k: v for k, v in record.items() if k != "url"}))
    assert main(["verify", str(tmp_path / "r.json")]) == 2
    assert "--key" in capsys.readouterr().err
    assert main(["verify", str(tmp_path / "none.json"), "--key", str(tmp_path / "key.json")]) == 2


async def test_the_key_is_kept_private_in_the_data_folder_and_reused(site: Site) -> None:
    await site.get("/signing-key")
    path = site.state.services.settings.data_dir / signing.KEY_FILE
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    first = signing.file_key(path)
    assert signing.public_bytes(first) == signing.public_bytes(signing.file_key(path))
    # the database (what /backup sends) does not hold it
    assert path.read_bytes().splitlines()[1] not in site.filled.path.read_bytes()


async def test_the_result_page_links_its_json_and_shows_provenance(site: Site) -> None:
    prime = registry.get("primebench")
    key = prime.load_key(fixtures.PRIME_KEY)
    store = site.state.services.store
    raw = fixtures.prime_text(16, 1)
    told = {"provider": "OpenRouter", "temperature": 0.7, "seed": 42, "reasoning": "high",
            "run_date": "2026-11-30", "log": "https://example.com/run.eval"}  # fmt: skip
    sub = await store.record_submission(
        NewSubmission(
            user_id=fixtures.PUBLIC_USER, chat_id=fixtures.PUBLIC_USER, message_id=91_000,
            benchmark="primebench", raw=raw, result=prime.score(raw, key),
            scorer_version=prime.scorer_version, model="Delta Routed", mode="default",
            extra={"provenance": told}, provider="OpenRouter",
        )
    )  # fmt: skip
    await store.publish(sub.id)
    token = await store.link("result", sub.id)
    status, page, _ = await site.get(f"/r/{token}")
    assert status == 200
    assert f'href="/r/{token}.json"' in page and 'href="/signing-key"' in page
    assert "OpenRouter" in page and "2026-11-30" in page and "Reasoning effort" in page
    assert 'href="https://example.com/run.eval"' in page
    _, text, _ = await site.get(f"/r/{token}.json")
    assert json.loads(text)["provenance"] == told
    # the board filters by provider (ignoring case); a group's board does not take it
    only = await board(site, "/b/primebench.json?provider=openrouter")
    assert [r["model"] for r in only["rows"]] == ["Delta Routed"]
    assert only["filters"]["provider"] == "openrouter"
    assert all(brackets(r) for r in only["rows"])
    none = await board(site, "/b/primebench.json?provider=nobody")
    assert none["rows"] == []
    status, _, _ = await site.get(f"/g/{site.tokens['web']}?provider=openrouter")
    assert status == 400
    status, _, _ = await site.get("/b/primebench.json?provider=" + "x" * 65)
    assert status == 400


async def test_openapi_describes_the_signed_results(site: Site) -> None:
    status, text, _ = await site.get("/openapi.json")
    assert status == 200
    spec = json.loads(text)
    assert "/signing-key" in spec["paths"] and "/r/{token}.json" in spec["paths"]
    params = spec["paths"]["/b/{benchmark}.json"]["get"]["parameters"]
    assert any(p["name"] == "provider" for p in params)
    assert "ci95" in spec["components"]["schemas"]["Row"]["properties"]

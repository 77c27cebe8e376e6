"""``benchboard verify`` of records a user kept: rewritten by a JSON tool (jq writes
87.0 as 87), signed before whole numbers were written plainly, tampered with, cut short,
odd, or signed by another key (rotated)."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bot.cli import main
from bot.core import signing

#: A record as ``/r/<token>.json`` gives it, before its signature (its floats as the
#: store gives them: the score and the shares are floats, whole or not).
RECORD: dict[str, Any] = {
    "benchmark": "primebench",
    "model": "Alpha Large",
    "mode": "think",
    "score": 87.0,
    "ci95": [80.0, 93.5],
    "scores": {"final_score": 87, "correct": 50, "accuracy": 0.5, "coverage": 1.0},
    "breakdown": {"total_questions": 104, "correct": 50, "wrong": 0, "invalid_line_count": 0},
    "key_sha256": "ab" * 32,
    "key_version": 2,
    "scorer_version": "primebench-v1",
    "submitted_at": "2026-12-01T10:00:00+00:00",
    "published_at": "2026-12-01T10:01:00+00:00",
    "marks": ["self"],
    "provenance": {},
    "url": "https://bot.example.com/r/Xk3.json",
    "page": "https://bot.example.com/r/Xk3",
    "credit": "PrimeBench by JibayAI, CC BY-ND 4.0",
}


def _jq(text: str) -> str:
    """What ``jq .`` makes of a JSON text (jq itself when installed)."""
    if shutil.which("jq"):
        return subprocess.run(
            ["jq", "."], input=text, capture_output=True, text=True, check=True
        ).stdout

    def whole(value: Any) -> Any:
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, dict):
            return {k: whole(v) for k, v in value.items()}
        if isinstance(value, list):
            return [whole(v) for v in value]
        return value

    return json.dumps(whole(json.loads(text)), indent=2, ensure_ascii=False)


def _legacy(record: dict[str, Any], key: Ed25519PrivateKey) -> dict[str, Any]:
    """A record as the server signed it before whole numbers were written plainly."""
    signature = key.sign(signing.canonical(record))
    return {**record, "signature": base64.b64encode(signature).decode("ascii")}


@pytest.fixture
def key(tmp_path: Path) -> Ed25519PrivateKey:
    made = Ed25519PrivateKey.generate()
    (tmp_path / "key.json").write_text(json.dumps(signing.public_json(made)))
    return made


def _verify(tmp_path: Path, text: str, key_file: str = "key.json") -> int:
    (tmp_path / "r.json").write_text(text, encoding="utf-8")
    return main(["verify", str(tmp_path / "r.json"), "--key", str(tmp_path / key_file)])


def test_a_record_rewritten_by_jq_still_verifies(
    tmp_path: Path, key: Ed25519PrivateKey, capsys: pytest.CaptureFixture[str]
) -> None:
    """The server writes whole numbers plainly (87, not 87.0): jq leaves the signed
    bytes as they were, and the record verifies as it is."""
    served = json.dumps(signing.sign(RECORD, key), ensure_ascii=False, indent=1)
    assert '"score": 87,' in served and type(json.loads(served)["scores"]["coverage"]) is int
    assert _verify(tmp_path, _jq(served)) == 0
    out = capsys.readouterr().out
    assert out.startswith("valid: ") and out.count("\n") == 1
    assert "numbers were rewritten" not in out
    # still a check: a changed number does not verify
    assert _verify(tmp_path, _jq(served).replace('"score": 87', '"score": 88')) == 1
    assert "does not match" in capsys.readouterr().err


def test_an_older_record_rewritten_by_jq_verifies_saying_so(
    tmp_path: Path, key: Ed25519PrivateKey, capsys: pytest.CaptureFixture[str]
) -> None:
    """A record signed before (87.0 in the signed bytes) and rewritten by jq (87): the
    same values, so it is valid, and verify says its numbers were rewritten."""
    older = json.dumps(_legacy(RECORD, key), ensure_ascii=False, indent=1)
    assert _verify(tmp_path, older) == 0
    assert "numbers were rewritten" not in capsys.readouterr().out
    rewritten = _jq(older)
    assert '"score": 87,' in rewritten
    assert _verify(tmp_path, rewritten) == 0
    out = capsys.readouterr().out
    assert out.startswith("valid: ") and out.count("\n") == 1
    assert "its whole numbers were rewritten (87.0 as 87, as jq does)" in out
    # rewritten and changed: not valid, whatever numbers are written back
    assert _verify(tmp_path, rewritten.replace('"model": "Alpha Large"', '"model": "Alpha"')) == 1
    err = capsys.readouterr().err
    assert err.startswith("NOT VALID: ") and "does not match" in err and err.count("\n") == 1
    changed = json.loads(rewritten)
    changed["ci95"] = [80, 94]  # a whole number written back does not make it valid
    assert _verify(tmp_path, json.dumps(changed)) == 1
    capsys.readouterr()


def test_odd_records_and_another_key_are_one_line_each(
    tmp_path: Path, key: Ed25519PrivateKey, capsys: pytest.CaptureFixture[str]
) -> None:
    served = json.dumps(signing.sign(RECORD, key))
    # signed by another key (the server's key rotated, or another server's)
    other = Ed25519PrivateKey.generate()
    (tmp_path / "other.json").write_text(json.dumps(signing.public_json(other)))
    assert _verify(tmp_path, served, "other.json") == 1
    assert "another key signed it" in capsys.readouterr().err
    # cut short: not JSON (bad input, exit 2)
    assert _verify(tmp_path, served[: len(served) // 2]) == 2
    assert "not a JSON file" in capsys.readouterr().err
    for odd, why, code in (
        ("[1, 2]", "not a JSON object", 2),
        (json.dumps({**json.loads(served), "signature": 5}), "has no signature", 1),
        (json.dumps({**json.loads(served), "signature": "!!"}), "not base64", 1),
        (json.dumps({k: v for k, v in json.loads(served).items() if k != "signature"}),
         "has no signature", 1),
    ):  # fmt: skip
        assert _verify(tmp_path, odd) == code, odd
        err = capsys.readouterr().err
        assert why in err and err.count("\n") == 1 and "Traceback" not in err


def test_records_and_keys_nested_too_deeply_or_badly_addressed_are_one_line(
    tmp_path: Path, key: Ed25519PrivateKey, capsys: pytest.CaptureFixture[str]
) -> None:
    """No traceback for a record or key nested thousands of levels deep, a record
    nested just below what the JSON reader takes, or a record whose url is no address."""
    served = signing.sign(RECORD, key)
    assert _verify(tmp_path, "[" * 100_000 + "]" * 100_000) == 2
    err = capsys.readouterr().err
    assert "nested too deeply" in err and "Traceback" not in err
    deep: Any = 1
    for _ in range(950):
        deep = [deep]
    assert _verify(tmp_path, json.dumps({**served, "breakdown": deep})) == 1
    err = capsys.readouterr().err
    assert "does not match" in err and "Traceback" not in err
    (tmp_path / "deep-key.json").write_text("[" * 40_000)
    assert _verify(tmp_path, json.dumps(served), "deep-key.json") == 2
    err = capsys.readouterr().err
    assert "the public key is not base64" in err and "Traceback" not in err
    (tmp_path / "r.json").write_text(json.dumps({**served, "url": "https://[::1/r/x.json"}))
    assert main(["verify", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err
    assert "url is not an address: give --key" in err and "Traceback" not in err


def test_the_key_is_fetched_beside_the_record_under_the_sites_path(
    tmp_path: Path, key: Ed25519PrivateKey, capsys: pytest.CaptureFixture[str]
) -> None:
    """A site served under a path (BENCHBOARD_WEB_URL=https://example.com/boards): its
    records' url is .../boards/r/<token>.json and its key .../boards/signing-key, which
    is where verify fetches it without --key."""
    import http.server
    import threading

    body = json.dumps(signing.public_json(key)).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # (the standard library names it)
            found = self.path == "/boards/signing-key"
            self.send_response(200 if found else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body if found else b'{"error": "not found"}')

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/boards"
        record = {**RECORD, "url": f"{base}/r/Xk3.json", "page": f"{base}/r/Xk3"}
        (tmp_path / "r.json").write_text(json.dumps(signing.sign(record, key)))
        assert main(["verify", str(tmp_path / "r.json")]) == 0
        assert f"signed by the key at {base}/signing-key" in capsys.readouterr().out
    finally:
        server.shutdown()
        server.server_close()

"""``benchboard verify FILE.json [--key URL-or-file]``: check a signed result
(``/r/<token>.json``) against the server's public key (``/signing-key``).

The key is ``--key``: a file (``/signing-key``'s JSON, or the base64 of the 32 raw
bytes), or that base64 itself — then nothing goes over the network — or a URL to fetch
it from. Without
``--key`` it is fetched from the server the record names (its ``url``: the same origin's
``/signing-key``); a record that names none needs ``--key``.

Exit codes: 0 the signature is valid (one line saying what was signed); 1 it is not (one
line saying why); 2 bad input (no such file, not JSON, no key to check with, a key that
cannot be fetched or read). Loads neither the database nor the bot.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .cli_common import Load, fail

EXIT_INVALID = 1
#: Seconds to fetch a key.
TIMEOUT = 20.0
MAX_KEY_BYTES = 64 * 1024
#: The largest record read: a result's signed JSON is a few kilobytes (its breakdown
#: without the invalid lines' text); a larger file is no such record, and is not read.
MAX_RECORD_BYTES = 4 * 1024 * 1024


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE.json", help="a signed result (/r/<token>.json)")
    parser.add_argument(
        "--key",
        help="the public key: a file (/signing-key's JSON, or its base64), the base64 itself, "
        "or a URL to fetch it from (default: /signing-key of the server the record came from)",
    )
    parser.set_defaults(handler=cmd_verify)


def _fetch(url: str) -> str:
    import urllib.error
    import urllib.request

    if urlsplit(url).scheme not in ("http", "https"):
        fail(f"not an http(s) address: {url}")
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            data: bytes = response.read(MAX_KEY_BYTES + 1)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        fail(f"cannot fetch the key from {url}: {getattr(exc, 'reason', exc)}")
    if len(data) > MAX_KEY_BYTES:
        fail(f"{url} is not a signing key (too large)")
    return data.decode("utf-8", "replace")


def _key_text(given: str | None, record: dict[str, Any]) -> tuple[str, str]:
    """The key's text and where it came from ("" for the key itself, given as text)."""
    if given is None:
        try:
            origin = urlsplit(str(record.get("url") or ""))
        except ValueError:  # (an IPv6 host not closed, …)
            fail("the record's url is not an address: give --key (a file or URL)")
        if origin.scheme not in ("http", "https") or not origin.netloc:
            fail("the record does not say where it came from: give --key (a file or URL)")
        # beside /r/ on that server, under the path it is served at (a site at /boards/)
        base = origin.path.rpartition("/r/")[0] if "/r/" in origin.path else ""
        given = f"{origin.scheme}://{origin.netloc}{base}/signing-key"
    if given.startswith(("http://", "https://")):
        return _fetch(given), given
    path = Path(given)
    if not path.is_file():
        if _is_base64_key(given):  # the key itself, as /signing-key gives it
            return given, ""
        fail(f"no such key file: {given}")
    with path.open("rb") as f:
        return f.read(MAX_KEY_BYTES).decode("utf-8", "replace"), given


def _is_base64_key(text: str) -> bool:
    import base64
    import binascii

    try:
        return len(base64.b64decode(text.strip(), validate=True)) == 32
    except (binascii.Error, ValueError):
        return False


def cmd_verify(args: argparse.Namespace, load: Load) -> int:
    from .core import signing

    path = Path(args.file)
    if path.is_dir():
        fail(f"{args.file} is a directory, not a file")
    if not path.is_file():
        fail(f"no such file: {args.file}")
    with path.open("rb") as f:
        data = f.read(MAX_RECORD_BYTES + 1)
    if len(data) > MAX_RECORD_BYTES:
        fail(f"{args.file}: not a signed result (over {MAX_RECORD_BYTES >> 20} MB)")
    try:
        record = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        fail(f"{args.file}: not a JSON file")
    except RecursionError:
        fail(f"{args.file}: not a signed result (nested too deeply)")
    if not isinstance(record, dict):
        fail(f"{args.file}: not a signed result (not a JSON object)")
    text, source = _key_text(args.key, record)
    try:
        parsed: Any = json.loads(text)
    except (ValueError, RecursionError):
        parsed = text
    try:
        public = signing.public_key_of(parsed if isinstance(parsed, dict) else text)
    except signing.BadSignature as exc:
        fail(f"{source or '--key'}: {exc}")
    try:
        rewritten = signing.verify(record, public)
    except signing.BadSignature as exc:
        print(f"NOT VALID: {args.file}: {exc}", file=sys.stderr)
        return EXIT_INVALID
    what = " ".join(
        str(record[k]) for k in ("benchmark", "model", "mode") if record.get(k) is not None
    )
    note = ""
    if rewritten:  # an older record that went through jq or the like: the same values
        note = (
            "; its whole numbers were rewritten (87.0 as 87, as jq does), "
            "the values are those signed"
        )
    by = f"the key at {source}" if source else "the key given"
    print(f"valid: {args.file} ({what}, score {record.get('score')}) signed by {by}{note}")
    return 0

"""Signed results: the server's Ed25519 key pair, and published results signed with it.

A published result is also ``GET /r/<token>.json``: a record (benchmark, model, mode,
scores, breakdown, the key's SHA-256, scorer version, published time, marks, provenance)
with ``"signature"``, the base64 of the Ed25519 signature over the UTF-8 bytes of
``json.dumps(record_without_signature, sort_keys=True, separators=(",", ":"),
ensure_ascii=False)`` (:func:`canonical`), its whole numbers written plainly (87, not
87.0: :func:`plain_numbers`), so a JSON tool that rewrites numbers (jq) leaves the
signed bytes as they were. ``GET /signing-key`` gives the public key
(``{"alg": "Ed25519", "public_key": "<base64 of the 32 raw bytes>"}``); anyone can check
a record offline with any Ed25519 library, or with ``benchboard verify``.

**Where the private key lives.** It is made at the first start and kept:

- with SQLite (one machine): in the data folder, ``<data>/signing-key.pem`` (PKCS #8,
  mode 0600). Never in the database, so ``/backup`` (a copy of the database sent to
  chat) and the nightly snapshots never hold it; back the file up with the folder.
  Processes starting together (``benchboard run`` and ``benchboard web`` on one folder)
  make it race-free: each writes its own candidate under a temporary name and links it
  into place (``os.link`` fails when the name exists), and every one reads what is there.
- with PostgreSQL (several instances, maybe on several machines): in the database,
  ``shared_state`` (``secret:signing_key``), inserted once (``ON CONFLICT DO NOTHING``)
  and read back, so every instance signs with the one key the first instance made (the
  SQLite deployment's ``signing-key.pem``, when its data folder holds one: a move to
  PostgreSQL keeps the key, and the records signed before still verify).
  ``shared_state`` is never copied by ``db port`` nor into a backup.

The private key is never logged and never leaves the process but as signatures.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import itertools
import json
import logging
import os
import secrets
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

if TYPE_CHECKING:
    from .services import Services

log = logging.getLogger("benchboard.signing")

ALG = "Ed25519"
#: The key file in the data folder (SQLite deployments).
KEY_FILE = "signing-key.pem"
#: Its name in ``shared_state`` (PostgreSQL deployments).
SECRET_NAME = "signing_key"
#: The length of an Ed25519 signature.
SIGNATURE_BYTES = 64
#: Whole numbers below this are exact as floats (2**53).
_EXACT = 2**53
#: Groups of whole numbers (by name) a record signed before whole numbers were written
#: plainly may have had as floats besides its score and interval, tried together at most.
_REWRITTEN_AT_MOST = 3


# --- the record and its signature (pure) -------------------------------------------------


def canonical(record: Mapping[str, Any]) -> bytes:
    """The bytes a record's signature is over: the record without ``signature``, as
    sorted, compact JSON in UTF-8 (non-ASCII characters as they are)."""
    rest = {k: v for k, v in record.items() if k != "signature"}
    text = json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def plain_numbers(value: Any) -> Any:
    """``value`` with every whole number written as an integer (87.0 as 87): what a
    JSON tool that rewrites numbers (jq writes 87.0 as 87) leaves as it is, so a signed
    record still verifies after it went through one."""
    if isinstance(value, float) and value.is_integer() and abs(value) < _EXACT:
        return int(value)
    if isinstance(value, Mapping):
        return {k: plain_numbers(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_numbers(v) for v in value]
    return value


def sign(record: Mapping[str, Any], key: Ed25519PrivateKey) -> dict[str, Any]:
    """The record with its ``signature`` (base64); its whole numbers written as
    integers (:func:`plain_numbers`)."""
    rest = plain_numbers({k: v for k, v in record.items() if k != "signature"})
    signature = key.sign(canonical(rest))
    return {**rest, "signature": base64.b64encode(signature).decode("ascii")}


class BadSignature(Exception):
    """A record that does not verify; the message says why, in one line."""


def public_bytes(key: Ed25519PrivateKey | Ed25519PublicKey) -> bytes:
    """The 32 raw bytes of the public key."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def public_json(key: Ed25519PrivateKey) -> dict[str, str]:
    """What ``GET /signing-key`` answers."""
    return {"alg": ALG, "public_key": base64.b64encode(public_bytes(key)).decode("ascii")}


def public_key_of(data: Mapping[str, Any] | str) -> bytes:
    """The raw public key from ``/signing-key``'s JSON, or from its base64 text;
    :class:`BadSignature` for anything else."""
    if isinstance(data, Mapping):
        if data.get("alg") != ALG:
            raise BadSignature(f"the key is not an {ALG} key")
        data = data.get("public_key", "")
        if not isinstance(data, str):
            raise BadSignature("the key has no public_key")
    try:
        raw = base64.b64decode(data.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise BadSignature("the public key is not base64") from None
    if len(raw) != 32:
        raise BadSignature("the public key is not 32 bytes")
    return raw


def verify(record: Mapping[str, Any], public_key: bytes) -> bool:
    """Check a record's signature with a raw public key; :class:`BadSignature` when it
    does not verify (or has none). True when it verifies only with some of its whole
    numbers written back as floats: a record signed before they were written plainly
    (87.0) that a JSON tool rewrote (87), its values those signed."""
    given = record.get("signature")
    if not isinstance(given, str):
        raise BadSignature("the record has no signature")
    try:
        signature = base64.b64decode(given, validate=True)
    except (binascii.Error, ValueError):
        raise BadSignature("the signature is not base64") from None
    if len(signature) != SIGNATURE_BYTES:  # not the record's fault, nor the key's
        raise BadSignature(
            f"the signature is {len(signature)} bytes, not {SIGNATURE_BYTES}: "
            "it was cut short or changed"
        )
    try:
        public = Ed25519PublicKey.from_public_bytes(public_key)
    except ValueError:
        raise BadSignature("the public key is not an Ed25519 key") from None

    def matches(data: Mapping[str, Any]) -> bool:
        try:
            public.verify(signature, canonical(data))
        except (InvalidSignature, ValueError):
            return False
        return True

    try:
        if matches(record):
            return False
        for written_back in _floats_back(record):
            if matches(written_back):
                return True
    except RecursionError:  # nested deeper than any record the server signs
        pass
    raise BadSignature(
        "the signature does not match: the record was changed, or another key signed it"
    )


def _floats_back(record: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The record with whole numbers written back as floats, as a record signed before
    they were written plainly may have had them: its score and interval always (they
    were floats), and up to :data:`_REWRITTEN_AT_MOST` more groups of whole numbers, a
    group being those under one name (``coverage``, ``accuracy``, …)."""
    names: dict[str, None] = {}

    def collect(value: Any, name: str) -> None:
        if isinstance(value, Mapping):
            for k, v in value.items():
                collect(v, str(k))
        elif isinstance(value, list):
            for v in value:
                collect(v, name)
        elif type(value) is int:
            names[name] = None

    always = ("score", "ci95")
    for key, value in record.items():
        if key not in (*always, "signature"):
            collect(value, key)
    if len(names) > 32:  # not a record the server made
        return

    def back(value: Any, name: str, chosen: frozenset[str]) -> Any:
        if isinstance(value, Mapping):
            return {k: back(v, str(k), chosen) for k, v in value.items()}
        if isinstance(value, list):
            return [back(v, name, chosen) for v in value]
        if type(value) is int and abs(value) < _EXACT and name in chosen:
            return float(value)
        return value

    groups = list(names)
    for size in range(min(_REWRITTEN_AT_MOST, len(groups)) + 1):
        for chosen in itertools.combinations(groups, size):
            picked = frozenset(chosen)
            yield {
                k: back(v, k, frozenset([k]) if k in always else picked) if k != "signature" else v
                for k, v in record.items()
            }


# --- the private key ------------------------------------------------------------------------


def _pem(key: Ed25519PrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode("ascii")


def _from_pem(text: str) -> Ed25519PrivateKey:
    key = serialization.load_pem_private_key(text.encode("ascii"), password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError("the signing key is not an Ed25519 key")
    return key


def file_key(path: Path) -> Ed25519PrivateKey:
    """The key in ``path``, made there first when there is none (mode 0600; race-free
    between processes: a candidate is linked into place, the first link wins)."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        candidate = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="ascii") as out:
                out.write(_pem(Ed25519PrivateKey.generate()))
                out.flush()
                os.fsync(out.fileno())
            try:
                os.link(candidate, path)
                log.info("made the signing key (%s)", path)
            except FileExistsError:
                pass  # another process made it first: theirs is the key
        finally:
            candidate.unlink(missing_ok=True)
    return _from_pem(path.read_text(encoding="ascii"))


def _moved(path: Path) -> str | None:
    """The key an SQLite deployment kept in ``path``, when there is one that reads."""
    try:
        text = path.read_text(encoding="ascii")
        _from_pem(text)
    except (OSError, ValueError):
        return None
    return text


async def load(services: Services) -> Ed25519PrivateKey:
    """The server's signing key, made at the first start (see the module's notes). The
    first start on PostgreSQL keeps the key of the SQLite deployment it moved from, when
    its data folder holds one: the results signed before still verify."""
    if services.store.shared:
        kept = await asyncio.to_thread(_moved, services.settings.data_dir / KEY_FILE)
        made = kept or _pem(Ed25519PrivateKey.generate())
        return _from_pem(await services.store.first_secret(SECRET_NAME, made))
    return await asyncio.to_thread(file_key, services.settings.data_dir / KEY_FILE)


class KeyUnavailable(Exception):
    """The signing key cannot be read or made (a data folder that cannot be written)."""


@dataclass
class Signer:
    """The signing key of a running server, loaded once (on first use, or at start)."""

    key: Ed25519PrivateKey | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def get(self, services: Services) -> Ed25519PrivateKey:
        if self.key is None:
            async with self.lock:
                if self.key is None:
                    try:
                        self.key = await load(services)
                    except (OSError, ValueError) as exc:
                        log.warning("the signing key is unavailable: %s", type(exc).__name__)
                        raise KeyUnavailable from None
        return self.key


async def ensure(services: Services) -> bool:
    """Make (or read) the signing key at start; False, logged, when it cannot be kept
    (a data folder that cannot be written): the results are then served unsigned no
    more than the key is, and ``/signing-key`` answers 503."""
    try:
        await load(services)
    except (OSError, ValueError) as exc:
        log.warning("the signing key is unavailable: %s", type(exc).__name__)
        return False
    return True

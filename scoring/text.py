"""Decoding submission bytes into text, the same way for every benchmark."""

from __future__ import annotations

import re

from .errors import DecodeError

#: The longest model name kept (characters, after whitespace is folded): the store's
#: limit, here so that reading tags (the command line's too) needs no storage.
MAX_MODEL_NAME = 200

#: What a name never shows: C0 and C1 control characters (a bell, a terminal's escape
#: sequence) and the bidirectional controls: embeddings and overrides (U+202A–U+202E),
#: isolates (U+2066–U+2069) and the marks (U+200E, U+200F, U+061C). In a name these
#: reorder what follows on a card or a page (U+202E shows "4-TPG" for GPT-4 spelled
#: backwards): a name is shown as it was typed, in the text's own direction.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


def _control(match: re.Match[str]) -> str:
    return " " if match[0].isspace() else ""


def without_controls(text: str) -> str:
    """``text`` without control characters (for names); a tab or a line break becomes
    a space."""
    return text if text.isascii() and text.isprintable() else _CONTROLS.sub(_control, text)


def folded_name(text: str) -> str:
    """A name as shown: control characters dropped, whitespace runs one space, no
    space at either end."""
    return " ".join(without_controls(text).split())


#: What :func:`decode` says of bytes with a NUL byte that are not UTF-16 text.
BINARY = "this looks like a binary file (it contains NUL bytes), not text"
#: The byte-order marks of UTF-16 text, and their codecs.
UTF16_BOMS = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}


def _utf16(data: bytes) -> str | None:
    """Text saved as UTF-16 with its byte-order mark, as Windows writes it (PowerShell's
    ``python run.py > out.txt``, Notepad's "Unicode"); None for anything else. Such text
    holds NUL bytes (the other half of every ASCII character), which nothing else that
    starts with those two bytes does as text (``\xff\xfe{}`` is no UTF-16 of anything a
    model writes); text that decodes to a NUL character is binary (UTF-32 among it)."""
    codec = UTF16_BOMS.get(data[:2])
    body = data[2:]
    if codec is None or b"\x00" not in body:
        return None
    try:
        text = body.decode(codec)
    except UnicodeDecodeError:
        return None
    return None if "\x00" in text else text


def decode(data: bytes) -> str:
    """Decode UTF-8 (a leading BOM dropped), or UTF-16 that starts with its BOM (see
    :func:`_utf16`). Line breaks are left as they are.

    Raises :class:`DecodeError` with the byte offset for bytes that are not UTF-8, and
    for binary data (NUL bytes), with a message fit for the user.
    """
    utf16 = _utf16(data)
    if utf16 is not None:
        return utf16
    if b"\x00" in data:
        raise DecodeError(BINARY)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(
            f"the file is not valid UTF-8 text (bad byte at offset {exc.start})",
            offset=exc.start,
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


#: A ``\r\n`` whose ``\r`` does not follow another ``\r``.
_CRLF = re.compile(r"(?<!\r)\r\n")


def normalise_line_ends(text: str) -> str:
    """``\r\n`` becomes ``\n``; a lone ``\r`` becomes ``\n`` only in a text without
    any ``\n`` (an old Mac file). Elsewhere a lone ``\r`` is data inside a line, as
    tools write it: pandas leaves a ``\r`` inside a CSV field unquoted. What the bot
    does with a submission before its tags and benchmark are read; each benchmark that
    reads lines breaks the rest its own way (PrimeBench at every ``\r``).

    A run of ``\r`` before ``\n`` (``\r\r\n``: a CRLF file written again in text
    mode on Windows) is left whole: made ``\r\n``, a lone ``\r`` would join the
    ``\n`` into one line break, and PrimeBench, which breaks at both, would number
    every later line one too low."""
    if "\r" not in text:
        return text
    if "\n" not in text:
        return text.replace("\r", "\n")
    if "\r\r\n" in text:
        return _CRLF.sub("\n", text)
    return text.replace("\r\n", "\n")


def normalise_newlines(text: str) -> str:
    """``\\r\\n`` and lone ``\\r`` become ``\\n``; nothing else changes."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")

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


#: What :func:`decode` says of bytes with a NUL byte: binary, or UTF-16 text after its
#: byte order mark.
BINARY = "this looks like a binary file (it contains NUL bytes), not text"
UTF16 = "the file is UTF-16 text, not UTF-8"
#: The byte order marks of UTF-16 (what Windows' Notepad and PowerShell's ``>`` may
#: write), bytes that never begin UTF-8.
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def decode(data: bytes) -> str:
    """Decode UTF-8 (a leading BOM dropped). Line breaks are left as they are.

    Raises :class:`DecodeError` with the byte offset for bytes that are not UTF-8, and
    for binary data (NUL bytes) or UTF-16 text, with a message fit for the user.
    """
    if b"\x00" in data:
        # UTF-16 writes a NUL beside each ASCII character
        raise DecodeError(UTF16 if data[:2] in _UTF16_BOMS else BINARY)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(
            f"the file is not valid UTF-8 text (bad byte at offset {exc.start})"
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

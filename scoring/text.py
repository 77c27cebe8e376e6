"""Decoding submission bytes into text, the same way for every benchmark."""

from __future__ import annotations

from .errors import DecodeError


def decode(data: bytes) -> str:
    """Decode UTF-8 (a leading BOM dropped). Line breaks are left as they are.

    Raises :class:`DecodeError` with the byte offset for bytes that are not UTF-8, and
    for binary data (NUL bytes), with a message fit for the user.
    """
    if b"\x00" in data:
        raise DecodeError("this looks like a binary file (it contains NUL bytes), not text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(
            f"the file is not valid UTF-8 text (bad byte at offset {exc.start})"
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def normalise_line_ends(text: str) -> str:
    """``\r\n`` becomes ``\n``; a lone ``\r`` becomes ``\n`` only in a text without
    any ``\n`` (an old Mac file). Elsewhere a lone ``\r`` is data inside a line, as
    tools write it: pandas leaves a ``\r`` inside a CSV field unquoted. What the bot
    does with a submission before its tags and benchmark are read; each benchmark that
    reads lines breaks the rest its own way (PrimeBench at every ``\r``)."""
    if "\r" not in text:
        return text
    if "\n" not in text:
        return text.replace("\r", "\n")
    return text.replace("\r\n", "\n")


def normalise_newlines(text: str) -> str:
    """``\\r\\n`` and lone ``\\r`` become ``\\n``; nothing else changes."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")

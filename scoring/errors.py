"""One exception tree for everything the scoring core refuses.

Every message is short, true and fit to show a user as is.
"""

from __future__ import annotations


class ScoringError(Exception):
    """Base of every error the scoring core raises on bad input."""


class DecodeError(ScoringError):
    """Submission or key bytes that are not valid UTF-8 (or not text at all)."""

    def __init__(self, message: str, *, offset: int | None = None) -> None:
        super().__init__(message)
        #: where the first byte that is not UTF-8 is; None for binary data (NUL bytes)
        self.offset = offset


class KeyFormatError(ScoringError):
    """An answer key or question file that does not parse; names the first bad line."""

    def __init__(self, message: str, *, line: int | None = None, text: str | None = None):
        self.line = line
        self.text = text
        if line is not None:
            shown = text if text is None or len(text) <= 80 else text[:77] + "..."
            message = f"line {line}: {message}" + (f": {shown!r}" if shown is not None else "")
        super().__init__(message)


class UnknownBenchmark(ScoringError):
    def __init__(self, name: str, valid: tuple[str, ...]):
        self.name = name
        self.valid = valid
        super().__init__(f"unknown benchmark {name!r}; choose one of: {', '.join(valid)}")


class UnknownMode(ScoringError):
    def __init__(self, text: str, valid: tuple[str, ...]):
        self.text = text
        self.valid = valid
        super().__init__(f"unknown mode {text!r}; choose one of: {', '.join(valid)}")


class ExpressionError(ScoringError):
    """A Natory expression that cannot be read or evaluated; ``position`` is 0-based.

    ``code`` names the reason (stable: the bot shows it in the reader's language) and
    ``params`` the values its text quotes; ``message`` is the English text.
    """

    def __init__(
        self,
        message: str,
        *,
        position: int | None = None,
        code: str = "other",
        params: dict[str, str] | None = None,
    ):
        self.position = position
        self.code = code
        self.params = params or {}
        if position is not None:
            message = f"{message} (at position {position + 1})"
        super().__init__(message)


class OptionError(ScoringError):
    """A submission option (a tag field such as ``target:`` or ``cost:``) whose value is
    refused; ``name`` is the field, ``value`` the text as typed."""

    def __init__(self, name: str, value: str, message: str):
        self.name = name
        self.value = value
        super().__init__(message)


class DefinitionError(ScoringError):
    """A benchmark definition (a TOML file) that is refused; ``field`` names what is
    wrong (``options``, ``points.right``, ``key``), the message says it in one line."""

    def __init__(self, field: str, message: str):
        self.field = field
        self.reason = message
        super().__init__(f"{field}: {message}")

    def __reduce__(self) -> tuple[type[DefinitionError], tuple[str, str]]:
        # as it was made: a definition is read in a worker process (bot.core.offload)
        return (DefinitionError, (self.field, self.reason))

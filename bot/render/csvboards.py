"""A board as CSV and as JSON rows: what the web's ``.csv`` download and ``/export`` both
write (one column set), pure. A cell a spreadsheet could run as a formula is
neutralised."""

from __future__ import annotations

import csv
import io
import unicodedata
from typing import Any

from .webviews import WebBoard, WebRow


def _values(row: WebRow) -> dict[str, Any]:
    """The row's figures, its 95 % interval (``ci95``: [low, high] or null) beside its
    score."""
    out: dict[str, Any] = {}
    for key, value in row.values.items():
        out[key] = value
        if key == "score":
            out["ci95"] = list(row.ci95) if row.ci95 is not None else None
    return out


def row_json(row: WebRow, lang: str) -> dict[str, Any]:
    return {
        "rank": row.rank,
        "model": row.model,
        "mode": row.mode,
        "mark": row.mark,
        "by": row.author,
        "key": row.key_hash,
        # the authors' reported rows carry no date of ours (their import's is not one)
        "first_at": None if row.mark == "reported" else row.first_at.isoformat(),
        "last_at": None if row.mark == "reported" else row.last_at.isoformat(),
        **_values(row),
        "result": f"/r/{row.token}" if row.token else None,
        "source": row.source,
    }


#: What starts a formula in a spreadsheet, and the look-alikes some read as the same
#: (full-width and small forms are folded by NFKC; the minus sign is not).
_FORMULA_STARTS = frozenset("=+-@\u2212")


def _formula_like(value: str) -> bool:
    """Whether a spreadsheet could take the cell for a formula: its first character
    after any whitespace and invisible formatting (a BOM, a zero-width space, a bidi
    control) is ``=``, ``+``, ``-`` or ``@``, or a full-width or small form of one."""
    for char in value:
        if char.isspace() or unicodedata.category(char) == "Cf":
            continue
        return unicodedata.normalize("NFKC", char)[:1] in _FORMULA_STARTS or (
            char in _FORMULA_STARTS
        )
    return False


def _csv_text(value: Any) -> Any:
    """A cell, neutralised (a leading ``'``) when it could run as a formula or starts
    with a control character."""
    if isinstance(value, str) and (value[:1] in ("\t", "\r", "\n") or _formula_like(value)):
        return "'" + value
    if isinstance(value, float) and value.is_integer():
        return int(value)  # a whole score as people write it (18, not 18.0)
    return "" if value is None else value


def board_csv(board: WebBoard) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    rows = [*board.rows, *board.reported]
    extra: list[str] = []
    # the benchmark's figures whether or not there is a row, then any a row adds
    for k in [*board.value_keys, *(k for row in rows for k in row.values)]:
        if k not in extra:
            # the score's 95 % interval beside it, as two columns
            extra += [k, "ci95_low", "ci95_high"] if k == "score" else [k]
    head = ["rank", "model", "mode", "mark", "by", "key", "first_at", "last_at", *extra]
    writer.writerow([*head, "result"])
    for row in rows:
        data = row_json(row, "en")
        low, high = row.ci95 if row.ci95 is not None else (None, None)
        data |= {"ci95_low": low, "ci95_high": high}
        writer.writerow([_csv_text(data.get(k)) for k in head] + [data["result"] or ""])
    if board.credit:
        writer.writerow([])
        writer.writerow(["# " + board.credit])
    return out.getvalue()

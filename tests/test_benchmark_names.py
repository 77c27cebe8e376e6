"""No benchmark is named in ``bot/`` or ``storage/``: they ask the Benchmark interface.

The scan reads each module's names and strings (``tokenize``'s NAME and STRING tokens),
not its comments or docstrings, for the words of the benchmarks the registry ships
with. Released migration steps are frozen and keep the names they were written with.
The files still being cleaned are listed in :data:`NOT_YET`; empty it as they are.
"""

from __future__ import annotations

import ast
import io
import re
import token
import tokenize
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROOMS = ("bot", "storage")
WORDS = re.compile(r"primebench|zerobench|natory", re.IGNORECASE)
#: Frozen: the released migration steps.
FROZEN = {
    # the migrations name the tables they made once, and the step that renamed them
    "storage/migrations.py",
    "storage/frozen_steps.py",
    "storage/engines/pg_schema.py",
}
#: Rooms not cleaned yet (the challenge: its boards, commands, storage and data files),
#: by file, with what still names a benchmark. Remove a file once it no longer does.
NOT_YET: dict[str, str] = {}


def _docstrings(source: str) -> set[tuple[int, int]]:
    """Where each docstring starts (a module's, a class's, a function's)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                found.add((first.lineno, first.col_offset))
    return found


#: Names and strings (from Python 3.12 an f-string's text is its own token).
_KINDS = {token.NAME, token.STRING, getattr(token, "FSTRING_MIDDLE", token.STRING)}


def names_in(source: str) -> Iterator[tuple[int, str]]:
    """(line, token) for each name or string (not a docstring) naming a benchmark."""
    docstrings = _docstrings(source)
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in _KINDS:
            continue
        if tok.type == token.STRING and tok.start in docstrings:
            continue
        if WORDS.search(tok.string):
            yield tok.start[0], tok.string


def _offenders() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for room in ROOMS:
        for path in sorted((ROOT / room).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if name in FROZEN:
                continue
            hits = [f"{line}: {text[:60]}" for line, text in names_in(path.read_text())]
            if hits:
                found[name] = hits
    return found


def test_the_scan_finds_names_and_skips_prose() -> None:
    source = (
        '"""A module about Natory."""\n'
        "# primebench in a comment\n"
        "def f():\n"
        '    """ZeroBench in a docstring."""\n'
        '    return registry.get("zerobench")\n'
        "natory_board = 1\n"
        'key = f"hint_{name}" or f"zerobench_{code}"\n'
    )
    assert [line for line, _ in names_in(source)] == [5, 6, 7]


def test_no_benchmark_is_named_in_bot_or_storage() -> None:
    found = _offenders()
    new = {name: hits for name, hits in found.items() if name not in NOT_YET}
    assert not new, "benchmark names in bot/ or storage/ (ask the Benchmark interface):\n" + (
        "\n".join(f"{name}:{hit}" for name, hits in new.items() for hit in hits)
    )


def test_the_list_of_rooms_not_yet_cleaned_is_current() -> None:
    """A file cleaned leaves the list, so the list only shrinks."""
    found = _offenders()
    cleaned = sorted(name for name in NOT_YET if name not in found)
    assert not cleaned, f"no longer naming a benchmark, remove from NOT_YET: {cleaned}"

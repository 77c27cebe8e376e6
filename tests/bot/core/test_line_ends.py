"""The bot reads an upload's line ends as tools write them: CRLF and CR-only files are
lines, a lone CR inside a line (pandas' unquoted ``\\r`` in a CSV field) is data."""

from __future__ import annotations

import json
from pathlib import Path

from bot.core import offload
from scoring import registry
from scoring.text import normalise_line_ends

ZERO = registry.get("zerobench")
PRIME = registry.get("primebench")

#: The official snippet's DataFrame as pandas' ``to_csv`` writes it: a bare CR unquoted.
PANDAS_CSV = (
    b",Question_ID,Ground_Truth,Model_Output,Correct?\n"
    b"0,1,42,Let me think\rso the answer is {42},True\n"
    b"1,2,7,{7},True\n"
)


def test_line_ends() -> None:
    assert normalise_line_ends("a\r\nb\rc\n") == "a\nb\rc\n"
    assert normalise_line_ends("a\rb\rc") == "a\nb\nc"  # no \n at all: an old Mac file
    text = "no carriage return\n"
    assert normalise_line_ends(text) is text


def test_an_uploaded_pandas_csv_with_a_bare_cr_counts_every_row(tmp_path: Path) -> None:
    path = tmp_path / "zerobench.csv"
    path.write_bytes(b"model: o5-high\r\n" + PANDAS_CSV.replace(b"\n", b"\r\n"))
    reading = offload.read_file(str(path), "", None)
    assert reading.reading.benchmark == "zerobench" and reading.reading.tags.model == "o5-high"
    key = ZERO.load_key(json.dumps({"zerobench": {"1": "42", "2": "7"}}).encode())
    done = offload.score_file(str(path), reading.reading.spans, "zerobench", key, {})
    record = done.result.to_json()
    assert record["invalid_line_count"] == 0, record["invalid_lines"]
    assert record["main"]["attempts"] == 2
    assert record["main"]["correct_attempts"] == 2


def test_primebench_still_breaks_lines_at_every_cr(tmp_path: Path) -> None:
    """PrimeBench's reading is the official one: a lone CR ends an answer line."""
    path = tmp_path / "answers.txt"
    path.write_bytes(b"1:2\r2:3\n3:1\n")
    reading = offload.read_file(str(path), "", None)
    assert reading.reading.benchmark == "primebench"
    key = PRIME.load_key(b"1:2\n2:3\n3:1\n")
    done = offload.score_file(str(path), reading.reading.spans, "primebench", key, {})
    assert done.result.to_json()["correct"] == 3


def test_a_cr_before_a_crlf_is_a_line_break_of_its_own(tmp_path: Path) -> None:
    """``\\r\\r\\n`` (a CRLF file written again in text mode on Windows) is two line
    breaks to PrimeBench, ``\\r`` and ``\\r\\n``: the invalid line is numbered as the
    scorer numbers it when given the file's text, not one lower per ``\\r\\r\\n``."""
    data = b"1:2\r\r\n2:3\r\r\nQ3:1\r\r\n"
    assert PRIME.score(data.decode(), PRIME.load_key(b"1:2\n2:3\n3:1\n")).to_json()[
        "invalid_lines"
    ] == [{"line": 5, "text": "Q3:1"}]
    path = tmp_path / "answers.txt"
    path.write_bytes(data)
    reading = offload.read_file(str(path), "", None)
    assert reading.reading.benchmark == "primebench"
    key = PRIME.load_key(b"1:2\n2:3\n3:1\n")
    done = offload.score_file(str(path), reading.reading.spans, "primebench", key, {})
    record = done.result.to_json()
    assert record["correct"] == 2
    assert record["invalid_lines"] == [{"line": 5, "text": "Q3:1"}]

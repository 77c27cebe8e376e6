"""The shipped definitions are found apart from the configured data folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.core import shipped
from scoring import parse_mode, registry

ROOT = Path(__file__).resolve().parents[3]


def test_references_come_from_the_repository_data_folder() -> None:
    path = shipped.path("references.json")
    assert path == ROOT / "data" / "references.json"
    data = json.loads(path.read_text("utf-8"))
    for name, table in data.items():
        if name.startswith("_"):
            continue
        assert registry.get(name).name == name
        assert table["source"] and table["results"]
        for entry in table["results"]:
            parse_mode(entry["mode"])


def test_a_missing_definition_says_where_it_was_looked_for() -> None:
    with pytest.raises(FileNotFoundError, match="not shipped"):
        shipped.path("no-such-definition.json")


def test_the_data_folder_keeps_downloads_out_of_git() -> None:
    ignore = (ROOT / ".gitignore").read_text()
    assert "/data/*" in ignore and "!/data/README.md" in ignore
    readme = (ROOT / "data" / "README.md").read_text()
    assert "not redistributable" in readme

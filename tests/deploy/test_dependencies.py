"""The project's declared dependencies: floors that match what the code needs, each
declared once, and no extra that nothing uses."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
_NAME = re.compile(r"^\s*([A-Za-z0-9_.-]+)(?:\[([^\]]*)\])?\s*(.*)$")


def _parsed(spec: str) -> tuple[str, set[str], str]:
    found = _NAME.match(spec)
    assert found, spec
    name, extras, rest = found.groups()
    return name.lower().replace("_", "-"), {e.strip() for e in (extras or "").split(",") if e}, rest


def _floor(rest: str) -> tuple[int, ...]:
    found = re.search(r">=\s*([0-9.]+)", rest)
    assert found, rest
    return tuple(int(part) for part in found.group(1).split("."))


def test_each_dependency_is_declared_once() -> None:
    seen: dict[str, str] = {}
    groups = {"dependencies": PROJECT["dependencies"], **PROJECT["optional-dependencies"]}
    for group, specs in groups.items():
        for spec in specs:
            name = _parsed(spec)[0]
            assert name not in seen, f"{name} is declared in {seen[name]} and in {group}"
            seen[name] = group


def test_matplotlib_floor_has_the_text_shaping_persian_cards_need() -> None:
    # Persian cards are shaped by matplotlib's own text layout from 3.11 on (3.10 draws
    # the letters unjoined)
    (spec,) = [s for s in PROJECT["dependencies"] if _parsed(s)[0] == "matplotlib"]
    assert _floor(_parsed(spec)[2]) >= (3, 11)


def test_no_extra_of_python_telegram_bot_goes_unused() -> None:
    (spec,) = [s for s in PROJECT["dependencies"] if _parsed(s)[0] == "python-telegram-bot"]
    extras = _parsed(spec)[1]
    code = "\n".join(p.read_text() for p in (ROOT / "bot").rglob("*.py"))
    used = {
        "rate-limiter": "AIORateLimiter",
        "job-queue": "JobQueue",
        # PTB's own webhook server (Updater.start_webhook / run_webhook)
        "webhooks": "run_webhook(",
    }
    unused = {extra for extra in extras if used.get(extra, "\0") not in code}
    assert not unused, f"python-telegram-bot extras nothing uses: {sorted(unused)}"

"""The natory scoring constants, read from the package's own ``<version>.json``.

Every number the rules use lives in that one file. ``natory-v2`` added three choices
(``simplification``, ``elegance_nesting``, ``final_floor``; SPEC-v2.md) whose defaults
are v1's, so ``natory-v1.json`` is unchanged and still reads as it did. The file is read
once per version (cached) and validated strictly: a missing or mistyped constant fails
loudly at load time, never mid-score.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from typing import Any

DEFAULT_VERSION = "natory-v2"

#: How the simplified expression is found: v1's list of written null operations, or
#: v2's rules by value (``simplify.py``).
SIMPLIFICATIONS = ("null-list", "by-value")
#: Which occurrences a nesting too deep stops paying: v1 the innermost ones only, v2 the
#: whole chain of the operator nested inside itself.
NESTINGS = ("innermost", "chain")

#: The advanced operators that pay an elegance bonus, by kind.
ELEGANT_KINDS = ("sqrt", "mod", "^", "!", "p_n", "sopfr")


@dataclass(frozen=True, slots=True)
class Limits:
    max_length: int
    max_bits: int
    max_factorial: int
    max_prime_index: int
    max_depth: int
    max_nesting: int
    trial_division_bound: int
    factor_max_bits: int
    rho_iterations: int
    max_target_digits: int


@dataclass(frozen=True, slots=True)
class Rules:
    version: str
    limits: Limits
    base_score: int
    elegance: dict[str, int]
    elegance_max_uses: int
    elegance_max_same_ancestors: int
    diversity_per_kind: int
    all_digits_bonus: int
    exact_usage_bonus: int
    repetition_per_digit: int
    repetition_mild_excess: int
    repetition_steep_factor: int
    repetition_steep_base: int
    complexity_free_tokens: int
    complexity_exponent: int
    special: dict[str, int]
    unique_bonus: int
    daily_min: int
    daily_max: int
    #: v2's choices (the defaults are v1's, whose file predates them)
    simplification: str = "null-list"
    elegance_nesting: str = "innermost"
    #: a valid attempt's final score is never below this (None: unbounded, v1)
    final_floor: int | None = None


def _int(data: dict[str, Any], name: str, where: str) -> int:
    value = data.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{where}: {name!r} must be a non-negative integer, not {value!r}")
    return value


def _section(data: dict[str, Any], name: str, where: str) -> dict[str, Any]:
    value = data.get(name)
    if not isinstance(value, dict):
        raise ValueError(f"{where}: {name!r} must be an object")
    return value


def _int_map(data: dict[str, Any], name: str, keys: tuple[str, ...], where: str) -> dict[str, int]:
    section = _section(data, name, where)
    if set(section) != set(keys):
        raise ValueError(f"{where}: {name!r} must have exactly the keys {', '.join(keys)}")
    return {key: _int(section, key, f"{where}.{name}") for key in keys}


def parse_rules(data: dict[str, Any], where: str = "rules") -> Rules:
    """Validate a decoded rules document (exposed for tests and for trying a draft)."""
    version = data.get("version")
    if not isinstance(version, str) or not version:
        raise ValueError(f"{where}: 'version' must be a non-empty string")
    limits_data = _section(data, "limits", where)
    limits = Limits(
        **{name: _int(limits_data, name, f"{where}.limits") for name in Limits.__slots__}
    )
    repetition = _section(data, "repetition", where)
    complexity = _section(data, "complexity", where)
    daily = _section(data, "daily", where)
    rules = Rules(
        version=version,
        limits=limits,
        base_score=_int(data, "base_score", where),
        elegance=_int_map(data, "elegance", ELEGANT_KINDS, where),
        elegance_max_uses=_int(data, "elegance_max_uses", where),
        elegance_max_same_ancestors=_int(data, "elegance_max_same_ancestors", where),
        diversity_per_kind=_int(data, "diversity_per_kind", where),
        all_digits_bonus=_int(data, "all_digits_bonus", where),
        exact_usage_bonus=_int(data, "exact_usage_bonus", where),
        repetition_per_digit=_int(repetition, "per_digit", f"{where}.repetition"),
        repetition_mild_excess=_int(repetition, "mild_excess", f"{where}.repetition"),
        repetition_steep_factor=_int(repetition, "steep_factor", f"{where}.repetition"),
        repetition_steep_base=_int(repetition, "steep_base", f"{where}.repetition"),
        complexity_free_tokens=_int(complexity, "free_tokens", f"{where}.complexity"),
        complexity_exponent=_int(complexity, "exponent", f"{where}.complexity"),
        special=_int_map(data, "special", ("factorial", "perfect_power", "prime"), where),
        unique_bonus=_int(data, "unique_bonus", where),
        daily_min=_int(daily, "min", f"{where}.daily"),
        daily_max=_int(daily, "max", f"{where}.daily"),
    )
    simplification = data.get("simplification", "null-list")
    if simplification not in SIMPLIFICATIONS:
        raise ValueError(f"{where}: 'simplification' must be one of {', '.join(SIMPLIFICATIONS)}")
    nesting = data.get("elegance_nesting", "innermost")
    if nesting not in NESTINGS:
        raise ValueError(f"{where}: 'elegance_nesting' must be one of {', '.join(NESTINGS)}")
    floor = data.get("final_floor")
    if floor is not None and (not isinstance(floor, int) or isinstance(floor, bool) or floor > 0):
        raise ValueError(f"{where}: 'final_floor' must be null or an integer <= 0")
    rules = replace(
        rules, simplification=simplification, elegance_nesting=nesting, final_floor=floor
    )
    if not 1 <= rules.daily_min <= rules.daily_max:
        raise ValueError(f"{where}: daily.min must be >= 1 and <= daily.max")
    if limits.max_depth < 8 or limits.max_length < 1 or limits.trial_division_bound < 2:
        raise ValueError(f"{where}: limits are too small to score anything")
    return rules


@cache
def load_rules(version: str = DEFAULT_VERSION) -> Rules:
    """The rules of ``version``, read from this package's ``<version>.json``."""
    if not version.replace("-", "").isalnum():
        raise ValueError(f"bad natory rules version {version!r}")
    text = resources.files(__package__).joinpath(f"{version}.json").read_text(encoding="utf-8")
    rules = parse_rules(json.loads(text), where=f"{version}.json")
    if rules.version != version:
        raise ValueError(f"{version}.json says it is version {rules.version!r}")
    return rules

"""The providers file (``BENCHBOARD_PROVIDERS``): providers, their models and prices,
the daily runs and what a sponsorship buys. Pure: read once, passed down.

::

    [providers.openrouter]
    base_url = "https://openrouter.ai/api/v1"
    api_key_env = "OPENROUTER_API_KEY"      # the key is read from this variable
    concurrency = 4                         # calls at once (default 4)
    timeout = 120                           # seconds a call may take (default 120)
    retries = 4                             # tries again after a 429, 5xx or timeout

    [providers.openrouter.models."deepseek/deepseek-v4.1-flash"]
    input_usd_per_mtok = 0.10
    output_usd_per_mtok = 0.40
    modes = ["default", "think"]            # default: ["default"]
    images = false                          # whether it reads images
    # how a mode maps to request options (default: think -> reasoning_effort "high")
    options.think = { reasoning_effort = "high" }

    [[daily]]
    benchmark = "NAME"                      # a benchmark with a daily challenge
    models = ["openrouter/deepseek/deepseek-v4.1-flash"]
    attempts = 2

    [sponsor.NAME]                          # NAME: a benchmark with a daily challenge
    stars = 50                              # price of one sponsorship in Telegram Stars
    runs = 1                                # runs per model it buys, on one target
    models = ["openrouter/deepseek/deepseek-v4.1-flash"]
    attempts = 2                            # attempts of each run
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Request options of a mode when the file gives none.
DEFAULT_MODE_OPTIONS: Mapping[str, Mapping[str, Any]] = {
    "think": {"reasoning_effort": "high"},
    "think_tools": {"reasoning_effort": "high"},
}
MODES = ("default", "think", "tools", "think_tools")


class ProviderError(Exception):
    """A run that cannot be made, or a provider that failed it: ``code`` is stable
    (``unknown_model``, ``no_key``, ``auth``, ``dead``, ``slow``: its last try timed
    out, ``refused``, ``no_images``, ``bad_mode``, ``bad_file``), ``provider`` names
    it; the message is one plain line.
    An attempt that failed after some of its calls were answered says what those cost
    (tokens, and USD at the file's prices; 0 when none was) and keeps their answers
    (``answered``: the plan's call index -> :class:`bot.runs.client.Answer`), for a
    later try to send only the others."""

    def __init__(self, message: str, *, code: str, provider: str = "") -> None:
        self.code = code
        self.provider = provider
        self.input_tokens = 0
        self.output_tokens = 0
        self.cost_usd = 0.0
        self.answered: dict[int, Any] = {}
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """One model of a provider: its name there, prices (USD per million tokens), the
    modes it is run in and their request options, and whether it reads images."""

    provider: str
    name: str
    input_usd_per_mtok: float
    output_usd_per_mtok: float
    modes: tuple[str, ...] = ("default",)
    images: bool = False
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def full_name(self) -> str:
        return f"{self.provider}/{self.name}"

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """The cost in USD of so many tokens at the file's prices."""
        return (
            input_tokens * self.input_usd_per_mtok + output_tokens * self.output_usd_per_mtok
        ) / 1_000_000

    def request_options(self, mode: str) -> dict[str, Any]:
        """What a request in ``mode`` adds (``reasoning_effort``); ProviderError when the
        model is not run in that mode."""
        if mode not in self.modes:
            raise ProviderError(
                f"{self.full_name} is not run in mode {mode} (modes: {', '.join(self.modes)})",
                code="bad_mode",
                provider=self.provider,
            )
        return dict(self.options.get(mode, DEFAULT_MODE_OPTIONS.get(mode, {})))


@dataclass(frozen=True, slots=True)
class Provider:
    name: str
    base_url: str
    api_key_env: str
    concurrency: int = 4
    timeout: float = 120.0
    retries: int = 4
    models: Mapping[str, ModelSpec] = field(default_factory=dict)

    def api_key(self) -> str:
        """The key from its variable; ProviderError naming the variable when unset."""
        key = os.environ.get(self.api_key_env, "")
        if not key:
            raise ProviderError(
                f"provider {self.name}: the variable {self.api_key_env} holding its API key "
                "is not set",
                code="no_key",
                provider=self.name,
            )
        return key


@dataclass(frozen=True, slots=True)
class Daily:
    """Runs made after the UTC day turns, on a challenge's day target."""

    benchmark: str
    models: tuple[str, ...]
    attempts: int = 2


@dataclass(frozen=True, slots=True)
class Sponsorship:
    """What one sponsorship of a benchmark's target buys, and its price in Stars."""

    benchmark: str
    stars: int
    runs: int
    models: tuple[str, ...]
    attempts: int = 1


@dataclass(frozen=True, slots=True)
class Providers:
    providers: Mapping[str, Provider] = field(default_factory=dict)
    daily: tuple[Daily, ...] = ()
    sponsor: Mapping[str, Sponsorship] = field(default_factory=dict)

    def model(self, full_name: str) -> ModelSpec:
        """``provider/model`` as the file lists it; ProviderError when it does not."""
        provider_name, sep, name = full_name.strip().partition("/")
        provider = self.providers.get(provider_name)
        if not sep or provider is None:
            known = ", ".join(sorted(self.providers)) or "none"
            raise ProviderError(
                f"unknown provider in {full_name!r}: name a model as PROVIDER/MODEL "
                f"(providers: {known})",
                code="unknown_model",
                provider=provider_name,
            )
        spec = provider.models.get(name)
        if spec is None:
            raise ProviderError(
                f"provider {provider_name} lists no model {name!r} in the providers file",
                code="unknown_model",
                provider=provider_name,
            )
        return spec

    def provider(self, name: str) -> Provider:
        return self.providers[name]

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(m.full_name for p in self.providers.values() for m in p.models.values())


def _bad(where: str, what: str) -> ProviderError:
    return ProviderError(f"providers file: {where}: {what}", code="bad_file")


def _number(table: Mapping[str, Any], key: str, where: str, default: float | None = None) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise _bad(where, f"{key} must be a number ≥ 0")
    return float(value)


def _names(value: Any, where: str, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _bad(where, f"{key} must be a list of names")
    return tuple(value)


def _count(table: Mapping[str, Any], key: str, where: str, default: int) -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _bad(where, f"{key} must be a whole number ≥ 1")
    return value


def _model(provider: str, name: str, table: Any) -> ModelSpec:
    where = f"[providers.{provider}.models.{name!r}]"
    if not isinstance(table, dict):
        raise _bad(where, "must be a table")
    modes = _names(table.get("modes", ["default"]), where, "modes")
    for mode in modes:
        if mode not in MODES:
            raise _bad(where, f"unknown mode {mode!r} (modes: {', '.join(MODES)})")
    options = table.get("options", {})
    if not isinstance(options, dict) or not all(isinstance(v, dict) for v in options.values()):
        raise _bad(where, "options must map a mode to a table of request options")
    images = table.get("images", False)
    if not isinstance(images, bool):
        raise _bad(where, "images must be true or false")
    return ModelSpec(
        provider=provider,
        name=name,
        input_usd_per_mtok=_number(table, "input_usd_per_mtok", where),
        output_usd_per_mtok=_number(table, "output_usd_per_mtok", where),
        modes=modes,
        images=images,
        options={str(k): dict(v) for k, v in options.items()},
    )


def _provider(name: str, table: Any) -> Provider:
    where = f"[providers.{name}]"
    if not isinstance(table, dict):
        raise _bad(where, "must be a table")
    base_url, key_env = table.get("base_url"), table.get("api_key_env")
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise _bad(where, "base_url must be an http(s) URL")
    if not isinstance(key_env, str) or not key_env:
        raise _bad(where, "api_key_env must name the variable holding the key")
    models = table.get("models", {})
    if not isinstance(models, dict):
        raise _bad(where, "models must be a table")
    return Provider(
        name=name,
        base_url=base_url,
        api_key_env=key_env,
        concurrency=_count(table, "concurrency", where, 4),
        timeout=_number(table, "timeout", where, 120.0) or 120.0,
        retries=int(_number(table, "retries", where, 4)),
        models={m: _model(name, m, t) for m, t in models.items()},
    )


def parse(text: str) -> Providers:
    """The providers file's text; ProviderError (``bad_file``) naming what is wrong."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProviderError(f"providers file: {exc}", code="bad_file") from None
    tables = data.get("providers", {})
    if not isinstance(tables, dict):
        raise _bad("[providers]", "must be a table")
    providers = {name: _provider(name, t) for name, t in tables.items()}
    found = Providers(providers)
    daily = []
    for n, entry in enumerate(data.get("daily", []), 1):
        where = f"[[daily]] {n}"
        if not isinstance(entry, dict) or not isinstance(entry.get("benchmark"), str):
            raise _bad(where, "needs benchmark = NAME")
        models = _names(entry.get("models"), where, "models")
        for model in models:
            found.model(model)
        daily.append(Daily(entry["benchmark"], models, _count(entry, "attempts", where, 2)))
    sponsor = {}
    sponsors = data.get("sponsor", {})
    if not isinstance(sponsors, dict):
        raise _bad("[sponsor]", "must be a table")
    for name, entry in sponsors.items():
        where = f"[sponsor.{name}]"
        if not isinstance(entry, dict):
            raise _bad(where, "must be a table")
        models = _names(entry.get("models"), where, "models")
        if not models:  # a payment that buys nothing would be kept, never run nor refunded
            raise _bad(where, "models must name at least one model")
        for model in models:
            found.model(model)
        sponsor[name] = Sponsorship(
            benchmark=name,
            stars=_count(entry, "stars", where, 1),
            runs=_count(entry, "runs", where, 1),
            models=models,
            attempts=_count(entry, "attempts", where, 1),
        )
    return Providers(providers, tuple(daily), sponsor)


def load(path: Path | None) -> Providers:
    """The file at ``path`` (None: no providers)."""
    if path is None:
        return Providers()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ProviderError(
            f"cannot read the providers file {path}: {exc.strerror}", code="bad_file"
        ) from None
    return parse(text)

"""The registry's ZeroBench object."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .dataset import CREDIT, NAME, PROMPT_SUFFIX, SCORER_VERSION, TITLE
from .key import ZeroKey, load_key
from .result import ZeroBenchResult, result_from_record
from .scorer import k_option, score


class ZeroBench:
    """The registry's ZeroBench object (see :class:`scoring.base.Benchmark`)."""

    name = NAME
    title = TITLE
    scorer_version = SCORER_VERSION
    credit = CREDIT
    prompt_suffix = PROMPT_SUFFIX

    def load_key(self, data: bytes, *, filename: str = "") -> ZeroKey:
        return load_key(data, filename=filename)

    def score(
        self, text: str, key: ZeroKey, *, options: Mapping[str, Any] | None = None
    ) -> ZeroBenchResult:
        return score(text, key, k=k_option(options))

    def result_from_record(self, data: Mapping[str, Any]) -> ZeroBenchResult:
        return result_from_record(data)


BENCHMARK = ZeroBench()

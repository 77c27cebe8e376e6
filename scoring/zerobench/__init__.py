"""ZeroBench (Roberts et al., arXiv:2502.09696): answers in curly braces, pass@k.

The rules are ``shared/specs/zerobench.md``. The answer check is the official one,
reproduced exactly (:func:`official_check`); near misses it counts wrong are explained
as hints, and a clearly labelled *lenient* re-check is reported beside the official
figures, never used to rank.

Decisions the spec leaves open, made here:

- Denominators are the key's questions of each split. A question of the key with no
  attempt counts as failed and is listed as unattempted.
- pass@1 of a question is the share of correct attempts among its first ``k``; a
  question with fewer than ``k`` attempts uses the attempts it has (it is not padded
  with failures) and is listed under ``fewer_than_k``. Such a question cannot count for
  k/k reliability, which needs ``k`` correct attempts.
- The figure that ranks (``primary``) is official pass@1 over the main split, as a
  fraction in [0, 1]. Only when the *key* has no main questions (a subquestions-only
  key) does it fall back to subquestion pass@1; ``primary_split`` says which. A
  submission that answers only subquestions against a full key ranks by main pass@1,
  which is then 0 (a hint says so): ranking it by the far easier subquestions would
  put it above honest full runs.
- Several lines (rows, list items) for one question id are several attempts, in file
  order; attempts after the first ``k`` are counted and reported, never scored.

Modules: ``dataset`` (names and constants), ``check`` (the official and lenient
checks), ``key``, ``submission`` (reading the file), ``scorer`` (pass@k), ``result``,
``hints``, ``benchmark`` (the registry object). Everything is pure: no I/O.
"""

from __future__ import annotations

from .benchmark import BENCHMARK, ZeroBench
from .check import LENIENT_NOTE, OFFICIAL_PATTERN, lenient_check, official_check, official_parse
from .dataset import (
    CREDIT,
    DATASET,
    DEFAULT_K,
    KEY_FILE,
    MAIN_SPLIT,
    NAME,
    OFFICIAL_QUESTIONS,
    PROMPT_SUFFIX,
    SCORER_VERSION,
    SOURCE,
    SPLITS,
    SUB_SPLIT,
    TITLE,
)
from .key import ZeroKey, check_key, dump_key, load_key
from .result import (
    Figures,
    SplitResult,
    ZeroBenchResult,
    board_cells,
    format_score,
    result_from_record,
    wilson,
)
from .scorer import score
from .submission import FORMATS

__all__ = [
    "BENCHMARK",
    "CREDIT",
    "DATASET",
    "DEFAULT_K",
    "FORMATS",
    "KEY_FILE",
    "LENIENT_NOTE",
    "MAIN_SPLIT",
    "NAME",
    "OFFICIAL_PATTERN",
    "OFFICIAL_QUESTIONS",
    "PROMPT_SUFFIX",
    "SCORER_VERSION",
    "SOURCE",
    "SPLITS",
    "SUB_SPLIT",
    "TITLE",
    "Figures",
    "SplitResult",
    "ZeroBench",
    "ZeroBenchResult",
    "ZeroKey",
    "board_cells",
    "check_key",
    "dump_key",
    "format_score",
    "lenient_check",
    "load_key",
    "official_check",
    "official_parse",
    "result_from_record",
    "score",
    "wilson",
]

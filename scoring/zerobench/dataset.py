"""ZeroBench's names and constants: the dataset, its splits, the prompt suffix."""

from __future__ import annotations

from ..base import Source

NAME = "zerobench"
TITLE = "ZeroBench"
SCORER_VERSION = "zerobench-1"
CREDIT = (
    "ZeroBench by Jonathan Roberts et al. (arXiv:2502.09696); "
    "data: huggingface.co/datasets/jonathan-roberts1/zerobench"
)
DATASET = "jonathan-roberts1/zerobench"
MAIN_SPLIT = "zerobench"
SUB_SPLIT = "zerobench_subquestions"
SPLITS = (MAIN_SPLIT, SUB_SPLIT)
OFFICIAL_QUESTIONS = {MAIN_SPLIT: 100, SUB_SPLIT: 334}
DEFAULT_K = 5
#: Where the key lives in the data folder (the canonical two-split JSON of dump_key).
KEY_FILE = "zerobench/key.json"
#: The answers come from the dataset viewer's rows (ids and answers only, no images).
SOURCE = Source(
    "dataset_rows",
    url="https://datasets-server.huggingface.co",
    dataset=DATASET,
    splits=SPLITS,
    columns=("question_id", "question_answer"),
)

#: Appended to every question's text by the official evaluation, verbatim.
PROMPT_SUFFIX = (
    "\n\n\nLet's think step by step and give the final answer in curly braces, "
    "like this: {final answer}"
)

#: Where a run finds the question set, relative to the data folder.
QUESTIONS_FILE = "zerobench/questions.jsonl"
#: The version of what a run sends: each question's text + the official suffix, then
#: its images, as one user message.
RUN_VERSION = "zerobench-run-1"

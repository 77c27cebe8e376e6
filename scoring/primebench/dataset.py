"""PrimeBench's names and constants: scoring points, the key's files, the official prompt."""

from __future__ import annotations

from ..base import Source

NAME = "primebench"
TITLE = "PrimeBench"
SCORER_VERSION = "primebench-1"
CREDIT = "PrimeBench by JibayAI (jibay.ir), CC BY-ND 4.0"
OFFICIAL_QUESTIONS = 104
#: Where the key and the question file live in the data folder.
KEY_FILE = "primebench/A.txt"
QUESTIONS_FILE = "primebench/Q.json"
#: The official files (never shipped: CC BY-ND 4.0), the question file first.
SOURCE = Source(
    "files",
    url="https://huggingface.co/datasets/JibayAI/PrimeBench/resolve/main",
    files=("Q.json", "A.txt"),
)
OPTIONS = (1, 2, 3, 4)
POINTS_CORRECT = 1
POINTS_WRONG = -3
#: How much of an invalid line's text a stored record keeps.
RECORD_LINE_TEXT = 500

#: How an unanswered question is written (``12:none``).
NONE = "none"

#: The official prompt, verbatim. Never edit it (the license forbids altering it).
PROMPT = """Based on the questions, choose the correct option.

Explanation:
Each correct option you choose earns one positive point.
Each incorrect option you choose incurs three negative points.
If you do not select an option for a question, you receive neither a negative nor a positive point.

Your output must only and exclusively be in this format Q:O
For example; the first question, option three:
1:3

If you do not want to or cannot answer a question, put none instead of the option number.
You have only one choice for each question.
Your score will be evaluated from 0 to 100 percent.
Provide the final answer.
"""

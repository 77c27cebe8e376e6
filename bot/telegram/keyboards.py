"""Inline keyboards and their callback data. Pure: builds markup, parses data.

Callback data (at most 64 bytes) starts with the action; each action has its own
handler, registered with :func:`pattern`:
    mode:<submission>:<mode>   choose the mode
    model:<submission>         ask for the model name
    pub:<submission>           publish to the leaderboards
    det:<submission>           every invalid line
    wd:<submission>            withdraw
    lb:<benchmark>:<scope>:<mode or ->:<days>:<page>   a leaderboard page (scope g|c|u)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from urllib.parse import quote

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from scoring import Mode

from ..core.boards import SCOPES, BoardQuery
from ..core.bounded import parse_count, parse_id
from ..render.i18n import t, tn

WINDOWS = (0, 7, 30)
#: The largest number of days and page number a board button may carry.
MAX_DAYS = 3660
MAX_PAGE = 100_000

# The actions, as the callback data starts.
MODE, MODEL, PUBLISH, DETAILS, WITHDRAW, BOARD = "mode", "model", "pub", "det", "wd", "lb"
SUBMISSION_ACTIONS = (MODE, MODEL, PUBLISH, DETAILS, WITHDRAW)


def pattern(action: str) -> str:
    """The ``CallbackQueryHandler`` pattern of an action's buttons."""
    return rf"^{action}:"


def board_data(query: BoardQuery, **changes: Any) -> str:
    """Callback data for a board page, with some fields of ``query`` changed."""
    q = replace(query, **changes)
    return f"{BOARD}:{q.benchmark}:{q.scope}:{q.mode or '-'}:{q.days}:{q.page}"


def parse_board(data: str) -> BoardQuery | None:
    """The board page a button names; None for data no board button carries (a page
    or a number of days out of range among them)."""
    parts = data.split(":")
    if len(parts) != 6 or parts[0] != BOARD or parts[2] not in SCOPES:
        return None
    days, page = parse_count(parts[4], MAX_DAYS), parse_count(parts[5], MAX_PAGE)
    if days is None or page is None:
        return None
    try:
        mode = None if parts[3] == "-" else Mode(parts[3]).value
    except ValueError:
        return None
    return BoardQuery(parts[1], parts[2], mode, days, page)


def parse_action(data: str) -> tuple[str, int, str] | None:
    """``(action, submission id, argument)`` for submission buttons, else None (an id
    no submission can have among them)."""
    parts = data.split(":")
    if len(parts) < 2 or parts[0] not in SUBMISSION_ACTIONS:
        return None
    submission_id = parse_id(parts[1])
    if submission_id is None:
        return None
    return parts[0], submission_id, ":".join(parts[2:])


def score_keyboard(
    lang: str,
    submission_id: int,
    *,
    has_mode: bool,
    has_model: bool,
    published: bool,
    has_details: bool,
    bot_username: str,
) -> InlineKeyboardMarkup:
    rows: list[list[InlineKeyboardButton]] = []
    if not has_mode:
        rows.append(
            [
                InlineKeyboardButton(m.label, callback_data=f"{MODE}:{submission_id}:{m.value}")
                for m in Mode
            ]
        )
    if not has_model:
        rows.append(
            [InlineKeyboardButton(t(lang, "btn_model"), callback_data=f"{MODEL}:{submission_id}")]
        )
    last: list[InlineKeyboardButton] = []
    if has_mode and has_model and not published:
        last.append(
            InlineKeyboardButton(t(lang, "btn_publish"), callback_data=f"{PUBLISH}:{submission_id}")
        )
    if has_details:
        last.append(
            InlineKeyboardButton(t(lang, "btn_details"), callback_data=f"{DETAILS}:{submission_id}")
        )
    if bot_username:
        link = f"https://t.me/{bot_username}?start=s{submission_id}"
        last.append(
            InlineKeyboardButton(
                t(lang, "btn_share"), url=f"https://t.me/share/url?url={quote(link, safe='')}"
            )
        )
    if last:
        rows.append(last)
    return InlineKeyboardMarkup(rows)


def board_keyboard(
    lang: str, query: BoardQuery, pages: int, *, in_group: bool
) -> InlineKeyboardMarkup:
    rows: list[list[InlineKeyboardButton]] = []
    nav = []
    if query.page > 0:
        nav.append(
            InlineKeyboardButton(
                t(lang, "btn_prev"), callback_data=board_data(query, page=query.page - 1)
            )
        )
    if query.page + 1 < pages:
        nav.append(
            InlineKeyboardButton(
                t(lang, "btn_next"), callback_data=board_data(query, page=query.page + 1)
            )
        )
    if nav:
        rows.append(nav)
    modes = [
        InlineKeyboardButton(
            ("• " if query.mode is None else "") + t(lang, "btn_all_modes"),
            callback_data=board_data(query, mode=None, page=0),
        )
    ]
    modes += [
        InlineKeyboardButton(
            ("• " if query.mode == m.value else "") + m.label,
            callback_data=board_data(query, mode=m.value, page=0),
        )
        for m in Mode
    ]
    rows.append(modes[:3])
    rows.append(modes[3:])
    windows = []
    for days in WINDOWS:
        label = tn(lang, "window_days", days) if days else t(lang, "window_all")
        mark = "• " if query.days == days else ""
        windows.append(
            InlineKeyboardButton(mark + label, callback_data=board_data(query, days=days, page=0))
        )
    rows.append(windows)
    if in_group and query.scope == "c":
        rows.append(
            [
                InlineKeyboardButton(
                    t(lang, "btn_global"), callback_data=board_data(query, scope="g", page=0)
                )
            ]
        )
    return InlineKeyboardMarkup(rows)


def withdraw_keyboard(lang: str, submission_ids: list[int]) -> InlineKeyboardMarkup | None:
    if not submission_ids:
        return None
    buttons = [
        InlineKeyboardButton(t(lang, "btn_withdraw", id=sid), callback_data=f"{WITHDRAW}:{sid}")
        for sid in submission_ids
    ]
    return InlineKeyboardMarkup([buttons[i : i + 2] for i in range(0, len(buttons), 2)])

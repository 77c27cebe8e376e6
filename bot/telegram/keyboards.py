"""Inline keyboards and their callback data. Pure: builds markup, parses data.

Callback data (at most 64 bytes) starts with the action; each action has its own
handler, registered with :func:`pattern`:
    mode:<submission>:<mode>   choose the mode
    model:<submission>         ask for the model name
    pub:<submission>           publish to the leaderboards
    det:<submission>           every invalid line
    wd:<submission>[:<page>]   withdraw (from that page of /me, then shown again)
    me:<page>                  a page of /me
    lb:<benchmark>:<scope>:<mode or ->:<days>:<page>   a leaderboard page (scope g|c|u)
    lbi:<same as lb>           that page as an image
    sh:<submission>            share the result card (a photo with a link)
    chl:<submission>           a link challenging a friend to beat the result
    fl:<page>                  a page of /flags (admins)
    flv:<submission>:<page>    release a held result (✅ verify); flr: reject (hide) it
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import quote

from telegram import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message, WebAppInfo
from telegram.constants import ChatType

from scoring import Mode

from ..core.boards import SCOPES, BoardQuery
from ..core.bounded import parse_count, parse_id
from ..render.format import mode_label
from ..render.i18n import N_, t, tn

WINDOWS = (0, 7, 30)
#: The largest number of days and page number a board button may carry.
MAX_DAYS = 3660
MAX_PAGE = 100_000

# The actions, as the callback data starts.
MODE, MODEL, PUBLISH, DETAILS, WITHDRAW, BOARD = "mode", "model", "pub", "det", "wd", "lb"
#: /me: open a result's card again (a withdrawn or private one, to publish it)
OPEN = "op"
HISTORY = "me"
# Sharing (bot.telegram.share_handlers): the result card, a challenge link, a board
# page as an image.
SHARE, CHALLENGE, BOARD_IMAGE = "sh", "chl", "lbi"
SUBMISSION_ACTIONS = (MODE, MODEL, PUBLISH, DETAILS, WITHDRAW, OPEN)
#: /flags (admins): a page, and a held result released or rejected from a page.
FLAGS, FLAG_RELEASE, FLAG_REJECT = "fl", "flv", "flr"
#: The argument of a withdraw press that confirms it (``wd:ID:PAGE:yes``).
CONFIRMED = "yes"


def pattern(action: str) -> str:
    """The ``CallbackQueryHandler`` pattern of an action's buttons."""
    return rf"^{action}:"


def on_its_message(query: CallbackQuery) -> bool:
    """Whether the pressed data is one of the buttons of the message it was pressed on
    (as Telegram reports the message): data no button of that message carries is
    forged."""
    message = query.message
    if not isinstance(message, Message) or message.reply_markup is None:
        return False
    return any(
        button.callback_data == query.data
        for row in message.reply_markup.inline_keyboard
        for button in row
    )


def pressed_on_own(query: CallbackQuery) -> bool:
    """Whether the message a button was pressed on belongs to the presser's own flow:
    in a private chat, the presser's own chat; in a group, a message the bot sent in
    answer to the presser (it quotes the presser's message: their command, or the
    output that was scored). Only such a message is edited by a press; a message whose
    quoted message is gone, or that quotes the bot, belongs to nobody's flow."""
    message, presser = query.message, query.from_user.id
    if not isinstance(message, Message):
        return False  # inaccessible (deleted, too old): nothing to edit
    if message.chat.type == ChatType.PRIVATE:
        return message.chat.id == presser
    replied = message.reply_to_message
    author = replied.from_user if replied is not None else None
    return author is not None and not author.is_bot and author.id == presser


def board_data(query: BoardQuery, **changes: Any) -> str:
    """Callback data for a board page, with some fields of ``query`` changed."""
    q = replace(query, **changes)
    return f"{BOARD}:{q.benchmark}:{q.scope}:{q.mode or '-'}:{q.days}:{q.page}"


def board_image_data(query: BoardQuery) -> str:
    """Callback data for a board page "as image" (``lbi:`` and the page's fields)."""
    return BOARD_IMAGE + board_data(query)[len(BOARD) :]


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


#: A keyboard as the Bot API's JSON (``InlineKeyboardMarkup.to_dict()``): the score card's
#: keyboard is built per reply, and PTB's button objects cost several times the dicts.
Keyboard = dict[str, Any]


def markup(keyboard: Keyboard) -> InlineKeyboardMarkup:
    """The PTB object of a keyboard, for the calls that take one (edits)."""
    found = InlineKeyboardMarkup.de_json(keyboard, None)
    assert found is not None
    return found


def _button(text: str, data: str) -> dict[str, str]:
    return {"text": text, "callback_data": data}


@functools.cache
def _mode_labels(lang: str) -> tuple[tuple[str, str], ...]:
    """(mode, its label in ``lang``) for the four modes, in order."""
    return tuple((m.value, mode_label(m.value, lang) or m.label) for m in Mode)


def mode_buttons(lang: str, submission_id: int, current: str | None) -> list[dict[str, str]]:
    """The four modes (in ``lang``), the current one marked."""
    return [
        _button(("• " + label) if value == current else label, f"{MODE}:{submission_id}:{value}")
        for value, label in _mode_labels(lang)
    ]


def score_keyboard(
    lang: str,
    submission_id: int,
    *,
    mode: str | None,
    has_model: bool,
    editable: bool,
    can_publish: bool,
    published: bool,
    has_details: bool,
    bot_username: str,
) -> Keyboard:
    """A score reply's buttons. Until it is published (``editable``): the modes (the
    chosen one marked) and the model, to set or change; Publish once both are set and
    the result may be published (``can_publish``); Details when there is more than the
    card shows; Share once it is published (a link to an unpublished one finds nothing).
    """
    rows: list[list[dict[str, str]]] = []
    if editable:
        modes = mode_buttons(lang, submission_id, mode)
        rows += [modes[:2], modes[2:]]
        label = t(lang, "btn_change_model") if has_model else t(lang, "btn_model")
        rows.append([_button(label, f"{MODEL}:{submission_id}")])
    last: list[dict[str, str]] = []
    if editable and can_publish and mode is not None and has_model:
        last.append(_button(t(lang, "btn_publish"), f"{PUBLISH}:{submission_id}"))
    if has_details:
        last.append(_button(t(lang, "btn_details"), f"{DETAILS}:{submission_id}"))
    if last:
        rows.append(last)
    if published and bot_username:
        # the card as a photo with a link back, and a challenge link (share_handlers)
        rows.append(
            [
                _button(t(lang, "btn_share"), f"{SHARE}:{submission_id}"),
                _button(t(lang, "btn_challenge"), f"{CHALLENGE}:{submission_id}"),
            ]
        )
    return {"inline_keyboard": rows}


def board_keyboard(
    lang: str, query: BoardQuery, pages: int, *, in_group: bool, web_url: str | None = None
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
            ("• " if query.mode == m.value else "") + (mode_label(m.value, lang) or m.label),
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
    rows.append(
        [InlineKeyboardButton(t(lang, "btn_as_image"), callback_data=board_image_data(query))]
    )
    if in_group and query.scope in ("c", "g"):
        # the group's board and the global one, each with the way back to the other
        other, label = (
            ("g", N_("btn_global")) if query.scope == "c" else ("c", N_("btn_group_board"))
        )
        rows.append(
            [
                InlineKeyboardButton(
                    t(lang, label), callback_data=board_data(query, scope=other, page=0)
                )
            ]
        )
    if web_url and query.scope == "g":
        # the same board on the web: a Mini App in a private chat (Telegram allows
        # web_app buttons only there), in the language the user reads the bot in (not
        # their phone's, which the page would follow otherwise); a link in a group,
        # where each member's browser picks theirs
        url = f"{web_url}/b/{quote(query.benchmark)}"
        if in_group:
            rows.append([InlineKeyboardButton(t(lang, "btn_web_board"), url=url)])
        else:
            app = WebAppInfo(url=f"{url}?lang={quote(lang)}")
            rows.append([InlineKeyboardButton(t(lang, "btn_web_board"), web_app=app)])
    return InlineKeyboardMarkup(rows)


def history_keyboard(
    lang: str, withdrawable: list[int], page: int, pages: int, openable: Sequence[int] = ()
) -> InlineKeyboardMarkup | None:
    """``/me``'s buttons: withdraw each published result of the page (asked to confirm),
    open each withdrawn or private one again (its card, to publish it), and the pages."""
    buttons = [
        InlineKeyboardButton(
            t(lang, "btn_withdraw", id=sid), callback_data=f"{WITHDRAW}:{sid}:{page}"
        )
        for sid in withdrawable
    ] + [
        InlineKeyboardButton(t(lang, "btn_open_result", id=sid), callback_data=f"{OPEN}:{sid}")
        for sid in openable
    ]
    rows = [buttons[i : i + 2] for i in range(0, len(buttons), 2)]
    nav = []
    if page > 0:
        nav.append(InlineKeyboardButton(t(lang, "btn_prev"), callback_data=f"{HISTORY}:{page - 1}"))
    if page + 1 < pages:
        nav.append(InlineKeyboardButton(t(lang, "btn_next"), callback_data=f"{HISTORY}:{page + 1}"))
    if nav:
        rows.append(nav)
    return InlineKeyboardMarkup(rows) if rows else None


def withdraw_confirm_keyboard(lang: str, sid: int, page: int) -> InlineKeyboardMarkup:
    """``/me`` asking before a withdrawal: withdraw indeed, or back to the page."""
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t(lang, "btn_withdraw_yes", id=sid),
                    callback_data=f"{WITHDRAW}:{sid}:{page}:{CONFIRMED}",
                ),
                InlineKeyboardButton(t(lang, "btn_cancel"), callback_data=f"{HISTORY}:{page}"),
            ]
        ]
    )


def parse_history(data: str) -> int | None:
    """The page a ``/me`` page button names, else None."""
    parts = data.split(":")
    if len(parts) != 2 or parts[0] != HISTORY:
        return None
    return parse_count(parts[1], MAX_PAGE)


def flags_keyboard(
    lang: str, held: Sequence[int], page: int, pages: int
) -> InlineKeyboardMarkup | None:
    """``/flags``' buttons: release (✅) or reject each held result of the page, and
    the pages."""
    rows = [
        [
            InlineKeyboardButton(
                t(lang, "btn_flag_release", id=sid), callback_data=f"{FLAG_RELEASE}:{sid}:{page}"
            ),
            InlineKeyboardButton(
                t(lang, "btn_flag_reject", id=sid), callback_data=f"{FLAG_REJECT}:{sid}:{page}"
            ),
        ]
        for sid in held
    ]
    nav = []
    if page > 0:
        nav.append(InlineKeyboardButton(t(lang, "btn_prev"), callback_data=f"{FLAGS}:{page - 1}"))
    if page + 1 < pages:
        nav.append(InlineKeyboardButton(t(lang, "btn_next"), callback_data=f"{FLAGS}:{page + 1}"))
    if nav:
        rows.append(nav)
    return InlineKeyboardMarkup(rows) if rows else None


def parse_flag(data: str) -> tuple[str, int | None, int] | None:
    """``(action, submission id or None, page)`` a /flags button names, else None."""
    parts = data.split(":")
    if parts[0] == FLAGS and len(parts) == 2:
        page = parse_count(parts[1], MAX_PAGE)
        return None if page is None else (FLAGS, None, page)
    if parts[0] in (FLAG_RELEASE, FLAG_REJECT) and len(parts) == 3:
        sid, page = parse_id(parts[1]), parse_count(parts[2], MAX_PAGE)
        return None if sid is None or page is None else (parts[0], sid, page)
    return None


# --- Benchboard's own runs (bot.telegram.run_handlers) ---------------------------------

#: ``rc:<run>``: cancel a run; ``rt:<submission>``: the transcript of a run's attempt
RUN_CANCEL, TRANSCRIPT = "rc", "rt"


def run_progress_keyboard(lang: str, run_id: int) -> InlineKeyboardMarkup:
    """The progress message's Cancel button."""
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t(lang, N_("btn_cancel_run")), callback_data=f"{RUN_CANCEL}:{run_id}"
                )
            ]
        ]
    )


def run_card_keyboard(lang: str, submission_id: int) -> InlineKeyboardMarkup:
    """A run card's Transcript button."""
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t(lang, N_("btn_transcript")), callback_data=f"{TRANSCRIPT}:{submission_id}"
                )
            ]
        ]
    )

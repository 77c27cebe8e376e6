"""The message catalogues' API, kept at its old import path (see ``bot.render.i18n``)."""

from bot.render.i18n import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    N_,
    command_menu,
    field_label,
    pick_language,
    t,
    tn,
    translated,
)

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "N_",
    "command_menu",
    "field_label",
    "pick_language",
    "t",
    "tn",
    "translated",
]

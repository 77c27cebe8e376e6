"""Every user-visible string, from gettext catalogues in English and Persian.

Message ids are symbolic (``"board_row"``); the English catalogue holds the English
text. ``t(lang, key, **values)`` looks a message up; ``tn(lang, key, n, **values)`` looks
up a message about ``n`` things with ``ngettext`` (the count is ``{n}`` in its text).
Values are substituted with ``str.format`` and inserted as given: callers escape user
text for HTML before passing it (see ``bot.format``). A text missing in Persian falls
back to English.

The catalogues are ``locale/<lang>/LC_MESSAGES/benchboard.po``, each compiled to the
``.mo`` beside it; both are committed and shipped as package data, so an install needs
no build step. Ids the code builds at run time are marked with ``N_`` below, and the
ids a benchmark declares (its fields' labels, its hints' and reasons' texts) with
``scoring.base.N_`` where it declares them, so that extraction (of ``bot`` and
``scoring``) finds every id. After changing messages (Babel is in the ``dev`` extra):

    pybabel extract -F pyproject.toml --no-location --sort-output --project Benchboard \\
        -o bot/render/locale/benchboard.pot bot scoring
    pybabel update -i bot/render/locale/benchboard.pot -d bot/render/locale -D benchboard
    (edit both .po files)
    pybabel compile -d bot/render/locale -D benchboard

``tests/bot/render/test_i18n.py`` fails while a catalogue lags behind the code or a ``.mo``
behind its ``.po``.
"""

from __future__ import annotations

import functools
import gettext
from collections.abc import Iterable
from pathlib import Path

DOMAIN = "benchboard"
LOCALE_DIR = Path(__file__).with_name("locale")
LANGUAGES = ("en", "fa")
DEFAULT_LANGUAGE = "en"


def N_(key: str) -> str:
    """Mark a message id that is used later or built at run time, for extraction."""
    return key


#: The command menu (setMyCommands): command name and the id of its description.
MENU = (
    ("score", N_("cmd_score")),
    ("leaderboard", N_("cmd_leaderboard")),
    ("me", N_("cmd_me")),
    ("compare", N_("cmd_compare")),
    ("export", N_("cmd_export")),
    ("prompt", N_("cmd_prompt")),
    ("questions", N_("cmd_questions")),
    ("benchmarks", N_("cmd_benchmarks")),
    ("lang", N_("cmd_lang")),
    ("theme", N_("cmd_theme")),
    ("notices", N_("cmd_notices")),
    ("help", N_("cmd_help")),
)

#: What the command menu adds for a bot admin (a ``BotCommandScopeChat`` menu of their own).
ADMIN_MENU = (
    ("setkey", N_("cmd_admin_setkey")),
    ("benchmark", N_("cmd_admin_benchmark")),
    ("rescore", N_("cmd_admin_rescore")),
    ("keyinfo", N_("cmd_admin_keyinfo")),
    ("hide", N_("cmd_admin_hide")),
    ("unhide", N_("cmd_admin_unhide")),
    ("verify", N_("cmd_admin_verify")),
    ("flags", N_("cmd_admin_flags")),
    ("ban", N_("cmd_admin_ban")),
    ("unban", N_("cmd_admin_unban")),
    ("audit", N_("cmd_admin_audit")),
    ("backup", N_("cmd_admin_backup")),
    ("run", N_("cmd_admin_run")),
    ("runs", N_("cmd_admin_runs")),
)

#: Ids the code builds from a value (``f"state_{visibility}"``, ...): listed here only so
#: that extraction keeps them in the catalogues. A benchmark's own ids (its fields'
#: labels, its hints' and reasons' texts) are marked where it declares them.
RUNTIME_IDS = (
    # modes, by Mode value (buttons, cards, boards)
    N_("mode_default"),
    N_("mode_think"),
    N_("mode_tools"),
    N_("mode_think_tools"),
    # submission states, by Visibility
    N_("state_private"),
    N_("state_published"),
    N_("state_hidden"),
    N_("state_withdrawn"),
    # moderation, by action (the usage ids reach UserError through _int_arg)
    N_("usage_hide"),
    N_("usage_unhide"),
    N_("usage_verify"),
    N_("usage_ban"),
    N_("usage_unban"),
    N_("cannot_hide"),
    N_("cannot_unhide"),
    N_("cannot_verify"),
    N_("done_hide"),
    N_("done_unhide"),
    N_("done_verify"),
    # submission fields, by tag name
    N_("bad_cost"),
    N_("bad_latency"),
    N_("bad_target"),
    N_("bad_k"),
    # provenance tags (bot.core.provenance), by field
    N_("bad_provider"),
    N_("bad_temperature"),
    N_("bad_seed"),
    N_("bad_reasoning"),
    N_("bad_run_date"),
    N_("bad_log"),
)


def pick_language(chosen: str | None, telegram_code: str | None) -> str:
    """The /lang choice wins; otherwise follow Telegram's language; English by default."""
    if chosen in LANGUAGES:
        return chosen
    if telegram_code and telegram_code.split("-")[0].lower() == "fa":
        return "fa"
    return DEFAULT_LANGUAGE


@functools.cache
def catalogue(lang: str) -> gettext.NullTranslations:
    """The compiled catalogue of ``lang`` (English for an unknown one), loaded once."""
    if lang not in LANGUAGES:
        lang = DEFAULT_LANGUAGE
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang])


def translated(lang: str, key: str) -> bool:
    """True when ``key`` has its own text in ``lang`` (not the English fallback)."""
    return catalogue(lang).gettext(key) != key


def _template(lang: str, key: str, n: int | None = None) -> str | None:
    if n is None:
        return _text(lang, key)
    for code in (lang, DEFAULT_LANGUAGE):
        text = catalogue(code).ngettext(key, key, n)
        if text != key:
            return text
    return None


@functools.lru_cache(maxsize=4096)
def _text(lang: str, key: str) -> str | None:
    """The message ``key`` in ``lang`` (else in English), None when neither has it; read
    once (a score card asks for about twenty)."""
    for code in (lang, DEFAULT_LANGUAGE):
        text = catalogue(code).gettext(key)
        if text != key:
            return text
    return None


_PERSIAN_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")


def digits(lang: str, value: object) -> str:
    """A number as prose writes it in ``lang``: Persian digits in Persian."""
    text = str(value)
    return text.translate(_PERSIAN_DIGITS) if lang == "fa" else text


def _localised(lang: str, values: dict[str, object]) -> dict[str, object]:
    """Whole numbers in Persian digits for Persian prose. Strings (text a user typed,
    scores as a benchmark writes them, line numbers already in a list) stay as given."""
    if lang != "fa":
        return values
    return {
        k: digits(lang, v) if isinstance(v, int) and not isinstance(v, bool) else v
        for k, v in values.items()
    }


def join_list(lang: str, items: Iterable[object]) -> str:
    """Items as a list in prose: ``a, b`` in English, ``a، b`` in Persian."""
    separator = "، " if lang == "fa" else ", "
    return separator.join(str(item) for item in items)


def t(lang: str, key: str, **values: object) -> str:
    template = _template(lang, key)
    if template is None:
        raise KeyError(key)
    return template.format(**_localised(lang, values)) if values else template


def tn(lang: str, key: str, n: int, **values: object) -> str:
    """The message ``key`` about ``n`` things: its plural form for ``n`` in ``lang``."""
    template = _template(lang, key, n)
    if template is None:
        raise KeyError(key)
    return template.format(**_localised(lang, {"n": n, **values}))


def text_or(lang: str, key: str, default: str) -> str:
    """The message ``key`` in ``lang`` (else in English); ``default`` when neither has it."""
    found = _template(lang, key)
    return default if found is None else found


def field_label(lang: str, key: str) -> str:
    """The label of a result breakdown field; the field's own key when it has none."""
    return _template(lang, f"field_{key}") or key


def command_menu(lang: str, *, admin: bool = False) -> list[tuple[str, str]]:
    """The bot's command menu in ``lang``: (command, description) pairs, in order, with
    each challenge's command (from the registry) after ``/me``; a bot admin's adds theirs."""
    from scoring import registry

    challenges = [
        (b.challenge.command, t(lang, "cmd_challenge", title=b.title))
        for b in registry.all_benchmarks()
        if b.challenge is not None
    ]
    menu = [(name, t(lang, key)) for name, key in MENU + (ADMIN_MENU if admin else ())]
    after = next(i for i, (name, _) in enumerate(menu) if name == "me") + 1
    return menu[:after] + challenges + menu[after:]

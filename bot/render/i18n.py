"""Every user-visible string, from gettext catalogues in English and Persian.

Message ids are symbolic (``"board_row"``); the English catalogue holds the English
text. ``t(lang, key, **values)`` looks a message up; ``tn(lang, key, n, **values)`` looks
up a message about ``n`` things with ``ngettext`` (the count is ``{n}`` in its text).
Values are substituted with ``str.format`` and inserted as given: callers escape user
text for HTML before passing it (see ``bot.format``). A text missing in Persian falls
back to English.

The catalogues are ``locale/<lang>/LC_MESSAGES/benchboard.po``, each compiled to the
``.mo`` beside it; both are committed and shipped as package data, so an install needs
no build step. Ids the code builds at run time are marked with ``N_`` below, so that
extraction finds every id. After changing messages (Babel is in the ``dev`` extra):

    pybabel extract -F pyproject.toml --no-location --sort-output --project Benchboard \\
        -o bot/render/locale/benchboard.pot bot
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
    ("natory", N_("cmd_natory")),
    ("compare", N_("cmd_compare")),
    ("export", N_("cmd_export")),
    ("prompt", N_("cmd_prompt")),
    ("questions", N_("cmd_questions")),
    ("benchmarks", N_("cmd_benchmarks")),
    ("lang", N_("cmd_lang")),
    ("theme", N_("cmd_theme")),
    ("help", N_("cmd_help")),
)

#: What the command menu adds for a bot admin (a ``BotCommandScopeChat`` menu of their own).
ADMIN_MENU = (
    ("setkey", N_("cmd_admin_setkey")),
    ("rescore", N_("cmd_admin_rescore")),
    ("keyinfo", N_("cmd_admin_keyinfo")),
    ("hide", N_("cmd_admin_hide")),
    ("unhide", N_("cmd_admin_unhide")),
    ("verify", N_("cmd_admin_verify")),
    ("ban", N_("cmd_admin_ban")),
    ("unban", N_("cmd_admin_unban")),
    ("audit", N_("cmd_admin_audit")),
    ("backup", N_("cmd_admin_backup")),
)

#: Ids the code builds from a value (``f"state_{visibility}"``, ``f"hint_{code}"``, ...):
#: listed here only so that extraction keeps them in the catalogues.
RUNTIME_IDS = (
    # result breakdown fields: "field_" + a key of Result.summary_fields(); a field
    # without an entry is shown under its own key (Natory's keep the game's names)
    N_("field_total_questions"),
    N_("field_correct"),
    N_("field_wrong"),
    N_("field_unanswered"),
    N_("field_positive_points"),
    N_("field_negative_points"),
    N_("field_final_score"),
    N_("field_accuracy"),
    N_("field_coverage"),
    N_("field_k_attempts"),
    N_("field_main_questions"),
    N_("field_main_unattempted"),
    N_("field_main_fewer_than_k"),
    N_("field_main_pass_at_1"),
    N_("field_main_pass_at_k"),
    N_("field_main_reliability"),
    N_("field_main_lenient_pass_at_1"),
    N_("field_main_lenient_pass_at_k"),
    N_("field_sub_questions"),
    N_("field_sub_unattempted"),
    N_("field_sub_fewer_than_k"),
    N_("field_sub_pass_at_1"),
    N_("field_sub_pass_at_k"),
    N_("field_sub_reliability"),
    N_("field_sub_lenient_pass_at_1"),
    N_("field_sub_lenient_pass_at_k"),
    # hints by the scorer's hint code (Persian only: English shows the scorer's text)
    N_("hint_persian_digits"),
    N_("hint_fullwidth_colon"),
    N_("hint_q_prefix"),
    N_("hint_trailing_period"),
    N_("hint_markdown_bold"),
    N_("hint_bullets"),
    N_("hint_markdown_table"),
    N_("hint_answers_in_prose"),
    N_("hint_natory_extracted"),
    N_("hint_natory_trivial"),
    N_("hint_natory_target_itself"),
    N_("hint_natory_extra_digits"),
    # ZeroBench's hints: hint_zerobench_<code> (its trailing_period is not PrimeBench's)
    N_("hint_zerobench_unknown_format"),
    N_("hint_zerobench_invalid_json"),
    N_("hint_zerobench_too_deeply_nested"),
    N_("hint_zerobench_response_not_text"),
    N_("hint_zerobench_duplicate_ids"),
    N_("hint_zerobench_no_braces"),
    N_("hint_zerobench_braces_across_lines"),
    N_("hint_zerobench_spaces_in_braces"),
    N_("hint_zerobench_trailing_period"),
    N_("hint_zerobench_number_format"),
    N_("hint_zerobench_nested_braces"),
    N_("hint_zerobench_earlier_braces"),
    N_("hint_zerobench_correct_column_differs"),
    N_("hint_zerobench_no_main_attempts"),
    N_("hint_zerobench_fewer_than_k"),
    N_("hint_zerobench_more_than_k"),
    # why a Natory expression is not valid, by ExpressionError.code (Persian only:
    # English shows the scorer's text)
    N_("natory_error_nth_root"),
    N_("natory_error_latex_command"),
    N_("natory_error_backslash"),
    N_("natory_error_superscript"),
    N_("natory_error_not_ascii"),
    N_("natory_error_one_only"),
    N_("natory_error_unexpected_char"),
    N_("natory_error_unknown_name"),
    N_("natory_error_too_nested"),
    N_("natory_error_too_deep"),
    N_("natory_error_unclosed"),
    N_("natory_error_unclosed_end"),
    N_("natory_error_ends_early"),
    N_("natory_error_unexpected"),
    N_("natory_error_unexpected_end"),
    N_("natory_error_too_long"),
    N_("natory_error_empty"),
    N_("natory_error_unmatched_close"),
    N_("natory_error_missing_operator"),
    N_("natory_error_too_many_bits"),
    N_("natory_error_not_whole"),
    N_("natory_error_numeral_too_big"),
    N_("natory_error_division_by_zero"),
    N_("natory_error_mod_by_zero"),
    N_("natory_error_factorial_negative"),
    N_("natory_error_factorial_limit"),
    N_("natory_error_pn_positive"),
    N_("natory_error_pn_limit"),
    N_("natory_error_zero_to_zero"),
    N_("natory_error_zero_negative_power"),
    N_("natory_error_power_too_big"),
    N_("natory_error_negative_root"),
    N_("natory_error_irrational_power"),
    N_("natory_error_sqrt_negative"),
    N_("natory_error_sqrt_irrational"),
    N_("natory_error_sopfr_positive"),
    N_("natory_error_sopfr_budget"),
    N_("natory_error_digit_not_allowed"),
    N_("natory_error_not_target"),
    # Natory's special-number bonuses, by key
    N_("gem_factorial"),
    N_("gem_perfect_power"),
    N_("gem_prime"),
    # modes, by Mode value (buttons, cards, boards)
    N_("mode_default"),
    N_("mode_think"),
    N_("mode_tools"),
    N_("mode_think_tools"),
    # Natory breakdown fields, by the game's field name
    N_("field_baseScore"),
    N_("field_eleganceBonus"),
    N_("field_operatorDiversityBonus"),
    N_("field_allDigitsBonus"),
    N_("field_exactUsageBonus"),
    N_("field_repetitionPenalty"),
    N_("field_complexityPenalty"),
    N_("field_trivialExpressionPenalty"),
    N_("field_specialNumberBonus"),
    N_("field_uniqueResultBonus"),
    N_("field_finalScore"),
    N_("field_target"),
    N_("field_expression"),
    N_("field_value"),
    N_("field_simplified"),
    N_("field_specialNumberKey"),
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


def field_label(lang: str, key: str) -> str:
    """The label of a result breakdown field; the field's own key when it has none."""
    return _template(lang, f"field_{key}") or key


def command_menu(lang: str, *, admin: bool = False) -> list[tuple[str, str]]:
    """The bot's command menu in ``lang``: (command, description) pairs, in order; a bot
    admin's adds theirs."""
    return [(name, t(lang, key)) for name, key in MENU + (ADMIN_MENU if admin else ())]

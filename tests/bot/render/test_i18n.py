"""The gettext catalogues: complete for the code, compiled, plural-aware, consistent."""

from __future__ import annotations

import io
import string
import tomllib
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_keywords
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

from bot.render import i18n
from bot.render.i18n import LANGUAGES, LOCALE_DIR, command_menu, t, tn
from bot.telegram import app

ROOT = Path(__file__).resolve().parents[3]


def _po(lang: str) -> Catalog:
    with (LOCALE_DIR / lang / "LC_MESSAGES" / "benchboard.po").open("rb") as f:
        return read_po(f, locale=lang)


def _mo(lang: str) -> Catalog:
    with (LOCALE_DIR / lang / "LC_MESSAGES" / "benchboard.mo").open("rb") as f:
        return read_mo(f)


def _key(message: Message) -> str:
    return message.id if isinstance(message.id, str) else message.id[0]


def _entries(catalog: Catalog) -> dict[str, Message]:
    return {_key(m): m for m in catalog if m.id}


def _forms(message: Message) -> tuple[str, ...]:
    return (message.string,) if isinstance(message.string, str) else tuple(message.string)


def _extracted() -> dict[str, bool]:
    """Every message id in the code (as ``pybabel extract -F pyproject.toml`` finds
    them), and whether it is used with a count."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    (mapping,) = config["tool"]["babel"]["mappings"]
    keywords = {**DEFAULT_KEYWORDS, **parse_keywords(mapping["keywords"])}
    found: dict[str, bool] = {}
    for folder in ("bot", "scoring"):  # a benchmark declares its own ids (scoring.base.N_)
        for _file, _line, message, _comments, _context in extract_from_dir(
            ROOT / folder,
            method_map=[(mapping["pattern"], mapping["method"])],
            keywords=keywords,
        ):
            key = message if isinstance(message, str) else message[0]
            plural = not isinstance(message, str)
            assert found.setdefault(key, plural) == plural, f"{key} used both with and without n"
            found[key] = plural
    return found


def _english_from_scorer(key: str) -> bool:
    """Hints and Natory's reasons by code have Persian texts only: English shows the
    scorer's own text."""
    if key.startswith("natory_error_"):
        return True
    if key.startswith("hint_zerobench_"):
        return True
    return key.startswith("hint_") and key not in ("hint_lines_one", "hint_lines_many")


def test_every_id_in_the_code_has_english_and_persian_text() -> None:
    used = _extracted()
    assert len(used) > 150  # extraction found the code's ids at all
    for lang in LANGUAGES:
        entries = _entries(_po(lang))
        assert not sorted(set(used) - set(entries)), f"missing in {lang}"
        assert not sorted(set(entries) - set(used)), f"in {lang} but unused: re-extract"
        for key, plural in used.items():
            message = entries[key]
            assert message.pluralizable == plural, (lang, key)
            assert not message.fuzzy, (lang, key)
            if lang == "en" and _english_from_scorer(key):
                continue
            assert all(form.strip() for form in _forms(message)), f"{key} has no {lang} text"


def test_the_committed_template_matches_the_code() -> None:
    with (LOCALE_DIR / "benchboard.pot").open("rb") as f:
        template = _entries(read_po(f))
    assert {k: m.pluralizable for k, m in template.items()} == _extracted()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_compiled_catalogue_is_up_to_date(lang: str) -> None:
    """Each committed .mo holds what compiling its .po gives now (`pybabel compile`)."""
    fresh = io.BytesIO()
    write_mo(fresh, _po(lang))
    fresh.seek(0)
    compiled = read_mo(fresh)
    committed = _mo(lang)
    assert {_key(m): m.string for m in committed if m.id} == {
        _key(m): m.string for m in compiled if m.id
    }
    assert committed.plural_forms == compiled.plural_forms == _po(lang).plural_forms


def _fields(text: str) -> set[str]:
    names = {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    return {name.split(".")[0].split("[")[0] for name in names}


#: What a hint about a Natory result may say (``bot.render.format._natory_hint_values``).
_NATORY_HINT_VALUES = {"target", "removed", "extra", "digits", "line", "expression"}
#: What a PrimeBench hint about lines may say besides them: its params, the answers the
#: rule still read on them and the questions answered again (``scoring.primebench.hints``).
_LINE_HINT_VALUES = {"lines", "counted", "ids"}


def test_translations_use_the_english_placeholders() -> None:
    english = _entries(_po("en"))
    for key, message in _entries(_po("fa")).items():
        reference = english[key]
        if key.startswith(("natory_error_", "hint_zerobench_")):
            continue  # the scorer's values for each: test_natory_reasons.py, test_hints.py
        if _english_from_scorer(key):
            # a hint about lines names them; one about a Natory result, its figures
            fields = [_fields(form) for form in _forms(message)]
            assert all(
                ("lines" in f and f <= _LINE_HINT_VALUES) or (f and f <= _NATORY_HINT_VALUES)
                for f in fields
            ), key
            continue
        expected = _fields(_forms(reference)[-1])
        for form in (*_forms(reference), *_forms(message)):
            assert _fields(form) == expected, (key, form)
        if message.pluralizable:
            assert "n" in expected, key  # a count that is not shown has no plural


def test_plurals() -> None:
    row = {"rank": 1, "model": "m", "mode": "think", "best": "+9", "mean": "+9", "verified": ""}
    assert tn("en", "board_row", 1, **row) == "1. m · think · +9 (1 run, mean +9)"
    assert tn("en", "board_row", 2, **row) == "1. m · think · +9 (2 runs, mean +9)"
    # Persian prose writes whole numbers in Persian digits; a score stays as written
    assert tn("fa", "board_row", 1, **row) == "۱. m · think · +9 (۱ اجرا، میانگین +9)"
    assert tn("fa", "board_row", 2, **row) == "۱. m · think · +9 (۲ اجرا، میانگین +9)"
    assert [tn("en", "daily_attempts", n) for n in (0, 1, 2)] == [
        "0 attempts",
        "1 attempt",
        "2 attempts",
    ]
    assert tn("en", "daily_targets", 1) == "1 target"
    assert tn("en", "window_days", 1) == "1 day" and tn("en", "window_days", 7) == "7 days"
    assert tn("fa", "window_days", 1) == "۱ روز" and tn("fa", "window_days", 7) == "۷ روز"
    assert tn("en", "left_today", 1, left=0) == "0 of 1 publication left today."
    assert tn("en", "left_today", 5, left=2) == "2 of 5 publications left today."


def test_lookup_falls_back_and_fails_loudly() -> None:
    assert t("fa", "bad_tag", reason="x") == "x"
    assert t("xx", "btn_share") == t("en", "btn_share")  # an unknown language reads English
    assert i18n.translated("fa", "hint_q_prefix") and not i18n.translated("en", "hint_q_prefix")
    assert i18n.field_label("fa", "correct") == "درست"
    assert i18n.field_label("fa", "elegance") == "elegance"  # no label: its own key
    with pytest.raises(KeyError):
        t("en", "no_such_message")
    with pytest.raises(KeyError):
        tn("en", "no_such_message", 2)


def test_the_command_menu_comes_from_the_catalogues() -> None:
    names = [name for name, _ in i18n.MENU]
    # each challenge's command (from the registry) after /me
    names[names.index("me") + 1 : names.index("me") + 1] = ["natory"]
    for lang in LANGUAGES:
        menu = command_menu(lang)
        assert [name for name, _ in menu] == names
        assert all(0 < len(text) <= 256 for _, text in menu)  # Telegram's limit
        assert app.COMMANDS[lang] == menu
    assert dict(command_menu("en"))["score"] == "score a model's output"
    assert dict(command_menu("fa"))["score"] == "امتیازدهی خروجی یک مدل"
    assert dict(command_menu("en"))["natory"] == "Natory: today's target and boards"
    # a bot admin's menu has the bot admins' commands of the README's table
    admins = dict(command_menu("en", admin=True))
    assert {"setkey", "benchmark", "rescore", "keyinfo", "hide", "unhide", "verify"} <= set(admins)
    assert {"flags", "ban", "unban", "audit", "backup", "run", "runs"} <= set(admins)


def test_every_code_a_benchmark_declares_has_its_messages() -> None:
    """Each hint and reason code of each benchmark names a message with English and
    Persian entries (English may be empty: it shows the scorer's own text)."""
    from scoring import registry

    english, persian = _entries(_po("en")), _entries(_po("fa"))
    for benchmark in registry.all_benchmarks():
        declared = {**benchmark.hint_messages, **benchmark.reason_messages}
        for code, key in declared.items():
            assert key in english, (benchmark.name, code, key)
            assert persian.get(key) is not None and persian[key].string, (benchmark.name, code)
        for column in benchmark.web_columns:
            assert english[column.label].string and persian[column.label].string, column

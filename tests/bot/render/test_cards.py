"""Result cards and board images: every benchmark, English and Persian, light and dark,
a 300-character model name. Checked on the figure itself: the strings it draws (read
back from its text objects), that each one lies inside the image, and the PNG's size."""

from __future__ import annotations

import json
import struct
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from matplotlib.figure import Figure

from bot.render.card_views import (
    BENCHBOARD_GLYPH,
    LRI,
    PDI,
    BoardImageView,
    ResultCardView,
    TableRow,
    card_strings,
    plain,
)
from bot.render.cards import (
    CARD_HEIGHT,
    REPLACEMENT,
    WIDTH,
    board_image_figure,
    emoji_font,
    render_board_image,
    render_result_card,
    result_card_figure,
)
from scoring import Result, registry
from scoring import zerobench as zb

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
LONG = "gpt-" + "x" * 296  # 300 characters
PERSIAN = "مدل آزمایشی جی‌پی‌تی"
SHA = "0123456789abcdef" * 4


def _result(name: str) -> Result:
    benchmark = registry.get(name)
    if name == "primebench":
        key = benchmark.load_key("".join(f"{q}:{q % 4 + 1}\n" for q in range(1, 105)).encode())
        text = "\n".join(f"{q}:{q % 4 + 1}" for q in range(1, 41))
        text += "\n" + "\n".join(f"{q}:{(q + 1) % 4 + 1}" for q in range(41, 51))
        return benchmark.score(text, key)
    if name == "zerobench":
        key = zb.load_key(json.dumps({zb.MAIN_SPLIT: {"1": "42", "2": "7"}}).encode())
        text = "".join(
            json.dumps({"question_id": q, "response": r}) + "\n"
            for q, r in (("1", "{42}"), ("1", "{41}"), ("2", "{7}"), ("2", "{7}"))
        )
        return benchmark.score(text, key, options=benchmark.options_from_tags({"k": "2"}))
    key, options = benchmark.key_for({"target": 13}, None)
    return benchmark.score("3^(1+1)+(3+1)", key, options=options)


def _card(name: str, *, lang: str = "en", theme: str = "light", model: str = "gpt-6 luna",
          **kw: Any) -> ResultCardView:  # fmt: skip
    return ResultCardView(
        benchmark=registry.get(name),
        result=_result(name),
        model=model,
        mode="think_tools",
        rank=kw.pop("rank", 3),
        verified=kw.pop("verified", True),
        key_sha=SHA if name != "natory" else None,
        date=NOW,
        lang=lang,
        theme=theme,
        bot_username="benchboard_bot",
        **kw,
    )


def _texts(figure: Figure) -> list[str]:
    """The strings drawn as a reader sees them (a line wrapped in two read as one)."""
    return [plain(t.get_text()).replace("\n", " ") for t in figure.texts]


def _inside(figure: Figure) -> None:
    """Every drawn string lies within the image (nothing overflows its width)."""
    width, height = figure.bbox.width, figure.bbox.height
    for item in figure.texts:
        box = item.get_window_extent()
        assert box.x0 >= -1 and box.x1 <= width + 1, (item.get_text(), box)
        assert box.y0 >= -1 and box.y1 <= height + 1, (item.get_text(), box)


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


@pytest.mark.parametrize("name", ["primebench", "zerobench", "natory"])
@pytest.mark.parametrize("lang", ["en", "fa"])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_card_shows_its_result_in_both_languages_and_themes(
    name: str, lang: str, theme: str
) -> None:
    view = _card(name, lang=lang, theme=theme)
    figure, text = result_card_figure(view)
    drawn = _texts(figure)
    assert {plain(s) for s in card_strings(text)} <= set(drawn) | {text.score_label}
    assert "gpt-6 luna" in drawn
    assert registry.get(name).title in drawn
    assert plain(text.score) in drawn
    assert plain(text.footer).startswith(("key 01234567", "کلید 01234567")) or name == "natory"
    if name == "primebench":
        assert "PrimeBench by JibayAI (jibay.ir), CC BY-ND 4.0" in drawn  # the credit
        assert text.bar is not None and text.bar.counts[:2] == (40, 10)
        assert ("40" if lang == "en" else "۴۰") in drawn
    if name == "zerobench":
        labels = " ".join(drawn)
        assert "pass@1" in labels and "pass@k" in labels and "k/k" in labels
    if name == "natory":
        assert any("3^(1+1)+(3+1)" in s for s in drawn)
    _inside(figure)
    png = render_result_card(view)
    assert _png_size(png) == (WIDTH, CARD_HEIGHT)


def test_english_and_persian_labels() -> None:
    en = _texts(result_card_figure(_card("primebench"))[0])
    fa = _texts(result_card_figure(_card("primebench", lang="fa", verified=False))[0])
    assert {"Score", "Correct", "Wrong", "Unanswered", "✔ Verified"} <= set(en)
    assert "#3 on the global board" in en
    assert {"امتیاز", "درست", "نادرست", "بی‌پاسخ", "گزارش کاربر"} <= set(fa)
    assert "رتبه‌ی ۳ در جدول جهانی" in fa


def test_persian_text_is_laid_out_right_to_left() -> None:
    figure, _ = result_card_figure(_card("primebench", lang="fa", model=PERSIAN))
    name = next(t for t in figure.texts if t.get_text() == PERSIAN)
    assert name.get_horizontalalignment() == "right"  # anchored at the right margin
    box = name.get_window_extent()
    assert box.x1 == pytest.approx(WIDTH - 60, abs=2)
    en_name = next(t for t in result_card_figure(_card("primebench"))[0].texts
                   if t.get_text() == "gpt-6 luna")  # fmt: skip
    assert en_name.get_window_extent().x0 == pytest.approx(60, abs=3)


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_300_character_name_is_cut_with_an_ellipsis(lang: str) -> None:
    figure, _ = result_card_figure(_card("zerobench", lang=lang, model=LONG))
    cut = [t for t in figure.texts if t.get_text().startswith("gpt-x")]
    assert len(cut) == 1
    shown = cut[0].get_text()
    assert shown.endswith("…") and 10 < len(shown) < 100
    assert cut[0].get_window_extent().width <= WIDTH - 120
    _inside(figure)


def test_a_model_name_is_never_read_as_mathtext() -> None:
    figure, _ = result_card_figure(_card("primebench", model="$x^2$ model"))
    assert "$x^2$ model" in _texts(figure)
    assert render_result_card(_card("primebench", model="$\\frac{a}{b")).startswith(b"\x89PNG")


def test_a_challenge_and_a_natory_rank_are_on_the_card() -> None:
    view = _card("natory", challenge={"score": "+38", "model": "claude"}, rank=2)
    drawn = _texts(result_card_figure(view)[0])
    assert "Challenge: beat +38 by claude" in drawn
    assert "#2 for target 13" in drawn


def _rows(n: int, long_row: int | None = None) -> tuple[TableRow, ...]:
    return tuple(
        TableRow(
            i + 1,
            LONG if i == long_row else f"model {i}",
            "think",
            f"+{40 - i}",
            i + 1,
            verified=i % 2 == 0,
        )
        for i in range(n)
    )


@pytest.mark.parametrize("lang", ["en", "fa"])
@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("name", ["primebench", "zerobench", "natory"])
def test_a_board_image_is_a_table_with_its_header(lang: str, theme: str, name: str) -> None:
    view = BoardImageView(
        registry.get(name), "c", _rows(10, long_row=2), NOW, mode="think", days=7, page=0,
        pages=3, chat_title="گروه آزمایش" if lang == "fa" else "Lab", key_version=2, lang=lang,
        theme=theme, bot_username="benchboard_bot",
    )  # fmt: skip
    figure, text = board_image_figure(view)
    drawn = _texts(figure)
    title = registry.get(name).title
    assert any(title in s and ("Lab" in s or "گروه آزمایش" in s) for s in drawn)
    subtitle = plain(text.subtitle)
    if lang == "en":
        counted = "Attempts" if name == "natory" else "Runs"
        assert {"#", "Model", "Mode", "Score", counted} <= set(drawn)
        assert "mode: think" in subtitle and "7 days" in subtitle and "page 1 of 3" in subtitle
        assert "2026-11-30" in subtitle
    else:
        counted = "تلاش‌ها" if name == "natory" else "اجرا"
        assert {"رتبه", "مدل", "حالت", "امتیاز", counted} <= set(drawn)
        assert "۲۰۲۶-۱۱-۳۰" in subtitle
    scores = "+31" if lang == "en" else "+۳۱"
    assert "model 0" in drawn and "model 9" in drawn and scores in drawn
    assert sum(1 for s in drawn if s.startswith("gpt-x") and s.endswith("…")) == 1
    assert drawn.count("✔") == 5
    _inside(figure)
    png = render_board_image(view)
    width, height = _png_size(png)
    assert width == WIDTH and height > 900


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_run_by_benchboard_has_its_own_mark_named_in_the_footer(lang: str) -> None:
    rows = (
        TableRow(1, "run model", "think", "+40", 1, verified=True, benchboard=True),
        TableRow(2, "checked model", "think", "+39", 1, verified=True),
        TableRow(3, "pasted model", "think", "+38", 1),
    )
    view = BoardImageView(registry.get("primebench"), "g", rows, NOW, key_version=2, lang=lang)
    figure, text = board_image_figure(view)
    drawn = _texts(figure)
    assert drawn.count(BENCHBOARD_GLYPH) == 1 and drawn.count("✔") == 1
    assert BENCHBOARD_GLYPH in text.footer and "Benchboard" in text.footer
    plain_view = BoardImageView(registry.get("primebench"), "g", rows[1:], NOW, lang=lang)
    assert BENCHBOARD_GLYPH not in board_image_figure(plain_view)[1].footer


@pytest.mark.parametrize(("lang", "version"), [("en", 12), ("fa", 1), ("fa", 12)])
def test_the_benchboard_mark_is_named_in_full(lang: str, version: int) -> None:
    """The footer naming the ⚙ mark is drawn whole beside the bot's handle (it was cut
    to "run by Benchboa…" at key version 12, and always in Persian)."""
    row = TableRow(1, "run model", "think", "+40", 1, verified=True, benchboard=True)
    view = BoardImageView(registry.get("primebench"), "g", (row,), NOW, key_version=version,
                          lang=lang, bot_username="benchboard_test_bot")  # fmt: skip
    figure, text = board_image_figure(view)
    drawn = _texts(figure)
    assert text.footer in drawn and "@benchboard_test_bot" in drawn
    _inside(figure)


def test_an_empty_board_says_so() -> None:
    view = BoardImageView(registry.get("primebench"), "g", (), NOW)
    figure, _ = board_image_figure(view)
    assert any("No results" in s or "published" in s for s in _texts(figure))
    assert _png_size(render_board_image(view))[0] == WIDTH


def test_persian_keeps_expressions_and_scores_left_to_right() -> None:
    view = _card("natory", lang="fa", challenge={"score": "+38", "model": "مدل دوست"})
    figure, text = result_card_figure(view)
    raw = [t.get_text() for t in figure.texts]
    assert any(f"{LRI}3^(1+1)+(3+1){PDI}" in s for s in raw)  # the expression as typed
    assert any(s.startswith(LRI) and "=" in s for s in raw)  # the sum, left to right
    assert f"{LRI}+38{PDI}" in text.challenge
    english = result_card_figure(_card("natory"))[1]
    assert all(LRI not in s for s in card_strings(english))  # English needs none


def test_persian_cards_write_every_figure_in_persian_digits_left_to_right() -> None:
    """The big score, the breakdown and a board image's scores: Persian digits in a
    Persian card, each a left-to-right isolate (``+۱۰`` never drawn as ``۱۰+``)."""
    _, fa = result_card_figure(_card("primebench", lang="fa"))
    assert fa.score.startswith("\u2066") and fa.score.endswith("\u2069")
    assert not any(c in "0123456789" for c in plain(fa.score))
    _, en = result_card_figure(_card("primebench"))
    assert en.score == plain(en.score) and any(c in "0123456789" for c in en.score)
    _, zero = result_card_figure(_card("zerobench", lang="fa"))
    for _, value in zero.breakdown:  # digits alone need no isolate; figures with signs do
        assert not any(c in "0123456789" for c in value)
        assert value.isdigit() or value.startswith("\u2066"), value


#: Credits a benchmark defined by data may give (300 characters each for its credit and
#: its license): one without spaces (a long link, a word of ZWNJ-joined parts) crashed every card
#: and board image of it ("min() arg is an empty sequence"); a long one ran off the
#: image's edge on its second line.
CREDITS = [
    "https://example.org/datasets/tinymcq/" + "v" * 250,
    "آزمایشگاه‌نمونه" * 14,
    "X" * 300,
    "TinyMCQ by Example Lab " + "C" * 277 + " · CC BY 4.0",
    ("ساخته‌شده توسط آزمایشگاه نمونه برای سنجش مدل‌های زبانی " * 6)[:300] + " · CC BY 4.0",
    "short words " * 50,
]


@pytest.mark.parametrize("credit", CREDITS, ids=range(len(CREDITS)))
@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_long_credit_stays_inside_the_card_and_the_board_image(credit: str, lang: str) -> None:
    from scoring.choice import ChoiceBenchmark, Definition, Points

    defined = ChoiceBenchmark(
        Definition(
            "longc",
            "LongC",
            4,
            Points(1, 0, 0),
            credit=credit[:300],
            license=credit[300:].lstrip(" ·"),
        )
    )
    key = defined.load_key(b"1:1\n2:2\n")
    view = ResultCardView(
        benchmark=defined, result=defined.score("1:1\n2:3\n", key), model="m", mode="think",
        rank=1, verified=False, key_sha=SHA, date=NOW, lang=lang, theme="light",
        bot_username="benchboard_bot",
    )  # fmt: skip
    figure, _ = result_card_figure(view)
    _inside(figure)
    drawn = [t.get_text() for t in figure.texts if "\n" in t.get_text() or t.get_text() == credit]
    shown = drawn[0] if drawn else ""
    assert shown.replace("\n", "").replace(" ", "").rstrip("…")[:40] == credit.replace(" ", "")[:40]
    assert shown.count("\n") <= 1
    board = BoardImageView(defined, "g", _rows(3), NOW, lang=lang)
    figure, _ = board_image_figure(board)
    _inside(figure)
    assert _png_size(render_board_image(board))[0] == WIDTH


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_large_score_is_drawn_whole_smaller_never_cut(lang: str) -> None:
    """A benchmark defined by data may give ±1,000,000 points an answer over 100,000
    questions: "+100000000000" was drawn "+1000000…" on the card and cut on the board
    image, a number that misstates the score. Numbers are drawn smaller instead."""
    from scoring.choice import ChoiceBenchmark, Definition, Points

    defined = ChoiceBenchmark(Definition("bigp", "BigP", 4, Points(10**6, -(10**6), 0)))
    n = 100_000
    key = defined.load_key("".join(f"{q}:1\n" for q in range(1, n + 1)).encode())
    for answer, score in ((1, "+100000000000"), (2, "-100000000000")):
        result = defined.score("".join(f"{q}:{answer}\n" for q in range(1, n + 1)), key)
        view = ResultCardView(
            benchmark=defined, result=result, model="m", mode="think", rank=1,
            verified=False, key_sha=SHA, date=NOW, lang=lang, theme="light",
            bot_username="benchboard_bot",
        )  # fmt: skip
        figure, text = result_card_figure(view)
        _inside(figure)
        assert plain(text.score) in _texts(figure)
        assert not any(s.startswith(("+1", "-1", "+۱", "-۱")) and "…" in s for s in _texts(figure))
        row = TableRow(1, "m", "think", score, 100_000, verified=True)
        board = BoardImageView(defined, "g", (row,), NOW, lang=lang)
        figure, _ = board_image_figure(board)
        _inside(figure)
        drawn = _texts(figure)
        digits = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹") if lang == "fa" else {}
        assert score.translate(digits) in drawn and "100000".translate(digits) in drawn, drawn


#: An emoji an emoji font has (Unicode 6), one with a skin tone, and a character no font
#: has (plane 16's private use)
EMOJI_NAME = "rocket 🚀 ok 👍🏽 x\U0010fffd"


def _missing_glyphs(draw: Any) -> list[str]:
    """What matplotlib says it drew as an empty box while ``draw()`` rendered."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        draw()
    return [str(w.message) for w in caught if "missing from font" in str(w.message)]


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_no_character_of_a_name_is_drawn_as_an_empty_box(lang: str) -> None:
    """An emoji is drawn by the system's emoji font when it has one (Debian's
    fonts-symbola, Noto Emoji), else, as a character no font has, as U+FFFD; a skin
    tone no font has is left out. Never the empty box matplotlib draws (and warns of)."""
    view = _card("primebench", lang=lang, model=EMOJI_NAME)
    assert _missing_glyphs(lambda: render_result_card(view)) == []
    figure, _ = result_card_figure(view)
    (name,) = [t for t in _texts(figure) if t.startswith("rocket")]
    assert name.endswith("x" + REPLACEMENT)
    if emoji_font() is not None:
        assert name.startswith("rocket 🚀 ok 👍")
    rows = (TableRow(1, EMOJI_NAME, "think", "+4", 1, True),)
    board = BoardImageView(
        registry.get("primebench"), "g", rows, NOW, "think", 30, 0, 1, key_version=1,
        lang=lang, theme="dark", bot_username="benchboard_bot",
    )  # fmt: skip
    assert _missing_glyphs(lambda: render_board_image(board)) == []


def test_the_emoji_font_is_the_best_one_the_system_has(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "Symbola_hint.ttf").write_bytes(b"")
    assert emoji_font([tmp_path / "nowhere", tmp_path]) == tmp_path / "a" / "Symbola_hint.ttf"
    (tmp_path / "a" / "b" / "NotoEmoji-Regular.ttf").write_bytes(b"")
    found = emoji_font([tmp_path])
    assert found == tmp_path / "a" / "b" / "NotoEmoji-Regular.ttf"
    assert emoji_font([tmp_path / "a" / "b" / "c"]) is None


@pytest.mark.parametrize(("lang", "runs", "attempts"), [("en", "Runs", "Attempts"),
                                                        ("fa", "اجرا", "تلاش‌ها")])  # fmt: skip
def test_a_board_of_attempts_names_its_count_attempts(lang: str, runs: str, attempts: str) -> None:
    """Natory's board counts each model's attempts, as its web page says: its image's
    last column is "Attempts", a board of runs' "Runs"."""
    rows = (TableRow(1, "m", "default", "+4", 3, False),)
    for name, label in (("natory", attempts), ("primebench", runs)):
        view = BoardImageView(registry.get(name), "g", rows, NOW, lang=lang)
        _, text = board_image_figure(view)
        assert text.columns[-1] == label, name

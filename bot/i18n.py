"""Every user-visible string, in English and Persian.

``t(lang, key, **values)`` looks a message up; values are substituted with
``str.format``. Values are inserted as given: callers escape user text for HTML
before passing it (see ``bot.format``).
"""

from __future__ import annotations

LANGUAGES = ("en", "fa")
DEFAULT_LANGUAGE = "en"


def pick_language(chosen: str | None, telegram_code: str | None) -> str:
    """The /lang choice wins; otherwise follow Telegram's language; English by default."""
    if chosen in LANGUAGES:
        return chosen
    if telegram_code and telegram_code.split("-")[0].lower() == "fa":
        return "fa"
    return DEFAULT_LANGUAGE


#: Labels of result breakdown fields (keys from ``Result.summary_fields``). A field
#: without an entry is shown under its own key (Natory's fields keep the game's names).
FIELD_LABELS: dict[str, dict[str, str]] = {
    "total_questions": {"en": "Total Questions", "fa": "تعداد کل سؤال‌ها"},
    "correct": {"en": "Correct", "fa": "درست"},
    "wrong": {"en": "Wrong", "fa": "نادرست"},
    "unanswered": {"en": "Unanswered", "fa": "بی‌پاسخ"},
    "positive_points": {"en": "Positive Points", "fa": "امتیاز مثبت"},
    "negative_points": {"en": "Negative Points", "fa": "امتیاز منفی"},
    "final_score": {"en": "Final Score", "fa": "امتیاز نهایی"},
    "accuracy": {"en": "Accuracy on answered", "fa": "دقت در پاسخ‌داده‌ها"},
    "coverage": {"en": "Coverage", "fa": "پوشش"},
    # ZeroBench
    "k_attempts": {"en": "Attempts per question (k)", "fa": "تعداد تلاش برای هر سؤال (k)"},
    "main_questions": {"en": "Main questions", "fa": "سؤال‌های اصلی"},
    "main_unattempted": {
        "en": "Main questions — unattempted (count as failed)",
        "fa": "سؤال‌های اصلی — بی‌پاسخ (نادرست حساب می‌شود)",
    },
    "main_fewer_than_k": {
        "en": "Main questions — fewer than k attempts",
        "fa": "سؤال‌های اصلی — کمتر از k تلاش",
    },
    "main_pass_at_1": {"en": "Main questions — pass@1", "fa": "سؤال‌های اصلی — pass@1"},
    "main_pass_at_k": {"en": "Main questions — pass@k", "fa": "سؤال‌های اصلی — pass@k"},
    "main_reliability": {
        "en": "Main questions — k/k reliability",
        "fa": "سؤال‌های اصلی — پایداری k/k",
    },
    "main_lenient_pass_at_1": {
        "en": "Main questions — lenient pass@1 (not official, never ranks)",
        "fa": "سؤال‌های اصلی — pass@1 آسان‌گیرانه (غیررسمی، در رتبه‌بندی نیست)",
    },
    "main_lenient_pass_at_k": {
        "en": "Main questions — lenient pass@k (not official, never ranks)",
        "fa": "سؤال‌های اصلی — pass@k آسان‌گیرانه (غیررسمی، در رتبه‌بندی نیست)",
    },
    "sub_questions": {"en": "Subquestions", "fa": "زیرسؤال‌ها"},
    "sub_unattempted": {
        "en": "Subquestions — unattempted (count as failed)",
        "fa": "زیرسؤال‌ها — بی‌پاسخ (نادرست حساب می‌شود)",
    },
    "sub_fewer_than_k": {
        "en": "Subquestions — fewer than k attempts",
        "fa": "زیرسؤال‌ها — کمتر از k تلاش",
    },
    "sub_pass_at_1": {"en": "Subquestions — pass@1", "fa": "زیرسؤال‌ها — pass@1"},
    "sub_pass_at_k": {"en": "Subquestions — pass@k", "fa": "زیرسؤال‌ها — pass@k"},
    "sub_reliability": {"en": "Subquestions — k/k reliability", "fa": "زیرسؤال‌ها — پایداری k/k"},
    "sub_lenient_pass_at_1": {
        "en": "Subquestions — lenient pass@1 (not official, never ranks)",
        "fa": "زیرسؤال‌ها — pass@1 آسان‌گیرانه (غیررسمی، در رتبه‌بندی نیست)",
    },
    "sub_lenient_pass_at_k": {
        "en": "Subquestions — lenient pass@k (not official, never ranks)",
        "fa": "زیرسؤال‌ها — pass@k آسان‌گیرانه (غیررسمی، در رتبه‌بندی نیست)",
    },
}


def field_label(lang: str, key: str) -> str:
    labels = FIELD_LABELS.get(key)
    if labels is None:
        return key
    return labels.get(lang) or labels[DEFAULT_LANGUAGE]


MESSAGES: dict[str, dict[str, str]] = {
    "invalid_lines": {
        "en": "Invalid lines ({count}):",
        "fa": "خط‌های نامعتبر ({count}):",
    },
    "invalid_line": {"en": "line {line}: {text}", "fa": "خط {line}: {text}"},
    "more_invalid": {
        "en": "… and {count} more",
        "fa": "… و {count} خط دیگر",
    },
    "no_invalid": {"en": "Every line was read.", "fa": "همه‌ی خط‌ها خوانده شد."},
    "duplicates": {
        "en": "Answered more than once (the last answer stands): {items}",
        "fa": "بیش از یک بار پاسخ داده شده (آخرین پاسخ معتبر است): {items}",
    },
    "unknown_questions": {
        "en": "Ignored (not in the key): {items}",
        "fa": "نادیده گرفته شد (در کلید نیست): {items}",
    },
    "hints": {
        "en": "Hints (they never change the score):",
        "fa": "راهنما (امتیاز را تغییر نمی‌دهد):",
    },
    "mode": {"en": "Mode", "fa": "حالت"},
    "model": {"en": "Model", "fa": "مدل"},
}


def t(lang: str, key: str, **values: object) -> str:
    entry = MESSAGES[key]
    template = entry.get(lang) or entry[DEFAULT_LANGUAGE]
    return template.format(**values) if values else template

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
    "invalid_lines": {"en": "Invalid lines ({count}):", "fa": "خط‌های نامعتبر ({count}):"},
    "invalid_line": {"en": "line {line}: {text}", "fa": "خط {line}: {text}"},
    "more_invalid": {
        "en": "… and {count} more (press Details)",
        "fa": "… و {count} خط دیگر (دکمه‌ی جزئیات)",
    },
    "more_invalid_plain": {"en": "… and {count} more", "fa": "… و {count} خط دیگر"},
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
    # Hints in other languages, by the scorer's hint code (English uses the scorer's text).
    "hint_lines_one": {"en": "line {line}", "fa": "خط {line}"},
    "hint_lines_many": {"en": "lines {lines}", "fa": "خط‌های {lines}"},
    "hint_persian_digits": {
        "fa": "ارقام فارسی/عربی در {lines}: طبق قوانین رسمی این خط‌ها نامعتبرند "
        "(پاسخ باید با ارقام ASCII یعنی 0-9 نوشته شود)",
    },
    "hint_fullwidth_colon": {
        "fa": "دونقطه‌ی تمام‌عرض (：) در {lines}: طبق قوانین رسمی این خط‌ها نامعتبرند "
        "(از دونقطه‌ی معمولی : استفاده کنید)",
    },
    "hint_q_prefix": {
        "fa": "حرف Q پیش از شماره‌ی سؤال در {lines}: طبق قوانین رسمی این خط‌ها نامعتبرند "
        "(بنویسید «1:3»، نه «1:3.»)",
    },
    "hint_trailing_period": {
        "fa": "نقطه در پایان پاسخ در {lines}: طبق قوانین رسمی این خط‌ها نامعتبرند "
        "(بنویسید «1:3»، نه «1:3.»)",
    },
    "mode": {"en": "Mode", "fa": "حالت"},
    "model": {"en": "Model", "fa": "مدل"},
    "not_set": {"en": "not set", "fa": "تعیین نشده"},
    "left_today": {
        "en": "{left} of {limit} publications left today.",
        "fa": "{left} از {limit} انتشار امروز باقی مانده است.",
    },
    "submission_id": {"en": "Submission #{id}", "fa": "ارسال #{id}"},
    "published_mark": {"en": "Published on the leaderboard.", "fa": "در جدول امتیازات منتشر شد."},
    # buttons
    "btn_publish": {"en": "📢 Publish to leaderboard", "fa": "📢 انتشار در جدول"},
    "btn_details": {"en": "🔎 Details", "fa": "🔎 جزئیات"},
    "btn_share": {"en": "↗️ Share", "fa": "↗️ اشتراک"},
    "btn_model": {"en": "✏️ Set model", "fa": "✏️ تعیین مدل"},
    "btn_global": {"en": "🌍 Global board", "fa": "🌍 جدول سراسری"},
    "btn_prev": {"en": "◀️ Prev", "fa": "◀️ قبلی"},
    "btn_next": {"en": "Next ▶️", "fa": "بعدی ▶️"},
    "btn_all_modes": {"en": "all modes", "fa": "همه‌ی حالت‌ها"},
    "btn_withdraw": {"en": "↩️ Withdraw #{id}", "fa": "↩️ پس‌گرفتن #{id}"},
    "window_all": {"en": "all time", "fa": "همه‌ی زمان‌ها"},
    "window_days": {"en": "{days} days", "fa": "{days} روز"},
    # answers
    "ask_model": {
        "en": "Reply with the model's name for submission #{id} (for example: gpt-6 luna).",
        "fa": "نام مدل را برای ارسال #{id} در پاسخ بنویسید (مثلاً gpt-6 luna).",
    },
    "model_set": {"en": "Model set: {model}", "fa": "مدل ثبت شد: {model}"},
    "mode_set": {"en": "Mode set: {mode}", "fa": "حالت ثبت شد: {mode}"},
    "published": {
        "en": "Published #{id} to the leaderboard. {left} of {limit} publications left today.",
        "fa": "ارسال #{id} در جدول منتشر شد. {left} از {limit} انتشار امروز باقی مانده است.",
    },
    "already_published": {"en": "#{id} is already published.", "fa": "#{id} قبلاً منتشر شده است."},
    "need_mode_model": {
        "en": "Set the mode and the model first: a score without them is not comparable.",
        "fa": "اول حالت و مدل را تعیین کنید؛ امتیاز بدون آن‌ها قابل مقایسه نیست.",
    },
    "limit_reached": {
        "en": "Daily limit reached: 0 of {limit} publications left today. It resets at {reset} UTC.",
        "fa": "به سقف روزانه رسیدید: ۰ از {limit} انتشار باقی مانده. ساعت {reset} (UTC) صفر می‌شود.",
    },
    "not_yours": {
        "en": "Only the person who sent this submission can do that.",
        "fa": "فقط فرستنده‌ی این ارسال می‌تواند این کار را بکند.",
    },
    "withdrawn": {"en": "Withdrew #{id} from the leaderboards.", "fa": "ارسال #{id} پس گرفته شد."},
    "not_found": {"en": "Submission #{id} was not found.", "fa": "ارسال #{id} پیدا نشد."},
    "gone": {"en": "That is no longer available.", "fa": "این مورد دیگر در دسترس نیست."},
    # errors
    "too_big": {
        "en": "This file is {size} MB; the limit is {limit} MB. Send a smaller file.",
        "fa": "این فایل {size} مگابایت است؛ سقف {limit} مگابایت است. فایل کوچک‌تری بفرستید.",
    },
    "bad_extension": {
        "en": "I read text files only: {extensions}, or no extension.",
        "fa": "فقط فایل متنی می‌خوانم: {extensions} یا بدون پسوند.",
    },
    "bad_encoding": {
        "en": "I could not read this: {reason}.",
        "fa": "نتوانستم این را بخوانم: {reason}.",
    },
    "empty": {
        "en": "There is nothing to score: send the model's output as text or as a file.",
        "fa": "چیزی برای امتیازدهی نیست: خروجی مدل را به صورت متن یا فایل بفرستید.",
    },
    "bad_tag": {"en": "{reason}", "fa": "{reason}"},
    "no_key": {
        "en": "The {benchmark} answer key is not loaded yet, so I cannot score. Please try later.",
        "fa": "کلید پاسخ {benchmark} هنوز بارگذاری نشده است؛ لطفاً بعداً امتحان کنید.",
    },
    "too_slow": {
        "en": "This input is too heavy to score in time; nothing was saved.",
        "fa": "امتیازدهی این ورودی بیش از حد طول کشید؛ چیزی ذخیره نشد.",
    },
    "bad_target": {
        "en": "target must be a positive whole number, not {target}.",
        "fa": "هدف باید عدد صحیح مثبت باشد، نه {target}.",
    },
    "bad_mode": {"en": "{reason}", "fa": "{reason}"},
    "bad_benchmark": {"en": "{reason}", "fa": "{reason}"},
    "internal_error": {
        "en": "Something went wrong on our side and it was logged. Your message is safe; "
        "please try again in a moment.",
        "fa": "خطایی در سمت ما رخ داد و ثبت شد. پیام شما محفوظ است؛ لطفاً کمی بعد دوباره امتحان کنید.",
    },
    "store_busy": {
        "en": "The database is busy right now; nothing was saved. Please send it again.",
        "fa": "پایگاه داده الان مشغول است؛ چیزی ذخیره نشد. لطفاً دوباره بفرستید.",
    },
    "edited": {
        "en": "Edited messages are not scored again. Send the corrected output as a new message.",
        "fa": "پیام ویرایش‌شده دوباره امتیازدهی نمی‌شود. خروجی اصلاح‌شده را در پیام تازه بفرستید.",
    },
    "natory_target_set": {
        "en": "Natory target for {day} set to {target}.",
        "fa": "هدف Natory برای {day} روی {target} تنظیم شد.",
    },
    "natory_set_usage": {
        "en": "Use /natory set N [YYYY-MM-DD] with a positive whole number N.",
        "fa": "از /natory set N [YYYY-MM-DD] با یک عدد صحیح مثبت N استفاده کنید.",
    },
    "score_usage": {
        "en": "Send /score with the model's output after it, or reply /score to a message or file.",
        "fa": "بعد از /score خروجی مدل را بنویسید، یا /score را در پاسخ به یک پیام یا فایل بفرستید.",
    },
    # commands
    "welcome": {
        "en": "Hi! I score LLM benchmark outputs.\n\nPaste a model's raw output or send it as a "
        "file, with a mode tag (#default, #think, #tools, #think_tools) and a line "
        "'model: NAME'. You get the score breakdown and every line I could not read, and "
        "you can publish it to the leaderboards.\n\n/help lists everything.",
        "fa": "سلام! من خروجی مدل‌های زبانی را در بنچمارک‌ها امتیاز می‌دهم.\n\nخروجی خام مدل را "
        "بچسبانید یا فایلش را بفرستید، با برچسب حالت (#default، #think، #tools، #think_tools) و "
        "یک خط «مدل: نام». جزئیات امتیاز و هر خطی که نخواندم را می‌گیرید و می‌توانید آن را در "
        "جدول امتیازات منتشر کنید.\n\n/help همه‌چیز را می‌گوید.",
    },
    "help": {
        "en": "<b>Scoring</b>\nPaste the output or send a file (.txt .md .csv .json .jsonl). "
        "In groups use /score (with the text, or as a reply).\nTags: #default #think #tools "
        "#think_tools, a line <code>model: NAME</code>, and #primebench #zerobench #natory "
        "to pick the benchmark (PrimeBench by default).\n\n<b>Commands</b>\n"
        "/score – score (groups: reply or text after it)\n/leaderboard [benchmark] [mode] – "
        "the board\n/me – your submissions and bests\n/prompt – the official PrimeBench "
        "prompt\n/questions – PrimeBench's Q.json\n/benchmarks – what I score\n/lang en|fa – "
        "language",
        "fa": "<b>امتیازدهی</b>\nخروجی را بچسبانید یا فایل بفرستید (.txt .md .csv .json .jsonl). "
        "در گروه‌ها از /score استفاده کنید (با متن یا در پاسخ).\nبرچسب‌ها: #default #think "
        "#tools #think_tools، خط <code>مدل: نام</code>، و #primebench #zerobench #natory برای "
        "انتخاب بنچمارک (پیش‌فرض PrimeBench).\n\n<b>دستورها</b>\n/score – امتیازدهی\n"
        "/leaderboard – جدول امتیازات\n/me – ارسال‌ها و بهترین‌های شما\n/prompt – پرامپت رسمی "
        "PrimeBench\n/questions – فایل Q.json\n/benchmarks – بنچمارک‌ها\n/lang en|fa – زبان",
    },
    "prompt_intro": {
        "en": "The official PrimeBench prompt (send it verbatim):",
        "fa": "پرامپت رسمی PrimeBench (بدون تغییر بفرستید):",
    },
    "no_questions": {
        "en": "PrimeBench's questions are not loaded yet.",
        "fa": "سؤال‌های PrimeBench هنوز بارگذاری نشده‌اند.",
    },
    "questions_caption": {
        "en": "PrimeBench questions (Q.json) by JibayAI (jibay.ir), CC BY-ND 4.0.",
        "fa": "سؤال‌های PrimeBench (Q.json) از JibayAI (jibay.ir)، CC BY-ND 4.0.",
    },
    "benchmarks": {
        "en": "<b>Benchmarks</b>\n{lines}",
        "fa": "<b>بنچمارک‌ها</b>\n{lines}",
    },
    "key_loaded": {
        "en": "key loaded (version {version})",
        "fa": "کلید بارگذاری شده (نسخه {version})",
    },
    "key_missing": {"en": "key not loaded", "fa": "کلید بارگذاری نشده"},
    "lang_set": {"en": "Language set to English.", "fa": "زبان روی فارسی تنظیم شد."},
    "lang_usage": {
        "en": "Use /lang en or /lang fa.",
        "fa": "از /lang en یا /lang fa استفاده کنید.",
    },
    "board_title": {
        "en": "<b>{benchmark} leaderboard</b> — {scope}",
        "fa": "<b>جدول امتیازات {benchmark}</b> — {scope}",
    },
    "scope_global": {"en": "global", "fa": "سراسری"},
    "scope_chat": {"en": "this group", "fa": "این گروه"},
    "scope_user": {"en": "your results", "fa": "نتایج شما"},
    "board_filters": {
        "en": "mode: {mode} · window: {window}",
        "fa": "حالت: {mode} · بازه: {window}",
    },
    "board_bad_args": {
        "en": "I do not know “{word}”. Use /leaderboard [benchmark] [mode] — benchmarks: "
        "{benchmarks}; modes: {modes}.",
        "fa": "«{word}» را نمی‌شناسم. از /leaderboard [بنچمارک] [حالت] استفاده کنید — "
        "بنچمارک‌ها: {benchmarks}؛ حالت‌ها: {modes}.",
    },
    "board_empty": {
        "en": "No published results yet. Score an output and press Publish.",
        "fa": "هنوز نتیجه‌ای منتشر نشده است. یک خروجی را امتیاز دهید و «انتشار» را بزنید.",
    },
    "board_row": {
        "en": "{rank}. {model} · {mode} · {best} ({runs} runs, mean {mean}){verified}",
        "fa": "{rank}. {model} · {mode} · {best} ({runs} اجرا، میانگین {mean}){verified}",
    },
    "board_references": {
        "en": "Reported by the benchmark's authors (not scored here):",
        "fa": "گزارش‌شده توسط سازندگان بنچمارک (این‌جا امتیازدهی نشده):",
    },
    "board_reference_row": {
        "en": "• {model} · {mode} · {best} (reported)",
        "fa": "• {model} · {mode} · {best} (گزارش‌شده)",
    },
    "board_page": {"en": "page {page} of {pages}", "fa": "صفحه‌ی {page} از {pages}"},
    "board_key": {
        "en": "Scored against key version {version}.",
        "fa": "امتیازدهی با نسخه‌ی {version} کلید.",
    },
    "me_title": {"en": "<b>Your submissions</b>", "fa": "<b>ارسال‌های شما</b>"},
    "me_empty": {
        "en": "You have no submissions yet: paste a model's output to score it.",
        "fa": "هنوز ارسالی ندارید: خروجی یک مدل را بچسبانید.",
    },
    "me_row": {
        "en": "#{id} · {benchmark} · {model} · {mode} · {score} · {state} · {date}",
        "fa": "#{id} · {benchmark} · {model} · {mode} · {score} · {state} · {date}",
    },
    "me_bests": {"en": "<b>Your bests</b>", "fa": "<b>بهترین‌های شما</b>"},
    "state_private": {"en": "private", "fa": "خصوصی"},
    "state_published": {"en": "published", "fa": "منتشرشده"},
    "state_hidden": {"en": "hidden by an admin", "fa": "پنهان‌شده توسط مدیر"},
    "state_withdrawn": {"en": "withdrawn", "fa": "پس‌گرفته"},
    "details_title": {"en": "All invalid lines of #{id}:", "fa": "همه‌ی خط‌های نامعتبر #{id}:"},
    "details_file": {
        "en": "All {count} invalid lines of #{id} are in the file.",
        "fa": "همه‌ی {count} خط نامعتبر #{id} در فایل است.",
    },
    # --- admins (issue 7): moderation, keys, audit, export, backup ---------------------
    "not_admin": {
        "en": "This command is for admins only.",
        "fa": "این دستور فقط برای مدیران است.",
    },
    "bot_admin_only": {
        "en": "Only the bot's admins can do that; group admins moderate their group's board.",
        "fa": "فقط مدیران ربات می‌توانند این کار را بکنند؛ مدیران گروه جدول گروه خود را مدیریت می‌کنند.",
    },
    "not_this_group": {
        "en": "#{id} was not published from this group: its admins cannot moderate it.",
        "fa": "#{id} از این گروه منتشر نشده است؛ مدیران این گروه نمی‌توانند آن را مدیریت کنند.",
    },
    "usage_hide": {"en": "Use /hide ID [reason].", "fa": "از /hide شناسه [دلیل] استفاده کنید."},
    "usage_unhide": {
        "en": "Use /unhide ID [reason].",
        "fa": "از /unhide شناسه [دلیل] استفاده کنید.",
    },
    "usage_verify": {
        "en": "Use /verify ID [note].",
        "fa": "از /verify شناسه [توضیح] استفاده کنید.",
    },
    "usage_ban": {
        "en": "Use /ban USER_ID [reason].",
        "fa": "از /ban شناسه‌ی_کاربر [دلیل] استفاده کنید.",
    },
    "usage_unban": {
        "en": "Use /unban USER_ID [reason].",
        "fa": "از /unban شناسه‌ی_کاربر [دلیل] استفاده کنید.",
    },
    "usage_setkey": {
        "en": "Send the key file with the caption /setkey BENCHMARK (one of: {benchmarks}), "
        "or reply /setkey BENCHMARK to the file.",
        "fa": "فایل کلید را با کپشن /setkey نام_بنچمارک بفرستید (یکی از: {benchmarks})، "
        "یا /setkey نام_بنچمارک را در پاسخ به فایل بفرستید.",
    },
    "usage_export": {
        "en": "Use /export [benchmark] — benchmarks: {benchmarks}.",
        "fa": "از /export [بنچمارک] استفاده کنید — بنچمارک‌ها: {benchmarks}.",
    },
    "cannot_hide": {
        "en": "#{id} is {state}: only published results can be hidden.",
        "fa": "#{id} در وضعیت {state} است؛ فقط نتیجه‌های منتشرشده پنهان می‌شوند.",
    },
    "cannot_unhide": {
        "en": "#{id} is {state}: only hidden results can be unhidden.",
        "fa": "#{id} در وضعیت {state} است؛ فقط نتیجه‌های پنهان‌شده آشکار می‌شوند.",
    },
    "cannot_verify": {"en": "#{id} cannot be verified.", "fa": "#{id} را نمی‌توان تأیید کرد."},
    "cannot_ban_admin": {
        "en": "That user is one of the bot's admins.",
        "fa": "این کاربر از مدیران ربات است.",
    },
    "done_hide": {
        "en": "Hid #{id}: it is on no board now. Logged.",
        "fa": "#{id} پنهان شد و در هیچ جدولی نیست. ثبت شد.",
    },
    "done_unhide": {
        "en": "#{id} is back on the boards. Logged.",
        "fa": "#{id} به جدول‌ها برگشت. ثبت شد.",
    },
    "done_verify": {
        "en": "#{id} is marked as reproduced by an admin (✅ on every board). Logged.",
        "fa": "#{id} به عنوان بازتولیدشده توسط مدیر علامت خورد (✅ در همه‌ی جدول‌ها). ثبت شد.",
    },
    "done_ban": {
        "en": "Banned user {user}: their results are on no board, and they cannot publish. Logged.",
        "fa": "کاربر {user} مسدود شد: نتیجه‌هایش در هیچ جدولی نیست و نمی‌تواند منتشر کند. ثبت شد.",
    },
    "done_unban": {
        "en": "Lifted the ban on user {user}: their published results are back. Logged.",
        "fa": "مسدودیت کاربر {user} برداشته شد؛ نتیجه‌های منتشرشده‌اش برگشت. ثبت شد.",
    },
    "not_banned": {"en": "User {user} is not banned.", "fa": "کاربر {user} مسدود نیست."},
    "banned_publish": {
        "en": "You cannot publish results: an admin took your results off the leaderboards. "
        "You can still score privately.",
        "fa": "نمی‌توانید نتیجه منتشر کنید: مدیر نتیجه‌های شما را از جدول‌ها برداشته است. "
        "امتیازدهی خصوصی همچنان ممکن است.",
    },
    "same_run": {
        "en": "Same answers as #{id} for this model and mode: counted as one run.",
        "fa": "همان پاسخ‌های #{id} برای همین مدل و حالت: یک اجرا حساب می‌شود.",
    },
    "setkey_need_file": {
        "en": "Attach the key file: send it with the caption /setkey {benchmark}, or reply "
        "to it with /setkey {benchmark}.",
        "fa": "فایل کلید را پیوست کنید: با کپشن /setkey {benchmark} بفرستید یا در پاسخ به "
        "آن /setkey {benchmark} بنویسید.",
    },
    "bad_key": {
        "en": "Key refused, nothing changed: {reason}",
        "fa": "کلید پذیرفته نشد و چیزی تغییر نکرد: {reason}",
    },
    "key_stored": {
        "en": "{benchmark} key version {version} is in use now (SHA-256 {sha}).",
        "fa": "نسخه‌ی {version} کلید {benchmark} از همین حالا استفاده می‌شود (SHA-256 {sha}).",
    },
    "key_same": {
        "en": "This {benchmark} key is already stored as version {version} (SHA-256 {sha}); "
        "it is the current key again.",
        "fa": "این کلید {benchmark} قبلاً با نسخه‌ی {version} ذخیره شده است (SHA-256 {sha})؛ "
        "دوباره کلید جاری است.",
    },
    "key_rescoring": {
        "en": "Re-scoring {count} stored submissions in the background; I will report here.",
        "fa": "{count} ارسال ذخیره‌شده در پس‌زمینه دوباره امتیازدهی می‌شود؛ نتیجه را همین‌جا می‌گویم.",
    },
    "key_nothing_to_rescore": {
        "en": "No stored submission needs re-scoring.",
        "fa": "هیچ ارسال ذخیره‌شده‌ای نیاز به امتیازدهی دوباره ندارد.",
    },
    "rescore_done": {
        "en": "<b>Re-score done</b> — {benchmark}, key version {version}: {changed} of {total} "
        "submissions changed score ({seconds} s).",
        "fa": "<b>امتیازدهی دوباره تمام شد</b> — {benchmark}، نسخه‌ی {version} کلید: امتیاز "
        "{changed} از {total} ارسال تغییر کرد ({seconds} ثانیه).",
    },
    "rescore_failed": {
        "en": "The re-score of {benchmark} stopped: {reason}. Send the key again to resume.",
        "fa": "امتیازدهی دوباره‌ی {benchmark} متوقف شد: {reason}. برای ادامه کلید را دوباره "
        "بفرستید.",
    },
    "rescore_before": {"en": "Top before:", "fa": "برترین‌ها پیش از آن:"},
    "rescore_after": {"en": "Top after:", "fa": "برترین‌ها پس از آن:"},
    "rescore_empty": {"en": "  (empty)", "fa": "  (خالی)"},
    "keyinfo_title": {"en": "<b>Answer keys</b>", "fa": "<b>کلیدهای پاسخ</b>"},
    "keyinfo_row": {
        "en": "<b>{benchmark}</b>: version {version} of {versions}\nSHA-256 <code>{sha}</code>\n"
        "stored {stored} · loaded {loaded}\nfrom {source}",
        "fa": "<b>{benchmark}</b>: نسخه‌ی {version} از {versions}\nSHA-256 <code>{sha}</code>\n"
        "ذخیره {stored} · بارگذاری {loaded}\nاز {source}",
    },
    "keyinfo_missing": {
        "en": "<b>{benchmark}</b>: no key loaded",
        "fa": "<b>{benchmark}</b>: کلیدی بارگذاری نشده",
    },
    "audit_title": {
        "en": "<b>Audit log</b> (latest first)",
        "fa": "<b>گزارش مدیریت</b> (تازه‌ترین اول)",
    },
    "audit_empty": {"en": "The audit log is empty.", "fa": "گزارش مدیریت خالی است."},
    "audit_row": {
        "en": "{at} · {actor} · {action} {target}{reason}",
        "fa": "{at} · {actor} · {action} {target}{reason}",
    },
    "export_caption": {
        "en": "{benchmark} leaderboard — {scope}, as CSV.",
        "fa": "جدول امتیازات {benchmark} — {scope}، به صورت CSV.",
    },
    "backup_caption": {
        "en": "Database snapshot, {size} MB (consistent; restore with benchboard db restore).",
        "fa": "نسخه‌ی پشتیبان پایگاه داده، {size} مگابایت (سازگار؛ بازگردانی با benchboard db "
        "restore).",
    },
    "backup_too_big": {
        "en": "The snapshot is {size} MB; Telegram takes files up to {limit} MB from bots. "
        "Use benchboard db backup PATH on the server.",
        "fa": "نسخه‌ی پشتیبان {size} مگابایت است؛ تلگرام از ربات‌ها تا {limit} مگابایت "
        "می‌پذیرد. روی سرور از benchboard db backup PATH استفاده کنید.",
    },
    "backup_private_only": {
        "en": "Backups hold every user's data: ask in a private chat with me.",
        "fa": "نسخه‌ی پشتیبان داده‌های همه‌ی کاربران را دارد؛ در گفت‌وگوی خصوصی با من بخواهید.",
    },
    "board_rescoring": {
        "en": "Re-scoring against key version {version} is in progress: scores may still change.",
        "fa": "امتیازدهی دوباره با نسخه‌ی {version} کلید در جریان است؛ امتیازها ممکن است تغییر "
        "کنند.",
    },
    "board_reported_beside": {
        "en": " · reported {best}",
        "fa": " · گزارش‌شده {best}",
    },
}


#: Natory (/natory, its boards, cost and latency) and /compare — bot/bench_features.py.
MESSAGES.update(
    {
        "bad_cost": {
            "en": "cost must be a non-negative number of US dollars, such as <code>cost: 0.012</code> — not “{value}”. Nothing was saved.",
            "fa": "هزینه باید عددی نامنفی به دلار آمریکا باشد، مثل <code>cost: 0.012</code> — نه «{value}». چیزی ذخیره نشد.",
        },
        "bad_latency": {
            "en": "latency must be a non-negative time, such as <code>latency: 3.2s</code> or <code>latency: 3200ms</code> — not “{value}”. Nothing was saved.",
            "fa": "تأخیر باید زمانی نامنفی باشد، مثل <code>latency: 3.2s</code> یا <code>latency: 3200ms</code> — نه «{value}». چیزی ذخیره نشد.",
        },
        "natory_title": {
            "en": "<b>Natory</b> — the target of {day}",
            "fa": "<b>Natory</b> — هدف روز {day}",
        },
        "natory_target": {"en": "Target: <b>{target}</b>", "fa": "هدف: <b>{target}</b>"},
        "natory_allowed": {
            "en": "Allowed digits: {allowed} (exact use: {digits})",
            "fa": "رقم‌های مجاز: {allowed} (استفاده‌ی دقیق: {digits})",
        },
        "natory_how": {
            "en": "Build the target from its own digits with + − × ÷ ^ √ ! mod p_n() sopfr(). Reply to this message with the expression (one attempt per message; add <code>model: NAME</code>, #think, <code>cost: 0.012</code>, <code>latency: 3.2s</code> on their own lines), or send it anywhere with #natory and <code>target: N</code>.\nBoards: /leaderboard natory · /natory models · /compare natory",
            "fa": "هدف را فقط با رقم‌های خودش و + − × ÷ ^ √ ! mod p_n() sopfr() بسازید. عبارت را در پاسخ به همین پیام بفرستید (هر پیام یک تلاش؛ در خط‌های جدا <code>model: NAME</code>، #think، <code>cost: 0.012</code> و <code>latency: 3.2s</code>)، یا هر جا با #natory و <code>target: N</code>.\nجدول‌ها: /leaderboard natory · /natory models · /compare natory",
        },
        "natory_board_title": {
            "en": "<b>Natory leaderboard</b> — target {target}",
            "fa": "<b>جدول امتیازات Natory</b> — هدف {target}",
        },
        "natory_models_title": {
            "en": "<b>Natory models</b> — all targets, by mean score",
            "fa": "<b>مدل‌ها در Natory</b> — همه‌ی هدف‌ها، بر اساس میانگین امتیاز",
        },
        "natory_board_row": {
            "en": "{rank}. {model} · {mode} · best {best} · mean {mean} · {attempts} attempts · {cost} · {latency}",
            "fa": "{rank}. {model} · {mode} · بهترین {best} · میانگین {mean} · {attempts} تلاش · {cost} · {latency}",
        },
        "natory_models_row": {
            "en": "{rank}. {model} · {mode} · mean {mean} · best {best} · {attempts} attempts on {targets} targets · {cost} · {latency}",
            "fa": "{rank}. {model} · {mode} · میانگین {mean} · بهترین {best} · {attempts} تلاش روی {targets} هدف · {cost} · {latency}",
        },
        "natory_recent_targets": {
            "en": "Targets (attempts): {targets}",
            "fa": "هدف‌ها (تلاش‌ها): {targets}",
        },
        "natory_board_footer": {
            "en": "Published attempts; cost and latency are means per attempt. /natory · /leaderboard natory N · /natory models · /compare natory",
            "fa": "تلاش‌های منتشرشده؛ هزینه و تأخیر میانگین هر تلاش است. /natory · /leaderboard natory N · /natory models · /compare natory",
        },
        "natory_bad_target": {
            "en": "“{word}” is not a target: use /leaderboard natory or /leaderboard natory 6256.",
            "fa": "«{word}» هدف نیست: از /leaderboard natory یا /leaderboard natory 6256 استفاده کنید.",
        },
        "natory_usage": {
            "en": "Use /natory (today's target), /natory models (the model board) or /natory N (the board of target N).",
            "fa": "از /natory (هدف امروز)، /natory models (جدول مدل‌ها) یا /natory N (جدول هدف N) استفاده کنید.",
        },
        "compare_caption": {
            "en": "Natory: mean score against mean cost and latency per attempt, {models} models; the Pareto front is marked (higher score for less is better).",
            "fa": "Natory: میانگین امتیاز در برابر میانگین هزینه و تأخیر هر تلاش، {models} مدل؛ مرز پارتو مشخص شده است (امتیاز بیشتر با هزینه‌ی کمتر بهتر است).",
        },
        "compare_empty": {
            "en": "No published Natory attempts yet, so there is nothing to compare. Answer /natory and press Publish.",
            "fa": "هنوز تلاش منتشرشده‌ای در Natory نیست و چیزی برای مقایسه نیست. به /natory پاسخ دهید و «انتشار» را بزنید.",
        },
        "compare_usage": {
            "en": "Use /compare natory: a chart of score against cost and latency per model.",
            "fa": "از /compare natory استفاده کنید: نمودار امتیاز در برابر هزینه و تأخیر هر مدل.",
        },
    }
)


def translated(lang: str, key: str) -> bool:
    """True when ``key`` has its own text in ``lang`` (not the English fallback)."""
    return lang in MESSAGES.get(key, {})


def t(lang: str, key: str, **values: object) -> str:
    entry = MESSAGES[key]
    template = entry.get(lang) or entry[DEFAULT_LANGUAGE]
    return template.format(**values) if values else template

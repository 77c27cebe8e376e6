"""A bare bot that only echoes, configured like Benchboard (for bench_bot.py): the same
transport, rate limiter, concurrent updates and defaults (its replies HTML without a link
preview, as Benchboard's are), no scoring and no database."""

from __future__ import annotations

import html
import os

from telegram import Update
from telegram.ext import AIORateLimiter, ApplicationBuilder, ContextTypes, MessageHandler, filters

from bot.telegram.http import DEFAULTS, AiohttpRequest


async def echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    if update.effective_message is not None and update.effective_message.text:
        await update.effective_message.reply_text(html.escape(update.effective_message.text[:4000]))


def main() -> None:
    app = (
        ApplicationBuilder()
        .token(os.environ["BENCHBOARD_TOKEN"])
        .base_url(os.environ["BENCHBOARD_API_BASE_URL"])
        .base_file_url(os.environ["BENCHBOARD_API_FILE_URL"])
        .request(AiohttpRequest(connection_pool_size=256))
        .get_updates_request(AiohttpRequest(connection_pool_size=1))
        .rate_limiter(AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=3))
        .concurrent_updates(True)
        .defaults(DEFAULTS)
        .build()
    )
    app.add_handler(MessageHandler(filters.TEXT, echo))
    app.run_polling(allowed_updates=Update.ALL_TYPES)


if __name__ == "__main__":
    main()

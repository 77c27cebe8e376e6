"""Operations: structured logs, one line per update (and its completion in the durable
intake), the nightly backup job, the collector's settings for a long-running process."""

from __future__ import annotations

import gc
import json
import logging
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from datetime import time as dtime
from typing import Any

from telegram import Update
from telegram.ext import Application, JobQueue

from ..core import backups, boards
from ..core.bounded import Lru
from ..core.services import Services, until_answered
from ..settings import Settings, redact_passwords
from .context import SERVICES, BotContext
from .intake import INTAKE, Intake

log = logging.getLogger("benchboard.updates")
_log = logging.getLogger("benchboard")
_FAILED = "failed_updates"
_TRANSIENT = "transient_updates"
_WAITING = "waiting_updates"
#: Update ids remembered as failed (or to be tried again). An id is forgotten when its
#: update's handling ends; one whose error was reported after that (a handler that does
#: not block) would stay: the oldest go first beyond this many.
MARKED_MAX = 10_000


#: Allocations (net of frees) of tracked objects between collections of the youngest
#: generation once the bot runs (Python's default is 700). Handling an update makes and
#: drops a few hundred such objects and leaves no cycles, but with tens of updates in
#: flight the default collected every few updates, each time walking every young object
#: and promoting the ones still in use; the older generations then followed.
GC_YOUNG_THRESHOLD = 20_000


def settle_heap() -> None:
    """Called once the bot is up (the collector was disabled for the start, see
    ``cli.cmd_run``): what the start made lives as long as the process, so it is frozen
    out of every later collection (``gc.freeze``), and young objects are collected less
    often (:data:`GC_YOUNG_THRESHOLD`). Measured by ``tests/benchmarks/bench_bot.py``."""
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, older, oldest)
    gc.enable()


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, and any ``extra`` fields."""

    _STANDARD = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message"}
    #: one encoder for every line (json.dumps with options builds one per call)
    _ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        data.update({k: v for k, v in record.__dict__.items() if k not in self._STANDARD})
        if record.exc_text:  # formatted (and redacted) by RedactToken
            data["exc"] = record.exc_text
        elif record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return self._ENCODER.encode(data)


class RedactToken(logging.Filter):
    """Defence in depth: the token never reaches a log line, whatever logged it; nor do
    the ``others`` (the webhook secret, the database's password: ``***``), nor a
    password in the form of a URL or connection string (psycopg's errors may echo one),
    in the message or in a traceback."""

    def __init__(self, token: str, others: Sequence[str] = ()) -> None:
        super().__init__()
        self.token = token
        self.others = [o for o in others if o and o != token]

    def _clean(self, text: str) -> str:
        if self.token:
            text = text.replace(self.token, "<token>")
        for other in self.others:
            text = text.replace(other, "***")
        return redact_passwords(text)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = self._clean(message)
        if cleaned != message:
            record.msg = cleaned
            record.args = None
        if record.exc_info and record.exc_text is None:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self._clean(record.exc_text)
        return True


def configure_logging(settings: Settings) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    token = settings.token.get_secret_value() if settings.token else ""
    handler.addFilter(RedactToken(token, settings.secret_values()))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(settings.log_level)
    # A line shows neither thread nor process: a record need not look them up (there is
    # one per update).
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    # httpx logs every request URL at INFO, and Bot API URLs contain the token.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)


def describe(update: Update) -> tuple[str | None, str]:
    """(chat type, what was asked) of an update, for the log line."""
    chat = update.effective_chat
    chat_type = chat.type if chat is not None else None
    if update.callback_query is not None:
        data = update.callback_query.data or ""
        return chat_type, "button:" + data.split(":", 1)[0]
    message = update.effective_message
    if message is None:
        return chat_type, "other"
    text = message.text or message.caption or ""
    if text.startswith("/"):
        return chat_type, text.split(maxsplit=1)[0].split("@", 1)[0][:32]
    if message.document is not None:
        return chat_type, "document"
    return chat_type, "text" if message.text else "other"


def _marked(bot_data: dict[Any, Any], name: str) -> Lru[int, None]:
    """The update ids marked ``name`` (a bounded set: ids as keys)."""
    marked = bot_data.get(name)
    if not isinstance(marked, Lru):
        marked = bot_data[name] = Lru[int, None](MARKED_MAX)
    return marked


def _take(bot_data: dict[Any, Any], name: str, update_id: int) -> bool:
    """Whether the update was marked ``name``; it is no longer."""
    marked = _marked(bot_data, name)
    if update_id not in marked:
        return False
    del marked[update_id]
    return True


def mark_failed(context: BotContext, update: object) -> None:
    if isinstance(update, Update):
        _marked(context.bot_data, _FAILED)[update.update_id] = None


def mark_transient(context: BotContext, update: object) -> None:
    """The update's handling failed for a transient fault: handle it again later."""
    if isinstance(update, Update):
        _marked(context.bot_data, _TRANSIENT)[update.update_id] = None


def mark_waiting(context: BotContext, update: object) -> None:
    """The update's handling failed because the database did not answer: handle it
    again once it does."""
    if isinstance(update, Update):
        _marked(context.bot_data, _WAITING)[update.update_id] = None


class LoggingApplication(Application):  # type: ignore[type-arg]
    """Logs one structured line per update: id, chat type, command, duration, outcome;
    then marks the update done in the durable intake (or keeps it for another try when
    a reply failed for a transient fault). An update whose handling was cancelled (the
    process stopping) stays unfinished and is handled after the restart."""

    async def process_update(self, update: object) -> None:
        intake = self.bot_data.get(INTAKE)
        if not isinstance(update, Update) or not isinstance(intake, Intake):
            await self._logged(update)
            return
        # a user waiting on a database that fails gets a note (a press its answer)
        intake.db_wait.started(update)
        try:
            await self._logged(update)
        finally:
            intake.db_wait.finished(update.update_id)
        later = _take(self.bot_data, _TRANSIENT, update.update_id)
        waiting = _take(self.bot_data, _WAITING, update.update_id)
        await intake.handled(update, transient=later, database=waiting)

    async def _logged(self, update: object) -> None:
        start = time.perf_counter()
        try:
            await super().process_update(update)
        finally:
            if isinstance(update, Update):
                failed = _take(self.bot_data, _FAILED, update.update_id)
                later = update.update_id in _marked(self.bot_data, _TRANSIENT)
                waiting = update.update_id in _marked(self.bot_data, _WAITING)
                outcome = (
                    "wait-db" if waiting else "retry" if later else "error" if failed else "ok"
                )
                if log.isEnabledFor(logging.INFO):
                    chat_type, command = describe(update)
                    extra = {
                        "update_id": update.update_id,
                        "chat_type": chat_type,
                        "command": command,
                        "duration_ms": round((time.perf_counter() - start) * 1000, 2),
                        "outcome": outcome,
                    }
                    # made and handled directly: log.info would first walk up the stack
                    # for a caller that no line shows (one record per update)
                    record = log.makeRecord(
                        log.name, logging.INFO, __file__, 0, "update handled", (), None, extra=extra
                    )
                    log.handle(record)


# --- the day's turn ---------------------------------------------------------------------


def schedule_day_turn(job_queue: JobQueue[Any]) -> None:
    """Just after midnight UTC, the boards' summaries of the last days move to the new
    day (every instance runs it; the store does the work once)."""
    job_queue.run_daily(turn_day, time=dtime(second=5, tzinfo=UTC), name="day-turn")


async def turn_day(context: BotContext) -> None:
    services = context.bot_data.get(SERVICES)
    if isinstance(services, Services):
        await boards.turn_day(services)


# --- backups -------------------------------------------------------------------------


#: A claimed nightly run stays claimed this long (every instance's timer fires within it).
_NIGHTLY_CLAIM_MS = 20 * 3600 * 1000
BACKUP_JOB = "nightly-backup"


def schedule_backups(job_queue: JobQueue[Any], settings: Settings) -> None:
    """The backup job: daily at ``backup_hour`` UTC, or every ``backup_interval`` seconds
    at the multiples of it since the epoch (the same moments for every instance)."""
    interval = settings.backup_interval
    if interval is None:
        job_queue.run_daily(
            nightly_backup, time=dtime(hour=settings.backup_hour, tzinfo=UTC), name=BACKUP_JOB
        )
        return
    first = interval - time.time() % interval
    job_queue.run_repeating(nightly_backup, interval=interval, first=first, name=BACKUP_JOB)


def backup_slot(settings: Settings, now: datetime) -> tuple[str, int]:
    """The backup run due at ``now`` (the day, or the interval's number: the nearest
    multiple, as a timer fires a little late) and how long (ms) its claim is kept."""
    interval = settings.backup_interval
    if interval is None:
        return now.date().isoformat(), _NIGHTLY_CLAIM_MS
    return str(round(now.timestamp() / interval)), 2 * interval * 1000


async def nightly_backup(context: BotContext) -> None:
    services = context.bot_data.get(SERVICES)
    if isinstance(services, Services):
        slot, ttl_ms = backup_slot(services.settings, datetime.now(UTC))
        settings = services.settings
        # a database that does not answer is waited for, each step again (the claim
        # once won is kept: tried again it would say another instance has it)
        claimed = await until_answered(
            lambda: services.store.claim_run(BACKUP_JOB, slot, ttl_ms=ttl_ms),
            settings,
            _log,
            "the backup",
        )
        if not claimed:
            # another instance of the bot has this run's backup
            _log.info("backup left to another instance", extra={"slot": slot})
            return
        path = await until_answered(
            lambda: backups.backup_now(services), settings, _log, "the backup"
        )
        _log.info("backup written", extra={"path": str(path), "slot": slot})

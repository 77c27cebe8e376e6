"""Heavy work off the event loop: a large upload is read, decoded, scored and packed in
a worker process (a process, so pure-Python scoring never holds the event loop's GIL).

The bot saves a large upload to a file and gives the worker its path; the text is built
only in the worker, which sends back what the text is (its tags and benchmark), then
the result and the packed text (``storage.PackedText``), never the text itself.
:class:`Worker` runs one job at a time; a job that overruns its time is stopped with its
process, and the next job gets a fresh one. The job functions import scoring, the tag
reader and storage's values only, so the worker starts quickly.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import pickle
import signal
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, TypeVar, cast

from scoring import DecodeError, Result, decode, registry
from scoring.text import normalise_newlines
from storage import PackedText, pack_raw

from .classify import Reading, read
from .tags import Spans, blank

#: Inputs of at least this many bytes (or characters) are worked on in the worker.
OFFLOAD_BYTES = 64 * 1024

T = TypeVar("T")


class Refused(Exception):
    """Input a job could not work on: ``kind`` names the user error (``bad_encoding``),
    ``reason`` says why. Plain arguments, so it crosses processes."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(kind, reason)
        self.kind = kind
        self.reason = reason


class WorkerLost(RuntimeError):
    """The worker process died during a job (killed for its memory, say)."""


# --- the jobs (run in the worker) ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FileReading:
    """What an upload is (:func:`bot.core.classify.read`), and whether anything but tag
    and blank lines is in it."""

    reading: Reading
    blank: bool


@dataclass(frozen=True, slots=True)
class FileScore:
    result: Result
    raw: PackedText


def _file_text(path: str) -> str:
    """The text of the upload saved at ``path``, line breaks made ``\\n``."""
    data = Path(path).read_bytes()
    try:
        text = decode(data)
    except DecodeError as exc:
        raise Refused("bad_encoding", str(exc)) from None
    del data
    return normalise_newlines(text)


def read_file(path: str, command_args: str, benchmark_hint: str | None) -> FileReading:
    """What the upload saved at ``path`` is (its caption's ``command_args`` too)."""
    text = _file_text(path)
    reading = read(text, command_args, benchmark_hint)
    if reading.error is not None:
        return FileReading(reading, blank=False)
    body = blank(text, reading.spans)
    del text
    return FileReading(reading, blank=not body or body.isspace())


def score_file(
    path: str, spans: Spans, name: str, key: Any, options: Mapping[str, Any]
) -> FileScore:
    """Score the upload saved at ``path`` (its tag lines at ``spans`` blanked) with
    benchmark ``name``, and pack the text scored as the store keeps it."""
    body = blank(_file_text(path), spans)
    result = registry.get(name).score(body, key, options=options)
    return FileScore(result, pack_raw(body))


def read_job(text: str, command_args: str, benchmark_hint: str | None) -> Reading:
    """What a large text is (its tag lines and benchmark), without sending it back."""
    return read(text, command_args, benchmark_hint)


def score_text(name: str, text: str, key: Any, options: Mapping[str, Any]) -> FileScore:
    """Score a long text and pack it (neither on the event loop)."""
    return FileScore(registry.get(name).score(text, key, options=options), pack_raw(text))


# --- the worker process ------------------------------------------------------------------


def _sendable(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling (the caller raises it), else a plain stand-in."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


def _serve(conn: Connection) -> None:
    """The worker process: run each ``(fn, args)`` received, send back ``(True, value)``
    or ``(False, exception)``; stop when the bot's end of the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the bot decides when its worker stops
    while True:
        try:
            fn, args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            reply: tuple[bool, Any] = (True, fn(*args))
        except Exception as exc:
            reply = (False, _sendable(exc))
        del fn, args  # the job's inputs and outputs go before the next job
        try:
            conn.send(reply)
        except (EOFError, OSError):
            return
        except Exception as exc:  # a value that does not pickle
            conn.send((False, RuntimeError(f"the job's value could not be sent: {exc}")))
        del reply


def _exchange(conn: Connection, message: tuple[Callable[..., Any], tuple[Any, ...]]) -> Any:
    conn.send(message)
    return conn.recv()


class Worker:
    """One worker process (spawned when first needed), running one job at a time in the
    order they come. A job that takes longer than its time is stopped with its process
    (``Process.kill``), so later jobs never wait behind it: they get a fresh process."""

    def __init__(self) -> None:
        self._context = multiprocessing.get_context("spawn")
        self._process: BaseProcess | None = None
        self._pipe: Connection | None = None
        self._lock = asyncio.Lock()
        # Sending and waiting for a reply block: one thread of our own does both.
        self._io = ThreadPoolExecutor(1, thread_name_prefix="benchboard-worker-io")
        self._closed = False
        #: Worker processes started so far.
        self.started = 0

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def _ensure(self) -> Connection:
        if self._closed:
            raise WorkerLost("the worker is closed")
        if self._pipe is None or self._process is None or not self._process.is_alive():
            self._stop()
            ours, theirs = self._context.Pipe()
            process = self._context.Process(
                target=_serve, args=(theirs,), name="benchboard-worker", daemon=True
            )
            process.start()
            theirs.close()  # so that its death is seen here as the end of the pipe
            self._process, self._pipe = process, ours
            self.started += 1
        return self._pipe

    def _stop(self) -> None:
        """Kill the worker process (if any); a reply being waited for ends (EOF)."""
        process, pipe = self._process, self._pipe
        self._process = self._pipe = None
        if process is not None:
            with suppress(Exception):
                process.kill()
            with suppress(Exception):
                process.join(1.0)
        if pipe is not None:
            with suppress(Exception):
                pipe.close()

    async def run(self, seconds: float, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the worker process. Raises :class:`TimeoutError` once the
        job has run ``seconds`` seconds (its process killed), :class:`WorkerLost` if the
        process died, or what ``fn`` raised."""
        async with self._lock:
            conn = self._ensure()
            exchange = cast(
                "Future[tuple[bool, Any]]", self._io.submit(_exchange, conn, (fn, args))
            )
            try:
                ok, value = await asyncio.wait_for(asyncio.wrap_future(exchange), seconds)
            except BaseException as exc:
                # Timed out, or the caller gave up: stop the job with its process. Or the
                # process died (EOF): forget it. The next job gets a fresh one.
                self._stop()
                with suppress(BaseException):
                    exchange.result(timeout=5)  # ends with the process
                lost = (EOFError, OSError, pickle.UnpicklingError)
                if isinstance(exc, lost) and not isinstance(exc, TimeoutError):
                    raise WorkerLost(str(exc) or type(exc).__name__) from None
                raise
        if ok:
            return cast(T, value)
        raise value

    def close(self) -> None:
        self._closed = True
        self._stop()
        self._io.shutdown(wait=False, cancel_futures=True)

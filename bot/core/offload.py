"""Heavy work off the event loop: a large upload is read, decoded, scored and packed in
a worker process (a process, so pure-Python scoring never holds the event loop's GIL);
so is a large benchmark definition (``/benchmark add``) read and checked.

The bot saves a large upload to a file and gives the worker its path; the text is built
only in the worker, which sends back what the text is (its tags and benchmark), then
the result and the packed text (``storage.PackedText``), never the text itself.
:class:`Worker` keeps a few such processes and shares them fairly between users (one
job per user at a time, users served in turn); a job that overruns its time is stopped
with its process, and the next job there gets a fresh one. The job functions import
scoring, the tag reader and storage's values only, so a worker starts quickly.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import pickle
import signal
from collections import deque
from collections.abc import Callable, Hashable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, TypeVar, cast

from scoring import AnswerSet, Benchmark, DecodeError, Result, choice, decode, registry
from scoring.text import normalise_line_ends
from storage import PackedText, pack_raw

from .classify import Reading, read
from .tags import Spans, blank

#: Inputs of at least this many bytes (or characters) are worked on in the worker.
#: Smaller ones are read and scored on the event loop: every reader of user text is
#: linear (``tests/scoring/test_linear_inputs.py``), so that takes a few milliseconds.
OFFLOAD_BYTES = 64 * 1024
#: Worker processes at most: one user's heavy jobs hold one of them at a time, so
#: another user's heavy upload finds the other free.
WORKERS = 2

T = TypeVar("T")


class Refused(Exception):
    """Input a job could not work on: ``kind`` names the user error (``bad_encoding``),
    ``reason`` says why. Plain arguments, so it crosses processes."""

    def __init__(self, kind: str, reason: str, offset: int | None = None) -> None:
        super().__init__(kind, reason, offset)
        self.kind = kind
        self.reason = reason
        #: a file that is not UTF-8: where its first bad byte is (None: binary data)
        self.offset = offset


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
    #: what it answers to each key question, for the copy check (``bot.core.trust``)
    answers: AnswerSet | None = None


def answers_of(
    benchmark: Benchmark, text: str, key: Any, options: Mapping[str, Any]
) -> AnswerSet | None:
    """The benchmark's answer set of ``text``, for the copy check (None: it has none)."""
    reader = getattr(benchmark, "answer_set", None)
    return None if reader is None else cast(AnswerSet | None, reader(text, key, options=options))


def scored_with_answers(
    benchmark: Benchmark, text: str, key: Any, options: Mapping[str, Any]
) -> tuple[Result, AnswerSet | None]:
    """The result and the answer set of ``text``, in one reading where the benchmark
    offers it (``score_with_answers``)."""
    both = getattr(benchmark, "score_with_answers", None)
    if both is not None:
        return cast(tuple[Result, AnswerSet | None], both(text, key, options=options))
    return benchmark.score(text, key, options=options), answers_of(benchmark, text, key, options)


def _file_text(path: str) -> str:
    """The text of the upload saved at ``path``, line ends made ``\\n`` (a lone CR
    inside a line kept: :func:`scoring.text.normalise_line_ends`)."""
    data = Path(path).read_bytes()
    try:
        text = decode(data)
    except DecodeError as exc:
        raise Refused("bad_encoding", str(exc), exc.offset) from None
    del data
    return normalise_line_ends(text)


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
    result, answers = scored_with_answers(registry.get(name), body, key, options)
    return FileScore(result, pack_raw(body), answers)


def read_job(text: str, command_args: str, benchmark_hint: str | None) -> Reading:
    """What a large text is (its tag lines and benchmark), without sending it back."""
    return read(text, command_args, benchmark_hint)


def score_text(name: str, text: str, key: Any, options: Mapping[str, Any]) -> FileScore:
    """Score a long text and pack it (neither on the event loop), with its answer set."""
    result, answers = scored_with_answers(registry.get(name), text, key, options)
    return FileScore(result, pack_raw(text), answers)


@dataclass(frozen=True, slots=True)
class ReadDefinition:
    """A benchmark definition read and checked, and its key as the benchmark loads it."""

    definition: choice.Definition
    key: Any


def read_definition(data: bytes) -> ReadDefinition:
    """Read and check a benchmark's TOML definition sent as a document (its key inline):
    a key of many thousand lines is seconds of Python. Raises
    :class:`scoring.errors.DefinitionError` (it crosses processes as it was made)."""
    return ReadDefinition(*choice.read_checked(data))


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
            fn, args, defined = conn.recv()
        except (EOFError, OSError):
            return
        try:
            if defined is not None:  # the benchmarks defined by data, as the bot has them
                registry.adopt(defined)
            reply: tuple[bool, Any] = (True, fn(*args))
        except Exception as exc:
            reply = (False, _sendable(exc))
        del fn, args, defined  # the job's inputs and outputs go before the next job
        try:
            conn.send(reply)
        except (EOFError, OSError):
            return
        except Exception as exc:  # a value that does not pickle
            conn.send((False, RuntimeError(f"the job's value could not be sent: {exc}")))
        del reply


def _exchange(
    conn: Connection, message: tuple[Callable[..., Any], tuple[Any, ...], tuple[Any, ...] | None]
) -> Any:
    conn.send(message)
    return conn.recv()


class _Process:
    """One worker process (spawned when first needed) and the thread that talks to it.
    A job that takes longer than its time is stopped with the process (``kill``): the
    next job here gets a fresh one."""

    def __init__(self, context: Any, on_start: Callable[[], None]) -> None:
        self._context = context
        self._on_start = on_start
        self._process: BaseProcess | None = None
        self._pipe: Connection | None = None
        #: the registry's generation the process was last told (-1: never)
        self._told = -1
        # Sending and waiting for a reply block: one thread of our own does both.
        self._io = ThreadPoolExecutor(1, thread_name_prefix="benchboard-worker-io")

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.is_alive()

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def _ensure(self) -> Connection:
        if self._pipe is None or self._process is None or not self._process.is_alive():
            self.stop()
            ours, theirs = self._context.Pipe()
            process = self._context.Process(
                target=_serve, args=(theirs,), name="benchboard-worker", daemon=True
            )
            process.start()
            theirs.close()  # so that its death is seen here as the end of the pipe
            self._process, self._pipe, self._told = process, ours, -1
            self._on_start()
        return self._pipe

    def stop(self) -> None:
        """Kill the process (if any); a reply being waited for ends (EOF)."""
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

    async def run(self, seconds: float, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        conn = self._ensure()
        generation = registry.generation()
        defined = registry.defined() if generation != self._told else None
        self._told = generation
        exchange = cast(
            "Future[tuple[bool, Any]]", self._io.submit(_exchange, conn, (fn, args, defined))
        )
        try:
            ok, value = await asyncio.wait_for(asyncio.wrap_future(exchange), seconds)
        except BaseException as exc:
            # Timed out, or the caller gave up: stop the job with its process. Or the
            # process died (EOF): forget it. The next job gets a fresh one.
            self.stop()
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
        self.stop()
        self._io.shutdown(wait=False, cancel_futures=True)


class Worker:
    """Up to :data:`WORKERS` worker processes (each spawned when first needed), shared
    fairly between the people whose work they do.

    Each job names its ``owner`` (the user who sent the input). An owner has at most one
    job running at a time; their other jobs wait in their own queue, and whenever a
    process is free the owners with jobs waiting are served in turn: the one served
    longest ago first (round-robin). So one user's several heavy uploads hold one
    process, one after another, while another user's upload takes the next free one
    instead of waiting behind all of them. A job that takes longer than its time is
    stopped with its process (``Process.kill``), so later jobs never wait behind it:
    they get a fresh process.
    """

    def __init__(self, processes: int | None = None) -> None:
        self.size = max(1, WORKERS if processes is None else processes)
        context = multiprocessing.get_context("spawn")
        self._processes = [_Process(context, self._started) for _ in range(self.size)]
        self._idle: list[_Process] = list(self._processes)
        #: owner -> the jobs waiting (each a future that receives its process), in order
        self._waiting: dict[Hashable, deque[asyncio.Future[_Process]]] = {}
        #: the owners with a job running
        self._running: set[Hashable] = set()
        #: when each owner with jobs waiting or running was last given a process (a
        #: count of grants): the one served longest ago goes first, one never served
        #: before anyone (ties: in the order their jobs came)
        self._served: dict[Hashable, int] = {}
        self._grants = 0
        self._closed = False
        #: Worker processes started so far.
        self.started = 0

    def _started(self) -> None:
        self.started += 1

    @property
    def pid(self) -> int | None:
        """The pid of a live worker process (None when there is none)."""
        return next((p.pid for p in self._processes if p.alive), None)

    @property
    def busy(self) -> int:
        """How many processes are working on a job now."""
        return self.size - len(self._idle)

    def queued(self, owner: Hashable = None) -> int:
        """How many of ``owner``'s jobs wait for their turn."""
        return len(self._waiting.get(owner, ()))

    async def run(
        self, seconds: float, fn: Callable[..., T], *args: Any, owner: Hashable = None
    ) -> T:
        """``fn(*args)`` in a worker process, in ``owner``'s turn. Raises
        :class:`TimeoutError` once the job has run ``seconds`` seconds (its process
        killed; the time counts from the job's start, not while it waits for its turn),
        :class:`WorkerLost` if the process died, or what ``fn`` raised."""
        if self._closed:
            raise WorkerLost("the worker is closed")
        process = await self._turn(owner)
        try:
            return await process.run(seconds, fn, args)
        finally:
            self._release(owner, process)

    async def _turn(self, owner: Hashable) -> _Process:
        """Wait until ``owner`` may run a job, and take a process for it."""
        granted: asyncio.Future[_Process] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(owner, deque()).append(granted)
        self._grant()
        try:
            return await granted
        except BaseException:
            if granted.done() and not granted.cancelled() and granted.exception() is None:
                self._release(owner, granted.result())  # given, but the caller left
            else:
                queue = self._waiting.get(owner)
                if queue is not None and granted in queue:
                    queue.remove(granted)
                    if not queue:
                        del self._waiting[owner]
                        self._forget(owner)
            raise

    def _release(self, owner: Hashable, process: _Process) -> None:
        self._running.discard(owner)
        self._forget(owner)
        self._idle.append(process)
        self._grant()

    def _forget(self, owner: Hashable) -> None:
        """Drop an owner's turn once nothing of theirs waits or runs (bounded memory)."""
        if owner not in self._waiting and owner not in self._running:
            self._served.pop(owner, None)

    def _grant(self) -> None:
        """Give free processes to the owners whose turn it is."""
        while self._idle and not self._closed:
            ready = [o for o in self._waiting if o not in self._running]
            if not ready:
                return
            owner = min(ready, key=lambda o: self._served.get(o, -1))
            queue = self._waiting[owner]
            granted = queue.popleft()
            if not queue:
                del self._waiting[owner]
            if granted.done():  # pragma: no cover - a cancelled waiter leaves its queue
                continue
            # a process that is up first (no start-up wait), else one to start
            live = [p for p in self._idle if p.alive]
            process = (live or self._idle)[0]
            self._idle.remove(process)
            self._running.add(owner)
            self._grants += 1
            self._served[owner] = self._grants
            granted.set_result(process)

    def close(self) -> None:
        self._closed = True
        for queue in self._waiting.values():
            for granted in queue:
                if not granted.done():
                    granted.set_exception(WorkerLost("the worker is closed"))
        self._waiting.clear()
        self._served.clear()
        for process in self._processes:
            process.close()

"""Benchmarks defined by data: a multiple-choice benchmark's TOML file added by an admin
(``benchmark add``: the command line, or the bot's ``/benchmark add`` document).

A definition is validated whole (:mod:`scoring.choice`; its name must not clash with a
benchmark or tag already known) before anything is stored; a refused file changes
nothing. Stored (:mod:`storage.definitions`), its key is the benchmark's key: adding
the same name again with another key makes a new key version, and the stored
submissions are re-scored as after ``/setkey``. A definition may change its title,
prompt, credit, license, options and points (a new definition version): options and
points are part of the scorer's version, so every stored result is re-scored with the
new ones; the kind cannot change (there is one). A built-in benchmark is never
replaced, and no benchmark is named after a word of the bot's own (:data:`RESERVED`).

A document sent to the bot is read and checked off the event loop: a large one (a key
of many thousand lines is seconds of Python) in the worker process, as a large
submission is scored (:mod:`bot.core.offload`), so nobody else's reply waits for it.

Every process reads the definitions into the registry at start (the bot, and each
command-line command that opens the database); a bot instance reads them again when
another one announces a change (PostgreSQL), every :data:`REFRESH_S` seconds, and when
it meets a tag it does not know (:func:`refresh`: one count, cheap).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from scoring import Benchmark, ScoringError, choice, registry
from scoring.errors import DefinitionError
from storage import BoardRow, DefinitionVersion, KeyVersion, StoreUnavailable

from . import challenges, keys, offload, sharing
from .admin import Actor, require_bot_admin
from .errors import UserError
from .services import LoadedKey, Services

log = logging.getLogger(__name__)

#: How often a bot instance sharing the database checks for definitions (seconds).
REFRESH_S = 60.0
#: Board rows shown before and after a re-score.
TOP = 5
#: The largest definition file read (bytes).
MAX_FILE = 5 * 1024 * 1024
#: The longest a definition sent to the bot may take to read in the worker (seconds).
READ_SECONDS = 60.0


#: The words of the bot's own interfaces, which a benchmark defined by data may not be
#: named: a benchmark's name stands where they do, or beside them, and would read as
#: them or be unreachable. Inline mode's keyword (``@bot top [NAME]`` is the top five:
#: a benchmark ``top`` could never be searched for there); the chat's commands (a
#: challenge's name is its command, ``/NAME``; ``/top NAME`` is a board); the command
#: line's commands (``benchboard NAME today``). The web has no fixed path beside
#: ``/b/NAME`` (``.csv``, ``.json``, ``/questions`` and ``/card.png`` hang below a name,
#: which has no dot): nothing is reserved there. Tests check these against what the
#: Application registers and what the command line parses.
INLINE_WORDS = (sharing.TOP_WORD,)
CHAT_COMMANDS = (
    "start", "help", "score", "leaderboard", "board", "top", "me", "prompt", "questions",
    "benchmarks", "lang", "theme", "public", "weblink", "token", "notices", "sponsor",
    "compare",
    # the admins'
    "setkey", "benchmark", "keyinfo", "rescore", "hide", "unhide", "verify", "flags", "ban",
    "unban", "audit", "export", "backup", "run", "runs",
)  # fmt: skip
CLI_COMMANDS = (
    "score", "prompt", "data", "benchmark", "compare", "rescore", "health", "db", "web",
    "webhook", "run", "submit", "eval", "verify",
)  # fmt: skip
RESERVED = (
    (INLINE_WORDS, "inline mode's keyword (@bot {word})"),
    (CHAT_COMMANDS, "a command (/{word})"),
    (CLI_COMMANDS, "a command-line command (benchboard {word})"),
)


def check_name(name: str) -> None:
    """Refuse (DefinitionError on ``name``) a name that is a word of the bot's own
    (:data:`RESERVED`), or a challenge's command word: one line saying where it is."""
    uses = [what.format(word=name) for words, what in RESERVED if name in words]
    if any(challenges.spec(b).command == name for b in challenges.benchmarks()):
        uses.append(f"a challenge's command (/{name}, benchboard {name})")
    if uses:
        raise DefinitionError("name", f"{name!r} is the bot's own word: {' and '.join(uses)}")


#: What adding a definition changed: a benchmark that was not there ("new"), a new
#: definition version, another key in use, both, or nothing.
Change = Literal["new", "definition", "key", "both", "none"]


@dataclass(frozen=True, slots=True)
class Added:
    """A definition added: the benchmark, its stored definition and key versions, how
    many stored submissions wait for a re-score, the board's top before it, and whether
    the key in use changed (a new version, or an earlier one made current again)."""

    benchmark: Benchmark
    definition: DefinitionVersion
    key: KeyVersion
    pending: int
    before: tuple[BoardRow, ...]
    key_changed: bool

    @property
    def change(self) -> Change:
        """What this changed (what the answer says first)."""
        definition = self.definition
        if definition.created and definition.version == 1:
            return "new"
        if definition.created:
            return "both" if self.key_changed else "definition"
        return "key" if self.key_changed else "none"


def read_file(path: Path) -> choice.Definition:
    """A definition file and the files it names (beside it); DefinitionError."""
    folder = path.parent

    def files(field: str, relative: str) -> bytes:
        try:
            return _read(folder / relative)
        except OSError as exc:
            raise DefinitionError(field, f"cannot read {relative}: {exc.strerror}") from None

    try:
        data = _read(path)
    except OSError as exc:
        raise DefinitionError("file", f"cannot read {path}: {exc.strerror}") from None
    return choice.read_definition(data, files=files)


def _read(path: Path) -> bytes:
    with path.open("rb") as f:
        data = f.read(MAX_FILE + 1)
    if len(data) > MAX_FILE:
        raise DefinitionError("file", f"{path.name} is larger than {MAX_FILE // 2**20} MB")
    return data


async def read_upload(
    services: Services, data: bytes, *, owner: int | None = None
) -> offload.ReadDefinition:
    """A definition sent as a document (its key inline), read and checked with its key
    loaded: a large one in the worker process (in ``owner``'s turn), a small one here
    (as a submission is). Raises DefinitionError."""
    if len(data) > MAX_FILE:
        raise DefinitionError("file", f"larger than {MAX_FILE // 2**20} MB")
    if len(data) < offload.OFFLOAD_BYTES:
        return offload.read_definition(data)
    try:
        return await services.offload(READ_SECONDS, offload.read_definition, data, owner=owner)
    except TimeoutError:
        raise DefinitionError("file", f"not read within {READ_SECONDS:.0f} s") from None
    except offload.WorkerLost:
        raise DefinitionError("file", "too heavy to read") from None


async def add(
    services: Services,
    definition: choice.Definition,
    *,
    source: str,
    actor_id: int | None = None,
    key: Any = None,
) -> Added:
    """Register a definition, store it with its key (its key in use at once) and log it
    (``actor_id``: the admin, for the audit log; ``key``: the key already loaded, else
    it is loaded here, in a thread). Re-scoring is the caller's next step, when
    ``pending``. Raises DefinitionError (nothing stored) for a name that clashes."""
    benchmark = choice.ChoiceBenchmark(definition)
    registry.check(benchmark)
    check_name(benchmark.name)
    taken = registry.title_taken(benchmark)
    if taken is not None:
        raise DefinitionError(
            "title",
            f"{benchmark.title!r} reads as {taken.title} (#{taken.name}): "
            "a benchmark needs a title of its own",
        )
    if key is None:
        key = await asyncio.to_thread(benchmark.load_key, definition.key)
    store, name = services.store, benchmark.name
    before = (await store.leaderboard(name, limit=TOP)).rows if registry.find(name) else ()
    previous = await store.current_key(name)
    saved, key_version = await store.save_definition(
        name, definition.kind, definition.dumps(), definition.key, source=source
    )
    registry.register(benchmark)
    services.keys[name] = LoadedKey(key_version, key, source)
    services.definitions_stamp = -1  # read again on the next refresh: others may have saved
    if actor_id is not None:
        await store.log_action(
            actor_id,
            "benchmark_add",
            f"{name} v{saved.version} key v{key_version.version}",
            reason=key_version.sha256,
        )
    await services.announce("benchmarks")
    pending = await store.pending_rescore(name, scorer_version=benchmark.scorer_version)
    key_changed = previous is None or previous.id != key_version.id
    return Added(benchmark, saved, key_version, pending, tuple(before), key_changed)


async def load_defined(services: Services, *, with_keys: bool = False) -> list[Benchmark]:
    """Register every stored definition (a bad one is logged and left out); returns
    those registered. Their keys are the caller's next step (:func:`keys.load_keys`),
    or, ``with_keys`` (a running process), each one's before it is registered: a
    message naming a benchmark another instance just defined was answered "the key is
    not loaded yet", between the two."""
    store = services.store
    stamp = await store.definitions_stamp()
    found: list[Benchmark] = []
    for stored in await store.definitions():
        try:
            if stored.kind != choice.KIND:
                raise DefinitionError("kind", f"unknown kind {stored.kind!r}")
            benchmark = choice.from_stored(stored.definition)
            if with_keys:
                registry.check(benchmark)
                await keys.use_current(services, benchmark)
            registry.register(benchmark)
        except ScoringError as exc:
            log.error("benchmark %s (definition %d) is not loaded: %s", stored.benchmark,
                      stored.version, exc)  # fmt: skip
            continue
        found.append(benchmark)
    services.definitions_stamp = stamp
    return found


async def start(services: Services) -> None:
    """The bot's start: the definitions registered (before the keys are loaded), then
    followed as other instances change them."""
    await load_defined(services)
    await follow(services)


async def refresh(services: Services) -> bool:
    """Read the definitions (and the keys) again when another process stored one since
    they were last read; whether they were."""
    if await services.store.definitions_stamp() == services.definitions_stamp:
        return False
    await load_defined(services, with_keys=True)
    await keys.reload_keys(services)
    return True


async def defined_since(services: Services) -> bool:
    """:func:`refresh`, for a name nobody here knows (a page asked for, a result's
    benchmark): another process may have defined it within the minute. False when the
    database does not answer (the name stays unknown)."""
    try:
        return await refresh(services)
    except StoreUnavailable:
        return False


async def follow(services: Services) -> None:
    """Keep the definitions as the other processes store them: read them again every
    :data:`REFRESH_S` seconds (on SQLite too: `benchboard web` beside the bot, or
    `benchboard benchmark add` while it runs), and on another instance's announcement
    (PostgreSQL)."""

    def heard(topic: str) -> None:
        if topic in ("benchmarks", ""):  # a definition, or only its key, changed
            services.spawn(_refreshed(services, keys_too=True))

    if services.store.shared:
        services.listeners["benchmarks"] = heard
    services.spawn(_every(services))


async def _refreshed(services: Services, *, keys_too: bool = False) -> None:
    try:
        if not await refresh(services) and keys_too:
            # a corrected key alone stores no definition (the count stays): the keys in
            # use are read again all the same (another instance's `/benchmark add`, and
            # `benchboard benchmark add` beside the bot on one SQLite file)
            await keys.reload_keys(services)
    except StoreUnavailable as exc:
        log.warning("the benchmark definitions were not read again: %s", exc)


async def _every(services: Services) -> None:
    while True:
        await asyncio.sleep(REFRESH_S)
        await _refreshed(services, keys_too=True)


async def listed(services: Services) -> list[DefinitionVersion]:
    """The stored definitions, each benchmark's latest (``benchmark list``)."""
    return await services.store.definitions()


async def add_upload(services: Services, actor: Actor, data: bytes, *, source: str) -> Added:
    """A bot admin's ``/benchmark add`` document: :func:`add`, a refused file as the
    ``bad_definition`` answer (nothing changed)."""
    require_bot_admin(actor)
    try:
        read = await read_upload(services, data, owner=actor.user_id)
        return await add(
            services, read.definition, source=source, actor_id=actor.user_id, key=read.key
        )
    except DefinitionError as exc:
        raise UserError("bad_definition", reason=str(exc)) from None

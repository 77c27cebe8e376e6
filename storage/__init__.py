"""Storage: every SQL statement of the project, over one SQLite file (aiosqlite) or a
PostgreSQL database (psycopg 3, when given a ``postgresql://`` URL).

Public surface (all coroutines unless noted; every result is a frozen dataclass)::

    store = await Store.open(path, *, clock=None, busy_timeout_ms=5000,
                             synchronous="FULL", mmap_mb=2048, per_statement=None)
    await store.close()                      # also: async with store: ...
    await store.schema_version() -> int
    store.db                                 # the connection seam (not a coroutine):
                                             # db.run(work), db.read(), db.write(), db.trips

    # users and chats, as Telegram reports them (updated on sight)
    await store.upsert_user(user_id, *, first_name, last_name, username, language_code)
        -> str | None                        # their /lang choice, read back in the same trip
    await store.upsert_chat(chat_id, *, type, title) -> None
    await store.set_user_language(user_id, lang: str | None) -> None
    await store.user_language(user_id) -> str | None
    await store.get_user(user_id) -> User | None
    await store.get_chat(chat_id) -> Chat | None
    await store.set_user_public(user_id, public: bool) -> None   # /public (User.public)
    await store.move_chat(old_id, new_id, *, type="supergroup") -> ChatMove
                                             # a group upgraded: everything by its id moves

    # answer keys, versioned by SHA-256 (the last one saved is current)
    await store.save_key(benchmark, data: bytes, *, source: str) -> KeyVersion
    await store.current_key(benchmark) -> KeyVersion | None
    await store.key_versions(benchmark) -> list[KeyVersion]
    await store.save_definition(benchmark, kind, definition: str, key: bytes, *, source)
        -> (DefinitionVersion, KeyVersion)          # a benchmark defined by data
    await store.definitions() -> list[DefinitionVersion]        # each one's latest
    await store.definitions_stamp() -> int                      # changes on each save
    await store.key_data(key_version_id) -> bytes

    # submissions
    await store.record_submission(NewSubmission(...)) -> Submission   # .created: new or not
    await store.record_many(subs, *, publish=False, batch_size=1000) -> int
    await store.get_submission(submission_id) -> Submission | None
    await store.find_submission(chat_id, message_id) -> Submission | None
    await store.raw_text(submission_id) -> str
    await store.set_mode(submission_id, mode) -> Submission
    await store.set_model(submission_id, model) -> Submission
    await store.publish(submission_id) -> Submission          # MissingModeOrModel
    await store.release_held(submission_id) / reopen(submission_id)  # a held result
    await store.publish_within(submission_id, *, daily_limit, tz=UTC)
        -> (Submission, published today)        # LimitReached: allowance checked and used at once
    await store.withdraw(submission_id, user_id) -> Submission
    await store.hide(submission_id) -> Submission
    await store.unhide(submission_id) -> Submission
    await store.verify(submission_id, verified=True, group=False) -> Submission
    await store.history(user_id, *, benchmark=None, limit=10, offset=0) -> list[Submission]
    await store.published_today(user_id, *, tz=UTC) -> int
    await store.submitted_today(user_id, *, tz=UTC) -> int

    # boards
    await store.leaderboard(benchmark, *, chat_id=None, user_id=None, mode=None,
                            days=None, limit=10, offset=0) -> Board
    await store.add_reference(benchmark, *, model, mode, score, source) -> None
    await store.references(benchmark, *, mode=None) -> tuple[BoardRow, ...]
    await store.export_csv(benchmark, *, columns=None, **board_filters) -> str
    await store.rebuild_boards(benchmark=None) -> None
    await store.declare_challenges({name: ChallengeFields(...)}) -> None   # at start

    # moderation (bans and the audit log; hide/unhide/verify above)
    await store.ban(user_id, *, by, reason=None) -> Ban      # off every board
    await store.unban(user_id, *, by, reason=None) -> bool
    await store.is_banned(user_id) -> Ban | None
    await store.bans() -> list[Ban]
    await store.log_action(actor_id, action, target, *, chat_id=None, reason=None) -> AuditEntry
    await store.audit_log(*, chat_id=None, limit=20) -> list[AuditEntry]
    await store.same_answers_as(submission_id) -> int | None  # one run on the boards

    # re-score bookkeeping (the scoring itself: bot.core.rescore)
    await store.pending_rescore(benchmark) -> int
    await store.start_rescore(benchmark, *, key_version_id, scorer_version) -> RescoreJob
    await store.rescore_rows(job, after, limit) -> list[RescoreRow]     # empty: done
    await store.save_rescored(job, RescoreWrites(...), *, upto, rows) -> None
    await store.finish_rescore(job) -> None                             # boards rebuilt

    # backup
    await store.backup(path) -> None

    # the durable intake (updates kept from arrival until handled)
    await store.admit([(update_id, json_body), ...]) -> list[int]   # the new ids, leased
    await store.unfinished() -> list[IntakeEntry]                   # oldest first
    await store.claim_at_start() -> list[IntakeEntry]   # lapsed leases (SQLite: all open)
    await store.claim_lapsed(*, limit=100) -> list[IntakeEntry]     # a dead instance's
    await store.renew() -> int                       # extend the leases of what is held
    await store.release(update_ids=None) -> None     # give leases up (closing: all held)
    store.instance -> str; store.held -> frozenset[int]             # this store's leases
    await store.finish(update_id) -> None                           # group-committed
    store.finish_soon(update_id) -> Task                            # the same, not waited for
    await store.prune_intake(*, older_than_ms) -> int

    # opaque links (random tokens): results, challenges, group boards in the bot and web
    await store.link(kind, target, *, created_by=None) -> str      # one live token per target
    await store.resolve_link(token) -> Link | None                 # None: unknown or revoked
    await store.revoke_links(kind, target) -> int

    # sharing (storage.sharing): card theme, uploaded card file ids, inline results, rank
    await store.set_card_theme(user_id, "light" | "dark") -> None
    await store.card_theme(user_id) -> "light" | "dark"          # light until chosen
    await store.card_file(key) -> str | None; await store.save_card_file(key, file_id);
    await store.forget_card_file(key, file_id)
    await store.published_by(user_id, *, search="", limit=10, offset=0) -> list[Submission]
    await store.global_rank(submission, challenge_fields=None) -> int | None  # None: unpublished
    await store.key_sha256(key_version_id) -> str | None

    # personal API tokens (hashes only), the API's idempotent requests, its rate
    await store.add_api_token(user_id, token_hash) -> ApiToken
    await store.replace_api_token(user_id, token_hash, *, dedupe) -> (ApiToken, replaced)
    await store.api_tokens(user_id) -> list[ApiToken]               # live ones
    await store.revoke_api_tokens(user_id) -> int
    await store.api_token_owner(token_hash) -> ApiToken | None      # last use noted
    await store.api_request(user_id, idempotency_key) -> ApiRequest # .message_id, .created
    await store.take_rate(key, *, interval_ms, burst) -> int        # 0, or ms to wait

    # what the instances of one bot share (PostgreSQL; harmless on SQLite)
    await store.expect_input(what, key, value, *, ttl_ms) -> None  # a reply awaited
    await store.awaited_input(what, key) -> str | None
    await store.take_input(what, key, value) -> bool                # one instance takes it
    await store.claim_run(job, slot, *, ttl_ms) -> bool             # a job's run, once
    await store.reserve_send(key, *, interval_ms, now_ms) -> int    # shared send rate
    await store.announce(topic) -> None                             # NOTIFY the others
    await store.on_announcement(callback) -> None                   # LISTEN
    store.shared -> bool                                            # PostgreSQL

    # challenge boards and record queries: storage.analytics; what the web boards read beside a
    # board page (row details, result tokens, the verified-only board): storage.web_rows;
    # the raw answers of bounded samples of published results (the questions page, the
    # key check): storage.question_rows;
    # restoring a backup: storage.backup; copying to another engine: storage.port

Modules: ``db`` (the connection seam), ``base`` (what the store classes share),
``users``, ``chats`` (a group's new id), ``keys``, ``intake``, ``links``, ``tokens``,
``sharing``, ``shared``, ``submissions``,
``boards`` with ``board_pages``, ``summaries`` and ``challenge_lines`` (the challenge
boards' summaries), ``moderation``, ``rescore``, ``backup``, ``analytics``, ``web_rows``,
``question_rows``;
``values`` (pure helpers: cleaning, stored text and JSON), ``models``, ``errors``,
``migrations`` (with ``frozen_steps``: released SQL kept verbatim); ``dialect`` and
``engines`` (PostgreSQL: ``engines.postgres``, ``engines.pg_schema``), ``port``.

Modes are the values of ``scoring.Mode`` (default, think, tools, think_tools); the
bot maps what people type onto them before calling the store. Times are UTC
(timezone-aware datetimes). Errors form one tree under :class:`StorageError`.
"""

from .challenge_lines import ChallengeFields
from .chats import ChatMove
from .errors import (
    DatabaseCorrupt,
    DatabaseLocked,
    DiskFull,
    InvalidData,
    LimitReached,
    MissingModeOrModel,
    NotAllowed,
    NotFound,
    SchemaError,
    StorageError,
    StoreUnavailable,
)
from .intake import IntakeEntry
from .links import Link, LinkKind
from .migrations import LATEST as SCHEMA_VERSION
from .models import (
    AuditEntry,
    Ban,
    Board,
    BoardRow,
    Chat,
    DefinitionVersion,
    KeyVersion,
    NewSubmission,
    PackedText,
    RescoreReport,
    ScoredResult,
    Submission,
    User,
    Visibility,
)
from .rescore import RescoreJob, RescoreRow, RescoreWrites
from .store import Store, normalise_model
from .tokens import ApiRequest, ApiToken
from .trust import AnswerIndex, Candidate, Flag, PublishedScores
from .values import MAX_MODEL_NAME, without_controls
from .values import pack as pack_raw

__all__ = [
    "MAX_MODEL_NAME",
    "SCHEMA_VERSION",
    "AnswerIndex",
    "ApiRequest",
    "ApiToken",
    "AuditEntry",
    "Ban",
    "Board",
    "BoardRow",
    "Candidate",
    "ChallengeFields",
    "Chat",
    "ChatMove",
    "DatabaseCorrupt",
    "DatabaseLocked",
    "DefinitionVersion",
    "DiskFull",
    "Flag",
    "IntakeEntry",
    "InvalidData",
    "KeyVersion",
    "LimitReached",
    "Link",
    "LinkKind",
    "MissingModeOrModel",
    "NewSubmission",
    "NotAllowed",
    "NotFound",
    "PackedText",
    "PublishedScores",
    "RescoreJob",
    "RescoreReport",
    "RescoreRow",
    "RescoreWrites",
    "SchemaError",
    "ScoredResult",
    "StorageError",
    "Store",
    "StoreUnavailable",
    "Submission",
    "User",
    "Visibility",
    "normalise_model",
    "pack_raw",
    "without_controls",
]

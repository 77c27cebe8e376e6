"""The HTTP API for scripts and CI (``/api/v1``), beside the web boards.

``Authorization: Bearer <token>`` (a personal token from the bot's ``/token``) on every
request. ``POST /api/v1/submissions`` takes a JSON body or ``multipart/form-data`` with
the output as a file; the token and its owner's rate are checked once the headers are
in, and the body's size before it is read (:data:`MAX_REQUEST`), so neither a stranger
nor an oversized body reaches memory. ``GET /api/v1/submissions/<id>`` shows one of the
owner's submissions, ``GET /api/v1/me`` the owner's latest. Every error is JSON:
``{"error": {"code": ..., "message": ...}}`` (and ``field`` for a refused field).
:func:`bot.web.openapi.describe` adds all of it to ``/openapi.json``.
"""

from __future__ import annotations

import html
import json
import logging
import math
import re
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import tornado.http1connection
import tornado.httputil
import tornado.web

from scoring import registry
from storage import ApiToken, StoreUnavailable, Submission

from ..core import api
from ..core.errors import DailyLimit, UserError
from ..core.services import Services
from ..core.submit import MAX_DOWNLOAD, decode_upload
from ..evals import logs
from ..render.i18n import t, tn
from .handler import RETRY_AFTER, unavailable

if TYPE_CHECKING:
    from .handler import WebState

log = logging.getLogger("benchboard.api")

#: The largest request body: an output of up to 20 MB (the bot's limit) and the fields
#: and multipart framing around it.
MAX_REQUEST = MAX_DOWNLOAD + 64 * 1024
_STATUS: dict[str, int] = {
    "bad_request": 400,
    "invalid": 422,
    "not_found": 404,
    "forbidden": 403,
    "daily_limit": 429,
    "rate_limited": 429,
    "key_reused": 422,
}
#: The chat's refusals that are not a bad field (422).
_USER_ERROR_STATUS = {"banned_publish": 403, "too_big": 413, "no_key": 503, "gone": 409}
_TAG = re.compile(r"<[^>]*>")


class ApiState:
    """What the API's handlers share: the web's state, the rate, the keys' last check."""

    def __init__(self, web: WebState) -> None:
        settings = web.services.settings
        self.web = web
        self.rate = api.Rate(settings.api_rate, settings.api_burst)
        self.watch = api.KeyWatch()

    @property
    def services(self) -> Services:
        return self.web.services


class _Failure(Exception):
    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        field: str | None = None,
        retry_after: float | None = None,
        submission_id: int | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.retry_after = retry_after
        #: the submission stored (private) though the request's publication was refused
        self.submission_id = submission_id


#: The database did not answer: a transient fault (try again), never a 500.
_UNAVAILABLE = _Failure(503, "unavailable", "the database is unavailable", retry_after=RETRY_AFTER)


def _plain(error: UserError) -> str:
    """A use case's refusal in English, as plain text (no HTML)."""
    if isinstance(error, DailyLimit):
        text = tn("en", "limit_reached", error.limit, **error.values)
    else:
        text = t("en", error.key, **error.values)
    return html.unescape(_TAG.sub("", text)).strip()


def _failure_of(exc: Exception) -> _Failure:
    """The HTTP refusal of a use case's refusal."""
    if isinstance(exc, api.NotPublished):
        refused = _failure_of(exc.error)
        refused.submission_id = exc.submission_id
        stored = _plain(UserError("api_stored_private", id=exc.submission_id))
        refused.message = f"{refused.message} {stored}"
        return refused
    if isinstance(exc, api.Refused):
        return _Failure(
            _STATUS[exc.kind], exc.code, exc.message, field=exc.field,
            retry_after=exc.retry_after, submission_id=exc.submission_id,
        )  # fmt: skip
    if isinstance(exc, DailyLimit):
        now = datetime.now(UTC)
        reset = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
        return _Failure(
            429,
            "daily_limit",
            _plain(exc),
            retry_after=(reset - now).total_seconds(),
        )
    if isinstance(exc, UserError):
        status = _USER_ERROR_STATUS.get(exc.key, 422)
        # the chat's no_key says the admins were told: the API tells nobody
        said = UserError("no_key_later", **exc.values) if exc.key == "no_key" else exc
        return _Failure(status, exc.key, _plain(said))
    raise exc


def submission_json(shown: api.Submitted) -> dict[str, Any]:
    """A submission as the API shows it: the score fields as ``benchboard score --json``
    prints them, beside what the store knows."""
    sub = shown.submission
    return {
        **shown.result.to_json(),
        "id": sub.id,
        "benchmark": sub.benchmark,
        "model": sub.model,
        "mode": sub.mode,
        "score": sub.score,
        "created_at": sub.created_at.isoformat(),
        "published": shown.published,
        "url": shown.url,
        "held": shown.held,
        "credit": _credit(sub.benchmark),
    }


def _credit(name: str) -> str | None:
    """The benchmark's credit and license, to quote with its score (as ``/r/<token>.json``
    gives it); None for a benchmark that asks for none."""
    return (registry.get(name).credit or None) if name in registry.names() else None


def _summary(sub: Submission) -> dict[str, Any]:
    return {
        "id": sub.id,
        "benchmark": sub.benchmark,
        "model": sub.model,
        "mode": sub.mode,
        "score": sub.score,
        "created_at": sub.created_at.isoformat(),
        "published": sub.visibility.value == "published",
        "source": "api" if sub.extra.get("source") == api.SOURCE else "chat",
        "credit": _credit(sub.benchmark),
    }


class _Handler(tornado.web.RequestHandler):
    """JSON in and out; the token checked (and its rate counted) before anything else."""

    token: ApiToken | None = None

    def initialize(self, state: ApiState) -> None:
        self.state = state

    def set_default_headers(self) -> None:
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.set_header("X-Content-Type-Options", "nosniff")

    def check_xsrf_cookie(self) -> None:  # a bearer token, no cookies
        return

    def fail(self, failure: _Failure, *, close: bool = False) -> None:
        self.clear()
        self.set_default_headers()
        self.set_status(failure.status)
        if failure.status == 401:
            challenge = 'Bearer realm="benchboard"'
            if self.request.headers.get("Authorization", "")[:7].lower() == "bearer ":
                challenge += ', error="invalid_token"'
            self.set_header("WWW-Authenticate", challenge)
        if failure.status == 405:
            self.set_header("Allow", self.ALLOW)
        if failure.retry_after is not None:
            self.set_header("Retry-After", str(max(1, math.ceil(failure.retry_after))))
        if close:  # the body is not read: the connection cannot carry another request
            self.set_header("Connection", "close")
        error: dict[str, Any] = {"code": failure.code, "message": failure.message}
        if failure.field is not None:
            error["field"] = failure.field
        if failure.submission_id is not None:
            error["submission_id"] = failure.submission_id
        self.finish(json.dumps({"error": error}))

    def log_exception(self, typ: Any, value: BaseException | None, tb: Any) -> None:
        if isinstance(value, StoreUnavailable):  # a transient fault, answered 503
            log.warning("database unavailable: %s %s", self.request.method, self.request.uri)
            return
        super().log_exception(typ, value, tb)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        if unavailable(kwargs):
            self.fail(_UNAVAILABLE)
            return
        reason = self._reason if status_code != 500 else "internal error"
        self.fail(_Failure(status_code, reason.lower().replace(" ", "_"), reason))

    #: The methods a handler answers (a 405's ``Allow``).
    ALLOW = "GET, HEAD"

    async def authenticate(self) -> ApiToken | None:
        """The request's token (its rate counted), or None once refused (answered)."""
        header = self.request.headers.get("Authorization", "")
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            said = "send Authorization: Bearer <token>"
            if api.TOKEN_PREFIX in self.request.query:
                # an address is logged (here, by proxies, in a shell's history)
                said += ", the token in that header, never in the address"
            self.fail(_Failure(401, "unauthorized", said), close=True)
            return None
        try:
            token = await api.owner(self.state.services, given.strip())
            if token is None:
                self.fail(
                    _Failure(401, "invalid_token", "the token is unknown or revoked"), close=True
                )
                return None
            await api.check_rate(self.state.services, token, self.state.rate)
        except api.Refused as exc:
            self.fail(_failure_of(exc), close=True)
            return None
        except StoreUnavailable:
            self.fail(_UNAVAILABLE, close=True)
            return None
        return token

    def web_base(self) -> str:
        base = self.state.services.settings.public_web_url
        return str(base) if base else f"{self.request.protocol}://{self.request.host}"

    async def answer(self, status: int, data: dict[str, Any]) -> None:
        self.set_status(status)
        await self.finish(json.dumps(data, ensure_ascii=False))


#: How deep a request's JSON may nest; deeper is refused.
MAX_DEPTH = 32


def _unfit(value: Any, depth: int = 0) -> str | None:
    """Why a field's JSON value cannot be kept (``None`` when it can): a string with a
    lone surrogate (JSON's ``"\\ud800"`` escape, which no UTF-8 text holds), or nesting
    deeper than :data:`MAX_DEPTH`."""
    if isinstance(value, str):
        try:
            value.encode()
        except UnicodeEncodeError:
            return "a lone surrogate (\\ud800) is not text"
        return None
    if isinstance(value, dict):
        value = [*value, *value.values()]
    if isinstance(value, list):
        if depth == MAX_DEPTH:
            return f"nested more than {MAX_DEPTH} deep"
        return next(filter(None, (_unfit(v, depth + 1) for v in value)), None)
    return None


@tornado.web.stream_request_body
class SubmissionsHandler(_Handler):
    """``POST /api/v1/submissions``."""

    ALLOW = "POST"

    async def prepare(self) -> None:
        self._body = bytearray()
        self._too_large = False
        if self.request.method != "POST":
            return  # tornado answers 405
        self.token = await self.authenticate()
        if self.token is None:
            return
        length = self.request.headers.get("Content-Length", "")
        if length and not (length.isascii() and length.isdigit()):
            self.fail(_Failure(400, "bad_length", "Content-Length is not a number"), close=True)
            return
        if length and int(length) > MAX_REQUEST:
            self.fail(self._too_big(), close=True)
            return
        # A chunked body (no Content-Length) past MAX_REQUEST is read to its end and
        # dropped, then answered 413 (answering sooner would reset a connection the
        # client is still writing to, losing the answer); past twice that, tornado
        # closes the connection (a bare 400).
        connection = self.request.connection
        if isinstance(connection, tornado.http1connection.HTTP1Connection):
            connection.set_max_body_size(2 * MAX_REQUEST)

    @staticmethod
    def _too_big() -> _Failure:
        return _Failure(413, "too_big", f"the body is over {MAX_DOWNLOAD >> 20} MB")

    def data_received(self, chunk: bytes) -> None:
        if self._finished or self._too_large:
            return
        if len(self._body) + len(chunk) > MAX_REQUEST:
            self._too_large = True
            self._body = bytearray()
            return
        self._body += chunk

    async def post(self) -> None:
        if self._too_large:
            self.fail(self._too_big())
            return
        assert self.token is not None
        key = self.request.headers.get("Idempotency-Key")
        try:
            request = self._request()
            if isinstance(request, _LogUpload):  # one submission per epoch
                shown = [await self._submit(r, k) for r, k in await _log_requests(request, key)]
                status = 201 if any(s.created for s in shown) else 200
                await self.answer(status, {"submissions": [submission_json(s) for s in shown]})
                return
            one = await self._submit(request, key)
        except _Failure as failure:
            self.fail(failure)
            return
        except (api.Refused, api.NotPublished, UserError) as exc:
            self.fail(_failure_of(exc))
            return
        except StoreUnavailable:
            self.fail(_UNAVAILABLE)
            return
        await self.answer(201 if one.created else 200, submission_json(one))

    async def _submit(self, request: api.Request, key: str | None) -> api.Submitted:
        assert self.token is not None
        return await api.submit(
            self.state.services,
            self.token,
            request,
            idempotency_key=key,
            web_base=self.web_base(),
            watch=self.state.watch,
        )

    def _request(self) -> api.Request | _LogUpload:
        """The submission the body describes (:class:`_Failure` for a bad one)."""
        content_type = self.request.headers.get("Content-Type", "")
        body = bytes(self._body)
        self._body = bytearray()
        if content_type.startswith("multipart/form-data"):
            return self._form(content_type, body)
        try:
            data = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise _Failure(
                400, "not_json", "the body is not JSON (nor multipart/form-data)"
            ) from None
        except ValueError:  # JSON, with a whole number too long for Python to read
            most = sys.get_int_max_str_digits()
            raise _Failure(
                400, "not_json", f"the body's JSON has a number of more than {most} digits"
            ) from None
        except RecursionError:
            raise _Failure(400, "not_json", "the body's JSON is nested too deeply") from None
        if not isinstance(data, dict):
            raise _Failure(400, "not_json", "the body is not a JSON object")
        for name, value in data.items():
            if (why := _unfit(value)) is not None:
                raise _Failure(422, "invalid_field", f"{name}: {why}", field=name)
        output = data.get("output")
        if output is None:
            raise _Failure(400, "missing_output", "output (the model's raw text) is missing")
        if not isinstance(output, str):
            raise _Failure(
                422, "invalid_field", "output: a string (the model's raw text)", field="output"
            )
        if len(output.encode("utf-8", "surrogatepass")) > MAX_DOWNLOAD:
            raise self._too_big()
        for name in ("benchmark", "model", "mode"):
            if data.get(name) is not None and not isinstance(data[name], str):
                raise _Failure(422, "invalid_field", f"{name}: a string", field=name)
        if not isinstance(data.get("benchmark"), str):
            raise _Failure(422, "invalid_field", "benchmark: required", field="benchmark")
        publish = data.get("publish", False)
        if not isinstance(publish, bool):
            raise _Failure(422, "invalid_field", "publish: true or false", field="publish")
        provenance = data.get("provenance") or {}
        if not isinstance(provenance, dict):
            raise _Failure(422, "invalid_field", "provenance: an object", field="provenance")
        provenance |= {k: data[k] for k in api.PROVENANCE_FIELDS if k in data}
        return api.Request(
            benchmark=data["benchmark"],
            output=output,
            model=data.get("model"),
            mode=data.get("mode"),
            publish=publish,
            options={k: data[k] for k in api.OPTION_FIELDS if data.get(k) is not None},
            provenance=provenance,
        )

    def _form(self, content_type: str, body: bytes) -> api.Request | _LogUpload:
        fields: dict[str, list[bytes]] = {}
        files: dict[str, list[tornado.httputil.HTTPFile]] = {}
        try:
            tornado.httputil.parse_body_arguments(content_type, body, fields, files)
        except tornado.httputil.HTTPInputError as exc:
            raise _Failure(400, "not_form", f"the form cannot be read: {exc}") from None
        uploads = files.get("output") or files.get("file")
        if not uploads and fields.get("output"):  # a text field (curl -F output="...")
            text = fields.pop("output")[0]
            uploads = [tornado.httputil.HTTPFile(filename="", body=text, content_type="")]
        if not uploads:
            raise _Failure(400, "missing_output", "the form has no output file")
        upload = uploads[0]
        if len(upload.body) > MAX_DOWNLOAD:
            raise self._too_big()
        values: dict[str, str] = {}
        for name, given in fields.items():
            try:
                values[name] = given[0].decode("utf-8")
            except UnicodeDecodeError:
                raise _Failure(422, "invalid_field", f"{name}: not UTF-8", field=name) from None
        _form_publish(values)  # a typo is refused before anything is scored
        if logs.is_log(upload.filename or "", upload.body[:4096]):
            return _LogUpload(upload.body, upload.filename or "run.eval", values)
        try:
            output = decode_upload(upload.body)
        except UserError as exc:
            raise _failure_of(exc) from None
        if "benchmark" not in values:
            raise _Failure(422, "invalid_field", "benchmark: required", field="benchmark")
        return api.Request(
            benchmark=values["benchmark"],
            output=output,
            model=values.get("model"),
            mode=values.get("mode"),
            publish=_form_publish(values),
            options={k: values[k] for k in api.OPTION_FIELDS if values.get(k)},
            provenance={k: values[k] for k in api.PROVENANCE_FIELDS if k in values},
        )


#: A form's ``publish``: the words for yes and for no (anything else is refused).
_YES, _NO = frozenset({"1", "true", "yes", "on"}), frozenset({"", "0", "false", "no", "off"})


def _form_publish(values: dict[str, str]) -> bool:
    """A form's ``publish`` field (absent: no); :class:`_Failure` for another word."""
    word = values.get("publish", "").strip().lower()
    if word not in _YES | _NO:
        raise _Failure(422, "invalid_field", "publish: true or false", field="publish")
    return word in _YES


@dataclass(frozen=True, slots=True)
class _LogUpload:
    """An Inspect log sent as the file: its bytes, its name, the form's other fields."""

    data: bytes
    name: str
    values: dict[str, str]


async def _log_requests(
    upload: _LogUpload, key: str | None
) -> list[tuple[api.Request, str | None]]:
    """A request per epoch of the log, with its idempotency key (the header's with the
    epoch, else the log's eval id and epoch): the form's fields win over the log's."""
    try:
        epochs = await logs.read_bytes(upload.data, upload.name)
    except logs.NotInstalled:
        raise _Failure(
            422, "unsupported_log", "this server cannot read Inspect logs (no inspect extra)"
        ) from None
    except logs.UnreadableLog as exc:
        raise _Failure(422, "invalid_log", f"{upload.name}: {exc}", field="output") from None
    values = upload.values
    requests: list[tuple[api.Request, str | None]] = []
    for e in epochs:
        benchmark = values.get("benchmark") or e.benchmark
        if not benchmark:
            raise _Failure(422, "invalid_field", "benchmark: required", field="benchmark")
        request = api.Request(
            benchmark=benchmark,
            output=e.output,
            model=values.get("model") or e.model,
            mode=values.get("mode") or e.mode,
            publish=_form_publish(values),
            options={
                **{k: v for k, v in e.options.items() if k in api.OPTION_FIELDS},
                **{k: values[k] for k in api.OPTION_FIELDS if values.get(k)},
            },
            provenance={k: values[k] for k in api.PROVENANCE_FIELDS if k in values},
        )
        requests.append((request, f"{key}:{e.epoch}" if key else e.idempotency_key))
    return requests


class SubmissionHandler(_Handler):
    """``GET /api/v1/submissions/<id>``: the owner's submission (404 for anyone else)."""

    async def get(self, submission_id: str) -> None:
        token = await self.authenticate()
        if token is None:
            return
        try:
            shown = await api.shown(
                self.state.services, token.user_id, int(submission_id), self.web_base()
            )
        except api.Refused as exc:
            self.fail(_failure_of(exc))
            return
        await self.answer(200, submission_json(shown))

    head = get  # monitors ask with HEAD, as they do the boards


class MeHandler(_Handler):
    """``GET /api/v1/me``: the token's owner and their latest submissions."""

    async def get(self) -> None:
        token = await self.authenticate()
        if token is None:
            return
        recent = await api.recent(self.state.services, token.user_id)
        await self.answer(
            200, {"user_id": token.user_id, "submissions": [_summary(s) for s in recent]}
        )

    head = get


class NotFoundHandler(_Handler):
    async def get(self, *_: str) -> None:
        self.fail(_Failure(404, "not_found", "no such API path"))

    # whatever the method, a path that does not exist is not found (not 405)
    post = put = patch = delete = head = get


def routes(web: WebState) -> list[Any]:
    """The API's routes, for the web's tornado ``Application``."""
    args = {"state": ApiState(web)}
    return [
        (r"/api/v1/submissions", SubmissionsHandler, args),
        (r"/api/v1/submissions/([0-9]{1,18})", SubmissionHandler, args),
        (r"/api/v1/me", MeHandler, args),
        (r"/api/(.*)", NotFoundHandler, args),
    ]

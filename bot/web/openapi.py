"""The OpenAPI 3.1 description at ``/openapi.json``: the board downloads (CSV and
JSON, :func:`openapi`) and the submissions API (:func:`describe`, served by
:mod:`bot.web.api`). Pure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scoring import Mode

from ..core import api, webboards
from .pages import MARK_FILTERS, MAX_PROVIDER, PER_PAGE, SEARCH_MAX, WINDOW_PARAMS


def openapi(benchmarks: Sequence[str]) -> dict[str, Any]:
    """The OpenAPI 3.1 description of the board downloads."""
    parameters = [
        {"name": "benchmark", "in": "path", "required": True,
         "schema": {"type": "string", "enum": list(benchmarks)}},
        {"name": "mode", "in": "query", "schema": {"type": "string",
         "enum": [m.value for m in Mode]}},
        {"name": "window", "in": "query", "schema": {"type": "string",
         "enum": list(WINDOW_PARAMS), "default": "all"}},
        {"name": "verified", "in": "query", "schema": {"type": "string", "enum": ["0", "1"]}},
        {"name": "mark", "in": "query", "schema": {"type": "string",
         "enum": list(MARK_FILTERS)}, "description": "only rows of this mark"},
        {"name": "sort", "in": "query", "schema": {"type": "string", "default": "rank"},
         "description": "rank, model, mode, first, last, or a column of the benchmark"},
        {"name": "order", "in": "query", "schema": {"type": "string", "enum": ["asc", "desc"]}},
        {"name": "page", "in": "query", "schema": {"type": "integer", "minimum": 1,
         "maximum": webboards.MAX_PAGE + 1, "default": 1}},
        {"name": "per", "in": "query", "schema": {"type": "integer", "minimum": 1,
         "maximum": webboards.MAX_PER, "default": PER_PAGE}},
        {"name": "q", "in": "query", "schema": {"type": "string", "maxLength": SEARCH_MAX},
         "description": "only the models whose name holds this text (ignoring case); "
                        f"a search looks through the board's best {webboards.SEARCH_SPAN} lines"},
        {"name": "provider", "in": "query", "schema": {"type": "string",
         "maxLength": MAX_PROVIDER}, "description": "only results whose submitter named "
         "this provider (provider: tag; matched ignoring case)"},
    ]  # fmt: skip
    row = {
        "type": "object",
        "properties": {
            "rank": {"type": ["integer", "null"]},
            "model": {"type": "string"},
            "mode": {"type": "string"},
            "mark": {"type": "string", "enum": ["benchboard", "verified", "self", "reported"]},
            "by": {"type": ["string", "null"], "description": "null: anonymous"},
            "key": {"type": ["string", "null"], "description": "the key's SHA-256, short"},
            "first_at": {"type": "string", "format": "date-time"},
            "last_at": {"type": "string", "format": "date-time"},
            "score": {"type": "number"},
            "ci95": {
                "type": ["array", "null"],
                "items": {"type": "number"},
                "minItems": 2,
                "maxItems": 2,
                "description": "the score's 95 % interval [low, high]: over the best run's "
                "questions (analytic standard error), or over the line's runs when it has "
                "several; null when there is none to give",
            },
            "result": {"type": ["string", "null"], "description": "the result's page"},
        },
        "additionalProperties": {"type": ["number", "string", "null"]},
    }
    board = {
        "type": "object",
        "properties": {
            "benchmark": {"type": "string"},
            "title": {"type": "string"},
            "credit": {"type": "string"},
            "filters": {"type": "object"},
            "page": {"type": "integer"},
            "per": {"type": "integer"},
            "pages": {"type": "integer"},
            "total": {"type": "integer"},
            "key_version": {"type": ["integer", "null"]},
            "key": {"type": ["string", "null"]},
            "rows": {"type": "array", "items": {"$ref": "#/components/schemas/Row"}},
            "reported": {"type": "array", "items": {"$ref": "#/components/schemas/Row"}},
        },
    }
    bad_filter = {"description": "a bad filter"}
    not_found = {"description": "no such benchmark, or a page past the last"}
    page_error = {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["status", "message"],
                "properties": {"status": {"type": "integer"}, "message": {"type": "string"}},
            }
        },
    }

    def as_json(answer: dict[str, str]) -> dict[str, Any]:
        """An error answer of a ``.json`` address: the error as JSON."""
        schema = {"$ref": "#/components/schemas/PageError"}
        return {**answer, "content": {"application/json": {"schema": schema}}}

    signed = {
        "type": "object",
        "required": ["benchmark", "score", "signature"],
        "description": "A published result, signed: signature is the base64 of the "
        "Ed25519 signature (the key at /signing-key) over the UTF-8 bytes of "
        'json.dumps(record_without_signature, sort_keys=True, separators=(",", ":"), '
        "ensure_ascii=False); whole numbers are written plainly (87, not 87.0), so a "
        "tool that rewrites numbers (jq) leaves it valid. Check one with "
        "`benchboard verify FILE.json`.",
        "properties": {
            "benchmark": {"type": "string"},
            "model": {"type": ["string", "null"]},
            "mode": {"type": ["string", "null"]},
            "score": {"type": "number"},
            "ci95": {"type": ["array", "null"], "items": {"type": "number"}},
            "scores": {"type": "object", "description": "the figures its card shows"},
            "breakdown": {"type": "object", "description": "as `benchboard score --json`"},
            "key_sha256": {"type": ["string", "null"]},
            "key_version": {"type": ["integer", "null"]},
            "scorer_version": {"type": "string"},
            "submitted_at": {"type": "string", "format": "date-time"},
            "published_at": {"type": ["string", "null"], "format": "date-time"},
            "marks": {
                "type": "array",
                "items": {"type": "string"},
                "description": "who vouches for it: verified (by an admin), self "
                "(self-reported), …",
            },
            "provenance": {
                "type": "object",
                "description": "as its submitter gave it: provider, temperature, seed, "
                "reasoning, run_date, log",
            },
            "url": {"type": "string", "description": "where this record is served"},
            "page": {"type": "string"},
            "credit": {
                "type": ["string", "null"],
                "description": "the benchmark's credit and license, to quote with the score",
            },
            "signature": {"type": "string", "contentEncoding": "base64"},
        },
    }
    signing_key = {
        "type": "object",
        "required": ["alg", "public_key"],
        "properties": {
            "alg": {"type": "string", "const": "Ed25519"},
            "public_key": {
                "type": "string",
                "contentEncoding": "base64",
                "description": "the 32 raw bytes of the public key",
            },
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Benchboard boards", "version": "1"},
        "paths": {
            "/b/{benchmark}.json": {
                "get": {
                    "summary": "A page of a benchmark's global board",
                    "parameters": parameters,
                    "responses": {
                        "200": {
                            "description": "the board page",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Board"}
                                }
                            },
                        },
                        "304": {"description": "not modified (ETag / Last-Modified)"},
                        "400": as_json(bad_filter),
                        "404": as_json(not_found),
                    },
                }
            },
            "/r/{token}.json": {
                "get": {
                    "summary": "One published result, signed",
                    "parameters": [
                        {
                            "name": "token",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
                        },
                    ],
                    "responses": {
                        "200": {
                            "description": "the result with its signature",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/SignedResult"}
                                }
                            },
                        },
                        "404": as_json({"description": "hidden, withdrawn, or no such result"}),
                    },
                }
            },
            "/signing-key": {
                "get": {
                    "summary": "The public key that signs the results",
                    "responses": {
                        "200": {
                            "description": "the Ed25519 public key",
                            "content": {"application/json": {"schema": signing_key}},
                        },
                        "503": {"description": "the key is unavailable"},
                    },
                }
            },
            "/b/{benchmark}.csv": {
                "get": {
                    "summary": "The same page as CSV",
                    "parameters": parameters,
                    "responses": {
                        "200": {"description": "CSV", "content": {"text/csv": {}}},
                        "400": bad_filter,
                        "404": not_found,
                    },
                }
            },
        },
        "components": {
            "schemas": {"Board": board, "Row": row, "SignedResult": signed, "PageError": page_error}
        },
    }


def describe(spec: dict[str, Any], benchmarks: list[str]) -> dict[str, Any]:
    """``spec`` (the boards' OpenAPI description) with the API added."""
    error = {
        "description": "an error",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }
    secured: list[dict[str, list[str]]] = [{"bearer": []}]
    submission = {"$ref": "#/components/schemas/Submission"}
    # an Inspect log sent as the file: one submission per epoch
    per_epoch = {
        "type": "object",
        "required": ["submissions"],
        "properties": {"submissions": {"type": "array", "items": submission}},
    }
    shown = {"content": {"application/json": {"schema": {"oneOf": [submission, per_epoch]}}}}
    fields = {
        "benchmark": {"type": "string", "enum": benchmarks},
        "output": {"type": "string", "description": "the model's raw output (at most 20 MB)"},
        "model": {"type": "string", "maxLength": 200},
        "mode": {"type": "string", "enum": [m.value for m in Mode]},
        "publish": {
            "type": "boolean",
            "default": False,
            "description": "put the result on the boards (needs mode and model)",
        },
        "target": {
            "type": ["integer", "string"],
            "description": "the target of a benchmark with a daily challenge",
        },
        "cost": {"type": ["number", "string"], "description": "USD"},
        "latency": {"type": ["number", "string"], "description": "seconds"},
        "k": {
            "type": ["integer", "string"],
            "description": "attempts per question, for a benchmark scored pass@k",
        },
        **{
            name: {"type": ["string", "number"], "description": "provenance (kept as given)"}
            for name in api.PROVENANCE_FIELDS
        },
        # the provenance the chat's tags take too: checked (422 naming a bad one)
        "provider": {"type": "string", "maxLength": 64, "description": "who served the model"},
        "temperature": {"type": ["number", "string"], "minimum": 0, "maximum": 2},
        "seed": {"type": ["integer", "string"], "description": "a whole number"},
        "reasoning": {"type": "string", "enum": ["low", "medium", "high"]},
        "run_date": {"type": "string", "format": "date", "description": "YYYY-MM-DD"},
        "log": {"type": "string", "format": "uri", "description": "the run's log (http(s))"},
    }
    form = {
        **{k: v for k, v in fields.items() if k != "output"},
        "output": {
            "type": "string",
            "format": "binary",
            "description": "the output file, or an Inspect AI log (.eval, or its JSON): "
            "one submission per epoch (benchmark, model and mode from the log unless "
            "given), answered as {submissions: [...]}",
        },
        "publish": {
            "type": "string",
            "enum": ["true", "false", "yes", "no", "on", "off", "1", "0", ""],
            "description": "another word is refused (422)",
        },
    }
    limited = {
        "description": (
            "past the owner's rate (all of their tokens: rate_limited), or the day's "
            "publications used up (daily_limit: error.submission_id names the stored result)"
        ),
        "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "seconds"}},
        "content": error["content"],
    }
    unauthorized = {**error, "description": "no token, or an unknown or revoked one"}
    unavailable = {
        **error,
        "description": "the database is unavailable: try again (after Retry-After)",
        "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "seconds"}},
    }
    paths = {
        "/api/v1/submissions": {
            "post": {
                "summary": "Score a model's output (and publish it)",
                "description": (
                    "The token acts as its owner: the same daily publish limit, bans and "
                    "moderation apply as in the chat. The same Idempotency-Key from the "
                    "same owner returns the first request's submission (200); with another "
                    "request (publish aside) it is refused, 422 idempotency_key_reused."
                ),
                "security": secured,
                "parameters": [
                    {
                        "name": "Idempotency-Key",
                        "in": "header",
                        "required": False,
                        "schema": {"type": "string", "maxLength": 200},
                    },
                ],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["benchmark", "output"],
                                "properties": fields,
                            },
                        },
                        "multipart/form-data": {
                            "schema": {
                                "type": "object",
                                "required": ["output"],
                                "properties": form,
                            },
                        },
                    },
                },
                "responses": {
                    "201": {**shown, "description": "scored (and published when asked)"},
                    "200": {
                        **shown,
                        "description": "the submission of an earlier request "
                        "with the same Idempotency-Key",
                    },
                    "400": {
                        **error,
                        "description": "not JSON (or nested too deeply), a form that cannot "
                        "be read, a Content-Length that is no number, or no output",
                    },
                    "401": unauthorized,
                    "403": {
                        **error,
                        "description": "the owner may not publish (banned): "
                        "error.submission_id names the stored result",
                    },
                    "409": {
                        **error,
                        "description": "the Idempotency-Key's submission is gone (hidden)",
                    },
                    "413": {**error, "description": "a body over 20 MB"},
                    "422": {
                        **error,
                        "description": "a refused field (error.field names it), "
                        "an output no benchmark reads, or an Idempotency-Key sent before "
                        "with another request (idempotency_key_reused: "
                        "error.submission_id names its submission)",
                    },
                    "429": limited,
                    "503": {
                        **error,
                        "description": "the benchmark's key is not loaded yet (no_key), or "
                        "the database is unavailable: try again later",
                    },
                },
            }
        },
        "/api/v1/submissions/{id}": {
            "get": {
                "summary": "One of the token owner's submissions",
                "security": secured,
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}
                ],
                "responses": {
                    "200": {
                        "description": "the submission",
                        "content": {"application/json": {"schema": submission}},
                    },
                    "401": unauthorized,
                    "404": {**error, "description": "none of the token owner's"},
                    "429": limited,
                    "503": unavailable,
                },
            }
        },
        "/api/v1/me": {
            "get": {
                "summary": "The token's owner and their latest submissions",
                "security": secured,
                "responses": {
                    "200": {
                        "description": f"the latest {api.RECENT}, newest first",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["user_id", "submissions"],
                                    "properties": {
                                        "user_id": {"type": "integer"},
                                        "submissions": {
                                            "type": "array",
                                            "items": {"$ref": "#/components/schemas/Mine"},
                                        },
                                    },
                                }
                            }
                        },
                    },
                    "401": unauthorized,
                    "429": limited,
                    "503": unavailable,
                },
            }
        },
    }
    schemas = {
        "Error": {
            "type": "object",
            "required": ["error"],
            "properties": {
                "error": {
                    "type": "object",
                    "required": ["code", "message"],
                    "properties": {
                        "code": {"type": "string"},
                        "message": {"type": "string"},
                        "field": {"type": "string", "description": "the refused field"},
                        "submission_id": {
                            "type": "integer",
                            "description": "a publication refused after the output was "
                            "scored (daily_limit, banned_publish, ...): the submission stored, "
                            "private (GET /api/v1/submissions/{id}; the same request with the "
                            "same Idempotency-Key publishes it once the owner may)",
                        },
                    },
                }
            },
        },
        "Mine": {
            "type": "object",
            "description": "One of the owner's submissions, in short",
            "required": ["id", "benchmark", "published", "source"],
            "properties": {
                "id": {"type": "integer"},
                "benchmark": {"type": "string"},
                "model": {"type": ["string", "null"]},
                "mode": {"type": ["string", "null"]},
                "score": {"type": "number"},
                "created_at": {"type": "string", "format": "date-time"},
                "published": {"type": "boolean"},
                "source": {
                    "type": "string",
                    "enum": ["api", "chat"],
                    "description": "made through the API, or in the chat",
                },
            },
        },
        "Submission": {
            "type": "object",
            "description": "The score fields as `benchboard score --json` prints them "
            "(final_score etc., by benchmark), and these.",
            "required": ["id", "benchmark", "published", "url", "held"],
            "properties": {
                "id": {"type": "integer"},
                "benchmark": {"type": "string"},
                "model": {"type": ["string", "null"]},
                "mode": {"type": ["string", "null"]},
                "score": {"type": "number", "description": "the ranking figure"},
                "created_at": {"type": "string", "format": "date-time"},
                "published": {"type": "boolean"},
                "url": {
                    "type": ["string", "null"],
                    "description": "the result's page (/r/<token>) when published",
                },
                "held": {
                    "type": "boolean",
                    "description": "held for review by the copy check (its answers "
                    "match the public key, or another user's result): on no board until "
                    "an admin releases it",
                },
                "credit": {
                    "type": ["string", "null"],
                    "description": "the benchmark's credit and license, to quote with the score",
                },
            },
        },
    }
    spec = dict(spec)
    spec["info"] = {**spec.get("info", {}), "title": "Benchboard boards and API"}
    spec["paths"] = {**spec.get("paths", {}), **paths}
    components = dict(spec.get("components", {}))
    components["schemas"] = {**components.get("schemas", {}), **schemas}
    components["securitySchemes"] = {
        "bearer": {
            "type": "http",
            "scheme": "bearer",
            "description": "a personal token from the bot's /token (private chat)",
        }
    }
    spec["components"] = components
    return spec

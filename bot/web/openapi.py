"""The OpenAPI 3.1 description of the board downloads (CSV and JSON) at
``/openapi.json``; :func:`bot.web.api.describe` adds the submissions API to it. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scoring import Mode

from ..core import webboards
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
    error = {"description": "a bad filter, or a page past the last"}
    signed = {
        "type": "object",
        "required": ["benchmark", "score", "signature"],
        "description": "A published result, signed: signature is the base64 of the "
        "Ed25519 signature (the key at /signing-key) over the UTF-8 bytes of "
        'json.dumps(record_without_signature, sort_keys=True, separators=(",", ":"), '
        "ensure_ascii=False). Check one with `benchboard verify FILE.json`.",
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
                        "400": error,
                        "404": error,
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
                        "404": {"description": "hidden, withdrawn, or no such result"},
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
                        "400": error,
                        "404": error,
                    },
                }
            },
        },
        "components": {"schemas": {"Board": board, "Row": row, "SignedResult": signed}},
    }

"""Answers checked against ``/openapi.json``: the status is one the spec declares for
the path and method, the content type one it names, and the body valid against its
schema (OpenAPI 3.1 schemas are JSON Schema 2020-12; ``$ref``s resolve in the spec)."""

from __future__ import annotations

import json
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

SPEC_URI = "urn:benchboard:openapi"


def _pointer(*parts: str) -> str:
    return "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)


class SpecCheck:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        resource = Resource.from_contents(spec, default_specification=DRAFT202012)
        self.registry: Registry[Any] = Registry().with_resource(SPEC_URI, resource)

    def check(
        self, path: str, method: str, status: int, content_type: str | None, body: bytes
    ) -> None:
        """Raise ``AssertionError`` (saying what) when the answer is not as described."""
        item = self.spec["paths"].get(path)
        assert item is not None, f"{path}: not in the spec"
        operation = item.get(method.lower())
        if operation is None:  # a method the path does not take: 405, as an API error
            assert status == 405, f"{method} {path}: {status}, not 405"
            self._valid(json.loads(body), "components/schemas/Error", f"{method} {path} 405")
            return
        responses = operation["responses"]
        key = str(status) if str(status) in responses else "default"
        assert key in responses, f"{method} {path}: {status} is not declared ({list(responses)})"
        content = responses[key].get("content")
        if not content:
            return
        media = (content_type or "").split(";")[0].strip()
        assert media in content, f"{method} {path} {status}: {media!r} not in {list(content)}"
        if "schema" not in content[media]:
            return
        where = _pointer("paths", path, method.lower(), "responses", key, "content", media)
        self._valid(json.loads(body), f"{where}/schema", f"{method} {path} {status}")

    def _valid(self, data: Any, pointer: str, what: str) -> None:
        validator = Draft202012Validator({"$ref": f"{SPEC_URI}#/{pointer}"}, registry=self.registry)
        errors = sorted(validator.iter_errors(data), key=lambda e: list(e.path))
        assert not errors, f"{what}: " + "; ".join(
            f"{list(e.path)}: {e.message}" for e in errors[:5]
        )

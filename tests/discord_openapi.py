"""Discord's published OpenAPI description as a test oracle: every REST request the bot makes, checked.

``tests/fixtures/discord-openapi.json`` is ``specs/openapi.json`` of the repository ``discord/discord-api-spec``
at commit 74fda0fad044407ea280043a03ffc9bc64c4e49e, byte for byte (git blob
bbbd9bf789f5d3dacb74c697acf64c66fcf782bf). :class:`OpenAPICheck` finds the operation a request names
(method and path template: the most literal template that matches wins, as ``/messages/@original`` over
``/messages/{message_id}``) and validates, with ``jsonschema_rs`` (and ``jsonschema`` to explain a failure;
JSON Schema 2020-12, the dialect of OpenAPI 3.1, ``$ref`` resolved in the whole document):

- each path parameter against its schema (ids are snowflakes, tokens have a length limit);
- each query parameter: it must be one the operation declares, and its value must fit the schema read as a
  string, an integer or a boolean (a query string carries only text; Discord's API reference, "Boolean Query
  Strings": ``True``, ``true`` or ``1`` for true, ``False``, ``false`` or ``0`` for false);
- the JSON body (the ``payload_json`` part of a multipart upload) against the operation's
  ``application/json`` request body schema; a body sent to an operation that takes none, or none sent to
  one that requires it, is a finding too.

What it finds is a list of lines, one per problem, naming the request and the place in the body.

Where the description is stricter than Discord's documented behaviour, the check follows the documentation
(:data:`LENIENCIES`); the file itself is kept as published.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from bot.sandbox.fakecord import Req

SPEC_PATH = Path(__file__).parent / "fixtures" / "discord-openapi.json"
METHODS = ("get", "put", "post", "patch", "delete")
TRUE, FALSE = ("True", "true", "1"), ("False", "false", "0")

LENIENCIES: dict[str, tuple[str, dict[str, Any]]] = {
    "SnowflakeType": (
        "a snowflake is a 64-bit integer that Discord returns as a string and also takes as a JSON integer: "
        "the API reference's own upload example names a new file's attachment as {\"id\": 0}, and "
        "discord.py sends ids (recipient_id, allowed_mentions.users, attachments[].id) as integers",
        {"anyOf": [{"$ref": "#/components/schemas/SnowflakeType"},
                   {"type": "integer", "minimum": 0, "maximum": 2**63 - 1}]},
    ),
}
"""Schemas of the description widened to Discord's documented behaviour: name -> (why, the schema that
replaces it, where ``#/components/schemas/<name>`` means the published one)."""


class Schema:
    """One schema of the description, named by its JSON pointer (``$ref`` resolved in the whole document):
    decided by ``jsonschema_rs`` (compiled, fast), explained by ``jsonschema`` when it fails."""

    def __init__(self, root: dict[str, Any], *parts: str) -> None:
        escaped = (p.replace("~", "~0").replace("/", "~1") for p in parts)
        self._root = dict(root, **{"$ref": "#" + quote("/" + "/".join(escaped), safe="/~")})

    @cached_property
    def _fast(self) -> jsonschema_rs.Validator:
        return jsonschema_rs.validator_for(self._root)

    def is_valid(self, value: Any) -> bool:
        return bool(self._fast.is_valid(value))

    def errors(self, value: Any) -> list[ValidationError]:
        """Why ``value`` fails, in the order of the places in the value (slow: call it on a failure)."""
        found = Draft202012Validator(self._root).iter_errors(value)
        return sorted(found, key=lambda e: list(map(str, e.absolute_path)))


@dataclass(frozen=True)
class Operation:
    """One operation of the description: ``POST /channels/{channel_id}/messages``."""

    method: str
    template: str
    pattern: re.Pattern[str]
    path_params: dict[str, Schema]
    query_params: dict[str, Schema]
    body: Schema | None
    body_required: bool


class Description:
    """The operations of an OpenAPI 3.1 description, the most literal path template first, with
    :data:`LENIENCIES` applied."""

    def __init__(self, spec: dict[str, Any]) -> None:
        schemas = dict(spec["components"]["schemas"])
        for name, (_, schema) in LENIENCIES.items():
            schemas[f"{name}Published"] = schemas[name]
            schemas[name] = json.loads(json.dumps(schema).replace(
                f'"#/components/schemas/{name}"', f'"#/components/schemas/{name}Published"'))
        self._root = dict(spec, components=dict(spec["components"], schemas=schemas),
                          **{"$schema": "https://json-schema.org/draft/2020-12/schema"})
        self.operations: list[Operation] = []
        for template, item in spec["paths"].items():
            shared = item.get("parameters", [])
            for method in METHODS:
                if method in item:
                    self.operations.append(self._operation(method, template, shared, item[method]))
        # fewer parameters first, then more fixed text: /messages/@original before /messages/{message_id}
        self.operations.sort(key=lambda op: (op.template.count("{"), -len(re.sub(r"\{[^}]*\}", "", op.template))))

    def _operation(self, method: str, template: str, shared: list[dict[str, Any]], op: dict[str, Any]) -> Operation:
        path_params: dict[str, Schema] = {}
        query_params: dict[str, Schema] = {}
        for where, params in ((("paths", template, "parameters"), shared),
                              (("paths", template, method, "parameters"), op.get("parameters", []))):
            for k, param in enumerate(params):
                schema = Schema(self._root, *where, str(k), "schema")
                (path_params if param["in"] == "path" else query_params)[param["name"]] = schema
        body = None
        if "application/json" in op.get("requestBody", {}).get("content", {}):
            body = Schema(self._root, "paths", template, method, "requestBody", "content", "application/json",
                          "schema")
        regex = "".join(f"(?P<{m[1]}>[^/]+)" if m[1] else re.escape(m[2])
                        for m in re.finditer(r"\{(\w+)\}|([^{]+)", template))
        required = bool(op.get("requestBody", {}).get("required"))
        return Operation(method.upper(), template, re.compile(regex), path_params, query_params, body, required)

    def operation(self, method: str, path: str) -> Operation | None:
        """The operation ``method path`` names, or None if the description has no such route."""
        for op in self.operations:
            if op.method == method and op.pattern.fullmatch(path):
                return op
        return None


def _where(error: ValidationError) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path) or "(body)"


def _mismatch(errors: list[ValidationError], depth: int) -> bool:
    """Whether a branch of a union failed on the kind of thing the value is: its JSON type, or the
    ``type`` field that tells Discord's payloads apart (a callback, a component)."""
    return any((len(e.absolute_path) == depth and e.validator == "type")
               or (len(e.absolute_path) == depth + 1 and e.absolute_path[-1] == "type"
                   and e.validator in ("enum", "const"))
               for e in errors)


def _message(error: ValidationError) -> str:
    """The reason, from inside a failed union (anyOf/oneOf): the branch meant for a value of this
    kind, else the one that got furthest into the value."""
    while error.context:
        branches: dict[Any, list[ValidationError]] = {}
        for e in error.context:
            branches.setdefault(e.relative_schema_path[0], []).append(e)
        depth = len(error.absolute_path)
        meant = [b for b in branches.values() if not _mismatch(b, depth)]
        if not meant and len(branches) > 1:
            break  # no branch is meant for a value of this kind: the union's own message says most
        errors = max(meant or list(branches.values()), key=lambda b: max(len(e.absolute_path) for e in b))
        error = max(errors, key=lambda e: len(e.absolute_path))
    return f"{_where(error)}: {error.message[:300]}"


class OpenAPICheck:
    """Validates requests (:class:`bot.sandbox.fakecord.Req`) against an OpenAPI 3.1 description.

    Callable as a fake's request check: ``check(req)`` answers the problems found (an empty list for a
    request the description allows) and keeps them in :attr:`found`; :attr:`checked` counts requests.
    """

    def __init__(self, description: Description) -> None:
        self.description = description
        self.found: list[str] = []
        self.checked = 0
        self.by_operation: dict[str, int] = {}
        """How many requests named each operation (``POST /channels/{channel_id}/messages``)."""

    def problems(self, req: Req) -> Iterator[str]:
        """Every way ``req`` departs from the description."""
        what = f"{req.method} {req.path}"
        op = self.description.operation(req.method, req.path)
        if op is None:
            yield f"{what}: no such operation in Discord's OpenAPI description"
            return
        self.by_operation[f"{op.method} {op.template}"] = self.by_operation.get(f"{op.method} {op.template}", 0) + 1
        what = f"{op.method} {op.template} ({req.path})"
        match = op.pattern.fullmatch(req.path)
        assert match is not None
        for name, value in match.groupdict().items():
            if name in op.path_params and not op.path_params[name].is_valid(value):
                yield f"{what}: path parameter {name}={value!r} does not fit its schema"
        for name, value in req.query.items():
            if name not in op.query_params:
                yield f"{what}: query parameter {name!r} is not one the operation takes"
                continue
            readings: list[Any] = [value]
            if re.fullmatch(r"-?\d+", value):
                readings.append(int(value))
            if value in TRUE + FALSE:
                readings.append(value in TRUE)
            if not any(op.query_params[name].is_valid(r) for r in readings):
                yield f"{what}: query parameter {name}={value!r} does not fit its schema"
        if req.json is None:
            if op.body_required and not req.files:
                yield f"{what}: no body, but the operation requires one"
            return
        if op.body is None:
            yield f"{what}: a JSON body, but the operation takes none"
            return
        if not op.body.is_valid(req.json):
            errors = op.body.errors(req.json)
            yield from (f"{what}: {_message(error)}" for error in errors)
            if not errors:
                yield f"{what}: the body does not fit the request body schema"

    def __call__(self, req: Req) -> list[str]:
        self.checked += 1
        found = list(self.problems(req))
        self.found.extend(found)
        return found


@cache
def discord_api() -> Description:
    """Discord's description, kept in ``tests/fixtures`` (read once per process; its schemas are compiled
    when first used)."""
    return Description(json.loads(SPEC_PATH.read_text(encoding="utf-8")))

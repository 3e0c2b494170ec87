"""What the `spec-gen diff` tests share: a base document, mutations, and the case runner."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from spec_gen.diff import Change, diff_specs
from spec_gen.diff.rules import RULES

ROOT = Path(__file__).resolve().parents[3]

Mutation = Callable[[dict[str, Any]], None]
Case = tuple[str, "Mutation | None", Mutation, str, set[tuple[str, str]]]


def _json(value: Any) -> dict[str, Any]:
    return {"application/json": {"schema": value}}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


BASE: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Things", "version": "1"},
    "servers": [
        {"url": "https://{host}/api/v1", "variables": {"host": {"default": "api.invalid"}}}
    ],
    "security": [{"ApiKey": []}],
    "paths": {
        "/things": {
            "get": {
                "operationId": "list_things",
                "summary": "List things",
                "tags": ["things"],
                "x-tier": "read",
                "x-scope": "things:read",
                "x-lifecycle": "active",
                "parameters": [
                    {
                        "name": "page",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 1, "maximum": 100},
                    },
                    {"name": "status", "in": "query", "schema": {"enum": ["open", "closed"]}},
                    {"name": "q", "in": "query", "schema": {"type": "string", "maxLength": 50}},
                    {"$ref": "#/components/parameters/TargetOrgId"},
                ],
                "responses": {
                    "200": {"description": "Things.", "content": _json(_ref("ThingList"))},
                    "404": {"$ref": "#/components/responses/NotFound"},
                },
            },
            "post": {
                "operationId": "create_thing",
                "tags": ["things"],
                "x-tier": "write",
                "x-lifecycle": "active",
                "requestBody": {"required": True, "content": _json(_ref("ThingCreate"))},
                "responses": {
                    "201": {"description": "Created.", "content": _json(_ref("Thing"))},
                    "404": {"$ref": "#/components/responses/NotFound"},
                },
            },
        },
        "/things/{thing_id}": {
            "parameters": [
                {"name": "thing_id", "in": "path", "required": True, "schema": {"type": "integer"}}
            ],
            "get": {
                "operationId": "get_thing",
                "tags": ["things"],
                "x-tier": "read",
                "x-lifecycle": "active",
                "responses": {"200": {"description": "A thing.", "content": _json(_ref("Thing"))}},
            },
            "delete": {
                "operationId": "delete_thing",
                "tags": ["things"],
                "x-tier": "write",
                "x-lifecycle": "active",
                "responses": {"204": {"description": "Deleted."}},
            },
        },
        "/api-keys": {
            "servers": [
                {"url": "https://{host}/v1", "variables": {"host": {"default": "api.invalid"}}}
            ],
            "get": {
                "operationId": "list_api_keys",
                "tags": ["api-keys"],
                "x-tier": "read",
                "x-lifecycle": "active",
                "responses": {"200": {"description": "Keys.", "content": _json({"type": "array"})}},
            },
        },
    },
    "components": {
        "securitySchemes": {"ApiKey": {"type": "http", "scheme": "bearer"}},
        "parameters": {
            "TargetOrgId": {"name": "X-Target-Org-Id", "in": "header", "schema": {"type": "string"}}
        },
        "responses": {
            "NotFound": {"description": "Not found.", "content": _json(_ref("Error"))},
        },
        "schemas": {
            "Error": {
                "type": "object",
                "properties": {"detail": {"type": "string"}},
                "required": ["detail"],
            },
            "Status": {"type": "string", "enum": ["open", "closed"]},
            "Owner": {
                "type": "object",
                "properties": {"email": {"type": "string"}, "name": {"type": "string"}},
                "required": ["email"],
            },
            "Thing": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "name": {"type": "string", "maxLength": 100},
                    "status": _ref("Status"),
                    "note": {"type": ["string", "null"]},
                    "owner": _ref("Owner"),
                    "parent": _ref("Thing"),  # recursive
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["id", "name", "status"],
            },
            "ThingList": {
                "type": "object",
                "properties": {"data": {"type": "array", "items": _ref("Thing")}},
                "required": ["data"],
            },
            "ThingCreate": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "maxLength": 100},
                    "status": _ref("Status"),
                    "owner": _ref("Owner"),
                    "note": {"type": "string"},
                },
                "required": ["name"],
            },
        },
    },
}

# where things are in BASE
LIST = ("paths", "/things", "get")
CREATE = ("paths", "/things", "post")
ONE = ("paths", "/things/{thing_id}")
GET_ONE = (*ONE, "get")
DELETE_ONE = (*ONE, "delete")
KEYS = ("paths", "/api-keys")
SCHEMAS = ("components", "schemas")
THING = (*SCHEMAS, "Thing")
CREATE_BODY = (*SCHEMAS, "ThingCreate")
PAGE = (*LIST, "parameters", 0)
STATUS_PARAM = (*LIST, "parameters", 1)
Q = (*LIST, "parameters", 2)

# how operations are named in the report
OP_LIST = "GET /api/v1/things"
OP_CREATE = "POST /api/v1/things"
OP_GET = "GET /api/v1/things/{thing_id}"
OP_DELETE = "DELETE /api/v1/things/{thing_id}"
OP_KEYS = "GET /v1/api-keys"
THING_READERS = (OP_LIST, OP_CREATE, OP_GET)  # every operation returning a Thing


def _walk(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def set_(path: tuple[Any, ...], value: Any) -> Mutation:
    def mutate(doc: dict[str, Any]) -> None:
        _walk(doc, path[:-1])[path[-1]] = copy.deepcopy(value)

    return mutate


def drop(path: tuple[Any, ...]) -> Mutation:
    def mutate(doc: dict[str, Any]) -> None:
        del _walk(doc, path[:-1])[path[-1]]

    return mutate


def push(path: tuple[Any, ...], value: Any) -> Mutation:
    def mutate(doc: dict[str, Any]) -> None:
        _walk(doc, path).append(copy.deepcopy(value))

    return mutate


def both(*mutations: Mutation) -> Mutation:
    def mutate(doc: dict[str, Any]) -> None:
        for mutation in mutations:
            mutation(doc)

    return mutate


def write_specs(
    tmp_path: Path, mutation: Mutation, before: Mutation | None = None
) -> tuple[Path, Path]:
    """BASE (after `before`) as the old spec, and that with `mutation` applied as the new."""
    old = copy.deepcopy(BASE)
    if before is not None:
        before(old)
    new = copy.deepcopy(old)
    mutation(new)
    tmp_path.mkdir(parents=True, exist_ok=True)
    old_path, new_path = tmp_path / "old.json", tmp_path / "new.json"
    old_path.write_text(json.dumps(old, indent=1))
    new_path.write_text(json.dumps(new, indent=1))
    return old_path, new_path


def changes_of(tmp_path: Path, mutation: Mutation, before: Mutation | None = None) -> list[Change]:
    return diff_specs(*write_specs(tmp_path, mutation, before))


def found(changes: list[Change]) -> set[tuple[str, str]]:
    return {(c.operation, c.rule) for c in changes}


def on(rule: str, *operations: str) -> set[tuple[str, str]]:
    return {(operation, rule) for operation in operations}


NEW_REQUIRED_PARAM = {
    "name": "region",
    "in": "query",
    "required": True,
    "schema": {"type": "string"},
}
NEW_OPTIONAL_PARAM = {"name": "region", "in": "query", "schema": {"type": "string"}}
WIDGETS = {
    "get": {
        "operationId": "list_widgets",
        "x-tier": "read",
        "x-lifecycle": "active",
        "responses": {"200": {"description": "Widgets."}},
    }
}
RETRY_AFTER = {"Retry-After": {"required": True, "schema": {"type": "integer"}}}


def check_case(
    tmp_path: Path,
    before: Mutation | None,
    mutation: Mutation,
    verdict: str,
    expected: set[tuple[str, str]],
) -> None:
    """The mutation yields exactly EXPECTED, every change at VERDICT (unless "mixed")."""
    changes = changes_of(tmp_path, mutation, before)
    assert found(changes) == expected
    if verdict != "mixed":
        assert {c.level for c in changes} == ({verdict} if expected else set())
    for change in changes:
        assert change.level == RULES[change.rule].level
        assert change.message

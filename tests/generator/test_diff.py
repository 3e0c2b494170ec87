"""`spec-gen diff`: one test per rule (verdict and rule id), the CLI's exit codes, git revisions."""

from __future__ import annotations

import copy
import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from spec_gen.cli import main
from spec_gen.diff import Change, diff_specs
from spec_gen.diff_rules import (
    CONSTRAINT_CHECKS,
    LEVELS,
    OPERATION_RULES,
    RULES,
    SCHEMA_CHECKS,
    rules_markdown,
)

ROOT = Path(__file__).resolve().parents[2]

Mutation = Callable[[dict[str, Any]], None]


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

# (id, before, mutation, expected verdict of every change, expected (operation, rule) pairs)
CASES: list[tuple[str, Mutation | None, Mutation, str, set[tuple[str, str]]]] = [
    # ---------------------------------------------------------------- breaking
    (
        "operation removed",
        None,
        drop(DELETE_ONE),
        "breaking",
        on("api-removed-without-deprecation", OP_DELETE),
    ),
    (
        "path removed",
        None,
        drop(KEYS),
        "breaking",
        on("api-path-removed-without-deprecation", OP_KEYS),
    ),
    (
        "path renamed, operationIds kept",
        None,
        lambda d: d["paths"].__setitem__("/items/{thing_id}", d["paths"].pop("/things/{thing_id}")),
        "breaking",
        on("api-operation-moved", OP_GET, OP_DELETE),
    ),
    (
        "method changed, operationId kept",
        None,
        lambda d: _walk(d, ONE).__setitem__("post", _walk(d, ONE).pop("delete")),
        "breaking",
        on("api-operation-moved", OP_DELETE),
    ),
    (
        "server prefix changed (api-keys from /v1 to /api/v1)",
        None,
        drop((*KEYS, "servers")),
        "breaking",
        on("api-operation-moved", OP_KEYS),
    ),
    ("parameter removed", None, drop(Q), "breaking", on("request-parameter-removed", OP_LIST)),
    (
        "new required parameter",
        None,
        push((*LIST, "parameters"), NEW_REQUIRED_PARAM),
        "breaking",
        on("new-required-request-parameter", OP_LIST),
    ),
    (
        "parameter became required",
        None,
        set_((*Q, "required"), True),
        "breaking",
        on("request-parameter-became-required", OP_LIST),
    ),
    (
        "parameter type string to integer",
        None,
        set_((*Q, "schema"), {"type": "integer"}),
        "breaking",
        on("request-parameter-type-changed", OP_LIST),
    ),
    (
        "parameter type integer to string",
        None,
        set_((*PAGE, "schema", "type"), "string"),
        "breaking",
        on("request-parameter-type-changed", OP_LIST),
    ),
    (
        "path parameter format narrowed",
        None,
        set_((*ONE, "parameters", 0, "schema", "format"), "int32"),
        "breaking",
        on("request-parameter-type-changed", OP_GET, OP_DELETE),
    ),
    (
        "parameter maxLength decreased",
        None,
        set_((*Q, "schema", "maxLength"), 20),
        "breaking",
        on("request-parameter-max-length-decreased", OP_LIST),
    ),
    (
        "parameter minLength set",
        None,
        set_((*Q, "schema", "minLength"), 3),
        "breaking",
        on("request-parameter-min-length-set", OP_LIST),
    ),
    (
        "parameter minimum increased",
        None,
        set_((*PAGE, "schema", "minimum"), 2),
        "breaking",
        on("request-parameter-min-increased", OP_LIST),
    ),
    (
        "parameter maximum decreased",
        None,
        set_((*PAGE, "schema", "maximum"), 50),
        "breaking",
        on("request-parameter-max-decreased", OP_LIST),
    ),
    (
        "parameter enum value removed",
        None,
        set_((*STATUS_PARAM, "schema", "enum"), ["open"]),
        "breaking",
        on("request-parameter-enum-value-removed", OP_LIST),
    ),
    (
        "parameter pattern added",
        None,
        set_((*Q, "schema", "pattern"), "^[a-z]+$"),
        "breaking",
        on("request-parameter-pattern-added", OP_LIST),
    ),
    (
        "new required request property",
        None,
        both(
            set_((*CREATE_BODY, "properties", "kind"), {"type": "string"}),
            push((*CREATE_BODY, "required"), "kind"),
        ),
        "breaking",
        on("new-required-request-property", OP_CREATE),
    ),
    (
        "request property became required",
        None,
        push((*CREATE_BODY, "required"), "note"),
        "breaking",
        on("request-property-became-required", OP_CREATE),
    ),
    (
        "request body became required",
        lambda d: _walk(d, CREATE)["requestBody"].__setitem__("required", False),
        set_((*CREATE, "requestBody", "required"), True),
        "breaking",
        on("request-body-became-required", OP_CREATE),
    ),
    (
        "required request body added",
        None,
        set_((*DELETE_ONE, "requestBody"), {"required": True, "content": _json(_ref("Owner"))}),
        "breaking",
        on("added-required-request-body", OP_DELETE),
    ),
    (
        "request body removed",
        None,
        drop((*CREATE, "requestBody")),
        "breaking",
        on("request-body-removed", OP_CREATE),
    ),
    (
        "request body media type removed",
        set_((*CREATE, "requestBody", "content", "text/plain"), {"schema": {"type": "string"}}),
        drop((*CREATE, "requestBody", "content", "text/plain")),
        "breaking",
        on("request-body-media-type-removed", OP_CREATE),
    ),
    (
        "request property type changed",
        None,
        set_((*CREATE_BODY, "properties", "note", "type"), "integer"),
        "breaking",
        on("request-property-type-changed", OP_CREATE),
    ),
    (
        "request body type changed (object to array)",
        None,
        set_(
            (*CREATE, "requestBody", "content"),
            _json({"type": "array", "items": _ref("ThingCreate")}),
        ),
        "breaking",
        on("request-body-type-changed", OP_CREATE),
    ),
    (
        "nested request property (through $ref) became required",
        None,
        push((*SCHEMAS, "Owner", "required"), "name"),
        "mixed",
        on("request-property-became-required", OP_CREATE)
        | on("response-property-became-required", *THING_READERS),
    ),
    (
        "response required property removed",
        None,
        both(drop((*THING, "properties", "name")), set_((*THING, "required"), ["id", "status"])),
        "breaking",
        on("response-required-property-removed", *THING_READERS),
    ),
    (
        "response property became optional",
        None,
        set_((*THING, "required"), ["id", "name"]),
        "breaking",
        on("response-property-became-optional", *THING_READERS),
    ),
    (
        "response property became nullable",
        None,
        set_((*THING, "properties", "name", "type"), ["string", "null"]),
        "breaking",
        on("response-property-became-nullable", *THING_READERS),
    ),
    (
        "response property type changed in array items",
        None,
        set_((*THING, "properties", "tags", "items"), {"type": "integer"}),
        "breaking",
        on("response-property-type-changed", *THING_READERS),
    ),
    (
        "response maxLength increased",
        None,
        set_((*THING, "properties", "name", "maxLength"), 200),
        "breaking",
        on("response-property-max-length-increased", *THING_READERS),
    ),
    (
        "response body type changed",
        None,
        set_((*GET_ONE, "responses", "200", "content"), _json({"type": "string"})),
        "breaking",
        on("response-body-type-changed", OP_GET),
    ),
    (
        "response oneOf branch added",
        lambda d: _walk(d, THING)["properties"].__setitem__(
            "owner", {"oneOf": [_ref("Owner"), _ref("Error")]}
        ),
        push((*THING, "properties", "owner", "oneOf"), _ref("Status")),
        "breaking",
        on("response-property-one-of-added", *THING_READERS),
    ),
    (
        "success status removed",
        None,
        drop((*GET_ONE, "responses", "200")),
        "breaking",
        on("response-success-status-removed", OP_GET),
    ),
    (
        "response media type removed",
        set_((*GET_ONE, "responses", "200", "content", "text/csv"), {"schema": {}}),
        drop((*GET_ONE, "responses", "200", "content", "text/csv")),
        "breaking",
        on("response-media-type-removed", OP_GET),
    ),
    (
        "required response header removed",
        lambda d: _walk(d, DELETE_ONE)["responses"]["204"].__setitem__("headers", RETRY_AFTER),
        drop((*DELETE_ONE, "responses", "204", "headers")),
        "breaking",
        on("required-response-header-removed", OP_DELETE),
    ),
    (
        "tier raised",
        None,
        set_((*LIST, "x-tier"), "billable"),
        "breaking",
        on("api-tier-raised", OP_LIST),
    ),
    (
        "scope added",
        None,
        set_((*GET_ONE, "x-scope"), "things:read"),
        "breaking",
        on("api-scope-added", OP_GET),
    ),
    (
        "scope changed",
        None,
        set_((*LIST, "x-scope"), "things:admin"),
        "breaking",
        on("api-scope-changed", OP_LIST),
    ),
    (
        "lifecycle active to preview",
        None,
        set_((*LIST, "x-lifecycle"), "preview"),
        "breaking",
        on("api-lifecycle-became-preview", OP_LIST),
    ),
    (
        "feature flag added",
        None,
        set_((*LIST, "x-feature-flag"), "THINGS_V2"),
        "breaking",
        on("api-feature-flag-added", OP_LIST),
    ),
    (
        "anonymous operation now needs a key",
        set_((*LIST, "security"), []),
        drop((*LIST, "security")),
        "breaking",
        on("api-security-became-required", OP_LIST),
    ),
    (
        "security scope added",
        None,
        set_((*LIST, "security"), [{"ApiKey": ["admin"]}]),
        "breaking",
        on("api-security-scope-added", OP_LIST),
    ),
    (
        "tier changed to one the project does not know",
        None,
        set_((*LIST, "x-tier"), "admin"),
        "breaking",
        on("api-tier-changed", OP_LIST),
    ),
    (
        "feature flag changed",
        set_((*LIST, "x-feature-flag"), "THINGS_V2"),
        set_((*LIST, "x-feature-flag"), "THINGS_V3"),
        "breaking",
        on("api-feature-flag-changed", OP_LIST),
    ),
    (
        "security alternative removed",
        set_((*LIST, "security"), [{"ApiKey": []}, {"Session": []}]),
        set_((*LIST, "security"), [{"ApiKey": []}]),
        "breaking",
        on("api-security-removed", OP_LIST),
    ),
    (
        "required response header became optional",
        lambda d: _walk(d, DELETE_ONE)["responses"]["204"].__setitem__("headers", RETRY_AFTER),
        set_((*DELETE_ONE, "responses", "204", "headers", "Retry-After", "required"), False),
        "breaking",
        on("response-header-became-optional", OP_DELETE),
    ),
    (
        "request property no longer nullable",
        set_((*CREATE_BODY, "properties", "note", "type"), ["string", "null"]),
        set_((*CREATE_BODY, "properties", "note", "type"), "string"),
        "breaking",
        on("request-property-became-not-nullable", OP_CREATE),
    ),
    (
        "request property restricted to an enum",
        None,
        set_((*CREATE_BODY, "properties", "note", "enum"), ["a", "b"]),
        "breaking",
        on("request-property-became-enum", OP_CREATE),
    ),
    (
        "response pattern removed",
        set_((*THING, "properties", "name", "pattern"), "^[A-Z]"),
        drop((*THING, "properties", "name", "pattern")),
        "breaking",
        on("response-property-pattern-removed", *THING_READERS),
    ),
    (
        "request anyOf branch removed (null no longer accepted)",
        set_((*CREATE_BODY, "properties", "owner"), {"anyOf": [_ref("Owner"), {"type": "null"}]}),
        set_((*CREATE_BODY, "properties", "owner"), {"anyOf": [_ref("Owner")]}),
        "breaking",
        on("request-property-any-of-removed", OP_CREATE),
    ),
    # ---------------------------------------------------------------- enum values: by direction
    (
        "shared enum value removed: breaking in requests only",
        None,
        set_((*SCHEMAS, "Status", "enum"), ["open"]),
        "mixed",
        on("request-property-enum-value-removed", OP_CREATE)
        | on("response-property-enum-value-removed", *THING_READERS),
    ),
    (
        "shared enum value added: breaking in responses only",
        None,
        push((*SCHEMAS, "Status", "enum"), "archived"),
        "mixed",
        on("request-property-enum-value-added", OP_CREATE)
        | on("response-property-enum-value-added", *THING_READERS),
    ),
    # a removed or renamed field is breaking on either side (the rule; oasdiff: WARN)
    (
        "request property removed",
        None,
        drop((*CREATE_BODY, "properties", "note")),
        "breaking",
        on("request-property-removed", OP_CREATE),
    ),
    (
        "optional response property removed",
        None,
        drop((*THING, "properties", "tags")),
        "breaking",
        on("response-optional-property-removed", *THING_READERS),
    ),
    # ---------------------------------------------------------------- warnings
    (
        "parameter pattern changed",
        set_((*Q, "schema", "pattern"), "^[a-z]+$"),
        set_((*Q, "schema", "pattern"), "^[a-z0-9]+$"),
        "warning",
        on("request-parameter-pattern-changed", OP_LIST),
    ),
    # ---------------------------------------------------------------- non-breaking
    (
        "new operation",
        None,
        set_(("paths", "/widgets"), WIDGETS),
        "non-breaking",
        on("endpoint-added", "GET /api/v1/widgets"),
    ),
    (
        "new optional parameter",
        None,
        push((*LIST, "parameters"), NEW_OPTIONAL_PARAM),
        "non-breaking",
        on("new-optional-request-parameter", OP_LIST),
    ),
    (
        "parameter became optional",
        set_((*Q, "required"), True),
        set_((*Q, "required"), False),
        "non-breaking",
        on("request-parameter-became-optional", OP_LIST),
    ),
    (
        "parameter enum value added",
        None,
        push((*STATUS_PARAM, "schema", "enum"), "archived"),
        "non-breaking",
        on("request-parameter-enum-value-added", OP_LIST),
    ),
    (
        "parameter type widened (integer to number)",
        None,
        set_((*PAGE, "schema", "type"), "number"),
        "non-breaking",
        on("request-parameter-type-generalized", OP_LIST),
    ),
    (
        "parameter maxLength increased",
        None,
        set_((*Q, "schema", "maxLength"), 500),
        "non-breaking",
        on("request-parameter-max-length-increased", OP_LIST),
    ),
    (
        "parameter deprecated",
        None,
        set_((*Q, "deprecated"), True),
        "non-breaking",
        on("request-parameter-deprecated", OP_LIST),
    ),
    (
        "new optional request property",
        None,
        set_((*CREATE_BODY, "properties", "colour"), {"type": "string"}),
        "non-breaking",
        on("new-optional-request-property", OP_CREATE),
    ),
    (
        "request property became optional",
        None,
        set_((*CREATE_BODY, "required"), []),
        "non-breaking",
        on("request-property-became-optional", OP_CREATE),
    ),
    (
        "readOnly property added as required to a request: not sent, not breaking",
        None,
        both(
            set_((*CREATE_BODY, "properties", "id"), {"type": "integer", "readOnly": True}),
            push((*CREATE_BODY, "required"), "id"),
        ),
        "non-breaking",
        set(),
    ),
    (
        "new response property",
        None,
        set_((*THING, "properties", "colour"), {"type": "string"}),
        "non-breaking",
        on("response-optional-property-added", *THING_READERS),
    ),
    (
        "response property became required",
        None,
        push((*THING, "required"), "note"),
        "non-breaking",
        on("response-property-became-required", *THING_READERS),
    ),
    (
        "response type narrowed (format added)",
        None,
        set_((*THING, "properties", "id", "format"), "int64"),
        "non-breaking",
        on("response-property-type-specialized", *THING_READERS),
    ),
    (
        "error status removed",
        None,
        drop((*LIST, "responses", "404")),
        "non-breaking",
        on("response-non-success-status-removed", OP_LIST),
    ),
    (
        "error status added",
        None,
        set_((*LIST, "responses", "429"), {"description": "Slow down."}),
        "non-breaking",
        on("response-non-success-status-added", OP_LIST),
    ),
    (
        "success status added",
        None,
        set_((*DELETE_ONE, "responses", "200"), {"description": "Deleted, with a body."}),
        "non-breaking",
        on("response-success-status-added", OP_DELETE),
    ),
    (
        "summary and description changed",
        None,
        both(set_((*LIST, "summary"), "Things"), set_((*LIST, "description"), "All of them.")),
        "non-breaking",
        on("api-summary-changed", OP_LIST) | on("api-description-changed", OP_LIST),
    ),
    (
        "operation deprecated",
        None,
        set_((*LIST, "deprecated"), True),
        "non-breaking",
        on("endpoint-deprecated", OP_LIST),
    ),
    (
        "deprecated operation removed",
        set_((*DELETE_ONE, "deprecated"), True),
        drop(DELETE_ONE),
        "non-breaking",
        on("api-removed-with-deprecation", OP_DELETE),
    ),
    (
        "operationId changed",
        None,
        set_((*LIST, "operationId"), "list_all_things"),
        "non-breaking",
        on("api-operation-id-changed", OP_LIST),
    ),
    (
        "tier lowered",
        None,
        set_((*CREATE, "x-tier"), "read"),
        "non-breaking",
        on("api-tier-lowered", OP_CREATE),
    ),
    (
        "scope removed",
        None,
        drop((*LIST, "x-scope")),
        "non-breaking",
        on("api-scope-removed", OP_LIST),
    ),
    (
        "lifecycle preview to active",
        set_((*LIST, "x-lifecycle"), "preview"),
        set_((*LIST, "x-lifecycle"), "active"),
        "non-breaking",
        on("api-lifecycle-became-active", OP_LIST),
    ),
    (
        "feature flag removed",
        set_((*LIST, "x-feature-flag"), "THINGS_V2"),
        drop((*LIST, "x-feature-flag")),
        "non-breaking",
        on("api-feature-flag-removed", OP_LIST),
    ),
    (
        "operation no longer deprecated",
        set_((*LIST, "deprecated"), True),
        drop((*LIST, "deprecated")),
        "non-breaking",
        on("endpoint-reactivated", OP_LIST),
    ),
    (
        "anonymous calls allowed",
        None,
        set_((*LIST, "security"), []),
        "non-breaking",
        on("api-security-became-optional", OP_LIST),
    ),
    (
        "security alternative added",
        None,
        set_((*LIST, "security"), [{"ApiKey": []}, {"Session": []}]),
        "non-breaking",
        on("api-security-added", OP_LIST),
    ),
    (
        "security scope removed",
        set_((*LIST, "security"), [{"ApiKey": ["admin"]}]),
        set_((*LIST, "security"), [{"ApiKey": []}]),
        "non-breaking",
        on("api-security-scope-removed", OP_LIST),
    ),
    (
        "deprecated parameter removed",
        set_((*Q, "deprecated"), True),
        drop(Q),
        "non-breaking",
        on("request-parameter-removed-with-deprecation", OP_LIST),
    ),
    (
        "optional request body added",
        None,
        set_((*DELETE_ONE, "requestBody"), {"content": _json(_ref("Owner"))}),
        "non-breaking",
        on("added-optional-request-body", OP_DELETE),
    ),
    (
        "request body became optional",
        None,
        set_((*CREATE, "requestBody", "required"), False),
        "non-breaking",
        on("request-body-became-optional", OP_CREATE),
    ),
    (
        "request body media type added",
        None,
        set_((*CREATE, "requestBody", "content", "text/plain"), {"schema": {"type": "string"}}),
        "non-breaking",
        on("request-body-media-type-added", OP_CREATE),
    ),
    (
        "request anyOf branch added",
        set_((*CREATE_BODY, "properties", "owner"), {"anyOf": [_ref("Owner")]}),
        set_((*CREATE_BODY, "properties", "owner"), {"anyOf": [_ref("Owner"), {"type": "null"}]}),
        "non-breaking",
        on("request-property-any-of-added", OP_CREATE),
    ),
    (
        "parameter pattern removed",
        set_((*Q, "schema", "pattern"), "^[a-z]+$"),
        drop((*Q, "schema", "pattern")),
        "non-breaking",
        on("request-parameter-pattern-removed", OP_LIST),
    ),
    (
        "new required response property",
        None,
        both(
            set_((*THING, "properties", "colour"), {"type": "string"}),
            push((*THING, "required"), "colour"),
        ),
        "non-breaking",
        on("response-required-property-added", *THING_READERS),
    ),
    (
        "response oneOf branch removed",
        set_((*THING, "properties", "owner"), {"oneOf": [_ref("Owner"), _ref("Error")]}),
        set_((*THING, "properties", "owner"), {"oneOf": [_ref("Owner")]}),
        "non-breaking",
        on("response-property-one-of-removed", *THING_READERS),
    ),
    (
        "response media type added",
        None,
        set_((*GET_ONE, "responses", "200", "content", "text/csv"), {"schema": {}}),
        "non-breaking",
        on("response-media-type-added", OP_GET),
    ),
    (
        "optional response header removed",
        lambda d: _walk(d, DELETE_ONE)["responses"]["204"].__setitem__(
            "headers", {"X-Trace": {"schema": {"type": "string"}}}
        ),
        drop((*DELETE_ONE, "responses", "204", "headers")),
        "non-breaking",
        on("optional-response-header-removed", OP_DELETE),
    ),
    (
        "response header added",
        None,
        set_((*DELETE_ONE, "responses", "204", "headers"), RETRY_AFTER),
        "non-breaking",
        on("response-header-added", OP_DELETE),
    ),
    (
        "path parameter renamed: the same endpoint",
        None,
        lambda d: d["paths"].__setitem__(
            "/things/{id}",
            json.loads(json.dumps(d["paths"].pop("/things/{thing_id}")).replace("thing_id", "id")),
        ),
        "non-breaking",
        set(),
    ),
    (
        "schema reached through allOf: a new required request property",
        lambda d: _walk(d, CREATE)["requestBody"]["content"]["application/json"].__setitem__(
            "schema", {"allOf": [_ref("ThingCreate")]}
        ),
        both(
            set_((*CREATE_BODY, "properties", "kind"), {"type": "string"}),
            push((*CREATE_BODY, "required"), "kind"),
        ),
        "breaking",
        on("new-required-request-property", OP_CREATE),
    ),
]


@pytest.mark.parametrize(
    ("before", "mutation", "verdict", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_rule(
    tmp_path: Path,
    before: Mutation | None,
    mutation: Mutation,
    verdict: str,
    expected: set[tuple[str, str]],
) -> None:
    changes = changes_of(tmp_path, mutation, before)
    assert found(changes) == expected
    if verdict != "mixed":
        assert {c.level for c in changes} == ({verdict} if expected else set())
    for change in changes:
        assert change.level == RULES[change.rule].level
        assert change.message


def test_every_rule_has_a_case(tmp_path: Path) -> None:
    """Each operation rule and each schema check is exercised by at least one case above."""
    exercised = {
        change.rule
        for index, (_, before, mutation, _, _) in enumerate(CASES)
        for change in changes_of(tmp_path / str(index), mutation, before)
    }
    assert [r.id for r in OPERATION_RULES if r.id not in exercised] == []
    checks = [*SCHEMA_CHECKS, CONSTRAINT_CHECKS[0], CONSTRAINT_CHECKS[1]]
    assert [c.suffix for c in checks if not any(r.endswith(c.suffix) for r in exercised)] == []


def test_enum_direction_verdicts(tmp_path: Path) -> None:
    """One shared enum: a removed value breaks the request, an added value the responses."""
    removed = changes_of(tmp_path, set_((*SCHEMAS, "Status", "enum"), ["open"]))
    assert {(c.operation, c.level) for c in removed} == {(OP_CREATE, "breaking")} | {
        (op, "non-breaking") for op in THING_READERS
    }
    added = changes_of(tmp_path, push((*SCHEMAS, "Status", "enum"), "archived"))
    assert {(c.operation, c.level) for c in added} == {(OP_CREATE, "non-breaking")} | {
        (op, "breaking") for op in THING_READERS
    }


def test_nested_property_names_and_recursion(tmp_path: Path) -> None:
    """Nested objects and array items are named by path; the recursive `parent` is not re-entered."""
    changes = changes_of(tmp_path, push((*SCHEMAS, "Owner", "required"), "name"))
    assert {(c.operation, c.message) for c in changes} == {
        (OP_LIST, "response property `data[].owner.name` (200) became required"),
        (OP_CREATE, "request property `owner.name` became required"),
        (OP_CREATE, "response property `owner.name` (201) became required"),
        (OP_GET, "response property `owner.name` (200) became required"),
    }


def test_identical_documents_have_no_changes(tmp_path: Path) -> None:
    assert changes_of(tmp_path, lambda d: None) == []


def test_project_spec_against_itself_has_no_changes() -> None:
    spec = ROOT / "spec" / "openapi.yaml"
    assert diff_specs(spec, spec) == []


def test_report_order_is_breaking_first_and_stable(tmp_path: Path) -> None:
    before = set_((*Q, "schema", "pattern"), "^[a-z]+$")
    mutation = both(
        set_(("paths", "/widgets"), WIDGETS),
        set_((*Q, "schema", "pattern"), "^[a-z0-9]+$"),
        set_((*LIST, "x-tier"), "write"),
    )
    first = changes_of(tmp_path, mutation, before)
    second = changes_of(tmp_path, mutation, before)
    assert first == second
    levels = [c.level for c in first]
    assert levels == sorted(levels, key=LEVELS.index)
    assert levels[0] == "breaking" and levels[-1] == "non-breaking" and "warning" in levels


def test_rule_ids_are_kebab_case_with_known_verdicts() -> None:
    for rule in RULES.values():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.id), rule.id
        assert rule.level in LEVELS
    assert RULES["request-parameter-removed"].level == "breaking"
    assert RULES["response-property-enum-value-added"].level == "breaking"
    assert RULES["request-property-enum-value-added"].level == "non-breaking"
    assert RULES["response-non-success-status-removed"].level == "non-breaking"


def test_readme_lists_the_rules_table() -> None:
    assert rules_markdown() in (ROOT / "README.md").read_text()


# -- the command --------------------------------------------------------------------------


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["diff", *args])
    return result.exit_code, result.output


def test_cli_exit_0_without_fail_on_even_when_breaking(tmp_path: Path) -> None:
    old, new = write_specs(tmp_path, drop(DELETE_ONE))
    code, out = run(str(old), str(new))
    assert code == 0, out
    assert out.startswith("## API changes: 1 breaking, 0 warnings, 0 non-breaking\n")
    assert "### Breaking (1)" in out
    assert "| `DELETE /api/v1/things/{thing_id}` | `api-removed-without-deprecation` |" in out


def test_cli_fail_on_breaking_exits_1_on_a_breaking_change(tmp_path: Path) -> None:
    old, new = write_specs(tmp_path, drop(Q))
    code, out = run(str(old), str(new), "--fail-on", "breaking")
    assert code == 1, out
    assert "`request-parameter-removed`" in out


def test_cli_fail_on_breaking_exits_0_on_warnings_and_additions(tmp_path: Path) -> None:
    before = set_((*Q, "schema", "pattern"), "^[a-z]+$")
    mutation = both(set_((*Q, "schema", "pattern"), "^[a-z0-9]+$"), set_(("paths", "/widgets"), WIDGETS))
    old, new = write_specs(tmp_path, mutation, before)
    code, out = run(str(old), str(new), "--fail-on", "breaking")
    assert code == 0, out
    assert "### Warnings (1)" in out and "### Non-breaking (1)" in out
    code, out = run(str(old), str(new), "--fail-on", "warning")
    assert code == 1, out


def test_cli_json_format(tmp_path: Path) -> None:
    old, new = write_specs(tmp_path, both(drop(Q), push((*LIST, "parameters"), NEW_OPTIONAL_PARAM)))
    code, out = run(str(old), str(new), "--format", "json")
    assert code == 0, out
    report = json.loads(out)
    assert report["summary"] == {"breaking": 1, "warning": 0, "non-breaking": 1}
    assert [(c["level"], c["rule"], c["operation"]) for c in report["changes"]] == [
        ("breaking", "request-parameter-removed", OP_LIST),
        ("non-breaking", "new-optional-request-parameter", OP_LIST),
    ]
    assert report["changes"][0]["method"] == "GET"
    assert report["changes"][0]["path"] == "/api/v1/things"


def test_cli_no_changes(tmp_path: Path) -> None:
    old, new = write_specs(tmp_path, lambda d: None)
    code, out = run(str(old), str(new), "--fail-on", "breaking")
    assert code == 0
    assert "No changes to the API." in out


def test_cli_bad_argument_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    old, _ = write_specs(tmp_path, lambda d: None)
    code, out = run(str(old), "no-such-thing")
    assert code == 2
    assert "neither a file nor a git revision" in out


def test_cli_unloadable_spec_exits_2(tmp_path: Path) -> None:
    old, new = write_specs(tmp_path, lambda d: None)
    new.write_text("openapi: [unclosed\n")
    result = CliRunner().invoke(main, ["diff", str(old), str(new)])
    assert result.exit_code == 2
    assert "new.json:" in result.output and "invalid YAML" in result.output


# -- git revisions ----------------------------------------------------------------------


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def write_split_spec(repo: Path, doc: dict[str, Any]) -> None:
    """The root file references its schemas in another file, as the project's spec does."""
    schemas = doc["components"]["schemas"]
    (repo / "spec" / "schemas").mkdir(parents=True, exist_ok=True)
    text = json.dumps(schemas, indent=1).replace("#/components/", "../openapi.yaml#/components/")
    (repo / "spec" / "schemas" / "things.json").write_text(text)
    root = copy.deepcopy(doc)
    root["components"]["schemas"] = {
        name: {"$ref": f"schemas/things.json#/{name}"} for name in schemas
    }
    (repo / "spec" / "openapi.yaml").write_text(json.dumps(root, indent=1))


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository: a first commit without a spec, then the spec, then an edit to it."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "README").write_text("x\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "no spec yet")
    write_split_spec(repo, BASE)
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "spec")
    edited = copy.deepcopy(BASE)
    drop((*THING, "properties", "name"))(edited)  # in schemas/things.json: breaking
    set_(("paths", "/widgets"), WIDGETS)(edited)  # in openapi.yaml: non-breaking
    write_split_spec(repo, edited)
    git(repo, "commit", "-qam", "edit")
    monkeypatch.chdir(repo)
    return repo


def test_cli_git_revisions(repo: Path) -> None:
    code, out = run("HEAD~1", "HEAD", "--fail-on", "breaking")
    assert code == 1, out
    assert "Comparing `HEAD~1` with `HEAD`." in out
    assert "`response-required-property-removed`" in out
    assert "| `GET /api/v1/widgets` | `endpoint-added` |" in out
    code, out = run("HEAD", "HEAD", "--fail-on", "breaking")
    assert code == 0, out
    assert "No changes to the API." in out


def test_cli_revision_against_working_file(repo: Path) -> None:
    """A revision on one side and a spec file on the other (the working tree's)."""
    code, out = run("HEAD~1", "spec/openapi.yaml", "--format", "json")
    assert code == 0, out
    rules = {c["rule"] for c in json.loads(out)["changes"]}
    assert rules == {"response-required-property-removed", "endpoint-added"}


def test_cli_a_file_wins_over_a_revision_name(repo: Path) -> None:
    """A file named `HEAD` holding the first spec: read as the file, there is nothing to report."""
    (repo / "HEAD").write_text(json.dumps(BASE))
    code, out = run("HEAD~1", "HEAD", "--format", "json")
    assert code == 0, out
    assert json.loads(out)["changes"] == []


def test_cli_revision_without_the_spec_exits_2(repo: Path) -> None:
    code, out = run("HEAD~2", "HEAD")
    assert code == 2
    assert "spec/openapi.yaml does not exist at revision 'HEAD~2'" in out


def test_cli_unknown_revision_in_a_repository_exits_2(repo: Path) -> None:
    code, out = run("HEAD", "no-such-branch")
    assert code == 2
    assert "Invalid value for NEW: 'no-such-branch' is neither a file nor a git revision" in out

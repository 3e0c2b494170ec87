"""`spec-gen diff`: enum direction, warning and non-breaking cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from diff_support import (
    CREATE,
    CREATE_BODY,
    DELETE_ONE,
    GET_ONE,
    LIST,
    NEW_OPTIONAL_PARAM,
    OP_CREATE,
    OP_DELETE,
    OP_GET,
    OP_LIST,
    PAGE,
    RETRY_AFTER,
    SCHEMAS,
    STATUS_PARAM,
    THING,
    THING_READERS,
    WIDGETS,
    Case,
    Mutation,
    Q,
    _json,
    _ref,
    _walk,
    both,
    check_case,
    drop,
    on,
    push,
    set_,
)

CASES: list[Case] = [
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
        on("api-security-removed", OP_LIST),
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
        on("request-body-added-optional", OP_DELETE),
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
        "warning",
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
    check_case(tmp_path, before, mutation, verdict, expected)

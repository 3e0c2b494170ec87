"""`spec-gen diff`: deprecation, `x-sunset`, `x-stability-level`, operation metadata,
parameter defaults and webhooks (added, removed, and the checks inside them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from diff_support import (
    CREATE_BODY,
    DELETE_ONE,
    KEYS,
    NEW_OPTIONAL_PARAM,
    NEW_REQUIRED_PARAM,
    ONE,
    OP_CREATE,
    OP_DELETE,
    OP_GET,
    OP_KEYS,
    OP_LIST,
    PAGE,
    THING,
    THING_READERS,
    Case,
    Mutation,
    Q,
    _json,
    both,
    check_case,
    drop,
    on,
    push,
    set_,
)

KEYS_GET = (*KEYS, "get")
FUTURE, PAST, EARLIER = "2999-01-01", "2001-01-01", "2000-01-01"


def deprecated(where: tuple[Any, ...], sunset: str | None = None) -> Mutation:
    marks = [set_((*where, "deprecated"), True)]
    if sunset is not None:
        marks.append(set_((*where, "x-sunset"), sunset))
    return both(*marks)


FILTERS = {
    "name": "filters",
    "in": "query",
    "style": "deepObject",
    "schema": {"type": "object", "properties": {"group_id": {"type": "number"}}},
}
HOOK = {
    "post": {
        "operationId": "thing_created",
        "requestBody": {
            "required": True,
            "content": _json(
                {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
            ),
        },
        "responses": {"200": {"description": "Received."}},
    }
}
HOOK_OP = "POST webhook thing.created"
HOOK_BODY = (
    "webhooks",
    "thing.created",
    "post",
    "requestBody",
    "content",
    "application/json",
    "schema",
)

CASES: list[Case] = [
    # -- removal, deprecation and sunset
    (
        "deprecated path removed",
        deprecated(KEYS_GET),
        drop(KEYS),
        "non-breaking",
        on("api-path-removed-with-deprecation", OP_KEYS),
    ),
    (
        "deprecated operation removed before its sunset",
        deprecated(DELETE_ONE, FUTURE),
        drop(DELETE_ONE),
        "breaking",
        on("api-removed-before-sunset", OP_DELETE),
    ),
    (
        "deprecated operation removed after its sunset",
        deprecated(DELETE_ONE, PAST),
        drop(DELETE_ONE),
        "non-breaking",
        on("api-removed-with-deprecation", OP_DELETE),
    ),
    (
        "deprecated path removed before its sunset",
        deprecated(KEYS_GET, FUTURE),
        drop(KEYS),
        "breaking",
        on("api-path-removed-before-sunset", OP_KEYS),
    ),
    (
        "removed operation's sunset is not a date",
        deprecated(DELETE_ONE, "soon"),
        drop(DELETE_ONE),
        "breaking",
        on("api-path-sunset-parse", OP_DELETE),
    ),
    (
        "draft operation removed: not reported",
        set_((*DELETE_ONE, "x-stability-level"), "draft"),
        drop(DELETE_ONE),
        "breaking",
        set(),
    ),
    (
        "deprecated with a sunset",
        None,
        deprecated(DELETE_ONE, FUTURE),
        "non-breaking",
        on("endpoint-deprecated-with-sunset", OP_DELETE),
    ),
    (
        "deprecated with a sunset that is not a date",
        None,
        deprecated(DELETE_ONE, "soon"),
        "breaking",
        on("api-deprecated-sunset-parse", OP_DELETE),
    ),
    (
        "deprecated with a sunset already past",
        None,
        deprecated(DELETE_ONE, PAST),
        "breaking",
        on("api-sunset-date-too-small", OP_DELETE),
    ),
    (
        "sunset moved earlier into the past",
        deprecated(DELETE_ONE, PAST),
        set_((*DELETE_ONE, "x-sunset"), EARLIER),
        "breaking",
        on("api-sunset-date-changed-too-small", OP_DELETE),
    ),
    (
        "sunset deleted from a deprecated operation",
        deprecated(DELETE_ONE, FUTURE),
        drop((*DELETE_ONE, "x-sunset")),
        "breaking",
        on("sunset-deleted", OP_DELETE),
    ),
    # -- stability
    (
        "stability decreased (stable to beta)",
        None,
        set_((*DELETE_ONE, "x-stability-level"), "beta"),
        "breaking",
        on("api-stability-decreased", OP_DELETE),
    ),
    (
        "stability increased (beta to stable)",
        set_((*DELETE_ONE, "x-stability-level"), "beta"),
        set_((*DELETE_ONE, "x-stability-level"), "stable"),
        "non-breaking",
        on("api-stability-increased", OP_DELETE),
    ),
    (
        "stability level unknown",
        None,
        set_((*DELETE_ONE, "x-stability-level"), "gamma"),
        "breaking",
        on("api-invalid-stability-level", OP_DELETE),
    ),
    # -- metadata
    (
        "operationId added",
        drop((*DELETE_ONE, "operationId")),
        set_((*DELETE_ONE, "operationId"), "delete_thing"),
        "non-breaking",
        on("api-operation-id-added", OP_DELETE),
    ),
    (
        "operationId removed",
        None,
        drop((*DELETE_ONE, "operationId")),
        "non-breaking",
        on("api-operation-id-removed", OP_DELETE),
    ),
    (
        "tag added",
        None,
        push((*DELETE_ONE, "tags"), "admin"),
        "non-breaking",
        on("api-tag-added", OP_DELETE),
    ),
    (
        "tag removed",
        push((*DELETE_ONE, "tags"), "admin"),
        set_((*DELETE_ONE, "tags"), ["things"]),
        "non-breaking",
        on("api-tag-removed", OP_DELETE),
    ),
    # -- parameters
    (
        "parameter reactivated",
        set_((*Q, "deprecated"), True),
        drop((*Q, "deprecated")),
        "non-breaking",
        on("request-parameter-reactivated", OP_LIST),
    ),
    (
        "parameter default added",
        None,
        set_((*PAGE, "schema", "default"), 1),
        "breaking",
        on("request-parameter-default-value-added", OP_LIST),
    ),
    (
        "parameter default changed",
        set_((*PAGE, "schema", "default"), 1),
        set_((*PAGE, "schema", "default"), 2),
        "breaking",
        on("request-parameter-default-value-changed", OP_LIST),
    ),
    (
        "parameter default removed",
        set_((*PAGE, "schema", "default"), 1),
        drop((*PAGE, "schema", "default")),
        "breaking",
        on("request-parameter-default-value-removed", OP_LIST),
    ),
    (
        "deprecated parameter removed before its sunset",
        deprecated(Q, FUTURE),
        drop(Q),
        "breaking",
        on("request-parameter-removed-before-sunset", OP_LIST),
    ),
    (
        "deprecated parameter removed after its sunset",
        deprecated(Q, PAST),
        drop(Q),
        "non-breaking",
        on("request-parameter-removed-with-deprecation", OP_LIST),
    ),
    (
        "deprecated parameter's sunset is not a date",
        deprecated(Q, "soon"),
        drop(Q),
        "breaking",
        on("request-parameter-sunset-parse", OP_LIST),
    ),
    (
        "deprecated parameter's sunset changed to not a date",
        deprecated(Q, FUTURE),
        set_((*Q, "x-sunset"), "soon"),
        "breaking",
        on("request-parameter-sunset-parse", OP_LIST),
    ),
    (
        "sunset deleted from a deprecated parameter",
        deprecated(Q, FUTURE),
        drop((*Q, "x-sunset")),
        "breaking",
        on("request-parameter-sunset-deleted", OP_LIST),
    ),
    (
        "deprecated operation's sunset changed to not a date",
        deprecated(DELETE_ONE, FUTURE),
        set_((*DELETE_ONE, "x-sunset"), "soon"),
        "breaking",
        on("api-path-sunset-parse", OP_DELETE),
    ),
    (
        "a property of an object parameter changed type (oasdiff: WARN)",
        set_(PAGE, FILTERS),
        set_((*PAGE, "schema", "properties", "group_id", "type"), "string"),
        "warning",
        on("request-parameter-property-type-changed", OP_LIST),
    ),
    (
        "a property of an object parameter narrowed (number to integer)",
        set_(PAGE, FILTERS),
        set_((*PAGE, "schema", "properties", "group_id", "type"), "integer"),
        "breaking",
        on("request-parameter-property-type-specialized", OP_LIST),
    ),
    (
        "required parameter added to a path item",
        None,
        push((*ONE, "parameters"), {**NEW_REQUIRED_PARAM}),
        "breaking",
        on("new-required-request-default-parameter-to-existing-path", OP_GET, OP_DELETE),
    ),
    (
        "optional parameter added to a path item",
        None,
        push((*ONE, "parameters"), {**NEW_OPTIONAL_PARAM}),
        "non-breaking",
        on("new-optional-request-default-parameter-to-existing-path", OP_GET, OP_DELETE),
    ),
    (
        "request property deprecated with a sunset that is not a date",
        None,
        both(
            set_((*CREATE_BODY, "properties", "note", "deprecated"), True),
            set_((*CREATE_BODY, "properties", "note", "x-sunset"), "soon"),
        ),
        "breaking",
        on("request-property-deprecated-sunset-invalid", OP_CREATE),
    ),
    (
        "response property deprecated with a sunset that is not a date",
        None,
        both(
            set_((*THING, "properties", "note", "deprecated"), True),
            set_((*THING, "properties", "note", "x-sunset"), "soon"),
        ),
        "breaking",
        on("response-property-deprecated-sunset-invalid", *THING_READERS),
    ),
    # -- webhooks
    (
        "webhook added",
        None,
        set_(("webhooks",), {"thing.created": HOOK}),
        "non-breaking",
        on("webhook-added", "webhook thing.created"),
    ),
    (
        "webhook removed",
        set_(("webhooks",), {"thing.created": HOOK}),
        drop(("webhooks",)),
        "breaking",
        on("webhook-removed", "webhook thing.created"),
    ),
    (
        "webhook: a new required property in its payload",
        set_(("webhooks",), {"thing.created": HOOK}),
        both(
            set_((*HOOK_BODY, "properties", "kind"), {"type": "string"}),
            push((*HOOK_BODY, "required"), "kind"),
        ),
        "breaking",
        on("new-required-request-property", HOOK_OP),
    ),
    (
        "webhook: an operation removed from it",
        set_(("webhooks",), {"thing.created": {**HOOK, "put": HOOK["post"]}}),
        drop(("webhooks", "thing.created", "put")),
        "breaking",
        on("api-removed-without-deprecation", "PUT webhook thing.created"),
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

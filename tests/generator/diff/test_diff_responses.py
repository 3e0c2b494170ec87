"""`spec-gen diff`: response bodies of every status (`default` included), specialised
media types, response header schemas, and a server URL without a scheme."""

from __future__ import annotations

from pathlib import Path

import pytest
from diff_support import (
    CREATE,
    DELETE_ONE,
    GET_ONE,
    OP_CREATE,
    OP_GET,
    OP_LIST,
    RETRY_AFTER,
    SCHEMAS,
    Case,
    Mutation,
    _ref,
    _walk,
    both,
    check_case,
    drop,
    on,
    set_,
)

GET_200 = (*GET_ONE, "responses", "200")
CREATE_SCHEMA = (*CREATE, "requestBody", "content", "application/json", "schema")
HEADER = (*DELETE_ONE, "responses", "204", "headers", "Retry-After", "schema")
WITH_HEADER = set_((*DELETE_ONE, "responses", "204", "headers"), RETRY_AFTER)
OP_DELETE = "DELETE /api/v1/things/{thing_id}"


def rename_media(old: str, new: str) -> Mutation:
    def mutate(doc: dict[str, object]) -> None:
        content = _walk(doc, (*GET_200, "content"))
        content[new] = content.pop(old)

    return mutate


CASES: list[Case] = [
    (
        "error body: a required property removed (404 of two operations)",
        None,
        drop((*SCHEMAS, "Error", "properties", "detail")),
        "breaking",
        on("response-required-property-removed", OP_LIST, OP_CREATE),
    ),
    (
        "default response body compared too",
        set_((*GET_ONE, "responses", "default"), {"$ref": "#/components/responses/NotFound"}),
        set_((*SCHEMAS, "Error", "properties", "detail", "maxLength"), 10),
        "non-breaking",
        on("response-property-max-length-set", OP_LIST, OP_CREATE, OP_GET),
    ),
    (
        "media type specialised: application/json to application/problem+json",
        None,
        rename_media("application/json", "application/problem+json"),
        "non-breaking",
        on("response-media-type-name-specialized", OP_GET),
    ),
    (
        "media type generalised: application/problem+json to application/json",
        rename_media("application/json", "application/problem+json"),
        rename_media("application/problem+json", "application/json"),
        "breaking",
        on("response-media-type-name-generalized", OP_GET),
    ),
    (
        "error response media type removed",
        None,
        drop(("components", "responses", "NotFound", "content")),
        "breaking",
        on("response-media-type-removed", OP_LIST, OP_CREATE),
    ),
    (
        "XML request body: any type to string is compatible",
        set_(
            (*CREATE, "requestBody", "content"), {"application/xml": {"schema": {"type": "object"}}}
        ),
        set_((*CREATE, "requestBody", "content", "application/xml", "schema", "type"), "string"),
        "non-breaking",
        on("request-body-type-compatible", OP_CREATE),
    ),
    (
        "XML response body: string to any type is compatible",
        set_((*GET_200, "content"), {"application/xml": {"schema": {"type": "string"}}}),
        set_((*GET_200, "content", "application/xml", "schema", "type"), "integer"),
        "non-breaking",
        on("response-body-type-compatible", OP_GET),
    ),
    (
        "JSON response body: string to integer is a change",
        set_((*GET_200, "content", "application/json", "schema"), {"type": "string"}),
        set_((*GET_200, "content", "application/json", "schema", "type"), "integer"),
        "breaking",
        on("response-body-type-changed", OP_GET),
    ),
    (
        "response media type given a schema",
        drop((*GET_200, "content", "application/json", "schema")),
        set_((*GET_200, "content", "application/json", "schema"), _ref("Thing")),
        "non-breaking",
        on("response-body-media-type-schema-added", OP_GET),
    ),
    (
        "response media type lost its schema",
        None,
        drop((*GET_200, "content", "application/json", "schema")),
        "warning",
        on("response-body-media-type-schema-removed", OP_GET),
    ),
    (
        "request media type given a schema",
        drop(CREATE_SCHEMA),
        set_(CREATE_SCHEMA, _ref("ThingCreate")),
        "breaking",
        on("request-body-media-type-schema-added", OP_CREATE),
    ),
    (
        "request media type lost its schema",
        None,
        drop(CREATE_SCHEMA),
        "non-breaking",
        on("request-body-media-type-schema-removed", OP_CREATE),
    ),
    (
        "header type changed",
        WITH_HEADER,
        set_((*HEADER, "type"), "boolean"),
        "breaking",
        on("response-header-type-changed", OP_DELETE),
    ),
    (
        "header type widened",
        WITH_HEADER,
        set_((*HEADER, "type"), "number"),
        "breaking",
        on("response-header-type-generalized", OP_DELETE),
    ),
    (
        "header type narrowed",
        both(WITH_HEADER, set_((*HEADER, "type"), "number")),
        set_((*HEADER, "type"), "integer"),
        "non-breaking",
        on("response-header-type-specialized", OP_DELETE),
    ),
    (
        "header became nullable",
        WITH_HEADER,
        set_((*HEADER, "type"), ["integer", "null"]),
        "breaking",
        on("response-header-became-nullable", OP_DELETE),
    ),
    (
        "header became not nullable",
        both(WITH_HEADER, set_((*HEADER, "type"), ["integer", "null"])),
        set_((*HEADER, "type"), "integer"),
        "non-breaking",
        on("response-header-became-not-nullable", OP_DELETE),
    ),
    (
        "header maximum raised",
        both(WITH_HEADER, set_((*HEADER, "maximum"), 10)),
        set_((*HEADER, "maximum"), 20),
        "breaking",
        on("response-header-max-increased", OP_DELETE),
    ),
    (
        "header format added",
        WITH_HEADER,
        set_((*HEADER, "format"), "int32"),
        "non-breaking",
        on("response-header-type-specialized", OP_DELETE),
    ),
    (
        "a server URL without a scheme is a host, not a path prefix",
        set_(("servers",), [{"url": "tufin.com"}]),
        drop(DELETE_ONE),
        "breaking",
        on("api-removed-without-deprecation", "DELETE /things/{thing_id}"),
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

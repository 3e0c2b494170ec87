"""`spec-gen diff`: schema keywords (const, default, x-extensible-enum, 2020-12), allOf
members, a body wrapped in oneOf, readOnly/writeOnly flips, deprecated properties;
each in the request direction and the response direction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from diff_support import (
    CREATE,
    CREATE_BODY,
    GET_ONE,
    OP_CREATE,
    OP_GET,
    THING,
    THING_READERS,
    Case,
    Mutation,
    _ref,
    check_case,
    drop,
    on,
    push,
    set_,
)
from spec_gen.diff.rules import RULES

REQUEST_NOTE = (*CREATE_BODY, "properties", "note")  # only in the request of POST /things
RESPONSE_NOTE = (*THING, "properties", "note")  # only in responses

# (name, keyword, old value or None, new value or None, rule suffix)
KEYWORDS: list[tuple[str, str, Any, Any, str]] = [
    ("const added", "const", None, "x", "const-added"),
    ("const changed", "const", "x", "y", "const-changed"),
    ("const removed", "const", "x", None, "const-removed"),
    ("default added", "default", None, "a", "default-value-added"),
    ("default changed", "default", "a", "b", "default-value-changed"),
    ("default removed", "default", "a", None, "default-value-removed"),
    (
        "x-extensible-enum value removed",
        "x-extensible-enum",
        ["a", "b"],
        ["a"],
        "x-extensible-enum-value-removed",
    ),
    (
        "contentMediaType changed",
        "contentMediaType",
        "image/png",
        "image/jpeg",
        "content-media-type-changed",
    ),
    ("contentEncoding changed", "contentEncoding", "base64", "base32", "content-encoding-changed"),
    ("contentSchema added", "contentSchema", None, {"type": "object"}, "content-schema-added"),
    ("contentSchema removed", "contentSchema", {"type": "object"}, None, "content-schema-removed"),
    ("contains added", "contains", None, {"const": "a"}, "contains-added"),
    ("contains removed", "contains", {"const": "a"}, None, "contains-removed"),
    ("if added", "if", None, {"minLength": 1}, "if-added"),
    ("if removed", "if", {"minLength": 1}, None, "if-removed"),
    ("then added", "then", None, {"minLength": 1}, "then-added"),
    ("then removed", "then", {"minLength": 1}, None, "then-removed"),
    ("else added", "else", None, {"minLength": 1}, "else-added"),
    ("else removed", "else", {"minLength": 1}, None, "else-removed"),
    ("propertyNames added", "propertyNames", None, {"pattern": "^a"}, "property-names-added"),
    ("propertyNames removed", "propertyNames", {"pattern": "^a"}, None, "property-names-removed"),
    ("unevaluatedItems added", "unevaluatedItems", None, False, "unevaluated-items-added"),
    ("unevaluatedItems removed", "unevaluatedItems", False, None, "unevaluated-items-removed"),
    (
        "unevaluatedProperties added",
        "unevaluatedProperties",
        None,
        False,
        "unevaluated-properties-added",
    ),
    (
        "unevaluatedProperties removed",
        "unevaluatedProperties",
        False,
        None,
        "unevaluated-properties-removed",
    ),
    (
        "patternProperties entry added",
        "patternProperties",
        None,
        {"^x-": {}},
        "pattern-property-added",
    ),
    (
        "patternProperties entry removed",
        "patternProperties",
        {"^x-": {}},
        None,
        "pattern-property-removed",
    ),
    (
        "dependentSchemas entry added",
        "dependentSchemas",
        None,
        {"a": {"required": ["b"]}},
        "dependent-schema-added",
    ),
    (
        "dependentSchemas entry removed",
        "dependentSchemas",
        {"a": {"required": ["b"]}},
        None,
        "dependent-schema-removed",
    ),
    (
        "dependentRequired entry added",
        "dependentRequired",
        None,
        {"a": ["b"]},
        "dependent-required-added",
    ),
    (
        "dependentRequired entry changed",
        "dependentRequired",
        {"a": ["b"]},
        {"a": ["c"]},
        "dependent-required-changed",
    ),
    (
        "dependentRequired entry removed",
        "dependentRequired",
        {"a": ["b"]},
        None,
        "dependent-required-removed",
    ),
    (
        "prefixItems entry added",
        "prefixItems",
        [{"type": "string"}],
        [{"type": "string"}, {}],
        "prefix-items-added",
    ),
    (
        "prefixItems entry removed",
        "prefixItems",
        [{"type": "string"}, {}],
        [{"type": "string"}],
        "prefix-items-removed",
    ),
    ("maxLength removed (was a crash)", "maxLength", 10, None, "max-length-unset"),
    ("minItems removed (was a crash)", "minItems", 1, None, "min-items-unset"),
]


def _keyword_case(
    where: tuple[Any, ...], keyword: str, old: Any, new: Any
) -> tuple[Mutation | None, Mutation]:
    before = set_((*where, keyword), old) if old is not None else None
    mutation = set_((*where, keyword), new) if new is not None else drop((*where, keyword))
    return before, mutation


def _cases() -> list[Case]:
    cases: list[Case] = []
    for name, keyword, old, new, suffix in KEYWORDS:
        for side, where, operations in (
            ("request", REQUEST_NOTE, (OP_CREATE,)),
            ("response", RESPONSE_NOTE, THING_READERS),
        ):
            rule = f"{side}-property-{suffix}"
            before, mutation = _keyword_case(where, keyword, old, new)
            cases.append(
                (f"{side}: {name}", before, mutation, RULES[rule].level, on(rule, *operations))
            )
    return cases


OWNER_ALL_OF = {"allOf": [_ref("Owner")]}
CREATE_SCHEMA = (*CREATE, "requestBody", "content", "application/json", "schema")
GET_SCHEMA = (*GET_ONE, "responses", "200", "content", "application/json", "schema")

CASES: list[Case] = [
    *_cases(),
    (
        "request: list of types narrowed",
        set_((*REQUEST_NOTE, "type"), ["string", "integer"]),
        set_((*REQUEST_NOTE, "type"), "string"),
        "breaking",
        on("request-property-list-of-types-narrowed", OP_CREATE),
    ),
    (
        "request: oneOf of bare types widened",
        set_(REQUEST_NOTE, {"oneOf": [{"type": "string"}, {"type": "integer"}]}),
        set_(
            REQUEST_NOTE, {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "boolean"}]}
        ),
        "non-breaking",
        on("request-property-list-of-types-widened", OP_CREATE),
    ),
    (
        "response: list of types widened",
        set_((*RESPONSE_NOTE, "type"), ["string", "integer"]),
        set_((*RESPONSE_NOTE, "type"), ["string", "integer", "boolean"]),
        "breaking",
        on("response-property-list-of-types-widened", *THING_READERS),
    ),
    (
        "response: list of types narrowed",
        set_((*RESPONSE_NOTE, "type"), ["string", "integer"]),
        set_((*RESPONSE_NOTE, "type"), "integer"),
        "non-breaking",
        on("response-property-list-of-types-narrowed", *THING_READERS),
    ),
    (
        "request: an empty pattern is no pattern",
        set_((*REQUEST_NOTE, "pattern"), ""),
        set_((*REQUEST_NOTE, "pattern"), "^a"),
        "breaking",
        on("request-property-pattern-added", OP_CREATE),
    ),
    (
        "request: string to an integer enum also became-enum",
        None,
        set_(REQUEST_NOTE, {"type": "integer", "enum": [1, 2]}),
        "breaking",
        on("request-property-type-changed", OP_CREATE)
        | on("request-property-became-enum", OP_CREATE),
    ),
    (
        "request: allOf member added",
        set_(CREATE_SCHEMA, {"allOf": [_ref("ThingCreate")]}),
        push((*CREATE_SCHEMA, "allOf"), {"minProperties": 1}),
        "breaking",
        on("request-body-all-of-added", OP_CREATE),
    ),
    (
        "request: allOf member removed",
        set_(CREATE_SCHEMA, {"allOf": [_ref("ThingCreate"), {"minProperties": 1}]}),
        set_(CREATE_SCHEMA, {"allOf": [_ref("ThingCreate")]}),
        "warning",
        on("request-body-all-of-removed", OP_CREATE),
    ),
    (
        "request: annotation-only allOf member added",
        set_(CREATE_SCHEMA, {"allOf": [_ref("ThingCreate")]}),
        push((*CREATE_SCHEMA, "allOf"), {"description": "A thing to create."}),
        "non-breaking",
        on("request-body-all-of-added-annotation-only", OP_CREATE),
    ),
    (
        "request: annotation-only allOf member removed",
        set_(CREATE_SCHEMA, {"allOf": [_ref("ThingCreate"), {"description": "x"}]}),
        set_(CREATE_SCHEMA, {"allOf": [_ref("ThingCreate")]}),
        "non-breaking",
        on("request-body-all-of-removed-annotation-only", OP_CREATE),
    ),
    (
        "response: allOf member added",
        set_((*THING, "properties", "owner"), OWNER_ALL_OF),
        push((*THING, "properties", "owner", "allOf"), {"minProperties": 1}),
        "non-breaking",
        on("response-property-all-of-added", *THING_READERS),
    ),
    (
        "request: body wrapped in oneOf (properties not reported removed)",
        None,
        set_(CREATE_SCHEMA, {"oneOf": [_ref("ThingCreate"), _ref("Owner")]}),
        "breaking",
        on("request-body-wrapped-in-one-of", OP_CREATE),
    ),
    (
        "response: body wrapped in oneOf",
        None,
        set_(GET_SCHEMA, {"oneOf": [_ref("Thing"), _ref("Owner")]}),
        "breaking",
        on("response-body-wrapped-in-one-of", OP_GET),
    ),
    (
        "response: additionalProperties schema followed",
        set_((*THING, "additionalProperties"), {"type": "string", "maxLength": 5}),
        set_((*THING, "additionalProperties"), {"type": "string", "maxLength": 9}),
        "breaking",
        on("response-property-max-length-increased", *THING_READERS),
    ),
    (
        "request: not followed",
        set_((*REQUEST_NOTE, "not"), {"enum": ["a", "b"]}),
        set_((*REQUEST_NOTE, "not"), {"enum": ["a"]}),
        "breaking",
        on("request-property-enum-value-removed", OP_CREATE),
    ),
]

FLIPS: list[tuple[str, tuple[Any, ...], str, bool, str, tuple[str, ...]]] = [
    (
        "request optional",
        REQUEST_NOTE,
        "readOnly",
        True,
        "request-optional-property-became-read-only",
        (OP_CREATE,),
    ),
    (
        "request optional",
        REQUEST_NOTE,
        "readOnly",
        False,
        "request-optional-property-became-not-read-only",
        (OP_CREATE,),
    ),
    (
        "request optional",
        REQUEST_NOTE,
        "writeOnly",
        True,
        "request-optional-property-became-write-only",
        (OP_CREATE,),
    ),
    (
        "request optional",
        REQUEST_NOTE,
        "writeOnly",
        False,
        "request-optional-property-became-not-write-only",
        (OP_CREATE,),
    ),
    (
        "request required",
        (*CREATE_BODY, "properties", "name"),
        "readOnly",
        True,
        "request-required-property-became-read-only",
        (OP_CREATE,),
    ),
    (
        "request required",
        (*CREATE_BODY, "properties", "name"),
        "readOnly",
        False,
        "request-required-property-became-not-read-only",
        (OP_CREATE,),
    ),
    (
        "request required",
        (*CREATE_BODY, "properties", "name"),
        "writeOnly",
        True,
        "request-required-property-became-write-only",
        (OP_CREATE,),
    ),
    (
        "request required",
        (*CREATE_BODY, "properties", "name"),
        "writeOnly",
        False,
        "request-required-property-became-not-write-only",
        (OP_CREATE,),
    ),
    (
        "response optional",
        RESPONSE_NOTE,
        "readOnly",
        True,
        "response-optional-property-became-read-only",
        THING_READERS,
    ),
    (
        "response optional",
        RESPONSE_NOTE,
        "readOnly",
        False,
        "response-optional-property-became-not-read-only",
        THING_READERS,
    ),
    (
        "response optional",
        RESPONSE_NOTE,
        "writeOnly",
        True,
        "response-optional-property-became-write-only",
        THING_READERS,
    ),
    (
        "response optional",
        RESPONSE_NOTE,
        "writeOnly",
        False,
        "response-optional-property-became-not-write-only",
        THING_READERS,
    ),
    (
        "response required",
        (*THING, "properties", "name"),
        "readOnly",
        True,
        "response-required-property-became-read-only",
        THING_READERS,
    ),
    (
        "response required",
        (*THING, "properties", "name"),
        "readOnly",
        False,
        "response-required-property-became-not-read-only",
        THING_READERS,
    ),
    (
        "response required",
        (*THING, "properties", "name"),
        "writeOnly",
        True,
        "response-required-property-became-write-only",
        THING_READERS,
    ),
    (
        "response required",
        (*THING, "properties", "name"),
        "writeOnly",
        False,
        "response-required-property-became-not-write-only",
        THING_READERS,
    ),
]
for who, where, keyword, now, rule, ops in FLIPS:
    before = None if now else set_((*where, keyword), True)
    mutation = set_((*where, keyword), True) if now else drop((*where, keyword))
    CASES.append((f"{who} property {rule}", before, mutation, RULES[rule].level, on(rule, *ops)))
for side, where, ops in (
    ("request", REQUEST_NOTE, (OP_CREATE,)),
    ("response", RESPONSE_NOTE, THING_READERS),
):
    CASES.append(
        (
            f"{side} property deprecated",
            None,
            set_((*where, "deprecated"), True),
            "non-breaking",
            on(f"{side}-property-deprecated", *ops),
        )
    )
    CASES.append(
        (
            f"{side} property reactivated",
            set_((*where, "deprecated"), True),
            drop((*where, "deprecated")),
            "non-breaking",
            on(f"{side}-property-reactivated", *ops),
        )
    )


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

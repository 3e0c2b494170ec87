"""The rules of `spec-gen diff`: one id per kind of change, each with its level.

Ids and levels are oasdiff's (https://github.com/oasdiff/oasdiff, `checker/rules.go` of
v1.28.0, its latest v1 release): its ERR checks are `breaking`, WARN
`warning`, INFO `non-breaking`. The project's operation extensions (`x-tier`, `x-scope`,
`x-lifecycle`, `x-feature-flag`) have rules of their own. The few levels that depart
from oasdiff are in `DEPARTURES`, each with its reason; docs/diff.md prints that table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["breaking", "warning", "non-breaking"]
LEVELS: tuple[Level, ...] = ("breaking", "warning", "non-breaking")

B: Level = "breaking"
W: Level = "warning"
N: Level = "non-breaking"

OASDIFF_LEVEL: dict[Level, str] = {B: "ERR", W: "WARN", N: "INFO"}


@dataclass(frozen=True)
class Rule:
    id: str
    level: Level
    description: str


# Rules about operations, parameters, bodies, statuses and headers (one id each).
OPERATION_RULES: tuple[Rule, ...] = (
    Rule("endpoint-added", N, "a new operation"),
    Rule("api-removed-without-deprecation", B, "an operation removed (other methods remain)"),
    Rule("api-path-removed-without-deprecation", B, "a path removed with all its operations"),
    Rule("api-removed-with-deprecation", N, "a deprecated operation removed (sunset passed)"),
    Rule("api-path-removed-with-deprecation", N, "a deprecated path removed (sunset passed)"),
    Rule("api-removed-before-sunset", B, "a deprecated operation removed before its `x-sunset`"),
    Rule("api-path-removed-before-sunset", B, "a deprecated path removed before its `x-sunset`"),
    Rule("api-path-sunset-parse", B, "a removed operation's `x-sunset` is not a date"),
    Rule("api-operation-moved", B, "an operationId now lives at another method or path"),
    Rule("api-operation-id-changed", N, "the operationId of an operation changed"),
    Rule("api-operation-id-added", N, "an operationId added"),
    Rule("api-operation-id-removed", N, "an operationId removed"),
    Rule("api-summary-changed", N, "summary changed"),
    Rule("api-description-changed", N, "description changed"),
    Rule("api-tag-added", N, "a tag added to an operation"),
    Rule("api-tag-removed", N, "a tag removed from an operation"),
    Rule("endpoint-deprecated", N, "operation marked `deprecated`"),
    Rule("endpoint-deprecated-with-sunset", N, "operation marked `deprecated` with an `x-sunset`"),
    Rule("endpoint-reactivated", N, "`deprecated` removed from an operation"),
    Rule("api-deprecated-sunset-parse", B, "`x-sunset` of a deprecated operation is not a date"),
    Rule("api-sunset-date-too-small", B, "an operation deprecated with an `x-sunset` already past"),
    Rule("api-sunset-date-changed-too-small", B, "`x-sunset` moved earlier, into the past"),
    Rule("sunset-deleted", B, "`x-sunset` removed from a still deprecated operation"),
    Rule(
        "api-stability-decreased", B, "`x-stability-level` lowered (stable > beta > alpha > draft)"
    ),
    Rule("api-stability-increased", N, "`x-stability-level` raised"),
    Rule("api-invalid-stability-level", B, "`x-stability-level` is not draft/alpha/beta/stable"),
    Rule("webhook-added", N, "a webhook added"),
    Rule("webhook-removed", B, "a webhook removed"),
    Rule("api-tier-raised", B, "`x-tier` raised (read < write < billable)"),
    Rule("api-tier-lowered", N, "`x-tier` lowered"),
    Rule("api-tier-changed", B, "`x-tier` changed to or from an unknown tier"),
    Rule("api-scope-added", B, "`x-scope` added"),
    Rule("api-scope-changed", B, "`x-scope` changed"),
    Rule("api-scope-removed", N, "`x-scope` removed"),
    Rule("api-lifecycle-became-preview", B, "`x-lifecycle` active to preview (404 until enabled)"),
    Rule("api-lifecycle-became-active", N, "`x-lifecycle` preview to active"),
    Rule("api-feature-flag-added", B, "`x-feature-flag` added (404 until enabled)"),
    Rule("api-feature-flag-changed", B, "`x-feature-flag` changed"),
    Rule("api-feature-flag-removed", N, "`x-feature-flag` removed"),
    Rule("api-security-removed", N, "a security requirement alternative removed"),
    Rule("api-security-added", N, "a security requirement alternative added"),
    Rule("api-security-scope-added", N, "a scope added to a security requirement"),
    Rule("api-security-scope-removed", N, "a scope removed from a security requirement"),
    Rule("request-parameter-removed", B, "a request parameter removed"),
    Rule("request-parameter-removed-with-deprecation", N, "a deprecated request parameter removed"),
    Rule("new-required-request-parameter", B, "a new required request parameter"),
    Rule("new-optional-request-parameter", N, "a new optional request parameter"),
    Rule(
        "new-required-request-default-parameter-to-existing-path",
        B,
        "a required parameter added to a path item (every operation on it)",
    ),
    Rule(
        "new-optional-request-default-parameter-to-existing-path",
        N,
        "an optional parameter added to a path item (every operation on it)",
    ),
    Rule("request-parameter-became-required", B, "an optional request parameter became required"),
    Rule("request-parameter-became-optional", N, "a required request parameter became optional"),
    Rule("request-parameter-deprecated", N, "a request parameter marked `deprecated`"),
    Rule("request-parameter-reactivated", N, "`deprecated` removed from a request parameter"),
    Rule(
        "request-parameter-property-type-changed",
        W,
        "a property of an object parameter changed type",
    ),
    Rule("request-parameter-default-value-added", B, "a parameter default added"),
    Rule("request-parameter-default-value-changed", B, "a parameter default changed"),
    Rule("request-parameter-default-value-removed", B, "a parameter default removed"),
    Rule(
        "request-parameter-removed-before-sunset",
        B,
        "a deprecated parameter removed before its `x-sunset`",
    ),
    Rule("request-parameter-sunset-parse", B, "a deprecated parameter's `x-sunset` is not a date"),
    Rule(
        "request-parameter-sunset-deleted",
        B,
        "`x-sunset` removed from a still deprecated parameter",
    ),
    Rule(
        "request-body-media-type-schema-added",
        B,
        "a schema given to a request media type that had none",
    ),
    Rule("request-body-media-type-schema-removed", N, "the schema of a request media type removed"),
    Rule(
        "response-body-media-type-schema-added",
        N,
        "a schema given to a response media type that had none",
    ),
    Rule(
        "response-body-media-type-schema-removed", W, "the schema of a response media type removed"
    ),
    Rule("request-body-added-required", B, "a required request body added"),
    Rule("request-body-added-optional", N, "an optional request body added"),
    Rule("request-body-removed", B, "the request body removed"),
    Rule("request-body-became-required", B, "the request body became required"),
    Rule("request-body-became-optional", N, "the request body became optional"),
    Rule("request-body-media-type-removed", B, "a request body media type removed"),
    Rule("request-body-media-type-added", N, "a request body media type added"),
    Rule("new-required-request-property", B, "a new required request property"),
    Rule("new-optional-request-property", N, "a new optional request property"),
    Rule("request-property-removed", B, "a request property removed or renamed"),
    Rule("request-property-became-required", B, "a request property became required"),
    Rule("request-property-became-optional", N, "a request property became optional"),
    Rule("request-property-deprecated", N, "a request property marked `deprecated`"),
    Rule(
        "request-property-deprecated-sunset-invalid",
        B,
        "a request property deprecated with an `x-sunset` that is not a date",
    ),
    Rule(
        "response-property-deprecated-sunset-invalid",
        B,
        "a response property deprecated with an `x-sunset` that is not a date",
    ),
    Rule("request-property-reactivated", N, "`deprecated` removed from a request property"),
    Rule("request-optional-property-became-read-only", N, "a request property became readOnly"),
    Rule("request-optional-property-became-not-read-only", N, "readOnly removed (request)"),
    Rule("request-optional-property-became-write-only", N, "a request property became writeOnly"),
    Rule("request-optional-property-became-not-write-only", N, "writeOnly removed (request)"),
    Rule(
        "request-required-property-became-read-only",
        N,
        "a required request property became readOnly",
    ),
    Rule(
        "request-required-property-became-not-read-only", N, "readOnly removed (required, request)"
    ),
    Rule(
        "request-required-property-became-write-only",
        N,
        "a required request property became writeOnly",
    ),
    Rule(
        "request-required-property-became-not-write-only",
        N,
        "writeOnly removed (required, request)",
    ),
    Rule(
        "response-required-property-became-read-only",
        N,
        "a required response property became readOnly",
    ),
    Rule(
        "response-required-property-became-not-read-only",
        N,
        "readOnly removed (required, response)",
    ),
    Rule("response-required-property-removed", B, "a required property removed from a response"),
    Rule(
        "response-optional-property-removed", B, "an optional response property removed or renamed"
    ),
    Rule("response-required-property-added", N, "a new required response property"),
    Rule("response-optional-property-added", N, "a new optional response property"),
    Rule("response-property-became-optional", B, "a required response property became optional"),
    Rule("response-property-became-required", N, "an optional response property became required"),
    Rule("response-property-deprecated", N, "a response property marked `deprecated`"),
    Rule("response-property-reactivated", N, "`deprecated` removed from a response property"),
    Rule("response-optional-property-became-read-only", N, "a response property became readOnly"),
    Rule("response-optional-property-became-not-read-only", N, "readOnly removed (response)"),
    Rule(
        "response-optional-property-became-write-only",
        N,
        "an optional response property became writeOnly",
    ),
    Rule("response-optional-property-became-not-write-only", N, "writeOnly removed (response)"),
    Rule(
        "response-required-property-became-write-only",
        N,
        "a required response property became writeOnly",
    ),
    Rule(
        "response-required-property-became-not-write-only",
        W,
        "a required writeOnly response property now returned",
    ),
    Rule("response-success-status-removed", B, "a 2xx response removed"),
    Rule("response-non-success-status-removed", N, "an error or `default` response removed"),
    Rule("response-success-status-added", N, "a 2xx response added"),
    Rule("response-non-success-status-added", N, "an error or `default` response added"),
    Rule("response-media-type-removed", B, "a media type removed from a response"),
    Rule("response-media-type-added", N, "a media type added to a response"),
    Rule(
        "response-media-type-name-specialized",
        N,
        "e.g. `application/json` to `application/problem+json`",
    ),
    Rule(
        "response-media-type-name-generalized",
        B,
        "e.g. `application/problem+json` to `application/json`",
    ),
    Rule("required-response-header-removed", B, "a required response header removed"),
    Rule("optional-response-header-removed", W, "an optional response header removed"),
    Rule("response-header-added", N, "a response header added"),
    Rule("response-header-became-optional", B, "a required response header became optional"),
)


@dataclass(frozen=True)
class Departure:
    rule: str
    oasdiff: str  # oasdiff's level (ERR, WARN, INFO)
    reason: str


# Where this project's level is not oasdiff's, and why (docs/diff.md prints this table).
_RENAME = (
    "the project's rename rule: a removed or renamed field breaks the clients that send"
    " or read it, and the generated model loses the field"
)
DEPARTURES: tuple[Departure, ...] = (
    Departure(
        "request-parameter-removed",
        "WARN",
        "the generated client method loses the keyword argument: callers passing it get a"
        " `TypeError`, and the generated router rejects or ignores the parameter",
    ),
    Departure("request-property-removed", "WARN", _RENAME),
    Departure("response-optional-property-removed", "WARN", _RENAME),
    Departure(
        "response-property-enum-value-added",
        "WARN",
        "the generated client parses enums into `StrEnum` classes: an unknown value fails"
        " validation of the whole response",
    ),
)


@dataclass(frozen=True)
class SchemaCheck:
    """One schema check, applied to every request family and every response family."""

    suffix: str
    request: Level | None  # level for request-parameter-*, request-body-*, request-property-*
    response: Level | None  # level for response-body-*, response-property-*, response-header-*
    description: str


REQUEST_FAMILIES = (
    "request-parameter",
    "request-parameter-property",  # inside an object-valued parameter
    "request-body",
    "request-property",
)
RESPONSE_FAMILIES = ("response-body", "response-property", "response-header")

# keyword, rule id part, bound: "upper" bounds narrow when lowered, "lower" bounds when raised
CONSTRAINTS: tuple[tuple[str, str, str], ...] = (
    ("maxLength", "max-length", "upper"),
    ("minLength", "min-length", "lower"),
    ("maximum", "max", "upper"),
    ("minimum", "min", "lower"),
    ("exclusiveMaximum", "exclusive-max", "upper"),
    ("exclusiveMinimum", "exclusive-min", "lower"),
    ("maxItems", "max-items", "upper"),
    ("minItems", "min-items", "lower"),
    ("maxContains", "max-contains", "upper"),
    ("minContains", "min-contains", "lower"),
)

WORDS = {"set": "added", "unset": "removed"}


def _constraint_checks() -> list[SchemaCheck]:
    checks = []
    for keyword, part, bound in CONSTRAINTS:
        lowered, raised = (
            ("decreased", "increased") if bound == "upper" else ("increased", "decreased")
        )
        # narrowing breaks requests, widening breaks responses; a new bound only warns
        for change, request, response in (
            (lowered, B, N),
            (raised, N, B),
            ("set", W, N),
            ("unset", N, B),
        ):
            checks.append(
                SchemaCheck(
                    f"{part}-{change}",
                    request,
                    response,
                    f"`{keyword}` {WORDS.get(change, change)}",
                )
            )
    return checks


def _keyword_checks() -> list[SchemaCheck]:
    """2020-12 sub-schema keywords: adding one restricts, removing one relaxes."""
    keywords = (
        ("contains", "contains"),
        ("content-schema", "contentSchema"),
        ("dependent-schema", "dependentSchemas"),
        ("if", "if"),
        ("then", "then"),
        ("else", "else"),
        ("pattern-property", "patternProperties"),
        ("property-names", "propertyNames"),
        ("unevaluated-items", "unevaluatedItems"),
        ("unevaluated-properties", "unevaluatedProperties"),
    )
    checks = []
    for part, keyword in keywords:
        checks.append(SchemaCheck(f"{part}-added", B, N, f"`{keyword}` added"))
        checks.append(SchemaCheck(f"{part}-removed", N, B, f"`{keyword}` removed"))
    return checks


SCHEMA_CHECKS: tuple[SchemaCheck, ...] = (
    SchemaCheck("type-changed", B, B, "type/format changed to an unrelated one"),
    SchemaCheck("type-generalized", N, B, "type/format widened, e.g. integer to number"),
    SchemaCheck("type-specialized", B, N, "type/format narrowed, e.g. number to integer"),
    SchemaCheck("type-compatible", N, N, "type changed to/from string in XML or text"),
    SchemaCheck(
        "list-of-types-narrowed",
        B,
        N,
        "a list of types (or `oneOf`/`anyOf` of bare types) lost a type",
    ),
    SchemaCheck(
        "list-of-types-widened",
        N,
        B,
        "a list of types (or `oneOf`/`anyOf` of bare types) gained a type",
    ),
    SchemaCheck("became-nullable", N, B, "now accepts / may return null"),
    SchemaCheck("became-not-nullable", B, N, "no longer accepts / returns null"),
    SchemaCheck("enum-value-removed", B, N, "an enum value removed"),
    SchemaCheck("enum-value-added", N, B, "an enum value added"),
    SchemaCheck("became-enum", B, N, "restricted to an enum"),
    SchemaCheck("x-extensible-enum-value-removed", B, N, "an `x-extensible-enum` value removed"),
    SchemaCheck("const-added", B, N, "`const` added"),
    SchemaCheck("const-changed", B, B, "`const` changed"),
    SchemaCheck("const-removed", N, B, "`const` removed"),
    SchemaCheck("default-value-added", N, N, "`default` added"),
    SchemaCheck("default-value-changed", N, N, "`default` changed"),
    SchemaCheck("default-value-removed", N, N, "`default` removed"),
    SchemaCheck("pattern-added", B, N, "`pattern` added"),
    SchemaCheck("pattern-changed", W, N, "`pattern` changed"),
    SchemaCheck("pattern-removed", N, N, "`pattern` removed"),
    SchemaCheck("one-of-added", N, B, "a `oneOf` branch added"),
    SchemaCheck("one-of-removed", B, N, "a `oneOf` branch removed"),
    SchemaCheck("any-of-added", N, N, "an `anyOf` branch added"),
    SchemaCheck("any-of-removed", B, N, "an `anyOf` branch removed"),
    SchemaCheck("all-of-added", B, N, "an `allOf` member added"),
    SchemaCheck("all-of-removed", W, N, "an `allOf` member removed"),
    SchemaCheck("all-of-added-annotation-only", N, N, "an annotation-only `allOf` member added"),
    SchemaCheck(
        "all-of-removed-annotation-only", N, N, "an annotation-only `allOf` member removed"
    ),
    SchemaCheck("wrapped-in-one-of", B, B, "the schema moved into a `oneOf` branch"),
    SchemaCheck("content-media-type-changed", B, B, "`contentMediaType` changed"),
    SchemaCheck("content-encoding-changed", B, B, "`contentEncoding` changed"),
    SchemaCheck("dependent-required-added", B, N, "a `dependentRequired` entry added"),
    SchemaCheck("dependent-required-changed", B, B, "a `dependentRequired` entry changed"),
    SchemaCheck("dependent-required-removed", N, B, "a `dependentRequired` entry removed"),
    SchemaCheck("prefix-items-added", N, B, "a `prefixItems` entry added"),
    SchemaCheck("prefix-items-removed", B, N, "a `prefixItems` entry removed"),
    *_keyword_checks(),
)
CONSTRAINT_CHECKS: tuple[SchemaCheck, ...] = tuple(_constraint_checks())


def _all_rules() -> dict[str, Rule]:
    rules: dict[str, Rule] = {}
    for check in (*SCHEMA_CHECKS, *CONSTRAINT_CHECKS):
        for families, level in (
            (REQUEST_FAMILIES, check.request),
            (RESPONSE_FAMILIES, check.response),
        ):
            if level is None:
                continue
            for family in families:
                rule_id = f"{family}-{check.suffix}"
                rules[rule_id] = Rule(rule_id, level, check.description)
    for rule in OPERATION_RULES:  # a named rule wins over its family's generated level
        rules[rule.id] = rule
    return rules


RULES: dict[str, Rule] = _all_rules()

"""The rules of `spec-gen diff`: one id per kind of change, each with its verdict.

Verdicts follow oasdiff's published breaking-change checks
(https://github.com/oasdiff/oasdiff): its ERR checks are `breaking`, its WARN checks
`warning`, its INFO checks `non-breaking`. The project's operation extensions (`x-tier`,
`x-scope`, `x-lifecycle`, `x-feature-flag`) have rules of their own. Where this list
departs from oasdiff, the description says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["breaking", "warning", "non-breaking"]
LEVELS: tuple[Level, ...] = ("breaking", "warning", "non-breaking")

B: Level = "breaking"
W: Level = "warning"
N: Level = "non-breaking"


@dataclass(frozen=True)
class Rule:
    id: str
    level: Level
    description: str


# Rules about operations, parameters, bodies, statuses and properties (one id each).
OPERATION_RULES: tuple[Rule, ...] = (
    Rule("endpoint-added", N, "a new operation"),
    Rule("api-removed-without-deprecation", B, "an operation removed (other methods remain)"),
    Rule("api-path-removed-without-deprecation", B, "a path removed with all its operations"),
    Rule("api-removed-with-deprecation", N, "an operation removed after `deprecated: true`"),
    Rule("api-operation-moved", B, "an operationId now lives at another method or path"),
    Rule("api-operation-id-changed", N, "the operationId of an operation changed"),
    Rule("api-summary-changed", N, "summary changed"),
    Rule("api-description-changed", N, "description changed"),
    Rule("endpoint-deprecated", N, "operation marked `deprecated`"),
    Rule("endpoint-reactivated", N, "`deprecated` removed from an operation"),
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
    Rule("api-security-became-required", B, "an operation open to anonymous callers now is not"),
    Rule("api-security-became-optional", N, "an operation now also admits anonymous callers"),
    Rule("api-security-removed", B, "a security requirement alternative removed"),
    Rule("api-security-added", N, "a security requirement alternative added"),
    Rule("api-security-scope-added", B, "a scope added to a security requirement"),
    Rule("api-security-scope-removed", N, "a scope removed from a security requirement"),
    Rule("request-parameter-removed", B, "a request parameter removed"),
    Rule("request-parameter-removed-with-deprecation", N, "a deprecated request parameter removed"),
    Rule("new-required-request-parameter", B, "a new required request parameter"),
    Rule("new-optional-request-parameter", N, "a new optional request parameter"),
    Rule("request-parameter-became-required", B, "an optional request parameter became required"),
    Rule("request-parameter-became-optional", N, "a required request parameter became optional"),
    Rule("request-parameter-deprecated", N, "a request parameter marked `deprecated`"),
    Rule("added-required-request-body", B, "a required request body added"),
    Rule("added-optional-request-body", N, "an optional request body added"),
    Rule("request-body-removed", B, "the request body removed"),
    Rule("request-body-became-required", B, "the request body became required"),
    Rule("request-body-became-optional", N, "the request body became optional"),
    Rule("request-body-media-type-removed", B, "a request body media type removed"),
    Rule("request-body-media-type-added", N, "a request body media type added"),
    Rule("new-required-request-property", B, "a new required request property"),
    Rule("new-optional-request-property", N, "a new optional request property"),
    Rule(
        "request-property-removed",
        B,
        "a request property removed or renamed: clients still sending it are ignored or refused (oasdiff: WARN)",
    ),
    Rule("request-property-became-required", B, "a request property became required"),
    Rule("request-property-became-optional", N, "a request property became optional"),
    Rule("response-required-property-removed", B, "a required property removed from a response"),
    Rule(
        "response-optional-property-removed",
        B,
        "an optional response property removed or renamed: clients reading it break (oasdiff: WARN)",
    ),
    Rule("response-required-property-added", N, "a new required response property"),
    Rule("response-optional-property-added", N, "a new optional response property"),
    Rule("response-property-became-optional", B, "a required response property became optional"),
    Rule("response-property-became-required", N, "an optional response property became required"),
    Rule("response-success-status-removed", B, "a 2xx response removed"),
    Rule("response-non-success-status-removed", N, "an error response removed"),
    Rule("response-success-status-added", N, "a 2xx response added"),
    Rule("response-non-success-status-added", N, "an error response added"),
    Rule("response-media-type-removed", B, "a media type removed from a 2xx response"),
    Rule("response-media-type-added", N, "a media type added to a 2xx response"),
    Rule("required-response-header-removed", B, "a required response header removed"),
    Rule("optional-response-header-removed", N, "an optional response header removed"),
    Rule("response-header-added", N, "a response header added"),
    Rule("response-header-became-optional", B, "a required response header became optional"),
)


@dataclass(frozen=True)
class SchemaCheck:
    """One schema check, applied to every request family and every response family."""

    suffix: str
    request: Level | None  # verdict for request-parameter-*, request-body-*, request-property-*
    response: Level | None  # verdict for response-body-*, response-property-*
    description: str


REQUEST_FAMILIES = ("request-parameter", "request-body", "request-property")
RESPONSE_FAMILIES = ("response-body", "response-property")

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
)


WORDS = {"set": "added", "unset": "removed"}


def _constraint_checks() -> list[SchemaCheck]:
    checks = []
    for keyword, part, bound in CONSTRAINTS:
        lowered, raised = (
            ("decreased", "increased") if bound == "upper" else ("increased", "decreased")
        )
        # (change, narrows?) -- narrowing breaks requests, widening breaks responses
        for change, narrows in (
            (lowered, True),
            (raised, False),
            ("set", True),
            ("unset", False),
        ):
            checks.append(
                SchemaCheck(
                    f"{part}-{change}",
                    B if narrows else N,
                    N if narrows else B,
                    f"`{keyword}` {WORDS.get(change, change)}",
                )
            )
    return checks


SCHEMA_CHECKS: tuple[SchemaCheck, ...] = (
    SchemaCheck(
        "type-changed", B, B, "type/format narrowed (request), widened (response), or changed"
    ),
    SchemaCheck("type-generalized", N, None, "type/format widened, e.g. integer to number"),
    SchemaCheck("type-specialized", None, N, "type/format narrowed, e.g. number to integer"),
    SchemaCheck("became-nullable", N, B, "now accepts / may return null"),
    SchemaCheck("became-not-nullable", B, N, "no longer accepts / returns null"),
    SchemaCheck("enum-value-removed", B, N, "an enum value removed"),
    SchemaCheck(
        "enum-value-added", N, B, "an enum value added (response: oasdiff ERR since v1.30)"
    ),
    SchemaCheck("became-enum", B, N, "restricted to an enum"),
    SchemaCheck("pattern-added", B, N, "`pattern` added"),
    SchemaCheck("pattern-changed", W, W, "`pattern` changed (oasdiff: WARN)"),
    SchemaCheck("pattern-removed", N, B, "`pattern` removed"),
    SchemaCheck("one-of-added", N, B, "a `oneOf` branch added"),
    SchemaCheck("one-of-removed", B, N, "a `oneOf` branch removed"),
    SchemaCheck("any-of-added", N, B, "an `anyOf` branch added"),
    SchemaCheck("any-of-removed", B, N, "an `anyOf` branch removed"),
)
CONSTRAINT_CHECKS: tuple[SchemaCheck, ...] = tuple(_constraint_checks())


def _all_rules() -> dict[str, Rule]:
    rules = {rule.id: rule for rule in OPERATION_RULES}
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
    return rules


RULES: dict[str, Rule] = _all_rules()


def rules_markdown() -> str:
    """The rules and their verdicts, as the README lists them."""
    lines = ["| Rule | Verdict | Change |", "|---|---|---|"]
    lines += [f"| `{r.id}` | {r.level} | {r.description} |" for r in OPERATION_RULES]
    lines += [
        "",
        (
            "Schema checks apply to parameters (`request-parameter-*`), request bodies"
            " (`request-body-*` at the top, `request-property-*` inside) and 2xx response"
            " bodies (`response-body-*`, `response-property-*`), following `$ref`s, nested"
            " objects, array items, `allOf`, `oneOf` and `anyOf`:"
        ),
        "",
        "| Check | Request | Response | Change |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| `*-{c.suffix}` | {c.request or '-'} | {c.response or '-'} | {c.description} |"
        for c in SCHEMA_CHECKS
    ]
    for request, response, what in ((B, N, "narrowed"), (N, B, "widened")):
        suffixes = ", ".join(f"`*-{c.suffix}`" for c in CONSTRAINT_CHECKS if c.request == request)
        lines.append(f"| {suffixes} | {request} | {response} | a bound {what} |")
    return "\n".join(lines) + "\n"

"""The lint rule ids, declared once: each rule's id, its default severity and what it checks.

Users name these ids in `[tool.spec-gen.lint] rules`; the code emits them as `Rule` members
(a `str` enum, so a finding's rule prints and compares as its id), which mypy checks. A
finding built with an id that is neither a `Rule` nor a configured operation extension fails
at once (`UnknownRule`), so a typo cannot turn a warning into an error that stops a build.

Beside these fixed ids the `house` profile has one rule per configured operation extension
(`operation-extensions = { x-tier = [...] }`: rule `x-tier`); those are `ExtensionRule`s.
It lives in `core` because the document front end (its repairs) emits ids too.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, Self

Severity = Literal["off", "warn", "error"]
Profile = Literal["default", "house"]


class UnknownRule(ValueError):
    """A finding or a severity asked for under a rule id nobody declared."""


class Rule(StrEnum):
    """Every fixed lint rule: `Rule.REF == "ref"`, `Rule.REF.severity == "error"`."""

    severity: Severity  # in the profile that holds it (house rules: once it is switched on)
    profile: Profile
    checks: str

    def __new__(cls, rule_id: str, severity: Severity, profile: Profile, checks: str) -> Self:
        member = str.__new__(cls, rule_id)
        member._value_ = rule_id
        member.severity = severity
        member.profile = profile
        member.checks = checks
        return member

    def __repr__(self) -> str:  # as the id it stands for, in messages and reports
        return str.__repr__(self)

    # the default profile: what generation needs
    OPENAPI = ("openapi", "error", "default", "the document's structure (openapi-spec-validator)")
    STRAY_KEYWORD = ("stray-keyword", "warn", "default", "a key the OpenAPI object does not define")
    COMPONENT_NAME = (
        "component-name",
        "warn",
        "default",
        "a component key outside ^[a-zA-Z0-9._-]+$: kept",
    )
    NULL_FIELD = (
        "null-field",
        "warn",
        "default",
        "a field of an OpenAPI object set to null: read as absent",
    )
    SCHEMA = ("schema", "error", "default", "a schema that is not valid JSON Schema, or one no model class can be made from")  # fmt: skip
    SCHEMA_REPAIR = ("schema-repair", "warn", "default", "a 3.0 / 2019-09 leftover in a 3.1 schema, read as meant")  # fmt: skip
    REF = (
        "ref",
        "error",
        "default",
        "a $ref that points at nothing, was not bundled or only loops",
    )
    REF_KIND = ("ref-kind", "warn", "default", "a $ref to another kind of Object than belongs where it stands")  # fmt: skip
    OAS32 = ("oas32", "warn", "default", "what OpenAPI 3.2 adds and the generated code does not carry yet")  # fmt: skip
    # the spec requires unique operationIds; the generator numbers a repeated one (generated
    # documents such as grpc-gateway's repeat them for each extra binding). House: an error.
    OPERATION_ID_UNIQUE = ("operation-id-unique", "warn", "default", "an operationId used twice: the repeat is numbered")  # fmt: skip
    OPERATION_ID_NAME = ("operation-id-name", "warn", "default", "an operationId that is not an identifier (`find pet by id`): its anchors and names are slugs")  # fmt: skip
    PATH_PARAMS = ("path-params", "error", "default", "path parameters that cannot be matched to the path")  # fmt: skip
    NO_OPERATIONS = ("no-operations", "warn", "default", "a document without operations")
    PYTHON_NAME = ("python-name", "warn", "default", "a schema name whose class cannot simply be the name in PascalCase")  # fmt: skip
    DEFAULT = ("default", "warn", "default", "a default its schema refuses: converted or dropped")
    SCHEMA_KEYWORD = ("schema-keyword", "warn", "default", "not a JSON Schema keyword: ignored")
    UNCHECKED_KEYWORD = ("unchecked-keyword", "warn", "default", "a JSON Schema assertion the generated models do not make")  # fmt: skip
    WEBHOOK_PAYLOAD = ("webhook-payload", "warn", "default", "a webhook whose payload is not JSON")
    NO_BODY_STATUS = ("no-body-status", "warn", "default", "a 1XX, 204, 205 or 304 response with content")  # fmt: skip
    PARAMETER_REPAIR = ("parameter-repair", "warn", "default", "a path parameter not marked required or not declared, and other parameter repairs")  # fmt: skip
    IGNORED_HEADER = ("ignored-header", "warn", "default", "an Accept, Content-Type or Authorization header parameter")  # fmt: skip
    PATTERN = ("pattern", "warn", "default", "a `pattern` no regular expression engine of pydantic compiles")  # fmt: skip
    SCHEMA_CYCLE = ("schema-cycle", "error", "default", "a schema that extends itself; a union that is its own member")  # fmt: skip
    DOCUMENT_REPAIR = ("document-repair", "warn", "default", "a document-level slip read as meant (info.version as a number...)")  # fmt: skip
    MODELS = ("models", "warn", "default", "what datamodel-code-generator warned about while writing the models")  # fmt: skip
    LINT_CONFIG = ("lint-config", "error", "default", "`[tool.spec-gen.lint] rules` naming a rule that does not exist")  # fmt: skip
    # the house profile: a team's conventions (`extends = ["house"]`)
    OPERATION_ID = ("operation-id", "error", "house", "an operationId present, in snake_case")
    ONE_TAG = ("one-tag", "error", "house", "exactly one tag per operation, declared")
    X_SCOPE = ("x-scope", "error", "house", "`x-scope` declared in the root `x-scopes`, area:action")  # fmt: skip
    PREVIEW_FLAG = ("preview-flag", "error", "house", "a preview operation names its `x-feature-flag`")  # fmt: skip
    X_PROVISIONAL = ("x-provisional", "error", "house", "`x-provisional` is true or false")
    CLIENT_NAME = ("client-name", "error", "house", "client method names unique")
    PAGINATION = ("pagination", "error", "house", "page/limit or offset/limit within `x-pagination-bounds`")  # fmt: skip
    ERROR_SCHEMA = ("error-schema", "error", "house", "shared error components with a `detail` string")  # fmt: skip
    SCHEMA_NAME = ("schema-name", "error", "house", "schema names in PascalCase")


class ExtensionRule(str):
    """The id of a house rule named after an operation extension the project configured
    (`x-tier`): present on every operation, one of the listed values."""

    __slots__ = ()


RuleId = Rule | ExtensionRule
Repair = tuple[str, Rule, str]  # what the front end repaired: (pointer, rule, what was done)

CORE_RULES: dict[Rule, Severity] = {r: r.severity for r in Rule if r.profile == "default"}
HOUSE_RULES: tuple[Rule, ...] = tuple(r for r in Rule if r.profile == "house")


def rule_id(rule: str) -> RuleId:
    """`rule` as a declared id; `UnknownRule` when nobody declared it."""
    if isinstance(rule, (Rule, ExtensionRule)):
        return rule
    try:
        return Rule(rule)  # type: ignore[call-arg]  # a lookup by id: no new member
    except ValueError:
        raise UnknownRule(f"no lint rule {rule!r} is declared (core/lint_rules.py)") from None

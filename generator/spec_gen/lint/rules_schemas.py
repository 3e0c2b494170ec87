"""The default profile's checks of each schema: `default`s that do not fit, keywords JSON
Schema does not know, assertions the generated models do not make (`unchecked-keyword`),
`pattern`s no engine compiles, and schemas that extend or contain themselves
(`schema-cycle`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import unquote

from ..core.lint_rules import Rule
from ..document import patterns
from ..document.openapi import SCHEMA_MAPS, SCHEMA_REF
from ..document.pointer import join_pointer
from ..document.refs import JSON_TYPES
from ..document.walk import prefix_members, schema_roots, structured_enum
from .findings import RawFinding

SCHEMA_KEYWORDS = frozenset(
    {
        # JSON Schema 2020-12 (core, applicator, validation, meta-data, format, content)
        "$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$defs",
        "$comment", "$vocabulary", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
        "dependentSchemas", "prefixItems", "items", "contains", "properties",
        "patternProperties", "additionalProperties", "propertyNames",
        "unevaluatedItems", "unevaluatedProperties", "type", "enum", "const", "multipleOf",
        "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
        "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains",
        "minContains", "maxProperties", "minProperties", "required", "dependentRequired",
        "title", "description", "default", "deprecated", "readOnly", "writeOnly",
        "examples", "format", "contentEncoding", "contentMediaType", "contentSchema",
        "definitions", "dependencies", "additionalItems",
        # the OpenAPI 3.1 dialect
        "discriminator", "xml", "externalDocs", "example",
    }
)  # fmt: skip


def _sub_schemas(schema: Any, here: str) -> Iterator[tuple[str, dict[str, Any]]]:
    if not isinstance(schema, dict):
        return
    yield here, schema
    for key in ("properties", "patternProperties", "$defs", "dependentSchemas"):
        value = schema.get(key)
        if isinstance(value, dict):
            for name, sub in value.items():
                yield from _sub_schemas(sub, join_pointer(here, key, name))
    for key in ("allOf", "anyOf", "oneOf", "prefixItems"):
        value = schema.get(key)
        if isinstance(value, list):
            for index, sub in enumerate(value):
                yield from _sub_schemas(sub, join_pointer(here, key, index))
    for key in ("items", "additionalProperties", "not", "if", "then", "else", "contains",
                "propertyNames", "unevaluatedItems", "unevaluatedProperties"):  # fmt: skip
        if isinstance(schema.get(key), dict):
            yield from _sub_schemas(schema[key], join_pointer(here, key))


def schemas_checks(document: dict[str, Any]) -> list[RawFinding]:
    """`default` values that do not fit their schema, and keywords JSON Schema does not know."""
    out = []
    for root, schema in schema_roots(document):
        for here, node in _sub_schemas(schema, root):
            if "default" in node:
                problem = _default_problem(node, node["default"])
                if problem:
                    out.append(RawFinding(join_pointer(here, "default"), Rule.DEFAULT, problem))
            out += _pattern_problems(node, here)
            if isinstance(node.get("const"), (dict, list)):
                out.append(
                    RawFinding(
                        join_pointer(here, "const"),
                        Rule.MODELS,
                        "a `const` object or array is not checked by the generated models: "
                        "read as its type",
                    )
                )
            if structured_enum(node):
                out.append(
                    RawFinding(
                        join_pointer(here, "enum"),
                        Rule.MODELS,
                        "an `enum` with object or array members is not checked by the "
                        "generated models: read as its members' type",
                    )
                )
            if not _inside_unchecked(here):
                out += _unchecked_keywords(node, here)
            for key in node:
                key = str(key)
                if key not in SCHEMA_KEYWORDS and not key.startswith("x-"):
                    hint = (
                        " (3.0's `nullable`: use type [..., 'null'])" if key == "nullable" else ""
                    )
                    out.append(
                        RawFinding(
                            join_pointer(here, key),
                            Rule.SCHEMA_KEYWORD,
                            f"{key!r} is not a JSON Schema keyword; it is ignored{hint}",
                        )
                    )
    return out


# JSON Schema assertions the generated models (pydantic, through datamodel-code-generator,
# and the parameters' FastAPI constraints) do not make: a value they forbid passes
_UNCHECKED = {
    "minProperties": "an object with fewer members passes",
    "maxProperties": "an object with more members passes",
    "uniqueItems": "a list with duplicates passes",
    "prefixItems": "an item is checked against every position's type, not its own position's",
    "contains": "a list without a matching item passes",
    "not": "a value it forbids passes",
    "if": "`then` / `else` are not applied",
    "dependentRequired": "a member present without the members it requires passes",
    "dependentSchemas": "a member present does not apply its schema",
    "unevaluatedItems": "extra items pass",
}
# applicators whose subschemas are not applied at all: nothing inside them is reported again
_NOT_APPLIED = frozenset({"not", "if", "then", "else", "contains", "dependentSchemas",
                          "unevaluatedItems", "unevaluatedProperties"})  # fmt: skip


def _inside_unchecked(here: str) -> bool:
    parts = here.split("/")
    return any(
        part in _NOT_APPLIED and parts[index - 1] not in SCHEMA_MAPS  # not a member's name
        for index, part in enumerate(parts)
        if index
    )


def _unchecked_keywords(schema: dict[str, Any], here: str) -> list[RawFinding]:
    """Assertions the generated models leave out, one warning at each keyword."""
    found = []
    for key, consequence in _UNCHECKED.items():
        value = schema.get(key)
        if value is None or value is False or (key == "uniqueItems" and value is not True):
            continue
        if key == "if" and "then" not in schema and "else" not in schema:
            continue  # `if` alone asserts nothing
        if key == "prefixItems" and prefix_members(schema) is None:
            consequence = "the items are read as any values"
        found.append(
            RawFinding(
                join_pointer(here, key),
                Rule.UNCHECKED_KEYWORD,
                f"`{key}` is not checked by the generated models: {consequence}",
            )
        )
    unevaluated = schema.get("unevaluatedProperties")
    if isinstance(unevaluated, dict) and unevaluated:
        found.append(
            RawFinding(
                join_pointer(here, "unevaluatedProperties"),
                Rule.UNCHECKED_KEYWORD,
                "a schema for `unevaluatedProperties` is not checked by the generated models: "
                "extra members pass unchecked",
            )
        )
    return found


def _pattern_problems(schema: dict[str, Any], here: str) -> list[RawFinding]:
    """A `pattern` (or `patternProperties` key) neither of pydantic's regular expression
    engines compiles, even with its ECMA-262 spellings rewritten: not checked."""
    found = []
    if isinstance(schema.get("pattern"), str):
        found.append((join_pointer(here, "pattern"), schema["pattern"]))
    keyed = schema.get("patternProperties")
    for key in keyed if isinstance(keyed, dict) else ():
        found.append((join_pointer(here, "patternProperties", str(key)), str(key)))
    return [
        RawFinding(
            at,
            Rule.PATTERN,
            f"pattern {expression!r} is not a regular expression Python or Rust compiles: "
            "not checked",
        )
        for at, expression in found
        if patterns.readable(expression) is None
    ]


def _default_problem(schema: dict[str, Any], value: Any) -> str | None:
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if isinstance(kinds, list) and kinds:
        checks = [JSON_TYPES[k] for k in kinds if k in JSON_TYPES]
        if checks and not any(check(value) for check in checks):
            return f"default {value!r} is not of type {' or '.join(map(str, kinds))}"
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum:
        return f"default {value!r} is not one of the enum values"
    return None


def _extended(
    schema: Any, here: str, keywords: tuple[str, ...], one_member: bool
) -> Iterator[tuple[str, str, str]]:
    """(pointer of the `$ref`, schema name, keyword) for each component a schema's `keywords`
    members name, through inline members under those keywords too; `one_member`: a union
    (anyOf, oneOf) counts only when it has one member (it is that member)."""
    if not isinstance(schema, dict):
        return
    for keyword in keywords:
        members = schema.get(keyword)
        if not isinstance(members, list):
            continue
        if one_member and keyword != "allOf" and len(members) != 1:
            continue
        for index, member in enumerate(members):
            at = join_pointer(here, keyword, index)
            ref = member.get("$ref") if isinstance(member, dict) else None
            if isinstance(ref, str) and ref.startswith(SCHEMA_REF):
                yield join_pointer(at, "$ref"), unquote(ref[len(SCHEMA_REF) :]), keyword
            else:
                yield from _extended(member, at, keywords, one_member)


def _extension_message(keyword: str, loop: str) -> str:
    message = f"{keyword} cycle {loop}: a schema cannot extend itself"
    if keyword != "allOf":
        message += f" ({keyword} with one member is that member)"
    return message


def _union_message(keyword: str, loop: str) -> str:
    return (
        f"oneOf/anyOf cycle {loop}: a union that is a member of itself (no value can be checked"
        " against it: the check goes round for ever)"
    )


# the cycles reported, each through these members alone: a schema that extends itself
# (allOf, or a union of one member, which is that member: no class can be made); a union
# that is one of its own members (`A: anyOf [B]`, `B: anyOf [string, A]`: checking a value
# goes round for ever). Cycles mixing allOf and a union of several members are the usual
# polymorphism (`Pet: oneOf [Cat, Dog]`, `Cat: allOf [Pet, ...]`) and are not reported.
_CYCLE_KINDS: tuple[tuple[tuple[str, ...], bool, Callable[[str, str], str]], ...] = (
    (("allOf", "anyOf", "oneOf"), True, _extension_message),
    (("oneOf", "anyOf"), False, _union_message),
)


def allof_cycles(document: dict[str, Any]) -> list[RawFinding]:
    """Component schemas that extend themselves through allOf (`A: allOf [B]`, `B: allOf [A]`,
    an alias `B: {$ref: A}` counting as B itself), or through an anyOf or oneOf of one member
    (`A: anyOf [A]`: A is only itself): no class can be generated for them; and unions that
    are members of themselves through oneOf/anyOf alone (see _CYCLE_KINDS). Each cycle once,
    at the `$ref` that closes it."""
    components = document.get("components")
    schemas = components.get("schemas") if isinstance(components, dict) else None
    if not isinstance(schemas, dict):
        return []
    out: list[RawFinding] = []
    for keywords, one_member, message in _CYCLE_KINDS:
        reported = {finding.pointer for finding in out}
        out += [
            finding
            for finding in _cycles(schemas, keywords, one_member, message)
            if finding.pointer not in reported
        ]
    return out


def _cycles(
    schemas: dict[str, Any],
    keywords: tuple[str, ...],
    one_member: bool,
    message: Callable[[str, str], str],
) -> list[RawFinding]:
    """The cycles among component schemas through their `keywords` members alone."""

    def alias_of(name: str) -> str:
        seen = {name}
        while True:
            node = schemas.get(name)
            ref = node.get("$ref") if isinstance(node, dict) and len(node) == 1 else None
            if not (isinstance(ref, str) and ref.startswith(SCHEMA_REF)):
                return name
            name = unquote(ref[len(SCHEMA_REF) :])
            if name in seen:
                return name
            seen.add(name)

    edges = {
        str(name): [
            (at, alias_of(target), keyword)
            for at, target, keyword in _extended(
                schema, join_pointer("/components/schemas", str(name)), keywords, one_member
            )
            if target in schemas
        ]
        for name, schema in schemas.items()
    }
    out: list[RawFinding] = []
    done: set[str] = set()
    path: list[str] = []  # the schemas being visited, depth first

    def visit(name: str) -> None:
        if name in done:
            return
        path.append(name)
        for at, target, keyword in edges.get(name, []):
            if target in path:  # reported once, at the `$ref` that closes the cycle
                loop = " -> ".join([*path[path.index(target) :], target])
                out.append(RawFinding(at, Rule.SCHEMA_CYCLE, message(keyword, loop)))
            else:
                visit(target)
        path.pop()
        done.add(name)

    for name in edges:
        visit(name)
    return out

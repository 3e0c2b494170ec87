"""Keyword-level rewrites `model_ready` applies to one schema (split type lists,
`prefixItems`, nullable maps, patterns for one regex engine), and the checks of what the
models module will need mypy to allow (fields redeclared by `allOf` or union members)."""

from __future__ import annotations

import json
import re
from typing import Any

from ...document import patterns
from ...document.openapi import ARRAY_KEYWORDS, OBJECT_KEYWORDS, SCHEMA_DATA_KEYWORDS, SCHEMA_REF
from ...document.walk import prefix_members

# keywords that apply to one type only, each member of a split type list takes its own
_STRING_BOUNDS = ("minLength", "maxLength", "pattern")
_NUMBER_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_KEYWORDS_OF_TYPE = {
    "string": (*_STRING_BOUNDS, "contentEncoding", "contentMediaType"),
    "integer": _NUMBER_BOUNDS,
    "number": _NUMBER_BOUNDS,
    "array": ARRAY_KEYWORDS,
    "object": OBJECT_KEYWORDS,
}
_NUMERIC_FORMATS = frozenset({"int32", "int64", "float", "double"})
# what datamodel-code-generator writes as `constr(...)` / `conint(...)` inside a union of a
# type list, a call mypy refuses in an annotation ("Invalid type comment or annotation")
_CONSTRAINED = frozenset(_STRING_BOUNDS + _NUMBER_BOUNDS)


def constrained_type_list(schema: dict[str, Any]) -> None:
    """A type list of two or more types with string or number constraints (`type: [integer,
    string], pattern: ...`) written as an `anyOf` of one member per type, each with the
    keywords of its type: datamodel-code-generator wrote `int | constr(pattern=...)`, which
    mypy --strict refuses; the members are classes (`int | Code1`), and what each member
    checks is what JSON Schema checks (a keyword applies to the values of its type only)."""
    types = schema.get("type")
    if not isinstance(types, list) or "enum" in schema or "const" in schema:
        return
    concrete = [t for t in types if t != "null" and isinstance(t, str)]
    if len(concrete) < 2 or not _CONSTRAINED & schema.keys():
        return
    if any(key in schema for key in ("anyOf", "oneOf", "$ref")):
        return
    fmt = schema.get("format")
    members: list[dict[str, Any]] = []
    for kind in concrete:
        member: dict[str, Any] = {"type": kind}
        member.update({k: schema[k] for k in _KEYWORDS_OF_TYPE.get(kind, ()) if k in schema})
        numeric = kind in ("integer", "number")
        if isinstance(fmt, str) and (fmt in _NUMERIC_FORMATS) == numeric:
            member["format"] = fmt
        members.append(member)
    if "null" in types:
        members.append({"type": "null"})
    for key in ("type", "format", *(k for keys in _KEYWORDS_OF_TYPE.values() for k in keys)):
        schema.pop(key, None)
    schema["anyOf"] = members


def prefix_items(schema: dict[str, Any]) -> None:
    """`prefixItems` (a tuple's positions; datamodel-code-generator writes `list[Any]`) read
    as a list whose items are any of `walk.prefix_members`, the way openapi-python-client
    reads it; kept as is when any value may follow the positions."""
    members = prefix_members(schema)
    if members is None:
        return
    distinct: list[Any] = []
    for member in members:
        if member not in distinct:
            distinct.append(member)
    del schema["prefixItems"]
    schema["items"] = distinct[0] if len(distinct) == 1 else {"anyOf": distinct}
    schema.setdefault("type", "array")


ANNOTATIONS = ("title", "description", "deprecated", "readOnly", "writeOnly")
# what gives an object schema members (or other shapes) of its own
_SHAPING = (
    "properties", "patternProperties", "additionalProperties", "unevaluatedProperties",
    "allOf", "anyOf", "oneOf", "$ref", "enum", "const", "not", "if", "propertyNames",
)  # fmt: skip


def value_kind(value: object) -> str | None:
    return "object" if isinstance(value, dict) else "array" if isinstance(value, list) else None


def free_form(schema: dict[str, Any]) -> bool:
    """`type: object` and nothing saying what its members are: any members are valid.
    datamodel-code-generator writes a named one as a class without fields, whose instances
    (pydantic ignores extra keys) lose every member; with `additionalProperties: true` it
    is a `dict[str, Any]` model."""
    return schema.get("type") == "object" and not any(key in schema for key in _SHAPING)


# keywords whose values are data or names, not schemas: kept as written
DATA_KEYWORDS = SCHEMA_DATA_KEYWORDS | {
    "discriminator", "xml", "externalDocs", "required", "dependentRequired", "type", "format",
    "$ref", "$id", "$anchor", "$schema",
}  # fmt: skip
# keywords whose values map names to schemas: each value is a schema, the map is not
SCHEMA_MAP_KEYWORDS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
# what datamodel-code-generator reads as instructions to itself, not as JSON Schema: a custom
# base class or type to import from a module the document names, a field made a ClassVar,
# a field renamed... (`schema-keyword` warns that the first two are ignored; they are)
TOOL_KEYS = frozenset({"customTypePath", "customBasePath"})
_TOOL_EXTENSIONS = (
    "x-python-", "x-datamodel-code-generator-", "x-is-base-class", "x-is-classvar",
    "x-enum-field-as-literal",
)  # fmt: skip


def tool_directive(key: object) -> bool:
    return isinstance(key, str) and key.startswith(_TOOL_EXTENSIONS)


def is_false(schema: object) -> bool:
    return schema is False


def never_member(member: Any, never: frozenset[str]) -> bool:
    """A schema nothing is valid against: `false`, or a `$ref` to a schema that is `false`."""
    if member is False:
        return True
    ref = member.get("$ref") if isinstance(member, dict) else None
    return (
        isinstance(ref, str)
        and ref.startswith(SCHEMA_REF)
        and ref.rsplit("/", 1)[-1] in never
        and len(member) == 1
    )


_MAP_KEYWORDS = (
    "additionalProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "unevaluatedProperties",
)


def nullable_map(schema: dict[str, Any]) -> None:
    """`type: [object, 'null']` + an `additionalProperties` schema, in place: the map and its
    keywords become the first member of an anyOf whose second is null."""
    types = schema.get("type")
    if not (
        isinstance(types, list)
        and sorted(set(types)) == ["null", "object"]
        and isinstance(schema.get("additionalProperties"), dict)
        and not schema.get("properties")
        and not schema.get("patternProperties")
        and "anyOf" not in schema
        and "oneOf" not in schema
        and "allOf" not in schema
    ):
        return
    mapping: dict[str, Any] = {"type": "object"}
    for keyword in _MAP_KEYWORDS:
        if keyword in schema:
            mapping[keyword] = schema.pop(keyword)
    schema.pop("properties", None)
    schema.pop("patternProperties", None)
    del schema["type"]
    schema["anyOf"] = [mapping, {"type": "null"}]


_LOOKAROUND = re.compile(r"\(\?<?[=!]")


def python_engine_visible(pattern: str, engine: str) -> str:
    """`pattern`, so that datamodel-code-generator gives its class Python's engine when only
    that engine compiles it: it looks for look-around in the text, so a pattern Rust's
    engine refuses for another reason (`^.{0,262144}$`: over its size limit) gets an empty
    look-ahead `(?=)`, which matches everywhere and changes nothing."""
    if engine == "python-re" and not _LOOKAROUND.search(pattern):
        return "(?=)" + pattern
    return pattern


def one_engine(properties: dict[str, Any]) -> None:
    """A class with a field pattern only Python's `re` compiles is validated by that engine
    (datamodel-code-generator sets `regex_engine="python-re"` on it): the patterns of its
    other fields that only Rust's engine compiles (`\\p{L}`) are dropped, not checked."""
    holders = []
    for prop in properties.values():
        if not isinstance(prop, dict):
            continue
        members = [prop.get("items"), *(prop.get("anyOf") or []), *(prop.get("oneOf") or [])]
        holders += [prop, *(m for m in members if isinstance(m, dict))]
    engines = {
        id(h): readable[1]
        for h in holders
        if isinstance(h.get("pattern"), str) and (readable := patterns.readable(h["pattern"]))
    }
    if "python-re" not in engines.values():
        return
    for holder in holders:
        expression = holder.get("pattern")
        if isinstance(expression, str) and not patterns.compiles(expression, "python-re"):
            del holder["pattern"]


def allows_null(schema: dict[str, Any]) -> bool:
    types = schema.get("type")
    if types == "null" or (isinstance(types, list) and "null" in types):
        return True
    members = [*(schema.get("oneOf") or []), *(schema.get("anyOf") or [])]
    return any(isinstance(m, dict) and allows_null(m) for m in members)


def _declared_props(schema: Any, schemas: dict[str, Any], seen: frozenset[str]) -> set[str]:
    """The property names a schema declares, through its `$ref`s and allOf members."""
    if not isinstance(schema, dict):
        return set()
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(SCHEMA_REF):
        name = ref.rsplit("/", 1)[-1]
        if name in seen:
            return set()
        return _declared_props(schemas.get(name), schemas, seen | {name})
    props = schema.get("properties")
    found = set(props.keys()) if isinstance(props, dict) else set()
    for member in schema.get("allOf") or []:
        found |= _declared_props(member, schemas, seen)
    return found


def allof_overrides(schemas: dict[str, Any]) -> bool:
    """Whether a schema's allOf redeclares a property of a class it extends (a subclass field
    of another type: mypy reports the override, pydantic accepts it)."""

    def props(schema: Any, seen: set[str]) -> set[str]:
        return _declared_props(schema, schemas, frozenset(seen))

    # a discriminator makes datamodel-code-generator narrow the subclass's property to a
    # Literal, whatever type its base declares
    discriminated = '"discriminator"' in json.dumps(schemas)
    for schema in schemas.values():
        members = schema.get("allOf") if isinstance(schema, dict) else None
        if not isinstance(members, list):
            continue
        if discriminated and any(isinstance(m, dict) and "$ref" in m for m in members):
            return True
        if len(members) < 2:
            continue
        seen: set[str] = set()
        for member in members:
            mine = props(member, set())
            if mine & seen:
                return True
            seen |= mine
        if set((schema.get("properties") or {}).keys()) & seen:
            return True
    return False


def union_member_overrides(schemas: dict[str, Any]) -> bool:
    """Whether an object schema's oneOf/anyOf members declare one of its own properties
    (`properties: {kind: {$ref: Kind}}, oneOf: [{properties: {kind: {enum: [a]}}}, ...]`, a
    member narrowing a field). datamodel-code-generator writes each member as a class with
    the narrowed field and the schema's own properties as a subclass of it redeclaring the
    field with the wider type: pydantic accepts it, mypy reports the assignment."""

    def walk(node: Any) -> bool:
        if isinstance(node, list):
            return any(walk(v) for v in node)
        if not isinstance(node, dict):
            return False
        own = node.get("properties")
        if isinstance(own, dict) and own:
            for key in ("oneOf", "anyOf"):
                members = node.get(key)
                if isinstance(members, list) and any(
                    _declared_props(m, schemas, frozenset()) & own.keys() for m in members
                ):
                    return True
        return any(
            walk(v)
            for k, v in node.items()
            if k not in ("default", "example", "examples", "enum", "const")
            and not (isinstance(k, str) and k.startswith("x-"))
        )

    return walk(schemas)

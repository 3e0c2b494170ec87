"""Pydantic v2 models from the IR's schemas, through datamodel-code-generator."""

from __future__ import annotations

import ast
import hashlib
import json
import re
import warnings
from pathlib import Path
from typing import Any

from ...core.memory import collector_paused
from ...core.timings import stage
from ...document import patterns
from ...document.pointer import unescape_pointer_token
from ...document.walk import ARRAY_KEYWORDS, OBJECT_KEYWORDS, prefix_members, structured_enum
from ...ir import Api
from ...ir.schemas import SCHEMA_REF, deep_refs_followed

OPTIONS: dict[str, Any] = {
    "disable_timestamp": True,
    "use_annotated": True,
    "field_constraints": True,
    "use_standard_collections": True,
    "use_union_operator": True,
    "use_subclass_enum": True,
    "use_schema_description": True,
    "use_field_description": True,
    "strict_nullable": True,
    "use_double_quotes": True,
    "capitalise_enum_members": True,
    "set_default_enum_member": True,
    "snake_case_field": True,  # attributes snake_case, aliases keep the wire names
}


def _is_primitive(schema: Any) -> bool:
    if not isinstance(schema, dict) or any(
        k in schema
        for k in ("$ref", "enum", "const", "oneOf", "anyOf", "allOf", "properties", "items")
    ):
        return False
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return all(k in ("string", "integer", "number", "boolean", "null") for k in kinds)


def inline_primitive_refs(node: Any, schemas: dict[str, Any]) -> Any:
    """Replace references to constrained primitives (a timestamp pattern, say) by their
    definition, so fields read `str` with the constraint rather than a wrapper class."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        tail = ref[len(SCHEMA_REF) :] if isinstance(ref, str) and ref.startswith(SCHEMA_REF) else ""
        if tail and "/" not in tail:  # a ref into a schema's inside names no component
            target = schemas.get(unescape_pointer_token(tail))
            if isinstance(target, dict) and _is_primitive(target):
                siblings = {k: v for k, v in node.items() if k != "$ref"}
                return {**target, **siblings}
        return {k: inline_primitive_refs(v, schemas) for k, v in node.items()}
    if isinstance(node, list):
        return [inline_primitive_refs(v, schemas) for v in node]
    return node


def models_document(api: Api) -> dict[str, Any]:
    """A minimal OpenAPI document holding only the schemas to turn into models."""
    # a schema may be `false` (nothing is valid), whatever the IR's type says
    never = frozenset(name for name, schema in api.schemas.items() if _is_false(schema))
    types = {name: _resolved(schema, api.schemas) for name, schema in api.schemas.items()}
    types = {name: t.get("type") for name, t in types.items() if isinstance(t, dict)}
    schemas = narrowed_in_members(
        inline_primitive_refs(deep_refs_followed(api.schemas), api.schemas),
        api.schemas,
        _hoisted_names(api),
    )
    enums = frozenset(name for name, schema in schemas.items() if _plain_enum(schema))
    schemas = {name: _enum_extended(schema, enums) for name, schema in schemas.items()}
    schemas = {name: _enum_alias(schema, schemas) for name, schema in schemas.items()}
    return {
        "openapi": "3.1.0",
        "info": {"title": api.title or "API", "version": api.version or "0"},
        "paths": {},
        "components": {
            "schemas": {name: model_ready(schema, never, types) for name, schema in schemas.items()}
        },
    }


_OWN_SHAPE = ("type", "$ref", "properties", "items", "allOf", "oneOf", "anyOf")


def _plain_enum(schema: Any) -> bool:
    """An enum of values that are not objects: datamodel-code-generator writes an Enum."""
    return (
        isinstance(schema, dict)
        and isinstance(schema.get("enum"), list)
        and schema.get("type") != "object"
        and "properties" not in schema
    )


def _enum_extended(node: Any, enums: frozenset[str]) -> Any:
    """A schema that extends an enum through `allOf` with object keywords of its own
    (`allOf: [{$ref: Operator}], properties: {note: ...}`): its values are the enum's, which
    are not objects, so the object keywords apply to none of them (a `type: object` beside
    them leaves no value at all). datamodel-code-generator wrote `class Extended(Operator)`
    with fields, and Python refuses to extend an Enum: the models did not import. Read as
    the enum; the object keywords (here and in inline allOf members) are left out."""
    if isinstance(node, list):
        return [_enum_extended(v, enums) for v in node]
    if not isinstance(node, dict):
        return node
    out = {
        key: _enum_extended(value, enums)
        if key not in _DATA and not str(key).startswith("x-")
        else value
        for key, value in node.items()
    }
    members = out.get("allOf")
    if not (isinstance(members, list) and any(_enum_member(m, enums) for m in members)):
        return out
    if not any(k in out for k in OBJECT_KEYWORDS) and not any(
        isinstance(m, dict) and "$ref" not in m and any(k in m for k in OBJECT_KEYWORDS)
        for m in members
    ):
        return out
    out = {k: v for k, v in out.items() if k not in OBJECT_KEYWORDS}
    if out.get("type") == "object":
        del out["type"]
    kept = [
        {k: v for k, v in m.items() if k not in OBJECT_KEYWORDS or "$ref" in m}
        if isinstance(m, dict)
        else m
        for m in members
    ]
    out["allOf"] = [m for m in kept if m != {} and m != {"type": "object"}]
    return out


def _enum_member(member: Any, enums: frozenset[str]) -> bool:
    ref = member.get("$ref") if isinstance(member, dict) else None
    return isinstance(ref, str) and ref.startswith(SCHEMA_REF) and ref[len(SCHEMA_REF) :] in enums


def _enum_alias(schema: Any, schemas: dict[str, Any]) -> Any:
    """A schema that is an `allOf` of one `$ref` to an enum and nothing else of its own:
    written as that `$ref` (with its annotations), which datamodel-code-generator makes a
    `RootModel` of the enum. The allOf form, named by nothing but an answer or a body, it
    wrote no class for at all (an inline `allOf: [{$ref: Level}]` answer stopped the build)."""
    if not isinstance(schema, dict):
        return schema
    members = schema.get("allOf")
    if not (isinstance(members, list) and len(members) == 1 and isinstance(members[0], dict)):
        return schema
    ref = members[0].get("$ref")
    if set(members[0]) != {"$ref"} or not isinstance(ref, str) or not ref.startswith(SCHEMA_REF):
        return schema
    if any(key in schema for key in _OWN_SHAPE if key != "allOf") or "enum" in schema:
        return schema
    target = _resolved(members[0], schemas)
    if not (isinstance(target, dict) and "enum" in target and "properties" not in target):
        return schema
    return {**{k: v for k, v in schema.items() if k != "allOf"}, "$ref": ref}


def _hoisted_names(api: Api) -> frozenset[str]:
    """The model classes the IR made from inline schemas (not the document's components)."""
    return frozenset(
        name
        for name, pointer in api.schema_pointers.items()
        if not re.fullmatch(r"/components/schemas/[^/]+", pointer)
    )


def narrowed_in_members(
    schemas: dict[str, Any], originals: dict[str, Any], hoisted: frozenset[str]
) -> dict[str, Any]:
    """Component schemas whose every oneOf/anyOf member narrows one of their properties
    (`properties: {kind: {$ref: Kind}}, oneOf: [{properties: {kind: {enum: [a]}}}, ...]`),
    rewritten so the narrowing holds: datamodel-code-generator writes each member as a class
    and the schema's own properties as its subclass, whose wider field would replace the
    member's (any `Kind` accepted in every branch). The property moves into each member, its
    schema there the schema's own with the member's keywords on top (`{type: string, enum:
    [a]}`), required there when the schema required it. Only where every member is inline
    or hoisted by the IR from an inline schema and named nowhere else, and narrows with
    plain keywords (no type, `$ref` or structure of its own)."""
    text = json.dumps(schemas)
    out = dict(schemas)
    for name, schema in schemas.items():
        own = schema.get("properties") if isinstance(schema, dict) else None
        if not isinstance(own, dict) or not own:
            continue
        for key in ("oneOf", "anyOf"):
            members = schema.get(key)
            if not isinstance(members, list) or not members:
                continue
            bodies: list[tuple[str | None, Any]] = []
            for member in members:
                target, body = _hoisted(member, out, text, hoisted)
                if target is None and isinstance(member, dict) and "$ref" in member:
                    break  # a component named elsewhere too: left as it is
                bodies.append((target, body))
            else:
                if not all(
                    isinstance(body, dict) and isinstance(body.get("properties"), dict)
                    for _, body in bodies
                ):
                    continue
                shared = [
                    prop
                    for prop in own
                    if all(
                        isinstance(
                            narrow := _hoisted(body["properties"].get(prop), out, text, hoisted)[1],
                            dict,
                        )
                        and not any(k in narrow for k in _OWN_SHAPE)
                        for _, body in bodies
                    )
                ]
                wide = {prop: _resolved(own[prop], originals) for prop in shared}
                if not shared or not all(
                    isinstance(w, dict) and "type" in w for w in wide.values()
                ):
                    continue
                required = schema.get("required")
                required = required if isinstance(required, list) else []
                new_members = []
                for (target, body), member in zip(bodies, members, strict=True):
                    props = dict(body["properties"])
                    needs = list(body.get("required") or [])
                    for prop in shared:
                        lifted, narrow = _hoisted(props[prop], out, text, hoisted)
                        if lifted is None:
                            props[prop] = {**wide[prop], **narrow}
                        else:
                            out[lifted] = {**wide[prop], **narrow}
                        if prop in required and prop not in needs:
                            needs.append(prop)
                    narrowed = {
                        **body,
                        "properties": props,
                        **({"required": needs} if needs else {}),
                    }
                    if target is None:
                        new_members.append(narrowed)
                    else:
                        out[target] = narrowed
                        new_members.append(member)
                rewritten = {
                    **schema,
                    key: new_members,
                    "properties": {k: v for k, v in own.items() if k not in shared},
                }
                left = [r for r in required if r not in shared]
                if left:
                    rewritten["required"] = left
                else:
                    rewritten.pop("required", None)
                out[name] = rewritten
                break
    return out


def _hoisted(
    node: Any, schemas: dict[str, Any], text: str, hoisted: frozenset[str]
) -> tuple[str | None, Any]:
    """(class name, its schema) when `node` is only a `$ref` to a schema the IR hoisted
    from an inline one and nothing else names, else (None, node)."""
    ref = node.get("$ref") if isinstance(node, dict) else None
    if not isinstance(ref, str) or len(node) > 1 or not ref.startswith("#/components/schemas/"):
        return None, node
    name = ref.rsplit("/", 1)[-1]
    if name not in hoisted or name not in schemas or text.count(json.dumps(ref)) != 1:
        return None, node
    return name, schemas[name]


def _resolved(schema: Any, schemas: dict[str, Any]) -> Any:
    """A schema with its `$ref`s to component schemas followed (keys beside one win)."""
    for _ in range(32):
        ref = schema.get("$ref") if isinstance(schema, dict) else None
        if not (isinstance(ref, str) and ref.startswith("#/components/schemas/")):
            return schema
        beside = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**(schemas.get(ref.rsplit("/", 1)[-1]) or {}), **beside}
    return schema


def model_ready(
    node: Any, never: frozenset[str] = frozenset(), types: dict[str, Any] | None = None
) -> Any:
    """Schemas as datamodel-code-generator handles them well (`types`: each component
    schema's `type`, its `$ref`s followed):

    - a `discriminator` outside a oneOf/anyOf (on an allOf base) is dropped: it would make
      the base's property `Literal['<BaseName>']` and every subclass's the class name;
    - `default: null` on a property that does not allow null is dropped;
    - a `const` object or array is dropped, the schema read as its type (datamodel-code-
      generator writes a field typed as the value's type with the default `None`); so is
      an `enum` with an object or array member (it wrote enum members `LIST___ = []`,
      which fail mypy --strict: no enum class holds them); a float
      `const` is written `minimum` = `maximum` = the value (it wrote `x: float = None`);
    - what datamodel-code-generator reads as instructions to itself (`customTypePath`,
      `customBasePath`, `x-python-type`, `x-python-import`, `x-is-classvar`, ...: an import
      of any module the document names) is dropped; property names, data (`default`,
      `enum`, `example`...) and other extensions are kept as written, never read as schemas;
    - `false` members (or `$ref`s to a `false` schema, named in `never`) of an anyOf/oneOf
      are dropped; an `allOf` with one, or an anyOf/oneOf of nothing else (nothing is
      valid), is written `not: {}` with its annotations: datamodel-code-generator refuses
      those ("unsatisfiable") and writes `not` as `Any`, as it does a `false` property;
    - a free-form object (`type: object`, nothing saying what its members are) gets
      `additionalProperties: true`: named, it was a class without fields that dropped every
      member (pydantic ignores extra keys); now its class allows them;
    - a nullable map (`type: [object, 'null']` with an `additionalProperties` schema and no
      `properties`) is written `anyOf: [<the map>, {type: 'null'}]`: datamodel-code-generator
      reads the type list as a bare `dict[str, Any]`, losing the values' type;
    - a `type` beside a `$ref` that the referenced schema has already (`{type: object,
      $ref: File}`) is dropped: it adds nothing, but datamodel-code-generator made a copy of
      the referenced class for it (`Datum1`, the same fields as `File`), which the client's
      unwrapped answers and every other use of `File` did not match (mypy refused them);
    - a `pattern` (or `patternProperties` key) is written as pydantic compiles it
      (`patterns.readable`), dropped when neither of its engines does (the class would not
      import; the `pattern` rule warns).
    """
    if isinstance(node, list):
        return [model_ready(v, never, types) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if not isinstance(key, str) or key in _DATA or key.startswith("x-"):
            if not _tool_directive(key):
                out[key] = value
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: model_ready(sub, never, types) for name, sub in value.items()}
        elif key not in _TOOL_KEYS:
            out[key] = model_ready(value, never, types)
    ref = out.get("$ref")
    if "type" in out and isinstance(ref, str) and ref.startswith("#/components/schemas/"):
        name = ref.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
        if types is not None and types.get(name) == out["type"]:
            del out["type"]
    allof = out.get("allOf")
    unsatisfiable = isinstance(allof, list) and any(_never(m, never) for m in allof)
    for keyword in ("anyOf", "oneOf"):  # a member nothing matches changes nothing
        members = out.get(keyword)
        if isinstance(members, list) and any(_never(m, never) for m in members):
            out[keyword] = [m for m in members if not _never(m, never)]
            unsatisfiable |= not out[keyword]
    if unsatisfiable:
        out = {k: v for k, v in out.items() if k in _ANNOTATIONS} | {"not": {}}
    if isinstance(out.get("const"), (dict, list)):  # the `models` rule warns: read as its type
        value = out.pop("const")
        out.setdefault("type", "object" if isinstance(value, dict) else "array")
    if isinstance(out.get("const"), float):  # no Literal holds a float: its only value's range
        out["minimum"] = out["maximum"] = out.pop("const")
        out.setdefault("type", "number")
    if "discriminator" in out and not ("oneOf" in out or "anyOf" in out):
        del out["discriminator"]
    if "default" in out and out["default"] is None and not _allows_null(out):
        del out["default"]
    if structured_enum(out):  # the `models` rule warns: read as its members' type
        kinds = {_kind(v) for v in out.pop("enum")}
        if "type" not in out and len(kinds) == 1 and None not in kinds:
            out["type"] = kinds.pop()
    _nullable_map(out)
    _prefix_items(out)
    _constrained_type_list(out)
    if _free_form(out):  # any members: a map, or the class would drop every one of them
        out["additionalProperties"] = True
    if isinstance(out.get("pattern"), str):
        readable = patterns.readable(out["pattern"])
        if readable is None:
            del out["pattern"]
        else:
            out["pattern"] = python_engine_visible(*readable)
    if isinstance(out.get("patternProperties"), dict):
        kept = {}
        for key, value in out["patternProperties"].items():
            readable = patterns.readable(str(key))
            if readable is not None:
                kept[readable[0]] = value
        out["patternProperties"] = kept
    if isinstance(out.get("properties"), dict):
        _one_engine(out["properties"])
    return out


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


def _constrained_type_list(schema: dict[str, Any]) -> None:
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


def _prefix_items(schema: dict[str, Any]) -> None:
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


_ANNOTATIONS = ("title", "description", "deprecated", "readOnly", "writeOnly")
# what gives an object schema members (or other shapes) of its own
_SHAPING = (
    "properties", "patternProperties", "additionalProperties", "unevaluatedProperties",
    "allOf", "anyOf", "oneOf", "$ref", "enum", "const", "not", "if", "propertyNames",
)  # fmt: skip


def _kind(value: object) -> str | None:
    return "object" if isinstance(value, dict) else "array" if isinstance(value, list) else None


def _free_form(schema: dict[str, Any]) -> bool:
    """`type: object` and nothing saying what its members are: any members are valid.
    datamodel-code-generator writes a named one as a class without fields, whose instances
    (pydantic ignores extra keys) lose every member; with `additionalProperties: true` it
    is a `dict[str, Any]` model."""
    return schema.get("type") == "object" and not any(key in schema for key in _SHAPING)


# keywords whose values are data or names, not schemas: kept as written
_DATA = frozenset(
    {"default", "const", "enum", "example", "examples", "discriminator", "xml", "externalDocs",
     "required", "dependentRequired", "type", "format", "$ref", "$id", "$anchor", "$schema"}
)  # fmt: skip
# keywords whose values map names to schemas: each value is a schema, the map is not
_SCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
# what datamodel-code-generator reads as instructions to itself, not as JSON Schema: a custom
# base class or type to import from a module the document names, a field made a ClassVar,
# a field renamed... (`schema-keyword` warns that the first two are ignored; they are)
_TOOL_KEYS = frozenset({"customTypePath", "customBasePath"})
_TOOL_EXTENSIONS = (
    "x-python-", "x-datamodel-code-generator-", "x-is-base-class", "x-is-classvar",
    "x-enum-field-as-literal",
)  # fmt: skip


def _tool_directive(key: object) -> bool:
    return isinstance(key, str) and key.startswith(_TOOL_EXTENSIONS)


def _is_false(schema: object) -> bool:
    return schema is False


def _never(member: Any, never: frozenset[str]) -> bool:
    """A schema nothing is valid against: `false`, or a `$ref` to a schema that is `false`."""
    if member is False:
        return True
    ref = member.get("$ref") if isinstance(member, dict) else None
    return (
        isinstance(ref, str)
        and ref.startswith("#/components/schemas/")
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


def _nullable_map(schema: dict[str, Any]) -> None:
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


def _one_engine(properties: dict[str, Any]) -> None:
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


def _allows_null(schema: dict[str, Any]) -> bool:
    types = schema.get("type")
    if types == "null" or (isinstance(types, list) and "null" in types):
        return True
    members = [*(schema.get("oneOf") or []), *(schema.get("anyOf") or [])]
    return any(isinstance(m, dict) and _allows_null(m) for m in members)


def _declared_props(schema: Any, schemas: dict[str, Any], seen: frozenset[str]) -> set[str]:
    """The property names a schema declares, through its `$ref`s and allOf members."""
    if not isinstance(schema, dict):
        return set()
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
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


_WARM_UP: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "warm-up", "version": "0"},
    "paths": {},
    "components": {
        "schemas": {
            "Kind": {"type": "string", "enum": ["a", "b"], "description": "An enum."},
            "Item": {
                "type": "object",
                "description": "An object.",
                "required": ["id"],
                "properties": {
                    "id": {"type": "string", "format": "uuid", "description": "A field."},
                    "at": {"type": ["string", "null"], "format": "date-time"},
                    "size": {"type": "integer", "minimum": 0, "default": 1},
                    "kind": {"$ref": "#/components/schemas/Kind"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "extra": {"type": "object", "additionalProperties": {"type": "number"}},
                    "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                },
            },
        }
    },
}


def warm_up() -> None:
    """Import datamodel-code-generator and run it once on a small document, in the worker
    that will generate the models: its first run costs ~0.5 s of imports and template
    compiling, paid this way while the spec is still being read."""
    with stage("models: warm-up"):
        _run_datamodel_codegen(_WARM_UP, "#", "models: warm-up run")


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def generate_models(
    document: dict[str, Any], header: str, cache_dir: Path | None
) -> tuple[str, list[str], int]:
    """The models module source, what datamodel-code-generator warned about while writing it
    (a ref it could not follow, ...) and the longest chain of its classes pydantic may build
    one inside the other (model_depth.build_depth); reused from the cache when the schemas are
    unchanged."""
    from importlib.metadata import version

    # the cached answer depends on the tool's version and on what this module makes of it
    made_by = [version("datamodel-code-generator"), sha256_of(Path(__file__))]
    key = hashlib.sha256(
        json.dumps([document, OPTIONS, header, made_by], sort_keys=True).encode()
    ).hexdigest()[:32]
    cached = cache_dir / f"models-{key}.json" if cache_dir else None
    if cached is not None and cached.is_file():
        kept = json.loads(cached.read_text(encoding="utf-8"))
        return kept["source"], kept["notes"], kept["depth"]
    source, notes, depth = _run_datamodel_codegen(document, header)
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        for old in cached.parent.glob("models-*"):
            old.unlink()
        cached.write_text(
            json.dumps({"source": source, "notes": notes, "depth": depth}), encoding="utf-8"
        )
    return source, notes, depth


def _run_datamodel_codegen(
    document: dict[str, Any], header: str, label: str = "models: generate"
) -> tuple[str, list[str], int]:
    with stage("models: import datamodel-code-generator"):
        from datamodel_code_generator import (  # type: ignore[attr-defined]
            DataModelType,
            InputFileType,
            PythonVersion,
            generate,
        )

    if not document["components"]["schemas"]:  # datamodel-codegen refuses an empty input
        return f"{header}\n\nfrom __future__ import annotations\n", [], 0
    # its Python warnings are findings of the `models` rule, located at the class they name
    # (see warning_notes); none is printed raw on stderr
    with stage(label), collector_paused(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            source = generate(
                document,
                input_file_type=InputFileType.OpenAPI,
                output_model_type=DataModelType.PydanticV2BaseModel,
                target_python_version=PythonVersion.PY_311,
                formatters=[],
                custom_file_header=header,
                **OPTIONS,
            )
        except Exception as exc:
            refused = _refusal(exc)
            if refused is None:
                raise
            raise refused from None
    assert isinstance(source, str)
    source, depth = post_processed(source)
    schemas = document["components"]["schemas"]
    why = (
        "allOf members redeclare fields of the class they extend"
        if allof_overrides(schemas)
        else "oneOf/anyOf members narrow fields the schema itself declares"
        if union_member_overrides(schemas)
        else "a union's default is its JSON value (pydantic validates it), or sits on each member"
        if union_defaults(schemas)
        else ""
    )
    if why:
        first, _, rest = source.partition("\n")
        note = f'# {why}:\n# mypy: disable-error-code="assignment"'
        source = f"{first}\n{note}\n{rest}"
    return source, warning_notes(caught), depth


class ModelsRefused(Exception):
    """datamodel-code-generator refused a schema (its SchemaParseError): where, in the models
    document (`/components/schemas/<Class>/...`), and why. Its arguments are its fields, so
    it crosses the models worker's pipe as it is."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(path, reason)
        self.path, self.reason = path, reason

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def _refusal(exc: Exception) -> ModelsRefused | None:
    if type(exc).__name__ != "SchemaParseError":
        return None
    paths = [str(p) for p in getattr(exc, "path", None) or [] if str(p).startswith("#/")]
    path = paths[0][1:] if paths else "/components/schemas"
    reason = " ".join(str(exc).split())
    reason = re.sub(r"^Error at schema path '[^']*': ", "", reason)
    return ModelsRefused(path, reason)


def refusal_pointer(path: str, pointers: dict[str, str]) -> str:
    """The document's pointer of a models-document path (`/components/schemas/<Class>/...`:
    the class's own schema, wherever the IR found it, then the rest of the path)."""
    parts = path.split("/")
    if len(parts) >= 4 and parts[1:3] == ["components", "schemas"] and parts[3] in pointers:
        return "/".join([pointers[parts[3]], *parts[4:]])
    return path


# a `format` it has no type for: the schema's own type is used, as the spec says (formats
# are open-ended: `currency`, `uint64`, ...); nothing is lost, nothing to warn about
_UNKNOWN_FORMAT = re.compile(r"format of .* not understood for ")


def warning_notes(caught: list[warnings.WarningMessage]) -> list[str]:
    """datamodel-code-generator's warnings as one line each, in order, each once; its advice
    about its own command-line options (`use --strict-refs ...`) and unknown formats left
    out."""
    out: list[str] = []
    for warning in caught:
        text = " ".join(str(warning.message).split())
        if _UNKNOWN_FORMAT.match(text):
            continue
        text = re.sub(r"[;,]? *(?:use|pass|set) --[\w-]+.*$", "", text).rstrip(" .;,")
        if text and text not in out:
            out.append(text)
    return out


def union_defaults(node: Any) -> bool:
    """Whether a oneOf/anyOf schema has a `default`: datamodel-code-generator writes it as the
    raw value of a field typed with the union's class (`batch_size: BatchSize = "auto"`,
    pydantic validates it: `validate_default=True`) and copies it onto the members' classes
    (`class BatchSize2(RootModel[int]): root: int = "auto"`); mypy reports each assignment."""
    if isinstance(node, list):
        return any(union_defaults(v) for v in node)
    if not isinstance(node, dict):
        return False
    if "default" in node and ("oneOf" in node or "anyOf" in node):
        return True
    return any(union_defaults(v) for k, v in node.items() if k not in ("default", "example"))


_IGNORE_BASES = "# type: ignore[misc, unused-ignore]"
_MANY_BASES = re.compile(r"^class \w+\(\s*\w+\s*,", re.MULTILINE)


# an edit of the models module's text: (line, column, end line, end column, new text), lines
# from 1 and columns in UTF-8 bytes, as the ast module gives them
_Edit = tuple[int, int, int, int, str]


def post_processed(source: str) -> tuple[str, int]:
    """datamodel-code-generator's module made to pass mypy --strict (bare generics typed, JSON
    defaults on typed fields, base classes that disagree), and the longest chain of its
    classes pydantic may build one inside the other (model_depth.build_depth). The module is
    parsed once for all of it: on a large document (DigitalOcean: 24,000 lines) each parse
    costs some 0.2 s on the build's critical path."""
    from .depth import build_depth_of

    source = bare_generics_typed(source)
    try:
        tree = ast.parse(source)
    except SyntaxError:  # the import probe reports it, at its line
        return source, 0
    typed = _typed_default_edits(tree)
    edits = typed + (_base_conflict_edits(source, tree) if _MANY_BASES.search(source) else [])
    needed = bool(typed) or (_FIELD_ALIASED in source and _calls_field(tree))
    return _with_field_import(_edited(source, edits), tree, needed), build_depth_of(tree)


# datamodel-code-generator imports pydantic's Field under another name when a property is
# named `Field`, but still calls it `Field(...)` in a RootModel's `root` (NameError: the
# class was never complete; met by the mutation fuzzer)
_FIELD_ALIASED = "Field as Field_aliased"


def _calls_field(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Field"
        for node in ast.walk(tree)
    )


def _edited(source: str, edits: list[_Edit]) -> str:
    """`source` with each edit made (they do not overlap)."""
    if not edits:
        return source
    lines = source.splitlines(keepends=True)
    for line, start, end_line, end, text in sorted(edits, reverse=True):
        first, last = lines[line - 1].encode(), lines[end_line - 1].encode()
        lines[line - 1 : end_line] = [(first[:start] + text.encode() + last[end:]).decode()]
    return "".join(lines)


def base_conflicts_ignored(source: str) -> str:
    """Classes whose bases declare one field with different types, marked for mypy.

    datamodel-code-generator writes `allOf: [Base, {anyOf: [...], properties: ...}]` as
    `class X4(X1, X3)`, where X1 (an anyOf branch with the properties) narrows a field X3
    inherits from Base (`object: ObjectEnum` against `object: str`). pydantic takes the first
    base's field, as the document means; mypy wants the same type in both bases (`Definition
    of "object" in base class "X1" is incompatible with definition in base class "X3"`,
    [misc]). Such a class header gets a `type: ignore` on its first line (ruff keeps a comment
    after the opening parenthesis there); `unused-ignore` keeps it quiet where mypy finds the
    two types equivalent after all.
    """
    if not _MANY_BASES.search(source):  # the common case: not worth parsing the module
        return source
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    return _edited(source, _base_conflict_edits(source, tree))


def _base_conflict_edits(source: str, tree: ast.Module) -> list[_Edit]:
    """The class headers `base_conflicts_ignored` marks, as edits."""
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    declared: dict[str, dict[str, str]] = {}

    def fields(name: str) -> dict[str, str]:  # only the classes a multi-base class inherits
        if name not in declared:
            declared[name] = _declared(classes[name])
        return declared[name]

    bases = {
        name: [b.id for b in node.bases if isinstance(b, ast.Name) and b.id in classes]
        for name, node in classes.items()
    }
    orders: dict[str, list[str]] = {}

    def order(name: str, around: frozenset[str] = frozenset()) -> list[str]:
        """The class and its ancestors in this module, nearest first (depth first, each once:
        close enough to the MRO for telling ancestors apart)."""
        if name not in orders:
            found = [name]
            for base in bases[name]:
                if base not in around:
                    found += [c for c in order(base, around | {name}) if c not in found]
            orders[name] = found
        return orders[name]

    lines = source.split("\n")
    edits: list[_Edit] = []
    for name, node in classes.items():
        if len(node.bases) < 2:
            continue
        mro = order(name)[1:]
        own = fields(name)
        if not any(
            field not in own
            and field in fields(other)
            and other not in order(base)
            and fields(base)[field] != fields(other)[field]
            for i, base in enumerate(mro)
            for field in fields(base)
            for other in mro[i + 1 :]
        ):
            continue
        start, end = node.lineno - 1, node.body[0].lineno - 1
        header = " ".join(line.strip() for line in lines[start:end])
        head, paren, rest = header.partition("(")
        if not paren or not rest.endswith("):"):
            continue
        text = f"{head}(  {_IGNORE_BASES}\n    {rest[:-2]}\n):\n"
        edits.append((start + 1, 0, end + 1, 0, text))
    return edits


class _Unannotated(ast.NodeTransformer):
    """`Annotated[T, ...]` read as `T`: mypy compares the types, not the constraints."""

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == "Annotated":
            inner = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) else node.slice
            found: ast.AST = self.visit(inner)
            return found
        return self.generic_visit(node)


def _union(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union(node.left) + _union(node.right)
    return [node]


def _declared(node: ast.ClassDef) -> dict[str, str]:
    """Fields a class body declares, each with its type (members of a union sorted)."""
    found = {}
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            annotation = _Unannotated().visit(stmt.annotation)
            members = sorted(ast.dump(member) for member in _union(annotation))
            found[stmt.target.id] = " | ".join(members)
    return found


_BARE = re.compile(r"(?<![\w.\"'])(list|dict)(?=\]|\s*$|\s*\||\s*=|,)", re.MULTILINE)


# the Python types datamodel-code-generator gives string formats (date-time, duration, uuid,
# uri, ipv4, decimal...): a str default written as it is does not type-check against them
_FORMAT_CLASSES = frozenset(
    {
        "AwareDatetime",
        "NaiveDatetime",
        "datetime",
        "date",
        "time",
        "timedelta",
        "UUID",
        "UUID1",
        "UUID3",
        "UUID4",
        "UUID5",
        "AnyUrl",
        "AnyHttpUrl",
        "HttpUrl",
        "IPv4Address",
        "IPv6Address",
        "IPv4Network",
        "IPv6Network",
        "IPv4Interface",
        "IPv6Interface",
        "Decimal",
    }
)


def typed_string_defaults(source: str) -> str:
    """Defaults datamodel-code-generator writes as JSON values mypy refuses for their field:

    - a str default on a string format's class (`ttl: timedelta = "PT1H"`);
    - an object or array default on a field typed with one of the module's classes
      (`meta: Annotated[ObjectMeta, Field(validate_default=True)] = {}`, `items: list[Foo]
      = [{"text": "abc"}]`: the schema's `default: {}` on an `allOf: [$ref]` property).

    Each is written `Field(default=..., validate_default=True)`, so mypy accepts it and
    pydantic turns it into the field's type (the repair step dropped the defaults it would
    refuse)."""
    tree = ast.parse(source)
    edits = _typed_default_edits(tree)
    return _with_field_import(_edited(source, edits), tree, bool(edits))


def _typed_default_edits(tree: ast.Module) -> list[_Edit]:
    """The defaults `typed_string_defaults` rewrites, as edits."""
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    edits: list[_Edit] = []
    todo = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    while todo:
        node = todo.pop()
        for field in node.body:
            if isinstance(field, ast.ClassDef):
                todo.append(field)
            if not isinstance(field, ast.AnnAssign) or field.value is None:
                continue
            value = field.value
            # only a str, an object or an array can be one: the annotation's names are read
            # for those alone (most fields have no default, or None)
            if not (
                isinstance(value, ast.Dict | ast.List)
                or (isinstance(value, ast.Constant) and isinstance(value.value, str))
            ):
                continue
            names = {n.id for n in ast.walk(field.annotation) if isinstance(n, ast.Name)}
            if not (_str_on_format(value, names) or _json_on_class(value, names, classes)):
                continue
            text = f"Field(default={ast.unparse(value)}, validate_default=True)"
            edits.append(
                (
                    value.lineno,
                    value.col_offset,
                    value.end_lineno or value.lineno,
                    value.end_col_offset or 0,
                    text,
                )
            )
    return edits


def _with_field_import(source: str, tree: ast.Module, needed: bool) -> str:
    """`source` importing pydantic's `Field` when `needed` and `tree` (its module before the
    edits) does not."""
    if not needed:
        return source
    imported = {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module == "pydantic"
        for alias in node.names
    }
    if "Field" in imported:
        return source
    return re.sub(
        r"^from pydantic import ",
        "from pydantic import Field\n\\g<0>",
        source,
        count=1,
        flags=re.MULTILINE,
    )


def _str_on_format(value: ast.expr, names: set[str]) -> bool:
    """A str default on a field typed with a string format's class, and not with `str`."""
    return (
        isinstance(value, ast.Constant)
        and isinstance(value.value, str)
        and "str" not in names
        and "Literal" not in names
        and bool(names & _FORMAT_CLASSES)
    )


def _json_on_class(value: ast.expr, names: set[str], classes: set[str]) -> bool:
    """An object, or an array holding values, as the default of a field whose type names one
    of the module's classes (`[]` type-checks as any list; `[Kind.A]` is already typed)."""
    if not (isinstance(value, (ast.Dict, ast.List)) and names & classes):
        return False
    return isinstance(value, ast.Dict) or any(
        isinstance(n, (ast.Dict, ast.Constant)) for n in ast.walk(value)
    )


def bare_generics_typed(source: str) -> str:
    """`RootModel[list]` / `root: list` (an untyped array datamodel-code-generator leaves
    bare) spelled `list[Any]` / `dict[str, Any]`, so the module passes mypy --strict."""
    lines = []
    changed = False
    for line in source.split("\n"):
        code = line.lstrip()
        is_code = (code.startswith("class ") or re.match(r"\w+: ", code)) and '"""' not in code
        if is_code:
            new = _BARE.sub(
                lambda m: "list[Any]" if m.group(1) == "list" else "dict[str, Any]", line
            )
            changed |= new != line
            line = new
        lines.append(line)
    out = "\n".join(lines)
    if changed and not re.search(r"^from typing import .*\bAny\b", out, re.MULTILINE):
        out = out.replace(
            "from __future__ import annotations\n",
            "from __future__ import annotations\n\nfrom typing import Any\n",
            1,
        )
    return out


def any_classes(source: str, names: list[str]) -> str:
    """`source` with a `RootModel[Any]` class for each of `names`: schemas datamodel-code-
    generator wrote no class for (a contradiction such as an object `$ref` with boolean
    `enum` values beside it). The build goes on with them as any value, each a `models`
    warning, rather than stopping on an internal error."""
    imports = "from typing import Any\n\nfrom pydantic import RootModel\n"
    future = "from __future__ import annotations\n"
    if future in source:
        source = source.replace(future, future + "\n" + imports, 1)
    else:
        source = imports + source
    classes = "".join(f"\n\nclass {name}(RootModel[Any]):\n    root: Any\n" for name in names)
    return source.rstrip("\n") + "\n" + classes


def model_names(source: str) -> set[str]:
    return set(re.findall(r"^class (\w+)\(", source, re.MULTILINE))


_CLASS_HEADER = re.compile(r"^class (\w+)\(([^)]*)\):", re.MULTILINE)
_ENUM_BASES = frozenset({"Enum", "StrEnum", "IntEnum", "Flag", "IntFlag"})


def enum_class_names(source: str) -> set[str]:
    """The classes of a models module that are enums: based on `Enum`, `StrEnum`, `IntEnum`
    (or `str, Enum`), or on another of its enum classes."""
    bases = {
        name: {base.strip().rsplit(".", 1)[-1] for base in written.split(",")}
        for name, written in _CLASS_HEADER.findall(source)
    }
    found: set[str] = set()
    while True:
        more = {n for n, b in bases.items() if n not in found and b & (_ENUM_BASES | found)}
        if not more:
            return found
        found |= more

"""The IR's schemas prepared for datamodel-code-generator: the models document (one
schema per class the IR named), each schema rewritten into a form it handles well
(`model_ready`), enum extensions and narrowed union members."""

from __future__ import annotations

import json
import re
from typing import Any

from ...document import patterns
from ...document.openapi import OBJECT_KEYWORDS, SCHEMA_REF
from ...document.pointer import unescape_pointer_token
from ...document.refs import deref
from ...document.walk import structured_enum
from ...ir import Api
from ...ir.schemas import deep_refs_followed
from .keywords import (
    ANNOTATIONS,
    DATA_KEYWORDS,
    SCHEMA_MAP_KEYWORDS,
    TOOL_KEYS,
    allows_null,
    constrained_type_list,
    free_form,
    is_false,
    never_member,
    nullable_map,
    one_engine,
    prefix_items,
    python_engine_visible,
    tool_directive,
    value_kind,
)
from .named import named


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
    never = frozenset(name for name, schema in api.schemas.items() if is_false(schema))
    types = {name: _resolved(schema, api.schemas) for name, schema in api.schemas.items()}
    types = {name: t.get("type") for name, t in types.items() if isinstance(t, dict)}
    schemas = narrowed_in_members(
        inline_primitive_refs(deep_refs_followed(hints_apart(api.schemas)), api.schemas),
        api.schemas,
        _hoisted_names(api),
    )
    enums = frozenset(name for name, schema in schemas.items() if _plain_enum(schema))
    schemas = {name: _enum_extended(schema, enums) for name, schema in schemas.items()}
    schemas = {name: _enum_alias(schema, schemas) for name, schema in schemas.items()}
    # every class named here, none by datamodel-code-generator (named.py)
    return named(
        {
            "openapi": "3.1.0",
            "info": {"title": api.title or "API", "version": api.version or "0"},
            "paths": {},
            "components": {
                "schemas": {
                    name: model_ready(schema, never, types) for name, schema in schemas.items()
                }
            },
        }
    )


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
        if key not in DATA_KEYWORDS and not str(key).startswith("x-")
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
    if not isinstance(ref, str) or len(node) > 1 or not ref.startswith(SCHEMA_REF):
        return None, node
    name = ref.rsplit("/", 1)[-1]
    if name not in hoisted or name not in schemas or text.count(json.dumps(ref)) != 1:
        return None, node
    return name, schemas[name]


def _resolved(schema: Any, schemas: dict[str, Any]) -> Any:
    """A schema with its `$ref`s to component schemas followed (keys beside one win)."""
    return deref({"components": {"schemas": schemas}}, schema, siblings="merge")


def hints_apart(schemas: dict[str, Any]) -> dict[str, Any]:
    """The schemas with each oneOf/anyOf `discriminator` pydantic cannot hold to dropped: the
    union is then a plain one (pydantic picks the member that fits), as JSON Schema reads it
    (the discriminator is a hint). datamodel-code-generator narrows each member's tag
    property to a `Literal` of the tags that name it (its class name when the mapping names
    none), so a member whose own schema allows other values (a shared `enum` of every tag,
    a plain string) refused values its schema accepts, and a tag two members allow stopped
    the module from importing. Kept when every member is a `$ref` whose tag property is a
    `const` or `enum` equal to the tags naming it (or, named by none, its own values), and no
    two members share a value."""

    def drop(node: Any) -> Any:
        if isinstance(node, list):
            return [drop(v) for v in node]
        if not isinstance(node, dict):
            return node
        out = {
            k: v if str(k).startswith("x-") or k in DATA_KEYWORDS else drop(v)
            for k, v in node.items()
        }
        hint = out.get("discriminator")
        if isinstance(hint, dict) and not _discriminates(out, hint, schemas):
            del out["discriminator"]
        return out

    return {name: drop(schema) for name, schema in schemas.items()}


def _discriminates(node: dict[str, Any], hint: dict[str, Any], schemas: dict[str, Any]) -> bool:
    members = node.get("oneOf", node.get("anyOf"))
    tag = hint.get("propertyName")
    if not isinstance(members, list) or not isinstance(tag, str):
        return True  # not a union: model_ready drops it
    mapping = hint.get("mapping")
    named: dict[str, set[Any]] = {}
    for key, value in mapping.items() if isinstance(mapping, dict) else ():
        target = value if str(value).startswith("#") else SCHEMA_REF + str(value)
        named.setdefault(target, set()).add(key)
    seen: set[Any] = set()
    for member in members:
        ref = member.get("$ref") if isinstance(member, dict) else None
        if not isinstance(ref, str) or not ref.startswith(SCHEMA_REF):
            return False
        allowed = _tag_values(_resolved(member, schemas), tag, schemas, 0)
        tags = named.get(ref) or allowed
        if allowed is None or tags != allowed or tags & seen:
            return False
        seen |= tags
    return True


def _tag_values(schema: Any, tag: str, schemas: dict[str, Any], depth: int) -> set[Any] | None:
    """The values a schema's (allOf's) `tag` property may take by its `const` / `enum`s (their
    intersection), None when nothing limits them."""
    if not isinstance(schema, dict) or depth > 16:
        return None
    found: set[Any] | None = None
    prop = _resolved((schema.get("properties") or {}).get(tag), schemas)
    if isinstance(prop, dict) and isinstance(prop.get("const"), str):
        found = {prop["const"]}
    elif isinstance(prop, dict) and isinstance(prop.get("enum"), list):
        found = set(prop["enum"]) if all(isinstance(v, str) for v in prop["enum"]) else None
    for member in schema.get("allOf") or []:
        values = _tag_values(_resolved(member, schemas), tag, schemas, depth + 1)
        if values is not None:
            found = values if found is None else found & values
    return found


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
        if not isinstance(key, str) or key in DATA_KEYWORDS or key.startswith("x-"):
            if not tool_directive(key):
                out[key] = value
        elif key in SCHEMA_MAP_KEYWORDS and isinstance(value, dict):
            out[key] = {name: model_ready(sub, never, types) for name, sub in value.items()}
        elif key not in TOOL_KEYS:
            out[key] = model_ready(value, never, types)
    ref = out.get("$ref")
    if "type" in out and isinstance(ref, str) and ref.startswith(SCHEMA_REF):
        name = ref.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
        if types is not None and types.get(name) == out["type"]:
            del out["type"]
    allof = out.get("allOf")
    unsatisfiable = isinstance(allof, list) and any(never_member(m, never) for m in allof)
    for keyword in ("anyOf", "oneOf"):  # a member nothing matches changes nothing
        members = out.get(keyword)
        if isinstance(members, list) and any(never_member(m, never) for m in members):
            out[keyword] = [m for m in members if not never_member(m, never)]
            unsatisfiable |= not out[keyword]
    if unsatisfiable:
        out = {k: v for k, v in out.items() if k in ANNOTATIONS} | {"not": {}}
    if isinstance(out.get("const"), (dict, list)):  # the `models` rule warns: read as its type
        value = out.pop("const")
        out.setdefault("type", "object" if isinstance(value, dict) else "array")
    if isinstance(out.get("const"), float):  # no Literal holds a float: its only value's range
        out["minimum"] = out["maximum"] = out.pop("const")
        out.setdefault("type", "number")
    if "discriminator" in out and not ("oneOf" in out or "anyOf" in out):
        del out["discriminator"]
    if "default" in out and out["default"] is None and not allows_null(out):
        del out["default"]
    if structured_enum(out):  # the `models` rule warns: read as its members' type
        kinds = {value_kind(v) for v in out.pop("enum")}
        if "type" not in out and len(kinds) == 1 and None not in kinds:
            out["type"] = kinds.pop()
    nullable_map(out)
    prefix_items(out)
    constrained_type_list(out)
    if free_form(out):  # any members: a map, or the class would drop every one of them
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
        one_engine(out["properties"])
    return out

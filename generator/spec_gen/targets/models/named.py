"""Every class of the models module named before datamodel-code-generator runs.

The tool makes classes of some inline schemas and names them itself, from the property or
the pointer they sit at, numbered to stay unique in the run (`CompletedAt`, `Field0Model7`):
a class's name, and so the text of every class naming it, would depend on the other classes
of the run. `named` hoists those schemas into components of their own first, named after
the component they sit in (a function of the document alone), so that each class the tool
writes is a schema of the models document and can be generated apart (build/models_cache.py):

- a ref into a schema's inside (`#/components/schemas/Tag/allOf/0`): the schema there
  becomes a component (`TagAllOf0`), referred to from where it was (the tool made a class
  of it too: `Tag(TagAllOf0)` where it wrote `Tag` with the fields of both) and by every
  such ref;
- a oneOf/anyOf member the tool writes as a class (an object with properties, an enum, a
  constrained string or number): a component (`WebhookDeliveryCompletedAt`; numbered
  when the union has several). A member that
  is a map or a bare object, a plain type, an array, `null` is left in place: the tool types
  it inline.
- an enum in a property of an inline allOf member: a component (`TagType`);
- a ref with a `required` of its own (the tool writes a copy of the class it names with
  those fields required, named after the property, which could take a schema's name):
  a component (`AddOnCreateInputAddOn`).

A schema the tool would still name itself leaves the module unsplit (pieces.split): the
whole document is generated in one run, as before; `tool_names_some` tells so before any
run (build/models_parts.py then makes no run on a part).
"""

from __future__ import annotations

import copy
from typing import Any

from ...core.naming import class_name, pascal
from ...document.openapi import SCHEMA_REF
from ...document.pointer import unescape_pointer_token

_CONSTRAINTS = (
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
)
_ARRAY_CONSTRAINTS = ("minItems", "maxItems", "uniqueItems")


def named(document: dict[str, Any]) -> dict[str, Any]:
    """`document` (a models document) with the schemas the tool would name hoisted."""
    schemas: dict[str, Any] = dict(document["components"]["schemas"])
    pointers, holders = _deep_refs(schemas)
    for owner in {_owner(p) for p in pointers} & schemas.keys():  # edited in place below
        schemas[owner] = copy.deepcopy(schemas[owner])
    taken = set(schemas)
    hoisted: dict[str, list[tuple[str, Any]]] = {}  # owner -> [(name, schema)]
    renamed: dict[str, str] = {}
    # deepest first: a ref into a part of another hoisted part finds it still in place
    for pointer in sorted(pointers, key=lambda p: -p.count("/")):  # stable: ties in order
        owner, *path = [unescape_pointer_token(t) for t in pointer[len(SCHEMA_REF) :].split("/")]
        if owner not in schemas:
            continue
        parent, key = _parent(schemas[owner], path)
        if parent is None:
            continue
        tail = [p for p in path if p != "properties"][-2:]
        name = class_name(owner + "".join(pascal(p) for p in tail), taken)
        target = SCHEMA_REF + name
        hoisted.setdefault(owner, []).append((name, parent[key]))
        parent[key] = {"$ref": target}
        renamed[pointer] = target
    if renamed:
        schemas.update({name: _refs_renamed(schemas[name], renamed) for name in holders})
        hoisted = {o: [(n, _refs_renamed(s, renamed)) for n, s in h] for o, h in hoisted.items()}
    for owner in list(schemas):
        found: list[tuple[str, Any]] = []
        schemas[owner] = _extended_members(schemas, owner, taken, found)
        schemas[owner] = _members_hoisted(schemas[owner], owner, taken, found)
        for name, schema in hoisted.get(owner, []):
            found.append((name, _members_hoisted(schema, name, taken, found)))
        hoisted[owner] = found
    out: dict[str, Any] = {}
    for owner, schema in schemas.items():
        for name, part in hoisted.get(owner, []):
            out[name] = part
        out[owner] = schema
    return {**document, "components": {**document["components"], "schemas": out}}


def _owner(pointer: str) -> str:
    return unescape_pointer_token(pointer[len(SCHEMA_REF) :].split("/")[0])


def _deep_refs(schemas: dict[str, Any]) -> tuple[list[str], set[str]]:
    """The refs into a schema's inside, each once, in the document's order, and the
    schemas holding one."""
    found: dict[str, None] = {}

    def walk(node: Any) -> bool:
        held = False
        if isinstance(node, dict):
            ref = node.get("$ref")
            if (
                isinstance(ref, str)
                and ref.startswith(SCHEMA_REF)
                and "/" in ref[len(SCHEMA_REF) :]
            ):
                found[ref] = None
                held = True
            for value in node.values():
                held = walk(value) or held
        elif isinstance(node, list):
            for value in node:
                held = walk(value) or held
        return held

    holders = {name for name, schema in schemas.items() if walk(schema)}
    return list(found), holders


def _parent(node: Any, path: list[str]) -> tuple[Any, Any]:
    for token in path[:-1]:
        node = _step(node, token)
    if not path or _step(node, path[-1]) is None:
        return None, None
    key: Any = int(path[-1]) if isinstance(node, list) else path[-1]
    return node, key


def _step(node: Any, token: str) -> Any:
    if isinstance(node, dict):
        return node.get(token)
    if isinstance(node, list) and token.isdigit() and int(token) < len(node):
        return node[int(token)]
    return None


def _refs_renamed(node: Any, renamed: dict[str, str]) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref in renamed:
            node = {**node, "$ref": renamed[ref]}
        return {k: _refs_renamed(v, renamed) for k, v in node.items()}
    if isinstance(node, list):
        return [_refs_renamed(v, renamed) for v in node]
    return node


def _kinds(schema: dict[str, Any]) -> set[Any]:
    kinds = schema.get("type")
    return {k for k in (kinds if isinstance(kinds, list) else [kinds]) if k is not None} - {"null"}


# the keywords of a member that only describes (`allOf: [{$ref: X}, {description: ...}]` is X)
_ANNOTATIONS = frozenset(
    {
        "description",
        "title",
        "examples",
        "example",
        "default",
        "deprecated",
        "readOnly",
        "writeOnly",
    }
)


def _annotation(member: Any) -> bool:
    return isinstance(member, dict) and all(
        k in _ANNOTATIONS or str(k).startswith("x-") for k in member
    )


def _classed(schema: Any, where: str) -> bool:
    """Whether the tool writes an inline schema as a class of its own: an object with
    properties, an enum; as a union member or an array's items also a constrained string or
    number; as a union member also an array with constraints of its own; anywhere an allOf
    of more than one schema (a member that only describes not counted), a ref with a `type` beside; as an array's items a union with a
    discriminator."""
    if not isinstance(schema, dict):
        return False
    if "$ref" in schema:  # a `type` beside it: a class of its own, named after the property;
        # a `required` beside it: a copy of the class it names, named after the property
        # (Lago's `add_on: {$ref: AddOnBaseInput, required: [...]}` was `AddOn`, and the
        # schema `AddOn` became `AddOn1`)
        return "type" in schema or "required" in schema
    if isinstance(schema.get("properties"), dict) and schema["properties"]:
        return True
    if isinstance(schema.get("enum"), list):
        return True
    members = schema.get("allOf")
    if isinstance(members, list) and sum(not _annotation(m) for m in members) > 1:
        return True  # a class extending its members, or a RootModel of their constraints
    if where == "items" and "discriminator" in schema and ("oneOf" in schema or "anyOf" in schema):
        return True  # a list of a discriminated union: a RootModel of the union
    if where == "property":
        return False
    scalar = _kinds(schema)
    if bool(scalar) and scalar <= {"string", "integer", "number"}:
        return any(k in schema for k in _CONSTRAINTS)
    return (
        where == "member" and scalar == {"array"} and any(k in schema for k in _ARRAY_CONSTRAINTS)
    )


def _members_hoisted(node: Any, hint: str, taken: set[str], found: list[tuple[str, Any]]) -> Any:
    """`node` with its classed union members (and the enums of its inline allOf members'
    properties) replaced by refs to components appended to `found`."""
    if isinstance(node, list):
        return [_members_hoisted(v, hint, taken, found) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("oneOf", "anyOf") and isinstance(value, list):
            members = []
            several = sum(_classed(member, "member") for member in value) > 1
            for member in value:
                if _classed(member, "member"):
                    alone = not several and class_name(hint, set()) not in taken
                    name = class_name(hint, taken) if alone else _numbered(hint, taken)
                    found.append((name, _members_hoisted(member, name, taken, found)))
                    members.append({"$ref": SCHEMA_REF + name})
                else:
                    members.append(_members_hoisted(member, hint, taken, found))
            out[key] = members
        elif key == "allOf" and isinstance(value, list):
            out[key] = [_members_hoisted(v, hint, taken, found) for v in value]
        elif key == "properties" and isinstance(value, dict):
            props = {}
            for prop, schema in value.items():
                inner = f"{hint}{pascal(str(prop))}"
                props[prop] = _hoisted_if_classed(schema, inner, "property", taken, found)
            out[key] = props
        elif key == "items":
            out[key] = _hoisted_if_classed(value, f"{hint}Item", "items", taken, found)
        elif key in ("additionalProperties", "not"):
            out[key] = _members_hoisted(value, hint, taken, found)
        else:
            out[key] = value
    return out


def _hoisted_if_classed(
    schema: Any, hint: str, where: str, taken: set[str], found: list[tuple[str, Any]]
) -> Any:
    """A property's or an array's items' schema: a ref to a component of its own when the
    tool would write it as a class."""
    if not _classed(schema, where):
        return _members_hoisted(schema, hint, taken, found)
    name = class_name(hint, taken)
    found.append((name, _members_hoisted(schema, name, taken, found)))
    return {"$ref": SCHEMA_REF + name}


# what a schema keeps when its properties move into its union's members
_KEPT_ON_UNION = ("description", "title", "default", "examples", "example", "deprecated")


def _extended_members(
    schemas: dict[str, Any], owner: str, taken: set[str], found: list[tuple[str, Any]]
) -> Any:
    """A schema with properties of its own and a oneOf/anyOf of refs: the tool writes each
    member as a subclass holding those properties, numbered after the schema's name
    (`Channel6(Channel1)`). Written so here, each such member a component (`ChannelOneOf0`:
    allOf the member, with the schema's object keywords), the schema the union of them;
    not when a member leads back to the schema (`EcKey: allOf [SigningKey]`)."""
    schema = schemas[owner]
    if not (isinstance(schema, dict) and isinstance(schema.get("properties"), dict)):
        return schema
    unions = [k for k in ("oneOf", "anyOf") if isinstance(schema.get(k), list) and schema[k]]
    if len(unions) != 1 or "allOf" in schema:
        return schema
    key = unions[0]
    members = schema[key]
    if not all(isinstance(m, dict) and set(m) == {"$ref"} for m in members):
        return schema
    if owner in _reached([m["$ref"] for m in members], schemas):
        return schema
    own = {k: v for k, v in schema.items() if k != key and k not in _KEPT_ON_UNION}
    out = {k: v for k, v in schema.items() if k in _KEPT_ON_UNION}
    refs = []
    for index, member in enumerate(members):
        name = class_name(f"{owner}{pascal(key)}{index}", taken)
        part = {"allOf": [member], **own}
        if "description" in schema:
            part["description"] = schema["description"]
        found.append((name, part))
        refs.append({"$ref": SCHEMA_REF + name})
    out[key] = refs
    return out


def _numbered(hint: str, taken: set[str]) -> str:
    """`hint` numbered from 1, the first number free (`Value1`, `Value2`), as the tool
    numbers a union's members."""
    base = class_name(hint, set())
    number = 1
    while f"{base}{number}" in taken:
        number += 1
    taken.add(f"{base}{number}")
    return f"{base}{number}"


def _reached(refs: list[Any], schemas: dict[str, Any]) -> set[str]:
    """The components the refs lead to, directly or through the schemas they reach."""
    seen: set[str] = set()
    todo = list(refs)
    while todo:
        ref = todo.pop()
        if not (isinstance(ref, str) and ref.startswith(SCHEMA_REF)):
            continue
        name = unescape_pointer_token(ref[len(SCHEMA_REF) :].split("/")[0])
        if name in seen or name not in schemas:
            continue
        seen.add(name)
        todo.extend(_refs_in(schemas[name]))
    return seen


def _refs_in(node: Any) -> list[Any]:
    if isinstance(node, dict):
        return [node.get("$ref")] + [r for v in node.values() for r in _refs_in(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs_in(v)]
    return []


def tool_names_some(schemas: dict[str, Any]) -> bool:
    """Whether datamodel-code-generator would still name a class itself in a run on
    `schemas` (a named document's): an inline schema `named` leaves in place that the tool
    writes as a class (an object with properties, an enum, an allOf with an inline member,
    a ref with keywords beside, a constrained member, items or map value) anywhere below a
    component's own schema and its allOf members. Its module would then not split
    (pieces.split), so no run on a part of the document is worth making; checked on every
    corpus document (build/models_cache.py's two runs at once)."""
    return any(_names_inside(schema, "root") for schema in schemas.values())


def _names_inside(node: Any, where: str) -> bool:
    if not isinstance(node, dict):
        return False
    if where not in ("root", "root allOf"):
        if "$ref" in node:
            return not _annotation({k: v for k, v in node.items() if k != "$ref"})
        if (isinstance(node.get("properties"), dict) and node["properties"]) or isinstance(
            node.get("enum"), list
        ):
            return True
        members = node.get("allOf")
        if isinstance(members, list) and any(
            not _annotation(m) and not (isinstance(m, dict) and set(m) == {"$ref"}) for m in members
        ):
            return True
        if where in ("member", "items", "value") and _classed(node, "member"):
            return True
    elif "$ref" in node:
        return False
    for key, value in node.items():
        if key in ("oneOf", "anyOf") and isinstance(value, list):
            found = any(_names_inside(v, "member") for v in value)
        elif key == "allOf" and isinstance(value, list):
            inner = "root allOf" if where == "root" else "allOf"
            found = any(_names_inside(v, inner) for v in value)
        elif key == "properties" and isinstance(value, dict):
            found = any(_names_inside(v, "property") for v in value.values())
        elif key == "items":
            found = _names_inside(value, "items")
        elif key in ("additionalProperties", "not"):
            found = _names_inside(value, "value")
        else:
            found = False
        if found:
            return True
    return False

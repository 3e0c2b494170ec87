"""Schemas: safe class names for components, hoisting inline schemas that need a class.

Every model class datamodel-code-generator writes is named here, before it runs: the
component schemas under a safe name (`Response` -> `ResponseModel`, `com.example.Thing`
-> `ComExampleThing`), and every inline schema that would otherwise become a class it
names itself (an object or enum inside a property) hoisted under `<Parent><Property>`.
So the name a router imports is the class of that spec node, bound by JSON pointer.
"""

from __future__ import annotations

import copy
from typing import Any

from ..naming import pascal
from .names import class_name

SCHEMA_REF = "#/components/schemas/"


def escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def rewrite_refs(node: Any, renames: dict[str, str]) -> Any:
    """A copy of `node` with `#/components/schemas/<old>` refs pointing at the new names.

    `x-` extensions are left as written: they are not schemas.
    """
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if isinstance(key, str) and key.startswith("x-"):
                out[key] = value
            elif key == "$ref" and isinstance(value, str) and value.startswith(SCHEMA_REF):
                target = value[len(SCHEMA_REF) :]
                head, sep, rest = target.partition("/")
                name = _unescape(head)
                out[key] = SCHEMA_REF + escape(renames.get(name, name)) + sep + rest
            elif key == "mapping" and isinstance(value, dict):
                out[key] = {k: _rewrite_mapping(v, renames) for k, v in value.items()}
            else:
                out[key] = rewrite_refs(value, renames)
        return out
    if isinstance(node, list):
        return [rewrite_refs(v, renames) for v in node]
    return node


def _rewrite_mapping(value: Any, renames: dict[str, str]) -> Any:
    if isinstance(value, str) and value.startswith(SCHEMA_REF):
        name = _unescape(value[len(SCHEMA_REF) :])
        return SCHEMA_REF + escape(renames.get(name, name))
    if isinstance(value, str) and value in renames:
        return renames[value]
    return value


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def component_names(schemas: dict[str, Any]) -> dict[str, str]:
    """Component schema name -> safe, unique class name, in document order."""
    taken: set[str] = set()
    return {name: class_name(str(name), taken) for name in schemas}


def needs_class(schema: Any) -> bool:
    """Whether datamodel-code-generator would write a class for this inline schema."""
    if not isinstance(schema, dict) or "$ref" in schema:
        return False
    if "enum" in schema and len(schema["enum"]) > 0:
        return True
    if schema.get("properties"):
        return True
    return any(k in schema for k in ("allOf", "oneOf", "anyOf")) and any(
        isinstance(m, dict) and "$ref" not in m and (m.get("properties") or "enum" in m)
        for k in ("allOf", "oneOf", "anyOf")
        for m in schema.get(k) or []
    )


class SchemaSet:
    """The model classes of a document: components plus hoisted inline schemas."""

    def __init__(self, components: dict[str, Any]) -> None:
        self.schemas: dict[str, dict[str, Any]] = {}
        self.children: dict[str, list[str]] = {}  # class -> classes hoisted out of it
        self.top: list[str] = []  # components, then classes hoisted from operations
        self.pointers: dict[str, str] = {}  # class name -> JSON pointer of its spec node
        self.hoisted: set[str] = set()
        self.taken: set[str] = set()
        self.renames = component_names(components)
        self.taken.update(self.renames.values())
        for name, schema in components.items():
            cls = self.renames[name]
            node = rewrite_refs(schema, self.renames) if isinstance(schema, dict) else {}
            self.schemas[cls] = node
            self.pointers[cls] = "/components/schemas/" + escape(str(name))
            self.top.append(cls)
        for name in list(components):
            cls = self.renames[name]
            self.schemas[cls] = self.hoist_nested(self.schemas[cls], cls, self.pointers[cls])

    def ref(self, cls: str) -> dict[str, Any]:
        return {"$ref": SCHEMA_REF + escape(cls)}

    def ordered(self) -> dict[str, dict[str, Any]]:
        """Every class, each one's hoisted parts just before it: a stable, readable order."""
        out: dict[str, dict[str, Any]] = {}

        def emit(cls: str) -> None:
            if cls in out:
                return
            out[cls] = {}  # a recursive schema: placed once
            for child in self.children.get(cls, []):
                emit(child)
            del out[cls]
            out[cls] = self.schemas[cls]

        for cls in self.top:
            emit(cls)
        return out

    def add(self, name: str, schema: dict[str, Any], pointer: str, owner: str = "") -> str:
        """Hoist `schema` (a copy) as a class named after `name`; its nested classes too."""
        cls = class_name(name, self.taken)
        if owner:
            self.children.setdefault(owner, []).append(cls)
        else:
            self.top.append(cls)
        self.schemas[cls] = {}
        self.pointers[cls] = pointer
        self.hoisted.add(cls)
        self.schemas[cls] = self.hoist_nested(copy.deepcopy(schema), cls, pointer)
        return cls

    def hoist_nested(
        self, schema: dict[str, Any], owner: str, pointer: str, parent: str = ""
    ) -> dict[str, Any]:
        """Inline objects and enums inside `schema` replaced by refs to hoisted classes.

        `owner` names them; `parent` is the class they belong to when `owner` is a
        property of it rather than a class (an array property's items)."""
        parent = parent or owner
        out = dict(schema)
        props = schema.get("properties")
        if isinstance(props, dict):
            new_props = {}
            for key, sub in props.items():
                where = f"{pointer}/properties/{escape(str(key))}"
                new_props[key] = self.child(sub, parent, pascal(str(key)), where)
            out["properties"] = new_props
        for key in ("items", "additionalProperties"):
            sub = schema.get(key)
            if isinstance(sub, dict):
                suffix = _singular(owner) if key == "items" else owner + "Value"
                out[key] = self.child(sub, parent, suffix, f"{pointer}/{key}")
        for key in ("allOf", "oneOf", "anyOf"):
            members = schema.get(key)
            if isinstance(members, list):
                out[key] = [
                    self.child(m, parent, f"{owner}{n + 1}", f"{pointer}/{key}/{n}")
                    if isinstance(m, dict) and (m.get("properties") or "enum" in m)
                    else m
                    for n, m in enumerate(members)
                ]
        return out

    def child(self, sub: Any, owner: str, name: str, pointer: str) -> Any:
        """An inline schema inside `owner`: hoisted under `name` as datamodel-code-generator
        would call it when that name is free, else under `<Owner><Name>`."""
        if not isinstance(sub, dict):
            return sub
        if needs_class(sub):
            nullable = _strip_null(sub)
            wanted = name if class_name(name, set(self.taken)) == name else owner + name
            cls = self.add(wanted, nullable[0], pointer, owner)
            ref = self.ref(cls)
            extra = {
                k: sub[k] for k in ("description", "default", "readOnly", "writeOnly") if k in sub
            }
            if nullable[1]:
                return {"anyOf": [ref, {"type": "null"}], **extra}
            return {**ref, **extra} if extra else ref
        if isinstance(sub.get("items"), dict) or isinstance(sub.get("additionalProperties"), dict):
            return self.hoist_nested(sub, name, pointer, owner)
        return sub


def _strip_null(schema: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The schema without `null` in its type list (and enum), and whether null was there."""
    types = schema.get("type")
    if isinstance(types, list) and "null" in types:
        rest = [t for t in types if t != "null"]
        out = {**schema, "type": rest[0] if len(rest) == 1 else rest}
        if isinstance(schema.get("enum"), list):
            out["enum"] = [v for v in schema["enum"] if v is not None]
        return out, True
    return schema, False


def _singular(name: str) -> str:
    """`SkippedReasons` -> `SkippedReason`, as datamodel-code-generator names array items."""
    if name.endswith("ies") and len(name) > 3:
        return name[:-3] + "y"
    if name.endswith("s") and not name.endswith("ss") and len(name) > 1:
        return name[:-1]
    return name + "Item"

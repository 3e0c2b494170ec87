"""The TypeScript client's types (`types.ts`): one type alias per schema, wire names kept.

Enums are closed in requests and open in answers (`"a" | "b" | (string & {})`: the known
values still complete in an editor, a value the API adds later still type-checks), as the
Python client's models accept unknown values. A schema reached from answers is written in its
answer form under its own name; when requests reach it too and the two forms differ (it holds
an enum, itself or through the schemas it refers to), its closed form is written as well,
`<Name>Input` (the IR's suffix for request shapes), and request types refer to that.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.naming import unique
from ..document.openapi import SCHEMA_REF
from ..ir import Api

_IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
# names a type alias must not take in types.ts: the globals its own declarations use
TS_GLOBALS = frozenset(
    {"Blob", "Array", "Record", "Promise", "String", "Number", "Boolean", "Object", "unknown",
     "Date", "Error", "Function", "Symbol", "Map", "Set", "JSON", "Math", "File", "FormData"}
)  # fmt: skip


def type_name(cls: str) -> str:
    return cls + "_" if cls in TS_GLOBALS else cls


def literal(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def prop_key(name: str) -> str:
    return name if _IDENT.match(name) else literal(name)


@dataclass(frozen=True)
class Mode:
    ns: str = ""  # prefix of alias names (`T.` outside types.ts)
    answer: bool = False  # enums open
    names: Mapping[str, str] = field(default_factory=dict)  # schema class -> alias, this side


def ts_type(
    schema: Any,
    depth: int = 0,
    ns: str = "",
    *,
    answer: bool = False,
    names: Mapping[str, str] | None = None,
) -> str:
    """The TypeScript type of a (3.1) schema; `$ref`s name the type aliases of types.ts
    (prefixed with `ns`: `T.` outside it; `names` maps a schema to its alias on this side)."""
    return _type(schema, depth, Mode(ns, answer, names or {}))


def _type(schema: Any, depth: int, mode: Mode) -> str:
    if depth > 40 or schema is True or not isinstance(schema, dict) or not schema:
        return "unknown"
    if schema is False:
        return "never"
    ref = schema.get("$ref")
    if isinstance(ref, str):
        if ref.startswith(SCHEMA_REF) and "/" not in ref[len(SCHEMA_REF) :]:
            cls = ref[len(SCHEMA_REF) :].replace("~1", "/").replace("~0", "~")
            return mode.ns + mode.names.get(cls, type_name(cls))
        return "unknown"
    if "const" in schema:
        return literal(schema["const"])
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return _enum(schema["enum"], mode.answer)
    parts: list[str] = []
    if isinstance(schema.get("allOf"), list) and schema["allOf"]:
        members = [_type(s, depth + 1, mode) for s in schema["allOf"]]
        parts.append("(" + " & ".join(members) + ")")
    for key in ("oneOf", "anyOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            parts.append(_alternatives(schema[key], schema.get("discriminator"), depth, mode))
    own = _own_type(schema, depth, mode)
    if own is not None:
        parts.append(own)
    if not parts:
        return "unknown"
    if len(parts) == 1:
        return parts[0]
    return "(" + " & ".join(p if p.startswith("(") else f"({p})" for p in parts) + ")"


def _enum(values: list[Any], answer: bool) -> str:
    members = [literal(v) for v in values]
    if answer:  # open: any other string (number) too, the known values still named
        if any(isinstance(v, str) for v in values):
            members.append("(string & {})")
        if any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            members.append("(number & {})")
    return union(members)


def union(members: list[str]) -> str:
    found = list(dict.fromkeys(members))
    if "unknown" in found:
        return "unknown"
    return found[0] if len(found) == 1 else "(" + " | ".join(found) + ")"


def _alternatives(members: list[Any], discriminator: Any, depth: int, mode: Mode) -> str:
    prop = discriminator.get("propertyName") if isinstance(discriminator, dict) else None
    if not isinstance(prop, str):
        return union([_type(s, depth + 1, mode) for s in members])
    mapping = discriminator.get("mapping") if isinstance(discriminator, dict) else None
    tags: dict[str, list[str]] = {}
    if isinstance(mapping, dict):
        for value, ref in mapping.items():
            if isinstance(ref, str):
                name = ref.split("/")[-1] if ref.startswith("#/") else ref
                tags.setdefault(name, []).append(str(value))
    out = []
    for member in members:
        kind = _type(member, depth + 1, mode)
        ref = member.get("$ref") if isinstance(member, dict) else None
        if isinstance(ref, str) and ref.startswith(SCHEMA_REF):
            name = ref[len(SCHEMA_REF) :]
            values = tags.get(name) or ([] if mapping else [name])
            if values:
                tag = " | ".join(literal(v) for v in values)
                kind = f"({kind} & {{ {prop_key(prop)}: {tag} }})"
        out.append(kind)
    return union(out)


def _own_type(schema: dict[str, Any], depth: int, mode: Mode) -> str | None:
    kinds = schema.get("type")
    if kinds is None:
        if any(k in schema for k in ("properties", "additionalProperties")):
            kinds = "object"
        elif "items" in schema:
            kinds = "array"
        else:
            return None
    if not isinstance(kinds, list):
        kinds = [kinds]
    return union([_one_type(str(k), schema, depth, mode) for k in kinds]) if kinds else None


def _one_type(kind: str, schema: dict[str, Any], depth: int, mode: Mode) -> str:
    if kind == "string":
        if schema.get("format") == "binary" or "contentMediaType" in schema:
            return "Blob"
        return "string"
    if kind in ("integer", "number"):
        return "number"
    if kind == "boolean":
        return "boolean"
    if kind == "null":
        return "null"
    if kind == "array":
        items = schema.get("items")
        if isinstance(schema.get("prefixItems"), list):
            return "unknown[]"
        return f"{wrap(_type(items if items is not None else True, depth + 1, mode))}[]"
    if kind == "object":
        return _object(schema, depth, mode)
    return "unknown"


def wrap(text: str) -> str:
    return text if _IDENT.match(text) or text.startswith("(") else f"({text})"


def _object(schema: dict[str, Any], depth: int, mode: Mode) -> str:
    found = schema.get("properties")
    props: dict[str, Any] = found if isinstance(found, dict) else {}
    required = set(schema.get("required") or [])
    extra = schema.get("additionalProperties", True)
    fields = []
    for name, sub in props.items():
        optional = "" if name in required else "?"
        fields.append(f"{prop_key(str(name))}{optional}: {_type(sub, depth + 1, mode)}")
    if extra is not False:
        if props or extra is True or extra == {}:
            fields.append("[key: string]: unknown")
        else:
            fields.append(f"[key: string]: {_type(extra, depth + 1, mode)}")
    if not fields:
        return "{ [key: string]: never }"
    if depth == 0 and not mode.ns:  # a schema's own object type: a field a line
        return "{\n" + "".join(f"  {f};\n" for f in fields) + "}"
    return "{ " + "; ".join(fields) + " }"


# -- which side reaches a schema --------------------------------------------------------------


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(SCHEMA_REF):
            yield ref[len(SCHEMA_REF) :].replace("~1", "/").replace("~0", "~")
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _has_enum(node: Any) -> bool:
    if isinstance(node, dict):
        return isinstance(node.get("enum"), list) or any(_has_enum(v) for v in node.values())
    return isinstance(node, list) and any(_has_enum(v) for v in node)


def _closure(schemas: Mapping[str, Any], roots: set[str]) -> set[str]:
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name not in seen and name in schemas:
            seen.add(name)
            todo.extend(_refs(schemas[name]))
    return seen


def _sides(api: Api) -> tuple[set[str], set[str]]:
    """(the schemas requests reach, the schemas answers reach), through their references."""
    sent: set[str] = set()
    got: set[str] = set()
    for op in api.operations:
        for p in op.params:
            sent.update(_refs(p.schema))
        for media in op.body.media if op.body else ():
            sent.update([media.model] if media.model else _refs(media.schema))
        for response in op.responses:
            for media in response.media:
                got.update([media.model] if media.model else _refs(media.schema))
    for hook in api.webhooks:  # received from the API: its payloads are answers
        for media in hook.body.media if hook.body else ():
            got.update([media.model] if media.model else _refs(media.schema))
    return _closure(api.schemas, sent), _closure(api.schemas, got)


@dataclass(frozen=True)
class Aliases:
    request: dict[str, str]  # schema class -> the alias request types use
    answer: dict[str, str]  # schema class -> the alias answer types use
    declarations: dict[str, str]  # alias -> its type, in types.ts


def aliases(api: Api) -> Aliases:
    schemas = api.schemas
    sent, got = _sides(api)
    enums = {name for name, schema in schemas.items() if _has_enum(schema)}
    refs = {name: set(_refs(schema)) for name, schema in schemas.items()}
    grew = True
    while grew:  # a schema referring to one that differs differs too
        grew = False
        for name in schemas:
            if name not in enums and not refs[name].isdisjoint(enums):
                enums.add(name)
                grew = True
    taken = {type_name(name) for name in schemas}
    request = {name: type_name(name) for name in schemas}
    answer = dict(request)
    for name in sorted(schemas):
        if name in enums and name in sent and name in got:
            request[name] = unique(type_name(name) + "Input", taken)
    declarations: dict[str, str] = {}
    for name, schema in sorted(schemas.items()):
        is_answer = name in got
        names = answer if is_answer else request
        declarations[answer[name]] = ts_type(schema, answer=is_answer, names=names)
        if request[name] != answer[name]:
            declarations[request[name]] = ts_type(schema, names=request)
    return Aliases(request, answer, declarations)

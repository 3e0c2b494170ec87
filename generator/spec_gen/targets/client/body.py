"""A request body's fields as keyword arguments of a client method (the Stainless convention:
`client.webhooks.create(url=..., events=[...])`), beside `body=` for a whole object.

Only object bodies with known properties get them: the JSON (or form/multipart) media type
that has a model and `properties`. Each field gets a safe Python name, unique among the
method's other arguments; required fields are required keyword arguments (in an overload of
their own, since `body=` may stand in for them), optional ones default to `_wire.OMIT`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...core.naming import HANDLER_RESERVED, identifier
from ...ir import Api, Operation, schema_ref_name
from ...ir.media import is_binary_schema
from .wire import body_media

SCALARS = {"integer": "int", "number": "float", "boolean": "bool", "string": "str"}
# names a client method's body uses beside its arguments (module-level imports and helpers)
METHOD_RESERVED = HANDLER_RESERVED | {
    "paginate", "async_paginator", "PageStyle", "Sequence", "Mapping", "cached_property",
    "overload", "Literal", "response", "builtins", "AsyncPaginator", "SyncPage",
    "to_raw_response_wrapper", "async_to_raw_response_wrapper", "TYPE_CHECKING",
}  # fmt: skip


@dataclass(frozen=True)
class BodyField:
    name: str  # on the wire (the schema's property name)
    py_name: str  # the keyword argument
    annotation: str  # what the argument accepts (validated into the model before sending)
    required: bool
    description: str


def _annotation(api: Api, schema: Any, known: set[str], depth: int = 0) -> str:
    """What a property accepts: its model (or plain data), a scalar, a list of those, or Any."""
    if not isinstance(schema, dict) or depth > 4:
        return "Any"
    name = schema_ref_name(schema)
    if name:
        target = api.schemas.get(name) or {}
        if name not in known:
            return _annotation(api, target, known, depth + 1) if target else "Any"
        if "enum" in target:
            plain = SCALARS.get(str(target.get("type")), "")
            return f"{name} | {plain}" if plain else name
        if target.get("type") == "object" or "properties" in target:
            return f"{name} | Mapping[str, Any]"
        if "allOf" in target and _merged(api, target) is not None:
            return f"{name} | Mapping[str, Any]"
        return "Any"
    const = schema.get("const")
    if isinstance(const, str | int) and not isinstance(const, bool) and "type" not in schema:
        return f"Literal[{const!r}]"
    types = schema.get("type")
    type_list = types if isinstance(types, list) else [types] if types else []
    nullable = "null" in type_list or schema.get("nullable") is True
    concrete = [t for t in type_list if t != "null"]
    if len(concrete) != 1 or any(k in schema for k in ("oneOf", "anyOf", "allOf")):
        return "Any"
    kind = concrete[0]
    if "enum" in schema and all(isinstance(v, str) for v in schema["enum"] if v is not None):
        values = [v for v in schema["enum"] if v is not None]
        text = f"Literal[{', '.join(repr(v) for v in values)}]" if values else "str"
    elif kind == "array":
        item = _annotation(api, schema.get("items") or {}, known, depth + 1)
        text = f"Sequence[{item}]"
    elif kind == "object":
        text = "Mapping[str, Any]"
    elif kind == "string" and is_binary_schema(schema):
        text = "bytes"
    elif kind in SCALARS:
        text = SCALARS[kind]
    else:
        return "Any"
    return f"{text} | None" if nullable else text


def _object_schema(api: Api, schema: dict[str, Any], model: str) -> dict[str, Any]:
    node = api.schemas.get(model) or schema
    for _ in range(5):
        name = schema_ref_name(node)
        if not name or name not in api.schemas:
            break
        node = api.schemas[name]
    return node


def _merged(api: Api, schema: dict[str, Any], depth: int = 0) -> dict[str, Any] | None:
    """An object schema with its `allOf` members' properties and requirements merged in
    (members first, in order); None when a member is not a plain object (a union, a type
    other than object) or the chain is too deep."""
    if depth > 5:
        return None
    if any(k in schema for k in ("oneOf", "anyOf")) or schema.get("type") not in (None, "object"):
        return None
    props: dict[str, Any] = {}
    required: list[str] = []
    for member in schema.get("allOf") or ():
        name = schema_ref_name(member) if isinstance(member, dict) else None
        node = api.schemas.get(name) if name else member
        if not isinstance(node, dict):
            return None
        merged = _merged(api, node, depth + 1)
        if merged is None:
            return None
        props.update(merged["properties"])
        required += [r for r in merged["required"] if r not in required]
    own = schema.get("properties")
    if own is not None and not isinstance(own, dict):
        return None
    props.update(own or {})
    required += [r for r in schema.get("required") or () if r not in required]
    return {"type": "object", "properties": props, "required": required}


def _top_level(annotation: str) -> list[str]:
    """`A | Sequence[B | C] | D` -> [A, Sequence[B | C], D]."""
    out, depth, start = [], 0, 0
    for i, char in enumerate(annotation):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth == 0 and annotation.startswith(" | ", i):
            out.append(annotation[start:i])
            start = i + 3
    out.append(annotation[start:])
    return out


def body_annotation(api: Api, op: Operation, known: set[str]) -> str | None:
    """`body=`'s precise type when the JSON body is a union (`oneOf`/`anyOf`) or an array:
    its model, or any member (each model or plain data) / a sequence of items; None: as usual."""
    body = op.body
    media = body_media(body)
    if body is None or len(media) != 1 or media[0].kind != "json":
        return None
    m = media[0]
    schema = _object_schema(api, m.schema, m.model) if m.model else m.schema
    if not isinstance(schema, dict):
        return None
    options: list[str] = [m.model] if m.model and m.model in known else []
    members = schema.get("oneOf") or schema.get("anyOf")
    if isinstance(members, list) and members and "type" not in schema:
        parts = [_annotation(api, member, known) for member in members]
    elif schema.get("type") == "array" and not any(
        k in schema for k in ("oneOf", "anyOf", "allOf")
    ):
        parts = [f"Sequence[{_annotation(api, schema.get('items') or {}, known)}]"]
    else:
        return None
    if any(p == "Any" for p in parts):
        return None
    for part in parts:
        for option in _top_level(part):
            if option not in options:
                options.append(option)
    options.sort(key=lambda option: option == "Mapping[str, Any]")  # plain data last
    optional = "" if body.required else " | None"
    return " | ".join(options) + optional


def body_fields(api: Api, op: Operation, taken: set[str], known: set[str]) -> list[BodyField]:
    """The body's fields as keyword arguments (none when the body is not a known object).
    `taken`: the method's other argument names; the fields' names join it."""
    media = [m for m in body_media(op.body) if m.kind in ("json", "form", "multipart")]
    if not media or media[0].model is None or media[0].model not in known:
        return []
    schema = _object_schema(api, media[0].schema, media[0].model)
    if "allOf" in schema:  # an object extending others: every member's properties
        schema = _merged(api, schema) or {}
    props = schema.get("properties")
    if schema.get("type") not in (None, "object") or not isinstance(props, dict) or not props:
        return []
    if any(k in schema for k in ("oneOf", "anyOf", "allOf")):
        return []
    required = set(schema.get("required") or ())
    names = set(taken)
    # a multipart body's file parts take bytes, a path, an open file or a (name, content,
    # type) tuple
    files = (
        {f.name for f in media[0].fields if f.is_file} if media[0].kind == "multipart" else set()
    )
    out = []
    for wire_name, prop in props.items():
        prop = prop if isinstance(prop, dict) else {}
        if prop.get("readOnly") is True:
            continue
        py_name = identifier(str(wire_name), names, METHOD_RESERVED)
        if not py_name.isidentifier():
            py_name = identifier("field_" + py_name, names, METHOD_RESERVED)
        description = " ".join(str(prop.get("description") or prop.get("title") or "").split())
        out.append(
            BodyField(
                str(wire_name),
                py_name,
                _annotation(api, prop, known).replace("bytes", "_wire.FileContent")
                if wire_name in files
                else _annotation(api, prop, known),
                wire_name in required,
                description,
            )
        )
    taken |= {f.py_name for f in out}
    return out


def models_in(fields: list[BodyField], known: set[str]) -> set[str]:
    out: set[str] = set()
    for f in fields:
        for word in f.annotation.replace("[", " ").replace("]", " ").replace("|", " ").split():
            word = word.strip(",")
            if word in known:
                out.add(word)
    return out

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

from ..ir import Api, Operation, schema_ref_name
from ..ir.media import is_binary_schema
from ..ir.names import HANDLER_RESERVED, identifier
from .client_wire import body_media

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
        return "Any"
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


def body_fields(api: Api, op: Operation, taken: set[str], known: set[str]) -> list[BodyField]:
    """The body's fields as keyword arguments (none when the body is not a known object).
    `taken`: the method's other argument names; the fields' names join it."""
    media = [m for m in body_media(op.body) if m.kind in ("json", "form", "multipart")]
    if not media or media[0].model is None or media[0].model not in known:
        return []
    schema = _object_schema(api, media[0].schema, media[0].model)
    props = schema.get("properties")
    if schema.get("type") not in (None, "object") or not isinstance(props, dict) or not props:
        return []
    if any(k in schema for k in ("oneOf", "anyOf", "allOf")):
        return []
    required = set(schema.get("required") or ())
    names = set(taken)
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
                _annotation(api, prop, known),
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

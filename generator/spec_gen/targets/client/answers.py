"""What a client method hands back: an envelope's `data` type, and the plain Python type of an
answer whose class is a pydantic `RootModel` (a list, a map, a primitive: no wrapper at the
user's side)."""

from __future__ import annotations

from typing import Any

from ...ir import Api, schema_ref_name
from .paging import PRIMITIVES


def data_annotation(api: Api, model: str, known: set[str]) -> str | None:
    """The type of an envelope's `data` field, when the response is `{"data": ..., "pagination"?}`."""
    schema = api.schemas.get(model) or {}
    props = schema.get("properties") or {}
    if "data" not in props or "data" not in (schema.get("required") or []):
        return None
    if set(props) - {"data", "pagination"}:
        return None
    data = props["data"]
    name = schema_ref_name(data)
    if name:
        return name if name in known else None
    if data.get("type") == "array":
        items = data.get("items") or {}
        item = schema_ref_name(items) or PRIMITIVES.get(str(items.get("type")))
        if item and (item in known or item in PRIMITIVES.values()):
            return f"list[{item}]"
    return None


WRAPPERS = ("$ref", "enum", "const", "oneOf", "anyOf", "allOf", "not", "if", "properties")


def _element(node: Any, known: set[str]) -> str:
    """The Python type of a list item or map value: its class, a plain primitive, or Any."""
    name = schema_ref_name(node)
    if name:
        return name if name in known else "Any"
    if not isinstance(node, dict) or any(k in node for k in (*WRAPPERS, "format")):
        return "Any"
    return PRIMITIVES.get(str(node.get("type")), "Any")


def plain_answer(api: Api, model: str, known: set[str]) -> str | None:
    """The Python type an answer whose class is a pydantic `RootModel` is handed back as (its
    `.root`): `list[...]` for an array, `dict[str, ...]` for a map, the type of a primitive."""
    schema = api.schemas.get(model)
    if not isinstance(schema, dict) or any(k in schema for k in WRAPPERS):
        return None
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    nullable = " | None" if "null" in kinds else ""
    kinds = [k for k in kinds if k != "null"]
    if len(kinds) != 1:
        return None
    if kinds[0] == "array" and "prefixItems" not in schema:
        return f"list[{_element(schema.get('items') or {}, known)}]{nullable}"
    extra = schema.get("additionalProperties")
    if kinds[0] == "object" and isinstance(extra, dict) and "patternProperties" not in schema:
        return f"dict[str, {_element(extra, known)}]{nullable}"
    if kinds[0] in PRIMITIVES and "format" not in schema:
        return PRIMITIVES[kinds[0]] + nullable
    return None

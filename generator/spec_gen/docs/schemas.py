"""Schemas as field tables: name, type, required, description (nested objects get their own).

`field_tables(api, schema, title)` walks a request or response schema breadth first: the
top object's table, then one table per nested object (a named schema under its name, an
inline one under its field path), each once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..ir import Api, resolve_schema, schema_ref_name


@dataclass(frozen=True)
class FieldTable:
    title: str  # the schema's name, or the field path of an inline object
    description: str
    rows: list[tuple[str, str, str, str]]  # name, type, required, description
    open_keys: str  # "" or what other keys an open object (additionalProperties) takes


def _types(schema: dict[str, Any]) -> list[str]:
    kinds = schema.get("type")
    return [str(k) for k in (kinds if isinstance(kinds, list) else [kinds] if kinds else [])]


def _merged_all_of(
    api: Api, schema: dict[str, Any], within: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """`schema` with its `allOf` members' properties merged in (a member that is a schema
    already being merged, in a recursive document, adds nothing)."""
    if "allOf" not in schema:
        return schema
    properties: dict[str, Any] = {}
    required: list[str] = []
    for member in schema["allOf"]:
        name = schema_ref_name(member)
        if name in within:
            continue
        inner = within | {name} if name else within
        part = _merged_all_of(api, resolve_schema(api, member), inner)
        properties.update(part.get("properties") or {})
        required.extend(part.get("required") or [])
    properties.update(schema.get("properties") or {})
    required.extend(schema.get("required") or [])
    rest = {k: v for k, v in schema.items() if k not in ("allOf", "properties", "required")}
    return {**rest, "type": "object", "properties": properties, "required": required}


def is_object(api: Api, node: Any) -> bool:
    schema = _merged_all_of(api, resolve_schema(api, node))
    return bool(schema.get("properties")) or (
        "object" in _types(schema)
        and isinstance(schema.get("additionalProperties"), dict)
        and bool(schema["additionalProperties"].get("properties"))
    )


def type_text(api: Api, node: Any, within: frozenset[str] = frozenset()) -> str:
    """A field's type in words (inline Markdown): `integer`, `array of Webhook`, `string or null`.

    `within`: the named schemas being described around this one; a recursive schema that is
    not an object (a union, array or map of itself) is named where it comes back.
    """
    name = schema_ref_name(node)
    if name and name in within:
        return f"`{name}`"
    schema = resolve_schema(api, node)
    if name and is_object(api, schema):
        return f"`{name}`"
    within = within | {name} if name else within
    for combinator in ("oneOf", "anyOf"):
        if combinator in schema:
            parts = [type_text(api, option, within) for option in schema[combinator]]
            return " or ".join(dict.fromkeys(parts))
    if "allOf" in schema:
        return "object" if not name else f"`{name}`"
    kinds = _types(schema)
    nullable = "null" in kinds
    kinds = [k for k in kinds if k != "null"]
    if not kinds and ("enum" in schema or "const" in schema):
        values = schema.get("enum") or [schema.get("const")]
        kinds = list(dict.fromkeys(_json_type(v) for v in values))
    if not kinds and "properties" in schema:
        kinds = ["object"]
    words = []
    for kind in kinds or ["any"]:
        if kind == "array":
            words.append("array of " + type_text(api, schema.get("items") or {}, within))
        elif kind == "object" and not schema.get("properties"):
            extra = schema.get("additionalProperties")
            words.append(
                f"map of string to {type_text(api, extra, within)}"
                if isinstance(extra, dict) and extra
                else "object"
            )
        elif schema.get("format"):
            words.append(f"{kind} ({schema['format']})")
        else:
            words.append(kind)
    text = " or ".join(words)
    return text + " or null" if nullable else text


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "object"
    return "array" if isinstance(value, list) else "string"


def _literal(value: Any) -> str:
    return "`" + json.dumps(value, ensure_ascii=False) + "`"


def notes(schema: dict[str, Any]) -> str:
    """Enum values, default and bounds of a schema, as a sentence or two."""
    parts = []
    if "const" in schema:
        parts.append(f"Always {_literal(schema['const'])}.")
    if schema.get("enum"):
        parts.append(
            "One of: " + ", ".join(_literal(v) for v in schema["enum"] if v is not None) + "."
        )
    if "default" in schema:
        parts.append(f"Default: {_literal(schema['default'])}.")
    bounds = [
        f"{label} {schema[key]}"
        for key, label in (
            ("minimum", "minimum"),
            ("maximum", "maximum"),
            ("exclusiveMinimum", "greater than"),
            ("exclusiveMaximum", "less than"),
            ("minLength", "min length"),
            ("maxLength", "max length"),
            ("minItems", "min items"),
            ("maxItems", "max items"),
        )
        if key in schema
    ]
    if bounds:
        parts.append(bounds[0][:1].upper() + ", ".join(bounds)[1:] + ".")
    if schema.get("pattern"):
        parts.append(f"Pattern: `{schema['pattern']}`.")
    return " ".join(parts)


def field_notes(api: Api, node: Any) -> str:
    """Enum values, default and bounds of a field (through arrays and unions)."""
    schema = resolve_schema(api, node)
    parts = [notes(schema)]
    for combinator in ("oneOf", "anyOf"):
        parts += [notes(resolve_schema(api, option)) for option in schema.get(combinator) or []]
    if "array" in _types(schema):
        parts.append(notes(resolve_schema(api, schema.get("items") or {})))
    return " ".join(dict.fromkeys(p for p in parts if p))


def description(api: Api, node: Any) -> str:
    """A field's description: its own, else its schema's, plus notes and the provisional mark."""
    schema = resolve_schema(api, node)
    own = node.get("description") if isinstance(node, dict) else None
    text = " ".join(str(own or schema.get("description") or "").split())
    text = f"{text} {field_notes(api, node)}".strip()
    provisional = bool(schema.get("x-provisional")) or (
        isinstance(node, dict) and bool(node.get("x-provisional"))
    )
    return f"{text} *(provisional)*".strip() if provisional else text


def _nested(
    api: Api, node: Any, path: str, within: frozenset[str] = frozenset()
) -> list[tuple[str, Any]]:
    """Objects a field leads to (through arrays, maps and unions), with their table titles.

    `within`: the named schemas walked through to get here (a union, array or map of itself
    leads to nothing new where it comes back)."""
    name = schema_ref_name(node)
    if name and name in within:
        return []
    schema = resolve_schema(api, node)
    if is_object(api, schema):
        return [(name or path, node)]
    within = within | {name} if name else within
    found: list[tuple[str, Any]] = []
    if isinstance(schema.get("items"), dict):
        found += _nested(api, schema["items"], path + "[]", within)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict) and extra:
        found += _nested(api, extra, path + "{}", within)
    for combinator in ("oneOf", "anyOf"):
        for option in schema.get(combinator) or []:
            found += _nested(api, option, path, within)
    return found


def field_tables(api: Api, node: Any, title: str, limit: int = 12) -> list[FieldTable]:
    tables: list[FieldTable] = []
    queue = _nested(api, node, title) or [(schema_ref_name(node) or title, node)]
    seen: set[str] = set()
    while queue and len(tables) < limit:
        name, current = queue.pop(0)
        if name in seen:
            continue
        seen.add(name)
        schema = _merged_all_of(api, resolve_schema(api, current))
        required = set(schema.get("required") or [])
        rows = []
        for field, prop in (schema.get("properties") or {}).items():
            rows.append(
                (
                    f"`{field}`",
                    type_text(api, prop),
                    "yes" if field in required else "no",
                    description(api, prop),
                )
            )
            queue += _nested(api, prop, f"{name}.{field}")
        extra = schema.get("additionalProperties")
        open_keys = ""
        if schema.get("properties") and extra not in (None, False):
            open_keys = "any" if extra in (True, {}) else type_text(api, extra)
        if rows:
            own = " ".join(str(schema.get("description") or "").split())
            if schema.get("x-provisional") and own:
                own += " *(provisional)*"
            tables.append(FieldTable(name, own, rows, open_keys))
    return tables

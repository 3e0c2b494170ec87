"""Example values generated from schemas, for the docs and the client's README.

An explicit `example` / `examples` / `default` / `const` / first `enum` value wins; otherwise a
value of the right type and format is made up (deterministically, so output stays stable).
Only required properties are filled in request examples, all properties in response ones.
"""

from __future__ import annotations

from typing import Any

from .ir import Api, Operation, Param

FORMATS: dict[str, Any] = {
    "email": "ada@example.com",
    "uri": "https://example.com/hooks/outreach",
    "url": "https://example.com/hooks/outreach",
    "date-time": "2026-01-01T00:00:00Z",
    "date": "2026-01-01",
    "uuid": "7c9e6679-7425-40de-944b-e07fc1f90ae7",
}


def _deref(api: Api, node: Any, seen: int = 0) -> Any:
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and seen < 32:
        ref = node["$ref"]
        name = ref.rsplit("/", 1)[-1]
        node = api.schemas.get(name, {}) if ref.startswith("#/components/schemas/") else {}
        seen += 1
    return node


def example_value(api: Api, schema: Any, *, required_only: bool, depth: int = 0) -> Any:
    schema = _deref(api, schema)
    if not isinstance(schema, dict):
        return None
    for key in ("example", "const", "default"):
        if key in schema:
            return schema[key]
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return schema["examples"][0]
    if schema.get("enum"):
        return schema["enum"][0]
    for combinator in ("oneOf", "anyOf", "allOf"):
        options = [o for o in schema.get(combinator) or [] if _deref(api, o).get("type") != "null"]
        if options:
            if combinator == "allOf":
                merged: dict[str, Any] = {}
                for option in options:
                    value = example_value(api, option, required_only=required_only, depth=depth)
                    if isinstance(value, dict):
                        merged.update(value)
                return merged
            return example_value(api, options[0], required_only=required_only, depth=depth)
    types = schema.get("type")
    kind = next((t for t in (types if isinstance(types, list) else [types]) if t != "null"), None)
    if kind is None and "properties" in schema:
        kind = "object"
    if kind == "object":
        if depth > 4:
            return {}
        required = set(schema.get("required") or [])
        return {
            name: example_value(api, prop, required_only=required_only, depth=depth + 1)
            for name, prop in (schema.get("properties") or {}).items()
            if name in required or not required_only
        }
    if kind == "array":
        if depth > 4:
            return []
        return [
            example_value(
                api, schema.get("items") or {}, required_only=required_only, depth=depth + 1
            )
        ]
    if kind == "integer":
        return max(1, int(schema.get("minimum", 1)))
    if kind == "number":
        return float(schema.get("minimum", 1.0))
    if kind == "boolean":
        return True
    if kind == "string":
        return FORMATS.get(str(schema.get("format")), "string")
    return None


def param_example(api: Api, p: Param) -> Any:
    return example_value(api, p.schema, required_only=True)


def request_example(api: Api, op: Operation) -> Any:
    if op.body is None:
        return None
    return example_value(api, op.body.schema, required_only=True)


def response_example(api: Api, op: Operation) -> Any:
    model = op.success.model
    if model is None:
        return None
    return example_value(api, {"$ref": f"#/components/schemas/{model}"}, required_only=False)

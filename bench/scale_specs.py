"""Bigger specs from a real one: the bundled document copied N times, each copy's operations
and schemas renamed so that everything stays unique (used by build_speed.py).

Copy k (k >= 2) gets its paths under `/c{k}`, its operationIds and x-client-method names
suffixed `_c{k}` and its schemas renamed `NameC{k}` (every `$ref` to them follows); the
parameters, responses and the rest of `components` stay shared, as in a real large API.
"""

from __future__ import annotations

import copy
import json
from typing import Any

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
SCHEMA_PREFIX = "#/components/schemas/"


def _rename_refs(node: Any, names: dict[str, str]) -> Any:
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith(SCHEMA_PREFIX):
                name = value[len(SCHEMA_PREFIX) :]
                value = SCHEMA_PREFIX + names.get(name, name)
            out[key] = _rename_refs(value, names)
        return out
    if isinstance(node, list):
        return [_rename_refs(v, names) for v in node]
    return node


def replicate(document: dict[str, Any], copies: int) -> dict[str, Any]:
    """`document` with its paths and schemas copied `copies` times (1: unchanged)."""
    out = copy.deepcopy(document)
    schemas = (document.get("components") or {}).get("schemas") or {}
    paths = document.get("paths") or {}
    for k in range(2, copies + 1):
        names = {name: f"{name}C{k}" for name in schemas}
        for name, schema in schemas.items():
            out["components"]["schemas"][names[name]] = _rename_refs(schema, names)
        for path, item in paths.items():
            new_item = _rename_refs(item, names)
            for method in METHODS:
                op = new_item.get(method)
                if not isinstance(op, dict):
                    continue
                if isinstance(op.get("operationId"), str):
                    op["operationId"] = f"{op['operationId']}_c{k}"
                if isinstance(op.get("x-client-method"), str):
                    op["x-client-method"] = f"{op['x-client-method']}_c{k}"
            out["paths"][f"/c{k}{path}"] = new_item
    return out


def operation_count(document: dict[str, Any]) -> int:
    return sum(
        1
        for item in (document.get("paths") or {}).values()
        if isinstance(item, dict)
        for key in item
        if key in METHODS
    )


if __name__ == "__main__":  # python bench/scale_specs.py bundled.json 4 > x4.json
    import sys
    from pathlib import Path

    source = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    json.dump(replicate(source, int(sys.argv[2])), sys.stdout, indent=1)

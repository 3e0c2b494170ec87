"""The spec edits bench/build_speed.py times a rebuild after, for any OpenAPI document.

Each edit is what a team does to its spec between two builds, made on the first operation
or schema that has what the edit needs (so any document works):

  description  the first operation's description gets " (edited)" appended
  operation    the first operation copied to `<its path>/bench-added` (same parameters,
               operationId suffixed, no `x-client-*` naming of its own): an operation added
  field        a string field `bench_added` added to the first object schema with properties
  rename       the first component schema that other schemas or operations `$ref` (and that
               nothing names otherwise, e.g. a discriminator mapping) renamed `<Name>Renamed`,
               every `$ref` to it too

`edited(document, kind)` returns a copy with the edit made; the bench alternates between the
document and the edited copy, so every timed rebuild follows one edit.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

EDITS = ("description", "operation", "field", "rename")
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
SCHEMAS = "#/components/schemas/"


def _first_operation(document: dict[str, Any]) -> tuple[str, str]:
    for path, item in (document.get("paths") or {}).items():
        if not isinstance(item, dict) or "$ref" in item:
            continue
        for method in METHODS:
            if isinstance(item.get(method), dict):
                return path, method
    raise ValueError("no operation to edit")


def _description(document: dict[str, Any]) -> None:
    path, method = _first_operation(document)
    operation = document["paths"][path][method]
    operation["description"] = (operation.get("description") or "") + " (edited)"


def _operation(document: dict[str, Any]) -> None:
    path, method = _first_operation(document)
    item = document["paths"][path]
    added = {k: v for k, v in copy.deepcopy(item[method]).items() if not k.startswith("x-client")}
    name = added.get("operationId")
    if isinstance(name, str):
        added["operationId"] = name + ("_bench_added" if name == name.lower() else "BenchAdded")
    new_item: dict[str, Any] = {method: added}
    if "parameters" in item:
        new_item["parameters"] = copy.deepcopy(item["parameters"])
    document["paths"][path.rstrip("/") + "/bench-added"] = new_item


def _field(document: dict[str, Any]) -> None:
    for schema in (document.get("components", {}).get("schemas") or {}).values():
        fields = schema.get("properties") if isinstance(schema, dict) else None
        if isinstance(fields, dict) and schema.get("type", "object") == "object":
            fields["bench_added"] = {"type": "string", "description": "Added by the bench."}
            return
    raise ValueError("no object schema with properties to edit")


def _rename(document: dict[str, Any]) -> dict[str, Any]:
    text = json.dumps(document)
    schemas = document.get("components", {}).get("schemas") or {}
    for name in schemas:
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name) or f"{name}Renamed" in schemas:
            continue
        ref = json.dumps(SCHEMAS + name)
        if text.count(ref) and text.count(json.dumps(name)) == 1:  # only as its own key
            renamed = json.loads(text.replace(ref, json.dumps(f"{SCHEMAS}{name}Renamed")))
            old = renamed["components"]["schemas"]
            renamed["components"]["schemas"] = {
                (f"{key}Renamed" if key == name else key): value for key, value in old.items()
            }
            return renamed
    raise ValueError("no referenced schema to rename")


def edited(document: dict[str, Any], kind: str) -> dict[str, Any]:
    """A copy of `document` with the edit `kind` (one of EDITS) made."""
    if kind == "rename":
        return _rename(document)
    out = copy.deepcopy(document)
    {"description": _description, "operation": _operation, "field": _field}[kind](out)
    return out
